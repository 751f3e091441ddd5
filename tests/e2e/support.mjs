// Shared set-up of the end-to-end tests: headless Debian Chromium driven by playwright-core
// against the worker that scripts/test.sh started (BASE_URL), a fresh profile per browser,
// screenshots into SCREENSHOT_DIR, and a record of uncaught page errors (which fail a test).

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

export const BASE_URL = (process.env.BASE_URL || '').replace(/\/$/, '');
if (!BASE_URL) throw new Error('BASE_URL is not set: run the e2e tests through scripts/test.sh, or set BASE_URL to a running worker');
export const SCREENSHOT_DIR = resolve(process.env.SCREENSHOT_DIR || 'target/e2e-screenshots');
mkdirSync(SCREENSHOT_DIR, { recursive: true });

/** The browser key (tests/fixtures/keys.sql): user e2e-user, scopes context, templates, webhooks. */
export const E2E_KEY = 'rr_e2euser_endToEndBrowserTestsKey00001';
/** A key with the context scope only (for the 403 paths). */
export const CONTEXT_ONLY_KEY = 'rr_testctx1_contextKeyForIntegrationTests1';

// Flags that keep Chromium quiet and sandbox-free in this container (see the toolchain notes).
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Starts Chromium with a fresh profile. `clientIp` is sent as CF-Connecting-IP so this file's
 * corpus requests get their own rate-limit window (the test worker's corpus limit is low).
 * Returns {context, page, errors, close}.
 */
export async function openBrowser({ clientIp, viewport = { width: 1280, height: 900 }, permissions = [] } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'radref-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport,
    baseURL: BASE_URL,
  });
  if (clientIp) await context.setExtraHTTPHeaders({ 'CF-Connecting-IP': clientIp });
  if (permissions.length) await context.grantPermissions(permissions, { origin: BASE_URL });
  context.setDefaultTimeout(15000);
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  const watch = (p) => p.on('pageerror', (err) => errors.push(String(err && err.stack || err)));
  watch(page);
  context.on('page', watch);
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Holds back the page's requests to `pattern` until `release()`, then lets them through (a late
 * answer, on cue). `done()` releases and removes the hold: call it in a `finally`.
 */
export async function holdRequests(page, pattern) {
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(pattern, async (route) => { await held; await route.continue(); });
  return { release, done: async () => { release(); await page.unroute(pattern); } };
}

/** Saves a full-page screenshot as SCREENSHOT_DIR/<name>.png and returns its path. */
export async function shot(page, name) {
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Fails when the page threw an uncaught error: nothing may fail silently. */
export function assertNoPageErrors(errors) {
  assert.deepEqual(errors, [], `uncaught errors on the page:\n${errors.join('\n')}`);
}

/** Every form control on the page has an accessible name (a label or aria-label). */
export async function assertControlsLabelled(page) {
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => !el.closest('[hidden]'))
    .filter((el) => {
      if (el.tagName === 'BUTTON') return !(el.getAttribute('aria-label') || el.textContent.trim());
      if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')) return false;
      return !(el.labels && el.labels.length);
    })
    .map((el) => el.outerHTML.slice(0, 120)));
  assert.deepEqual(unlabelled, [], 'controls without an accessible name');
}

/** The page fits a phone's width: nothing forces horizontal scrolling of the whole page. */
export async function assertNoHorizontalOverflow(page) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  assert.ok(scroll <= width + 1, `page is ${scroll}px wide in a ${width}px viewport`);
}

/** Calls the API directly (for set-up the UI is not under test for). */
export async function apiCall(path, { method = 'GET', key, body } = {}) {
  const headers = {};
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${BASE_URL}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
