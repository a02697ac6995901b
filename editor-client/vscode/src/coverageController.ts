//! Coverage of the generated tests in VS Code's Test Coverage view (API 1.88+): a test controller
//! with one item per class that has results and a coverage run profile. Running it asks the
//! server for `ctgls/coverage`; `coverage.ts` does the conversion, this module only builds the
//! vscode objects.

import * as vscode from 'vscode';

import { toFileCoverage, type CoverageDetail } from './coverage';
import type { ClassStatus, Count, CoverageParams, CoverageResult, WireRange } from './protocol';
import { simpleName } from './status';

export const CONTROLLER_ID = 'ctgls';

export interface CoverageSource {
  requestCoverage(params: CoverageParams): Promise<CoverageResult>;
}

/** How long to wait after a `ctgls/coverageChanged` for the next one before showing coverage again. */
export const REFRESH_DELAY_MS = 500;

export class CoverageController implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly profile: vscode.TestRunProfile;
  /** The details of each `FileCoverage` added, for `loadDetailedCoverage`. */
  private readonly details = new WeakMap<vscode.FileCoverage, CoverageDetail[]>();
  /** Coverage is shown again by itself only once the user has asked for it. */
  private shown = false;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** The document version each shown file's coverage is for (null: the file was not open). */
  private readonly shownVersions = new Map<string, number | null>();

  constructor(
    private readonly source: CoverageSource,
    private readonly autoRefresh: () => boolean,
  ) {
    this.controller = vscode.tests.createTestController(CONTROLLER_ID, 'ctgls generated tests');
    this.profile = this.controller.createRunProfile(
      'Coverage of generated tests',
      vscode.TestRunProfileKind.Coverage,
      (request, token) => this.run(request, token),
      true,
    );
    this.profile.loadDetailedCoverage = (_run, fileCoverage) =>
      Promise.resolve((this.details.get(fileCoverage) ?? []).map(toVscodeDetail));
  }

  /** One test item per class with results, from the server's status. */
  updateClasses(classes: readonly ClassStatus[]): void {
    this.controller.items.replace(
      classes.map((cls) => {
        const item = this.controller.createTestItem(cls.uri, simpleName(cls.class), vscode.Uri.parse(cls.uri));
        item.description = `${cls.tests} generated test${cls.tests === 1 ? '' : 's'}`;
        if (cls.problem) {
          item.error = cls.problem;
        }
        return item;
      }),
    );
  }

  /** Shows the coverage of every file with results (the `ctgls.showCoverage` command). */
  showAll(): Promise<void> {
    return this.run(new vscode.TestRunRequest(undefined, undefined, this.profile), noCancellation);
  }

  onCoverageChanged(_uri: string): void {
    this.scheduleRefresh();
  }

  /**
   * An edit moves the lines of a file whose coverage is shown, though the server's results may
   * not change (then it sends no `ctgls/coverageChanged`): the marks would drift. Coverage is
   * asked again for the new text once the typing pauses; the server computes it against the
   * version it has.
   */
  onDocumentChanged(uri: string, version: number): void {
    const shown = this.shownVersions.get(sameUri(uri));
    if (shown === undefined || shown === version) {
      return;
    }
    this.scheduleRefresh();
  }

  private scheduleRefresh(): void {
    if (!this.shown || !this.autoRefresh()) {
      return;
    }
    // A run ending changes several files at once, and typing sends a change per key: wait for
    // the burst to end.
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.showAll();
    }, REFRESH_DELAY_MS);
  }

  async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    this.shown = true;
    const run = this.controller.createTestRun(request, 'ctgls coverage', false);
    try {
      const excluded = new Set((request.exclude ?? []).map((item) => item.id));
      // Item ids are the server's URIs, spelled as the server spells them.
      const included = request.include?.map((item) => item.id);
      const results = included
        ? await Promise.all(included.map((uri) => this.source.requestCoverage({ textDocument: { uri } })))
        : [await this.source.requestCoverage({})];
      for (const file of results.flatMap(toFileCoverage)) {
        if (token.isCancellationRequested) {
          break;
        }
        if (excluded.has(file.uri)) {
          continue;
        }
        const fileCoverage = new vscode.FileCoverage(
          vscode.Uri.parse(file.uri),
          toCount(file.statements),
          file.branches && toCount(file.branches),
          file.declarations && toCount(file.declarations),
        );
        this.details.set(fileCoverage, file.details);
        this.shownVersions.set(sameUri(file.uri), file.version);
        run.addCoverage(fileCoverage);
      }
    } catch (error) {
      run.appendOutput(`ctgls: no coverage: ${error instanceof Error ? error.message : String(error)}\r\n`);
    } finally {
      run.end();
    }
  }

  dispose(): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    this.controller.dispose();
  }
}

export function toVscodeDetail(detail: CoverageDetail): vscode.FileCoverageDetail {
  if (detail.kind === 'declaration') {
    return new vscode.DeclarationCoverage(detail.name, detail.executed, toRange(detail.range));
  }
  return new vscode.StatementCoverage(
    detail.executed,
    new vscode.Position(detail.position.line, detail.position.character),
    detail.branches.map((branch) => new vscode.BranchCoverage(branch.executed, toRange(branch.range), branch.label)),
  );
}

function toRange(range: WireRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

/** The server and VS Code may spell a URI differently (`%3A`, drive letters): compare VS Code's spelling. */
function sameUri(uri: string): string {
  return vscode.Uri.parse(uri).toString();
}

function toCount(count: Count): vscode.TestCoverageCount {
  return new vscode.TestCoverageCount(count.covered, count.total);
}

const noCancellation: vscode.CancellationToken = {
  isCancellationRequested: false,
  onCancellationRequested: () => ({ dispose: () => undefined }),
};
