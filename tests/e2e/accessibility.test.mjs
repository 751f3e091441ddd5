// An automated accessibility audit of every screen with axe-core (the engine behind most
// accessibility checkers): WCAG 2.x A and AA rules, colour contrast included, in headless
// Chromium. Any violation of serious or critical impact fails the test and is listed; minor and
// moderate ones are printed so they stay visible.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { openBrowser, apiCall, E2E_KEY } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

// Every screen, with a key where the screen needs one, and the states where most content
// shows: results, the calculator with an answer and with a missing input, an open editor, a
// subscription with its delivery log.
const SCREENS = [
  ['explorer with results', '/#/?q=tirads'],
  ['system page', '/#/systems/acr-ti-rads-2017'],
  ['calculator with an answer', '/#/systems/acr-ti-rads-2017?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=12', async (page) => {
    await page.locator('.calc-unit[data-unit="fna_followup"] .calc-answer').waitFor();
    // Open a definition and a trace too, so their content is audited.
    await page.locator('#calc-in-composition summary').click();
    await page.locator('.calc-unit[data-unit="fna_followup"] .calc-trace summary').click();
  }],
  ['calculator with an input missing and a value refused', '/#/systems/acr-ti-rads-2017?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail', async (page) => {
    await page.locator('.calc-unit[data-unit="fna_followup"][data-status="needs_inputs"]').waitFor();
    await page.getByLabel('Maximum nodule diameter (mm)').fill('-1');
    await page.locator('#calc-in-max_diameter_mm .field-error:not([hidden])').waitFor();
  }],
  ['calculator with booleans and a select', '/#/systems/acr-o-rads-us-v2022', async (page) => {
    await page.locator('#calculator select').waitFor();
  }],
  ['unknown system', '/#/systems/no-such-system'],
  ['grounding', '/#/ground'],
  ['grounding with results', '/#/ground', async (page) => {
    await page.getByRole('textbox', { name: 'Finding' }).fill('8 mm solid lung nodule on CT in a 60-year-old smoker');
    await page.getByRole('button', { name: 'Ground this finding' }).click();
    await page.getByRole('heading', { name: 'Ranked systems' }).waitFor();
  }],
  ['templates', '/#/templates'],
  ['template editor', '/#/templates', async (page) => {
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New template' }).waitFor();
  }],
  ['webhooks', '/#/webhooks'],
  ['webhooks with a subscription and its log', '/#/webhooks', async (page) => {
    await apiCall('/api/v1/webhooks', { method: 'POST', key: E2E_KEY, body: { url: 'http://127.0.0.1:9/a11y', events: ['report.sent'], secret: 'accessibility-audit-secret' } });
    await page.reload();
    await page.getByText('Delivery log').first().click();
  }],
  ['changes', '/#/changes'],
  ['coverage', '/#/coverage'],
];

let b;
before(async () => {
  b = await openBrowser({ clientIp: '198.51.100.60' });
  // Keys live in session storage; give every keyed screen one so it renders its full form.
  await b.page.goto('/');
  await b.page.evaluate((key) => {
    for (const scope of ['context', 'templates', 'webhooks']) sessionStorage.setItem(`radref.key.${scope}`, key);
  }, E2E_KEY);
});
after(async () => { if (b) await b.close(); });

after(async () => {
  const list = await apiCall('/api/v1/webhooks?limit=100', { key: E2E_KEY });
  for (const w of (list.body && list.body.data) || []) {
    if (w.url.endsWith('/a11y')) await apiCall(`/api/v1/webhooks/${w.id}`, { method: 'DELETE', key: E2E_KEY });
  }
});

for (const [name, path, prepare] of SCREENS) {
  test(`no serious or critical accessibility violation: ${name}`, async () => {
    const { page } = b;
    await page.goto(path);
    await page.waitForLoadState('networkidle');
    if (prepare) {
      await prepare(page);
      // Some states keep a request or a preview frame busy; let them settle briefly.
      await page.waitForTimeout(500);
    }
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 15000 }).catch(() => {});
    await page.addScriptTag({ path: AXE });
    const results = await page.evaluate(async () => {
      // eslint-disable-next-line no-undef
      const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
    });
    for (const v of results.filter((x) => x.impact !== 'serious' && x.impact !== 'critical')) {
      console.log(`# ${name}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.join('; ')})`);
    }
    const blocking = results.filter((x) => x.impact === 'serious' || x.impact === 'critical');
    assert.deepEqual(blocking, [], `${name}: ${JSON.stringify(blocking, null, 2)}`);
  });
}
