-- Tests of the plugin on Neovim 0.11+: the `setup()` path (FileType autocommand and
-- vim.lsp.start) on one copy of the fixture project, then `vim.lsp.enable('ctgls')` with
-- lsp/ctgls.lua on another, up to a generated test written to disk, then the regression guard
-- on a third (guard.lua) (with CTGLS_E2E=1).
-- Run by test/run.sh: nvim --headless -u NONE -i NONE -l test/nvim-0.11.lua
local T = dofile(os.getenv('CTGLS_PLUGIN_DIR') .. '/test/lib.lua')

T.run(function()
  local env = T.env

  vim.opt.runtimepath:prepend(env.plugin)
  vim.cmd('filetype on')
  vim.cmd('runtime plugin/ctgls.lua')
  vim.g.ctgls_codelens = true
  T.out(('-- Neovim %s, server %s, %s'):format(T.version(), env.bin, env.e2e and 'full run' or 'fast checks (CTGLS_E2E=1 for all)'))

  -- Progress events, recorded from the start: a run may begin as soon as the file opens.
  local progress_titles = {}
  vim.api.nvim_create_autocmd('LspProgress', {
    callback = function(event)
      local value = event.data and event.data.params and event.data.params.value
      if type(value) == 'table' and value.kind == 'begin' then
        progress_titles[value.title or '?'] = true
      end
    end,
  })

  T.check('the plugin loads', function()
    local ctgls = require('ctgls')
    T.assert(type(ctgls.setup) == 'function' and type(ctgls.statusline) == 'function', 'require("ctgls") lacks setup/statusline')
    local files = vim.api.nvim_get_runtime_file('lsp/ctgls.lua', true)
    T.assert(#files == 1, 'lsp/ctgls.lua on the runtimepath: ' .. vim.inspect(files))
    local config = dofile(files[1])
    T.assert(config.cmd[1] == 'ctgls', 'default cmd is not { "ctgls" }: ' .. vim.inspect(config.cmd))
    T.assert(vim.deep_equal(config.filetypes, { 'java' }), 'filetypes: ' .. vim.inspect(config.filetypes))
    T.assert(
      vim.deep_equal(config.root_markers, { 'pom.xml', 'build.gradle', 'build.gradle.kts', '.git' }),
      'root_markers: ' .. vim.inspect(config.root_markers)
    )
  end)

  T.check('the user commands exist', function()
    for _, name in ipairs({ 'CtglsGenerate', 'CtglsCancel', 'CtglsStatus', 'CtglsCoverage' }) do
      T.assert(vim.fn.exists(':' .. name) == 2, ':' .. name .. ' is not defined')
    end
  end)

  local help_text, help_tags
  local help = ':helptags gives the committed doc/tags, :help ctgls opens doc/ctgls.txt, every link resolves'
  T.check(help, function()
    help_text, help_tags = T.expect_help(true)
  end)

  T.check(':help ctgls documents every command, diagnostic code, severity, trigger and new setting', function()
    T.expect_help_covers_the_plugin(help_text, help_tags)
  end, { help })

  T.check('coverage signs: the kind of each line from a ctgls/coverage answer', function()
    T.expect_line_kinds()
  end)

  T.check('the new settings: an empty diagnostics table goes out as {}, bad values are named', function()
    local config = require('ctgls.config')
    local section = config.section({ ctgls = { diagnostics = {}, trigger = 'manual' } })
    T.assert(vim.json.encode(section.diagnostics) == '{}', 'diagnostics = {} encodes as ' .. vim.json.encode(section.diagnostics))
    local roots = config.section({ ctgls = { sourceRoots = {}, testRoots = {} } })
    T.assert(vim.json.encode(roots) == '{}', 'empty roots are sent as ' .. vim.json.encode(roots))
    T.assert(#config.problems(vim.tbl_extend('force', {}, T.new_settings)) == 0, vim.inspect(config.problems(T.new_settings)))
    local problems = config.problems({
      diagnostics = { ['uncovered-branch'] = 'loud', ['no-such-code'] = 'hint' },
      trigger = 'sometimes',
      sourceRoots = 'src',
      testRoots = { 'test', 3 },
    })
    T.assert(#problems == 5, 'expected 5 problems: ' .. vim.inspect(problems))
  end)

  T.check('before_init sends the ctgls settings as initializationOptions', function()
    local config = require('ctgls.config').build()
    local params = {}
    config.before_init(params, { settings = T.settings })
    T.assert(params.initializationOptions.budgetSeconds == 4, vim.inspect(params.initializationOptions))
    local empty = {}
    config.before_init(empty, { settings = {} })
    T.assert(vim.json.encode(empty.initializationOptions) == '{}', 'no settings encode as ' .. vim.json.encode(empty.initializationOptions))
  end)

  T.check('the status summary of the contract example, and of one full of nulls', function()
    local format = require('ctgls.status').format
    local lines = format({
      state = 'running', message = 'Account: searching (5/18 branches)', version = '0.1.0',
      running = { uri = 'file:///p/Account.java', class = 'com.example.bank.Account', phase = 'searching' },
      queued = { 'com.example.bank.Bank' },
      classes = {
        { class = 'com.example.bank.Account', branches = { covered = 16, total = 18 },
          lines = { covered = 30, total = 31 }, tests = 7, runs = 2, problem = vim.NIL },
        { class = 'com.example.bank.Bank', branches = vim.NIL, lines = vim.NIL, tests = 0, runs = 0,
          problem = 'the project does not compile' },
      },
    })
    local expected = {
      'ctgls 0.1.0: running - Account: searching (5/18 branches)',
      '  running: com.example.bank.Account (searching)',
      '  queued: com.example.bank.Bank',
      '  com.example.bank.Account  branches 16/18  lines 30/31  tests 7  runs 2',
      '  com.example.bank.Bank     problem: the project does not compile',
    }
    T.assert(vim.deep_equal(lines, expected), vim.inspect(lines))
    local nulls = format({ state = 'idle', message = vim.NIL, version = vim.NIL, running = vim.NIL, queued = vim.NIL, classes = vim.NIL })
    T.assert(vim.deep_equal(nulls, { 'ctgls: idle', '  no results yet' }), vim.inspect(nulls))
  end)

  T.check('on_init drops the capabilities that belong to jdtls', function()
    local capabilities = { completionProvider = {}, documentFormattingProvider = true, definitionProvider = true,
      hoverProvider = true, codeActionProvider = { resolveProvider = true } }
    require('ctgls.config').build().on_init({ server_capabilities = capabilities })
    T.assert(vim.deep_equal(vim.tbl_keys(capabilities), { 'hoverProvider', 'codeActionProvider' })
      or vim.deep_equal(vim.tbl_keys(capabilities), { 'codeActionProvider', 'hoverProvider' }),
      'left: ' .. vim.inspect(capabilities))
  end)

  -- setup(): the path for Neovim 0.8-0.10, exercised here on 0.11. Execution is off on this
  -- project, so its server never runs Java; the check is that the settings reach it.
  local setup_account = env.setup_project .. '/' .. T.account_path
  T.check('setup() starts ctgls from a FileType autocommand with the project root', function()
    require('ctgls').setup({
      cmd = { env.bin },
      settings = vim.tbl_extend('force', { executionEnabled = false, idleDelayMs = 200 }, T.new_settings),
    })
    vim.cmd('edit ' .. vim.fn.fnameescape(setup_account))
    local bufnr = vim.api.nvim_get_current_buf()
    local client = T.wait('a ctgls client attached to the buffer', 20000, function()
      return T.client(bufnr)
    end)
    T.assert(client.config.root_dir == env.setup_project, 'root_dir is ' .. tostring(client.config.root_dir))
  end)

  local setup_started = 'setup() starts ctgls from a FileType autocommand with the project root'
  T.check('setup(): a flat settings table reaches the server', function()
    local bufnr = T.bufnr_of(setup_account)
    T.expect_server_config(T.client(bufnr), bufnr, { executionEnabled = false, idleDelayMs = 200 })
  end, { setup_started })

  T.check('setup(): diagnostics, trigger, sourceRoots and testRoots reach the server', function()
    local bufnr = T.bufnr_of(setup_account)
    T.expect_new_settings(T.client(bufnr), bufnr, T.new_settings)
  end, { setup_started })

  -- Leave no trace of setup() for the vim.lsp.enable path.
  do
    local bufnr = T.bufnr_of(setup_account)
    local client = bufnr and T.client(bufnr)
    if client then
      client:stop()
      vim.wait(5000, function()
        return #vim.lsp.get_clients({ name = 'ctgls' }) == 0
      end, 50)
    end
    pcall(vim.api.nvim_del_augroup_by_name, 'ctgls_setup')
    require('ctgls').client_config = nil
    if bufnr then
      vim.cmd('bwipeout! ' .. bufnr)
    end
  end

  T.check(':checkhealth ctgls looks for javac in the javaHome setting', function()
    T.assert(#vim.lsp.get_clients({ name = 'ctgls' }) == 0, 'a ctgls client is still running')
    require('ctgls').client_config = require('ctgls.config').build({
      cmd = { env.bin },
      settings = { ctgls = { javaHome = '/nonexistent-jdk' } },
    })
    local text = T.checkhealth_text()
    require('ctgls').client_config = nil
    T.assert(text:find('no javac in /nonexistent-jdk (the javaHome setting)', 1, true), 'javaHome not checked:\n' .. text)
  end)

  T.check(':checkhealth ctgls names settings the server cannot use', function()
    require('ctgls').client_config = require('ctgls.config').build({
      cmd = { env.bin },
      settings = { ctgls = { diagnostics = { ['uncovered-branch'] = 'loud' }, trigger = 'sometimes' } },
    })
    local text = T.checkhealth_text()
    require('ctgls').client_config = nil
    T.assert(text:find('ERROR settings: `diagnostics["uncovered-branch"]`: "loud" is not one of', 1, true), 'severity not checked:\n' .. text)
    T.assert(text:find('ERROR settings: `trigger`: "sometimes"', 1, true), 'trigger not checked:\n' .. text)
  end)

  -- vim.lsp.enable('ctgls') with lsp/ctgls.lua, the 0.11 path.
  local account = env.project .. '/' .. T.account_path
  local attached = "vim.lsp.enable('ctgls') attaches to Account.java with the project root"
  T.check(attached, function()
    vim.lsp.config('ctgls', { cmd = { env.bin }, settings = T.settings })
    vim.lsp.enable('ctgls')
    vim.cmd('edit ' .. vim.fn.fnameescape(account))
    local bufnr = vim.api.nvim_get_current_buf()
    local client = T.wait('a ctgls client attached to the buffer', 20000, function()
      return T.client(bufnr)
    end)
    T.assert(client.config.root_dir == env.project, 'root_dir is ' .. tostring(client.config.root_dir))
    T.assert(#vim.lsp.get_clients({ name = 'ctgls' }) == 1, 'more than one ctgls client is running')
  end)

  local bufnr = T.bufnr_of(account)
  local client = bufnr and T.client(bufnr)

  T.check('the settings reach the server (workspace/configuration)', function()
    T.expect_server_config(client, bufnr, { budgetSeconds = 4, idleDelayMs = 200 })
  end, { attached })

  T.check("workspace/configuration answers the ctgls section as an object", function()
    local handler = client.config.handlers['workspace/configuration']
    local answers = handler(nil, { items = { { section = 'ctgls' }, {}, { section = 'ctgls.budgetSeconds' } } }, { client_id = client.id })
    T.assert(#answers == 3, 'one answer per item expected: ' .. vim.inspect(answers))
    T.assert(answers[1].budgetSeconds == 4 and answers[3] == 4, vim.inspect(answers))
    local empty = require('ctgls.config').section({ ctgls = {} })
    T.assert(vim.json.encode(empty) == '{}', 'an empty section encodes as ' .. vim.json.encode(empty))
  end, { attached })

  T.check('ctgls leaves omnifunc, tagfunc, formatexpr and completion/formatting to other servers', function()
    T.expect_no_foreign_features(client, bufnr)
  end, { attached })

  T.check(':checkhealth ctgls reports the binary and its version', function()
    local version = vim.trim(vim.fn.system({ env.bin, '--version' }))
    local text = T.checkhealth_text()
    T.assert(text:find('OK server binary: ' .. env.bin .. ' (' .. version .. ')', 1, true), 'no OK line for the binary:\n' .. text)
    T.assert(text:find('OK JDK: javac', 1, true), 'no OK line for the JDK:\n' .. text)
    T.assert(not text:find('ERROR', 1, true), 'the health check reports an error:\n' .. text)
    T.assert(text:find('OK client %d+: root ' .. vim.pesc(env.project)), 'the attached client is not listed:\n' .. text)
  end, { attached })

  if not env.e2e then
    return
  end

  local generate_ok = ':CtglsGenerate (ctgls.generate) is accepted by the server'
  T.check(generate_ok, function()
    vim.api.nvim_set_current_buf(bufnr)
    T.expect_command_accepted('ctgls.generate', require('ctgls').generate)
  end, { attached })

  local diagnosed = 'ctgls diagnostics arrive for Account.java (source ctgls, contract codes and data)'
  T.check(diagnosed, function()
    T.expect_contract_diagnostics(bufnr, env.diagnostics_ms)
  end, { attached })

  local exception = 'undeclared-exception for ArithmeticException on the division in interest(int)'
  local exception_diagnostic
  T.check(exception, function()
    exception_diagnostic = T.expect_arithmetic_exception(bufnr, env.diagnostics_ms)
  end, { diagnosed })

  T.check('progress is reported as "ctgls: Account"', function()
    T.assert(progress_titles['ctgls: Account'], 'progress titles seen: ' .. vim.inspect(vim.tbl_keys(progress_titles)))
  end, { diagnosed })

  T.check('ctgls/status notifications reach the statusline', function()
    T.wait('a ctgls/status notification', 10000, function()
      return require('ctgls').last_status(bufnr)
    end)
    vim.api.nvim_set_current_buf(bufnr)
    local line = require('ctgls').statusline()
    T.assert(line:match('^ctgls: '), 'statusline() is ' .. vim.inspect(line))
  end, { attached })

  T.check('code lenses (vim.g.ctgls_codelens) show coverage on the methods', function()
    local lenses = T.wait('ctgls code lenses on Account.java', 20000, function()
      local found = T.ctgls_lenses(client, bufnr)
      return #found > 0 and found
    end)
    T.assert(lenses[1].command and lenses[1].command.title ~= '', 'a lens without a title: ' .. vim.inspect(lenses[1]))
  end, { diagnosed })

  T.check(':CtglsCoverage shows ctgls/coverage as signs, and toggles them', function()
    local signs = T.expect_coverage_signs(client, bufnr)
    local counts = {}
    for _, kind in pairs(signs) do
      counts[kind] = (counts[kind] or 0) + 1
    end
    T.out('     signs: ' .. vim.inspect(counts, { newline = ' ', indent = '' }))
  end, { exception })

  if env.capture then
    T.check('a capture of the buffer with diagnostics is written', function()
      T.write_capture(client, bufnr, env.capture)
      T.out('     capture: ' .. env.capture)
    end, { exception })
  end

  local resolvable = 'the code action "' .. T.action_title .. '" is offered and resolved (codeAction/resolve)'
  T.check(resolvable, function()
    T.expect_resolvable_action(client, bufnr, exception_diagnostic)
  end, { exception })

  local applied = 'vim.lsp.buf.code_action() applies it to ' .. T.test_path
  T.check(applied, function()
    T.apply_action_like_a_user(bufnr, exception_diagnostic)
  end, { exception })

  T.check(T.test_path .. ' is written with a @Test method', function()
    T.expect_test_file_on_disk()
    if env.capture then
      T.append_test_file_to_capture(env.capture)
    end
  end, { applied })

  T.check(':CtglsStatus prints the status with per-class coverage', function()
    vim.api.nvim_set_current_buf(bufnr)
    T.expect_status_printed()
  end, { attached })

  T.check(':CtglsCancel (ctgls.cancel) is accepted by the server', function()
    vim.api.nvim_set_current_buf(bufnr)
    T.expect_command_accepted('ctgls.cancel', require('ctgls').cancel)
  end, { attached })

  -- The regression guard, on a project of its own.
  dofile(env.plugin .. '/test/guard.lua')(T)
end)
