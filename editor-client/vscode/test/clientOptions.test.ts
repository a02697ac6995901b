import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { RevealOutputChannelOn, TransportKind } from 'vscode-languageclient/node';

import { clientOptions, filterPulledSettings, serverOptions } from '../src/clientOptions';
import { CLIENT_ID, createLanguageClient } from '../src/languageClient';
import { FakeOutputChannel, Uri } from './support/vscode-stub';

const output = new FakeOutputChannel('ctgls') as never;

describe('serverOptions', () => {
  it('runs `<path> lsp` over stdio, which makes the client append --stdio', () => {
    const executable = { command: '/opt/ctgls', args: ['lsp'], transport: TransportKind.stdio };
    assert.deepEqual(serverOptions('/opt/ctgls'), { run: executable, debug: executable });
  });
});

describe('clientOptions', () => {
  it('syncs the ctgls section, keeps the output channel quiet, and passes the settings', () => {
    const options = clientOptions({
      serverPath: '/opt/ctgls',
      section: { idleDelayMs: 0, logLevel: 'trace' },
      isTrusted: () => true,
      outputChannel: output,
    });
    assert.deepEqual(options.synchronize, { configurationSection: 'ctgls' });
    assert.equal(options.outputChannel, output);
    assert.equal(options.revealOutputChannelOn, RevealOutputChannelOn.Never);
    assert.deepEqual(options.initializationOptions, { idleDelayMs: 0, logLevel: 'trace' });
  });

  it('reads trust at each pull, not once', async () => {
    let trusted = false;
    const options = clientOptions({ serverPath: '/opt/ctgls', section: {}, isTrusted: () => trusted, outputChannel: output });
    const configuration = options.middleware?.workspace?.configuration;
    assert.ok(configuration);
    const params = { items: [{ section: 'ctgls' }] };
    const next = () => [{ executionEnabled: true }];
    assert.deepEqual(await configuration(params, {} as never, next), [{ executionEnabled: false }]);
    trusted = true;
    assert.deepEqual(await configuration(params, {} as never, next), [{ executionEnabled: true }]);
  });
});

describe('filterPulledSettings', () => {
  it('passes errors and other sections through', () => {
    const error = { code: -32603, message: 'boom' };
    assert.equal(filterPulledSettings({ items: [{ section: 'ctgls' }] }, error, true), error);
    assert.deepEqual(filterPulledSettings({ items: [{ section: 'java' }, {}] }, [{ home: '/jdk' }, null], true), [
      { home: '/jdk' },
      null,
    ]);
  });
});

describe('createLanguageClient', () => {
  it('makes a real vscode-languageclient LanguageClient from these options', () => {
    const client = createLanguageClient(
      serverOptions('/opt/ctgls'),
      clientOptions({ serverPath: '/opt/ctgls', section: {}, isTrusted: () => true, outputChannel: output }),
    );
    assert.equal(CLIENT_ID, 'ctgls');
    assert.equal(client.code2ProtocolConverter.asUri(Uri.parse('file:///p/A.java') as never), 'file:///p/A.java');
    for (const method of ['start', 'dispose', 'onNotification', 'onDidChangeState', 'sendRequest'] as const) {
      assert.equal(typeof client[method], 'function');
    }
  });
});
