//! The language status item: what VS Code is given for each state of the client.

import * as assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { DOCUMENT_SELECTOR } from '../src/clientOptions';
import { LANGUAGE_STATUS_ID, LanguageStatus, SHOW_STATUS_COMMAND } from '../src/languageStatus';
import { running, unavailable } from './fixtures/status';
import { LanguageStatusSeverity, control } from './support/vscode-stub';

describe('LanguageStatus', () => {
  beforeEach(() => control.reset());

  it('is one language status item for Java files, busy while the server starts', () => {
    const status = new LanguageStatus();
    assert.equal(control.languageStatusItems.length, 1);
    const item = control.languageStatusItems[0]!;
    assert.equal(item.id, LANGUAGE_STATUS_ID);
    assert.deepEqual(item.selector, DOCUMENT_SELECTOR);
    assert.equal(item.name, 'ctgls');
    assert.equal(item.text, 'ctgls: starting');
    assert.equal(item.busy, true);
    assert.equal(item.command?.command, SHOW_STATUS_COMMAND);
    status.dispose();
    assert.equal(item.disposed, true);
  });

  it('goes busy during a run, ready after it, and flags unavailable and failed states', () => {
    const status = new LanguageStatus();
    const item = control.languageStatusItems[0]!;

    status.update({ kind: 'running', status: running });
    assert.deepEqual([item.text, item.busy, item.severity], ['ctgls: Account searching', true, LanguageStatusSeverity.Information]);
    assert.match(item.accessibilityInformation?.label ?? '', /Queued: Bank/);

    status.update({ kind: 'running', status: { ...running, state: 'idle', running: null, queued: [] } });
    assert.deepEqual([item.text, item.busy], ['ctgls: idle', false]);

    status.update({ kind: 'running', status: unavailable });
    assert.deepEqual([item.text, item.severity], ['ctgls: unavailable', LanguageStatusSeverity.Warning]);
    assert.match(item.detail ?? '', /no JDK found/);

    status.update({ kind: 'failed', reason: 'no ctgls binary' });
    assert.deepEqual([item.text, item.busy, item.severity], ['ctgls: not running', false, LanguageStatusSeverity.Error]);
    assert.equal(item.detail, 'no ctgls binary');
    assert.equal(item.command?.title, 'Restart');
    assert.equal(item.command?.command, SHOW_STATUS_COMMAND);
  });
});
