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

  async function page(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const p = await (await context(browser, colorScheme)).newPage();
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

    // A field's name, hovered, says what the schema says of it.
    await p.locator('.cm-line', { hasText: 'depends: first' }).getByText('depends').hover();
    await p.locator('.cm-tooltip-hover .field-doc', { hasText: 'depends: Names or ids of the steps this step waits for' }).waitFor();
    await p.mouse.move(0, 0);

    // Field names come from the schema, those of the map the line is in, less the ones it has.
    await p.locator('.cm-line', { hasText: 'command: echo two' }).click();
    await p.keyboard.press('End');
    await p.keyboard.insertText('\n    retr');
    await p.keyboard.press('Control+Space');
    const offered = p.locator('.cm-tooltip-autocomplete .cm-completionLabel');
    await offered.filter({ hasText: 'retryPolicy' }).waitFor();
    expect(await offered.allTextContents()).not.toContain('command');
    await offered.filter({ hasText: 'retryPolicy' }).click();
    expect(await editorText(p)).toBe(SPEC.replace('echo two\n', 'echo two\n    retryPolicy: \n'));

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

    // Fixed and saved (Ctrl-S in the editor): stored as written.
    const fixed = SPEC.replace('echo two', 'echo "two, fixed"');
    await replaceText(p, fixed);
    await problems.getByText('No problems found.').waitFor();
    await p.keyboard.press('Control+s');
    await p.getByText('Saved', { exact: true }).waitFor();
    expect((await t.get('/dags/edit-me/spec')).body.spec).toBe(fixed);
    expect(await p.getByRole('alert').count()).toBe(0);
    await p.context().close();
  });

  test('leaving with unsaved changes asks first; Stay keeps them, Leave drops them', async () => {
    const p = await page('dark');
    await p.goto(`${t.url}/dags/guarded?tab=spec`);
    await p.getByRole('textbox', { name: 'Spec of guarded (YAML)' }).waitFor();
    const edited = SPEC.replace('echo one', 'echo uno').replace('    depends: first', '    depends: first\n    retryPolicy: { limit: -1 }');
    await replaceText(p, edited);
    await p.getByText('Unsaved changes').waitFor();
    await problem(p, 'editor', 'steps[1] (second).retryPolicy.limit: must be at least 0', 8);
    await p.screenshot({ path: shot('spec-editor-dark'), fullPage: true });

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

  test('create a DAG: its name checked as typed, a problem in its spec, fixed; then started with a parameter, green live', async () => {
    const p = await page();
    await p.goto(`${t.url}/dags`);
    await p.getByRole('link', { name: 'New DAG' }).click();
    await p.getByRole('heading', { level: 1, name: 'New DAG' }).waitFor();
    const name = p.getByLabel('Name', { exact: true });
    for (const [typed, says] of [
      ['my dag', 'Only letters, digits, "_" and "-": not a space.'],
      ['x'.repeat(41), 'At most 40 characters (this one has 41).'],
      ['validate', '"validate" is reserved'],
      ['edit-me', 'A DAG named edit-me exists already.'],
    ] as const) {
      await name.fill(typed);
      await p.getByRole('alert').filter({ hasText: says }).waitFor();
      expect(await name.getAttribute('aria-invalid')).toBe('true');
    }
    await name.fill('made-in-ui');
    await p.getByText('The DAG\'s file name: 1-40 letters').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('false');

    const broken = 'params:\n  - WHO: world\nsteps:\n  - name: greet\n    command: echo "hi $WHO"\n  - name: after\n    command: "true"\n    depends: greet-typo\n';
    await replaceText(p, broken);
    await problem(p, 'server', 'steps[1] (after).depends: unknown step "greet-typo"', 8);
    await p.getByRole('button', { name: 'Create' }).click();
    await p.getByRole('alert').filter({ hasText: 'Not created' }).getByText('unknown step "greet-typo"').waitFor();
    expect((await t.get('/dags/made-in-ui')).status).toBe(404);
    expect(await editorText(p)).toBe(broken);

    const fixed = broken.replace('greet-typo', 'greet');
    await replaceText(p, fixed);
    await p.getByRole('region', { name: 'Problems' }).getByText('No problems found.').waitFor();
    await p.screenshot({ path: shot('new-dag'), fullPage: true });
    await p.getByRole('button', { name: 'Create' }).click();
    await p.getByRole('heading', { level: 1, name: 'made-in-ui' }).waitFor();
    expect(new URL(p.url()).pathname).toBe('/dags/made-in-ui');
    expect((await t.get('/dags/made-in-ui/spec')).body.spec).toBe(fixed);

    await p.getByRole('button', { name: 'Start', exact: true }).click();
    const dialog = p.getByRole('dialog', { name: 'Start made-in-ui' });
    await dialog.getByLabel('Parameters').fill('WHO=browser');
    await dialog.getByRole('button', { name: 'Start', exact: true }).click();
    await p.locator('.step-node[data-step="after"][data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await p.locator('table.nodes tr[data-step="greet"]').getByRole('button', { name: 'greet' }).click();
    await p.locator('pre.log[data-stream="stdout"]', { hasText: 'hi browser' }).waitFor();
    await p.context().close();
  });

  test('rename a DAG, then delete it, each confirmed', async () => {
    t.dag('doomed', SPEC);
    const p = await page();
    await p.goto(`${t.url}/dags/doomed`);
    await p.getByRole('button', { name: 'Rename' }).click();
    const rename = p.getByRole('dialog', { name: 'Rename doomed' });
    const field = rename.getByLabel('New name');
    await field.fill('edit-me');
    await rename.getByText('A DAG named edit-me exists already.').waitFor();
    expect(await rename.getByRole('button', { name: 'Rename' }).isDisabled()).toBe(true);
    await field.fill('still-doomed');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await p.waitForURL(/\/dags\/still-doomed$/);
    await p.getByRole('heading', { level: 1, name: 'still-doomed' }).waitFor();
    expect((await t.get('/dags/doomed')).status).toBe(404);

    await p.getByRole('button', { name: 'Delete' }).click();
    const del = p.getByRole('dialog', { name: 'Delete still-doomed?' });
    await del.getByRole('button', { name: 'Cancel' }).click();
    await del.waitFor({ state: 'hidden' });
    expect((await t.get('/dags/still-doomed')).status).toBe(200);
    await p.getByRole('button', { name: 'Delete' }).click();
    await del.getByRole('button', { name: 'Delete' }).click();
    await p.waitForURL(/\/dags$/);
    await p.locator('tr[data-dag="edit-me"]').waitFor();
    // Not even for a moment from a list read before the delete.
    expect(await p.locator('tr[data-dag="still-doomed"]').count()).toBe(0);
    expect((await t.get('/dags/still-doomed')).status).toBe(404);
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
