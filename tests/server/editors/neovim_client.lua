-- Neovim as the editor, headless, through its own LSP client (0.7's API: start_client
-- and buf_attach_client, which later versions keep). tests/server/test_server_neovim.py runs it
-- with the repository, the Python and the file to write what it saw into.
local root, python, out = _G.arg_root, _G.arg_python, _G.arg_out
local results = {}
local function codes(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(found, tostring(code))
  end
  table.sort(found)
  return found
end
local function has(buf, code)
  for _, c in ipairs(codes(buf)) do if c == code then return true end end
  return false
end
local id = vim.lsp.start_client({
  name = "fanout-lint", cmd = { python, "-m", "fanout_lint", "server" }, root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "app" } },
  init_options = { debounceMs = 0 },
})
vim.cmd("edit " .. root .. "/consumer.yaml")
local consumer = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(consumer, id)
vim.cmd("edit " .. root .. "/producer.yaml")
local producer = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(producer, id)
results.opened = vim.wait(30000, function() return has(producer, "FL202") and has(consumer, "FL202") end, 50)
results.producer_codes = codes(producer)
-- an unsaved change to the producer clears the consumer's echo
local lines = vim.api.nvim_buf_get_lines(producer, 0, -1, false)
for i, line in ipairs(lines) do
  if line:find("VisibilityTimeout: 60", 1, true) then
    vim.api.nvim_buf_set_lines(producer, i - 1, i, false, { (line:gsub("VisibilityTimeout: 60", "VisibilityTimeout: 1800")) })
  end
end
results.cleared = vim.wait(30000, function() return not has(consumer, "FL202") and not has(producer, "FL202") end, 50)
-- and back; then the quick fix, applied as the editor applies it
vim.api.nvim_buf_set_lines(producer, 0, -1, false, lines)
results.back = vim.wait(30000, function() return has(producer, "FL202") end, 50)
-- as the protocol's diagnostics, the way 0.7's own code_action sends them
local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(producer)) do
  local lsp = d.user_data and d.user_data.lsp
  if lsp and lsp.code == "FL202" then
    for _, line in ipairs(vim.lsp.diagnostic.get_line_diagnostics(producer, d.lnum)) do
      if line.code == "FL202" then table.insert(diagnostics, line) end
    end
  end
end
local client = vim.lsp.get_client_by_id(id)
local answer = client.request_sync("textDocument/codeAction", {
  textDocument = { uri = vim.uri_from_bufnr(producer) },
  range = diagnostics[1].range, context = { diagnostics = diagnostics },
}, 30000, producer)
local titles = {}
for _, action in ipairs(answer and answer.result or {}) do
  table.insert(titles, action.title)
  if action.isPreferred and action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or "utf-16")
  end
end
results.titles = titles
results.fixed_line = vim.fn.getbufline(producer, 6)[1]
results.fixed = vim.wait(30000, function() return not has(producer, "FL202") end, 50)
client.stop()
results.stopped = vim.wait(20000, function() return client.is_stopped() end, 50)
local handle = io.open(out, "w")
handle:write(vim.fn.json_encode(results))
handle:close()
vim.cmd("qa!")
