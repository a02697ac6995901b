//! The esbuild bundle `out/extension.js` (what the .vsix ships): self-contained, and it activates.
//! Run after `npm run bundle` (scripts/test.sh does both).

import * as assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, describe, it } from 'node:test';

import { control } from './support/vscode-stub';

const root = path.resolve(__dirname, '..', '..');
const bundle = path.join(root, 'out', 'extension.js');

interface ExtensionModule {
  activate(context: { subscriptions: { dispose(): unknown }[]; extensionPath: string }): void;
  deactivate(): Promise<void>;
}

describe('out/extension.js (the bundle)', () => {
  beforeEach(() => control.reset());

  it('requires nothing but vscode and Node built-ins', () => {
    assert.ok(fs.existsSync(bundle), 'run `npm run bundle` first');
    const text = fs.readFileSync(bundle, 'utf8');
    const required = new Set([...text.matchAll(/\brequire\(["']([^"']+)["']\)/g)].map((match) => match[1]!));
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    const foreign = [...required].filter((name) => name !== 'vscode' && !builtins.has(name));
    assert.deepEqual(foreign, [], 'the bundle requires modules it does not contain');
    assert.ok(required.has('vscode'));
  });

  it('activates: language status, commands, and a clear error when the server is missing', async () => {
    control.config['ctgls.server.path'] = path.join(root, 'no-such-ctgls');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extension = require(bundle) as ExtensionModule;
    const context = { subscriptions: [] as { dispose(): unknown }[], extensionPath: root };
    extension.activate(context);
    const item = control.languageStatusItems[0];
    assert.ok(item, 'no language status item');
    for (const command of ['ctgls.generateTests', 'ctgls.showStatus', 'ctgls.restartServer']) {
      assert.ok(control.commands.has(command), `${command} is not registered`);
    }
    await waitFor(() => item.text === 'ctgls: not running');
    assert.equal(item.severity, 2);
    assert.match(item.detail ?? '', /no-such-ctgls/);
    assert.ok(control.messages.some((message) => message.level === 'error'));
    await extension.deactivate();
    for (const disposable of context.subscriptions) {
      disposable.dispose();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, 'timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
