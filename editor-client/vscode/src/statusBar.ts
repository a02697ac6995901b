//! The status bar item: renders `statusView` and opens the status picker when clicked.

import * as vscode from 'vscode';

import { statusView, type ClientState } from './status';

export const SHOW_STATUS_COMMAND = 'ctgls.showStatus';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('ctgls.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'ctgls';
    this.item.command = SHOW_STATUS_COMMAND;
  }

  update(state: ClientState): void {
    const view = statusView(state);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
