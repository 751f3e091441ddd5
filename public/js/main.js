// The page shell: a hash router that renders one screen into <main>, keeps the navigation's
// current link marked, moves focus to the new screen's heading, and shows the service's health.

import { api } from './api.js';
import { h, mount, errorBox } from './dom.js';
import * as explore from './explore.js';
import * as system from './system.js';
import * as ground from './ground.js';
import * as templates from './templates.js';
import * as webhooks from './webhooks.js';
import * as feeds from './feeds.js';

const main = document.getElementById('main');
let cleanup = null;

/** '#/systems/x?a=b' -> {parts: ['systems', 'x'], params: URLSearchParams} */
function parseHash() {
  const raw = window.location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

function resolve({ parts }) {
  switch (parts[0]) {
    case undefined: case 'explore': return ['explore', explore.render];
    case 'systems': return parts[1] ? ['explore', (el, p) => system.render(el, parts[1], p)] : ['explore', explore.render];
    case 'ground': return ['ground', ground.render];
    case 'templates': return ['templates', templates.render];
    case 'webhooks': return ['webhooks', webhooks.render];
    case 'changes': return ['changes', feeds.renderChanges];
    case 'coverage': return ['coverage', feeds.renderCoverage];
    default: return [null, notFound];
  }
}

function notFound(el) {
  mount(el, h('h1', {}, 'No such screen'), h('p', {}, 'This address names no screen of the page. ',
    h('a', { href: '#/' }, 'Go to the explorer'), '.'));
}

async function route() {
  if (cleanup) { try { cleanup(); } catch { /* the old screen is gone anyway */ } cleanup = null; }
  const parsed = parseHash();
  const [nav, render] = resolve(parsed);
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // The address this screen stands at; only the screen may move it on (dom.keepAddress).
  const view = h('div', { class: 'view', dataset: { address: window.location.hash } });
  mount(main, view);
  try {
    const result = render(view, parsed.params);
    // Screens may return a cleanup function (timers), directly or from a promise.
    const fn = await result;
    if (typeof fn === 'function') cleanup = fn;
  } catch (err) {
    view.append(errorBox(err, 'This screen failed'));
  }
}

function focusHeading() {
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
}

async function health() {
  const slot = document.getElementById('health');
  try {
    const { data } = await api('/api/v1/health');
    slot.textContent = `radref ${data.version} · API ${data.api_version} · ${data.environment} · corpus ${data.corpus.systems} systems, ${data.corpus.clinical_lines.toLocaleString()} clinical lines (${data.corpus.hash.slice(0, 12)})`;
  } catch (err) {
    mount(slot, errorBox(err, 'Health check'));
  }
}

// The skip link must not change the hash (the router owns it): it just moves focus.
document.querySelector('.skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', async () => {
  await route();
  focusHeading();
});
route();
health();
