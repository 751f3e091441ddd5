// The templates manager in a real browser: the full round trip (create with a sanitised preview
// and content_text, a validation error and a voice-command conflict shown next to their fields,
// edit, favourite, filter, sort, paginate, voice lookup, delete with confirmation).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, shot, assertNoPageErrors, assertControlsLabelled, assertNoHorizontalOverflow, apiCall, E2E_KEY, CONTEXT_ONLY_KEY } from './support.mjs';

let b;
let page;
// Names carry a run id: the test database is fresh per `make test`, but a rerun against a
// long-lived worker must not meet the previous run's templates.
const RUN = Date.now().toString(36);
const NAME = `E2E chest CT ${RUN}`;
const COMMAND = `normal chest ${RUN}`;

before(async () => {
  b = await openBrowser({ clientIp: '198.51.100.31' });
  page = b.page;
  // Start from no templates of this user.
  const list = await apiCall('/api/v1/templates?limit=100', { key: E2E_KEY });
  for (const t of list.body.data) await apiCall(`/api/v1/templates/${t.id}`, { method: 'DELETE', key: E2E_KEY });
});
after(async () => { if (b) await b.close(); });

const editor = () => page.locator('.tpl-editor');
/** A control of the editor, by its exact label. */
const ed = (label) => editor().getByLabel(label, { exact: true });
/** A control of the list's filter bar, by its exact label. */
const filter = (label) => page.locator('.tpl-filters').getByLabel(label, { exact: true });
/** The error slot under an editor field. */
const fieldError = (label) => editor().locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-error');

test('a key without the templates scope is refused next to the key field', async () => {
  await page.goto('/#/templates');
  await page.getByLabel('API key with the “templates” scope').fill(CONTEXT_ONLY_KEY);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await page.getByRole('alert').first().waitFor();
  assert.match(await page.locator('.key-form .field-error').innerText(), /lacks the 'templates' scope/);
  assert.match(await page.getByRole('alert').first().innerText(), /HTTP 403 forbidden/);
  await page.getByRole('button', { name: 'Forget key' }).click();
  await page.getByLabel('API key with the “templates” scope').fill(E2E_KEY);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await page.getByText('No templates yet').waitFor();
  assertNoPageErrors(b.errors);
});

test('create: the preview shows the sanitised HTML and content_text before saving', async () => {
  await page.getByRole('button', { name: 'New template' }).click();
  await editor().getByRole('heading', { name: 'New template' }).waitFor();
  await assertControlsLabelled(page);
  await ed('Name').fill(NAME);
  await ed('Content (HTML)').fill('<h2>FINDINGS</h2><p onclick="steal()">Lungs clear &amp; no effusion.</p><script>alert(1)</script><ul><li>Heart normal</li></ul>');
  const frame = page.frameLocator('iframe[title="Preview of the sanitised content"]');
  await frame.locator('h2', { hasText: 'FINDINGS' }).waitFor();
  assert.equal(await frame.locator('script').count(), 0, 'script removed in the preview');
  assert.equal(await frame.locator('[onclick]').count(), 0, 'handler removed in the preview');
  await page.waitForFunction(() => document.querySelector('pre[aria-label="Preview of content_text"]').textContent.includes('Heart normal'));
  assert.equal(await page.locator('pre[aria-label="Preview of content_text"]').innerText(), 'FINDINGS\nLungs clear & no effusion.\nHeart normal');
  await ed('Exam type').fill('CT chest');
  await ed('Modality').fill('CT');
  await ed('Category').fill('thorax');
  await ed('Voice command').fill(COMMAND);
  await ed('Voice aliases').fill(`chest normal ${RUN}\nclear chest ${RUN}`);

  // A tag over 50 characters: the API's 422 names the field, and the message sits under it.
  await ed('Tags').fill(`chest, ${'x'.repeat(51)}`);
  await page.getByRole('button', { name: 'Create template' }).click();
  await fieldError('Tags').waitFor({ state: 'visible' });
  assert.match(await fieldError('Tags').innerText(), /tag/i);
  assert.equal(await ed('Tags').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.name), 'tags');

  await ed('Tags').fill('chest, normal');
  await page.getByRole('button', { name: 'Create template' }).click();
  await page.getByText(`Created “${NAME}”.`).waitFor();
  assert.equal(await fieldError('Tags').isVisible(), false, 'the old error is cleared');
  // What the server stored: the same as the preview.
  const stored = page.frameLocator('iframe[title="Content as stored by radref"]');
  await stored.locator('h2', { hasText: 'FINDINGS' }).waitFor();
  assert.equal(await stored.locator('script').count(), 0);
  assert.equal(await page.locator('.stored pre.content-text').first().innerText(), 'FINDINGS\nLungs clear & no effusion.\nHeart normal');
  assert.equal(await page.locator('.stored .warn').count(), 0, 'the preview matched what was stored');
  const row = page.locator('.tpl-table tbody tr', { hasText: NAME });
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(`“${COMMAND}”`));
  await shot(page, 'templates-editor');
  assertNoPageErrors(b.errors);
});

test('a voice command that another template holds: 409 shown next to the field', async () => {
  await page.getByRole('button', { name: 'New template' }).click();
  await editor().getByRole('heading', { name: 'New template' }).waitFor();
  await ed('Name').fill(`E2E second ${RUN}`);
  await ed('Content (HTML)').fill('<p>Second.</p>');
  // Same command after normalisation (case and punctuation are ignored).
  await ed('Voice command').fill(`Normal CHEST ${RUN}!`);
  await page.getByRole('button', { name: 'Create template' }).click();
  const err = fieldError('Voice command');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), new RegExp(`voice command '${COMMAND}' already belongs to another of your templates`));
  assert.equal(await ed('Voice command').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.name), 'voice_command');
  assert.ok(await err.getByRole('button', { name: 'Open the template that has it' }).isVisible());
  assert.match(await page.locator('.tpl-editor .status').innerText(), /Not saved/);
  await shot(page, 'templates-voice-conflict');

  // An alias that is taken is flagged at the aliases.
  await ed('Voice command').fill(`second ${RUN}`);
  await ed('Voice aliases').fill(`Clear chest ${RUN}`);
  await page.getByRole('button', { name: 'Create template' }).click();
  await fieldError('Voice aliases').waitFor({ state: 'visible' });
  assert.match(await fieldError('Voice aliases').innerText(), /already belongs/);

  await ed('Voice aliases').fill('');
  await page.getByRole('button', { name: 'Create template' }).click();
  await page.getByText(`Created “E2E second ${RUN}”.`).waitFor();
  assert.equal(await fieldError('Voice command').isVisible(), false);

  // The conflict's link opens the holder.
  await ed('Voice command').fill(COMMAND);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await fieldError('Voice command').getByRole('button', { name: 'Open the template that has it' }).click();
  await editor().getByRole('heading', { name: `Edit template: ${NAME}` }).waitFor();
  assertNoPageErrors(b.errors);
});

test('edit, favourite, filter, sort and paginate', async () => {
  await ed('Name').fill(`${NAME} (edited)`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText(`Saved “${NAME} (edited)”.`).waitFor();
  await page.locator('.tpl-table tbody tr', { hasText: `${NAME} (edited)` }).waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();

  const star = page.getByRole('button', { name: `Favourite: ${NAME} (edited)` });
  assert.equal(await star.getAttribute('aria-pressed'), 'false');
  await star.click();
  await page.waitForFunction((n) => document.querySelector(`button[aria-label="Favourite: ${n}"]`)?.getAttribute('aria-pressed') === 'true', `${NAME} (edited)`);
  await filter('Favourites only').check();
  await page.getByText('Showing 1–1 of 1 template.').waitFor();
  await filter('Favourites only').uncheck();
  await page.getByText('Showing 1–2 of 2 templates.').waitFor();

  // Twelve more through the API, then sort by name and page through 10 at a time.
  for (let i = 0; i < 12; i += 1) {
    const r = await apiCall('/api/v1/templates', { method: 'POST', key: E2E_KEY, body: { name: `E2E bulk ${String(i).padStart(2, '0')} ${RUN}`, content: `<p>Bulk ${i}</p>`, modality: 'MR' } });
    assert.equal(r.status, 201);
  }
  await filter('Sort by').selectOption('name');
  await filter('Order').selectOption('asc');
  await filter('Per page').selectOption('10');
  await page.getByText('Showing 1–10 of 14 templates.').waitFor();
  const names = await page.locator('.tpl-table tbody tr td:nth-child(2) strong').allInnerTexts();
  assert.deepEqual(names, [...names].sort((a, z) => a.localeCompare(z, 'en', { sensitivity: 'base' })), 'sorted by name');
  assert.match(await page.locator('.pager').innerText(), /Page 1 of 2/);
  await page.getByRole('button', { name: 'Next page →' }).click();
  await page.getByText('Showing 11–14 of 14 templates.').waitFor();
  assert.match(await page.locator('.pager').innerText(), /Page 2 of 2/);
  assert.ok(await page.getByRole('button', { name: 'Next page →' }).isDisabled());
  await filter('Modality').fill('MR');
  await page.getByText('Showing 1–10 of 12 templates.').waitFor();
  await filter('Modality').fill('');
  await page.getByText('Showing 1–10 of 14 templates.').waitFor();
  await shot(page, 'templates-list');
  assertNoPageErrors(b.errors);
});

test('voice lookup finds the template by an alias', async () => {
  await page.getByLabel('Spoken command').fill(`Chest, normal ${RUN}`);
  await page.getByRole('button', { name: 'Find template' }).click();
  await page.getByText(`inserts “${NAME} (edited)”`).waitFor();
  await page.getByLabel('Spoken command').fill('nothing like this');
  await page.getByRole('button', { name: 'Find template' }).click();
  await page.getByText('No template of yours answers to “nothing like this”.').waitFor();
});

test('delete asks for confirmation; cancel keeps, confirm deletes', async () => {
  await filter('Sort by').selectOption('usage_count');
  await filter('Per page').selectOption('50');
  await page.getByText('Showing 1–14 of 14 templates.').waitFor();
  const del = page.getByRole('button', { name: `Delete E2E second ${RUN}` });
  await del.click();
  const dialog = page.getByRole('dialog', { name: 'Delete this template?' });
  await dialog.waitFor();
  await shot(page, 'templates-delete-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await dialog.count(), 0);
  assert.ok(await del.isVisible(), 'still listed after cancel');
  await del.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete template' }).click();
  await page.getByText(`Deleted “E2E second ${RUN}”.`).waitFor();
  assert.equal(await page.locator('.tpl-table tbody tr', { hasText: `E2E second ${RUN}` }).count(), 0);
  const check = await apiCall('/api/v1/templates?limit=100', { key: E2E_KEY });
  assert.equal(check.body.meta.total, 13);
  assertNoPageErrors(b.errors);
});

test('phone width: the templates screen fits', async () => {
  const phone = await openBrowser({ clientIp: '198.51.100.32', viewport: { width: 390, height: 844 } });
  try {
    await phone.page.goto('/#/templates');
    await phone.page.getByLabel('API key with the “templates” scope').fill(E2E_KEY);
    await phone.page.getByRole('button', { name: 'Use this key' }).click();
    await phone.page.locator('.tpl-table').waitFor();
    await assertNoHorizontalOverflow(phone.page);
    await phone.page.screenshot({ path: `${process.env.SCREENSHOT_DIR || 'target/e2e-screenshots'}/phone-templates.png` });
    assertNoPageErrors(phone.errors);
  } finally {
    await phone.close();
  }
});
