//! A stand-in for the `vscode` module in unit tests (`register-vscode-stub.ts` makes `require('vscode')`
//! load it). It implements what the extension uses, records what the extension does through it
//! (`control`), and answers anything else `vscode-languageclient` touches while loading with inert
//! placeholders, so the real client library can be constructed.

import { URL, fileURLToPath, pathToFileURL } from 'node:url';

type Listener<T> = (event: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];

  readonly event = (listener: Listener<T>, thisArg?: unknown, disposables?: { dispose(): void }[]) => {
    const bound: Listener<T> = thisArg === undefined ? listener : listener.bind(thisArg);
    this.listeners.push(bound);
    const disposable = { dispose: () => (this.listeners = this.listeners.filter((l) => l !== bound)) };
    disposables?.push(disposable);
    return disposable;
  };

  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      listener(event);
    }
  }

  dispose(): void {
    this.listeners = [];
  }
}

export class Disposable {
  constructor(private readonly callOnDispose: () => unknown) {}

  static from(...disposables: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => disposables.forEach((d) => d.dispose()));
  }

  dispose(): void {
    this.callOnDispose();
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };

  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    private readonly text: string,
  ) {}

  static parse(text: string): Uri {
    const url = new URL(text);
    return new Uri(url.protocol.replace(/:$/, ''), url.host, decodeURIComponent(url.pathname), text);
  }

  static file(path: string): Uri {
    return Uri.parse(pathToFileURL(path).href);
  }

  get fsPath(): string {
    return this.scheme === 'file' ? fileURLToPath(this.text) : this.path;
  }

  toString(): string {
    return this.text;
  }

  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path, external: this.text };
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;

  constructor(startLine: number | Position, startCharacter: number | Position, endLine?: number, endCharacter?: number) {
    if (startLine instanceof Position && startCharacter instanceof Position) {
      this.start = startLine;
      this.end = startCharacter;
    } else {
      this.start = new Position(startLine as number, startCharacter as number);
      this.end = new Position(endLine ?? 0, endCharacter ?? 0);
    }
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class MarkdownString {
  constructor(public value = '') {}
}

export const TestRunProfileKind = { Run: 1, Debug: 2, Coverage: 3 } as const;

export class TestCoverageCount {
  constructor(
    public covered: number,
    public total: number,
  ) {}
}

export class FileCoverage {
  constructor(
    readonly uri: Uri,
    public statementCoverage: TestCoverageCount,
    public branchCoverage?: TestCoverageCount,
    public declarationCoverage?: TestCoverageCount,
  ) {}
}

export class BranchCoverage {
  constructor(
    public executed: number | boolean,
    public location?: Position | Range,
    public label?: string,
  ) {}
}

export class StatementCoverage {
  constructor(
    public executed: number | boolean,
    public location: Position | Range,
    public branches: BranchCoverage[] = [],
  ) {}
}

export class DeclarationCoverage {
  constructor(
    public name: string,
    public executed: number | boolean,
    public location: Position | Range,
  ) {}
}

export interface FakeTestItem {
  id: string;
  label: string;
  uri: Uri | undefined;
  description?: string;
  error?: string;
}

export class TestRunRequest {
  constructor(
    readonly include?: readonly FakeTestItem[],
    readonly exclude?: readonly FakeTestItem[],
    readonly profile?: unknown,
  ) {}
}

export class FakeTestRun {
  readonly coverage: FileCoverage[] = [];
  readonly output: string[] = [];
  ended = false;

  constructor(
    readonly request: TestRunRequest,
    readonly name: string | undefined,
  ) {}

  addCoverage(coverage: FileCoverage): void {
    this.coverage.push(coverage);
  }

  appendOutput(text: string): void {
    this.output.push(text);
  }

  end(): void {
    this.ended = true;
  }
}

export interface FakeRunProfile {
  label: string;
  kind: number;
  isDefault: boolean;
  runHandler: (request: TestRunRequest, token: unknown) => unknown;
  loadDetailedCoverage?: (run: FakeTestRun, coverage: FileCoverage, token: unknown) => Thenable<unknown[]>;
}

export class FakeTestController {
  readonly profiles: FakeRunProfile[] = [];
  readonly runs: FakeTestRun[] = [];
  readonly itemMap = new Map<string, FakeTestItem>();
  disposed = false;
  readonly items = {
    replace: (items: readonly FakeTestItem[]) => {
      this.itemMap.clear();
      items.forEach((item) => this.itemMap.set(item.id, item));
    },
    get: (id: string) => this.itemMap.get(id),
    get size() {
      return 0;
    },
  };

  constructor(
    readonly id: string,
    readonly label: string,
  ) {
    const map = this.itemMap;
    Object.defineProperty(this.items, 'size', { get: () => map.size });
  }

  createRunProfile(
    label: string,
    kind: number,
    runHandler: FakeRunProfile['runHandler'],
    isDefault = false,
  ): FakeRunProfile {
    const profile: FakeRunProfile = { label, kind, runHandler, isDefault };
    this.profiles.push(profile);
    return profile;
  }

  createTestRun(request: TestRunRequest, name?: string): FakeTestRun {
    const run = new FakeTestRun(request, name);
    this.runs.push(run);
    return run;
  }

  createTestItem(id: string, label: string, uri?: Uri): FakeTestItem {
    return { id, label, uri };
  }

  dispose(): void {
    this.disposed = true;
  }
}

export const LanguageStatusSeverity = { Information: 0, Warning: 1, Error: 2 } as const;

export class FakeLanguageStatusItem {
  name: string | undefined;
  text = '';
  detail: string | undefined;
  busy = false;
  severity: number = LanguageStatusSeverity.Information;
  command: { title: string; command: string; tooltip?: string } | undefined;
  accessibilityInformation: { label: string } | undefined;
  disposed = false;

  constructor(
    readonly id: string,
    readonly selector: unknown,
  ) {}

  dispose(): void {
    this.disposed = true;
  }
}

export class FakeOutputChannel {
  readonly lines: string[] = [];
  shown = 0;

  constructor(readonly name: string) {}

  append(text: string): void {
    this.lines.push(text);
  }

  appendLine(line: string): void {
    this.lines.push(line);
  }

  show(): void {
    this.shown++;
  }

  clear(): void {
    this.lines.length = 0;
  }

  hide(): void {}

  dispose(): void {}
}

export interface FakeTextEditor {
  document: { uri: Uri; languageId: string };
}

interface QuickPickItemLike {
  label: string;
}

/** What the tests set and read. */
class StubControl {
  trusted = true;
  /** Settings by full key, e.g. `ctgls.budgetSeconds`. */
  config: Record<string, unknown> = {};
  messages: { level: 'error' | 'warning' | 'information'; message: string; items: string[] }[] = [];
  /** The answer the next `show*Message` gives. */
  messageAnswer: string | undefined;
  commands = new Map<string, (...args: unknown[]) => unknown>();
  executedCommands: { command: string; args: unknown[] }[] = [];
  languageStatusItems: FakeLanguageStatusItem[] = [];
  outputChannels: FakeOutputChannel[] = [];
  testControllers: FakeTestController[] = [];
  shownDocuments: Uri[] = [];
  activeTextEditor: FakeTextEditor | undefined;
  /** Picks from the items `showQuickPick` is given; undefined dismisses the picker. */
  quickPick: (items: QuickPickItemLike[]) => QuickPickItemLike | undefined = () => undefined;
  quickPicks: QuickPickItemLike[][] = [];
  readonly onDidGrantWorkspaceTrust = new EventEmitter<void>();
  readonly onDidChangeConfiguration = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

  grantTrust(): void {
    this.trusted = true;
    this.onDidGrantWorkspaceTrust.fire();
  }

  changeConfiguration(key: string, value: unknown): void {
    this.config[key] = value;
    this.onDidChangeConfiguration.fire({
      affectsConfiguration: (section: string) => key === section || key.startsWith(`${section}.`),
    });
  }

  reset(): void {
    Object.assign(this, new StubControl());
  }
}

export const control = new StubControl();

function showMessage(level: 'error' | 'warning' | 'information') {
  return (message: string, ...items: unknown[]): Promise<string | undefined> => {
    const labels = items.filter((item): item is string => typeof item === 'string');
    control.messages.push({ level, message, items: labels });
    const answer = control.messageAnswer;
    control.messageAnswer = undefined;
    return Promise.resolve(answer !== undefined && labels.includes(answer) ? answer : undefined);
  };
}

export const window = {
  get activeTextEditor() {
    return control.activeTextEditor;
  },
  createOutputChannel(name: string): FakeOutputChannel {
    const channel = new FakeOutputChannel(name);
    control.outputChannels.push(channel);
    return channel;
  },
  showErrorMessage: showMessage('error'),
  showWarningMessage: showMessage('warning'),
  showInformationMessage: showMessage('information'),
  showQuickPick(items: QuickPickItemLike[]): Promise<QuickPickItemLike | undefined> {
    control.quickPicks.push(items);
    return Promise.resolve(control.quickPick(items));
  },
  showTextDocument(uri: Uri): Promise<void> {
    control.shownDocuments.push(uri);
    return Promise.resolve();
  },
};

export const workspace = {
  get isTrusted() {
    return control.trusted;
  },
  workspaceFolders: undefined,
  textDocuments: [],
  onDidGrantWorkspaceTrust: (listener: Listener<void>) => control.onDidGrantWorkspaceTrust.event(listener),
  onDidChangeConfiguration: (listener: Listener<{ affectsConfiguration(section: string): boolean }>) =>
    control.onDidChangeConfiguration.event(listener),
  onDidChangeTextDocument: (listener: Listener<unknown>) => ({ dispose: () => void listener }),
  getConfiguration(section?: string) {
    const prefix = section ? `${section}.` : '';
    return {
      get<T>(key: string, defaultValue?: T): T | undefined {
        const value = control.config[prefix + key];
        return value === undefined ? defaultValue : (value as T);
      },
      has: (key: string) => prefix + key in control.config,
    };
  },
};

export const commands = {
  registerCommand(command: string, handler: (...args: unknown[]) => unknown): Disposable {
    if (control.commands.has(command)) {
      throw new Error(`command '${command}' already exists`);
    }
    control.commands.set(command, handler);
    return new Disposable(() => control.commands.delete(command));
  },
  executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    control.executedCommands.push({ command, args });
    const handler = control.commands.get(command);
    return Promise.resolve(handler?.(...args));
  },
};

export const languages = {
  createLanguageStatusItem(id: string, selector: unknown): FakeLanguageStatusItem {
    const item = new FakeLanguageStatusItem(id, selector);
    control.languageStatusItems.push(item);
    return item;
  },
};

export const tests = {
  createTestController(id: string, label: string): FakeTestController {
    const controller = new FakeTestController(id, label);
    control.testControllers.push(controller);
    return controller;
  },
};

const implemented: Record<string | symbol, unknown> = {
  version: '1.88.0',
  EventEmitter,
  Disposable,
  CancellationTokenSource,
  Uri,
  Position,
  Range,
  ThemeColor,
  MarkdownString,
  LanguageStatusSeverity,
  TestRunProfileKind,
  TestCoverageCount,
  FileCoverage,
  BranchCoverage,
  StatementCoverage,
  DeclarationCoverage,
  TestRunRequest,
  window,
  workspace,
  commands,
  languages,
  tests,
  // Not part of the API: what the tests use to drive and inspect it.
  control,
  FakeOutputChannel,
  FakeLanguageStatusItem,
  FakeTestController,
  FakeTestRun,
};

/** A value for anything not implemented: callable, constructible, and every property is one too. */
function placeholder(): unknown {
  const target = function () {
    return undefined;
  };
  return new Proxy(target, {
    get: (_target, property) => (property === 'then' ? undefined : placeholder()),
    apply: () => new Disposable(() => undefined),
    construct: () => ({}),
  });
}

/** `target` with a placeholder (a class for capitalised names) for every missing property. */
function withPlaceholders<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      if (property in object) {
        return (object as Record<string | symbol, unknown>)[property];
      }
      if (typeof property !== 'string' || property === '__esModule' || property === 'then') {
        return undefined;
      }
      const value = /^[A-Z]/.test(property) ? class {} : placeholder();
      (object as Record<string, unknown>)[property] = value;
      return value;
    },
  });
}

for (const namespace of ['window', 'workspace', 'commands', 'languages', 'tests']) {
  implemented[namespace] = withPlaceholders(implemented[namespace] as object);
}

/** The module: what is implemented, and placeholders for the rest. */
export const vscodeModule = withPlaceholders(implemented);

// Loaded as `vscode`, this module must be the API object itself.
module.exports = vscodeModule;
