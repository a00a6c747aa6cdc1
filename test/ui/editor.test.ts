/**
 * The DAG spec editor in a real browser against the real server: problems found as the text is typed
 * (the schema's in the browser, the server's from POST /dags/validate), each at its line; a save the
 * server refuses keeps the text under edit and the stored file; a valid save is stored; leaving with
 * unsaved changes asks first.
 */
import type { Browser, Page } from 'playwright-core';
import { describeWith } from '../helpers/needs.js';
import { TestServer } from '../helpers/server.js';
import { chromiumMissing, context, ensureUiBuilt, launch, shot } from './browser.js';

const SPEC = `description: Edited in the browser
steps:
  - name: first
    command: echo one
  - name: second
    command: echo two
    depends: first
`;

describeWith('chromium', chromiumMissing, 'the DAG spec editor in a browser', () => {
  const t = new TestServer();
  let browser: Browser;

  beforeAll(async () => {
    ensureUiBuilt();
    t.dag('edit-me', SPEC);
    t.dag('guarded', SPEC);
    await t.start();
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t.stop();
  });

  async function page(): Promise<Page> {
    const p = await (await context(browser)).newPage();
    p.on('pageerror', (e) => { throw e; });
    return p;
  }

  test('problems as you type, at their line; a refused save keeps the text; a valid one is stored', async () => {
    const p = await page();
    await p.goto(`${t.url}/dags/edit-me`);
    await p.getByRole('link', { name: 'Spec' }).click();
    const editor = p.getByRole('textbox', { name: 'Spec of edit-me (YAML)' });
    await editor.waitFor();
    expect(await editorText(p)).toBe(SPEC);
    const problems = p.getByRole('region', { name: 'Problems' });
    await problems.getByText('No problems found.').waitFor();
    expect(await p.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    // A field the schema does not know: found in the browser, marked at its line.
    await replaceText(p, SPEC.replace('    command: echo two', '    comand: echo two'));
    await problem(p, 'editor', 'steps[1] (second).comand: unknown field', 6);
    await p.locator('.cm-lintRange-error').first().waitFor();
    await p.getByText('Unsaved changes').waitFor();

    // What only the server sees (a depends on no step): its validation's answer, at its line.
    const unknownDep = SPEC.replace('depends: first', 'depends: nowhere');
    await replaceText(p, unknownDep);
    await problem(p, 'server', 'steps[1] (second).depends: unknown step "nowhere"', 7);
    await p.screenshot({ path: shot('spec-editor'), fullPage: true });

    // Saving it anyway: the server refuses, says why; the text under edit and the stored file stay.
    await p.getByRole('button', { name: 'Save' }).click();
    await p.getByRole('alert').filter({ hasText: 'Not saved' }).getByText('unknown step "nowhere"').waitFor();
    expect(await editorText(p)).toBe(unknownDep);
    expect((await t.get('/dags/edit-me/spec')).body.spec).toBe(SPEC);

    // Fixed and saved: stored as written.
    const fixed = SPEC.replace('echo two', 'echo "two, fixed"');
    await replaceText(p, fixed);
    await problems.getByText('No problems found.').waitFor();
    await p.getByRole('button', { name: 'Save' }).click();
    await p.getByText('Saved', { exact: true }).waitFor();
    expect((await t.get('/dags/edit-me/spec')).body.spec).toBe(fixed);
    expect(await p.getByRole('alert').count()).toBe(0);
    await p.context().close();
  });

  test('leaving with unsaved changes asks first; Stay keeps them, Leave drops them', async () => {
    const p = await page();
    await p.goto(`${t.url}/dags/guarded?tab=spec`);
    await p.getByRole('textbox', { name: 'Spec of guarded (YAML)' }).waitFor();
    const edited = SPEC.replace('echo one', 'echo uno');
    await replaceText(p, edited);
    await p.getByText('Unsaved changes').waitFor();

    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DAGs' }).click();
    const dialog = p.getByRole('dialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Stay' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(new URL(p.url()).pathname).toBe('/dags/guarded');
    expect(await editorText(p)).toBe(edited);

    // The page's own tabs are guarded too; Leave goes where the link pointed.
    await p.getByRole('link', { name: 'Overview' }).click();
    await dialog.getByRole('button', { name: 'Leave without saving' }).click();
    await p.getByRole('heading', { name: 'Latest run' }).waitFor();
    await p.getByRole('link', { name: 'Spec' }).click();
    await p.getByRole('textbox', { name: 'Spec of guarded (YAML)' }).waitFor();
    expect(await editorText(p)).toBe(SPEC);
    expect((await t.get('/dags/guarded/spec')).body.spec).toBe(SPEC);
    await p.context().close();
  });
});

/** The editor's text (CodeMirror renders a line per element). */
export async function editorText(p: Page): Promise<string> {
  return p.locator('.cm-content').evaluate((el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent ?? '').join('\n'));
}

/** Replaces the editor's whole text, as a paste would. */
export async function replaceText(p: Page, text: string): Promise<void> {
  await p.locator('.cm-content').click();
  await p.keyboard.press('ControlOrMeta+a');
  await p.keyboard.insertText(text);
}

/** Waits for a problem in the list, from `source`, with its line. */
export async function problem(p: Page, source: 'editor' | 'server', message: string, line: number): Promise<void> {
  const item = p.getByRole('region', { name: 'Problems' }).locator(`li[data-source="${source}"]`, { hasText: message });
  await item.waitFor();
  expect(await item.getByRole('button').textContent()).toBe(`Line ${line}`);
}
