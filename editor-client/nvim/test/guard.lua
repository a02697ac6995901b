-- The regression guard in Neovim 0.11 (CTGLS_E2E=1), on a copy of the bank example of its own
-- (CTGLS_GUARD_PROJECT, with the hand-written AccountTest of editor-client/fixtures/bank-guard):
-- before any result the code actions say what they wait for; after the first run stores
-- Account's tests (written out as the generated test file), an edit of getOwner brings a
-- `behaviour-changed` warning and a `project-test-failed` one, "Open the test" opens the test
-- file at the test, :undo removes them, and "Accept the new behaviour" rewrites the generated
-- test's assertion and removes the warning. Loaded by nvim-0.11.lua after the other checks.
return function(T)
  local env = T.env
  local project = env.guard_project
  local account = project .. '/' .. T.account_path
  local generated = project .. '/' .. T.test_path
  local timeout = env.diagnostics_ms
  local bufnr, client

  local function request(method, params)
    local answer = T.call(client, 'request_sync', method, params, 20000, bufnr)
    T.assert(answer, method .. ' timed out after 20 s')
    T.assert(not answer.err, method .. ' failed: ' .. T.error_text(answer.err))
    return answer.result
  end

  --- The ctgls diagnostics of `buf` with `code`.
  local function with_code(buf, code)
    return vim.tbl_filter(function(d)
      return d.code == code
    end, T.ctgls_diagnostics(buf))
  end

  --- The code actions at a diagnostic, as the server sent them (LSP form).
  local function actions_at(d)
    local lsp = d.user_data and d.user_data.lsp or {}
    return request('textDocument/codeAction', {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = lsp.range,
      context = { diagnostics = { lsp } },
    }) or {}
  end

  local function titled(actions, title)
    for _, action in ipairs(actions) do
      if action.title == title then
        return action
      end
    end
    T.fail(('no action titled %q; offered: %s'):format(title, vim.inspect(vim.tbl_map(function(a)
      return a.title
    end, actions))))
  end

  local function owner_line()
    for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
      if line:find('public String getOwner(', 1, true) then
        return i - 1
      end
    end
    T.fail('no getOwner() in Account.java')
  end

  --- Makes getOwner() return something else, as typing would (an undoable change).
  local function edit_get_owner()
    vim.api.nvim_set_current_buf(bufnr)
    local line = owner_line() + 1
    local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
    T.assert(text:find('return owner;', 1, true), 'getOwner() does not return owner: ' .. text)
    vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { (text:gsub('return owner;', 'return owner + "!";')) })
  end

  local function wait_for_warning()
    return T.wait('a behaviour-changed warning on getOwner()', timeout, function()
      for _, d in ipairs(with_code(bufnr, 'behaviour-changed')) do
        if d.message:find('"', 1, true) and d.message:find('!', 1, true) then
          return d
        end
      end
    end)
  end

  local opened = 'the regression guard: a second project gets a client of its own'
  T.check(opened, function()
    vim.cmd('edit ' .. vim.fn.fnameescape(account))
    bufnr = vim.api.nvim_get_current_buf()
    client = T.wait('a ctgls client attached to the guard project', 20000, function()
      return T.client(bufnr)
    end)
    T.assert(client.config.root_dir == project, 'root_dir is ' .. tostring(client.config.root_dir))
  end)

  T.check('code actions at any moment: before any result, "Generate tests for class Account" says what it waits for', function()
    local actions = request('textDocument/codeAction', {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
      context = { diagnostics = {} },
    }) or {}
    local generate = titled(actions, 'Generate tests for class Account')
    local reason = generate.disabled and generate.disabled.reason
      or (generate.command and generate.command.command == 'ctgls.explain' and generate.command.arguments[1].message)
    T.assert(type(reason) == 'string' and reason:find('waiting for the run in progress', 1, true),
      'the action does not say what it waits for: ' .. vim.inspect(generate))
  end, { opened })

  local stored = "the first run stores Account's tests, written out as " .. T.test_path
  T.check(stored, function()
    local source = T.wait("the store's record of Account with its test class", timeout, function()
      local files = vim.fn.glob(project .. '/.ctgls/classes/com.example.bank.Account-*.json', false, true)
      local ok, record = pcall(vim.json.decode, files[1] and T.read_file(files[1]) or '')
      return ok and type(record) == 'table' and type(record.junit_class) == 'table' and record.junit_class.source
    end)
    vim.fn.mkdir(vim.fn.fnamemodify(generated, ':h'), 'p')
    vim.fn.writefile(source, generated)
  end, { opened })

  local warned = 'an edit of getOwner() brings a behaviour-changed warning there'
  local warning
  T.check(warned, function()
    edit_get_owner()
    warning = wait_for_warning()
    T.assert(warning.severity == vim.diagnostic.severity.WARN, 'not a warning: ' .. T.describe(warning))
    T.assert(warning.lnum == owner_line(), 'not on getOwner(): ' .. T.describe(warning))
    T.assert(warning.message:find(' now returns "', 1, true) or warning.message:find(' now leaves getOwner() at "', 1, true),
      'the message does not say what happens now: ' .. warning.message)
    T.out('     ' .. T.describe(warning))
  end, { stored })

  T.check('the project test AccountTest fails: project-test-failed on Account, opening at the assertion', function()
    local failure = T.wait('a project-test-failed diagnostic on Account.java', timeout, function()
      return with_code(bufnr, 'project-test-failed')[1]
    end)
    T.assert(failure.message:find('AccountTest.keepsItsOwner fails', 1, true), T.describe(failure))
    local open = titled(actions_at(failure), 'Open the test AccountTest.java')
    local argument = open.command.arguments[1]
    T.assert(argument.test == vim.uri_from_fname(project .. '/src/test/java/com/example/bank/AccountTest.java'), vim.inspect(argument))
    T.assert(argument.line == 14, 'not the assertion line (15): ' .. vim.inspect(argument))
  end, { warned })

  T.check('"Open the test" opens ' .. T.test_path .. ' at the test', function()
    local open = titled(actions_at(warning), 'Open the test AccountGeneratedTest.java')
    request('workspace/executeCommand', open.command)
    T.wait('window/showDocument to open the generated test file', 20000, function()
      return vim.api.nvim_buf_get_name(0) == generated
    end)
    local test = (warning.user_data.lsp.data or {}).test
    local line = vim.api.nvim_get_current_line()
    T.assert(line:find('void ' .. tostring(test) .. '(', 1, true), ('the cursor is on %q, not on test %s'):format(line, tostring(test)))
    vim.api.nvim_set_current_buf(bufnr)
  end, { warned })

  T.check(':undo removes the warning', function()
    vim.api.nvim_set_current_buf(bufnr)
    vim.cmd('undo')
    T.wait('no behaviour-changed or project-test-failed after :undo', timeout, function()
      return #with_code(bufnr, 'behaviour-changed') == 0 and #with_code(bufnr, 'project-test-failed') == 0
    end)
  end, { warned })

  T.check('"Accept the new behaviour" rewrites the assertion in ' .. T.test_path .. ' and removes the warning', function()
    edit_get_owner()
    local again = wait_for_warning()
    local before = table.concat(vim.fn.readfile(generated), '\n')
    T.assert(not before:find('!"', 1, true), 'the test file already expects the new value')
    vim.api.nvim_win_set_cursor(0, { again.lnum + 1, again.col })
    vim.lsp.buf.code_action({
      apply = true,
      filter = function(action)
        return action.title == 'Accept the new behaviour'
      end,
    })
    T.wait('the warning to go after accepting', timeout, function()
      return #with_code(bufnr, 'behaviour-changed') == 0
    end)
    local test_bufnr = T.wait('the generated test file in a buffer', 10000, function()
      return T.bufnr_of(generated)
    end)
    local after = table.concat(vim.api.nvim_buf_get_lines(test_bufnr, 0, -1, false), '\n')
    T.assert(after:find('!"', 1, true), 'the generated test does not expect the new value:\n' .. after)
  end, { warned })
end
