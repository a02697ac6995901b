//! The options the language client is made with: how the server starts, which documents it
//! sees, and the settings it is given (initialization options, pulled `workspace/configuration`).

import type * as vscode from 'vscode';
import {
  RevealOutputChannelOn,
  TransportKind,
  type ConfigurationParams,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';

import { SECTION, toServerSettings, type ServerSettings } from './settings';

export interface ClientOptionsInput {
  serverPath: string;
  /** The `ctgls` section as VS Code reports it. */
  section: Record<string, unknown>;
  /** Read at every pull, so that a trust grant between pulls is seen. */
  isTrusted: () => boolean;
  outputChannel: vscode.OutputChannel;
}

export const DOCUMENT_SELECTOR = [{ scheme: 'file', language: 'java' }];

/**
 * `ctgls lsp --stdio`: the client appends `--stdio` for the stdio transport, and the server
 * accepts it (`ctgls [lsp] [--stdio]`).
 */
export function serverOptions(serverPath: string): ServerOptions {
  const executable = { command: serverPath, args: ['lsp'], transport: TransportKind.stdio };
  return { run: executable, debug: executable };
}

export function clientOptions(input: ClientOptionsInput): LanguageClientOptions {
  const initializationOptions: ServerSettings = toServerSettings(input.section, input.isTrusted());
  return {
    documentSelector: DOCUMENT_SELECTOR,
    // The server pulls `workspace/configuration` on every change notification this sends.
    synchronize: { configurationSection: SECTION },
    initializationOptions,
    outputChannel: input.outputChannel,
    // The language status item reports problems; the output channel opens only when asked for.
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    middleware: {
      workspace: {
        configuration: async (params: ConfigurationParams, token, next) => {
          const result = await next(params, token);
          return filterPulledSettings(params, result, input.isTrusted());
        },
      },
    },
  };
}

/**
 * Rewrites the answer to a `workspace/configuration` pull: each `ctgls` item becomes the server's
 * settings object (client-only keys dropped, execution off when untrusted); other items and
 * errors pass through unchanged.
 */
export function filterPulledSettings<T>(params: ConfigurationParams, result: T, trusted: boolean): T {
  if (!Array.isArray(result)) {
    return result;
  }
  return result.map((value: unknown, index) =>
    params.items[index]?.section === SECTION ? toServerSettings(value, trusted) : value,
  ) as T;
}
