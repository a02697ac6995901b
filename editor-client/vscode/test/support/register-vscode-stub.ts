//! Preloaded by `npm test` (`node --require`): makes `require('vscode')` load `vscode-stub`,
//! since the real module exists only inside VS Code's extension host.

import * as Module from 'node:module';

type Resolve = (request: string, ...rest: unknown[]) => string;

const loader = Module as unknown as { _resolveFilename: Resolve };
const resolve = loader._resolveFilename;
const stubPath = require.resolve('./vscode-stub');

loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? stubPath : resolve.call(this, request, ...rest);
};
