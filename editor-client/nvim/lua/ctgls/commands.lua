--- The server's commands (`ctgls.generate`, `ctgls.cancel`, `ctgls.status`, see
--- docs/lsp-extensions.md) as Lua functions and as the user commands `:CtglsGenerate`,
--- `:CtglsCancel` and `:CtglsStatus`, and `:CtglsCoverage` (coverage signs, coverage.lua).
local compat = require('ctgls.compat')
local status = require('ctgls.status')

local M = {}

local function notify(message, level)
  vim.notify('ctgls: ' .. message, level or vim.log.levels.INFO)
end

--- The client for `bufnr`: the one attached to it, else any running ctgls client (a command
--- about all classes can be given from any buffer).
local function pick_client(bufnr, attached_only)
  local client = status.client_for(bufnr)
  if client or attached_only then
    return client
  end
  return compat.get_clients({ name = 'ctgls' })[1]
end

--- Sends `workspace/executeCommand` and calls `on_result(err, result)` with the answer, or
--- with an error at once when no client can take it. `attached_only`: only the client
--- attached to `bufnr` may take it (the command is about that buffer's file).
local function execute(command, arguments, bufnr, attached_only, on_result)
  local client = pick_client(bufnr, attached_only)
  if not client then
    local why = attached_only and 'this buffer has no ctgls client (use the ! form for all classes)'
      or 'no ctgls client is running (open a Java file in a project)'
    on_result({ message = why }, nil)
    return
  end
  compat.call(client, 'request', 'workspace/executeCommand', {
    command = command,
    arguments = arguments,
  }, function(err, result)
    on_result(err, result)
  end, bufnr)
end

local function report_failure(what)
  return function(err)
    if err then
      notify(what .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end
end

local function file_arguments(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  if opts.all then
    return {}, bufnr, false
  end
  return { { uri = vim.uri_from_bufnr(bufnr) } }, bufnr, true
end

--- Runs generation now for the class of `opts.bufnr` (the current buffer), or for every open
--- class with `opts.all`.
--- @param opts { bufnr: integer?, all: boolean?, on_result: fun(err, result)? }?
function M.generate(opts)
  opts = opts or {}
  local arguments, bufnr, attached_only = file_arguments(opts)
  execute('ctgls.generate', arguments, bufnr, attached_only, opts.on_result or report_failure('generate'))
end

--- Cancels the running and queued runs of the buffer's file, or all with `opts.all`.
--- @param opts { bufnr: integer?, all: boolean?, on_result: fun(err, result)? }?
function M.cancel(opts)
  opts = opts or {}
  local arguments, bufnr, attached_only = file_arguments(opts)
  execute('ctgls.cancel', arguments, bufnr, attached_only, opts.on_result or report_failure('cancel'))
end

local function show(lines, highlight)
  local chunks = {}
  for i, line in ipairs(lines) do
    table.insert(chunks, { line .. (i < #lines and '\n' or ''), highlight })
  end
  vim.api.nvim_echo(chunks, true, {})
end

--- Asks the server for its status and prints it. When the request fails, says why and
--- prints the last status the server sent, if any.
--- @param opts { bufnr: integer?, on_result: fun(err, result)? }?
function M.status(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  execute('ctgls.status', {}, bufnr, false, function(err, result)
    if opts.on_result then
      opts.on_result(err, result)
    end
    if not err and type(result) == 'table' then
      show(status.format(result))
      return
    end
    local lines = {
      'ctgls: status request failed: '
        .. (err and (err.message or vim.inspect(err)) or 'no status in the answer'),
    }
    local client = pick_client(bufnr, false)
    local last = client and status.by_client[client.id]
    if last then
      table.insert(lines, 'last status the server sent:')
      vim.list_extend(lines, status.format(last))
    end
    show(lines, 'WarningMsg')
  end)
end

local created = false

--- Defines the user commands; safe to call more than once.
function M.create()
  if created then
    return
  end
  created = true
  local command = vim.api.nvim_create_user_command
  command('CtglsGenerate', function(args)
    M.generate({ all = args.bang })
  end, { bang = true, desc = 'ctgls: generate tests for this class now (! for all open classes)' })
  command('CtglsCancel', function(args)
    M.cancel({ all = args.bang })
  end, { bang = true, desc = "ctgls: cancel this file's runs (! for all)" })
  command('CtglsStatus', function()
    M.status()
  end, { desc = 'ctgls: show the state of test generation' })
  local coverage = require('ctgls.coverage')
  command('CtglsCoverage', function(args)
    coverage.command(args.args)
  end, {
    nargs = '?',
    complete = function(lead)
      return vim.tbl_filter(function(name)
        return name:sub(1, #lead) == lead
      end, coverage.subcommands)
    end,
    desc = 'ctgls: coverage signs in the sign column (on, off, toggle, refresh)',
  })
end

return M
