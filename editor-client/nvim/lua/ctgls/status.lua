--- The server's state as the `ctgls/status` notification and the `ctgls.status` command report
--- it (docs/lsp-extensions.md): the last status per client, its text summary and the
--- statusline component.
local compat = require('ctgls.compat')

local M = {}

--- Last `ctgls/status` params per client id.
M.by_client = {}

local function fire(pattern, data)
  -- `data` in autocommand events exists from 0.8 on.
  local opts = { pattern = pattern, modeline = false }
  if compat.has('0.8') then
    opts.data = data
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', opts)
end

--- Keeps `status` as the client's current state and tells statuslines and `User CtglsStatus`
--- autocommands (`data` is the status).
function M.update(client_id, status)
  if type(status) ~= 'table' then
    return
  end
  M.by_client[client_id] = status
  fire('CtglsStatus', status)
  pcall(vim.cmd, 'redrawstatus')
end

--- `ctgls/coverageChanged`: the coverage of `params.uri` changed. The code lenses and the
--- coverage signs are asked again; other clients that render coverage listen to `User
--- CtglsCoverageChanged` (`data` is `{ uri }`) and ask `ctgls/coverage` again.
function M.coverage_changed(_, params)
  fire('CtglsCoverageChanged', params)
  local uri = type(params) == 'table' and params.uri or nil
  require('ctgls.codelens').coverage_changed(uri)
  require('ctgls.coverage').coverage_changed(uri)
end

function M.forget(client_id)
  M.by_client[client_id] = nil
  pcall(vim.cmd, 'redrawstatus')
end

--- JSON null arrives as `vim.NIL`.
local function present(value)
  return value ~= nil and value ~= vim.NIL and value ~= ''
end

local function text(value, fallback)
  return present(value) and tostring(value) or fallback
end

local function simple_name(class)
  return type(class) == 'string' and (class:match('([^.]+)$') or class) or '?'
end

local function fraction(pair)
  if type(pair) ~= 'table' or pair.total == nil then
    return '-'
  end
  return ('%s/%s'):format(pair.covered or 0, pair.total)
end

--- The status as lines of text for `:CtglsStatus`: state and message, the running class and
--- its phase, the queue, and per class its branches and lines covered and its tests.
function M.format(status)
  local lines = {}
  local name = present(status.version) and ('ctgls ' .. tostring(status.version)) or 'ctgls'
  local head = ('%s: %s'):format(name, text(status.state, 'unknown'))
  if present(status.message) then
    head = head .. ' - ' .. status.message
  end
  table.insert(lines, head)
  local running = status.running
  if type(running) == 'table' then
    table.insert(
      lines,
      ('  running: %s (%s)'):format(text(running.class, text(running.uri, '?')), text(running.phase, '?'))
    )
  end
  if type(status.queued) == 'table' and #status.queued > 0 then
    table.insert(lines, '  queued: ' .. table.concat(status.queued, ', '))
  end
  local classes = type(status.classes) == 'table' and status.classes or {}
  if #classes == 0 then
    table.insert(lines, '  no results yet')
  end
  local width = 0
  for _, class in ipairs(classes) do
    width = math.max(width, #text(class.class, '?'))
  end
  for _, class in ipairs(classes) do
    local name = text(class.class, '?')
    local padded = name .. string.rep(' ', width - #name)
    if present(class.problem) then
      table.insert(lines, ('  %s  problem: %s'):format(padded, text(class.problem, '')))
    else
      table.insert(
        lines,
        ('  %s  branches %s  lines %s  tests %s  runs %s'):format(
          padded,
          fraction(class.branches),
          fraction(class.lines),
          text(class.tests, '0'),
          text(class.runs, '0')
        )
      )
    end
  end
  return lines
end

--- The ctgls client attached to `bufnr`, if any.
function M.client_for(bufnr)
  return compat.get_clients({ name = 'ctgls', bufnr = bufnr })[1]
end

--- A short text for the statusline: `ctgls: Account searching`, `ctgls: 16/18 branches`,
--- `ctgls: idle`, `ctgls: unavailable`; empty when no ctgls client serves the buffer.
--- Use as `%{v:lua.require'ctgls'.statusline()}`.
function M.statusline(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.client_for(bufnr)
  if not client then
    return ''
  end
  local status = M.by_client[client.id]
  if not status then
    return 'ctgls'
  end
  if status.state == 'running' and type(status.running) == 'table' then
    return ('ctgls: %s %s'):format(simple_name(status.running.class), text(status.running.phase, ''))
  end
  if status.state == 'unavailable' then
    return 'ctgls: unavailable'
  end
  local uri = vim.uri_from_bufnr(bufnr)
  for _, class in ipairs(type(status.classes) == 'table' and status.classes or {}) do
    if class.uri == uri then
      if present(class.problem) then
        return ('ctgls: %s not generated'):format(simple_name(class.class))
      end
      return ('ctgls: %s branches'):format(fraction(class.branches))
    end
  end
  return 'ctgls: ' .. text(status.state, 'idle')
end

return M
