//! `ctgls/coverage` results → plain per-file coverage (counts and details) shaped like VS Code's
//! Test Coverage API. Pure: no `vscode` import; `coverageController.ts` builds the vscode classes.

import type { BranchCoverageEntry, Count, CoverageResult, FileCoverageEntry, WirePosition, WireRange } from './protocol';

export interface BranchDetail {
  executed: boolean;
  range: WireRange;
  /** Shown by VS Code next to the branch, e.g. `true branch (covered by withdrawRejectsOverdraft)`. */
  label: string;
}

/** A covered or uncovered line; VS Code marks the whole line for a position at its start. */
export interface StatementDetail {
  kind: 'statement';
  executed: boolean;
  position: WirePosition;
  branches: BranchDetail[];
}

export interface DeclarationDetail {
  kind: 'declaration';
  name: string;
  executed: boolean;
  range: WireRange;
}

export type CoverageDetail = StatementDetail | DeclarationDetail;

export interface FileCoverageModel {
  uri: string;
  className: string;
  /** The document version the positions are for; null for files that are not open. */
  version: number | null;
  statements: Count;
  /** Absent when the file has no branches, so VS Code shows no branch column for it. */
  branches?: Count;
  /** Absent when the file has no methods. */
  declarations?: Count;
  /** Statements by line, then declarations by position. */
  details: CoverageDetail[];
}

/** Converts a whole `ctgls/coverage` result; anything that is not a file entry is skipped. */
export function toFileCoverage(result: CoverageResult | null | undefined): FileCoverageModel[] {
  if (!result || !Array.isArray(result.files)) {
    return [];
  }
  return result.files.filter(isFileEntry).map(fileCoverage);
}

export function fileCoverage(file: FileCoverageEntry): FileCoverageModel {
  const lines = file.lines ?? [];
  const branches = file.branches ?? [];
  const methods = file.methods ?? [];

  const branchesByLine = new Map<number, BranchCoverageEntry[]>();
  for (const branch of branches) {
    const onLine = branchesByLine.get(branch.line) ?? [];
    onLine.push(branch);
    branchesByLine.set(branch.line, onLine);
  }

  const executedByLine = new Map<number, boolean>();
  for (const line of lines) {
    // The same line reported twice counts as covered when either says so.
    executedByLine.set(line.line, (executedByLine.get(line.line) ?? false) || line.covered);
  }
  // A branch on a line the server did not list still needs a statement to hang from.
  for (const [line, onLine] of branchesByLine) {
    if (!executedByLine.has(line)) {
      executedByLine.set(line, onLine.some((branch) => branch.covered));
    }
  }

  const statements: StatementDetail[] = [...executedByLine.entries()]
    .sort(([a], [b]) => a - b)
    .map(([line, executed]) => ({
      kind: 'statement',
      executed,
      position: { line, character: 0 },
      branches: (branchesByLine.get(line) ?? []).map(branchDetail),
    }));

  const coveredLines = new Set(lines.filter((line) => line.covered).map((line) => line.line));
  const declarations: DeclarationDetail[] = methods
    .map((method) => ({
      kind: 'declaration' as const,
      name: method.name,
      executed:
        method.tests > 0 ||
        (method.branches?.covered ?? 0) > 0 ||
        [...coveredLines].some((line) => line >= method.range.start.line && line <= method.range.end.line),
      range: method.range,
    }))
    .sort((a, b) => comparePositions(a.range.start, b.range.start));

  const model: FileCoverageModel = {
    uri: file.uri,
    className: file.class,
    version: file.version ?? null,
    statements: file.summary?.lines ?? countOf(statements),
    details: [...statements, ...declarations],
  };
  const branchCount = file.summary?.branches ?? countOf(branches);
  if (branchCount.total > 0) {
    model.branches = branchCount;
  }
  if (declarations.length > 0) {
    model.declarations = countOf(declarations);
  }
  return model;
}

/** `true` → `true branch`, `case 3` stays, and the covering test is named when there is one. */
export function branchLabel(branch: Pick<BranchCoverageEntry, 'label' | 'test'>): string {
  const outcome = branch.label === 'true' || branch.label === 'false' ? `${branch.label} branch` : branch.label;
  return branch.test ? `${outcome} (covered by ${branch.test})` : outcome;
}

function branchDetail(branch: BranchCoverageEntry): BranchDetail {
  return { executed: branch.covered, range: branch.range, label: branchLabel(branch) };
}

function countOf(items: readonly { executed?: boolean; covered?: boolean }[]): Count {
  return {
    covered: items.filter((item) => item.executed === true || item.covered === true).length,
    total: items.length,
  };
}

function comparePositions(a: WirePosition, b: WirePosition): number {
  return a.line - b.line || a.character - b.character;
}

function isFileEntry(value: unknown): value is FileCoverageEntry {
  return typeof value === 'object' && value !== null && typeof (value as { uri?: unknown }).uri === 'string';
}
