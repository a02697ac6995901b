import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { classLine, simpleName, statusPickItems, statusView } from '../src/status';
import { account, accountUri, brokenBank, running, status, unavailable } from './fixtures/status';

describe('statusView', () => {
  it('shows an idle server with its classes in the detail and the tooltip', () => {
    const view = statusView({ kind: 'running', status: status() });
    assert.equal(view.text, 'ctgls: idle');
    assert.equal(view.detail, 'ctgls: idle · Account: 16/18 branches, 30/31 lines, 7 tests');
    assert.equal(view.severity, 'information');
    assert.equal(view.busy, false);
    assert.equal(
      view.tooltip,
      ['ctgls: idle', 'Account: 16/18 branches, 30/31 lines, 7 tests', 'ctgls 0.1.0 · click for details'].join('\n'),
    );
  });

  it('is busy with the running class and its phase, and lists what is queued', () => {
    const view = statusView({ kind: 'running', status: running });
    assert.equal(view.text, 'ctgls: Account searching');
    assert.equal(view.detail, 'Account: searching (5/18 branches)');
    assert.equal(view.busy, true);
    assert.match(view.tooltip, /^Account: searching \(5\/18 branches\)\nQueued: Bank\n/);
    assert.equal(view.severity, 'information');
  });

  it('says why generation is unavailable, as a warning', () => {
    const view = statusView({ kind: 'running', status: unavailable });
    assert.equal(view.text, 'ctgls: unavailable');
    assert.equal(view.severity, 'warning');
    assert.equal(view.busy, false);
    assert.equal(view.detail, 'Test generation is unavailable: no JDK found: set ctgls.javaHome or JAVA_HOME');
  });

  it("shows the client's own states: busy while starting, an error when not running", () => {
    const starting = statusView({ kind: 'starting' });
    assert.deepEqual([starting.text, starting.busy, starting.severity], ['ctgls: starting', true, 'information']);
    const ready = statusView({ kind: 'running', status: null });
    assert.deepEqual([ready.text, ready.busy, ready.severity], ['ctgls: ready', false, 'information']);
    const failed = statusView({ kind: 'failed', reason: 'The ctgls language server was not found' });
    assert.equal(failed.text, 'ctgls: not running');
    assert.equal(failed.severity, 'error');
    assert.equal(failed.detail, 'The ctgls language server was not found');
    assert.equal(statusView({ kind: 'stopped' }).severity, 'error');
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
