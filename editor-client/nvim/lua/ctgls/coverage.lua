--- Coverage of the generated tests as signs in the sign column: a line the tests run, a line
--- they run but where a branch is left (partly covered), a line they never run. The signs come
--- from the `ctgls/coverage` request and are asked again when the server sends
--- `ctgls/coverageChanged` (docs/lsp-extensions.md). Off until `:CtglsCoverage on` (or
--- `vim.g.ctgls_coverage = true` before the first Java buffer).
---
--- Signs are extmarks (`sign_text`, Neovim 0.6+), so they move with the text until the next
--- answer replaces them; they sit below diagnostic signs (priority 5 against 10 and more).
local compat = require('ctgls.compat')
local status = require('ctgls.status')

local M = {}

M.namespace = vim.api.nvim_create_namespace('ctgls_coverage')

--- Sign text and highlight group per kind of line. The groups link to the diagnostic colours
--- by default (`DiagnosticOk` exists from 0.10 on, `DiffAdd` before); `:hi
--- CtglsCoverageCovered guifg=...` changes them.
M.kinds = {
  covered = { text = '▎', hl = 'CtglsCoverageCovered', link = { 'DiagnosticOk', 'DiffAdd' } },
  partial = { text = '▎', hl = 'CtglsCoveragePartial', link = { 'DiagnosticWarn' } },
  uncovered = { text = '▎', hl = 'CtglsCoverageUncovered', link = { 'DiagnosticError' } },
}

local PRIORITY = 5

local enabled = nil

--- Whether coverage signs are shown; before the first `:CtglsCoverage`, `vim.g.ctgls_coverage`.
function M.enabled()
  if enabled == nil then
    return vim.g.ctgls_coverage == true or vim.g.ctgls_coverage == 1
  end
  return enabled
end

local function define_highlights()
  for _, kind in pairs(M.kinds) do
    for _, target in ipairs(kind.link) do
      if vim.fn.hlexists(target) == 1 then
        vim.cmd(('highlight default link %s %s'):format(kind.hl, target))
        break
      end
    end
  end
end

--- The kind of each sign placed, by buffer and extmark id (the extmark gives the line).
local placed = {}

--- The kind of each line (0-based) from one file of a `ctgls/coverage` answer: `uncovered` when
--- no test runs it, `partial` when one does but a branch decided on it is not covered,
--- `covered` otherwise. A branch on a line the answer does not list counts for that line.
--- @return table<integer, 'covered'|'partial'|'uncovered'>
function M.line_kinds(file)
  local ran = {}
  for _, line in ipairs(type(file.lines) == 'table' and file.lines or {}) do
    if type(line.line) == 'number' then
      -- The same line listed twice is covered when either entry says so.
      ran[line.line] = ran[line.line] or line.covered == true
    end
  end
  local missed, taken = {}, {}
  for _, branch in ipairs(type(file.branches) == 'table' and file.branches or {}) do
    if type(branch.line) == 'number' then
      if branch.covered == true then
        taken[branch.line] = true
      else
        missed[branch.line] = true
      end
    end
  end
  local kinds = {}
  for line, covered in pairs(ran) do
    kinds[line] = covered and 'covered' or 'uncovered'
  end
  for line in pairs(missed) do
    local covered = ran[line]
    if covered == nil then
      covered = taken[line] == true
    end
    kinds[line] = covered and 'partial' or 'uncovered'
  end
  for line in pairs(taken) do
    if kinds[line] == nil then
      kinds[line] = 'covered'
    end
  end
  return kinds
end

--- The coverage signs placed in `bufnr`, as `{ [line] = kind }` (0-based lines).
function M.signs(bufnr)
  local kinds = placed[bufnr] or {}
  local found = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, M.namespace, 0, -1, {})) do
    found[mark[2]] = kinds[mark[1]] or '?'
  end
  return found
end

function M.clear(bufnr)
  placed[bufnr] = nil
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  end
end

local function place(bufnr, kinds)
  M.clear(bufnr)
  local count = vim.api.nvim_buf_line_count(bufnr)
  local ids = {}
  for line, kind in pairs(kinds) do
    local sign = M.kinds[kind]
    if line >= 0 and line < count then
      local id = vim.api.nvim_buf_set_extmark(bufnr, M.namespace, line, 0, {
        sign_text = sign.text,
        sign_hl_group = sign.hl,
        priority = PRIORITY,
      })
      ids[id] = kind
    end
  end
  placed[bufnr] = ids
end

--- The version Neovim last sent for `bufnr`, if it keeps one.
local function buffer_version(bufnr)
  local versions = vim.lsp.util.buf_versions
  return type(versions) == 'table' and versions[bufnr] or nil
end

--- The entry of `uri` in a `ctgls/coverage` answer about that one file (the only entry, should
--- the server spell the URI differently).
local function entry_of(result, uri)
  local files = type(result) == 'table' and type(result.files) == 'table' and result.files or {}
  for _, file in ipairs(files) do
    if file.uri == uri then
      return file
    end
  end
  return #files == 1 and files[1] or nil
end

--- Clients whose failed `ctgls/coverage` the user was told about.
local failures_told = {}

--- Asks the server serving `bufnr` for its coverage and redraws the signs.
function M.refresh(bufnr)
  if not M.enabled() or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local client = status.client_for(bufnr)
  if not client then
    return
  end
  local uri = vim.uri_from_bufnr(bufnr)
  compat.call(client, 'request', 'ctgls/coverage', { textDocument = { uri = uri } }, function(err, result)
    if err then
      -- Once per client: the signs stay as they were, and the user knows why.
      if not failures_told[client.id] then
        failures_told[client.id] = true
        vim.notify('ctgls: coverage signs: ctgls/coverage failed: ' .. tostring(err.message or vim.inspect(err)), vim.log.levels.WARN)
      end
      return
    end
    if not M.enabled() or not vim.api.nvim_buf_is_loaded(bufnr) then
      return
    end
    local file = entry_of(result, uri)
    if not file then
      -- No results (yet, or withdrawn by an edit): nothing to show.
      return M.clear(bufnr)
    end
    local version = buffer_version(bufnr)
    if type(file.version) == 'number' and version and file.version < version then
      -- An answer for older text; the edit since then brings a `ctgls/coverageChanged`. The
      -- signs already there moved with the text.
      return
    end
    place(bufnr, M.line_kinds(file))
  end, bufnr)
end

--- `ctgls/coverageChanged` for `uri`.
function M.coverage_changed(uri)
  local bufnr = compat.buffer_of_uri(uri)
  if bufnr and M.enabled() then
    M.refresh(bufnr)
  end
end

local function ctgls_buffers()
  local buffers = {}
  for _, client in ipairs(compat.get_clients({ name = 'ctgls' })) do
    for bufnr in pairs(client.attached_buffers or {}) do
      table.insert(buffers, bufnr)
    end
  end
  return buffers
end

local listening = false

--- Listens for buffers that get a client while signs are on.
local function listen()
  if listening then
    return
  end
  listening = true
  local group = vim.api.nvim_create_augroup('ctgls_coverage', { clear = true })
  local refresh = function(bufnr)
    M.refresh(bufnr)
  end
  if not compat.on_lsp_attach(group, refresh, 'ctgls: coverage signs of a newly attached buffer') then
    -- 0.7 has no LspAttach: entering a buffer asks instead.
    vim.api.nvim_create_autocmd('BufEnter', {
      group = group,
      callback = function(event)
        M.refresh(event.buf)
      end,
      desc = 'ctgls: coverage signs of the entered buffer',
    })
  end
  vim.api.nvim_create_autocmd('ColorScheme', {
    group = group,
    callback = define_highlights,
    desc = 'ctgls: coverage sign colours',
  })
end

--- Called when a client starts: with `vim.g.ctgls_coverage` set, signs are on from the start.
function M.enable_if_wanted()
  if M.enabled() then
    M.set(true)
  end
end

--- Turns the signs on (asking every ctgls buffer for its coverage) or off (removing them).
function M.set(on)
  enabled = on and true or false
  if enabled then
    define_highlights()
    listen()
    for _, bufnr in ipairs(ctgls_buffers()) do
      M.refresh(bufnr)
    end
  else
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      M.clear(bufnr)
    end
  end
  return enabled
end

function M.toggle()
  return M.set(not M.enabled())
end

--- `:CtglsCoverage [on|off|toggle|refresh]`.
function M.command(arg)
  arg = vim.trim(arg or '')
  local now
  if arg == '' or arg == 'toggle' then
    now = M.toggle()
  elseif arg == 'on' then
    now = M.set(true)
  elseif arg == 'off' then
    now = M.set(false)
  elseif arg == 'refresh' then
    now = M.set(true)
  else
    vim.notify('ctgls: :CtglsCoverage takes on, off, toggle or refresh, not ' .. arg, vim.log.levels.ERROR)
    return
  end
  vim.notify('ctgls: coverage signs ' .. (now and 'on' or 'off'), vim.log.levels.INFO)
end

M.subcommands = { 'on', 'off', 'toggle', 'refresh' }

return M
