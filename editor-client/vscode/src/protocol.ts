//! The shapes of ctgls's LSP extensions as they travel on the wire (docs/lsp-extensions.md).
//! API boundary: this module and the pure modules that read it import neither `vscode` nor
//! `vscode-languageclient` at run time, so they can be unit-tested in plain Node.

/** Server commands run with `workspace/executeCommand`. */
export const ServerCommand = {
  generate: 'ctgls.generate',
  cancel: 'ctgls.cancel',
  status: 'ctgls.status',
  /** Shows `ExplainArgument.message`: the command of a code action that cannot act yet. */
  explain: 'ctgls.explain',
  /** The regression guard: the stored tests of `FileArgument.uri`'s class assert what its
   * edited text does (the command of "Accept the new behaviour"). */
  acceptBehaviour: 'ctgls.acceptBehaviour',
  /** Asks the client to show a test file at a line (`OpenTestArgument`). */
  openTest: 'ctgls.openTest',
  /** Generates class-integration tests of a caller through its calls of a callee
   * (`IntegrationArgument`; the command of "Generate integration tests through R"). */
  generateIntegration: 'ctgls.generateIntegration',
} as const;

/** Custom message methods. */
export const Method = {
  status: 'ctgls/status',
  coverage: 'ctgls/coverage',
  coverageChanged: 'ctgls/coverageChanged',
  /** The configuration in effect, keyed like the `ctgls` section; a debugging request whose
   * shape may change (server/crates/ctgls/src/lsp/ext.rs). */
  debugConfig: 'ctgls/debugConfig',
} as const;

/** The argument of `ctgls.generate` and `ctgls.cancel`; no argument means every file. */
export interface FileArgument {
  uri: string;
}

/** The argument of `ctgls.explain`. */
export interface ExplainArgument {
  message: string;
}

/** The argument of `ctgls.openTest`. */
export interface OpenTestArgument {
  test: string;
  /** 0-based. */
  line: number;
}

/** The argument of `ctgls.generateIntegration`: binary names and files of both classes. */
export interface IntegrationArgument {
  caller: string;
  callee: string;
  callerUri: string;
  calleeUri: string;
}

export interface Count {
  covered: number;
  total: number;
}

export interface WirePosition {
  line: number;
  character: number;
}

export interface WireRange {
  start: WirePosition;
  end: WirePosition;
}

export type ServerState = 'idle' | 'running' | 'unavailable';

export interface RunningClass {
  uri: string;
  class: string;
  phase: string;
  /** Branches covered so far, once the search reports. */
  branches?: Count | null;
  elapsedMs?: number;
}

export interface ClassStatus {
  uri: string;
  class: string;
  branches: Count;
  lines: Count;
  tests: number;
  runs: number;
  /** Where the figures come from: a finished run, the run in progress, the store. */
  origin?: 'run' | 'running' | 'stored' | null;
  /** Why the class cannot be generated for, or null. */
  problem: string | null;
}

/** Where a project's classpath came from. */
export interface ClasspathStatus {
  root: string;
  tool: string;
  state: 'resolved' | 'cached' | 'fallback' | 'failed';
  entries: number;
  siblingSources: number;
  message: string | null;
}

/**
 * Params of `ctgls/status` and result of the `ctgls.status` command. The server always sends
 * every field; the ones marked optional are not read by this client yet.
 */
export interface StatusParams {
  state: ServerState;
  message: string;
  running: RunningClass | null;
  queued: string[];
  classes: ClassStatus[];
  /** What concerns a project rather than a class, once. */
  notes?: string[];
  workspaceFolders?: string[];
  classpaths?: ClasspathStatus[];
  version: string;
}

/** Params of `ctgls/coverage`: one file, or `{}` for every file with results. */
export interface CoverageParams {
  textDocument?: { uri: string };
}

export interface LineCoverage {
  line: number;
  covered: boolean;
}

export interface BranchCoverageEntry {
  line: number;
  range: WireRange;
  /** `true`, `false`, `case <label>`, `default`, `catch` or `entry`. */
  label: string;
  covered: boolean;
  /** The generated test method that covers the branch, or null. */
  test: string | null;
}

export interface MethodCoverage {
  name: string;
  range: WireRange;
  branches: Count;
  tests: number;
}

export interface FileCoverageEntry {
  uri: string;
  class: string;
  /** The document version the positions are for; null for files that are not open. */
  version: number | null;
  lines: LineCoverage[];
  branches: BranchCoverageEntry[];
  methods: MethodCoverage[];
  summary: { lines: Count; branches: Count };
}

export interface CoverageResult {
  files: FileCoverageEntry[];
}

/** Params of `ctgls/coverageChanged`. */
export interface CoverageChangedParams {
  uri: string;
}
