//! What the language status item and the status picker show, computed from the client's own
//! state and the server's last `ctgls/status`. Pure: no `vscode` import; `languageStatus.ts`
//! renders it.

import type { ClassStatus, Count, StatusParams } from './protocol';

/**
 * The client's view of the server: not started yet, starting, failed to start (no binary, a
 * crash), or running, with the last status the server sent (null until it sends one).
 */
export type ClientState =
  | { kind: 'starting' }
  | { kind: 'failed'; reason: string }
  | { kind: 'stopped' }
  | { kind: 'running'; status: StatusParams | null };

/** `vscode.LanguageStatusSeverity` by name. */
export type StatusSeverity = 'information' | 'warning' | 'error';

export interface StatusView {
  /** The item's text: `ctgls: ready`, `ctgls: Account searching`, `ctgls: not running`. */
  text: string;
  /** One line under the text: the server's message, or why it is not running. */
  detail: string;
  /** Everything: the message, the queue, one line per class (the accessibility label). */
  tooltip: string;
  /** Busy (a spinner) while the server starts or a run is in progress. */
  busy: boolean;
  /** Error: the server is not running; warning: it runs but cannot generate. */
  severity: StatusSeverity;
}

export function statusView(state: ClientState): StatusView {
  switch (state.kind) {
    case 'starting':
      return view('ctgls: starting', 'starting the language server', { busy: true });
    case 'failed':
      return view('ctgls: not running', state.reason, { severity: 'error' });
    case 'stopped':
      return view('ctgls: stopped', 'the language server is stopped; click to restart it', { severity: 'error' });
    case 'running':
      return state.status === null ? view('ctgls: ready', 'the language server is running') : serverStatusView(state.status);
  }
}

function view(text: string, detail: string, options: Partial<Pick<StatusView, 'busy' | 'severity'>> = {}): StatusView {
  return { text, detail, tooltip: `${text}\n${detail}`, busy: options.busy ?? false, severity: options.severity ?? 'information' };
}

function serverStatusView(status: StatusParams): StatusView {
  const lines: string[] = [];
  let text: string;
  let detail: string;
  let busy = false;
  let severity: StatusSeverity = 'information';
  switch (status.state) {
    case 'running': {
      const running = status.running;
      const subject = running ? `${simpleName(running.class)} ${running.phase}` : 'running';
      text = `ctgls: ${subject}`;
      detail = status.message || text;
      busy = true;
      break;
    }
    case 'unavailable':
      text = 'ctgls: unavailable';
      severity = 'warning';
      detail = `Test generation is unavailable: ${status.message || 'no reason given'}`;
      break;
    case 'idle':
    default:
      text = 'ctgls: idle';
      detail = status.message || 'idle';
      break;
  }
  lines.push(detail);
  if (status.queued.length > 0) {
    lines.push(`Queued: ${status.queued.map(simpleName).join(', ')}`);
  }
  for (const cls of status.classes) {
    lines.push(classLine(cls));
  }
  lines.push(`ctgls ${status.version} · click for details`);
  if (status.state !== 'running' && status.classes.length > 0) {
    // The item is small: the classes go after the message in one line.
    detail = [status.message, ...status.classes.map(classLine)].filter((part) => part).join(' · ');
  }
  return { text, detail, tooltip: lines.join('\n'), busy, severity };
}

/** One line per class: `Account: 16/18 branches, 30/31 lines, 7 tests` or its problem. */
export function classLine(cls: ClassStatus): string {
  const name = simpleName(cls.class);
  if (cls.problem) {
    return `${name}: ${cls.problem}`;
  }
  return `${name}: ${classSummary(cls)}`;
}

export function classSummary(cls: ClassStatus): string {
  return `${fraction(cls.branches)} branches, ${fraction(cls.lines)} lines, ${plural(cls.tests, 'test')}`;
}

/** The entries of the status picker, in order; `commands.ts` turns them into a QuickPick. */
export type StatusAction =
  | { kind: 'openClass'; uri: string }
  | { kind: 'cancel' }
  | { kind: 'showOutput' }
  | { kind: 'showCoverage' }
  | { kind: 'restart' };

export interface StatusPickItem {
  label: string;
  description?: string;
  detail?: string;
  action: StatusAction;
}

export function statusPickItems(state: ClientState): StatusPickItem[] {
  const items: StatusPickItem[] = [];
  if (state.kind === 'running' && state.status !== null) {
    const status = state.status;
    if (status.state === 'unavailable') {
      items.push({
        label: '$(circle-slash) Test generation is unavailable',
        detail: status.message,
        action: { kind: 'showOutput' },
      });
    }
    for (const cls of status.classes) {
      items.push({
        label: `$(symbol-class) ${simpleName(cls.class)}`,
        description: cls.problem ? undefined : classSummary(cls),
        detail: cls.problem ?? undefined,
        action: { kind: 'openClass', uri: cls.uri },
      });
    }
    if (status.running !== null || status.queued.length > 0) {
      items.push({ label: '$(stop-circle) Cancel test generation', action: { kind: 'cancel' } });
    }
    if (status.classes.length > 0) {
      items.push({ label: '$(coverage) Show coverage of generated tests', action: { kind: 'showCoverage' } });
    }
  }
  if (state.kind === 'failed' || state.kind === 'stopped') {
    items.push({ label: '$(debug-restart) Restart the ctgls server', action: { kind: 'restart' } });
  }
  items.push({ label: '$(output) Show ctgls output', action: { kind: 'showOutput' } });
  return items;
}

/** `com.example.bank.Account` → `Account`; nested classes keep their outer name (`Bank$Entry`). */
export function simpleName(className: string): string {
  const dot = className.lastIndexOf('.');
  return dot < 0 ? className : className.slice(dot + 1);
}

function fraction(count: Count): string {
  return `${count.covered}/${count.total}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
