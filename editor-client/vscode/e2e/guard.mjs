// The regression guard in code-server, driven like a user (keys, Quick Fix menu, Problems view),
// run by smoke.test.mjs after its own checks on the same window: the project holds the
// hand-written AccountTest of editor-client/fixtures/bank-guard, and the first run's stored tests
// (snapshotted by `watchStore` as soon as they are written) become the generated test file. An
// edit of getOwner() brings `behaviour-changed` and `project-test-failed` rows; "Open the test"
// (Quick Fix menu) opens the generated test at the test; undo removes the rows.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';

const GENERATED = 'src/test/java/com/example/bank/AccountGeneratedTest.java';

/**
 * Polls the project's store for Account's record and keeps the first test class seen: the first
 * run's, which the guard takes as the reference behaviour (later background runs may store
 * other tests). Returns a function that gives it (or undefined).
 */
export function watchStore(project) {
  const dir = path.join(project, '.ctgls', 'classes');
  let source;
  const timer = setInterval(() => {
    try {
      const file = fs.readdirSync(dir).find((name) => name.startsWith('com.example.bank.Account-'));
      const record = file && JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      if (record?.junit_class?.source) {
        source = record.junit_class.source.join('\n');
        clearInterval(timer);
      }
    } catch {
      // Not there yet, or being written.
    }
  }, 100);
  timer.unref();
  return () => source;
}

/** The guard's checks; `helpers` are smoke.test.mjs's (runQuickOpen, waitUntil). */
export async function guardChecks(page, project, storedSource, { runQuickOpen, waitUntil, timeoutMs }) {
  const source = storedSource();
  assert.ok(source, "the first run's tests never reached the store");
  const generated = path.join(project, GENERATED);
  fs.mkdirSync(path.dirname(generated), { recursive: true });
  fs.writeFileSync(generated, source);

  const problems = page.locator('.markers-panel .monaco-list-row');
  const rows = async (code) =>
    (await problems.allTextContents()).filter((text) => text.includes(code));
  const warning = async () => (await rows('behaviour-changed')).find((text) => text.includes('!'));

  // Account.java, at the end of getOwner's `return owner;`, typing as a user does.
  const text = fs.readFileSync(path.join(project, 'src/main/java/com/example/bank/Account.java'), 'utf8');
  const lines = text.split('\n');
  const returnLine = lines.findIndex((line) => line.includes('return owner;')) + 1;
  // On getOwner's name, where the warning is (Go to Line takes `line:column`, 1-based).
  const onName = `${returnLine - 1}:${lines[returnLine - 2].indexOf('getOwner') + 3}`;
  const goTo = async (where) => {
    await page.keyboard.press('Control+G');
    await page.keyboard.type(where);
    await page.keyboard.press('Enter');
  };
  const ownerLine = page.locator('.monaco-editor .view-line', { hasText: 'return owner' });
  const lineText = async () => ((await ownerLine.first().textContent()) ?? '').replace(/\u00a0/g, ' ').trim();
  // Back to Account.java by its tab (Quick Open's row was once clicked while its list was being
  // redrawn, and the picker stayed open), making sure it is the active editor.
  const showAccount = async () => {
    const active = page.locator('.tab.active', { hasText: /^Account\.java/ });
    for (let attempt = 1; ; attempt++) {
      const tab = page.locator('.tabs-container .tab', { hasText: /^Account\.java/ });
      if ((await tab.count()) > 0) {
        await tab.first().click();
      } else {
        await runQuickOpen(page, '', 'Account.java', 'Account.java');
      }
      try {
        await active.waitFor({ timeout: 5_000 });
        return;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
        await page.keyboard.press('Escape');
      }
    }
  };
  const edit = async () => {
    await showAccount();
    await goTo(String(returnLine));
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(' + "!"');
    await waitUntil(async () => (await lineText()) === 'return owner + "!";', 10_000).catch(async () =>
      assert.fail(`typing gave ${await lineText()}`),
    );
  };
  // The Problems view in the panel (the smoke test left the output channel there).
  await page.keyboard.press('Escape');
  await runQuickOpen(page, '>', 'Problems: Focus on Problems View', 'Focus on Problems View');
  await page.locator('.markers-panel').waitFor({ timeout: 10_000 });
  await edit();

  let row = '';
  try {
    await waitUntil(async () => Boolean((row = (await warning()) ?? '')), timeoutMs);
  } catch {
    assert.fail(`no behaviour-changed row after the edit; rows: ${(await problems.allTextContents()).join(' | ')}`);
  }
  assert.match(row, /now (returns|leaves getOwner\(\) at) "/);
  try {
    await waitUntil(async () => (await rows('project-test-failed')).some((r) => r.includes('AccountTest.keepsItsOwner fails')), timeoutMs);
  } catch {
    assert.fail(`no project-test-failed row for AccountTest; rows: ${(await problems.allTextContents()).join(' | ')}`);
  }

  // "Open the test" from the Quick Fix menu on getOwner's name. Several stored tests assert what
  // getOwner() returns, each with its warning there; the action opens the test of the first
  // warning VS Code sends with the request, in an order neither the Problems view (which draws
  // only the rows in sight) nor the test knows: any test that calls getOwner() will do.
  const sourceLines = source.split('\n');
  const declared = sourceLines
    .map((line, index) => {
      if (!/\bvoid \w+\(/.test(line)) {
        return 0;
      }
      const end = sourceLines.findIndex((next, i) => i > index && /\bvoid \w+\(/.test(next));
      const body = sourceLines.slice(index, end < 0 ? undefined : end).join('\n');
      return body.includes('getOwner()') ? index + 1 : 0;
    })
    .filter((line) => line > 0);
  assert.ok(declared.length > 0, 'no stored test calls getOwner()');
  await goTo(onName);
  await quickFix(page, 'Open the test AccountGeneratedTest.java');
  await page.locator('.tab.active', { hasText: 'AccountGeneratedTest.java' }).waitFor({ timeout: 30_000 });
  const position = page.locator('.statusbar-item[id="status.editor.selection"]');
  const at = async () => Number((((await position.textContent()) ?? '').match(/Ln (\d+),/) ?? [])[1]);
  await waitUntil(async () => declared.includes(await at()), 10_000).catch(async () => {
    assert.fail(`the test file is not open at a test of getOwner() (lines ${declared.join(', ')}): ${await position.textContent()}`);
  });

  // Undo in Account.java (as many steps as the typing took): the rows go.
  await showAccount();
  for (let i = 0; i < 8 && (await lineText()) !== 'return owner;'; i++) {
    await page.keyboard.press('Control+Z');
    await page.waitForTimeout(100);
  }
  assert.equal(await lineText(), 'return owner;');
  await waitUntil(async () => (await rows('behaviour-changed')).length === 0 && (await rows('project-test-failed')).length === 0, timeoutMs).catch(
    async () => assert.fail(`rows left after undo: ${(await problems.allTextContents()).join(' | ')}`),
  );

  // "Accept the new behaviour" is checked by the Neovim test and lsp_regression.rs.
}

/**
 * Opens the Quick Fix menu at the cursor and picks `title` with the keyboard, as its rows are
 * under a pointer block for the mouse.
 *
 * VS Code asks for the code actions at a new cursor position by itself (the light bulb's
 * automatic request) a moment after the cursor moves; when that request starts after Ctrl+.'s,
 * it supersedes it and the menu says "No code actions available", though the server answered
 * both with the same actions (seen in the LSP trace of a failed run: the invoked request, then
 * the automatic one, 1 ms apart). So the menu is opened once the light bulb has shown (the
 * automatic request answered), and opened again when it still came back empty.
 */
async function quickFix(page, title) {
  await page
    .locator('.lightBulbWidget')
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(() => undefined);
  const rows = page.locator('.action-widget .monaco-list-row');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+.');
    try {
      await rows.filter({ hasText: title }).first().waitFor({ timeout: 10_000 });
      break;
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
      await page.keyboard.press('Escape');
      await page.waitForTimeout(500);
    }
  }
  for (let i = 0; i < 12; i++) {
    const focused = await page
      .locator('.action-widget .monaco-list-row.focused')
      .first()
      .getAttribute('aria-label', { timeout: 1_000 })
      .catch(() => null);
    if (focused === title) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('ArrowDown');
  }
  assert.fail(`could not reach "${title}" in the Quick Fix menu: ${(await rows.allTextContents()).join(' | ')}`);
}
