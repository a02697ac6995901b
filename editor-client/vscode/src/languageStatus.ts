//! The language status item (the `{}` entry of the status bar when a Java editor is active,
//! VS Code's place for a language server's state): renders `statusView`, with a spinner while the
//! server starts or runs, error severity when it is not running, warning when it cannot generate,
//! and a command that opens the status picker.

import * as vscode from 'vscode';

import { DOCUMENT_SELECTOR } from './clientOptions';
import { statusView, type ClientState, type StatusSeverity } from './status';

export const SHOW_STATUS_COMMAND = 'ctgls.showStatus';
export const LANGUAGE_STATUS_ID = 'ctgls.status';

const SEVERITY: Record<StatusSeverity, vscode.LanguageStatusSeverity> = {
  information: vscode.LanguageStatusSeverity.Information,
  warning: vscode.LanguageStatusSeverity.Warning,
  error: vscode.LanguageStatusSeverity.Error,
};

export class LanguageStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem(LANGUAGE_STATUS_ID, DOCUMENT_SELECTOR);
    this.item.name = 'ctgls';
    this.update({ kind: 'starting' });
  }

  update(state: ClientState): void {
    const view = statusView(state);
    this.item.text = view.text;
    this.item.detail = view.detail;
    this.item.busy = view.busy;
    this.item.severity = SEVERITY[view.severity];
    this.item.accessibilityInformation = { label: view.tooltip };
    this.item.command = {
      title: state.kind === 'failed' || state.kind === 'stopped' ? 'Restart' : 'Details',
      command: SHOW_STATUS_COMMAND,
      tooltip: 'ctgls: classes, coverage, cancel, output',
    };
  }

  dispose(): void {
    this.item.dispose();
  }
}
