import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { resolveServerPath, type ServerLookup } from '../src/serverPath';

/** A lookup on a POSIX machine where exactly `executables` exist. */
function lookup(overrides: Partial<ServerLookup>, executables: string[]): ServerLookup {
  return {
    configuredPath: undefined,
    extensionPath: '/ext',
    workspaceFolders: ['/work/project'],
    envPath: '/usr/local/bin:/usr/bin',
    platform: 'linux',
    homeDir: '/home/dev',
    isExecutable: (file) => executables.includes(file),
    ...overrides,
  };
}

describe('resolveServerPath', () => {
  it('prefers the setting over the bundled binary and PATH', () => {
    const result = resolveServerPath(
      lookup({ configuredPath: '/opt/ctgls/bin/ctgls' }, ['/opt/ctgls/bin/ctgls', '/ext/server/ctgls', '/usr/bin/ctgls']),
    );
    assert.deepEqual(result, { found: true, path: '/opt/ctgls/bin/ctgls', source: 'setting' });
  });

  it('expands ~ and resolves a relative setting against the first workspace folder', () => {
    assert.deepEqual(resolveServerPath(lookup({ configuredPath: '~/bin/ctgls' }, ['/home/dev/bin/ctgls'])), {
      found: true,
      path: '/home/dev/bin/ctgls',
      source: 'setting',
    });
    assert.deepEqual(
      resolveServerPath(lookup({ configuredPath: 'target/debug/ctgls' }, ['/work/project/target/debug/ctgls'])),
      { found: true, path: '/work/project/target/debug/ctgls', source: 'setting' },
    );
  });

  it('reports a wrong setting instead of falling back to another binary', () => {
    const result = resolveServerPath(lookup({ configuredPath: '/nowhere/ctgls' }, ['/ext/server/ctgls']));
    assert.equal(result.found, false);
    assert.match(!result.found ? result.message : '', /ctgls\.server\.path is set to "\/nowhere\/ctgls"/);
  });

  it('treats an empty or blank setting as unset', () => {
    for (const configuredPath of ['', '   ', null]) {
      assert.deepEqual(resolveServerPath(lookup({ configuredPath }, ['/ext/server/ctgls'])), {
        found: true,
        path: '/ext/server/ctgls',
        source: 'extension',
      });
    }
  });

  it("uses the extension's server folder before PATH", () => {
    const result = resolveServerPath(lookup({}, ['/ext/server/ctgls', '/usr/bin/ctgls']));
    assert.deepEqual(result, { found: true, path: '/ext/server/ctgls', source: 'extension' });
  });

  it('searches PATH in order, skipping empty entries', () => {
    const result = resolveServerPath(
      lookup({ envPath: ':/usr/local/bin::/usr/bin' }, ['/usr/bin/ctgls', '/usr/local/bin/ctgls']),
    );
    assert.deepEqual(result, { found: true, path: '/usr/local/bin/ctgls', source: 'path' });
  });

  it('looks for ctgls.exe with ; separators on Windows', () => {
    const result = resolveServerPath(
      lookup(
        { platform: 'win32', extensionPath: 'C:\\ext', envPath: 'C:\\tools;C:\\cargo\\bin', workspaceFolders: [] },
        ['C:\\cargo\\bin\\ctgls.exe'],
      ),
    );
    assert.deepEqual(result, { found: true, path: 'C:\\cargo\\bin\\ctgls.exe', source: 'path' });
  });

  it('says where it looked when there is no binary anywhere', () => {
    const result = resolveServerPath(lookup({ envPath: undefined }, []));
    assert.equal(result.found, false);
    const message = !result.found ? result.message : '';
    assert.match(message, /ctgls language server was not found/);
    assert.match(message, /\/ext\/server\/ctgls/);
    assert.match(message, /PATH/);
    assert.match(message, /ctgls\.server\.path/);
  });

  it('checks real files by default: executable files only', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctgls-path-'));
    try {
      fs.mkdirSync(path.join(dir, 'server'));
      const binary = path.join(dir, 'server', 'ctgls');
      fs.writeFileSync(binary, '#!/bin/sh\n');
      const base = { extensionPath: dir, workspaceFolders: [], envPath: '', platform: 'linux' as const, homeDir: dir };
      fs.chmodSync(binary, 0o644);
      assert.equal(resolveServerPath({ ...base, configuredPath: undefined }).found, false);
      fs.chmodSync(binary, 0o755);
      assert.deepEqual(resolveServerPath({ ...base, configuredPath: undefined }), {
        found: true,
        path: binary,
        source: 'extension',
      });
      // A directory is not a binary.
      assert.equal(resolveServerPath({ ...base, configuredPath: path.join(dir, 'server') }).found, false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
