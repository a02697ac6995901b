--- ctgls for Neovim: `setup` for Neovim 0.8 and later, and the plugin's Lua API.
--- On 0.11 and later `vim.lsp.enable('ctgls')` with `lsp/ctgls.lua` does the same job.
local commands = require('ctgls.commands')
local compat = require('ctgls.compat')
local config = require('ctgls.config')
local status = require('ctgls.status')

local M = {}

--- The client configuration `setup` starts clients with (nil before `setup`).
M.client_config = nil

--- `settings` is `{ ctgls = {...} }` as for `vim.lsp.config`; a table without a `ctgls`
--- key is taken to be the section itself (`{ budgetSeconds = 4 }`).
local function normalize_settings(settings)
  if settings == nil then
    return { [config.section_name] = vim.empty_dict() }
  end
  if settings[config.section_name] == nil and next(settings) ~= nil then
    return { [config.section_name] = settings }
  end
  return settings
end

--- The nearest directory above `path` that holds one of `markers`.
local function find_root(path, markers)
  local found = vim.fs.find(markers, { upward = true, path = vim.fs.dirname(path) })[1]
  return found and vim.fs.dirname(found) or nil
end

local function start(bufnr)
  local client_config = M.client_config
  if not client_config or vim.bo[bufnr].buftype ~= '' then
    return
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' then
    return
  end
  local start_config = vim.deepcopy(client_config)
  start_config.root_markers = nil
  start_config.filetypes = nil
  -- Without a marker the client starts without a workspace folder, and the server reports
  -- generation as unavailable (as `vim.lsp.enable` does on 0.11).
  start_config.root_dir = find_root(path, client_config.root_markers)
  -- 0.8's `vim.lsp.start` attaches the current buffer; `bufnr` is for 0.9 and later.
  vim.api.nvim_buf_call(bufnr, function()
    vim.lsp.start(start_config, { bufnr = bufnr })
  end)
end

--- Starts ctgls for Java buffers, now and from now on.
--- @param opts table? `cmd`, `settings` (`{ ctgls = {...} }`), `filetypes`, `root_markers`,
---   and any other `vim.lsp.ClientConfig` field (`on_attach`, `capabilities`, `cmd_env`, ...)
function M.setup(opts)
  if not compat.has('0.8') then
    vim.notify('ctgls: setup needs Neovim 0.8 or later', vim.log.levels.ERROR)
    return
  end
  opts = vim.deepcopy(opts or {})
  opts.settings = normalize_settings(opts.settings)
  M.client_config = config.build(opts)
  commands.create()
  require('ctgls.progress').enable()
  require('ctgls.codelens').enable()
  require('ctgls.coverage').enable_if_wanted()
  local filetypes = M.client_config.filetypes
  vim.api.nvim_create_autocmd('FileType', {
    group = vim.api.nvim_create_augroup('ctgls_setup', { clear = true }),
    pattern = filetypes,
    callback = function(event)
      start(event.buf)
    end,
    desc = 'ctgls: start or attach the language server',
  })
  -- Buffers opened before `setup` (a lazily loaded plugin) get a client too.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(filetypes, vim.bo[bufnr].filetype) then
      start(bufnr)
    end
  end
end

M.generate = commands.generate
M.cancel = commands.cancel
M.status = commands.status
M.statusline = status.statusline

--- The last `ctgls/status` the server serving `bufnr` (the current buffer) sent, or nil.
function M.last_status(bufnr)
  local client = status.client_for((bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr)
  return client and status.by_client[client.id] or nil
end

return M
