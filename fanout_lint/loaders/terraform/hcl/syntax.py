"""HCL text into the small syntax tree the Terraform loader evaluates (``hcl_tree``).

python-hcl2's grammar parses (``hcl_parser``); we read the raw Lark tree (not python-hcl2's
dict serialization, which turns every expression back into ``"${...}"`` text we would have
to parse again) and keep only what evaluation needs: blocks with labels and lines,
attributes, expressions, and the comments (for inline suppressions). Constructs we do not
evaluate (``for`` expressions, splats, template directives) become ``Opaque`` and
evaluate to unknown.

The parser is built once per process, and this module is imported only when a Terraform
file must be parsed (not when every file of a run is in the parse cache).
"""

from __future__ import annotations

import gc
import re

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from fanout_lint.loaders.parsing.budget import MAX_REREADS, Budget, BudgetExceeded
from fanout_lint.loaders.parsing.suppression_comments import MARKER
from fanout_lint.loaders.terraform.hcl.parser import parser
from fanout_lint.loaders.terraform.hcl.tree import (
    MAX_DEPTH,
    Attribute,
    Binary,
    Block,
    Body,
    Call,
    Comment,
    Conditional,
    Expr,
    GetAttr,
    HclError,
    HclFile,
    Index,
    Literal,
    Name,
    ObjectExpr,
    Opaque,
    Pos,
    Template,
    TupleExpr,
    Unary,
)


def parse_hcl(text: str, path: str) -> HclFile:
    """Parse one ``.tf`` or ``.tfvars`` file; ``HclError`` with a line when it is not HCL."""
    # Lark's tree and ours hold no reference cycles, so the cyclic collector would only
    # rescan them as they grow: with it running, a 10,000-resource file cost 1.8x per
    # resource what a 1,000-resource one did.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse_hcl(text, path)
    finally:
        if collecting:
            gc.enable()


def _parse_tree(text: str) -> Tree:
    # The final newline: python-hcl2's grammar ends every attribute and block with one.
    return parser().parse(text + "\n")


def _parse_hcl(text: str, path: str) -> HclFile:
    text = _strip_marker_trailing_space(text)
    try:
        tree = _parse_tree(text)
    except UnexpectedInput as exc:
        line = _line(exc)
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        if line is not None and line > max(last, 1):  # the parser adds a final newline
            line, column = max(last, 1), None
        else:
            column = _column(exc)
        raise HclError(_describe_error(exc), line, column) from None
    except LarkError as exc:
        raise HclError(f"invalid HCL: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise HclError("invalid HCL: nesting too deep") from None
    try:
        body = _body(tree.children[0], 0, reread_budget(text))
    except RecursionError:
        raise HclError("invalid HCL: nesting too deep") from None
    # Comments are read for suppressions only; finding them walks every token of the
    # tree (about a twelfth of a parse), so a file that holds no marker is not walked.
    return HclFile(path, body, tuple(_comments(tree)) if MARKER in text else ())


def _tokens(tree: Tree):
    """The tokens of a tree in document order, without recursion (Lark's ``scan_values``
    recurses once per level, and a tree can be as deep as the text is long)."""
    stack = [iter(tree.children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif isinstance(child, Tree):
            stack.append(iter(child.children))
        elif isinstance(child, Token):
            yield child


# Terraform trims spaces on both sides of a heredoc's closing marker (hclsyntax compares
# bytes.TrimSpace(line) with the marker); python-hcl2 only allows them before it, so valid
# files with "EOF  " fail. Trailing blanks after a lone word change nothing else: outside a
# heredoc they are insignificant, inside one they only end a body line. Linear: it starts
# only at line starts, and its three runs (blanks, word characters, blanks) are of
# disjoint classes, so each line is read once whatever it holds.
_LONE_WORD_TRAILING_SPACE = re.compile(r"^([ \t]*[A-Za-z_][A-Za-z0-9_-]*)[ \t]+(?=\r?$)", re.MULTILINE)


def _strip_marker_trailing_space(text: str) -> str:
    return _LONE_WORD_TRAILING_SPACE.sub(r"\1", text)


def reread_budget(text: str) -> Budget:
    """What parsing ``text`` may read again of it: heredoc bodies arrive unparsed and each
    interpolation in one is parsed from its text, so a heredoc in an interpolation of a
    heredoc is read once per level; real files read a little of themselves again, a
    hostile one, heredocs nested a hundred deep around a megabyte, would read it a
    hundred times (and hold every level's copy)."""
    return Budget(max_characters=MAX_REREADS * (len(text) + 1024))


_REREAD_TOO_MUCH = f"invalid HCL: heredocs nested in interpolations read the text more than {MAX_REREADS} times over"


def parse_expression(text: str, depth: int = 0, budget: Budget | None = None) -> Expr:
    """One expression, for interpolations inside heredocs (``depth``: how deep the heredoc is)."""
    if depth > MAX_DEPTH:
        raise HclError("invalid HCL: expression nested too deeply")
    tree = _parse_tree(f"x = {text}\n")
    attribute = next(c for c in tree.children[0].children if isinstance(c, Tree) and c.data == "attribute")
    if budget is not None:
        return _expr(_parts(attribute)[-1], depth, budget)
    try:
        return _expr(_parts(attribute)[-1], depth, reread_budget(text))
    except BudgetExceeded:
        raise HclError(_REREAD_TOO_MUCH) from None


def _describe_error(exc: UnexpectedInput) -> str:
    if isinstance(exc, UnexpectedEOF):
        return "invalid HCL: unexpected end of file"
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            return "invalid HCL: unexpected end of file (a closing brace or quote is missing)"
        shown = str(token).strip().splitlines()[0] if str(token).strip() else ""
        if not shown:
            return "invalid HCL: unexpected end of line"
        return f"invalid HCL: unexpected {shown[:40]!r}"
    if isinstance(exc, UnexpectedCharacters):
        return f"invalid HCL: unexpected character {exc.char!r}"
    return "invalid HCL"


def _line(exc: UnexpectedInput) -> int | None:
    line = getattr(exc, "line", None)
    return line if isinstance(line, int) and line > 0 else None


def _column(exc: UnexpectedInput) -> int | None:
    column = getattr(exc, "column", None)
    return column if isinstance(column, int) and column > 0 else None


def _comments(tree: Tree) -> list[Comment]:
    found = []
    for token in _tokens(tree):
        if token.type != "NL_OR_COMMENT":
            continue
        text = str(token).strip()
        if text.startswith("#"):
            found.append(Comment(token.line, text[1:].strip()))
        elif text.startswith("//"):
            found.append(Comment(token.line, text[2:].strip()))
        elif text.startswith("/*"):
            for offset, line in enumerate(text[2:-2].splitlines()):
                found.append(Comment(token.line + offset, line.strip()))
    return found


# Layout: the subtrees of new lines and comments between the parts of a construct. The
# test is written out where it is made, not called: it runs for every child kept.
_LAYOUT = "new_line_or_comment"


def _parts(tree: Tree) -> list:
    return [c for c in tree.children if not (isinstance(c, Tree) and c.data == _LAYOUT)]


def _first_token(node) -> Token:
    """The first token of a subtree, layout aside: where it starts.

    Positions come from tokens, not from Lark's per-rule bookkeeping, and only for what
    is kept (attributes, blocks, objects): a walk down one edge of the subtree.
    """
    while isinstance(node, Tree):
        node = next(c for c in node.children if not (isinstance(c, Tree) and c.data == _LAYOUT))
    return node


def _last_token(node) -> Token:
    while isinstance(node, Tree):
        node = next(c for c in reversed(node.children) if not (isinstance(c, Tree) and c.data == _LAYOUT))
    return node


def _pos(node) -> Pos:
    first, last = _first_token(node), _last_token(node)
    return (first.line, first.column, last.end_line, last.end_column)


def _name_of(node) -> str:
    """Text of an identifier, keyword or literal used as a name."""
    if isinstance(node, Token):
        return str(node)
    if isinstance(node, Tree):
        if node.data == "string":
            return "".join(_unescape(str(p.children[0]), getattr(p.children[0], "line", None))
                           for p in node.children if isinstance(p, Tree))
        return "".join(str(t) for t in _tokens(node))
    return str(node)


def _body(tree: Tree, depth: int, budget: Budget) -> Body:
    attributes: dict[str, Attribute] = {}
    blocks: list[Block] = []
    for child in _parts(tree):
        if depth > MAX_DEPTH:
            raise HclError("invalid HCL: blocks nested too deeply", _first_token(child).line)
        if child.data == "attribute":
            parts = _parts(child)
            name = _name_of(parts[0])
            try:
                expr = _expr(parts[-1], depth + 1, budget)
            except HclError as exc:
                if exc.line is None:  # the attribute's line: the expression's own is not kept
                    exc.line = _first_token(child).line
                raise
            except BudgetExceeded:
                raise HclError(_REREAD_TOO_MUCH, _first_token(child).line) from None
            first = _first_token(parts[0])
            attributes[name] = Attribute(name, expr, first.line, first.column, _pos(parts[-1]))
        elif child.data == "block":
            parts = [p for p in _parts(child) if not isinstance(p, Token)]
            header, body = parts[:-1], parts[-1]
            first, last = _first_token(child), _last_token(child)
            blocks.append(Block(
                type=_name_of(header[0]),
                labels=tuple(_name_of(h) for h in header[1:]),
                body=_body(body, depth + 1, budget),
                line=first.line,
                end_line=last.end_line,
                column=first.column,
                end_column=last.end_column,
                header_end=(_last_token(header[-1]).end_line, _last_token(header[-1]).end_column),
            ))
    return Body(attributes, tuple(blocks))


_BINARY_WRAPPERS = ("binary_op",)


def _expr(node, depth: int, budget: Budget) -> Expr:
    if depth > MAX_DEPTH:
        raise HclError("invalid HCL: expression nested too deeply")
    if isinstance(node, Token):
        return Literal(str(node))
    kind = node.data
    parts = _parts(node)
    if kind == "expr_term":
        inner = [p for p in parts if not isinstance(p, Token)]  # drops ( and )
        return _expr(inner[0], depth + 1, budget)
    if kind == "int_lit":
        digits = str(parts[0])
        if len(digits) > 40:  # past any number the rules read (and past int()'s own limit)
            return Opaque("number literal too long")
        return Literal(int(digits))
    if kind == "float_lit":
        return Literal(float(str(parts[0])))
    if kind == "literal_value":
        return Literal({"true": True, "false": False, "null": None}[str(parts[0])])
    if kind == "identifier":
        return Name(str(parts[0]))
    if kind == "string":
        return _string(parts, depth, budget)
    if kind in ("heredoc_template", "heredoc_template_trim"):
        return _heredoc(str(parts[0]), kind == "heredoc_template_trim", depth, budget)
    if kind == "conditional":
        exprs = [p for p in parts if not isinstance(p, Token)]
        return Conditional(*(_expr(e, depth + 1, budget) for e in exprs))
    if kind == "binary_op":
        left, term = parts[0], parts[1]
        term_parts = _parts(term)
        operator = _name_of(term_parts[0]).strip()
        return Binary(operator, _expr(left, depth + 1, budget), _expr(term_parts[-1], depth + 1, budget))
    if kind == "unary_op":
        return Unary(str(parts[0]), _expr(parts[1], depth + 1, budget))
    if kind == "tuple":
        items = [p for p in parts if not isinstance(p, Token)]
        return TupleExpr(tuple(_expr(i, depth + 1, budget) for i in items))
    if kind == "object":
        items, item_pos = [], []
        for elem in (p for p in parts if isinstance(p, Tree) and p.data == "object_elem"):
            elem_parts = _parts(elem)
            items.append((_object_key(elem_parts[0], depth, budget), _expr(elem_parts[-1], depth + 1, budget)))
            item_pos.append((_pos(elem_parts[0]), _pos(elem_parts[-1])))
        return ObjectExpr(tuple(items), _pos(node), tuple(item_pos))
    if kind == "function_call":
        names = [p for p in parts if isinstance(p, Tree) and p.data == "identifier"]
        args_tree = next((p for p in parts if isinstance(p, Tree) and p.data == "arguments"), None)
        args: tuple = ()
        expand = False
        if args_tree is not None:
            arg_parts = _parts(args_tree)
            expand = any(isinstance(p, Token) and p.type == "ELLIPSIS" for p in arg_parts)
            args = tuple(_expr(a, depth + 1, budget) for a in arg_parts if not isinstance(a, Token))
        return Call("::".join(_name_of(n) for n in names), args, expand)
    if kind == "get_attr_expr_term":
        obj, attr = parts
        return GetAttr(_expr(obj, depth + 1, budget), _name_of(_parts(attr)[-1]))
    if kind == "index_expr_term":
        obj, index = parts
        index_parts = _parts(index)
        if index.data == "short_index":
            key: Expr = Literal(int(str(index_parts[-1])))
        else:
            key = _expr([p for p in index_parts if not isinstance(p, Token)][0], depth + 1, budget)
        return Index(_expr(obj, depth + 1, budget), key)
    if kind in ("attr_splat_expr_term", "full_splat_expr_term"):
        return Opaque("splat expression")
    if kind in ("for_tuple_expr", "for_object_expr"):
        return Opaque("for expression")
    if kind == "template_string":
        return Opaque("template directive")
    return Opaque(f"{kind} is not evaluated")


def _object_key(node: Tree, depth: int, budget: Budget) -> Expr:
    inner = _parts(node)[0]
    if isinstance(inner, Tree) and inner.data == "keyword":
        return Literal(_name_of(inner))
    if isinstance(inner, Tree) and inner.data == "expr_term":
        term = [p for p in _parts(inner) if not isinstance(p, Token)]
        # A bare name as an object key is the key text, not a reference.
        if len(_parts(inner)) == 1 and isinstance(term[0], Tree) and term[0].data == "identifier":
            return Literal(_name_of(term[0]))
    return _expr(inner, depth + 1, budget)


def _string(parts: list, depth: int, budget: Budget) -> Expr:
    pieces: list = []
    for part in parts:
        if isinstance(part, Token):  # the quotes
            continue
        child = part.children[0]
        if isinstance(child, Token):
            if child.type == "ESCAPED_INTERPOLATION" or child.type == "ESCAPED_DIRECTIVE":
                pieces.append(str(child)[1:])
            else:
                pieces.append(_unescape(str(child), child.line))
        elif child.data == "interpolation":
            expr_node = [p for p in _parts(child) if not isinstance(p, Token)][0]
            pieces.append(_expr(expr_node, depth + 1, budget))
        else:
            return Opaque("template directive")
    return _template(pieces)


def _template(pieces: list) -> Expr:
    merged: list = []
    run: list[str] = []  # adjacent text, joined once (repeated += copies it each time)
    for piece in pieces + [None]:
        if isinstance(piece, str):
            run.append(piece)
            continue
        text = "".join(run)
        run = []
        if text:
            merged.append(text)
        if piece is not None:
            merged.append(piece)
    if not merged:
        return Literal("")
    if len(merged) == 1 and isinstance(merged[0], str):
        return Literal(merged[0])
    return Template(tuple(merged))


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")  # a backslash and at most 9 more: linear


def _unescape(text: str, line: int | None = None) -> str:
    def replace(match: re.Match) -> str:
        code = match.group(1)
        if code[0] in "uU" and len(code) > 1:
            point = int(code[1:], 16)
            if point > 0x10FFFF:  # past Unicode: chr() refuses it, and so does Terraform
                raise HclError(f"invalid HCL: \\{code} is no Unicode character", line)
            return chr(point)
        return _ESCAPES.get(code, match.group(0))

    return _ESCAPE.sub(replace, text)


def _heredoc(token: str, trim: bool, depth: int, budget: Budget) -> Expr:
    lines = token.split("\n")
    body_lines = lines[1:-2]  # drop the <<EOT line, the closing marker and the final ""
    if trim:
        indents = [len(line) - len(line.lstrip(" \t")) for line in body_lines if line.strip()]
        cut = min(indents) if indents else 0
        body_lines = [line[cut:] for line in body_lines]
    text = "\n".join(body_lines) + ("\n" if body_lines else "")
    return _template_text(text, depth, budget)


def _template_text(text: str, depth: int, budget: Budget) -> Expr:
    """Text with ``${...}`` interpolations (heredoc bodies arrive unparsed); each is parsed
    one level deeper than the heredoc, so heredocs inside interpolations end at MAX_DEPTH."""
    pieces: list = []
    position = 0
    while True:
        start = _next_marker(text, position)
        if start is None:
            pieces.append(text[position:])
            break
        marker, index = start
        if marker in ("$${", "%%{"):
            pieces.append(text[position:index] + marker[1:])
            position = index + 3
            continue
        if marker == "%{":
            return Opaque("template directive")
        end = _closing_brace(text, index + 2)
        if end is None:
            return Opaque("unterminated interpolation")
        pieces.append(text[position:index])
        budget.built(end - index)  # BudgetExceeded: the attribute's error (``_body``)
        try:
            pieces.append(parse_expression(text[index + 2:end], depth + 1, budget))
        except (LarkError, HclError, StopIteration, IndexError, RecursionError):
            return Opaque("interpolation we cannot parse")
        position = end + 1
    return _template(pieces)


_MARKER = re.compile(r"\$\$\{|%%\{|\$\{|%\{")  # fixed strings of at most 3 characters: linear


def _next_marker(text: str, position: int):
    match = _MARKER.search(text, position)
    return (match.group(0), match.start()) if match else None


_BRACE_MARKS = re.compile(r'[\\"{}]')  # one character: the text between is skipped in C


def _closing_brace(text: str, start: int) -> int | None:
    depth = 0
    in_string = False
    position = start
    while True:
        match = _BRACE_MARKS.search(text, position)
        if match is None:
            return None
        char, index = match.group(), match.start()
        position = index + 1
        if in_string:
            if char == "\\":
                position += 1  # the escaped character
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1


def parse_template(text: str) -> Expr:
    """A string of Terraform's JSON syntax as the template it stands for: its ``${...}``
    interpolations parsed, ``$${`` kept as text, a directive ``Opaque``."""
    try:
        return _template_text(text, 0, reread_budget(text))
    except BudgetExceeded:
        return Opaque("heredocs nested too deeply for their size")
