//! The ctgls language client's life: finding the binary, starting, restarting (on request, when
//! `ctgls.server.path` changes, when the workspace becomes trusted), and the requests the
//! commands and the coverage view send. The `LanguageClient` itself is made by an injected
//! factory, so the wiring can be tested without a server.

import * as vscode from 'vscode';
import type { LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

import { clientOptions, serverOptions } from './clientOptions';
import {
  Method,
  ServerCommand,
  type CoverageChangedParams,
  type CoverageParams,
  type CoverageResult,
  type FileArgument,
  type StatusParams,
} from './protocol';
import type { ServerResolution } from './serverPath';
import { SECTION, readSection } from './settings';
import type { ClientState } from './status';

/** `vscode-languageclient`'s `State` values (`Stopped = 1, Running = 2, Starting = 3`). */
export const LanguageClientState = { stopped: 1, running: 2, starting: 3 } as const;

/** The part of `LanguageClient` this extension uses. */
export interface LanguageClientLike {
  start(): Promise<void>;
  dispose(timeout?: number): Promise<void>;
  onNotification<P>(method: string, handler: (params: P) => void): vscode.Disposable;
  onDidChangeState(listener: (event: { oldState: number; newState: number }) => void): vscode.Disposable;
  sendRequest<R>(method: string, param: unknown): Promise<R>;
  readonly code2ProtocolConverter: { asUri(uri: vscode.Uri): string };
}

export type ClientFactory = (server: ServerOptions, options: LanguageClientOptions) => LanguageClientLike;

export interface CtglsClientDeps {
  createClient: ClientFactory;
  resolveServer: () => ServerResolution;
  outputChannel: vscode.OutputChannel;
  onState: (state: ClientState) => void;
  onCoverageChanged: (uri: string) => void;
}

/** Thrown by requests made while no server is running; the message says why. */
export class ServerNotRunningError extends Error {}

export class CtglsClient implements vscode.Disposable {
  private client: LanguageClientLike | undefined;
  private clientDisposables: vscode.Disposable[] = [];
  private state: ClientState = { kind: 'stopped' };
  /** Start, stop and restart run one after another, in the order they were asked for. */
  private lifecycle: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: CtglsClientDeps) {
    this.disposables.push(
      // Trust changes what the server may do (`executionEnabled`) and which settings count
      // (restricted ones): start again from scratch with the trusted values.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log('the workspace is now trusted: restarting the server with test generation allowed');
        void this.restart();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        // The other keys reach the running server through `workspace/configuration`.
        if (event.affectsConfiguration(`${SECTION}.server.path`)) {
          this.log('ctgls.server.path changed: restarting the server');
          void this.restart();
        }
      }),
    );
  }

  get currentState(): ClientState {
    return this.state;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  /** Runs a server command (`workspace/executeCommand`). */
  async executeCommand<R = unknown>(command: string, args: unknown[]): Promise<R> {
    return this.running().sendRequest<R>('workspace/executeCommand', { command, arguments: args });
  }

  /** `ctgls.generate` for one file, or every open class when `uri` is undefined. */
  async generate(uri: vscode.Uri | undefined): Promise<unknown> {
    return this.executeCommand(ServerCommand.generate, this.fileArguments(uri));
  }

  /** `ctgls.cancel` for one file, or every run when `uri` is undefined. */
  async cancel(uri: vscode.Uri | undefined): Promise<unknown> {
    return this.executeCommand(ServerCommand.cancel, this.fileArguments(uri));
  }

  async fetchStatus(): Promise<StatusParams> {
    const status = await this.executeCommand<StatusParams>(ServerCommand.status, []);
    this.onStatus(status);
    return status;
  }

  /** The settings the server applies (`ctgls/debugConfig`): what it made of the section. */
  async serverSettings(): Promise<unknown> {
    return this.running().sendRequest<unknown>(Method.debugConfig, null);
  }

  async requestCoverage(params: CoverageParams): Promise<CoverageResult> {
    return this.running().sendRequest<CoverageResult>(Method.coverage, params);
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    void this.stop();
  }

  private fileArguments(uri: vscode.Uri | undefined): FileArgument[] {
    return uri === undefined ? [] : [{ uri: this.running().code2ProtocolConverter.asUri(uri) }];
  }

  private running(): LanguageClientLike {
    if (this.client === undefined || this.state.kind !== 'running') {
      const reason = this.state.kind === 'failed' ? this.state.reason : `the server is ${this.state.kind}`;
      throw new ServerNotRunningError(`ctgls is not running: ${reason}`);
    }
    return this.client;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.lifecycle.then(step, step);
    this.lifecycle = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<void> {
    const resolution = this.deps.resolveServer();
    if (!resolution.found) {
      this.log(resolution.message);
      this.setState({ kind: 'failed', reason: resolution.message });
      void this.offerFix(resolution.message);
      return;
    }
    const trusted = vscode.workspace.isTrusted;
    this.log(
      `starting ${resolution.path} (found via ${describeSource(resolution.source)})` +
        (trusted ? '' : '; the workspace is not trusted, so tests are not generated'),
    );
    const client = this.deps.createClient(
      serverOptions(resolution.path),
      clientOptions({
        serverPath: resolution.path,
        section: readSection(vscode.workspace.getConfiguration(SECTION)),
        isTrusted: () => vscode.workspace.isTrusted,
        outputChannel: this.deps.outputChannel,
      }),
    );
    this.client = client;
    this.clientDisposables = [
      client.onNotification(Method.status, (params: StatusParams) => {
        if (this.client === client) {
          this.onStatus(params);
        }
      }),
      client.onNotification(Method.coverageChanged, (params: CoverageChangedParams) => {
        if (this.client === client && typeof params?.uri === 'string') {
          this.deps.onCoverageChanged(params.uri);
        }
      }),
      client.onDidChangeState((event) => {
        // After a crash the client restarts the server by itself a few times, then gives up in
        // `stopped`. A stop we asked for has already let go of `client`, so it does not count.
        if (this.client !== client) {
          return;
        }
        if (event.newState === LanguageClientState.stopped) {
          this.setState({ kind: 'stopped' });
        } else if (event.newState === LanguageClientState.running && this.state.kind !== 'running') {
          this.setState({ kind: 'running', status: null });
        }
      }),
    ];
    this.setState({ kind: 'starting' });
    try {
      await client.start();
    } catch (error) {
      const reason = `the server did not start: ${errorMessage(error)}`;
      this.log(reason);
      if (this.client === client) {
        this.setState({ kind: 'failed', reason });
      }
      return;
    }
    if (this.client === client && this.state.kind === 'starting') {
      this.setState({ kind: 'running', status: null });
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const disposable of this.clientDisposables) {
      disposable.dispose();
    }
    this.clientDisposables = [];
    this.setState({ kind: 'stopped' });
    if (client !== undefined) {
      try {
        await client.dispose(5000);
      } catch (error) {
        this.log(`stopping the server: ${errorMessage(error)}`);
      }
    }
  }

  private onStatus(status: StatusParams): void {
    this.setState({ kind: 'running', status });
  }

  private setState(state: ClientState): void {
    this.state = state;
    this.deps.onState(state);
  }

  private async offerFix(message: string): Promise<void> {
    const openSettings = 'Open Settings';
    const choice = await vscode.window.showErrorMessage(message, openSettings);
    if (choice === openSettings) {
      await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.server.path`);
    }
  }

  private log(message: string): void {
    this.deps.outputChannel.appendLine(`[client] ${message}`);
  }
}

function describeSource(source: 'setting' | 'extension' | 'path'): string {
  switch (source) {
    case 'setting':
      return 'ctgls.server.path';
    case 'extension':
      return "the extension's server folder";
    case 'path':
      return 'PATH';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
