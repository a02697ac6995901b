import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { classLine, simpleName, statusPickItems, statusView } from '../src/status';
import { account, accountUri, brokenBank, running, status, unavailable } from './fixtures/status';

describe('statusView', () => {
  it('shows an idle server with its classes in the tooltip', () => {
    const view = statusView({ kind: 'running', status: status() });
    assert.equal(view.text, '$(beaker) ctgls');
    assert.equal(view.warning, false);
    assert.equal(
      view.tooltip,
      ['ctgls: idle', 'Account: 16/18 branches, 30/31 lines, 7 tests', 'ctgls 0.1.0 · click for details'].join('\n'),
    );
  });

  it('shows the running class and its phase, and what is queued', () => {
    const view = statusView({ kind: 'running', status: running });
    assert.equal(view.text, '$(sync~spin) ctgls: Account searching');
    assert.match(view.tooltip, /^Account: searching \(5\/18 branches\)\nQueued: Bank\n/);
    assert.equal(view.warning, false);
  });

  it('shows why generation is unavailable in the tooltip, as a warning', () => {
    const view = statusView({ kind: 'running', status: unavailable });
    assert.equal(view.text, '$(circle-slash) ctgls');
    assert.equal(view.warning, true);
    assert.match(view.tooltip, /^Test generation is unavailable: no JDK found: set ctgls\.javaHome or JAVA_HOME$/m);
  });

  it("shows the client's own states", () => {
    assert.equal(statusView({ kind: 'starting' }).text, '$(loading~spin) ctgls');
    assert.equal(statusView({ kind: 'running', status: null }).tooltip, 'ctgls: ready');
    const failed = statusView({ kind: 'failed', reason: 'The ctgls language server was not found' });
    assert.equal(failed.text, '$(error) ctgls');
    assert.equal(failed.warning, true);
    assert.equal(failed.tooltip, 'ctgls is not running: The ctgls language server was not found');
    assert.equal(statusView({ kind: 'stopped' }).warning, true);
  });

  it('names the problem of a class that cannot be generated for', () => {
    assert.equal(classLine(brokenBank), 'Bank: the project does not compile (Bank.java:12: cannot find symbol)');
    assert.equal(classLine({ ...account, tests: 1 }), 'Account: 16/18 branches, 30/31 lines, 1 test');
  });
});

describe('statusPickItems', () => {
  it('lists classes, cancel while running, coverage, and the output', () => {
    const items = statusPickItems({ kind: 'running', status: { ...running, classes: [account, brokenBank] } });
    assert.deepEqual(
      items.map((item) => item.action),
      [
        { kind: 'openClass', uri: accountUri },
        { kind: 'openClass', uri: brokenBank.uri },
        { kind: 'cancel' },
        { kind: 'showCoverage' },
        { kind: 'showOutput' },
      ],
    );
    assert.equal(items[0]?.description, '16/18 branches, 30/31 lines, 7 tests');
    assert.equal(items[1]?.detail, brokenBank.problem);
  });

  it('leads with the reason when generation is unavailable', () => {
    const items = statusPickItems({ kind: 'running', status: unavailable });
    assert.equal(items[0]?.detail, unavailable.message);
    assert.deepEqual(items.at(-1)?.action, { kind: 'showOutput' });
  });

  it('offers a restart when the server is not running', () => {
    for (const state of [{ kind: 'failed', reason: 'no binary' } as const, { kind: 'stopped' } as const]) {
      assert.deepEqual(
        statusPickItems(state).map((item) => item.action.kind),
        ['restart', 'showOutput'],
      );
    }
  });
});

describe('simpleName', () => {
  it('drops the package', () => {
    assert.equal(simpleName('com.example.bank.Account'), 'Account');
    assert.equal(simpleName('Bank$Entry'), 'Bank$Entry');
  });
});
