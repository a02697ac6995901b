--- Differences between Neovim versions, in one place. The plugin supports 0.8 and later;
--- everything here also loads on 0.7 so that its end-to-end test can start the client by hand.
local M = {}

--- @param version string like '0.11'
function M.has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

--- Clients named `filter.name`, optionally only those attached to `filter.bufnr`.
--- @param filter { name: string, bufnr: integer? }
function M.get_clients(filter)
  if vim.lsp.get_clients then -- 0.10
    return vim.lsp.get_clients(filter)
  end
  if M.has('0.8') then
    return vim.lsp.get_active_clients(filter)
  end
  -- 0.7 takes no filter.
  local all = filter.bufnr and vim.lsp.buf_get_clients(filter.bufnr) or vim.lsp.get_active_clients()
  local clients = {}
  for _, client in pairs(all) do
    if client.name == filter.name then
      table.insert(clients, client)
    end
  end
  return clients
end

--- Calls a client method. 0.11 made them methods (`client:request`) and deprecated the
--- closure form, which is all that older versions have.
--- @param client table
--- @param method string 'request' | 'request_sync' | 'notify' | 'stop'
function M.call(client, method, ...)
  if M.has('0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

--- Whether `t` is a list (`vim.islist` from 0.10, which deprecated `vim.tbl_islist`).
function M.islist(t)
  return (vim.islist or vim.tbl_islist)(t)
end

--- Calls `callback(bufnr)` after each `LspAttach` (0.8+), once the client counts as attached.
--- Returns false on 0.7, which has no such event.
function M.on_lsp_attach(group, callback, desc)
  if vim.fn.exists('##LspAttach') ~= 1 then
    return false
  end
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(event)
      vim.schedule(function()
        callback(event.buf)
      end)
    end,
    desc = desc,
  })
  return true
end

--- The loaded buffer of a `file://` URI, or nil.
function M.buffer_of_uri(uri)
  if type(uri) ~= 'string' then
    return nil
  end
  local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
  return bufnr > 0 and bufnr or nil
end

--- The settings a client was started with (0.11 keeps them on the client itself).
function M.client_settings(client)
  return client.settings or (client.config and client.config.settings) or {}
end

--- The reporting functions of `:checkhealth`: `vim.health.start` and friends from 0.10,
--- `vim.health.report_*` on 0.8 and 0.9, the `health` module on 0.7.
function M.health()
  local health = vim.health
  if not (health and (health.start or health.report_start)) then
    local ok, module = pcall(require, 'health')
    health = ok and module or {}
  end
  local function pick(new, old)
    return health[new] or health[old] or function(message)
      print(new .. ': ' .. message)
    end
  end
  return {
    start = pick('start', 'report_start'),
    ok = pick('ok', 'report_ok'),
    info = pick('info', 'report_info'),
    warn = pick('warn', 'report_warn'),
    error = pick('error', 'report_error'),
  }
end

--- Runs `argv` and returns its output (stdout and stderr) and whether it exited with 0.
--- `vim.fn.system` takes a list from 0.5 on and waits at most until the process ends; the
--- commands run here (`--version`, `-version`) end at once.
function M.run(argv)
  local ok, output = pcall(vim.fn.system, argv)
  if not ok then
    return tostring(output), false
  end
  return output, vim.v.shell_error == 0
end

return M
