//! Where the `ctgls` binary is: the `ctgls.server.path` setting, then the extension's own
//! `server/` folder, then `PATH`. Pure apart from the file-system check, which callers can replace.

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface ServerLookup {
  /** The `ctgls.server.path` setting (unset: undefined, null or ""). */
  configuredPath: string | null | undefined;
  /** The extension's install folder. */
  extensionPath: string;
  /** Workspace folder paths; a relative `ctgls.server.path` is taken from the first. */
  workspaceFolders: readonly string[];
  /** The `PATH` environment variable. */
  envPath: string | undefined;
  platform: NodeJS.Platform;
  homeDir: string;
  isExecutable?: (file: string) => boolean;
}

export type ServerSource = 'setting' | 'extension' | 'path';

export type ServerResolution =
  | { found: true; path: string; source: ServerSource }
  | { found: false; message: string };

export function resolveServerPath(lookup: ServerLookup): ServerResolution {
  const isExecutable = lookup.isExecutable ?? isExecutableFile;
  const pathApi = lookup.platform === 'win32' ? path.win32 : path.posix;
  const binary = lookup.platform === 'win32' ? 'ctgls.exe' : 'ctgls';

  const configured = lookup.configuredPath?.trim();
  if (configured) {
    const file = expandConfiguredPath(configured, lookup, pathApi);
    if (isExecutable(file)) {
      return { found: true, path: file, source: 'setting' };
    }
    // A path the user chose and got wrong is reported, not silently replaced by another binary.
    return {
      found: false,
      message: `ctgls.server.path is set to "${configured}", but ${file} is not an executable file. Fix the setting or clear it to use the bundled or PATH server.`,
    };
  }

  const bundled = pathApi.join(lookup.extensionPath, 'server', binary);
  if (isExecutable(bundled)) {
    return { found: true, path: bundled, source: 'extension' };
  }

  const delimiter = lookup.platform === 'win32' ? ';' : ':';
  for (const dir of (lookup.envPath ?? '').split(delimiter)) {
    if (dir === '') {
      continue;
    }
    const candidate = pathApi.join(dir, binary);
    if (isExecutable(candidate)) {
      return { found: true, path: candidate, source: 'path' };
    }
  }

  return {
    found: false,
    message: `The ctgls language server was not found: ctgls.server.path is not set, ${bundled} does not exist and no "${binary}" is on PATH. Install ctgls (cargo install --path server/crates/ctgls) or set ctgls.server.path.`,
  };
}

function expandConfiguredPath(configured: string, lookup: ServerLookup, pathApi: path.PlatformPath): string {
  let file = configured;
  if (file === '~' || file.startsWith('~/') || file.startsWith('~\\')) {
    file = pathApi.join(lookup.homeDir, file.slice(1));
  }
  if (!pathApi.isAbsolute(file)) {
    const base = lookup.workspaceFolders[0] ?? lookup.extensionPath;
    file = pathApi.join(base, file);
  }
  return pathApi.normalize(file);
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
