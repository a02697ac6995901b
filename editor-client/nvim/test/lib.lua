-- Test harness shared by the per-version test files: checks that print PASS/FAIL lines, waits
-- with deadlines, and the steps both versions run against a fixture project. Loaded with
-- `dofile`, so it runs on Neovim 0.7 as well as 0.11.
local T = { passed = 0, failed = 0 }

local function out(line)
  io.stdout:write(line, '\n')
  io.stdout:flush()
end
T.out = out

--- Inputs from test/run.sh.
T.env = {
  bin = os.getenv('CTGLS_BIN'),
  plugin = os.getenv('CTGLS_PLUGIN_DIR'),
  project = os.getenv('CTGLS_PROJECT'),
  setup_project = os.getenv('CTGLS_SETUP_PROJECT'),
  guard_project = os.getenv('CTGLS_GUARD_PROJECT'),
  e2e = os.getenv('CTGLS_E2E') == '1',
  capture = os.getenv('CTGLS_CAPTURE_OUT'),
  diagnostics_ms = tonumber(os.getenv('CTGLS_DIAGNOSTICS_TIMEOUT_MS') or '') or 90000,
}

T.settings = { ctgls = { budgetSeconds = 4, idleDelayMs = 200 } }
T.account_path = 'src/main/java/com/example/bank/Account.java'
T.test_path = 'src/test/java/com/example/bank/AccountGeneratedTest.java'
T.codes = { ['uncovered-branch'] = true, ['undeclared-exception'] = true, ['generation-unavailable'] = true }

local Failure = {}

--- Ends the current check with `message`.
function T.fail(message)
  error(setmetatable({ message = message }, Failure), 0)
end

function T.assert(value, message)
  if not value then
    T.fail(message)
  end
  return value
end

--- Runs `fn` as the check `name`. A check that needs an earlier one names it in `needs`; it
--- fails at once, saying so, when that one did not pass.
local passed = {}
function T.check(name, fn, needs)
  for _, need in ipairs(needs or {}) do
    if not passed[need] then
      T.failed = T.failed + 1
      out(('FAIL %s: not run, needs "%s"'):format(name, need))
      return false
    end
  end
  local ok, err = xpcall(fn, function(e)
    if getmetatable(e) == Failure then
      return e.message
    end
    return debug.traceback(tostring(e), 2)
  end)
  if ok then
    T.passed = T.passed + 1
    passed[name] = true
    out('PASS ' .. name)
  else
    T.failed = T.failed + 1
    local lines = vim.split(tostring(err), '\n', { plain = true })
    out('FAIL ' .. name .. ': ' .. lines[1])
    for i = 2, #lines do
      out('     ' .. lines[i])
    end
  end
  return ok
end

--- Waits until `predicate()` returns a truthy value and returns it; fails the check with
--- `what` after `timeout_ms`. `predicate` may call `T.fail` to stop waiting early.
function T.wait(what, timeout_ms, predicate)
  local value
  local ok = vim.wait(timeout_ms, function()
    value = predicate()
    return value and true or false
  end, 50)
  if not ok then
    T.fail(('timed out after %.1f s waiting for %s'):format(timeout_ms / 1000, what))
  end
  return value
end

--- An LSP error as one line: `Method not found (-32601)`.
function T.error_text(err)
  if type(err) ~= 'table' then
    return tostring(err)
  end
  return ('%s (%s)'):format(tostring(err.message), tostring(err.code))
end

function T.has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

function T.call(client, method, ...)
  if T.has('0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

function T.version()
  local v = vim.version()
  return ('%d.%d.%d'):format(v.major, v.minor, v.patch)
end

--- The ctgls client attached to `bufnr`, once initialized.
function T.client(bufnr)
  local clients = T.has('0.10') and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
    if client.name == 'ctgls' and client.initialized ~= false then
      return client
    end
  end
end

function T.read_file(path)
  local file = io.open(path, 'r')
  if not file then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

function T.bufnr_of(path)
  local bufnr = vim.fn.bufnr(path)
  return bufnr > 0 and bufnr or nil
end

--- Checks that the client serving `bufnr` got the settings: the server's view of its
--- configuration (`ctgls/debugConfig`, a debugging extension) has the expected keys.
function T.expect_server_config(client, bufnr, expected)
  local config
  T.wait('the server to apply the settings ' .. vim.inspect(expected), 10000, function()
    local answer = T.call(client, 'request_sync', 'ctgls/debugConfig', nil, 2000, bufnr)
    if not answer then
      return false
    end
    if answer.err then
      T.fail('ctgls/debugConfig failed: ' .. T.error_text(answer.err))
    end
    config = answer.result
    for key, value in pairs(expected) do
      if type(config) ~= 'table' or config[key] ~= value then
        return false
      end
    end
    return true
  end)
end

--- The buffer's option values Neovim sets for LSP clients that claim completion,
--- definitions or formatting; ctgls must leave them to jdtls.
function T.expect_no_foreign_features(client, bufnr)
  for _, option in ipairs({ 'omnifunc', 'tagfunc', 'formatexpr' }) do
    local value = vim.bo[bufnr][option]
    T.assert(value == '', ("'%s' is %q on the Java buffer; nothing may set it for ctgls"):format(option, value))
  end
  for _, key in ipairs(require('ctgls.config').foreign_capabilities) do
    T.assert(not client.server_capabilities[key], 'the ctgls client kept ' .. key)
  end
end

--- Runs `:checkhealth ctgls` and returns the report's text.
function T.checkhealth_text()
  vim.cmd('checkhealth ctgls')
  local bufnr = vim.api.nvim_get_current_buf()
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  vim.cmd('bwipeout ' .. bufnr)
  return text
end

--- The settings of issue 17 (severities, trigger, roots), as a test sends them: values that
--- change nothing for the bank fixture.
T.new_settings = {
  trigger = 'save',
  diagnostics = { ['uncovered-branch'] = 'hint', ['nondeterministic-input'] = 'off' },
  sourceRoots = { 'src/main/java' },
  testRoots = { 'src/test/java' },
}

--- The server's view of its configuration (`ctgls/debugConfig`).
function T.server_config(client, bufnr)
  local answer = T.call(client, 'request_sync', 'ctgls/debugConfig', nil, 5000, bufnr)
  T.assert(answer, 'ctgls/debugConfig timed out')
  T.assert(not answer.err, 'ctgls/debugConfig failed: ' .. T.error_text(answer.err))
  return answer.result
end

--- Checks that the keys of `expected` reached the server with these values.
function T.expect_new_settings(client, bufnr, expected)
  local config = T.server_config(client, bufnr)
  T.assert(type(config) == 'table', 'ctgls/debugConfig answered ' .. vim.inspect(config))
  for key, value in pairs(expected) do
    T.assert(vim.deep_equal(config[key], value),
      ('the server has %s = %s, the client sent %s'):format(key, vim.inspect(config[key]), vim.inspect(value)))
  end
end

-- Help ------------------------------------------------------------------------------------

--- `:helptags` on a copy of the plugin's doc/ must give the committed doc/tags, and `:help
--- ctgls` must open doc/ctgls.txt on its tag. Every `|link|` to one of the plugin's tags must
--- name a tag that exists; with `all_links`, every other link too (Neovim's own help).
function T.expect_help(all_links)
  local doc = T.env.plugin .. '/doc'
  local copy = vim.fn.tempname()
  vim.fn.mkdir(copy, 'p')
  for _, name in ipairs({ 'ctgls.txt', 'capture.txt' }) do
    vim.fn.writefile(vim.fn.readfile(doc .. '/' .. name, 'b'), copy .. '/' .. name, 'b')
  end
  vim.cmd('helptags ' .. vim.fn.fnameescape(copy))
  local generated = T.read_file(copy .. '/tags')
  local committed = T.read_file(doc .. '/tags')
  T.assert(committed, doc .. '/tags is missing: run :helptags ' .. doc)
  T.assert(generated == committed, doc .. '/tags is stale: run :helptags ' .. doc .. '\n' .. tostring(generated))
  local tags = {}
  for line in committed:gmatch('[^\n]+') do
    tags[line:match('^[^\t]+')] = true
  end
  local text = T.read_file(doc .. '/ctgls.txt')
  for _, line in ipairs(vim.split(text, '\n', { plain = true })) do
    -- Links: |tag| outside of code (a `|` inside backticks or an example is not one).
    for link in line:gsub('`[^`]*`', ''):gmatch('|([^|%s]+)|') do
      if link:lower():find('ctgls', 1, true) then
        T.assert(tags[link], 'doc/ctgls.txt links to |' .. link .. '|, which is no tag of the plugin')
      elseif all_links then
        T.assert(pcall(vim.cmd, 'help ' .. link), 'doc/ctgls.txt links to |' .. link .. '|, which :help does not know')
        vim.cmd('helpclose')
      end
    end
  end
  vim.cmd('help ctgls')
  local name = vim.api.nvim_buf_get_name(0)
  T.assert(vim.bo.buftype == 'help', ':help ctgls opened no help buffer')
  T.assert(name:sub(-#'/doc/ctgls.txt') == '/doc/ctgls.txt', ':help ctgls opened ' .. name)
  T.assert(vim.api.nvim_get_current_line():find('*ctgls*', 1, true), ':help ctgls is not on *ctgls*: '
    .. vim.api.nvim_get_current_line())
  vim.cmd('help :CtglsCoverage')
  T.assert(vim.api.nvim_get_current_line():find('*:CtglsCoverage*', 1, true), ':help :CtglsCoverage missed')
  vim.cmd('helpclose')
  return text, tags
end

--- The help documents every user command, diagnostic code, trigger and new setting the plugin
--- knows.
function T.expect_help_covers_the_plugin(text, tags)
  local config = require('ctgls.config')
  for _, command in ipairs({ 'CtglsGenerate', 'CtglsCancel', 'CtglsStatus', 'CtglsCoverage' }) do
    T.assert(vim.fn.exists(':' .. command) == 2, ':' .. command .. ' is not defined')
    T.assert(tags[':' .. command], ':' .. command .. ' has no help tag')
  end
  local wanted = vim.list_extend(vim.deepcopy(config.diagnostic_codes), vim.deepcopy(config.triggers))
  vim.list_extend(wanted, vim.deepcopy(config.severities))
  vim.list_extend(wanted, { 'diagnostics', 'trigger', 'sourceRoots', 'testRoots' })
  for _, word in ipairs(wanted) do
    T.assert(text:find('`' .. word .. '`', 1, true) or text:find("`'" .. word .. "'`", 1, true),
      'doc/ctgls.txt does not mention `' .. word .. '`')
  end
end

-- Coverage signs ----------------------------------------------------------------------------

--- A `ctgls/coverage` file entry and the line kinds it must give: a covered line, a line
--- whose `if` is covered one way only (partial), an unrun line, a line listed twice (covered
--- once), and a branch on a line the answer does not list.
function T.expect_line_kinds()
  local kinds = require('ctgls.coverage').line_kinds({
    uri = 'file:///p/A.java',
    lines = {
      { line = 3, covered = true }, { line = 4, covered = true }, { line = 5, covered = false },
      { line = 6, covered = false }, { line = 6, covered = true },
    },
    branches = {
      { line = 4, label = 'true', covered = true }, { line = 4, label = 'false', covered = false },
      { line = 3, label = 'true', covered = true },
      { line = 9, label = 'catch', covered = false }, { line = 10, label = 'entry', covered = true },
    },
  })
  local expected = { [3] = 'covered', [4] = 'partial', [5] = 'uncovered', [6] = 'covered', [9] = 'uncovered', [10] = 'covered' }
  T.assert(vim.deep_equal(kinds, expected), vim.inspect(kinds))
  T.assert(vim.tbl_isempty(require('ctgls.coverage').line_kinds({ uri = 'x', lines = vim.NIL, branches = vim.NIL })), 'nulls')
end

--- Turns coverage signs on with `:CtglsCoverage on`, waits for them, and checks that they are
--- what the server's own `ctgls/coverage` answer says for every line; then `:CtglsCoverage`
--- (toggle) removes them all and `:CtglsCoverage toggle` brings them back.
function T.expect_coverage_signs(client, bufnr)
  local coverage = require('ctgls.coverage')
  vim.api.nvim_set_current_buf(bufnr)
  vim.cmd('silent CtglsCoverage on')
  local signs = T.wait('coverage signs in Account.java', 20000, function()
    local found = coverage.signs(bufnr)
    return next(found) ~= nil and found
  end)
  local answer = T.call(client, 'request_sync', 'ctgls/coverage', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, 10000, bufnr)
  T.assert(answer and not answer.err, 'ctgls/coverage failed: ' .. (answer and T.error_text(answer.err) or 'timeout'))
  local file = answer.result and answer.result.files and answer.result.files[1]
  T.assert(file, 'ctgls/coverage has no file for Account.java: ' .. vim.inspect(answer.result))
  local expected = coverage.line_kinds(file)
  -- A run may have ended between the signs and this answer: wait for the signs to follow.
  T.wait('the signs to match ctgls/coverage ' .. vim.inspect(expected), 10000, function()
    signs = coverage.signs(bufnr)
    return vim.deep_equal(signs, expected)
  end)
  local division = T.division_line(bufnr)
  T.assert(signs[division] == 'covered', ('the division (line %d) is %s, not covered'):format(division + 1, tostring(signs[division])))
  T.assert(signs[0] == nil, 'a sign on the package line')
  vim.cmd('silent CtglsCoverage')
  T.assert(next(coverage.signs(bufnr)) == nil, ':CtglsCoverage (toggle) left signs: ' .. vim.inspect(coverage.signs(bufnr)))
  vim.cmd('silent CtglsCoverage toggle')
  T.wait('the coverage signs back after :CtglsCoverage toggle', 10000, function()
    return vim.deep_equal(coverage.signs(bufnr), expected)
  end)
  return signs
end

-- Diagnostics ----------------------------------------------------------------------------

function T.ctgls_diagnostics(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'ctgls' then
      table.insert(found, d)
    end
  end
  return found
end

local function lsp_fields(d)
  return d.user_data and d.user_data.lsp or {}
end

local function describe(d)
  return ('%d:%d %s %s'):format(d.lnum + 1, d.col + 1, tostring(d.code), d.message)
end
T.describe = describe

--- Fails at once when the server says it cannot generate, with its reason.
local function stop_on_unavailable(bufnr)
  for _, d in ipairs(T.ctgls_diagnostics(bufnr)) do
    if d.code == 'generation-unavailable' then
      T.fail('the server reports generation-unavailable: ' .. d.message)
    end
  end
end

--- Waits for ctgls diagnostics and checks that they follow the contract.
function T.expect_contract_diagnostics(bufnr, timeout_ms)
  T.wait('diagnostics with source "ctgls" on Account.java', timeout_ms, function()
    return #T.ctgls_diagnostics(bufnr) > 0
  end)
  stop_on_unavailable(bufnr)
  for _, d in ipairs(T.ctgls_diagnostics(bufnr)) do
    T.assert(T.codes[d.code], 'diagnostic with a code outside the contract: ' .. describe(d))
    local data = lsp_fields(d).data
    T.assert(
      type(data) == 'table' and data.class == 'com.example.bank.Account',
      'diagnostic without data.class = com.example.bank.Account: ' .. describe(d) .. ' data=' .. vim.inspect(data)
    )
  end
end

--- The line (0-based) of `return balance / ratePerUnit;`, where interest(0) throws.
function T.division_line(bufnr)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find('balance / ratePerUnit', 1, true) then
      return i - 1
    end
  end
  T.fail('Account.java has no line with `balance / ratePerUnit`')
end

--- Waits for the `undeclared-exception` diagnostic of `interest(0)` and returns it.
function T.expect_arithmetic_exception(bufnr, timeout_ms)
  local line = T.division_line(bufnr)
  return T.wait('an undeclared-exception diagnostic for ArithmeticException on line ' .. (line + 1), timeout_ms, function()
    stop_on_unavailable(bufnr)
    for _, d in ipairs(T.ctgls_diagnostics(bufnr)) do
      local data = lsp_fields(d).data
      if d.code == 'undeclared-exception' and type(data) == 'table'
        and data.exception == 'java.lang.ArithmeticException' then
        T.assert(d.lnum == line, ('the diagnostic is on line %d, not %d: %s'):format(d.lnum + 1, line + 1, describe(d)))
        T.assert(d.severity == vim.diagnostic.severity.WARN, 'undeclared-exception is not a warning: ' .. describe(d))
        return d
      end
    end
  end)
end

--- The LSP diagnostics on `lnum` as the server sent them, for a code action request.
local function lsp_diagnostics_on(bufnr, lnum)
  if not T.has('0.10') then
    return vim.lsp.diagnostic.get_line_diagnostics(bufnr, lnum)
  end
  local diagnostics = {}
  for _, d in ipairs(T.ctgls_diagnostics(bufnr)) do
    if d.lnum == lnum and lsp_fields(d).range then
      table.insert(diagnostics, lsp_fields(d))
    end
  end
  return diagnostics
end

--- The code lenses Neovim holds for `bufnr` from the ctgls client.
function T.ctgls_lenses(client, bufnr)
  local found = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    if lens.command and (lens.client_id == nil or lens.client_id == client.id) then
      table.insert(found, lens)
    end
  end
  table.sort(found, function(a, b)
    return a.range.start.line < b.range.start.line
  end)
  return found
end

-- Code actions ----------------------------------------------------------------------------

T.action_title = 'Insert test reproducing ArithmeticException'

--- Asks for code actions at the diagnostic, checks that the contract's action is offered
--- without an edit, and that `codeAction/resolve` computes one. Does not apply it.
function T.expect_resolvable_action(client, bufnr, diagnostic)
  local provider = client.server_capabilities.codeActionProvider
  T.assert(
    type(provider) == 'table' and provider.resolveProvider,
    'the server does not announce codeActionProvider.resolveProvider: ' .. vim.inspect(provider)
  )
  local line = vim.api.nvim_buf_get_lines(bufnr, diagnostic.lnum, diagnostic.lnum + 1, false)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = diagnostic.lnum, character = 0 }, ['end'] = { line = diagnostic.lnum, character = #line } },
    context = { diagnostics = lsp_diagnostics_on(bufnr, diagnostic.lnum) },
  }
  local answer = T.call(client, 'request_sync', 'textDocument/codeAction', params, 20000, bufnr)
  T.assert(answer, 'textDocument/codeAction timed out after 20 s')
  T.assert(not answer.err, 'textDocument/codeAction failed: ' .. T.error_text(answer.err))
  local titles, action = {}, nil
  for _, candidate in ipairs(answer.result or {}) do
    table.insert(titles, candidate.title)
    if candidate.title == T.action_title then
      action = candidate
    end
  end
  T.assert(action, ('no action titled %q; offered: %s'):format(T.action_title, vim.inspect(titles)))
  T.assert(action.kind == 'quickfix', 'the action is not a quickfix: ' .. tostring(action.kind))
  local edit = action.edit
  if edit == nil then
    local resolved = T.call(client, 'request_sync', 'codeAction/resolve', action, 60000, bufnr)
    T.assert(resolved, 'codeAction/resolve timed out after 60 s')
    T.assert(not resolved.err, 'codeAction/resolve failed: ' .. T.error_text(resolved.err))
    edit = resolved.result and resolved.result.edit
    T.assert(edit, 'codeAction/resolve returned no edit: ' .. vim.inspect(resolved.result))
  else
    T.fail('the action came with its edit; the contract says actions are resolved (codeAction/resolve)')
  end
  local target = vim.uri_from_fname(T.env.project .. '/' .. T.test_path)
  local touches = false
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.uri == target or (change.textDocument and change.textDocument.uri == target) then
      touches = true
    end
  end
  for uri in pairs(edit.changes or {}) do
    touches = touches or uri == target
  end
  T.assert(touches, 'the resolved edit does not touch ' .. T.test_path .. ': ' .. vim.inspect(edit))
end

--- Applies the action the way a user does: `vim.lsp.buf.code_action()` on the diagnostic's
--- line, with `vim.ui.select` answering with the action's title. Neovim resolves the action.
function T.apply_action_like_a_user(bufnr, diagnostic)
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { diagnostic.lnum + 1, diagnostic.col })
  local offered
  local original = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    local format = opts and opts.format_item or tostring
    for index, item in ipairs(items) do
      local title = format(item)
      table.insert(offered, title)
      if title == T.action_title then
        vim.ui.select = original
        return on_choice(item, index)
      end
    end
    vim.ui.select = original
    on_choice(nil, nil)
  end
  -- With no actions Neovim only says so through vim.notify: stop waiting then.
  local nothing_offered = false
  local notify = vim.notify
  vim.notify = function(message, ...)
    if type(message) == 'string' and message:find('No code actions available', 1, true) then
      nothing_offered = true
    end
    return notify(message, ...)
  end
  local ok, err = pcall(vim.lsp.buf.code_action)
  local path = T.env.project .. '/' .. T.test_path
  local waited, wait_err = pcall(T.wait, 'the code action to insert a @Test into ' .. T.test_path, 60000, function()
    T.assert(ok, 'vim.lsp.buf.code_action() failed: ' .. tostring(err))
    T.assert(not nothing_offered, 'vim.lsp.buf.code_action() says "No code actions available"')
    if offered and not vim.tbl_contains(offered, T.action_title) then
      T.fail(('vim.lsp.buf.code_action offered no %q: %s'):format(T.action_title, vim.inspect(offered)))
    end
    local test_bufnr = T.bufnr_of(path)
    if not test_bufnr then
      return false
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(test_bufnr, 0, -1, false), '\n')
    return text:find('@Test', 1, true) ~= nil
  end)
  vim.ui.select = original
  vim.notify = notify
  if not waited then
    error(wait_err, 0)
  end
end

--- Saves the test file the action edited and checks what is on disk.
function T.expect_test_file_on_disk()
  local path = T.env.project .. '/' .. T.test_path
  vim.cmd('silent wall')
  local text = T.read_file(path)
  T.assert(text, path .. ' does not exist after :wall')
  T.assert(text:find('@Test', 1, true), path .. ' has no @Test method:\n' .. text)
  T.assert(text:find('ArithmeticException', 1, true), path .. ' has no test about ArithmeticException:\n' .. text)
  T.assert(text:find('package com.example.bank;', 1, true), path .. ' has no package declaration:\n' .. text)
end

-- Commands --------------------------------------------------------------------------------

--- Runs an executeCommand through the plugin's Lua API and waits for the answer.
function T.expect_command_accepted(name, run)
  local done, err
  run({ on_result = function(e)
    done, err = true, e
  end })
  T.wait('the answer to ' .. name, 20000, function()
    return done
  end)
  T.assert(not err, name .. ' failed: ' .. T.error_text(err))
end

--- `:CtglsStatus` prints the summary; returns its lines.
function T.expect_status_printed()
  vim.cmd('messages clear')
  vim.cmd('CtglsStatus')
  -- Other messages (the server's window/showMessage) may come first: wait for the status
  -- head line (`ctgls 0.1.0: idle ...`) or the command's failure.
  local text = T.wait(':CtglsStatus to print a status', 20000, function()
    local messages = '\n' .. vim.fn.execute('messages')
    local printed = messages:find('\nctgls[%w.+ -]*: %a') or messages:find('status request failed', 1, true)
    return printed and messages
  end)
  T.assert(not text:find('status request failed', 1, true), vim.trim(text))
  T.assert(text:find('com.example.bank.Account', 1, true), 'the status does not list Account:\n' .. text)
  T.assert(text:find('branches %d+/%d+'), 'the status shows no branch coverage:\n' .. text)
  local head = text:find('\nctgls[%w.+ -]*: %a')
  for _, line in ipairs(vim.split(text:sub(head + 1), '\n', { plain = true })) do
    out('     > ' .. line)
  end
  return text
end

-- Capture ---------------------------------------------------------------------------------

local severity_names = { 'E', 'W', 'I', 'H' }

local function hover_text(client, bufnr, line, character)
  if not client.server_capabilities.hoverProvider then
    return { '(the server announces no hoverProvider)' }
  end
  local answer = T.call(client, 'request_sync', 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line, character = character },
  }, 10000, bufnr)
  if not answer or answer.err then
    return { '(hover failed: ' .. (answer and T.error_text(answer.err) or 'timeout') .. ')' }
  end
  if not answer.result then
    return { '(no hover here)' }
  end
  local lines = vim.lsp.util.convert_input_to_markdown_lines(answer.result.contents)
  return #lines > 0 and lines or { '(empty hover)' }
end

--- Writes a plain-text picture of Account.java as Neovim shows it with default diagnostic
--- settings (a sign column with the severity letter, virtual text four spaces after the
--- line) and code lenses (at the end of their line), then the hovers (K) on `interest` and
--- on the division, and the diagnostics list.
--- Waits for the server to go idle first, so the picture is of settled results.
function T.write_capture(client, bufnr, path)
  -- Settled: idle, nothing queued, for a second and a half in a row.
  local idle_since
  vim.wait(60000, function()
    local status = require('ctgls.status').by_client[client.id]
    local idle = status and status.state == 'idle' and type(status.running) ~= 'table'
      and (type(status.queued) ~= 'table' or #status.queued == 0)
    idle_since = idle and (idle_since or (vim.uv or vim.loop).now()) or nil
    return idle_since ~= nil and (vim.uv or vim.loop).now() - idle_since >= 1500
  end, 100)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local by_line = {}
  for _, d in ipairs(T.ctgls_diagnostics(bufnr)) do
    by_line[d.lnum] = by_line[d.lnum] or {}
    table.insert(by_line[d.lnum], d)
  end
  local lens_titles = {}
  for _, lens in ipairs(T.ctgls_lenses(client, bufnr)) do
    local line = lens.range.start.line
    lens_titles[line] = lens_titles[line] and (lens_titles[line] .. ' | ' .. lens.command.title) or lens.command.title
  end
  local picture = {
    ('Neovim %s, ctgls %s: %s (code lenses on: vim.g.ctgls_codelens = true)'):format(
      T.version(), client.server_info and client.server_info.version or '?', T.account_path),
    '',
  }
  for i, line in ipairs(lines) do
    local diagnostics = by_line[i - 1]
    local sign = diagnostics and (severity_names[diagnostics[1].severity] or '?') or ' '
    local text = ('%s %3d  %s'):format(sign, i, line)
    if lens_titles[i - 1] then
      text = text .. '    ' .. lens_titles[i - 1]
    end
    if diagnostics then
      local notes = {}
      for _, d in ipairs(diagnostics) do
        table.insert(notes, '■ ' .. d.message)
      end
      text = text .. '    ' .. table.concat(notes, ' ')
    end
    table.insert(picture, (text:gsub('%s+$', '')))
  end
  local function add_hover(line, column, what)
    table.insert(picture, '')
    table.insert(picture, ('K on %s (line %d, column %d):'):format(what, line + 1, column + 1))
    for _, hover_line in ipairs(hover_text(client, bufnr, line, column)) do
      table.insert(picture, (('  %s'):format(hover_line):gsub('%s+$', '')))
    end
  end
  for i, line in ipairs(lines) do
    local column = line:find('interest%(')
    if column then
      add_hover(i - 1, column - 1, '`interest`')
      break
    end
  end
  local division = T.division_line(bufnr)
  add_hover(division, lines[division + 1]:find('/', 1, true) - 1, 'the division')
  table.insert(picture, '')
  table.insert(picture, ':lua vim.diagnostic.setloclist()')
  for _, d in ipairs(T.ctgls_diagnostics(bufnr)) do
    table.insert(picture, ('  Account.java|%d col %d %s| %s [%s]'):format(
      d.lnum + 1, d.col + 1, ({ 'error', 'warning', 'info', 'note' })[d.severity] or '?', d.message, tostring(d.code)))
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile(picture, path)
end

--- Appends the test file the code action wrote to the capture.
function T.append_test_file_to_capture(path)
  local text = T.read_file(T.env.project .. '/' .. T.test_path)
  if not text then
    return
  end
  local picture = vim.fn.readfile(path)
  vim.list_extend(picture, { '', ('%s after "%s" and :w'):format(T.test_path, T.action_title), '' })
  vim.list_extend(picture, vim.split(text, '\n', { plain = true, trimempty = true }))
  vim.fn.writefile(picture, path)
end

-- Server output ---------------------------------------------------------------------------

-- Neovim logs the server's stderr to its LSP log in chunks, one log line per chunk; the log
-- may hold earlier sessions (0.7 keeps it in ~/.cache/nvim), so only what this run appended
-- is read.
local log_path = vim.lsp.get_log_path()
local log_start = ((vim.uv or vim.loop).fs_stat(log_path) or { size = 0 }).size

--- The server's stderr during this run, reassembled from the LSP log.
function T.server_stderr()
  local file = io.open(log_path, 'r')
  if not file then
    return ''
  end
  file:seek('set', log_start)
  local chunks = {}
  for line in file:lines() do
    local quoted = line:match('"stderr"%s+(".*")%s*$')
    local literal = quoted and (loadstring or load)('return ' .. quoted)
    local ok, chunk = pcall(literal or error)
    if ok and type(chunk) == 'string' then
      table.insert(chunks, chunk)
    end
  end
  file:close()
  return table.concat(chunks)
end

--- After a failure: the server's panics, if any, and the last lines of its stderr that are
--- not backtrace frames.
function T.print_server_stderr()
  local lines = vim.split(T.server_stderr(), '\n', { plain = true })
  local shown = {}
  for i, line in ipairs(lines) do
    if line:find('panicked at', 1, true) then
      table.insert(shown, line)
      table.insert(shown, lines[i + 1])
      -- The first frames in the server's own crates say where.
      local frames = 0
      for j = i + 2, math.min(#lines, i + 200) do
        if frames == 3 or lines[j]:find('panicked at', 1, true) then
          break
        end
        if lines[j]:match('^%s+%d+: ctg') then
          frames = frames + 1
          table.insert(shown, lines[j])
          table.insert(shown, lines[j + 1])
        end
      end
    end
  end
  local tail = {}
  for i = #lines, 1, -1 do
    local line = lines[i]
    if #tail == 12 then
      break
    end
    if line ~= '' and not line:match('^%s+%d+: ') and not line:match('^%s+at ') then
      table.insert(tail, 1, line)
    end
  end
  vim.list_extend(shown, tail)
  if #shown == 0 then
    return
  end
  out('-- the server\'s stderr (from ' .. log_path .. '):')
  for _, line in ipairs(shown) do
    out('   | ' .. line:sub(1, 400))
  end
end

-- End -------------------------------------------------------------------------------------

--- Runs the test file's `main`, counts an error outside the checks as a failure, and
--- finishes: the tally line is printed whatever happens.
function T.run(main)
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    T.failed = T.failed + 1
    out('FAIL the test file itself: ' .. tostring(err))
  end
  T.finish()
end

--- Stops the clients, prints the tally and exits with 1 on any failure.
function T.finish()
  local clients = T.has('0.10') and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, client in pairs(clients) do
    T.call(client, 'stop')
  end
  vim.wait(3000, function()
    return #(T.has('0.10') and vim.lsp.get_clients() or vim.lsp.get_active_clients()) == 0
  end, 50)
  if T.failed > 0 then
    T.print_server_stderr()
  end
  out(('%d passed, %d failed'):format(T.passed, T.failed))
  local code = T.failed == 0 and 0 or 1
  if T.has('0.8') then
    os.exit(code)
  end
  vim.cmd((code == 0 and 'qall!' or 'cquit ' .. code))
end

return T
