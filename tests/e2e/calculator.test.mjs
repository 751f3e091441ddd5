// The calculator of a system page in a real browser: an ACR TI-RADS nodule filled in (solid,
// hypoechoic, wider-than-tall, smooth margin, no echogenic foci: 2+2+0+0+0 = 4 points) reads
// TR4 with its cited rule; the missing size is named and its link moves focus to the field; a
// size across the 15 mm threshold changes the management from follow-up to FNA; the shareable
// GET link answers JSON with TR4; the page address restores the inputs; controls of every input
// type are generated from the system's inputs, and a system without decision units has none.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, shot, assertNoPageErrors, assertControlsLabelled, assertNoHorizontalOverflow } from './support.mjs';

let b;
before(async () => { b = await openBrowser({ clientIp: '198.51.100.21' }); });
after(async () => { if (b) await b.close(); });

const unit = (page, id) => page.locator(`.calc-unit[data-unit="${id}"]`);

test('a TI-RADS nodule: TR4 with its cited rule, the missing size named, the FNA threshold crossed', async () => {
  const { page } = b;
  await page.goto('/#/systems/acr-ti-rads-2017');
  const calc = page.locator('#calculator');
  await page.getByRole('heading', { level: 2, name: 'Calculator' }).waitFor();
  assert.match(await calc.locator('.calc-notice').innerText(), /not a medical device/);
  await assertControlsLabelled(page);

  // One fieldset per input, named by its legend; the derived TR level is computed, not asked.
  for (const name of ['Composition', 'Echogenicity', 'Shape', 'Margin', 'Echogenic foci']) {
    assert.ok(await calc.getByRole('group', { name, exact: true }).isVisible(), `group ${name}`);
  }
  assert.equal(await calc.getByRole('group', { name: 'ACR TI-RADS level' }).count(), 0);
  assert.match(await calc.locator('.calc-derived').innerText(), /ACR TI-RADS level/);
  assert.equal(await calc.getByRole('radio', { name: /^Not stated/ }).count(), 4);
  assert.equal(await calc.getByRole('checkbox').count(), 4);
  // The definitions are reachable from each control.
  await calc.getByRole('group', { name: 'Composition' }).locator('summary').click();
  assert.match(await calc.getByRole('group', { name: 'Composition' }).locator('.calc-about .line').innerText(), /Locator: Figure 1/);

  await calc.getByRole('radio', { name: /^Solid or almost completely solid/ }).check();
  await calc.getByRole('radio', { name: /^Hypoechoic/ }).check();
  await calc.getByRole('radio', { name: /^Wider-than-tall/ }).check();
  // Keyboard: Tab past the shape's definition into the margin group and choose with an arrow key.
  await calc.getByRole('radio', { name: /^Not stated/ }).nth(2).focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Definition of Shape');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.name), 'calc-margin');
  // Focus lands on the checked "Not stated"; the arrow key wraps round to the first value.
  assert.equal(await page.evaluate(() => document.activeElement.value), '');
  await page.keyboard.press('ArrowDown');
  assert.ok(await calc.getByRole('radio', { name: /^Smooth/ }).isChecked());
  await calc.getByRole('checkbox', { name: /^None or large comet-tail artifacts/ }).check();

  const level = unit(page, 'tirads_level');
  await level.and(page.locator('[data-status="decided"]')).waitFor();
  assert.match(await level.locator('.calc-answer').innerText(), /^TR4 Moderately suspicious/);
  assert.match(await level.locator('.calc-score').innerText(), /Total ACR TI-RADS points: 4 \(Composition 2, Echogenicity 2, Shape 0, Margin 0, Echogenic foci 0\)/);
  // The deciding rule as a cited line: text, source, locator, consensus, draft badge.
  const rule = level.locator('.line').first();
  const ruleText = await rule.innerText();
  assert.match(ruleText, /Rule 2: 4 to 6 points: TR4/);
  assert.match(ruleText, /Source: Tessler FN et al\. 2017/);
  assert.match(ruleText, /Locator: Figure 1 \(ACR TI-RADS chart\)/);
  assert.match(ruleText, /Consensus: consensus/);
  assert.equal(await rule.locator('.badge.draft').count(), 1);
  assert.equal(await rule.locator('a.doi').getAttribute('href'), 'https://doi.org/10.1016/j.jacr.2017.01.046');
  // TR4's management lines.
  assert.match(await level.innerText(), /Management[\s\S]*FNA if the maximum diameter is 1\.5 cm or more/);
  // The live summary says it in a sentence.
  assert.match(await calc.locator('.calc-summary').innerText(), /Points to ACR TI-RADS level: TR4 Moderately suspicious/);

  // The size is missing: named, and its link moves focus to the field.
  const fna = unit(page, 'fna_followup');
  assert.equal(await fna.getAttribute('data-status'), 'needs_inputs');
  const needed = fna.locator('.calc-missing');
  assert.match(await needed.innerText(), /Still needed: Maximum nodule diameter/);
  assert.match(await calc.locator('.calc-summary').innerText(), /needs Maximum nodule diameter/);
  await needed.getByRole('link', { name: 'Maximum nodule diameter' }).click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'calc-max_diameter_mm');
  assert.match(page.url(), /#\/systems\/acr-ti-rads-2017\?/, 'the link does not navigate away');
  await shot(page, 'calculator-tr4-needs-size');

  // 12 mm: follow-up, and the threshold note names 15 mm.
  await page.keyboard.type('12');
  await fna.and(page.locator('[data-status="decided"]')).waitFor();
  assert.match(await fna.locator('.calc-answer').innerText(), /US follow-up at 1, 2, 3 and 5 years/);
  const changes = await fna.locator('.calc-changes').innerText();
  assert.match(changes, /Maximum nodule diameter at 15 mm or more: FNA/);
  assert.match(changes, /Maximum nodule diameter below 10 mm: No FNA, no follow-up/);
  assert.match(changes, /Then rule 4: TR4 with a maximum diameter of 1\.5 cm or more: FNA\./);

  // 15 mm crosses the threshold: FNA, decided by rule 4.
  await calc.getByLabel('Maximum nodule diameter (mm)').fill('15');
  await fna.locator('.calc-answer', { hasText: /^FNA$/ }).waitFor();
  assert.match(await fna.locator('.line').first().innerText(), /Rule 4: TR4 with a maximum diameter of 1\.5 cm or more: FNA\./);
  assert.match(await fna.locator('.calc-changes').innerText(), /below 15 mm: US follow-up at 1, 2, 3 and 5 years/);
  assert.match(await calc.locator('.calc-summary').innerText(), /FNA or ultrasound follow-up by TR level and maximum diameter: FNA\./);
  assert.equal(await calc.locator('.calc-still-needed').count(), 0);
  await shot(page, 'calculator-tr4-fna');

  // The page address holds the inputs in the API's own form.
  assert.match(page.url(), /\?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=15$/);

  // The shareable GET link of the result answers JSON with TR4.
  const href = await level.locator('a.calc-get-link').getAttribute('href');
  assert.equal(href, '/api/v1/systems/acr-ti-rads-2017/evaluate?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail&max_diameter_mm=15&units=tirads_level');
  const pageUrl = page.url();
  const shareHref = await calc.locator('a.calc-share').getAttribute('href');
  const response = await page.goto(href);
  assert.equal(response.status(), 200);
  const json = await response.json();
  assert.equal(json.units[0].id, 'tirads_level');
  assert.equal(json.units[0].answer, 'TR4');
  assert.equal(json.units[0].rule.text, '4 to 6 points: TR4, moderately suspicious.');
  const all = await (await page.goto(shareHref)).json();
  assert.deepEqual(all.units.map((u) => u.answer), ['TR4', 'FNA']);

  // Back on the page address: the inputs are restored and evaluated at once.
  await page.goto(pageUrl);
  await unit(page, 'fna_followup').locator('.calc-answer', { hasText: /^FNA$/ }).waitFor();
  assert.ok(await page.locator('#calculator').getByRole('radio', { name: /^Hypoechoic/ }).isChecked());
  assert.equal(await page.getByLabel('Maximum nodule diameter (mm)').inputValue(), '15');
  assertNoPageErrors(b.errors);
});

test('a value outside the range is refused next to its field; clearing empties the answer', async () => {
  const { page } = b;
  const calc = page.locator('#calculator');
  const size = page.getByLabel('Maximum nodule diameter (mm)');
  await size.fill('-3');
  const error = calc.locator('#calc-in-max_diameter_mm .field-error:not([hidden])');
  await error.waitFor();
  assert.match(await error.innerText(), /Maximum nodule diameter must be at least 0 mm/);
  assert.equal(await size.getAttribute('aria-invalid'), 'true');
  // Treated as not given: the size is named as missing again.
  await unit(page, 'fna_followup').and(page.locator('[data-status="needs_inputs"]')).waitFor();
  assert.doesNotMatch(page.url(), /max_diameter_mm/);

  await calc.getByRole('button', { name: 'Clear all inputs' }).click();
  await calc.locator('.calc-summary', { hasText: 'No inputs given yet.' }).waitFor();
  assert.equal(await calc.locator('.calc-unit').count(), 0);
  assert.ok(await calc.getByRole('radio', { name: /^Not stated/ }).first().isChecked());
  assert.equal(await size.getAttribute('aria-invalid'), null);
  assert.match(page.url(), /#\/systems\/acr-ti-rads-2017$/);
  assertNoPageErrors(b.errors);
});

test('controls follow the input types: booleans as yes/no/unknown, long enums as a select; no units, no calculator', async () => {
  const { page } = b;
  await page.goto('/#/systems/fleischner-2017');
  const calc = page.locator('#calculator');
  await calc.getByRole('group', { name: 'Nodule attenuation' }).waitFor();
  const perifissural = calc.locator('#calc-in-typical_perifissural');
  assert.equal(await perifissural.evaluate((el) => el.tagName), 'FIELDSET');
  assert.deepEqual(await perifissural.getByRole('radio').evaluateAll((rs) => rs.map((r) => r.labels[0].textContent)), ['Yes', 'No', 'Unknown']);
  assert.equal(await calc.getByRole('spinbutton').count(), 3, 'age, size and solid component');
  assert.equal(await page.getByLabel('Patient age (years)').getAttribute('min'), '0');
  await assertControlsLabelled(page);

  await page.goto('/#/systems/acr-o-rads-us-v2022');
  const lesion = page.locator('#calculator').getByRole('combobox');
  await lesion.first().waitFor();
  assert.ok(await lesion.first().locator('option').count() > 9);

  await page.goto('/#/systems/acr-bi-rads-v2025');
  await page.getByRole('heading', { level: 2, name: 'Scope' }).waitFor();
  assert.equal(await page.locator('#calculator').count(), 0);
  assert.equal(await page.locator('.toc a', { hasText: 'Calculator' }).count(), 0);
  assertNoPageErrors(b.errors);
});

test('phone width: the calculator fits and answers', async () => {
  const phone = await openBrowser({ clientIp: '198.51.100.22', viewport: { width: 390, height: 844 } });
  try {
    const { page } = phone;
    await page.goto('/#/systems/acr-ti-rads-2017?composition=solid&echogenicity=hypoechoic&shape=wider_than_tall&margin=smooth&echogenic_foci=none_or_large_comet_tail');
    await unit(page, 'tirads_level').locator('.calc-answer', { hasText: 'TR4' }).waitFor();
    await assertNoHorizontalOverflow(page);
    await page.locator('#calculator').scrollIntoViewIfNeeded();
    await page.locator('.calc-result').screenshot({ path: `${process.env.SCREENSHOT_DIR || 'target/e2e-screenshots'}/phone-calculator.png` });
    assertNoPageErrors(phone.errors);
  } finally {
    await phone.close();
  }
});
