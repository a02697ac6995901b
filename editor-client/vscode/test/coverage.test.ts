import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { branchLabel, toFileCoverage, type StatementDetail } from '../src/coverage';
import type { FileCoverageEntry } from '../src/protocol';
import { accountCoverage, range } from './fixtures/coverage';
import { accountUri } from './fixtures/status';

describe('toFileCoverage', () => {
  const [account] = toFileCoverage(accountCoverage);

  it('takes the counts from the summary and counts the methods', () => {
    assert.ok(account);
    assert.equal(account.uri, accountUri);
    assert.equal(account.className, 'com.example.bank.Account');
    assert.equal(account.version, 7);
    assert.deepEqual(account.statements, { covered: 30, total: 31 });
    assert.deepEqual(account.branches, { covered: 16, total: 18 });
    assert.deepEqual(account.declarations, { covered: 2, total: 3 });
  });

  it('makes one statement per line, in line order, with the branches of that line', () => {
    const statements = account?.details.filter((d): d is StatementDetail => d.kind === 'statement') ?? [];
    assert.deepEqual(
      statements.map((s) => [s.position.line, s.executed, s.branches.map((b) => [b.label, b.executed])]),
      [
        [12, true, []],
        [14, true, [['true branch (covered by withdrawRejectsOverdraft)', true], ['false branch', false]]],
        [15, false, []],
        [21, true, [['case 3', false], ['default (covered by interestOfDefaultRate)', true]]],
        [30, false, [['catch', false]]],
      ],
    );
    assert.deepEqual(statements[1]?.branches[0]?.range, range(14, 8, 20));
    assert.deepEqual(statements[0]?.position, { line: 12, character: 0 });
  });

  it('makes one declaration per method, in source order, executed when a test reaches it', () => {
    const declarations = account?.details.filter((d) => d.kind === 'declaration') ?? [];
    assert.deepEqual(
      declarations.map((d) => [d.name, d.executed, d.range.start.line]),
      [
        ['withdraw(long)', true, 11],
        ['interest(int)', true, 19],
        ['close()', false, 28],
      ],
    );
  });

  it('computes counts a file leaves out and omits empty branch and method counts', () => {
    const file: FileCoverageEntry = {
      uri: 'file:///p/Plain.java',
      class: 'Plain',
      version: null,
      lines: [
        { line: 3, covered: true },
        { line: 4, covered: false },
        { line: 3, covered: false },
      ],
      branches: [],
      methods: [],
      summary: undefined as unknown as FileCoverageEntry['summary'],
    };
    const [plain] = toFileCoverage({ files: [file] });
    assert.deepEqual(plain?.statements, { covered: 1, total: 2 });
    assert.equal(plain?.branches, undefined);
    assert.equal(plain?.declarations, undefined);
    assert.equal(plain?.version, null);
    // A line reported twice is covered when either report says so.
    assert.deepEqual(
      plain?.details.map((d) => d.kind === 'statement' && [d.position.line, d.executed]),
      [
        [3, true],
        [4, false],
      ],
    );
  });

  it('counts a method as executed when one of its lines is covered, even without branches', () => {
    const file: FileCoverageEntry = {
      ...accountCoverage.files[0]!,
      lines: [{ line: 5, covered: true }],
      branches: [],
      methods: [
        {
          name: 'getBalance()',
          range: { start: { line: 4, character: 2 }, end: { line: 6, character: 3 } },
          branches: { covered: 0, total: 0 },
          tests: 0,
        },
      ],
    };
    const [model] = toFileCoverage({ files: [file] });
    assert.deepEqual(model?.declarations, { covered: 1, total: 1 });
  });

  it('gives nothing for an empty or malformed result', () => {
    assert.deepEqual(toFileCoverage(null), []);
    assert.deepEqual(toFileCoverage(undefined), []);
    assert.deepEqual(toFileCoverage({ files: [] }), []);
    assert.deepEqual(toFileCoverage({} as never), []);
    assert.deepEqual(toFileCoverage({ files: [null, 3, { class: 'NoUri' }] } as never), []);
  });
});

describe('branchLabel', () => {
  it('names each kind of outcome', () => {
    assert.equal(branchLabel({ label: 'true', test: null }), 'true branch');
    assert.equal(branchLabel({ label: 'false', test: 'depositRejectsNegative' }), 'false branch (covered by depositRejectsNegative)');
    assert.equal(branchLabel({ label: 'case "EUR"', test: null }), 'case "EUR"');
    assert.equal(branchLabel({ label: 'entry', test: null }), 'entry');
  });
});

describe('the coverage module', () => {
  it('does not load vscode or the language client', () => {
    const loaded = Object.keys(require.cache);
    assert.ok(loaded.some((file) => file.endsWith('/src/coverage.js')));
    assert.deepEqual(
      loaded.filter((file) => /\/vscode-stub\.js$|vscode-languageclient/.test(file)),
      [],
    );
  });
});
