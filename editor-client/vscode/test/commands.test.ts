import * as assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { CtglsClient } from '../src/client';
import { Command, registerCommands, type CommandTargets } from '../src/commands';
import { CoverageController } from '../src/coverageController';
import type { ClientState } from '../src/status';
import { accountUri, running } from './fixtures/status';
import { fakeFactory, type FakeLanguageClient } from './support/fakeClient';
import { FakeOutputChannel, Uri, control } from './support/vscode-stub';

interface Harness {
  targets: CommandTargets;
  made: FakeLanguageClient[];
  output: FakeOutputChannel;
  coverageRequests: unknown[];
}

async function harness(found = true): Promise<Harness> {
  const { factory, made } = fakeFactory((lc) => {
    lc.answer = (method, param) => {
      if (method === 'workspace/executeCommand' && (param as { command: string }).command === 'ctgls.status') {
        return running;
      }
      if (method === 'ctgls/debugConfig') {
        return { budgetSeconds: 3, trigger: 'save' };
      }
      return method === 'ctgls/coverage' ? { files: [] } : null;
    };
  });
  const output = new FakeOutputChannel('ctgls');
  const coverageRequests: unknown[] = [];
  const client = new CtglsClient({
    createClient: factory,
    resolveServer: () => (found ? { found: true, path: '/bin/ctgls', source: 'path' } : { found: false, message: 'no ctgls' }),
    outputChannel: output as never,
    onState: (_state: ClientState) => undefined,
    onCoverageChanged: () => undefined,
  });
  const coverage = new CoverageController(
    {
      requestCoverage: (params) => {
        coverageRequests.push(params);
        return client.requestCoverage(params);
      },
    },
    () => true,
  );
  const targets = { client, coverage, outputChannel: output as never };
  registerCommands(targets);
  await client.start();
  return { targets, made, output, coverageRequests };
}

function run(command: string, ...args: unknown[]): Promise<unknown> {
  const handler = control.commands.get(command);
  assert.ok(handler, `${command} is not registered`);
  return Promise.resolve(handler(...args));
}

function executeCommandRequests(lc: FakeLanguageClient | undefined): unknown[] {
  return (lc?.requests ?? []).filter((r) => r.method === 'workspace/executeCommand').map((r) => r.param);
}

describe('commands', () => {
  beforeEach(() => control.reset());

  it('registers every command, none with a server command id', async () => {
    await harness();
    assert.deepEqual([...control.commands.keys()].sort(), Object.values(Command).sort());
    for (const serverCommand of ['ctgls.generate', 'ctgls.cancel', 'ctgls.status']) {
      assert.ok(!control.commands.has(serverCommand));
    }
  });

  it('generates tests for the class of the active Java editor', async () => {
    const { made } = await harness();
    control.activeTextEditor = { document: { uri: Uri.parse(accountUri), languageId: 'java' } };
    await run(Command.generateTests);
    assert.deepEqual(executeCommandRequests(made[0]), [{ command: 'ctgls.generate', arguments: [{ uri: accountUri }] }]);
  });

  it('generates tests for a file given by the explorer menu', async () => {
    const { made } = await harness();
    await run(Command.generateTests, Uri.parse(accountUri));
    assert.deepEqual(executeCommandRequests(made[0]), [{ command: 'ctgls.generate', arguments: [{ uri: accountUri }] }]);
  });

  it('asks for a Java file when the active editor is something else', async () => {
    const { made } = await harness();
    control.activeTextEditor = { document: { uri: Uri.parse('file:///p/notes.md'), languageId: 'markdown' } };
    await run(Command.generateTests);
    assert.deepEqual(executeCommandRequests(made[0]), []);
    assert.match(control.messages[0]?.message ?? '', /open a Java file/);
  });

  it('generates for all open classes and cancels every run', async () => {
    const { made } = await harness();
    await run(Command.generateAllTests);
    await run(Command.cancelGeneration);
    assert.deepEqual(executeCommandRequests(made[0]), [
      { command: 'ctgls.generate', arguments: [] },
      { command: 'ctgls.cancel', arguments: [] },
    ]);
  });

  it('shows an error message when the server is not running', async () => {
    await harness(false);
    control.messages.length = 0;
    await run(Command.generateAllTests);
    assert.deepEqual(control.messages, [{ level: 'error', message: 'ctgls is not running: no ctgls', items: [] }]);
  });

  it('shows the output channel and restarts the server', async () => {
    const { made, output } = await harness();
    await run(Command.showOutput);
    assert.equal(output.shown, 1);
    await run(Command.restartServer);
    assert.equal(made.length, 2);
    assert.ok(made[0]?.disposed);
  });

  it('writes the settings the server applies (ctgls/debugConfig) to the output channel', async () => {
    const { made, output } = await harness();
    await run(Command.showServerSettings);
    assert.deepEqual(
      made[0]?.requests.filter((r) => r.method === 'ctgls/debugConfig'),
      [{ method: 'ctgls/debugConfig', param: null }],
    );
    assert.equal(output.lines.at(-1), '[client] settings the server applies: {"budgetSeconds":3,"trigger":"save"}');
    assert.equal(output.shown, 1);
  });

  it('shows coverage of every file', async () => {
    const { coverageRequests } = await harness();
    await run(Command.showCoverage);
    assert.deepEqual(coverageRequests, [{}]);
  });

  it('shows the status fetched from the server and runs the picked action', async () => {
    const { made } = await harness();
    control.quickPick = (items) => items.find((item) => item.label.includes('Account'));
    await run(Command.showStatus);
    assert.deepEqual(executeCommandRequests(made[0]), [{ command: 'ctgls.status', arguments: [] }]);
    assert.deepEqual(
      control.quickPicks[0]?.map((item) => item.label),
      ['$(symbol-class) Account', '$(stop-circle) Cancel test generation', '$(coverage) Show coverage of generated tests', '$(output) Show ctgls output'],
    );
    assert.deepEqual(control.shownDocuments.map(String), [accountUri]);

    control.quickPick = (items) => items.find((item) => item.label.includes('Cancel'));
    await run(Command.showStatus);
    assert.deepEqual(executeCommandRequests(made[0]).at(-1), { command: 'ctgls.cancel', arguments: [] });
  });
});
