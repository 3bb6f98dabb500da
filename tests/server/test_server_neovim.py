"""``fanout-lint server`` in a real editor: Neovim, headless, with its built-in LSP client
(tests/server/editors/neovim_client.lua). CI installs Debian's neovim (0.7); elsewhere the test
runs where ``nvim`` is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pygls")

from repo_paths import ROOT  # noqa: E402
from test_server import CONSUMER, PRODUCER  # noqa: E402

CLIENT = os.path.join(os.path.dirname(__file__), "editors", "neovim_client.lua")
NVIM = shutil.which("nvim")


def _lua_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.mark.skipif(NVIM is None and os.environ.get("CI") != "true", reason="Neovim is not installed")
def test_neovim_shows_cross_stack_diagnostics_follows_unsaved_changes_and_applies_the_quick_fix(tmp_path):
    assert NVIM is not None, "CI installs neovim (.ci/run)"
    app = tmp_path / "app"
    app.mkdir()
    (app / ".git").mkdir()
    (app / "producer.yaml").write_text(PRODUCER, encoding="utf-8")
    (app / "consumer.yaml").write_text(CONSUMER, encoding="utf-8")
    out = tmp_path / "seen.json"
    arguments = (f"lua _G.arg_root={_lua_string(str(app))}; _G.arg_python={_lua_string(sys.executable)}; "
                 f"_G.arg_out={_lua_string(str(out))}")
    run = subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "--cmd", arguments,
                          "-c", f"luafile {CLIENT}"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "CI": "true"})
    assert out.exists(), run.stdout + run.stderr
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["opened"] is True  # the producer's setting and the consumer's echo, across files
    assert seen["producer_codes"] == ["FL202"]
    assert seen["cleared"] is True  # an unsaved change to the producer cleared both
    assert seen["back"] is True
    assert "Set VisibilityTimeout to 1800 (visibility-timeout-below-function-timeout)" in seen["titles"]
    assert seen["fixed_line"] == "      VisibilityTimeout: 1800"  # the quick fix, applied by Neovim
    assert seen["fixed"] is True
    assert seen["stopped"] is True  # shutdown and exit
    assert (app / "producer.yaml").read_text(encoding="utf-8") == PRODUCER  # nothing saved


def _documented_setup() -> str:
    """The Lua that docs/editors.md gives Neovim 0.7 to 0.9 users."""
    with open(os.path.join(ROOT, "docs", "editors.md"), encoding="utf-8") as handle:
        text = handle.read()
    after = text.split("Neovim 0.7 to 0.9", 1)[1]
    return after.split("```lua\n", 1)[1].split("```", 1)[0]


WAIT_AND_WRITE = """
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local buf = vim.api.nvim_get_current_buf()
  local ok = vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if (d.user_data and d.user_data.lsp and d.user_data.lsp.code) == "FL202" then return true end
    end
    return false
  end, 50)
  local handle = io.open(_G.arg_out, "w")
  handle:write(vim.fn.json_encode({ shown = ok, filetype = vim.bo[buf].filetype }))
  handle:close()
  vim.cmd("qa!")
end })
"""


@pytest.mark.skipif(NVIM is None and os.environ.get("CI") != "true", reason="Neovim is not installed")
def test_the_documented_neovim_setup_starts_the_server_on_a_yaml_file(tmp_path):
    assert NVIM is not None, "CI installs neovim (.ci/run)"
    app = tmp_path / "app"
    app.mkdir()
    (app / ".git").mkdir()
    (app / "producer.yaml").write_text(PRODUCER, encoding="utf-8")
    (app / "consumer.yaml").write_text(CONSUMER, encoding="utf-8")
    out = tmp_path / "seen.json"
    init = tmp_path / "init.lua"
    init.write_text(f"_G.arg_out = {_lua_string(str(out))}\n" + _documented_setup() + WAIT_AND_WRITE, encoding="utf-8")
    # the documented `cmd` is `fanout-lint server`: the executable of this environment
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    subprocess.run([NVIM, "--headless", "-u", str(init), "-i", "NONE", "-n", "producer.yaml"], cwd=app,
                   capture_output=True, text=True, timeout=300, env={**os.environ, "CI": "true", "PATH": path})
    assert json.loads(out.read_text(encoding="utf-8")) == {"shown": True, "filetype": "yaml"}
