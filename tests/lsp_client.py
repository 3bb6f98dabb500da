"""A small Language Server Protocol client for the end-to-end tests: it starts
``fanout-lint server`` as an editor does and speaks JSON-RPC with Content-Length framing
over the server's standard input and output."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

WAIT = 20.0  # seconds: a generous bound for a loaded machine, never a timing assertion


def uri(path) -> str:
    return Path(os.path.abspath(path)).as_uri()  # as the editor opened it: links not followed


class Client:
    def __init__(self, cwd, env: dict | None = None):
        environ = {**os.environ, "CI": "true", **(env or {})}  # CI: no parse cache on disk
        self.process = subprocess.Popen([sys.executable, "-m", "fanout_lint", "server"], cwd=str(cwd),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=environ)
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.requests_from_server: list[dict] = []
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- framing ------------------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _take(self, timeout: float = WAIT) -> dict:
        message = self.messages.get(timeout=timeout)
        if message is None:
            raise EOFError("the server closed its output: " + self.process.stderr.read().decode(errors="replace"))
        if "method" in message and "id" in message:  # a request of the server's: answered empty
            self.requests_from_server.append(message)
            self.send({"id": message["id"], "result": None})
        elif "method" in message:
            self.notifications.append(message)
        return message

    # -- messages -----------------------------------------------------------------------

    def request(self, method: str, params) -> dict:
        self._next += 1
        ident = self._next
        self.send({"id": ident, "method": method, "params": params})
        while True:
            message = self._take()
            if message.get("id") == ident and "method" not in message:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result")

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def initialize(self, folders, options: dict | None = None) -> dict:
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": uri(folders[0]),
            "workspaceFolders": [{"uri": uri(f), "name": Path(f).name} for f in folders],
            "initializationOptions": {"debounceMs": 0, **(options or {})},
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True},
                                           "workspaceFolders": True}},
        })
        self.notify("initialized", {})
        return result

    def open(self, path, text: str | None = None, version: int = 1) -> None:
        text = Path(path).read_text(encoding="utf-8") if text is None else text
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": "yaml", "version": version, "text": text}})

    def change(self, path, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                               "contentChanges": [{"text": text}]})

    def diagnostics(self, path, where=lambda diagnostics: True, after: int = 0) -> list[dict]:
        """The first diagnostics published for ``path`` after the ``after``-th notification
        that ``where`` accepts."""
        target = uri(path)
        seen = after
        while True:
            for message in self.notifications[seen:]:
                seen += 1
                if message["method"] == "textDocument/publishDiagnostics" and message["params"]["uri"] == target \
                        and where(message["params"]["diagnostics"]):
                    self.last_seen = seen
                    return message["params"]["diagnostics"]
            self._take()

    def log_lines(self) -> list[str]:
        return [m["params"]["message"] for m in self.notifications if m["method"] == "window/logMessage"]

    def close(self) -> int:
        """shutdown, then exit: the server's exit code."""
        if self.process.poll() is None:
            self.request("shutdown", None)
            self.notify("exit", None)
        try:
            return self.process.wait(timeout=WAIT)
        finally:
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                stream.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def apply(text: str, edits: list[dict]) -> str:
    """``text`` with the protocol's text edits made (UTF-16 positions, applied from the end)."""
    lines = text.splitlines(keepends=True)

    def offset(position: dict) -> int:
        before = sum(len(line) for line in lines[:position["line"]])
        line = lines[position["line"]] if position["line"] < len(lines) else ""
        units = 0
        for index, char in enumerate(line):
            if units >= position["character"]:
                return before + index
            units += 2 if ord(char) > 0xFFFF else 1
        return before + len(line)

    for edit in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                       reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
        lines = text.splitlines(keepends=True)
    return text
