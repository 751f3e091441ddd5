// The webhooks console in a real browser: create a subscription to a loopback receiver this
// test runs, send a test event, see the delivery attempt in the log, deactivate (a test event
// is then refused next to its field), reactivate, edit, and delete after confirmation.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { openBrowser, shot, assertNoPageErrors, assertControlsLabelled, apiCall, E2E_KEY } from './support.mjs';


let b;
let page;
let receiver;
let port;
const received = [];

before(async () => {
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = receiver.address().port;
  // Start from no subscriptions of this user.
  const list = await apiCall('/api/v1/webhooks?limit=100', { key: E2E_KEY });
  for (const w of (list.body && list.body.data) || []) await apiCall(`/api/v1/webhooks/${w.id}`, { method: 'DELETE', key: E2E_KEY });
  b = await openBrowser({ clientIp: '198.51.100.41' });
  page = b.page;
});
after(async () => {
  if (b) await b.close();
  if (receiver) await new Promise((resolve) => receiver.close(resolve));
});

const card = () => page.locator('.wh-list > li').first();

test('create a subscription, send a test event and see the attempt in the delivery log', async () => {
  await page.goto('/#/webhooks');
  await page.getByLabel('API key with the “webhooks” scope').fill(E2E_KEY);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await page.getByText('No subscriptions yet.').waitFor();
  await assertControlsLabelled(page);

  // Refused by the API: not https and not loopback. The message sits under the URL field.
  await page.getByLabel('Receiver URL').fill('http://example.org/hook');
  await page.getByRole('button', { name: 'Generate a secret' }).click();
  await page.getByRole('button', { name: 'Create subscription' }).click();
  const urlError = page.locator('.wh-form .field', { has: page.getByLabel('Receiver URL') }).locator('.field-error');
  await urlError.waitFor({ state: 'visible' });
  assert.equal(await page.getByLabel('Receiver URL').getAttribute('aria-invalid'), 'true');

  const hook = `http://127.0.0.1:${port}/hook`;
  await page.getByLabel('Receiver URL').fill(hook);
  await page.getByRole('checkbox', { name: 'critical_finding.detected' }).check();
  await page.getByRole('button', { name: 'Create subscription' }).click();
  await page.getByText(/Created wh_/).waitFor();
  assert.equal(await urlError.isVisible(), false);
  assert.match(await card().innerText(), new RegExp(hook.replace(/[.:/]/g, '\\$&')));
  assert.match(await card().locator('.badge.active').innerText(), /active/);
  // The secret is never shown back.
  assert.equal(await page.getByLabel('Signing secret').inputValue(), '');

  await card().getByLabel('Event type').selectOption('critical_finding.detected');
  await card().getByRole('button', { name: 'Send test event' }).click();
  await card().getByText(/Queued test event evt_/).waitFor();
  const deadline = Date.now() + 60000;
  while (!received.some((r) => r.method === 'POST') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  const delivery = received.find((r) => r.method === 'POST');
  assert.ok(delivery, 'the receiver got the test event');
  assert.match(delivery.body, /critical_finding\.detected/);
  // The log polls until the attempt appears.
  const row = card().locator('.deliveries-table tbody tr', { hasText: 'critical_finding.detected' });
  await row.waitFor({ timeout: 60000 });
  assert.match(await row.innerText(), /succeeded/);
  assert.match(await row.innerText(), /200/);
  assert.match(await row.innerText(), /1 of 5/);
  await shot(page, 'webhooks-delivery-log');
  assertNoPageErrors(b.errors);
});

test('deactivate: a test event is refused next to its field; reactivate, edit, delete', async () => {
  await card().getByRole('button', { name: /^Deactivate/ }).click();
  await card().locator('.badge.inactive').waitFor();
  await card().getByRole('button', { name: 'Send test event' }).click();
  const typeError = card().locator('.field', { has: page.getByLabel('Event type') }).locator('.field-error');
  await typeError.waitFor({ state: 'visible' });
  assert.match(await typeError.innerText(), /Reactivate the subscription first/);
  await shot(page, 'webhooks-inactive');

  await card().getByRole('button', { name: /^Reactivate/ }).click();
  await card().locator('.badge.active').waitFor();

  await card().getByRole('button', { name: /^Edit/ }).click();
  await card().getByRole('checkbox', { name: 'report.sent' }).check();
  await card().getByRole('button', { name: 'Save' }).click();
  await card().locator('.tag', { hasText: 'report.sent' }).waitFor();

  await card().getByRole('button', { name: /^Delete/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete subscription' }).click();
  await page.getByText('No subscriptions yet.').waitFor();
  const list = await apiCall('/api/v1/webhooks', { key: E2E_KEY });
  assert.equal(list.body.meta.total, 0);
  assertNoPageErrors(b.errors);
});
