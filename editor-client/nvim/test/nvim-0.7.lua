-- Tests of the degraded path on Neovim 0.7 (Debian's package; the plugin's floor is 0.8):
-- no `setup`, the client started by hand with `vim.lsp.start_client` and
-- `vim.lsp.buf_attach_client` from the plugin's configuration. Diagnostics, the code action
-- and the commands must still work.
-- Run by test/run.sh: nvim --headless -u NONE -i NONE -c 'luafile test/nvim-0.7.lua'
local T = dofile(os.getenv('CTGLS_PLUGIN_DIR') .. '/test/lib.lua')

T.run(function()
  local env = T.env

  vim.opt.runtimepath:prepend(env.plugin)
  vim.cmd('filetype on')
  vim.cmd('runtime plugin/ctgls.lua')
  T.out(('-- Neovim %s, server %s, %s'):format(T.version(), env.bin, env.e2e and 'full run' or 'fast checks (CTGLS_E2E=1 for all)'))

  T.check('the plugin modules load', function()
    for _, module in ipairs({ 'ctgls', 'ctgls.config', 'ctgls.commands', 'ctgls.status', 'ctgls.progress', 'ctgls.health', 'ctgls.coverage' }) do
      local ok, err = pcall(require, module)
      T.assert(ok, module .. ': ' .. tostring(err))
    end
  end)

  T.check('the user commands exist', function()
    for _, name in ipairs({ 'CtglsGenerate', 'CtglsCancel', 'CtglsStatus', 'CtglsCoverage' }) do
      T.assert(vim.fn.exists(':' .. name) == 2, ':' .. name .. ' is not defined')
    end
  end)

  -- Links into Neovim's own help are checked on 0.11 only: 0.7's help lacks vim.lsp.enable().
  T.check(':helptags gives the committed doc/tags, :help ctgls opens doc/ctgls.txt', function()
    T.expect_help(false)
  end)

  T.check('coverage signs: the kind of each line from a ctgls/coverage answer', function()
    T.expect_line_kinds()
  end)

  local account = env.project .. '/' .. T.account_path
  local attached = 'vim.lsp.start_client + buf_attach_client attach ctgls to Account.java'
  T.check(attached, function()
    vim.cmd('edit ' .. vim.fn.fnameescape(account))
    local bufnr = vim.api.nvim_get_current_buf()
    T.assert(vim.bo[bufnr].filetype == 'java', 'filetype is ' .. vim.bo[bufnr].filetype)
    local config = require('ctgls.config').build({ cmd = { env.bin }, settings = T.settings, root_dir = env.project })
    config.filetypes, config.root_markers = nil, nil
    local client_id = vim.lsp.start_client(config)
    T.assert(client_id, 'vim.lsp.start_client returned nil')
    T.assert(vim.lsp.buf_attach_client(bufnr, client_id), 'vim.lsp.buf_attach_client failed')
    T.wait('the ctgls client to initialize', 20000, function()
      local client = vim.lsp.get_client_by_id(client_id)
      return client and client.initialized and T.client(bufnr)
    end)
  end)

  local bufnr = T.bufnr_of(account)
  local client = bufnr and T.client(bufnr)

  -- 0.7 does not announce workspace/configuration, so the server is not pulling: the
  -- settings travel as initializationOptions.
  T.check('the settings reach the server (initializationOptions)', function()
    T.expect_server_config(client, bufnr, { budgetSeconds = 4, idleDelayMs = 200 })
  end, { attached })

  T.check('ctgls leaves omnifunc, tagfunc, formatexpr and completion/formatting to other servers', function()
    T.expect_no_foreign_features(client, bufnr)
  end, { attached })

  T.check(':checkhealth ctgls runs', function()
    local text = T.checkhealth_text()
    T.assert(text:find('OK[^\n]*server binary: ' .. vim.pesc(env.bin)), 'no OK line for the binary:\n' .. text)
    T.assert(not text:find('ERROR', 1, true), 'the health check reports an error:\n' .. text)
  end, { attached })

  if not env.e2e then
    return
  end
  vim.api.nvim_set_current_buf(bufnr)

  T.check(':CtglsGenerate (ctgls.generate) is accepted by the server', function()
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

  T.check(':CtglsCoverage shows ctgls/coverage as signs, and toggles them', function()
    T.expect_coverage_signs(client, bufnr)
  end, { exception })

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
  end, { applied })

  T.check(':CtglsStatus prints the status with per-class coverage', function()
    vim.api.nvim_set_current_buf(bufnr)
    T.expect_status_printed()
  end, { attached })

  T.check(':CtglsCancel (ctgls.cancel) is accepted by the server', function()
    vim.api.nvim_set_current_buf(bufnr)
    T.expect_command_accepted('ctgls.cancel', require('ctgls').cancel)
  end, { attached })
end)
