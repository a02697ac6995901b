-- The user commands exist as soon as the plugin is on 'runtimepath'; they reach the server
-- once a Java buffer has started it (`vim.lsp.enable('ctgls')` or `require('ctgls').setup()`).
if vim.g.loaded_ctgls then
  return
end
vim.g.loaded_ctgls = true
require('ctgls.commands').create()
