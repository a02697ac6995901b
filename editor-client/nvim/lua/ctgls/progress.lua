--- Echoes ctgls's `$/progress` reports (`ctgls: Account: searching · 12/18 branches`).
--- Neovim keeps progress itself (`vim.lsp.status()`, `client.progress`); the `LspProgress`
--- event this listens to exists from 0.10 on, so older versions get nothing here and lose
--- nothing. `vim.g.ctgls_progress = false` turns the echo off.
local M = {}

local enabled = false
--- Titles of the progress tokens in flight: reports repeat only the message.
local titles = {}

local function echo(text)
  -- Out of history: a run reports often, `:messages` should not fill up with it.
  vim.api.nvim_echo({ { text } }, false, {})
end

local function on_progress(event)
  if vim.g.ctgls_progress == false or vim.g.ctgls_progress == 0 then
    return
  end
  local data = event.data or {}
  local client = data.client_id and vim.lsp.get_client_by_id(data.client_id)
  local params = data.params
  if not client or client.name ~= 'ctgls' or type(params) ~= 'table' then
    return
  end
  local value = params.value
  if type(value) ~= 'table' then
    return
  end
  local key = tostring(data.client_id) .. ':' .. tostring(params.token)
  if value.kind == 'begin' then
    titles[key] = value.title
  end
  local title = titles[key] or value.title or 'ctgls'
  local message = value.message
  if value.kind == 'end' then
    titles[key] = nil
    message = message or 'done'
  end
  echo(message and (title .. ': ' .. message) or title)
end

function M.enable()
  if enabled or vim.fn.exists('##LspProgress') ~= 1 then
    return
  end
  enabled = true
  vim.api.nvim_create_autocmd('LspProgress', {
    group = vim.api.nvim_create_augroup('ctgls_progress', { clear = true }),
    callback = on_progress,
    desc = 'ctgls: echo progress',
  })
end

return M
