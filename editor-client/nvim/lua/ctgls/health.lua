--- `:checkhealth ctgls`: the server binary and its version, the JDK the server will use, the
--- settings' values, and the state of running clients.
local compat = require('ctgls.compat')
local config = require('ctgls.config')
local status = require('ctgls.status')

local M = {}

--- The configuration in effect: a running client's, else `setup`'s, else 0.11's
--- `vim.lsp.config.ctgls`, else the defaults.
local function effective_config(clients)
  if clients[1] then
    local client = clients[1]
    return client.config or {}, compat.client_settings(client), 'the running client'
  end
  local setup_config = require('ctgls').client_config
  if setup_config then
    return setup_config, setup_config.settings or {}, "require('ctgls').setup()"
  end
  if compat.has('0.11') then
    local ok, resolved = pcall(function()
      return vim.lsp.config.ctgls
    end)
    if ok and type(resolved) == 'table' then
      return resolved, resolved.settings or {}, "vim.lsp.config('ctgls')"
    end
  end
  local defaults = config.build()
  return defaults, {}, 'the defaults'
end

local function first_line(text)
  return (vim.trim(text or ''):match('[^\n]*') or '')
end

local function check_neovim(health)
  if compat.has('0.11') then
    health.ok("Neovim 0.11+: `vim.lsp.enable('ctgls')` or `require('ctgls').setup()`")
  elseif compat.has('0.8') then
    health.ok("Neovim 0.8-0.10: use `require('ctgls').setup()`")
  else
    health.warn('Neovim older than 0.8: `setup` is not supported; start the client by hand', {
      "vim.lsp.start_client(require('ctgls.config').build({ ... })) and vim.lsp.buf_attach_client",
    })
  end
end

local function check_binary(health, client_config, origin, clients)
  local cmd = client_config.cmd
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' then
    health.info(('cmd from %s is not a command line (%s); binary not checked'):format(origin, type(cmd)))
    return
  end
  local path = vim.fn.exepath(cmd[1])
  if path == '' then
    health.error(('server binary `%s` (cmd from %s) not found'):format(cmd[1], origin), {
      'build it: cargo build --release -p ctgls, and put target/release/ctgls on $PATH',
      "or point cmd at it: vim.lsp.config('ctgls', { cmd = { '/path/to/ctgls' } })"
        .. " / require('ctgls').setup({ cmd = { '/path/to/ctgls' } })",
    })
    return
  end
  local output, ok = compat.run({ path, '--version' })
  local version = first_line(output)
  if not ok then
    health.error(('`%s --version` failed: %s'):format(path, version))
    return
  end
  health.ok(('server binary: %s (%s)'):format(path, version))
  for _, client in ipairs(clients) do
    local info = client.server_info
    if type(info) == 'table' and info.version and not version:find(info.version, 1, true) then
      health.warn(
        ('client %d talks to ctgls %s, but %s is %s: restart the client to use the new binary'):format(
          client.id,
          info.version,
          path,
          version
        )
      )
    end
  end
end

--- The JDK as the server will pick it: the `javaHome` setting, then `JAVA_HOME`, then PATH.
local function check_jdk(health, settings)
  local section = config.section(settings)
  local java_home, origin = section.javaHome, 'the javaHome setting'
  if type(java_home) ~= 'string' or java_home == '' then
    java_home, origin = vim.env.JAVA_HOME, 'JAVA_HOME'
  end
  local javac
  if type(java_home) == 'string' and java_home ~= '' then
    javac = java_home .. '/bin/javac'
    if vim.fn.executable(javac) ~= 1 then
      health.error(('no javac in %s (%s): ctgls cannot compile or run tests'):format(java_home, origin), {
        'point javaHome (or JAVA_HOME) at a JDK, not a JRE',
      })
      return
    end
  else
    origin = 'PATH'
    javac = vim.fn.exepath('javac')
    if javac == '' then
      health.error('no JDK: javac is not on PATH and neither javaHome nor JAVA_HOME is set', {
        'install a JDK (Debian: apt install openjdk-17-jdk-headless) or set javaHome',
        'without a JDK ctgls reports generation as unavailable',
      })
      return
    end
  end
  local output, ok = compat.run({ javac, '-version' })
  if not ok then
    health.error(('`%s -version` failed: %s'):format(javac, first_line(output)))
    return
  end
  health.ok(('JDK: %s (%s, from %s)'):format(first_line(output), javac, origin))
end

local function check_clients(health, clients)
  if #clients == 0 then
    health.info('no ctgls client is running: open a Java file under a project root ('
      .. table.concat(config.root_markers, ', ')
      .. ')')
    return
  end
  for _, client in ipairs(clients) do
    local buffers = {}
    for bufnr in pairs(client.attached_buffers or {}) do
      table.insert(buffers, tostring(bufnr))
    end
    table.sort(buffers)
    local root = client.config and client.config.root_dir or 'none'
    health.ok(('client %d: root %s, buffers [%s]'):format(client.id, root, table.concat(buffers, ', ')))
    local last = status.by_client[client.id]
    if not last then
      health.info('no status from the server yet')
    elseif last.state == 'unavailable' then
      health.warn('generation unavailable: ' .. tostring(last.message))
    else
      health.ok(status.format(last)[1])
    end
    local claimed = {}
    for _, key in ipairs(config.foreign_capabilities) do
      if client.server_capabilities and client.server_capabilities[key] then
        table.insert(claimed, key)
      end
    end
    if #claimed > 0 then
      health.warn('ctgls claims ' .. table.concat(claimed, ', ') .. '; it would compete with jdtls')
    end
  end
end

--- The values of the settings the server cannot check before it runs: diagnostic severities,
--- the trigger, source and test roots.
local function check_settings(health, settings)
  local section = config.section(settings)
  local problems = config.problems(section)
  for _, problem in ipairs(problems) do
    health.error('settings: ' .. problem)
  end
  if #problems > 0 then
    return
  end
  local trigger = section.trigger or 'idle'
  local when = {
    idle = 'after a pause in typing (idleDelayMs)',
    save = 'when a file is saved',
    manual = 'only on :CtglsGenerate',
  }
  health.ok(('runs start %s (trigger = %s)'):format(when[trigger], trigger))
  local changed = {}
  for code, severity in pairs(type(section.diagnostics) == 'table' and section.diagnostics or {}) do
    table.insert(changed, code .. ' = ' .. severity)
  end
  table.sort(changed)
  if #changed > 0 then
    health.info('diagnostic severities: ' .. table.concat(changed, ', '))
  end
end

function M.check()
  local health = compat.health()
  local clients = compat.get_clients({ name = config.name })
  local client_config, settings, origin = effective_config(clients)
  health.start('ctgls: Neovim')
  check_neovim(health)
  health.start('ctgls: server')
  check_binary(health, client_config, origin, clients)
  health.start('ctgls: JDK')
  check_jdk(health, settings)
  health.start('ctgls: settings')
  check_settings(health, settings)
  health.start('ctgls: clients')
  check_clients(health, clients)
end

return M
