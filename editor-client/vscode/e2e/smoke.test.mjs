// The extension in a real VS Code (code-server), against the real ctgls binary, on a copy of the
// bank fixture: the installed .vsix (one esbuild bundle) activates, opening Account.java starts the
// server, whose status reaches the language status item, whose diagnostics reach the Problems view,
// whose coverage reaches the editor's gutter, and the settings in settings.json reach the server;
// then the regression guard's diagnostics and code actions (guard.mjs).
// Started by scripts/e2e.sh, which sets the environment variables below.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { guardChecks, watchStore } from './guard.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const entry = path.join(here, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const serverPath = required('CTGLS_SERVER_PATH');
const vsix = required('CTGLS_VSIX');
const fixture = required('CTGLS_FIXTURE');
/** Files copied over the fixture: a test of the project's own, for the regression guard. */
const guardFixture = required('CTGLS_GUARD_FIXTURE');
/** Generation of the first class, with the JVM worker's first compile, fits well inside this. */
const RESULT_TIMEOUT_MS = 180_000;

/** Settings the test gives; the server must report them back (`ctgls/debugConfig`). */
const SETTINGS = {
  budgetSeconds: 3,
  diagnostics: { 'nondeterministic-input': 'off' },
  sourceRoots: ['src/main/java'],
  testRoots: ['src/test/java'],
};

test('code-server shows ctgls status, diagnostics, coverage and the regression guard for the bank fixture', { timeout: 600_000 }, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctgls-vscode-e2e-'));
  const project = path.join(tmp, 'bank');
  const data = path.join(tmp, 'data');
  const extensions = path.join(tmp, 'extensions');
  const config = path.join(tmp, 'code-server.yaml');
  const serverLog = path.join(tmp, 'code-server.log');
  let server;
  let browser;
  t.after(async () => {
    await browser?.close();
    if (server?.pid) {
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    if (process.env.CTGLS_E2E_KEEP === '1') {
      console.log(`kept ${tmp}`);
    } else {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  // Results a run in the working tree left behind must not stand in for this run's.
  fs.cpSync(fixture, project, {
    recursive: true,
    filter: (source) => path.basename(source) !== '.ctgls' && !source.endsWith('GeneratedTest.java'),
  });
  fs.cpSync(guardFixture, project, { recursive: true });
  const storedSource = watchStore(project);
  fs.mkdirSync(path.join(data, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(data, 'User', 'settings.json'),
    JSON.stringify({
      'ctgls.server.path': serverPath,
      ...Object.fromEntries(Object.entries(SETTINGS).map(([key, value]) => [`ctgls.${key}`, value])),
      'workbench.startupEditor': 'none',
      'telemetry.telemetryLevel': 'off',
      ...(process.env.CTGLS_E2E_TRACE === '1' ? { 'ctgls.trace.server': 'verbose' } : {}),
    }),
  );
  // A config file of its own, so that code-server writes none into the home directory.
  fs.writeFileSync(config, 'auth: none\ncert: false\n');
  const common = ['--config', config, '--user-data-dir', data, '--extensions-dir', extensions];
  // code-server keeps logs and a heartbeat under the XDG folders: in tmp, not the home directory.
  const env = { ...process.env, XDG_DATA_HOME: path.join(tmp, 'xdg-data'), XDG_CONFIG_HOME: path.join(tmp, 'xdg-config') };
  execFileSync(process.execPath, [entry, ...common, '--install-extension', vsix], { stdio: 'pipe', env });

  const port = await freePort();
  const log = fs.openSync(serverLog, 'w');
  server = spawn(
    process.execPath,
    [
      entry,
      ...common,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      // Trusted: generation runs. (Restricted Mode is covered by the unit tests.)
      '--disable-workspace-trust',
      project,
    ],
    {
      detached: true,
      stdio: ['ignore', log, log],
      env,
    },
  );
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);

  browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });

    await runQuickOpen(page, '', 'Account.java', 'Account.java');
    await page.locator('.monaco-editor .view-lines', { hasText: 'public class Account' }).waitFor({ timeout: 30_000 });

    // The language status item (in the status bar's `{}` entry, whose label lists the items) turns
    // from "starting" to the server's status, which names the class.
    const status = page.locator('.statusbar-item[aria-label*="ctgls"]');
    let label = '';
    try {
      await waitUntil(async () => {
        label = (await status.first().getAttribute('aria-label').catch(() => null)) ?? '';
        return /Account: \d+\/\d+ branches/.test(label);
      }, RESULT_TIMEOUT_MS);
    } catch {
      assert.fail(`the ctgls language status never showed Account; last label: ${label}`);
    }
    assert.match(label, /^Editor Language Status: /, 'ctgls is not a language status item');

    await page.keyboard.press('Control+Shift+M');
    // The row reads "… ctgls(undeclared-exception)"; the parentheses are drawn by CSS, not text.
    const diagnostic = page.locator('.markers-panel .monaco-list-row', { hasText: 'undeclared-exception' });
    await diagnostic.first().waitFor({ timeout: RESULT_TIMEOUT_MS });
    const row = await diagnostic.first().textContent();
    assert.match(row ?? '', /ArithmeticException .* interest\(int\)/);
    assert.match(row ?? '', /ctgls\s*undeclared-exception/);

    await runQuickOpen(page, '>', 'ctgls: Show Coverage', 'Show Coverage of Generated Tests');
    await page.locator('.monaco-editor .coverage-deco-gutter').first().waitFor({ timeout: 60_000 });

    // The settings as the server applies them, written to the ctgls output channel (whose log
    // VS Code keeps on disk, under the user data folder).
    await page.keyboard.press('Escape');
    await runQuickOpen(page, '>', 'ctgls: Show Settings the Server Applies', 'Show Settings the Server Applies');
    let text = '';
    try {
      await waitUntil(async () => {
        text = outputChannelLog(data).split('\n').find((line) => line.includes('settings the server applies')) ?? '';
        return text !== '';
      }, 30_000);
    } catch {
      assert.fail('ctgls: Show Settings the Server Applies wrote nothing to the ctgls output channel');
    }
    const applied = JSON.parse(text.slice(text.indexOf('{')));
    for (const [key, value] of Object.entries(SETTINGS)) {
      assert.deepEqual(applied[key], value, `${key}: ${text}`);
    }

    // The regression guard on the same window (about 30 s under load).
    await guardChecks(page, project, storedSource, { runQuickOpen, waitUntil, timeoutMs: 60_000 });
  } catch (error) {
    const screenshot = path.join(tmp, 'failure.png');
    await page.screenshot({ path: screenshot }).catch(() => undefined);
    process.env.CTGLS_E2E_KEEP = '1';
    console.log(`screenshot: ${screenshot}\ncode-server log: ${serverLog}\n${extensionLogs(data)}`);
    throw error;
  }
});

/** Types into Quick Open (`>` for commands) and picks the row that contains `row`. */
async function runQuickOpen(page, prefix, text, row) {
  await page.keyboard.press(prefix === '>' ? 'F1' : 'Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(prefix + text);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().click({ timeout: 30_000 });
}

function required(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set (run scripts/e2e.sh)`);
  return value;
}

function chromiumPath() {
  // Debian's /usr/bin/chromium is a wrapper script; Playwright wants the browser itself.
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium']) {
    if (candidate && fs.existsSync(candidate)) {
      return candidate;
    }
  }
  throw new Error('no Chromium: install the Debian package chromium or set CHROMIUM_PATH');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, timeoutMs) {
  await waitUntil(async () => {
    try {
      return (await fetch(url)).ok;
    } catch {
      return false;
    }
  }, timeoutMs);
}

async function waitUntil(condition, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out after ${timeoutMs} ms`);
}

/** The ctgls output channel as VS Code logs it (`N-ctgls.log` under `exthost1/output_logging_…`). */
function outputChannelLog(data) {
  return logFiles(data)
    .filter((file) => /-ctgls\.log$/.test(file))
    .map((file) => fs.readFileSync(file, 'utf8'))
    .join('\n');
}

/** The tail of the ctgls output channel and the extension host log, for a failure message. */
function extensionLogs(data) {
  return logFiles(data)
    .map((file) => `--- ${file}\n${fs.readFileSync(file, 'utf8').split('\n').slice(-40).join('\n')}`)
    .join('\n');
}

/** The ctgls and extension host logs under the user data folder. */
function logFiles(data) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
      } else if (/ctgls|exthost/i.test(entry.name)) {
        found.push(file);
      }
    }
  };
  const logs = path.join(data, 'logs');
  if (fs.existsSync(logs)) {
    walk(logs);
  }
  return found;
}
