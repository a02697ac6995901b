import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SERVER_KEYS, readSection, toServerSettings } from '../src/settings';

describe('toServerSettings', () => {
  const section = {
    javaHome: '/usr/lib/jvm/java-17',
    classpath: ['lib/extra.jar'],
    budgetSeconds: 5,
    algorithm: 'mosa',
    junit: 4,
    executionEnabled: true,
    idleDelayMs: 250,
    logLevel: 'debug',
    server: { path: '/opt/ctgls' },
    trace: { server: 'verbose' },
    coverage: { autoRefresh: true },
  };

  it('passes the documented keys and drops the client-only ones', () => {
    assert.deepEqual(toServerSettings(section, true), {
      javaHome: '/usr/lib/jvm/java-17',
      classpath: ['lib/extra.jar'],
      budgetSeconds: 5,
      algorithm: 'mosa',
      junit: 4,
      executionEnabled: true,
      idleDelayMs: 250,
      logLevel: 'debug',
    });
  });

  it('passes diagnostics, trigger and roots, and leaves empty roots to the server', () => {
    const diagnostics = { 'uncovered-branch': 'hint', 'behaviour-changed': 'off' };
    assert.deepEqual(
      toServerSettings({ diagnostics, trigger: 'save', sourceRoots: ['src'], testRoots: ['test'] }, true),
      { diagnostics, trigger: 'save', sourceRoots: ['src'], testRoots: ['test'] },
    );
    assert.deepEqual(toServerSettings({ diagnostics: {}, trigger: 'idle', sourceRoots: [], testRoots: [] }, true), {
      diagnostics: {},
      trigger: 'idle',
    });
  });

  it('keeps null values (javaHome and junit default to null) and leaves undefined keys to the server', () => {
    assert.deepEqual(toServerSettings({ javaHome: null, junit: null, budgetSeconds: undefined }, true), {
      javaHome: null,
      junit: null,
    });
  });

  it('turns execution off in an untrusted workspace, whatever the settings say', () => {
    assert.equal(toServerSettings(section, false).executionEnabled, false);
    assert.deepEqual(toServerSettings(undefined, false), { executionEnabled: false });
    assert.deepEqual(toServerSettings(null, true), {});
    assert.deepEqual(toServerSettings(['not', 'an', 'object'], true), {});
  });
});

describe('readSection', () => {
  it('reads exactly the server keys', () => {
    const asked: string[] = [];
    const read = readSection({
      get(key: string) {
        asked.push(key);
        return key === 'budgetSeconds' ? 3 : undefined;
      },
    });
    assert.deepEqual(asked, [...SERVER_KEYS]);
    assert.equal(read.budgetSeconds, 3);
  });
});
