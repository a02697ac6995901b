-- ctgls for Neovim 0.11+: `vim.lsp.enable('ctgls')`. Override any field with
-- `vim.lsp.config('ctgls', { cmd = {...}, settings = { ctgls = {...} } })`.
return require('ctgls.config').build()
