// The grounding playground in a real browser: key handling (session storage only, errors next
// to the key field), a pasted finding grounded to ranked systems, and the markdown block copied.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, shot, assertNoPageErrors, assertControlsLabelled, E2E_KEY, BASE_URL } from './support.mjs';

let b;
before(async () => { b = await openBrowser({ clientIp: '198.51.100.21', permissions: ['clipboard-read', 'clipboard-write'] }); });
after(async () => { if (b) await b.close(); });

const FINDING = 'Incidental 8 mm solid pulmonary nodule in the right upper lobe on CT in a 60-year-old former smoker.';

test('without a valid key the reason appears next to the key field', async () => {
  const { page } = b;
  await page.goto('/#/ground');
  await assertControlsLabelled(page);
  const keyField = page.getByLabel('API key with the “context” scope');
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  assert.match(await page.locator('.key-form .field-error').innerText(), /Enter a key with the context scope/);

  await keyField.fill('not a key');
  await page.getByRole('button', { name: 'Use this key' }).click();
  assert.match(await page.locator('.key-form .field-error').innerText(), /does not look like a radref key/);
  assert.equal(await keyField.getAttribute('aria-invalid'), 'true');

  // Well formed but unknown: the API's 401 is shown at the key.
  await keyField.fill('rr_nosuchkey_abcdefghijklmnopqrstuvwx');
  await page.getByRole('button', { name: 'Use this key' }).click();
  await page.getByRole('textbox', { name: 'Finding' }).fill(FINDING);
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.locator('.key-form .field-error').innerText(), /invalid or revoked/);
  assert.match(await page.getByRole('alert').innerText(), /HTTP 401/);
  assertNoPageErrors(b.errors);
});

test('a pasted finding returns ranked systems and a markdown block that can be copied', async () => {
  const { page } = b;
  await page.getByRole('button', { name: 'Forget key' }).click();
  await page.getByLabel('API key with the “context” scope').fill(E2E_KEY);
  await page.getByRole('button', { name: 'Use this key' }).click();
  assert.match(await page.locator('.key-state').innerText(), /rr_e2euser_•+/);
  // The key lives in session storage only.
  const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('radref.key.context'), local: Object.keys(localStorage).length, cookie: document.cookie }));
  assert.deepEqual(stored, { session: E2E_KEY, local: 0, cookie: '' });

  await page.getByRole('textbox', { name: 'Finding' }).fill(FINDING);
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  await page.getByRole('heading', { name: 'Ranked systems' }).waitFor();
  const ranked = page.locator('.ranked-list > li');
  assert.ok(await ranked.count() >= 1);
  const names = await page.locator('.ranked-list > li h3').allInnerTexts();
  assert.ok(names.slice(0, 3).some((n) => /Fleischner/.test(n)), `Fleischner in the top 3: ${names}`);
  assert.match(await page.locator('.ground-results').innerText(), /Read from the finding: organs lung .*sizes 8 mm/s);
  const md = await page.locator('pre.markdown').innerText();
  assert.match(md, /^## radref grounded context/);
  assert.match(md, /\(draft\)/);
  assert.match(md, /not a medical device/);
  await shot(page, 'grounding');
  // Each system links its calculator, prefilled with the sizes the finding states.
  const fleischner = page.locator('.ranked-list > li', { hasText: 'Fleischner' }).first();
  const calc = fleischner.getByRole('link', { name: 'Open the calculator with what the finding states' });
  assert.match(await calc.getAttribute('href'), /^#\/systems\/fleischner-2017\?.*size_mm=8/);
  assert.match(await fleischner.getByRole('link', { name: 'the evaluation as JSON' }).getAttribute('href'),
    /^\/api\/v1\/systems\/fleischner-2017\/evaluate\?.*size_mm=8/);

  await page.getByRole('button', { name: 'Copy markdown' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip.trim(), md.trim());

  // The same key, once given, survives a reload of this tab.
  await page.reload();
  assert.match(await page.locator('.key-state').innerText(), /Using key rr_e2euser_/);
  assertNoPageErrors(b.errors);
});

test('a matching draft entry that the verified answer leaves out is named, with a link', async () => {
  const { page } = b;
  await page.goto('/#/ground');
  await page.getByLabel('Include draft lines').uncheck();
  await page.getByRole('textbox', { name: 'Finding' }).fill('Incidental pituitary lesion, 6 mm, on brain MRI');
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  await page.getByRole('heading', { name: 'Ranked systems' }).waitFor();
  const note = page.locator('.withheld');
  await note.waitFor();
  assert.match(await note.innerText(), /Incidental Pituitary Findings.*\(draft\)/s);
  assert.equal(await note.getByRole('link').first().getAttribute('href'), '#/systems/acr-if-pituitary-2018');
  const names = await page.locator('.ranked-list > li h3').allInnerTexts();
  assert.ok(!names.some((n) => /Pituitary/.test(n)), `not among the verified answer's systems: ${names}`);
  // Following the advice brings the entry in.
  await page.getByLabel('Include draft lines').check();
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  await page.locator('.ranked-list > li h3', { hasText: 'Pituitary' }).first().waitFor();
  assert.equal(await page.locator('.withheld').count(), 0);
  await page.getByLabel('Include draft lines').uncheck();
  await page.goto('/#/');
  assertNoPageErrors(b.errors);
});

test('the page talks to the API only: every request it made stayed on the origin', async () => {
  const { page } = b;
  const foreign = [];
  page.on('request', (r) => { if (!r.url().startsWith(BASE_URL) && !r.url().startsWith('data:')) foreign.push(r.url()); });
  // A new document at another address, opened on the grounding screen: every request of the
  // page is seen, its scripts and styles too, and no late answer of the screen before can race
  // the new one.
  await page.goto('/?fresh#/ground');
  await page.getByRole('textbox', { name: 'Finding' }).fill('Bosniak IIF cyst of the left kidney on CT');
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  await page.getByRole('heading', { name: 'Ranked systems' }).waitFor();
  assert.match(await page.locator('.ranked-list > li h3').first().innerText(), /Bosniak/);
  assert.deepEqual(foreign, []);
});

test('a key given on one screen can be reused on another with one click', async () => {
  const { page } = b;
  await page.goto('/#/templates');
  await page.getByRole('button', { name: /^Use the key entered for context/ }).click();
  assert.match(await page.locator('.key-state').innerText(), /Using key rr_e2euser_/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('radref.key.templates')), E2E_KEY);
  await page.locator('.tpl-list .status').filter({ hasText: /template|No templates/ }).waitFor();
});

test('a pasted report shows each finding marked by its assertion, its system and its prefilled calculator', async () => {
  const { page } = b;
  const report = await import('node:fs').then((fs) => fs.readFileSync(new URL('../fixtures/trauma_report.txt', import.meta.url), 'utf8'));
  await page.goto('/#/ground');
  await page.getByRole('textbox', { name: 'Finding' }).fill(report);
  await page.getByRole('button', { name: 'Ground this finding' }).click();
  await page.getByRole('heading', { name: 'Findings' }).waitFor();
  // The marked text is the report as pasted: every span points at the words it claims.
  const marked = page.getByLabel('The report, its findings marked');
  assert.equal((await marked.innerText()).trim(), report.trim());
  const present = await marked.locator('mark.assert-present').allInnerTexts();
  assert.ok(present.some((t) => /laceration/.test(t)), `present: ${present}`);
  const absent = await marked.locator('mark.assert-absent').allInnerTexts();
  assert.ok(absent.some((t) => /No pulmonary nodules/.test(t)), `absent: ${absent}`);
  assert.ok(absent.every((t) => !/laceration of the inferior pole/.test(t)));
  // The spleen line: AAST, the depth read from the text, and the calculator prefilled with it.
  const spleen = page.locator('.finding-list > li', { hasText: 'There is a 3.5 cm laceration' }).first();
  assert.match(await spleen.innerText(), /Governed by: .*AAST|Governed by: .*Organ Injury/s);
  assert.match(await spleen.innerText(), /spleen_laceration_depth_cm = 3\.5 \(“3\.5 cm”\)/);
  const calc = spleen.getByRole('link', { name: 'Edit in the calculator, prefilled from the report' });
  assert.match(await calc.getAttribute('href'), /^#\/systems\/aast-ois-2018\?.*spleen_laceration_depth_cm=3\.5/);
  // A ruled-out line offers no system.
  const lungs = page.locator('.finding-list > li', { hasText: 'No pulmonary nodules' }).first();
  assert.match(await lungs.innerText(), /no system is offered/);
  await shot(page, 'grounding-report');
  // The calculator opens with the report's value in its field.
  await calc.click();
  await page.getByRole('heading', { level: 1 }).waitFor();
  assert.match(page.url(), /#\/systems\/aast-ois-2018\?/);
  assertNoPageErrors(b.errors);
});
