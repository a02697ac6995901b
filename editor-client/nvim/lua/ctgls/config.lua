--- The LSP client configuration of ctgls, shared by `lsp/ctgls.lua` (Neovim 0.11's
--- `vim.lsp.enable`) and `require('ctgls').setup` (0.8 and later through `vim.lsp.start`).
local compat = require('ctgls.compat')

local M = {}

M.name = 'ctgls'
--- The settings section the server pulls with `workspace/configuration`.
M.section_name = 'ctgls'
M.filetypes = { 'java' }
M.root_markers = { 'pom.xml', 'build.gradle', 'build.gradle.kts', '.git' }

--- Server capabilities that belong to the Java language server next to ctgls (jdtls). Our
--- client drops them before it attaches, so Neovim never points 'omnifunc', 'tagfunc' or
--- 'formatexpr' at ctgls and never asks it to complete, format or rename, even if a future
--- server announced one of them. Hover, code actions, code lenses and commands stay.
M.foreign_capabilities = {
  'completionProvider',
  'inlineCompletionProvider',
  'signatureHelpProvider',
  'declarationProvider',
  'definitionProvider',
  'typeDefinitionProvider',
  'implementationProvider',
  'referencesProvider',
  'documentHighlightProvider',
  'documentFormattingProvider',
  'documentRangeFormattingProvider',
  'documentOnTypeFormattingProvider',
  'renameProvider',
  'semanticTokensProvider',
}

--- The diagnostic codes whose severity the `diagnostics` setting sets, and its values
--- (docs/lsp-extensions.md, "Settings").
M.diagnostic_codes = {
  'uncovered-branch',
  'undeclared-exception',
  'behaviour-changed',
  'project-test-failed',
  'nondeterministic-input',
  'needs-environment',
  'verification-failed',
}
M.severities = { 'error', 'warning', 'information', 'hint', 'off' }
--- When runs start: after a pause in typing, on save, or only when asked (`:CtglsGenerate`).
M.triggers = { 'idle', 'save', 'manual' }

--- Settings whose value is a JSON object: an empty Lua table must be sent as `{}`, not `[]`.
local object_keys = { 'diagnostics' }
--- Settings left out when empty, so that the server's default applies.
local omitted_when_empty = { 'sourceRoots', 'testRoots' }

--- The `ctgls` settings object in `settings`, as a table that encodes to a JSON object: an
--- empty Lua table encodes to `[]`, which the server rejects as a settings object (and as the
--- value of `diagnostics`). The user's table is not changed.
function M.section(settings)
  local section = type(settings) == 'table' and settings[M.section_name] or nil
  if type(section) ~= 'table' or next(section) == nil then
    return vim.empty_dict()
  end
  for _, key in ipairs(object_keys) do
    local value = section[key]
    if type(value) == 'table' and next(value) == nil then
      section = vim.tbl_extend('force', {}, section)
      section[key] = vim.empty_dict()
    end
  end
  -- Empty roots mean "not set": left out, the server finds them (src/main/java, else src).
  for _, key in ipairs(omitted_when_empty) do
    local value = section[key]
    if type(value) == 'table' and next(value) == nil then
      section = vim.tbl_extend('force', {}, section)
      section[key] = nil
    end
  end
  return next(section) == nil and vim.empty_dict() or section
end

--- What is wrong with the `diagnostics`, `trigger`, `sourceRoots` and `testRoots` values of a
--- settings section, as messages (empty when nothing is). The server says so too, but only in
--- a message when it starts; `:checkhealth ctgls` shows these.
function M.problems(section)
  local problems = {}
  local function add(...)
    table.insert(problems, string.format(...))
  end
  local diagnostics = section.diagnostics
  if diagnostics ~= nil and type(diagnostics) ~= 'table' then
    add('`diagnostics` must be a table of code = severity, not %s', vim.inspect(diagnostics))
  elseif diagnostics ~= nil then
    for code, severity in pairs(diagnostics) do
      if not vim.tbl_contains(M.diagnostic_codes, code) then
        add('`diagnostics`: unknown code %s (known: %s)', vim.inspect(code), table.concat(M.diagnostic_codes, ', '))
      end
      if not vim.tbl_contains(M.severities, severity) then
        add('`diagnostics[%s]`: %s is not one of %s', vim.inspect(code), vim.inspect(severity), table.concat(M.severities, ', '))
      end
    end
  end
  local trigger = section.trigger
  if trigger ~= nil and not vim.tbl_contains(M.triggers, trigger) then
    add('`trigger`: %s is not one of %s', vim.inspect(trigger), table.concat(M.triggers, ', '))
  end
  for _, key in ipairs({ 'sourceRoots', 'testRoots' }) do
    local roots = section[key]
    if roots ~= nil then
      local ok = type(roots) == 'table' and (next(roots) == nil or compat.islist(roots))
      for _, root in ipairs(ok and roots or {}) do
        ok = ok and type(root) == 'string'
      end
      if not ok then
        add('`%s` must be a list of directories (strings), not %s', key, vim.inspect(roots))
      end
    end
  end
  return problems
end

local function lookup(settings, dotted)
  local value = settings
  for key in string.gmatch(dotted, '[^.]+') do
    if type(value) ~= 'table' then
      return nil
    end
    value = value[key]
  end
  return value
end

--- `workspace/configuration`. Neovim's own handler answers `null` for a missing section and
--- `[]` for an empty one, and skips items without a section (so answers no longer line up
--- with items); this one always answers the `ctgls` section with an object.
local function workspace_configuration(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local settings = client and compat.client_settings(client) or {}
  local answers = {}
  for _, item in ipairs(params and params.items or {}) do
    local value
    if item.section == M.section_name then
      value = M.section(settings)
    elseif item.section == nil or item.section == '' then
      value = settings
    else
      value = lookup(settings, item.section)
    end
    if value == nil then
      value = vim.NIL
    end
    table.insert(answers, value)
  end
  return answers
end

local function status_notification(_, status, ctx)
  require('ctgls.status').update(ctx.client_id, status)
end

local function coverage_changed(_, params, ctx)
  require('ctgls.status').coverage_changed(ctx.client_id, params)
end

--- Sends the settings as `initializationOptions` too, unless `init_options` says otherwise,
--- so the first run already uses them (the server reads either form, see
--- docs/lsp-extensions.md).
local function before_init(params, config)
  if params.initializationOptions == nil then
    params.initializationOptions = M.section(config.settings)
  end
end

local function on_init(client)
  local capabilities = client.server_capabilities
  if type(capabilities) == 'table' then
    for _, key in ipairs(M.foreign_capabilities) do
      capabilities[key] = nil
    end
  end
  require('ctgls.commands').create()
  require('ctgls.progress').enable()
  require('ctgls.codelens').enable()
  require('ctgls.coverage').enable_if_wanted()
end

local function on_exit(_, _, client_id)
  -- Deferred: the handler runs in a libuv callback, where most API functions are refused.
  vim.schedule(function()
    require('ctgls.status').forget(client_id)
  end)
end

--- Calls `ours`, then `theirs` when the user gave one.
local function chain(ours, theirs)
  if type(theirs) ~= 'function' then
    return ours
  end
  return function(...)
    ours(...)
    return theirs(...)
  end
end

--- The client configuration: our defaults with `overrides` merged in. Fields of `overrides`
--- replace ours, except `handlers` (merged per method) and `before_init`, `on_init` and
--- `on_exit` (called after ours).
--- @param overrides table? fields of `vim.lsp.ClientConfig` (`cmd`, `settings`, ...)
function M.build(overrides)
  overrides = overrides or {}
  local config = {
    name = M.name,
    cmd = { 'ctgls' },
    filetypes = vim.deepcopy(M.filetypes),
    root_markers = vim.deepcopy(M.root_markers),
    handlers = {
      ['workspace/configuration'] = workspace_configuration,
      ['ctgls/status'] = status_notification,
      ['ctgls/coverageChanged'] = coverage_changed,
    },
  }
  for key, value in pairs(overrides) do
    if key == 'handlers' then
      config.handlers = vim.tbl_extend('force', config.handlers, value)
    elseif key ~= 'before_init' and key ~= 'on_init' and key ~= 'on_exit' then
      config[key] = value
    end
  end
  config.before_init = chain(before_init, overrides.before_init)
  config.on_init = chain(on_init, overrides.on_init)
  config.on_exit = chain(on_exit, overrides.on_exit)
  return config
end

return M
