// The corpus explorer in a real browser: search as you type (with a typo), filters, a system
// page with every line's provenance, the changes feed, the coverage report, an unknown slug,
// keyboard entry and a phone-width layout.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openBrowser, shot, holdRequests, assertNoPageErrors, assertControlsLabelled, assertNoHorizontalOverflow } from './support.mjs';

// The page counts the published systems: the registry's slugs.
const PUBLISHED = readFileSync(new URL('../../corpus/slugs.txt', import.meta.url), 'utf8')
  .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).length;

let b;
before(async () => { b = await openBrowser({ clientIp: '198.51.100.11' }); });
after(async () => { if (b) await b.close(); });

test('search as you type tolerates a typo and lists matching systems and categories', async () => {
  const { page } = b;
  await page.goto('/');
  await page.getByText(`${PUBLISHED} systems in the corpus.`).waitFor();
  assert.match(await page.locator('.notice').innerText(), /not a medical device/);
  await assertControlsLabelled(page);

  await page.getByLabel('Search systems, categories and synonyms').pressSequentially('fleischer', { delay: 20 });
  await page.getByText('1 system matches.').waitFor();
  const note = await page.locator('.typo-note').innerText();
  assert.match(note, /“fleischer” as “fleischner”/);
  const first = page.locator('.system-card h3 a').first();
  assert.equal(await first.innerText(), 'Fleischner 2017');
  assert.ok(await page.locator('.hits li').count() > 5, 'Fleischner categories are listed');
  assert.match(page.url(), /q=fleischer/);
  await shot(page, 'explorer-search-typo');

  // Filters narrow the list; every card then carries the chosen family.
  await page.getByRole('button', { name: 'Clear search and filters' }).click();
  await page.getByText(`${PUBLISHED} systems in the corpus.`).waitFor();
  await page.getByLabel('Organ').selectOption('lung');
  await page.getByLabel('Family').selectOption('algorithm');
  await page.locator('.status', { hasText: /systems? match/ }).waitFor();
  const families = await page.locator('.system-card .badge.family-algorithm').count();
  const cards = await page.locator('.system-card').count();
  assert.ok(cards >= 2, `lung algorithms listed (${cards})`);
  assert.equal(families, cards, 'every card is an algorithm');
  assert.ok(await page.getByRole('link', { name: 'Fleischner 2017' }).isVisible());
  await shot(page, 'explorer-filters');
  assertNoPageErrors(b.errors);
});

test('a system page shows categories, decision units, management, risk, crossrefs, lineage and per-line provenance', async () => {
  const { page } = b;
  await page.getByRole('link', { name: 'Fleischner 2017' }).click();
  await page.getByRole('heading', { level: 1, name: /Fleischner Society 2017 Guidelines/ }).waitFor();
  for (const name of [/^Categories and outcomes/, /^Decision units/, /^Cross-references$/, /^Version lineage$/, /^References$/, /^Scope$/]) {
    assert.ok(await page.getByRole('heading', { level: 2, name }).isVisible(), `section ${name}`);
  }
  assert.ok(await page.getByRole('heading', { level: 4, name: 'Management' }).first().isVisible());
  assert.ok(await page.locator('.risk .line').count() > 0, 'risk figures shown');
  assert.match(await page.locator('.rules li').first().innerText(), /When .+→/);
  // Every clinical line: a draft/verified badge, a source with its DOI link, a locator and consensus.
  const lines = await page.locator('.line').count();
  assert.ok(lines >= 60, `clinical lines rendered (${lines})`);
  assert.equal(await page.locator('.line .badge.draft, .line .badge.verified').count(), lines);
  assert.equal(await page.locator('.line .line-meta', { hasText: 'Locator:' }).count(), lines);
  assert.equal(await page.locator('.line .line-meta', { hasText: 'Consensus:' }).count(), lines);
  const doi = page.locator('.line a.doi').first();
  assert.equal(await doi.getAttribute('href'), 'https://doi.org/10.1148/radiol.2017161659');
  assert.ok(await page.locator('.notice-inline').innerText().then((t) => /not a medical device/.test(t)));
  // Cross-reference to another system, and lineage entries.
  assert.ok(await page.getByRole('link', { name: 'Lung-RADS v2022' }).isVisible());
  assert.ok(await page.locator('.lineage li').count() >= 3);
  // A citation link jumps to its reference without leaving the page.
  await page.locator('.line a[href^="#ref-"]').first().click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'ref-macmahon2017');
  assert.match(page.url(), /#\/systems\/fleischner-2017/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'system-page');
  assertNoPageErrors(b.errors);
});

test('an earlier version shows what changed in the later one, both sides cited', async () => {
  const { page } = b;
  await page.goto('/#/systems/acr-lung-rads-v1-1');
  await page.getByRole('heading', { level: 2, name: 'Other versions: what changed' }).waitFor();
  await page.getByRole('button', { name: 'What changed: acr-lung-rads-v1-1 → acr-lung-rads-v2022' }).click();
  await page.getByRole('heading', { level: 3, name: /^Decision units added \(1\)$/ }).waitFor();
  const change = page.locator('.diff .change', { hasText: 'atypical_cyst' }).first();
  assert.match(await change.locator('.side').nth(0).innerText(), /Not in Lung-RADS v1\.1/);
  const later = change.locator('.side').nth(1).locator('.line');
  assert.ok(await later.count() >= 1);
  assert.match(await later.first().innerText(), /Locator:/);
  assert.ok(await page.locator('.diff .change').count() >= 10);
  await assertNoHorizontalOverflow(page);
  assertNoPageErrors(b.errors);
});

test('a system shows its external codes with where each was confirmed', async () => {
  const { page } = b;
  await page.goto('/#/systems/acr-bi-rads-2013');
  await page.getByRole('heading', { level: 2, name: /^Categories and outcomes/ }).waitFor();
  const overview = page.locator('.facts .codes li', { hasText: 'RDES245' });
  assert.match(await overview.innerText(), /RadElement/);
  const category0 = page.locator('#outcome-0 .codes li', { hasText: '397138000' });
  assert.match(await category0.innerText(), /SNOMED CT .*confirmed in/);
  assertNoPageErrors(b.errors);
});

test('a category hit opens its system at that category', async () => {
  const { page } = b;
  await page.goto('/#/?q=bosniack%20IIF');
  const hit = page.locator('.hits a', { hasText: 'IIF' }).first();
  await hit.click();
  await page.locator('.outcome.highlight').waitFor();
  assert.match(await page.locator('.outcome.highlight h3').innerText(), /IIF/);
});

test('an unknown slug is explained, with the closest slugs as links', async () => {
  const { page } = b;
  await page.goto('/#/systems/fleischner');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /no system with slug 'fleischner'.*HTTP 404/s);
  assert.ok(await page.getByRole('link', { name: 'fleischner-2017' }).isVisible());
});

test('the changes feed and the coverage report', async () => {
  const { page } = b;
  await page.goto('/#/changes');
  await page.locator('.status', { hasText: /events/ }).waitFor();
  assert.ok(await page.locator('ol.changes > li').count() > 10);
  assert.equal(await page.getByRole('link', { name: 'RSS feed' }).getAttribute('href'), '/feed/changes.xml');
  await page.getByLabel('Since (date)').fill('2025');
  await page.getByRole('button', { name: 'Show changes' }).click();
  await page.locator('.status', { hasText: /since 2025/ }).waitFor();
  // A malformed date is refused by the API; the message sits next to the field.
  await page.getByLabel('Since (date)').fill('last week');
  await page.getByRole('button', { name: 'Show changes' }).click();
  const err = page.locator('.field-error:not([hidden])');
  await err.waitFor();
  assert.match(await err.innerText(), /since/i);
  assert.equal(await page.getByLabel('Since (date)').getAttribute('aria-invalid'), 'true');
  await shot(page, 'changes');

  await page.getByRole('link', { name: 'Coverage', exact: true }).click();
  await page.getByRole('table', { name: 'By family' }).waitFor();
  assert.ok(await page.getByRole('heading', { name: /Not covered yet/ }).isVisible());
  assert.equal(await page.locator('table').first().locator('tbody tr').count(), 4);
  await shot(page, 'coverage');
  assertNoPageErrors(b.errors);
});

test('keyboard: the skip link comes first and reaches the content', async () => {
  const { page } = b;
  await page.goto('/');
  await page.getByText(`${PUBLISHED} systems in the corpus.`).waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('type')), 'search');
});

test('phone width: explorer and system page fit the screen', async () => {
  const phone = await openBrowser({ clientIp: '198.51.100.12', viewport: { width: 390, height: 844 } });
  try {
    const { page } = phone;
    await page.goto('/#/?q=tirads');
    await page.locator('.system-card').first().waitFor();
    await assertNoHorizontalOverflow(page);
    await shot(page, 'phone-explorer');
    await page.goto('/#/systems/acr-ti-rads-2017');
    await page.getByRole('heading', { level: 2, name: /^Decision units/ }).waitFor();
    await assertNoHorizontalOverflow(page);
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR || 'target/e2e-screenshots'}/phone-system.png` });
    assertNoPageErrors(phone.errors);
  } finally {
    await phone.close();
  }
});

test('a screen still showing does not rewrite an address the router has yet to follow', async () => {
  const { page } = b;
  // Between a new address (a link, the back button, a typed URL) and the router's hashchange,
  // the screen on the page is still connected; a search answering in that moment must leave the
  // new address alone. pushState changes the address without a hashchange, so the moment is
  // held open here for as long as the test needs: the explorer's first search waits for the
  // organ list, held back until the address has moved on.
  const organs = await holdRequests(page, '**/api/v1/organs');
  try {
    await page.goto('/?moment#/');
    await page.getByRole('heading', { name: 'Explore the corpus' }).waitFor();
    await page.evaluate(() => history.pushState(null, '', '#/ground'));
    organs.release();
    await page.waitForResponse('**/api/v1/organs');
    // The explorer's first search has run (its status line answers) with the address moved on.
    await page.locator('.status').filter({ hasText: /systems? in the corpus/ }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/ground');
    // The router then follows the address it was given, not the explorer's.
    await page.evaluate(() => window.dispatchEvent(new HashChangeEvent('hashchange')));
    await page.getByRole('heading', { name: 'Grounding playground' }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/ground');
  } finally {
    await organs.done();
  }
  assertNoPageErrors(b.errors);
});

test('leaving the explorer before its first search answers does not pull the address back', async () => {
  const { page } = b;
  await page.goto('/#/coverage');
  await page.getByRole('table', { name: 'By family' }).waitFor();
  // The explorer's first search waits for the organ list; hold that answer back while the user
  // moves on to the grounding screen.
  const organs = await holdRequests(page, '**/api/v1/organs');
  try {
    await page.goto('/#/');
    await page.getByRole('heading', { name: 'Explore the corpus' }).waitFor();
    await page.goto('/#/ground');
    await page.getByRole('heading', { name: 'Grounding playground' }).waitFor();
    organs.release();
    // The explorer's late answer arrives; the address and the screen stay where the user went.
    await page.waitForResponse('**/api/v1/organs');
    await page.waitForTimeout(300);
    assert.equal(new URL(page.url()).hash, '#/ground');
    assert.ok(await page.getByRole('textbox', { name: 'Finding' }).isVisible());
  } finally {
    await organs.done();
  }
  assertNoPageErrors(b.errors);
});
