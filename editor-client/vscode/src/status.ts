//! What the status bar and the status picker show, computed from the client's own state and the
//! server's last `ctgls/status`. Pure: no `vscode` import; `statusBar.ts` renders it.

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

export interface StatusView {
  /** Status bar text, with `$(icon)` codicons. */
  text: string;
  /** Plain-text tooltip. */
  tooltip: string;
  /** Whether the item should stand out (warning colours). */
  warning: boolean;
}

export function statusView(state: ClientState): StatusView {
  switch (state.kind) {
    case 'starting':
      return { text: '$(loading~spin) ctgls', tooltip: 'ctgls: starting the language server', warning: false };
    case 'failed':
      return { text: '$(error) ctgls', tooltip: `ctgls is not running: ${state.reason}`, warning: true };
    case 'stopped':
      return { text: '$(debug-stop) ctgls', tooltip: 'ctgls: the language server is stopped', warning: true };
    case 'running':
      return state.status === null
        ? { text: '$(beaker) ctgls', tooltip: 'ctgls: ready', warning: false }
        : serverStatusView(state.status);
  }
}

function serverStatusView(status: StatusParams): StatusView {
  const lines: string[] = [];
  let text: string;
  let warning = false;
  switch (status.state) {
    case 'running': {
      const running = status.running;
      const subject = running ? `${simpleName(running.class)} ${running.phase}` : 'running';
      text = `$(sync~spin) ctgls: ${subject}`;
      lines.push(status.message || `ctgls: ${subject}`);
      break;
    }
    case 'unavailable':
      text = '$(circle-slash) ctgls';
      warning = true;
      lines.push(`Test generation is unavailable: ${status.message || 'no reason given'}`);
      break;
    case 'idle':
    default:
      text = '$(beaker) ctgls';
      lines.push(status.message || 'ctgls: idle');
      break;
  }
  if (status.queued.length > 0) {
    lines.push(`Queued: ${status.queued.map(simpleName).join(', ')}`);
  }
  for (const cls of status.classes) {
    lines.push(classLine(cls));
  }
  lines.push(`ctgls ${status.version} · click for details`);
  return { text, tooltip: lines.join('\n'), warning };
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

/** The entries of the status picker, in order; `statusBar.ts` turns them into a QuickPick. */
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
