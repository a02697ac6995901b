//! The `ctgls.*` commands the extension contributes. Their ids differ from the server's
//! (`ctgls.generate`, `ctgls.cancel`, `ctgls.status`), which the language client registers by
//! itself from the server's `executeCommandProvider`.

import * as vscode from 'vscode';

import { errorMessage, type CtglsClient } from './client';
import type { CoverageController } from './coverageController';
import { SHOW_STATUS_COMMAND } from './languageStatus';
import { statusPickItems, type StatusAction, type StatusPickItem } from './status';

export const Command = {
  generateTests: 'ctgls.generateTests',
  generateAllTests: 'ctgls.generateAllTests',
  cancelGeneration: 'ctgls.cancelGeneration',
  showCoverage: 'ctgls.showCoverage',
  showStatus: SHOW_STATUS_COMMAND,
  showOutput: 'ctgls.showOutput',
  showServerSettings: 'ctgls.showServerSettings',
  restartServer: 'ctgls.restartServer',
} as const;

export interface CommandTargets {
  client: CtglsClient;
  coverage: CoverageController;
  outputChannel: vscode.OutputChannel;
}

export function registerCommands(targets: CommandTargets): vscode.Disposable[] {
  const { client, coverage, outputChannel } = targets;
  return [
    vscode.commands.registerCommand(Command.generateTests, (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : activeJavaUri();
      if (target === undefined) {
        void vscode.window.showInformationMessage('ctgls: open a Java file to generate tests for its class.');
        return;
      }
      return reportErrors(client.generate(target));
    }),
    vscode.commands.registerCommand(Command.generateAllTests, () => reportErrors(client.generate(undefined))),
    vscode.commands.registerCommand(Command.cancelGeneration, () => reportErrors(client.cancel(undefined))),
    vscode.commands.registerCommand(Command.showCoverage, () => reportErrors(coverage.showAll())),
    vscode.commands.registerCommand(Command.showOutput, () => outputChannel.show(true)),
    vscode.commands.registerCommand(Command.showServerSettings, () => reportErrors(showServerSettings(targets))),
    vscode.commands.registerCommand(Command.restartServer, () => client.restart()),
    vscode.commands.registerCommand(Command.showStatus, () => showStatus(targets)),
  ];
}

async function showStatus(targets: CommandTargets): Promise<void> {
  const { client } = targets;
  if (client.currentState.kind === 'running') {
    try {
      await client.fetchStatus();
    } catch (error) {
      // The last `ctgls/status` notification is still worth showing.
      targets.outputChannel.appendLine(`[client] ctgls.status failed: ${errorMessage(error)}`);
    }
  }
  const items: (vscode.QuickPickItem & StatusPickItem)[] = statusPickItems(client.currentState);
  const picked = await vscode.window.showQuickPick(items, { title: 'ctgls', placeHolder: 'ctgls status' });
  if (picked !== undefined) {
    await runStatusAction(picked.action, targets);
  }
}

/** Writes the settings the server applies to the output channel and shows it: what reached the
 * server, after its defaults and the workspace's trust. */
async function showServerSettings(targets: CommandTargets): Promise<void> {
  const settings = await targets.client.serverSettings();
  targets.outputChannel.appendLine(`[client] settings the server applies: ${JSON.stringify(settings)}`);
  targets.outputChannel.show(true);
}

export async function runStatusAction(action: StatusAction, targets: CommandTargets): Promise<void> {
  switch (action.kind) {
    case 'openClass':
      await vscode.window.showTextDocument(vscode.Uri.parse(action.uri));
      return;
    case 'cancel':
      await reportErrors(targets.client.cancel(undefined));
      return;
    case 'showCoverage':
      await reportErrors(targets.coverage.showAll());
      return;
    case 'restart':
      await targets.client.restart();
      return;
    case 'showOutput':
      targets.outputChannel.show(true);
      return;
  }
}

function activeJavaUri(): vscode.Uri | undefined {
  const document = vscode.window.activeTextEditor?.document;
  return document?.languageId === 'java' ? document.uri : undefined;
}

async function reportErrors(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    void vscode.window.showErrorMessage(errorMessage(error));
  }
}
