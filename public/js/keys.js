// API keys for the screens that need one. A key is kept in this tab's sessionStorage only
// (never localStorage, never a cookie, never a URL): it is gone when the tab closes.

import { h, field, setFieldError, newId } from './dom.js';

const SCOPES = ['context', 'templates', 'webhooks'];
const KEY_FORMAT = /^rr_[a-z0-9]{4,32}_[A-Za-z0-9]{16,128}$/;

function storageKey(scope) {
  return `radref.key.${scope}`;
}

/** The stored key for a scope, or null. */
export function storedKey(scope) {
  try {
    return sessionStorage.getItem(storageKey(scope));
  } catch {
    return null; // storage disabled: the key lives only in the field
  }
}

/** Masks a key for display: the public id stays, the secret does not. */
export function maskKey(key) {
  const m = /^rr_([a-z0-9]+)_/.exec(key || '');
  return m ? `rr_${m[1]}_••••••••` : '••••••••';
}

/**
 * A key form for one scope. `onChange(key|null)` runs when a key is saved or forgotten.
 * Returns {el, get}.
 */
export function keyPanel(scope, { purpose, onChange }) {
  const input = h('input', { type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: 'rr_…' });
  const f = field(`API key with the “${scope}” scope`, input, {
    name: `key-${scope}`,
    hint: `${purpose} Kept in this tab's session storage only; closing the tab forgets it.`,
  });
  const state = h('p', { class: 'key-state', role: 'status', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit' }, 'Use this key');
  const forget = h('button', { type: 'button', class: 'secondary' }, 'Forget key');
  const titleId = newId('keys');
  const form = h('form', { class: 'key-form', 'aria-labelledby': titleId },
    h('h2', { id: titleId, class: 'visually-hidden' }, `API key (${scope})`),
    f.wrap, h('div', { class: 'actions' }, save, forget), state);

  // A key given on another screen (the development keys have every scope) can be reused here.
  const reuse = h('button', { type: 'button', class: 'secondary', hidden: true });
  form.querySelector('.actions').append(reuse);
  let current = storedKey(scope);
  const show = () => {
    state.textContent = current ? `Using key ${maskKey(current)} (session storage).` : 'No key entered yet.';
    forget.hidden = !current;
    const other = current ? null : SCOPES.filter((s) => s !== scope).map((s) => [s, storedKey(s)]).find(([, k]) => k);
    reuse.hidden = !other;
    if (other) {
      reuse.textContent = `Use the key entered for ${other[0]} (${maskKey(other[1])})`;
      reuse.onclick = () => { input.value = other[1]; form.requestSubmit(); };
    }
  };
  show();

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!KEY_FORMAT.test(value)) {
      setFieldError(f, 'This does not look like a radref key: rr_<id>_<secret>, letters and digits only.');
      input.focus();
      return;
    }
    setFieldError(f, null);
    current = value;
    try { sessionStorage.setItem(storageKey(scope), value); } catch { /* kept in memory only */ }
    input.value = '';
    show();
    onChange(current);
  });
  forget.addEventListener('click', () => {
    current = null;
    try { sessionStorage.removeItem(storageKey(scope)); } catch { /* nothing stored */ }
    show();
    onChange(null);
    input.focus();
  });

  return { el: form, get: () => current, field: f };
}
