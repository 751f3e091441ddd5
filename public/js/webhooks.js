// The webhooks console: the key's subscriptions (list, create, edit, reactivate, delete), a
// test event of any type, and each subscription's delivery log, refreshed on demand or polled
// (deliveries run asynchronously through a queue). Needs a key with the webhooks scope.

import { api } from './api.js';
import { h, mount, field, setFieldError, statusLine, errorBox, loading, time, confirmDialog, newId } from './dom.js';
import { keyPanel } from './keys.js';

export const EVENT_TYPES = ['report.created', 'report.finalized', 'report.sent', 'report.updated', 'critical_finding.detected', 'connection.status_changed'];
const PAGE = 20;
const POLL_MS = 3000;
const REASONS = { delivery_failures: 'after repeated delivery failures', by_request: 'on request' };

/** A random secret of 32 bytes, hex: what a newcomer should use unless they have one. */
function generateSecret() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A fieldset of event checkboxes; returns {el, get, set, error}. */
function eventsField(selected = []) {
  const legendId = newId('events');
  const error = h('p', { class: 'field-error', hidden: true, id: `${legendId}-error` });
  const boxes = EVENT_TYPES.map((t) => {
    const box = h('input', { type: 'checkbox', value: t, checked: selected.includes(t), id: newId('ev') });
    return { t, box, wrap: h('div', { class: 'field-check' }, box, h('label', { for: box.id }, t)) };
  });
  const el = h('fieldset', { class: 'events', 'aria-describedby': error.id }, h('legend', { id: legendId }, 'Events'), boxes.map((b) => b.wrap), error);
  const f = {
    el,
    error,
    input: boxes[0].box,
    wrap: el,
    get: () => boxes.filter((b) => b.box.checked).map((b) => b.t),
  };
  return f;
}

export async function render(view) {
  const timers = new Set();
  const createRegion = h('section', { 'aria-labelledby': 'wh-new-h' });
  const listRegion = h('section', { 'aria-labelledby': 'wh-list-h' });
  const key = keyPanel('webhooks', {
    purpose: 'Subscriptions belong to the key’s user.',
    onChange: (k) => { stopAll(); if (k) refresh(); else showNoKey(); },
  });
  const listStatus = statusLine();
  const listBody = h('div', {});
  const pager = h('nav', { 'aria-label': 'Subscription pages', class: 'pager' });
  let offset = 0;

  // Create.
  const url = field('Receiver URL', h('input', { type: 'url', required: true, placeholder: 'https://example.org/radref-hook', autocomplete: 'off' }),
    { name: 'url', hint: 'https only (http to 127.0.0.1 is allowed in development and tests).' });
  const events = eventsField(['report.finalized']);
  const secret = field('Signing secret', h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', minlength: '16', maxlength: '256' }),
    { name: 'secret', hint: '16 to 256 characters. radref signs each delivery with it and never shows it again: keep a copy.' });
  const gen = h('button', { type: 'button', class: 'secondary' }, 'Generate a secret');
  gen.addEventListener('click', () => { secret.input.value = generateSecret(); secret.input.focus(); });
  const createButton = h('button', { type: 'submit' }, 'Create subscription');
  const createStatus = statusLine();
  const createError = h('div', {});
  const createForm = h('form', { class: 'wh-form', novalidate: true, 'aria-labelledby': 'wh-new-h' },
    url.wrap, events.el, secret.wrap, h('div', { class: 'actions' }, gen), createError, h('div', { class: 'actions' }, createButton), createStatus);
  mount(createRegion, h('h2', { id: 'wh-new-h' }, 'New subscription'), createForm);
  mount(listRegion, h('h2', { id: 'wh-list-h' }, 'Subscriptions'), listStatus, listBody, pager);
  mount(view, h('h1', {}, 'Webhooks'),
    h('p', { class: 'lead' }, 'radref posts signed events to your receiver. Create a subscription, send it a test event, and watch the delivery attempts; failed deliveries are retried, and a subscription that keeps failing is deactivated until you reactivate it.'),
    key.el, createRegion, listRegion);

  const fieldsOf = (f) => ({ url: f.url, events: f.events, secret: f.secret, active: f.active });
  function blame(err, fields, fallback) {
    if (err.status === 401 || err.status === 403 && !err.field) setFieldError(key.field, err.message);
    const target = err.field && fields[err.field];
    if (target) { setFieldError(target, err.message); (target.input || target.el).focus(); } else mount(fallback, errorBox(err, 'The request failed'));
  }

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const f of [url, events, secret]) setFieldError(f, null);
    mount(createError);
    if (!key.get()) { setFieldError(key.field, 'Enter a key with the webhooks scope first.'); key.field.input.focus(); return; }
    if (!url.input.value.trim()) { setFieldError(url, 'Enter the URL of your receiver.'); url.input.focus(); return; }
    if (!events.get().length) { setFieldError(events, 'Choose at least one event.'); events.input.focus(); return; }
    try {
      const { data } = await loading({ status: createStatus, button: createButton, label: 'Creating…' }, () => api('/api/v1/webhooks', {
        method: 'POST', key: key.get(), body: { url: url.input.value.trim(), events: events.get(), secret: secret.input.value },
      }));
      createStatus.textContent = `Created ${data.data.id} for ${data.data.url}.`;
      secret.input.value = '';
      offset = 0;
      await refresh(data.data.id);
    } catch (err) {
      createStatus.textContent = 'Not created.';
      blame(err, { url, events, secret }, createError);
    }
  });

  function showNoKey() {
    mount(listBody, h('p', { class: 'empty' }, 'Enter a key with the webhooks scope above to see your subscriptions.'));
    mount(pager);
    listStatus.textContent = '';
  }

  function stopAll() {
    for (const t of timers) clearInterval(t);
    timers.clear();
  }

  async function refresh(focusId) {
    if (!key.get()) { showNoKey(); return; }
    stopAll();
    try {
      const { data } = await loading({ status: listStatus, region: listBody, label: 'Loading subscriptions…' },
        () => api('/api/v1/webhooks', { key: key.get(), query: { limit: PAGE, offset } }));
      const { meta } = data;
      listStatus.textContent = data.data.length
        ? `Showing ${meta.offset + 1}–${meta.offset + data.data.length} of ${meta.total} subscription${meta.total === 1 ? '' : 's'}.`
        : 'No subscriptions yet.';
      mount(listBody, data.data.length ? h('ul', { class: 'cards wh-list' }, data.data.map((w) => card(w))) : h('p', { class: 'empty' }, 'Create one above.'));
      const prev = h('button', { type: 'button', class: 'secondary', disabled: meta.offset === 0 }, '← Previous page');
      const next = h('button', { type: 'button', class: 'secondary', disabled: !meta.has_more }, 'Next page →');
      prev.addEventListener('click', () => { offset = Math.max(0, offset - PAGE); refresh(); });
      next.addEventListener('click', () => { offset += PAGE; refresh(); });
      mount(pager, meta.total > PAGE ? [prev, ' ', next] : null);
      if (focusId) {
        const el = listBody.querySelector(`[data-id="${CSS.escape(focusId)}"] h3`);
        if (el) { el.setAttribute('tabindex', '-1'); el.focus(); }
      }
    } catch (err) {
      listStatus.textContent = 'Could not load the subscriptions.';
      if (err.status === 401 || err.status === 403) setFieldError(key.field, err.message);
      const missing = err.status === 404 ? ' This radref does not serve the webhooks routes.' : '';
      mount(listBody, errorBox({ ...err, message: err.message + missing }, 'Loading subscriptions failed'));
      mount(pager);
    }
  }

  function card(w) {
    const id = encodeURIComponent(w.id);
    const cardStatus = statusLine();
    const cardError = h('div', {});
    const body = h('div', {});
    const li = h('li', { class: `card wh ${w.active ? '' : 'inactive'}`, dataset: { id: w.id } });

    const stateBadge = w.active
      ? h('span', { class: 'badge active' }, 'active')
      : h('span', { class: 'badge inactive' }, `inactive${w.deactivated_reason ? ` ${REASONS[w.deactivated_reason] || w.deactivated_reason}` : ''}`);
    const toggle = h('button', { type: 'button', class: w.active ? 'secondary' : '' }, w.active ? 'Deactivate' : 'Reactivate');
    const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit');
    const del = h('button', { type: 'button', class: 'danger' }, 'Delete');
    for (const b of [toggle, edit, del]) b.setAttribute('aria-label', `${b.textContent} ${w.url}`);

    const patch = async (changes, button, label) => {
      mount(cardError);
      const { data } = await loading({ status: cardStatus, button, label }, () => api(`/api/v1/webhooks/${id}`, { method: 'PATCH', key: key.get(), body: changes }));
      return data.data;
    };
    toggle.addEventListener('click', async () => {
      try {
        const updated = await patch({ active: !w.active }, toggle, w.active ? 'Deactivating…' : 'Reactivating…');
        li.replaceWith(card(updated));
        const again = listBody.querySelector(`[data-id="${CSS.escape(w.id)}"] h3`);
        if (again) { again.setAttribute('tabindex', '-1'); again.focus(); }
      } catch (err) { cardStatus.textContent = ''; mount(cardError, errorBox(err, w.active ? 'Not deactivated' : 'Not reactivated')); }
    });
    del.addEventListener('click', async () => {
      const yes = await confirmDialog({ title: 'Delete this subscription?', body: `${w.url} will receive no more events, and its delivery log goes with it. This cannot be undone.`, confirm: 'Delete subscription' });
      if (!yes) { del.focus(); return; }
      try {
        await loading({ status: cardStatus, button: del, label: 'Deleting…' }, () => api(`/api/v1/webhooks/${id}`, { method: 'DELETE', key: key.get() }));
        await refresh();
        listStatus.textContent = `Deleted the subscription for ${w.url}. ${listStatus.textContent}`;
      } catch (err) { cardStatus.textContent = ''; mount(cardError, errorBox(err, 'Not deleted')); }
    });
    edit.addEventListener('click', () => openEdit());

    function openEdit() {
      const f = {
        url: field('Receiver URL', h('input', { type: 'url', value: w.url, autocomplete: 'off' }), { name: 'url' }),
        events: eventsField(w.events),
        secret: field('New signing secret', h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' }), { name: 'secret', hint: 'Leave empty to keep the current secret.' }),
        active: field('Active', h('input', { type: 'checkbox', checked: w.active }), { name: 'active' }),
      };
      const save = h('button', { type: 'submit' }, 'Save');
      const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
      const err = h('div', {});
      const form = h('form', { class: 'wh-edit', novalidate: true, 'aria-label': `Edit ${w.url}` }, f.url.wrap, f.events.el, f.secret.wrap, f.active.wrap, err, h('div', { class: 'actions' }, save, cancel));
      mount(body, form);
      f.url.input.focus();
      cancel.addEventListener('click', () => { mount(body); edit.focus(); });
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        for (const x of Object.values(f)) setFieldError(x, null);
        mount(err);
        const changes = {};
        if (f.url.input.value.trim() !== w.url) changes.url = f.url.input.value.trim();
        const ev = f.events.get();
        if (!ev.length) { setFieldError(f.events, 'Choose at least one event.'); return; }
        if (ev.join() !== w.events.join()) changes.events = ev;
        if (f.secret.input.value) changes.secret = f.secret.input.value;
        if (f.active.input.checked !== w.active) changes.active = f.active.input.checked;
        if (!Object.keys(changes).length) { mount(body); cardStatus.textContent = 'Nothing changed.'; return; }
        try {
          const updated = await patch(changes, save, 'Saving…');
          li.replaceWith(card(updated));
        } catch (e2) { cardStatus.textContent = 'Not saved.'; blame(e2, fieldsOf(f), err); }
      });
    }

    // Test event.
    const type = field('Event type', h('select', {}, EVENT_TYPES.map((t) => h('option', { value: t }, t))), { name: 'type' });
    const send = h('button', { type: 'submit' }, 'Send test event');
    const testStatus = statusLine();
    const testForm = h('form', { class: 'inline-form', 'aria-label': `Send a test event to ${w.url}` }, type.wrap, h('div', { class: 'actions' }, send), testStatus);
    testForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      setFieldError(type, null);
      try {
        const { data } = await loading({ status: testStatus, button: send, label: 'Sending…' }, () => api(`/api/v1/webhooks/${id}/test`, { method: 'POST', key: key.get(), body: { type: type.input.value } }));
        testStatus.textContent = `Queued test event ${data.data.id} (${data.data.type}). Its delivery appears in the log below.`;
        log.open = true;
        watchFor(data.data.id);
      } catch (err) {
        testStatus.textContent = '';
        setFieldError(type, err.status === 409 ? `${err.message} Reactivate the subscription first.` : err.message);
      }
    });

    // Delivery log.
    const logStatus = statusLine();
    const logBody = h('div', {});
    const refreshLog = h('button', { type: 'button', class: 'secondary' }, 'Refresh log');
    const auto = h('input', { type: 'checkbox', id: newId('auto') });
    const autoWrap = h('div', { class: 'field-check' }, auto, h('label', { for: auto.id }, `Refresh every ${POLL_MS / 1000} s`));
    const log = h('details', { class: 'deliveries' }, h('summary', {}, 'Delivery log'),
      h('div', { class: 'actions' }, refreshLog, autoWrap), logStatus, logBody);
    let pollTimer = null;
    const setPolling = (on) => {
      auto.checked = on;
      if (pollTimer) { clearInterval(pollTimer); timers.delete(pollTimer); pollTimer = null; }
      if (on) { pollTimer = setInterval(() => loadLog(true), POLL_MS); timers.add(pollTimer); }
    };
    auto.addEventListener('change', () => setPolling(auto.checked));
    refreshLog.addEventListener('click', () => loadLog());
    log.addEventListener('toggle', () => { if (log.open) loadLog(); else setPolling(false); });

    let waitingFor = null;
    function watchFor(eventId) {
      waitingFor = eventId;
      setPolling(true);
      loadLog();
    }

    async function loadLog(quiet) {
      try {
        const { data } = await loading({ status: quiet ? null : logStatus, button: refreshLog, label: 'Loading deliveries…' },
          () => api(`/api/v1/webhooks/${id}/deliveries`, { key: key.get(), query: { limit: 50 } }));
        const rows = data.data;
        const now = new Date().toLocaleTimeString();
        logStatus.textContent = `${data.meta.total} attempt${data.meta.total === 1 ? '' : 's'}; refreshed at ${now}.${waitingFor && !rows.some((r) => r.event_id === waitingFor) ? ` Waiting for ${waitingFor}…` : ''}`;
        if (waitingFor && rows.some((r) => r.event_id === waitingFor)) { waitingFor = null; setPolling(false); }
        mount(logBody, rows.length ? h('div', { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': `Deliveries to ${w.url}` },
          h('table', { class: 'deliveries-table' },
            h('thead', {}, h('tr', {}, ['When', 'Event', 'Attempt', 'Outcome', 'HTTP status', 'Duration', 'Error', 'Next attempt', ''].map((x) => h('th', { scope: 'col' }, x)))),
            h('tbody', {}, rows.map(attemptRow))))
          : h('p', { class: 'empty' }, 'No delivery attempts yet.'));
      } catch (err) {
        setPolling(false);
        logStatus.textContent = '';
        mount(logBody, errorBox(err, 'Could not load the delivery log'));
      }
    }

    function attemptRow(a) {
      const redeliver = h('button', { type: 'button', class: 'secondary', 'aria-label': `Redeliver ${a.event_id}` }, 'Redeliver');
      const note = h('span', { class: 'small', role: 'status' });
      redeliver.addEventListener('click', async () => {
        try {
          await loading({ button: redeliver, status: note, label: 'Queuing…' }, () => api(`/api/v1/webhooks/${id}/deliveries/${encodeURIComponent(a.event_id)}/redeliver`, { method: 'POST', key: key.get() }));
          note.textContent = 'Queued again.';
          watchFor(null);
          setPolling(true);
          setTimeout(() => setPolling(false), 30000);
        } catch (err) {
          note.textContent = '';
          note.append(errorBox(err, 'Not redelivered'));
        }
      });
      return h('tr', { class: `outcome-${a.outcome}` },
        h('td', {}, time(a.attempted_at)),
        h('td', {}, a.type, h('div', { class: 'small muted' }, a.event_id)),
        h('td', {}, `${a.attempt} of 5`),
        h('td', {}, h('span', { class: `badge ${a.outcome}` }, a.outcome)),
        h('td', {}, a.status_code ?? '—'),
        h('td', {}, `${a.duration_ms} ms`),
        h('td', {}, a.error || '—'),
        h('td', {}, a.next_attempt_at ? time(a.next_attempt_at) : '—'),
        h('td', {}, redeliver, note));
    }

    mount(li,
      h('h3', {}, w.url),
      h('p', { class: 'badges' }, stateBadge, h('span', { class: 'muted small' }, ` ${w.id} · created `, time(w.created_at), ' · updated ', time(w.updated_at),
        w.deactivated_at ? [' · deactivated ', time(w.deactivated_at)] : null)),
      h('p', {}, 'Events: ', w.events.map((e) => h('span', { class: 'tag' }, e))),
      h('div', { class: 'actions' }, edit, toggle, del),
      cardStatus, cardError, body, testForm, log);
    return li;
  }

  await refresh();
  return stopAll;
}
