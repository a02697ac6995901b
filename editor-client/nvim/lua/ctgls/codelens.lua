--- Code lenses (`2/2 branches · 3 tests` above each method), when `vim.g.ctgls_codelens` is
--- true. Neovim asks for code lenses only when told to and does not answer the server's
--- `workspace/codeLens/refresh`; this asks when a ctgls buffer is entered or attached, after
--- insert mode, and when the server says a file's coverage changed (`ctgls/coverageChanged`).
local compat = require('ctgls.compat')
local status = require('ctgls.status')

local M = {}

local enabled = false

local function wanted()
  return vim.g.ctgls_codelens == true or vim.g.ctgls_codelens == 1
end

--- Asks for the code lenses of `bufnr` if ctgls serves it.
function M.refresh(bufnr)
  if not wanted() or not vim.api.nvim_buf_is_loaded(bufnr) or not status.client_for(bufnr) then
    return
  end
  if compat.has('0.10') then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  elseif bufnr == vim.api.nvim_get_current_buf() then
    -- Before 0.10 `refresh` only knows the current buffer.
    vim.lsp.codelens.refresh()
  end
end

--- `ctgls/coverageChanged` for `uri`.
function M.coverage_changed(uri)
  local bufnr = compat.buffer_of_uri(uri)
  if bufnr then
    M.refresh(bufnr)
  end
end

function M.enable()
  if enabled then
    return
  end
  enabled = true
  local group = vim.api.nvim_create_augroup('ctgls_codelens', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave' }, {
    group = group,
    callback = function(event)
      M.refresh(event.buf)
    end,
    desc = 'ctgls: refresh code lenses',
  })
  compat.on_lsp_attach(group, M.refresh, 'ctgls: code lenses of a newly attached buffer')
end

return M
