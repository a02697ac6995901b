// ESLint flat config: typescript-eslint's type-checked rules over src/ and test/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/', 'node_modules/', 'e2e/node_modules/', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      eqeqeq: 'error',
      curly: 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test runs suites and tests it is handed; their promises are its business.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test'] }] },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // API boundary: the pure modules are unit-tested without VS Code, so they may not load it.
    files: ['src/protocol.ts', 'src/settings.ts', 'src/serverPath.ts', 'src/status.ts', 'src/coverage.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'Pure module: no vscode import.', allowTypeImports: false },
            { name: 'vscode-languageclient', message: 'Pure module: no language client import.' },
            { name: 'vscode-languageclient/node', message: 'Pure module: no language client import.' },
          ],
        },
      ],
    },
  },
  {
    files: ['eslint.config.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The code-server smoke test is plain JavaScript run by Node (its dependencies live in e2e/).
    files: ['e2e/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', fetch: 'readonly', setTimeout: 'readonly' },
    },
  },
);
