//! A `LanguageClientLike` that records what the extension asks of it and lets tests play the server.

import type * as vscode from 'vscode';
import type { LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

import { LanguageClientState, type ClientFactory, type LanguageClientLike } from '../../src/client';
import { Disposable, EventEmitter } from './vscode-stub';

export class FakeLanguageClient implements LanguageClientLike {
  readonly requests: { method: string; param: unknown }[] = [];
  /** Answers requests by method; a thrown error rejects the request. */
  answer: (method: string, param: unknown) => unknown = () => null;
  startError: Error | undefined;
  started = false;
  disposed = false;
  private readonly handlers = new Map<string, (params: unknown) => void>();
  private readonly stateChanges = new EventEmitter<{ oldState: number; newState: number }>();

  constructor(
    readonly server: ServerOptions,
    readonly options: LanguageClientOptions,
  ) {}

  readonly code2ProtocolConverter = { asUri: (uri: vscode.Uri) => uri.toString() };

  start(): Promise<void> {
    if (this.startError) {
      return Promise.reject(this.startError);
    }
    this.started = true;
    this.stateChanges.fire({ oldState: LanguageClientState.starting, newState: LanguageClientState.running });
    return Promise.resolve();
  }

  dispose(): Promise<void> {
    this.disposed = true;
    this.stateChanges.fire({ oldState: LanguageClientState.running, newState: LanguageClientState.stopped });
    return Promise.resolve();
  }

  onNotification<P>(method: string, handler: (params: P) => void): vscode.Disposable {
    this.handlers.set(method, handler as (params: unknown) => void);
    return new Disposable(() => this.handlers.delete(method));
  }

  onDidChangeState(listener: (event: { oldState: number; newState: number }) => void): vscode.Disposable {
    return this.stateChanges.event(listener);
  }

  sendRequest<R>(method: string, param: unknown): Promise<R> {
    this.requests.push({ method, param });
    try {
      return Promise.resolve(this.answer(method, param) as R);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The server sends a notification. */
  notify(method: string, params: unknown): void {
    this.handlers.get(method)?.(params);
  }

  /** The server process dies and the client gives up on it. */
  crash(): void {
    this.stateChanges.fire({ oldState: LanguageClientState.running, newState: LanguageClientState.stopped });
  }
}

/** A factory that keeps every client it made, newest last. */
export function fakeFactory(setup: (client: FakeLanguageClient) => void = () => undefined): {
  factory: ClientFactory;
  made: FakeLanguageClient[];
} {
  const made: FakeLanguageClient[] = [];
  return {
    made,
    factory: (server, options) => {
      const client = new FakeLanguageClient(server, options);
      setup(client);
      made.push(client);
      return client;
    },
  };
}
