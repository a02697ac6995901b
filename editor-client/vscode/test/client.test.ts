import * as assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import type { ConfigurationParams } from 'vscode-languageclient/node';

import { CtglsClient, ServerNotRunningError, type CtglsClientDeps } from '../src/client';
import type { ServerResolution } from '../src/serverPath';
import type { ServerSettings } from '../src/settings';
import type { ClientState } from '../src/status';
import { fakeFactory, type FakeLanguageClient } from './support/fakeClient';
import { FakeOutputChannel, Uri, control } from './support/vscode-stub';
import { accountUri, running, status } from './fixtures/status';

const found: ServerResolution = { found: true, path: '/opt/ctgls/bin/ctgls', source: 'setting' };

interface Harness {
  client: CtglsClient;
  made: FakeLanguageClient[];
  states: ClientState[];
  coverageChanged: string[];
  output: FakeOutputChannel;
}

function harness(overrides: Partial<CtglsClientDeps> = {}, setup?: (client: FakeLanguageClient) => void): Harness {
  const { factory, made } = fakeFactory(setup);
  const states: ClientState[] = [];
  const coverageChanged: string[] = [];
  const output = new FakeOutputChannel('ctgls');
  const client = new CtglsClient({
    createClient: factory,
    resolveServer: () => found,
    outputChannel: output as never,
    onState: (state) => states.push(state),
    onCoverageChanged: (uri) => coverageChanged.push(uri),
    ...overrides,
  });
  return { client, made, states, coverageChanged, output };
}

/** Lets queued lifecycle steps (restarts fired by events) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 10));
}

function newest(made: FakeLanguageClient[]): FakeLanguageClient {
  const client = made.at(-1);
  assert.ok(client, 'no language client was made');
  return client;
}

function initializationOptions(client: FakeLanguageClient): ServerSettings {
  return client.options.initializationOptions as ServerSettings;
}

async function pull(client: FakeLanguageClient, pulled: unknown[], sections: string[]): Promise<unknown> {
  const configuration = client.options.middleware?.workspace?.configuration;
  assert.ok(configuration, 'no workspace/configuration middleware');
  const params: ConfigurationParams = { items: sections.map((section) => ({ section })) };
  return configuration(params, { isCancellationRequested: false } as never, () => pulled);
}

describe('CtglsClient', () => {
  beforeEach(() => {
    control.reset();
    control.config = {
      'ctgls.budgetSeconds': 4,
      'ctgls.algorithm': 'mosa',
      'ctgls.executionEnabled': true,
      'ctgls.javaHome': null,
    };
  });

  it('starts `ctgls lsp --stdio` with the settings as initialization options', async () => {
    const { client, made, states } = harness();
    await client.start();
    const lc = newest(made);
    assert.ok(lc.started);
    assert.deepEqual(lc.server, {
      run: { command: found.path, args: ['lsp'], transport: 0 },
      debug: { command: found.path, args: ['lsp'], transport: 0 },
    });
    assert.deepEqual(lc.options.initializationOptions, {
      budgetSeconds: 4,
      algorithm: 'mosa',
      executionEnabled: true,
      javaHome: null,
    });
    assert.deepEqual(lc.options.synchronize, { configurationSection: 'ctgls' });
    assert.deepEqual(lc.options.documentSelector, [{ scheme: 'file', language: 'java' }]);
    assert.deepEqual(
      states.map((s) => s.kind),
      ['starting', 'running'],
    );
  });

  it('answers workspace/configuration pulls with the server keys only', async () => {
    const { client, made } = harness();
    await client.start();
    const answer = await pull(
      newest(made),
      [{ budgetSeconds: 2, server: { path: '/x' }, trace: { server: 'off' } }, { tabSize: 4 }],
      ['ctgls', 'editor'],
    );
    assert.deepEqual(answer, [{ budgetSeconds: 2 }, { tabSize: 4 }]);
  });

  it('never lets an untrusted workspace run code, then restarts with execution on when trusted', async () => {
    control.trusted = false;
    const { client, made, output } = harness();
    await client.start();
    const untrusted = newest(made);
    assert.equal(initializationOptions(untrusted).executionEnabled, false);
    assert.deepEqual(await pull(untrusted, [{ executionEnabled: true }], ['ctgls']), [{ executionEnabled: false }]);
    assert.ok(output.lines.some((line) => /not trusted/.test(line)));

    control.grantTrust();
    await settle();
    assert.equal(made.length, 2, 'trust should restart the server');
    assert.ok(untrusted.disposed);
    const trusted = newest(made);
    assert.ok(trusted.started);
    assert.equal(initializationOptions(trusted).executionEnabled, true);
    assert.deepEqual(await pull(trusted, [{ executionEnabled: true }], ['ctgls']), [{ executionEnabled: true }]);
  });

  it('restarts when ctgls.server.path changes, and only then', async () => {
    const { client, made } = harness();
    await client.start();
    control.changeConfiguration('ctgls.budgetSeconds', 9);
    await settle();
    assert.equal(made.length, 1);
    control.changeConfiguration('ctgls.server.path', '/elsewhere/ctgls');
    await settle();
    assert.equal(made.length, 2);
    assert.ok(made[0]?.disposed);
  });

  it('reports a missing binary in the status and an error message with a way to fix it', async () => {
    const message = 'The ctgls language server was not found';
    const { client, made, states, output } = harness({ resolveServer: () => ({ found: false, message }) });
    await client.start();
    assert.equal(made.length, 0);
    assert.deepEqual(states.at(-1), { kind: 'failed', reason: message });
    assert.deepEqual(control.messages, [{ level: 'error', message, items: ['Open Settings'] }]);
    assert.ok(output.lines.some((line) => line.includes(message)));
    await assert.rejects(client.generate(undefined), ServerNotRunningError);
    await assert.rejects(client.requestCoverage({}), /ctgls is not running: The ctgls language server was not found/);
  });

  it('opens the setting when the user picks "Open Settings"', async () => {
    control.messageAnswer = 'Open Settings';
    const { client } = harness({ resolveServer: () => ({ found: false, message: 'not found' }) });
    await client.start();
    await settle();
    assert.deepEqual(control.executedCommands, [
      { command: 'workbench.action.openSettings', args: ['ctgls.server.path'] },
    ]);
  });

  it('reports a server that fails to start', async () => {
    const { client, states } = harness({}, (lc) => (lc.startError = new Error('spawn EACCES')));
    await client.start();
    assert.deepEqual(states.at(-1), { kind: 'failed', reason: 'the server did not start: spawn EACCES' });
  });

  it('passes ctgls/status to the status and ctgls/coverageChanged to the coverage view', async () => {
    const { client, made, states, coverageChanged } = harness();
    await client.start();
    const lc = newest(made);
    lc.notify('ctgls/status', running);
    assert.deepEqual(states.at(-1), { kind: 'running', status: running });
    assert.deepEqual(client.currentState, { kind: 'running', status: running });
    lc.notify('ctgls/coverageChanged', { uri: accountUri });
    lc.notify('ctgls/coverageChanged', { nonsense: true });
    assert.deepEqual(coverageChanged, [accountUri]);
  });

  it('ignores notifications of a client it has replaced', async () => {
    const { client, made, states } = harness();
    await client.start();
    const old = newest(made);
    await client.restart();
    const count = states.length;
    old.notify('ctgls/status', running);
    assert.equal(states.length, count);
  });

  it('shows a server the client gave up on as stopped', async () => {
    const { client, made, states } = harness();
    await client.start();
    newest(made).crash();
    assert.deepEqual(states.at(-1), { kind: 'stopped' });
    await assert.rejects(client.cancel(undefined), /the server is stopped/);
  });

  it('sends ctgls.generate and ctgls.cancel with the file, or every file', async () => {
    const { client, made } = harness();
    await client.start();
    const lc = newest(made);
    const uri = Uri.parse(accountUri);
    await client.generate(uri as never);
    await client.generate(undefined);
    await client.cancel(uri as never);
    await client.cancel(undefined);
    assert.deepEqual(lc.requests, [
      { method: 'workspace/executeCommand', param: { command: 'ctgls.generate', arguments: [{ uri: accountUri }] } },
      { method: 'workspace/executeCommand', param: { command: 'ctgls.generate', arguments: [] } },
      { method: 'workspace/executeCommand', param: { command: 'ctgls.cancel', arguments: [{ uri: accountUri }] } },
      { method: 'workspace/executeCommand', param: { command: 'ctgls.cancel', arguments: [] } },
    ]);
  });

  it('fetches the status with the ctgls.status command and shows it', async () => {
    const idle = status();
    const { client, made, states } = harness({}, (lc) => {
      lc.answer = (method, param) =>
        method === 'workspace/executeCommand' && (param as { command: string }).command === 'ctgls.status' ? idle : null;
    });
    await client.start();
    assert.deepEqual(await client.fetchStatus(), idle);
    assert.deepEqual(states.at(-1), { kind: 'running', status: idle });
    assert.deepEqual(newest(made).requests, [
      { method: 'workspace/executeCommand', param: { command: 'ctgls.status', arguments: [] } },
    ]);
  });

  it('asks ctgls/coverage', async () => {
    const { client, made } = harness();
    await client.start();
    await client.requestCoverage({ textDocument: { uri: accountUri } });
    assert.deepEqual(newest(made).requests, [{ method: 'ctgls/coverage', param: { textDocument: { uri: accountUri } } }]);
  });

  it('runs start, stop and restart in order', async () => {
    const { client, made, states } = harness();
    await Promise.all([client.start(), client.restart(), client.stop()]);
    assert.equal(made.length, 2);
    assert.ok(made.every((lc) => lc.disposed));
    assert.deepEqual(states.at(-1), { kind: 'stopped' });
  });
});
