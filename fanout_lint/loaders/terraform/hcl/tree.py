"""The syntax tree the Terraform loader evaluates: blocks with labels and lines,
attributes, expressions, and the comments (for inline suppressions).

Made from HCL text by ``hcl_syntax`` (through Lark) and from ``.tf.json`` by
``terraform_json``; kept in the parse cache between runs. These records import no parser,
so a run whose Terraform files are all in the cache never loads Lark.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fanout_lint.model.record import ValueRecord

MAX_DEPTH = 200  # deeper expressions are hostile input, not Terraform


class HclError(Exception):
    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


# -- expressions ---------------------------------------------------------------

@dataclass(eq=False, repr=False)
class Literal(ValueRecord):
    """A number, string without interpolation, ``true``, ``false`` or ``null``."""

    value: object  # str, int, float, bool or None


@dataclass(eq=False, repr=False)
class Template(ValueRecord):
    """A quoted string or heredoc: text and interpolated expressions."""

    parts: tuple  # of str | Expr


@dataclass(eq=False, repr=False)
class Name(ValueRecord):
    """A bare identifier: ``var``, ``local``, ``aws_sqs_queue``, ``count``, ..."""

    name: str


@dataclass(eq=False, repr=False)
class GetAttr(ValueRecord):
    """``obj.name``: an attribute of what ``obj`` evaluates to."""

    obj: "Expr"
    name: str


@dataclass(eq=False, repr=False)
class Index(ValueRecord):
    """``obj[key]``: an element of a list, map or object."""

    obj: "Expr"
    key: "Expr"


@dataclass(eq=False, repr=False)
class Call(ValueRecord):
    """A function call, ``name(args...)``."""

    name: str
    args: tuple
    expand: bool = False  # f(list...)


@dataclass(eq=False, repr=False)
class Binary(ValueRecord):
    """``left op right``: arithmetic, comparison or logic."""

    op: str
    left: "Expr"
    right: "Expr"


@dataclass(eq=False, repr=False)
class Unary(ValueRecord):
    """``!operand`` or ``-operand``."""

    op: str
    operand: "Expr"


@dataclass(eq=False, repr=False)
class Conditional(ValueRecord):
    """``condition ? then : otherwise``."""

    condition: "Expr"
    then: "Expr"
    otherwise: "Expr"


@dataclass(eq=False, repr=False)
class TupleExpr(ValueRecord):
    """A list written ``[a, b, ...]``."""

    items: tuple


@dataclass(eq=False, repr=False)
class ObjectExpr(ValueRecord):
    """An object written ``{key = value, ...}``, with where it and its items are written."""

    items: tuple  # of (key Expr, value Expr)
    # where it is written, for findings and fixes inside documents (``jsonencode({...})``):
    # its own span and each item's (key span, value span); see ``Pos``
    pos: "Pos | None" = field(default=None, compare=False)
    item_pos: tuple = field(default=(), compare=False)


@dataclass(eq=False, repr=False)
class Opaque(ValueRecord):
    """Syntax we do not evaluate; always unknown."""

    reason: str


Expr = Literal | Template | Name | GetAttr | Index | Call | Binary | Unary | Conditional | TupleExpr | ObjectExpr | Opaque


# -- structure -------------------------------------------------------------------

# (line, column, end line, end column): 1-based, end column exclusive, as Lark's tokens
Pos = tuple


@dataclass(eq=False, repr=False)
class Attribute(ValueRecord):
    """``name = expr`` in a body, with where it is written."""

    name: str
    expr: Expr
    line: int
    column: int = 1
    value_pos: Pos | None = field(default=None, compare=False)  # the expression after `=`

    @property
    def pos(self) -> Pos:
        """From the name to the end of the value."""
        end = self.value_pos or (self.line, self.column, self.line, self.column)
        return (self.line, self.column, end[2], end[3])


@dataclass(eq=False, repr=False)
class Block(ValueRecord):
    """A block: ``type "label" ... { body }``, with its lines and columns."""

    type: str
    labels: tuple[str, ...]
    body: "Body"
    line: int
    end_line: int
    column: int = 1
    end_column: int = 0  # just after the closing brace
    header_end: tuple = (0, 0)  # (line, column) just after the last label: the resource's own span


@dataclass(eq=False, repr=False)
class Body(ValueRecord):
    """The attributes and nested blocks of a file or a block."""

    attributes: dict = field(default_factory=dict)  # name -> Attribute
    blocks: tuple[Block, ...] = ()

    def blocks_of(self, kind: str) -> list[Block]:
        return [b for b in self.blocks if b.type == kind]


@dataclass(eq=False, repr=False)
class Comment(ValueRecord):
    """One line of a comment, for inline suppressions."""

    line: int
    text: str  # without the comment marker


@dataclass(eq=False, repr=False)
class HclFile(ValueRecord):
    """One Terraform file: its top-level body and its comments."""

    path: str
    body: Body
    comments: tuple[Comment, ...]
