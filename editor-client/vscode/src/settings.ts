//! The `ctgls` settings section and what of it reaches the server. Pure: no `vscode` import.

export const SECTION = 'ctgls';

/** The keys the server reads (docs/lsp-extensions.md, "Settings"); the rest of the section is the client's. */
export const SERVER_KEYS = [
  'javaHome',
  'classpath',
  'budgetSeconds',
  'algorithm',
  'junit',
  'executionEnabled',
  'idleDelayMs',
  'logLevel',
  'buildToolEnabled',
  'buildToolOffline',
  'mavenExecutable',
  'mavenSettings',
  'gradleExecutable',
  'passEnvironment',
  'trigger',
  'diagnostics',
  'sourceRoots',
  'testRoots',
] as const;

/** Keys whose empty value means "not set": the server then finds the roots itself. */
const OMITTED_WHEN_EMPTY: readonly ServerKey[] = ['sourceRoots', 'testRoots'];

export type ServerKey = (typeof SERVER_KEYS)[number];

/** The settings object sent to the server. Keys left out take the server's defaults. */
export type ServerSettings = Partial<Record<ServerKey, unknown>>;

/**
 * The settings object for the server, made from the `ctgls` section as VS Code reports it.
 *
 * Client-only keys (`server.path`, `trace.server`, `coverage.*`) are dropped, so the server sees
 * only what it documents. Empty `sourceRoots` and `testRoots` are left out (a settings object's
 * missing keys take their defaults, docs/lsp-extensions.md), so the server finds the roots
 * itself, as with no `--source-root` on the command line. In an untrusted workspace `executionEnabled` is always `false`: the
 * project's code must not run until the user trusts the folder, whatever the settings say.
 */
export function toServerSettings(section: unknown, trusted: boolean): ServerSettings {
  const settings: ServerSettings = {};
  if (isObject(section)) {
    for (const key of SERVER_KEYS) {
      const value = section[key];
      if (value === undefined || (OMITTED_WHEN_EMPTY.includes(key) && Array.isArray(value) && value.length === 0)) {
        continue;
      }
      settings[key] = value;
    }
  }
  if (!trusted) {
    settings.executionEnabled = false;
  }
  return settings;
}

/** Reads the server keys one by one from something shaped like `WorkspaceConfiguration`. */
export function readSection(config: { get(key: string): unknown }): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    section[key] = config.get(key);
  }
  return section;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
