import * as assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { CoverageController, REFRESH_DELAY_MS } from '../src/coverageController';
import type { CoverageParams, CoverageResult } from '../src/protocol';
import { accountCoverage } from './fixtures/coverage';
import { account, accountUri, brokenBank } from './fixtures/status';
import {
  BranchCoverage,
  DeclarationCoverage,
  FileCoverage,
  Position,
  Range,
  StatementCoverage,
  TestRunRequest,
  control,
  type FakeTestController,
} from './support/vscode-stub';

interface Harness {
  coverage: CoverageController;
  controller: FakeTestController;
  asked: CoverageParams[];
}

function harness(answer: (params: CoverageParams) => CoverageResult = () => accountCoverage, autoRefresh = true): Harness {
  const asked: CoverageParams[] = [];
  const coverage = new CoverageController(
    {
      requestCoverage: (params) => {
        asked.push(params);
        return Promise.resolve(answer(params));
      },
    },
    () => autoRefresh,
  );
  const controller = control.testControllers.at(-1);
  assert.ok(controller);
  return { coverage, controller, asked };
}

const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };

describe('CoverageController', () => {
  beforeEach(() => control.reset());

  it('registers a ctgls controller with a default coverage profile', () => {
    const { controller } = harness();
    assert.equal(controller.id, 'ctgls');
    assert.equal(controller.label, 'ctgls generated tests');
    assert.equal(controller.profiles.length, 1);
    assert.equal(controller.profiles[0]?.kind, 3 /* TestRunProfileKind.Coverage */);
    assert.equal(controller.profiles[0]?.isDefault, true);
    assert.ok(controller.profiles[0]?.loadDetailedCoverage);
  });

  it('adds one FileCoverage per file with the counts of the result', async () => {
    const { coverage, controller, asked } = harness();
    await coverage.run(new TestRunRequest() as never, token);
    assert.deepEqual(asked, [{}]);
    const run = controller.runs[0];
    assert.ok(run?.ended);
    assert.equal(run.coverage.length, 1);
    const file = run.coverage[0];
    assert.ok(file instanceof FileCoverage);
    assert.equal(file.uri.toString(), accountUri);
    assert.deepEqual(
      [file.statementCoverage, file.branchCoverage, file.declarationCoverage].map((c) => c && [c.covered, c.total]),
      [
        [30, 31],
        [16, 18],
        [2, 3],
      ],
    );
  });

  it('loads statement, branch and declaration details for a file it added', async () => {
    const { coverage, controller } = harness();
    await coverage.run(new TestRunRequest() as never, token);
    const run = controller.runs[0]!;
    const details = await controller.profiles[0]!.loadDetailedCoverage!(run, run.coverage[0]!, token);
    const statements = details.filter((d): d is StatementCoverage => d instanceof StatementCoverage);
    const declarations = details.filter((d): d is DeclarationCoverage => d instanceof DeclarationCoverage);
    assert.equal(statements.length, 5);
    assert.equal(declarations.length, 3);

    const line14 = statements[1]!;
    assert.equal(line14.executed, true);
    assert.deepEqual(line14.location, new Position(14, 0));
    assert.deepEqual(
      line14.branches.map((b) => [b.executed, b.label]),
      [
        [true, 'true branch (covered by withdrawRejectsOverdraft)'],
        [false, 'false branch'],
      ],
    );
    assert.ok(line14.branches[0] instanceof BranchCoverage);
    assert.deepEqual(line14.branches[0].location, new Range(14, 8, 14, 20));

    const withdraw = declarations[0]!;
    assert.equal(withdraw.name, 'withdraw(long)');
    assert.equal(withdraw.executed, true);
    assert.deepEqual(withdraw.location, new Range(11, 2, 11, 17));

    // A FileCoverage it did not add has no details.
    assert.deepEqual(
      await controller.profiles[0]!.loadDetailedCoverage!(run, new FileCoverage(run.coverage[0]!.uri, {} as never), token),
      [],
    );
  });

  it('asks for the included classes one by one and leaves out the excluded ones', async () => {
    const { coverage, controller, asked } = harness();
    coverage.updateClasses([account, brokenBank]);
    const accountItem = controller.items.get(accountUri)!;
    const bankItem = controller.items.get(brokenBank.uri)!;
    await coverage.run(new TestRunRequest([accountItem, bankItem], [accountItem]) as never, token);
    assert.deepEqual(asked, [{ textDocument: { uri: accountUri } }, { textDocument: { uri: brokenBank.uri } }]);
    // Both answers are the Account fixture; Account is excluded.
    assert.equal(controller.runs[0]?.coverage.length, 0);
  });

  it('makes one test item per class, with its problem as the error', () => {
    const { coverage, controller } = harness();
    coverage.updateClasses([account, brokenBank]);
    assert.equal(controller.itemMap.size, 2);
    const item = controller.items.get(accountUri);
    assert.equal(item?.label, 'Account');
    assert.equal(item?.description, '7 generated tests');
    assert.equal(item?.uri?.toString(), accountUri);
    assert.equal(controller.items.get(brokenBank.uri)?.error, brokenBank.problem);
    coverage.updateClasses([]);
    assert.equal(controller.itemMap.size, 0);
  });

  it('ends the run and says why when the server cannot answer', async () => {
    const { coverage, controller } = harness(() => {
      throw new Error('ctgls is not running: the server is stopped');
    });
    await coverage.run(new TestRunRequest() as never, token);
    const run = controller.runs[0]!;
    assert.ok(run.ended);
    assert.deepEqual(run.output, ['ctgls: no coverage: ctgls is not running: the server is stopped\r\n']);
  });

  it('shows coverage again after coverageChanged, once it has been shown, in one run per burst', async () => {
    const { coverage, controller } = harness();
    coverage.onCoverageChanged(accountUri);
    await delay(REFRESH_DELAY_MS + 100);
    assert.equal(controller.runs.length, 0, 'no refresh before the user asked for coverage');

    await coverage.showAll();
    assert.equal(controller.runs.length, 1);
    coverage.onCoverageChanged(accountUri);
    coverage.onCoverageChanged(brokenBank.uri);
    await delay(REFRESH_DELAY_MS + 100);
    assert.equal(controller.runs.length, 2);
    assert.equal(controller.runs[1]?.coverage.length, 1);
    coverage.dispose();
    assert.ok(controller.disposed);
  });

  it('shows coverage again after an edit of a shown file, for the new version, once typing pauses', async () => {
    const { coverage, controller } = harness();
    await coverage.showAll();
    assert.equal(controller.runs.length, 1);
    coverage.onDocumentChanged(accountUri, 7);
    coverage.onDocumentChanged(brokenBank.uri, 8);
    await delay(REFRESH_DELAY_MS + 100);
    assert.equal(controller.runs.length, 1, 'the version shown and a file not shown: nothing to redo');

    coverage.onDocumentChanged(accountUri, 8);
    coverage.onDocumentChanged(accountUri, 9);
    await delay(REFRESH_DELAY_MS + 100);
    assert.equal(controller.runs.length, 2, 'one refresh for a burst of edits');
    coverage.dispose();
  });

  it('does not refresh when ctgls.coverage.autoRefresh is off', async () => {
    const { coverage, controller } = harness(() => accountCoverage, false);
    await coverage.showAll();
    coverage.onCoverageChanged(accountUri);
    await delay(REFRESH_DELAY_MS + 100);
    assert.equal(controller.runs.length, 1);
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
