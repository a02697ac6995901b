//! The real `LanguageClient`, behind the narrow `LanguageClientLike` port; the only module that
//! constructs one.

import { LanguageClient } from 'vscode-languageclient/node';

import type { ClientFactory } from './client';

/** Also names the trace setting the client reads: `ctgls.trace.server`. */
export const CLIENT_ID = 'ctgls';

export const createLanguageClient: ClientFactory = (server, options) => {
  const client = new LanguageClient(CLIENT_ID, 'ctgls', server, options);
  return {
    start: () => client.start(),
    dispose: (timeout) => client.dispose(timeout),
    onNotification: (method, handler) => client.onNotification(method, handler),
    onDidChangeState: (listener) => client.onDidChangeState(listener),
    sendRequest: (method, param) => (param === undefined ? client.sendRequest(method) : client.sendRequest(method, param)),
    code2ProtocolConverter: client.code2ProtocolConverter,
  };
};
