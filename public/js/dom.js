// Small DOM helpers. Every piece of text from the API goes in through text nodes, never through
// innerHTML, so nothing the corpus or a template holds can run as markup on this page.

/** Creates an element: h('a', {href: '#x', class: 'c'}, 'text', child, [more]). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (name === 'value' || (name in el && typeof value !== 'string' && name !== 'list')) {
      el[name] = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
/** A document-unique id with a readable prefix. */
export function newId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * A labelled form control: returns {wrap, input, error}. The error slot sits right under the
 * control and is referenced by aria-describedby, so a screen reader reads it with the field.
 */
export function field(label, control, { hint, name } = {}) {
  const id = control.id || newId(name || 'f');
  control.id = id;
  if (name) control.name = name;
  const errorId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : null;
  const error = h('p', { class: 'field-error', id: errorId, hidden: true, dataset: { errorFor: name || id } });
  control.setAttribute('aria-describedby', [hintId, errorId].filter(Boolean).join(' '));
  const isCheck = control.type === 'checkbox' || control.type === 'radio';
  const lab = h('label', { for: id }, label);
  const wrap = h('div', { class: isCheck ? 'field field-check' : 'field' },
    isCheck ? [control, lab] : [lab, control],
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    error);
  return { wrap, input: control, error };
}

/** Shows (or with null, clears) the error under a field made by `field`. */
export function setFieldError(f, message) {
  if (!f) return;
  f.error.hidden = !message;
  f.error.textContent = message || '';
  if (message) f.input.setAttribute('aria-invalid', 'true');
  else f.input.removeAttribute('aria-invalid');
}

/** A status line for loading and results; polite live region. */
export function statusLine() {
  return h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
}

/** An alert box for an error: what went wrong, in words, with the HTTP status when there is one. */
export function errorBox(err, context) {
  const box = h('div', { class: 'error-box', role: 'alert' });
  const what = context ? `${context}: ` : '';
  box.append(h('strong', {}, what), err && err.message ? err.message : String(err));
  if (err && err.status) {
    const code = err.code ? ` ${err.code}` : '';
    box.append(h('span', { class: 'error-meta' }, ` (HTTP ${err.status}${code})`));
  }
  return box;
}

/**
 * Runs `work` with a loading state: the status line says what is loading, the region is
 * aria-busy, and the button (if any) is disabled until the request ends.
 */
export async function loading({ status, region, button, label = 'Loading…' }, work) {
  if (status) { status.textContent = label; status.classList.add('busy'); }
  if (region) region.setAttribute('aria-busy', 'true');
  if (button) button.disabled = true;
  try {
    return await work();
  } finally {
    if (status) { status.classList.remove('busy'); if (status.textContent === label) status.textContent = ''; }
    if (region) region.removeAttribute('aria-busy');
    if (button) button.disabled = false;
  }
}

/** A debounced wrapper: calls fn once the calls stop for `ms`. */
export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Formats an ISO timestamp for people, keeping the exact value in a title. */
export function time(ts) {
  if (!ts) return h('span', {}, '—');
  const d = new Date(ts);
  const text = Number.isNaN(d.getTime()) ? ts : d.toLocaleString();
  return h('time', { datetime: ts, title: ts }, text);
}

/** A modal confirmation (native <dialog>): resolves true when confirmed. */
export function confirmDialog({ title, body, confirm = 'Delete', cancel = 'Cancel' }) {
  return new Promise((resolve) => {
    const titleId = newId('dlg');
    const yes = h('button', { type: 'button', class: 'danger', value: 'yes' }, confirm);
    const no = h('button', { type: 'button', value: 'no' }, cancel);
    const dlg = h('dialog', { class: 'confirm', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, title), h('p', {}, body), h('div', { class: 'actions' }, no, yes));
    const done = (answer) => { dlg.close(); dlg.remove(); resolve(answer); };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.append(dlg);
    dlg.showModal();
    no.focus();
  });
}

/**
 * Rewrites the address to `hash` without a navigation (so the screen can be bookmarked as it
 * stands), but only while the address is still the screen's own: `el` must be on the page, in a
 * screen (the router's `.view`) whose address it last stood at is the address now. A screen the
 * user has already left, whose request answered late, must not pull the address back to itself,
 * and neither must the screen still showing in the moment between a new address and the router's
 * `hashchange` (a link, the back button): that address is the next screen's.
 */
export function keepAddress(el, hash) {
  const view = el.isConnected ? el.closest('.view') : null;
  if (!view || view.dataset.address !== window.location.hash) return;
  if (window.location.hash !== hash) history.replaceState(history.state, '', hash);
  view.dataset.address = window.location.hash;
}
