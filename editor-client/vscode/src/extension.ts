//! Activation: makes the output channel, language status item, language client, coverage
//! controller and commands, and ties them together. Each part lives in its own module.

import * as os from 'node:os';
import * as vscode from 'vscode';

import { CtglsClient } from './client';
import { registerCommands } from './commands';
import { CoverageController } from './coverageController';
import { createLanguageClient } from './languageClient';
import { resolveServerPath } from './serverPath';
import { SECTION } from './settings';
import { LanguageStatus } from './languageStatus';

let activeClient: CtglsClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const outputChannel = vscode.window.createOutputChannel('ctgls');
  const languageStatus = new LanguageStatus();
  // Coverage runs ask the client, which exists by the time any run happens.
  const coverage = new CoverageController(
    { requestCoverage: (params) => client.requestCoverage(params) },
    () => vscode.workspace.getConfiguration(SECTION).get<boolean>('coverage.autoRefresh', true),
  );
  const client = new CtglsClient({
    createClient: createLanguageClient,
    resolveServer: () =>
      resolveServerPath({
        configuredPath: vscode.workspace.getConfiguration(SECTION).get<string | null>('server.path'),
        extensionPath: context.extensionPath,
        workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
        envPath: process.env.PATH,
        platform: process.platform,
        homeDir: os.homedir(),
      }),
    outputChannel,
    onState: (state) => {
      languageStatus.update(state);
      if (state.kind === 'running' && state.status !== null) {
        coverage.updateClasses(state.status.classes);
      }
    },
    onCoverageChanged: (uri) => coverage.onCoverageChanged(uri),
  });
  activeClient = client;

  context.subscriptions.push(
    outputChannel,
    languageStatus,
    client,
    coverage,
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.contentChanges.length > 0) {
        coverage.onDocumentChanged(event.document.uri.toString(), event.document.version);
      }
    }),
    ...registerCommands({ client, coverage, outputChannel }),
  );
  void client.start();
}

export async function deactivate(): Promise<void> {
  await activeClient?.stop();
  activeClient = undefined;
}
