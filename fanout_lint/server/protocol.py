"""The handlers of the protocol's messages: the glue between the editor, the workspace
state (``workspace.py``) and the lints (``scheduler.py``)."""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from fanout_lint import __version__
from fanout_lint.files import confine
from fanout_lint.loaders.parsing.parse_cache import ParseCache, open_cache
from fanout_lint.policy import baseline
from fanout_lint.results.untrusted import clean
from fanout_lint.rule import Rule
from fanout_lint.server import actions
from fanout_lint.server.diagnostics import publishable
from fanout_lint.server.linting import Outcome, lint_folder, repository_of
from fanout_lint.server.memo import FactsMemo
from fanout_lint.server.scheduler import Scheduler
from fanout_lint.server.workspace import Buffer, Workspace

DEBOUNCE_MS = 300
TIME_BOX_MS = 30_000
CONFIG_NAMES = (".fanout-lint.toml", "pyproject.toml")
WATCHED = "**/*.{yaml,yml,json,template,tf,tofu,tfvars,toml}"


class FanoutServer(LanguageServer):
    """The server's state: the workspace, the lints' scheduler, what each file shows."""

    def __init__(self, rules: tuple[Rule, ...]):
        super().__init__("fanout-lint", __version__)
        self.rules = rules
        self.state = Workspace()
        self.scheduler: Scheduler | None = None
        self.caches: dict[str, ParseCache] = {}
        self.memos: dict[str, FactsMemo] = {}
        self.shown: dict[str, list[types.Diagnostic]] = {}  # uri -> what it shows
        # fingerprint -> (folder, baseline, entry), from each folder's last lint
        self.baselinable: dict[str, tuple[str, str, dict[str, str]]] = {}
        self.debounce_ms = DEBOUNCE_MS
        self.time_box_ms = TIME_BOX_MS
        self.shut_down = False  # ``shutdown`` came: ``exit`` ends the process with 0

    # -- what the scheduler calls -------------------------------------------------------

    def snapshot(self, folder: str) -> tuple[list[Buffer], ParseCache, FactsMemo]:
        """On the loop: the buffers a lint reads (records the loop replaces, never changes),
        and what the folder's lints keep: its parse cache and link facts (one lint at a time
        uses them)."""
        cache = self.caches.setdefault(folder, open_cache(os.environ))
        return self.state.open_in(folder), cache, self.memos.setdefault(folder, FactsMemo())

    def lint(self, folder: str, snapshot: tuple[list[Buffer], ParseCache, FactsMemo]) -> Outcome:
        buffers, cache, memo = snapshot
        return lint_folder(folder, buffers, self.rules, cache, memo)

    def publish(self, folder: str, outcome: Outcome) -> None:
        self.baselinable = {k: v for k, v in self.baselinable.items() if v[0] != folder}
        self.baselinable.update((k, (folder, path, record)) for k, (path, record) in outcome.baselinable.items())
        for problem in outcome.problems:
            self.say(f"fanout-lint: {problem}", types.MessageType.Warning)
        open_paths = [b.path for b in self.state.open_in(folder)]
        encoding = str(self.workspace.position_encoding or "utf-16")
        for path, diagnostics in publishable(outcome, open_paths, encoding).items():
            buffer = self.state.buffers.get(path)
            if buffer is None:
                continue
            if outcome.versions.get(path, buffer.version) != buffer.version:
                continue  # changed since: the next lint answers
            self.show(buffer.uri, diagnostics, buffer.version)

    def show(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None:
        self.shown[uri] = diagnostics
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def say(self, line: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=clean(line)))

    def relint(self, path: str | None = None) -> None:
        """Lint the folder of ``path``, or every folder."""
        folders = self.state.folders if path is None else [self.state.folder_of(path)]
        for folder in folders:
            if folder is not None and self.scheduler is not None:
                self.scheduler.request(folder)


def _path(uri: str) -> str | None:
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None


def _number(options, key: str, default: int) -> int:
    value = options.get(key) if isinstance(options, dict) else None
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else default


def build(rules: tuple[Rule, ...]) -> FanoutServer:
    server = FanoutServer(rules)

    @server.feature(types.INITIALIZE)
    def initialize(ls: FanoutServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        ls.debounce_ms = _number(options, "debounceMs", DEBOUNCE_MS)
        ls.time_box_ms = _number(options, "lintTimeoutMs", TIME_BOX_MS) or TIME_BOX_MS
        for folder in params.workspace_folders or []:
            path = _path(folder.uri)
            if path:
                ls.state.add_folder(path)
        if not ls.state.folders:
            root = _path(params.root_uri) if params.root_uri else params.root_path
            ls.state.add_folder(root or os.getcwd())
        ls.scheduler = Scheduler(asyncio.get_running_loop(), ls.lint, ls.publish, ls.say,
                                 ls.debounce_ms / 1000, ls.time_box_ms / 1000, ls.snapshot)

    @server.feature(types.INITIALIZED)
    def initialized(ls: FanoutServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace
        dynamic = watched and watched.did_change_watched_files and watched.did_change_watched_files.dynamic_registration
        if dynamic:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id="fanout-lint-watched", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=WATCHED)]))]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FanoutServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        path = _path(document.uri)
        if path is None:
            return
        ls.state.buffers[path] = Buffer(document.uri, path, document.text, document.version)
        if ls.state.folder_of(path) is None:
            ls.state.add_folder(os.path.dirname(path))  # a file opened on its own: its directory
        ls.relint(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FanoutServer, params: types.DidChangeTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        buffer = ls.state.buffers.get(path) if path else None
        if buffer is None:
            return
        document = ls.workspace.get_text_document(params.text_document.uri)
        ls.state.buffers[path] = Buffer(buffer.uri, path, document.source, params.text_document.version)
        ls.relint(path)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: FanoutServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path:
            ls.relint(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FanoutServer, params: types.DidCloseTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path and ls.state.buffers.pop(path, None) is not None:
            ls.show(params.text_document.uri, [])
            ls.relint(path)  # the others no longer link with the buffer, but with the disk

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: FanoutServer, params: types.DidChangeWatchedFilesParams) -> None:
        # a created, deleted or renamed template changes the links of what is open; a
        # configuration file changes every folder under it; a lint reads both afresh
        paths = [p for p in (_path(c.uri) for c in params.changes) if p]
        if any(os.path.basename(p) in CONFIG_NAMES for p in paths):
            ls.relint()
            return
        for folder in {ls.state.folder_of(p) for p in paths} - {None}:
            ls.scheduler.request(folder)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders(ls: FanoutServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for removed in params.event.removed:
            path = _path(removed.uri)
            if path:
                ls.state.remove_folder(path)
                ls.scheduler.forget(path)
        for added in params.event.added:
            path = _path(added.uri)
            if path:
                ls.state.add_folder(path)
        ls.relint()

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL]))
    def code_action(ls: FanoutServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        only = params.context.only
        found: list[types.CodeAction] = []
        def wants(kind) -> bool:
            return not only or any(kind == o or kind.startswith(f"{o}.") for o in only)

        if wants(types.CodeActionKind.QuickFix):
            path = _path(uri)
            buffer = ls.state.buffers.get(path) if path else None
            for diagnostic in params.context.diagnostics:
                if diagnostic.source != "fanout-lint":
                    continue
                found.extend(actions.quick_fixes(diagnostic))
                if buffer is not None:
                    found.extend(actions.suppress_here(uri, buffer.path, buffer.text, diagnostic))
                found.extend(actions.add_to_baseline(diagnostic))
        if wants(actions.FIX_ALL):
            found.extend(actions.fix_all(uri, ls.shown.get(uri, [])))
        return found

    @server.command(actions.ADD_TO_BASELINE)
    def add_to_baseline(ls: FanoutServer, *arguments: object) -> None:
        key = arguments[0] if arguments and isinstance(arguments[0], str) else None
        found = ls.baselinable.get(key) if key else None
        if found is None:
            ls.say("fanout-lint: that finding is gone or has no configured baseline; nothing added")
            return
        folder, path, record = found
        try:
            added = baseline.add(path, record, confine.Roots(repository_of(folder)).write)
        except baseline.BaselineError as exc:
            ls.say(f"fanout-lint: cannot add to the baseline: {exc}")
            return
        except OSError as exc:  # confine.Refused included: outside the repository, or a link
            ls.say(f"fanout-lint: cannot add to the baseline: {path}: {exc.strerror or exc}")
            return
        if added:
            ls.say(f"fanout-lint: added {record['rule']} on {record['resource']} to {path}", types.MessageType.Info)
        if ls.scheduler is not None:
            ls.scheduler.request(folder)  # the finding leaves the editor once the baseline holds it

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: FanoutServer, params: None) -> None:
        ls.shut_down = True
        for folder in list(ls.state.folders):
            if ls.scheduler is not None:
                ls.scheduler.forget(folder)

    return server
