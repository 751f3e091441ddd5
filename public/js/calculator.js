// The calculator of a system page. Its form is generated from the system's `inputs` (no code
// per system): enums as radio buttons (a select when there are many values), multis as
// checkboxes, numbers as number fields with their unit and range, booleans as yes/no/unknown.
// Inputs computed by a decision unit (`derived_from`) get no control. Every change runs the
// system's rules through GET /api/v1/systems/{slug}/evaluate (debounced, so the answer has a
// shareable URL) and shows, per decision unit, the decided category or result, the cited rule,
// the outcome's definition, risk and management lines, what is still missing (with links that
// move focus to the controls) and the thresholds at which the answer would change. The inputs
// are also kept in the page's own address, so a reload or a shared page link restores them.

import { api } from './api.js';
import { h, mount, errorBox, debounce, keepAddress } from './dom.js';
import { lineView } from './provenance.js';

/** Enums with more values than this are a select instead of radio buttons. */
const RADIO_LIMIT = 8;
const DEBOUNCE_MS = 250;
const STATUS_WORDS = { decided: 'decided', needs_inputs: 'needs inputs', not_reached: 'not reached' };

/** The DOM id of an input's control group: the target of the "still needed" links. */
const groupId = (input) => `calc-in-${input.id}`;

/** "mm, 0 or more", "%, from 0 to 100": what a number input accepts. */
function numberHint(input) {
  const bits = [];
  if (input.unit) bits.push(`in ${input.unit}`);
  if (input.min !== undefined && input.max !== undefined) bits.push(`from ${input.min} to ${input.max}`);
  else if (input.min !== undefined) bits.push(`${input.min} or more`);
  else if (input.max !== undefined) bits.push(`${input.max} or less`);
  return bits.join(', ');
}

/** The input's own definition line (with its source), behind a disclosure. */
function about(input, refs) {
  if (!input.text) return null;
  return h('details', { class: 'calc-about' },
    h('summary', {}, 'Definition', h('span', { class: 'visually-hidden' }, ` of ${input.label}`)),
    lineView(input, refs));
}

function optionLabel(v) {
  return [v.label, v.points !== undefined ? h('span', { class: 'muted' }, ` (${v.points} point${v.points === 1 ? '' : 's'})`) : null];
}

/** The error slot of a control group; `set(message)` shows or clears it. */
function errorSlot(input, controls) {
  const el = h('p', { class: 'field-error', id: `${groupId(input)}-error`, hidden: true });
  return {
    el,
    set(message) {
      el.hidden = !message;
      el.textContent = message || '';
      for (const c of controls()) {
        if (message) c.setAttribute('aria-invalid', 'true');
        else c.removeAttribute('aria-invalid');
      }
    },
  };
}

/** A group of radio buttons: the values, then a choice for "not stated" (checked at first). */
function radioGroup(input, refs, values, unsetLabel) {
  const name = `calc-${input.id}`;
  const radios = [];
  const option = (value, label, checked) => {
    const id = `${name}-${value === '' ? 'unset' : value}`;
    const radio = h('input', { type: 'radio', name, id, value, checked: checked ? 'checked' : undefined });
    radios.push(radio);
    return h('div', { class: 'calc-option' }, radio, h('label', { for: id }, label));
  };
  const error = errorSlot(input, () => radios);
  const el = h('fieldset', { class: 'calc-group', id: groupId(input), 'aria-describedby': error.el.id },
    h('legend', {}, input.label),
    h('div', { class: 'calc-options' },
      values.map((v) => option(v.value, optionLabel(v), false)),
      option('', h('span', { class: 'muted' }, unsetLabel), true)),
    about(input, refs), error.el);
  return {
    el,
    error,
    read() {
      const on = radios.find((r) => r.checked);
      return on && on.value !== '' ? on.value : undefined;
    },
    write(value) {
      const target = radios.find((r) => r.value === (value ?? '')) || radios[radios.length - 1];
      target.checked = true;
    },
    focus() { (radios.find((r) => r.checked) || radios[0]).focus(); },
  };
}

function enumControl(input, refs) {
  if (input.values.length <= RADIO_LIMIT) return radioGroup(input, refs, input.values, 'Not stated');
  const id = `calc-${input.id}`;
  const select = h('select', { id, name: id },
    h('option', { value: '' }, 'Not stated'),
    input.values.map((v) => h('option', { value: v.value }, v.label + (v.points !== undefined ? ` (${v.points} points)` : ''))));
  const error = errorSlot(input, () => [select]);
  select.setAttribute('aria-describedby', error.el.id);
  const el = h('div', { class: 'calc-group calc-field', id: groupId(input) },
    h('label', { for: id, class: 'calc-label' }, input.label), select, about(input, refs), error.el);
  return {
    el,
    error,
    read: () => select.value || undefined,
    write(value) { select.value = value ?? ''; if (select.value !== (value ?? '')) select.value = ''; },
    focus: () => select.focus(),
  };
}

function booleanControl(input, refs) {
  return radioGroup(input, refs, [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }], 'Unknown');
}

/**
 * Checkboxes of a multi input. Nothing ticked means "not stated"; "None of these" states that
 * none applies (an empty list), unless the system has a "none" value of its own.
 */
function multiControl(input, refs) {
  const name = `calc-${input.id}`;
  const boxes = [];
  const box = (value, label) => {
    const id = `${name}-${value || 'none-chosen'}`;
    const cb = h('input', { type: 'checkbox', name, id, value });
    boxes.push(cb);
    return h('div', { class: 'calc-option' }, cb, h('label', { for: id }, label));
  };
  const hasNone = input.values.some((v) => v.value === 'none' || v.value.startsWith('none_'));
  const options = input.values.map((v) => box(v.value, optionLabel(v)));
  let noneBox = null;
  if (!hasNone) {
    options.push(box('', 'None of these'));
    noneBox = boxes[boxes.length - 1];
    // "None of these" and a value exclude each other.
    for (const cb of boxes) {
      cb.addEventListener('change', () => {
        if (!cb.checked) return;
        if (cb === noneBox) for (const other of boxes) { if (other !== noneBox) other.checked = false; }
        else noneBox.checked = false;
      });
    }
  }
  const error = errorSlot(input, () => boxes);
  const hint = h('p', { class: 'hint', id: `${groupId(input)}-hint` },
    noneBox ? 'Tick all that apply, or “None of these”; nothing ticked means not stated.' : 'Tick all that apply; nothing ticked means not stated.');
  const el = h('fieldset', { class: 'calc-group', id: groupId(input), 'aria-describedby': `${hint.id} ${error.el.id}` },
    h('legend', {}, input.label), hint, h('div', { class: 'calc-options' }, options), about(input, refs), error.el);
  return {
    el,
    error,
    read() {
      if (noneBox && noneBox.checked) return [];
      const chosen = boxes.filter((b) => b !== noneBox && b.checked).map((b) => b.value);
      return chosen.length ? chosen : undefined;
    },
    write(value) {
      const list = value === undefined ? [] : value;
      for (const b of boxes) b.checked = b === noneBox ? value !== undefined && list.length === 0 : list.includes(b.value);
    },
    focus() { (boxes.find((b) => b.checked) || boxes[0]).focus(); },
  };
}

function numberControl(input, refs) {
  const id = `calc-${input.id}`;
  const hintText = numberHint(input);
  const field = h('input', { type: 'number', id, name: id, inputmode: 'decimal', step: 'any', autocomplete: 'off',
    min: input.min, max: input.max, class: 'calc-number' });
  const error = errorSlot(input, () => [field]);
  const hintId = `${groupId(input)}-hint`;
  field.setAttribute('aria-describedby', [hintText ? hintId : null, error.el.id].filter(Boolean).join(' '));
  const el = h('div', { class: 'calc-group calc-field', id: groupId(input) },
    h('label', { for: id, class: 'calc-label' }, input.label, input.unit ? ` (${input.unit})` : ''),
    h('div', { class: 'calc-number-row' }, field, input.unit ? h('span', { class: 'calc-suffix', 'aria-hidden': 'true' }, input.unit) : null),
    hintText ? h('p', { class: 'hint', id: hintId }, `A number ${hintText}; empty means not stated.`) : null,
    about(input, refs), error.el);
  return {
    el,
    error,
    /** The number, or undefined when empty; {invalid: message} when it cannot be sent. */
    read() {
      const raw = field.value.trim();
      if (raw === '') {
        return field.validity.badInput ? { invalid: `${input.label} must be a number.` } : undefined;
      }
      const x = Number(raw);
      if (!Number.isFinite(x)) return { invalid: `${input.label} must be a number.` };
      if (input.min !== undefined && x < input.min) return { invalid: `${input.label} must be at least ${input.min}${input.unit ? ` ${input.unit}` : ''}.` };
      if (input.max !== undefined && x > input.max) return { invalid: `${input.label} must be at most ${input.max}${input.unit ? ` ${input.unit}` : ''}.` };
      return x;
    },
    write(value) { field.value = value === undefined ? '' : String(value); },
    focus: () => field.focus(),
  };
}

function control(input, refs) {
  switch (input.type) {
    case 'enum': return enumControl(input, refs);
    case 'multi': return multiControl(input, refs);
    case 'number': return numberControl(input, refs);
    case 'boolean': return booleanControl(input, refs);
    default: return null;
  }
}

/** Reads one input's value from a query parameter (the page address uses the API's form). */
function parseParam(input, raw) {
  switch (input.type) {
    case 'multi': return raw === '' ? [] : raw.split(',').filter(Boolean);
    case 'number': return raw === '' ? undefined : raw;
    case 'boolean': return raw === 'true' || raw === '1' ? 'true' : raw === 'false' || raw === '0' ? 'false' : undefined;
    default: return raw === '' ? undefined : raw;
  }
}

/** `composition=solid&echogenic_foci=a,b`: the API's query form, in the system's input order. */
function toQuery(values) {
  return values.map(([id, v]) => `${encodeURIComponent(id)}=${Array.isArray(v) ? v.map(encodeURIComponent).join(',') : encodeURIComponent(String(v))}`).join('&');
}

/** Focuses a control group's current (or first) control without touching the router's hash. */
function focusInput(controls, id) {
  return (event) => {
    const c = controls.get(id);
    if (!c) return;
    event.preventDefault();
    c.el.scrollIntoView({ block: 'center' });
    c.focus();
  };
}

/** "Maximum nodule diameter" as a link that moves focus to its control, else plain text. */
function inputLink(controls, labels, id) {
  const label = labels[id] || id;
  if (!controls.has(id)) return h('span', {}, label);
  return h('a', { href: `#${groupId({ id })}`, onclick: focusInput(controls, id), class: 'calc-missing-link' }, label);
}

function answerText(u) {
  if (u.status === 'decided') {
    if (u.outcome) return `${u.outcome.code} ${u.outcome.label}${u.result ? `: ${u.result}` : ''}`;
    return u.result || u.answer || '';
  }
  return STATUS_WORDS[u.status];
}

function withParam(url, name, value) {
  return `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
}

function scoreView(score, labels) {
  const parts = (score.points || []).map((p) => `${labels[p.input] || p.input} ${p.points}`);
  const value = score.value === null || score.value === undefined ? 'not yet known' : score.value;
  return h('p', { class: 'calc-score' },
    h('strong', {}, `${score.label}: ${value}`),
    parts.length ? h('span', { class: 'muted' }, ` (${parts.join(', ')})`) : null,
    score.missing && score.missing.length ? h('span', { class: 'muted' }, ` · still to add: ${score.missing.map((x) => labels[x] || x).join(', ')}`) : null);
}

function unitCard(u, { refs, labels, controls, link }) {
  const headingId = `calc-unit-${u.id}-h`;
  const body = [];
  const answer = u.status === 'decided'
    ? h('p', { class: 'calc-answer' },
      u.outcome ? [h('span', { class: 'code' }, u.outcome.code), ` ${u.outcome.label}`] : null,
      u.result ? h('span', { class: 'calc-result-text' }, u.outcome ? ` · ${u.result}` : u.result) : null,
      !u.outcome && !u.result ? u.answer : null)
    : null;
  if (answer) body.push(answer);
  if (u.score) body.push(scoreView(u.score, labels));
  for (const d of u.derived || []) {
    body.push(h('p', { class: 'small muted' }, `${labels[d.input] || d.input} = ${d.value} (${d.given ? 'as given' : `from “${labels[`unit:${d.from}`] || d.from}”`})`));
  }
  if (u.status === 'decided' && u.rule) {
    body.push(h('h5', {}, 'Deciding rule'), lineView(u.rule, refs, { lead: `Rule ${u.rule.index}:` }));
  }
  if (u.status === 'needs_inputs') {
    const missing = u.missing || [];
    body.push(h('div', { class: 'calc-missing' },
      h('p', {}, h('strong', {}, 'Still needed: '), missing.flatMap((m, i) => [i ? ', ' : '', inputLink(controls, labels, m.id)]),
        missing.length ? '' : '—'),
      u.rule ? h('p', { class: 'small muted' }, `Evaluation stopped at rule ${u.rule.index}, which depends on ${missing.length === 1 ? 'it' : 'them'}: “${u.rule.text}”`) : null));
  }
  if (u.status === 'not_reached') {
    body.push(h('p', { class: 'calc-missing' }, u.reason || 'No rule of this unit holds for these inputs.'));
  }
  if (u.outcome) {
    const o = u.outcome;
    body.push(lineView(o.definition, refs, { lead: 'Definition:' }));
    if (o.risk) body.push(h('div', { class: 'risk' }, lineView(o.risk, refs, { lead: 'Risk:' })));
    body.push(h('h5', {}, 'Management'),
      o.management.length ? o.management.map((m) => lineView(m, refs))
        : h('p', { class: 'muted small' }, 'The source gives no management for this category.'));
  }
  if (u.changes && u.changes.length) {
    body.push(h('h5', {}, 'What would change it'),
      h('ul', { class: 'calc-changes' }, u.changes.map((c) => h('li', { dataset: { side: c.side } },
        h('p', { class: 'calc-change-note' }, c.note),
        lineView(c.rule, refs, { lead: `Then rule ${c.rule.index}:` })))));
  }
  if (u.trace && u.trace.length) {
    const word = { true: 'holds', false: 'does not hold', unknown: 'unknown (an input is missing)' };
    body.push(h('details', { class: 'calc-trace' },
      h('summary', {}, 'Rules tested', h('span', { class: 'visually-hidden' }, ` for ${u.title}`)),
      h('ol', { class: 'small' }, u.trace.map((t) => h('li', { value: t.rule }, `Rule ${t.rule}: ${word[t.holds] || t.holds}`)))));
  }
  const unitLink = withParam(link, 'units', u.id);
  body.push(h('p', { class: 'calc-links small' },
    h('a', { href: unitLink, class: 'calc-get-link', dataset: { unit: u.id } }, 'This result as JSON (GET link)',
      h('span', { class: 'visually-hidden' }, `: ${u.title}`))));
  return h('article', { class: `calc-unit status-${u.status}`, id: `calc-unit-${u.id}`, 'aria-labelledby': headingId, dataset: { unit: u.id, status: u.status } },
    h('h4', { id: headingId }, u.title, ' ', h('span', { class: `badge calc-status calc-status-${u.status}` }, STATUS_WORDS[u.status] || u.status)),
    body);
}

/**
 * The calculator section's content for a system, or null when the system has no decision
 * units. `s` is the system's full record, `refs` its references, `params` the page address's
 * query (restores the inputs).
 */
export function calculator(s, refs, params) {
  if (!s.decision_units || !s.decision_units.length) return null;
  const slug = s.slug;
  const labels = {};
  for (const i of s.inputs) labels[i.id] = i.label;
  for (const u of s.decision_units) labels[`unit:${u.id}`] = u.title;
  const asked = s.inputs.filter((i) => !i.derived_from);
  const derived = s.inputs.filter((i) => i.derived_from);
  const controls = new Map();
  for (const input of asked) {
    const c = control(input, refs);
    if (c) controls.set(input.id, { ...c, input });
  }

  const summary = h('p', { class: 'calc-summary', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' },
    'Choose values; the answer appears here as you go.');
  const output = h('div', { class: 'calc-output' },
    h('p', { class: 'muted' }, 'Nothing entered yet. Each unit of the system will show its answer, the rule that decided it with its source, and what is still missing.'));
  const result = h('section', { class: 'calc-result', 'aria-labelledby': 'calc-result-h' },
    h('h3', { id: 'calc-result-h', class: 'calc-result-heading' }, 'Answer'), summary, output);

  const clear = h('button', { type: 'reset', class: 'secondary' }, 'Clear all inputs');
  const form = h('form', { class: 'calc-form', 'aria-label': `${s.short_name} inputs`, novalidate: true },
    [...controls.values()].map((c) => c.el),
    derived.length ? h('p', { class: 'small muted calc-derived' }, 'Computed, not asked: ',
      derived.map((d, i) => [i ? '; ' : '', `${d.label} (from “${labels[`unit:${d.derived_from}`] || d.derived_from}”)`])) : null,
    h('div', { class: 'actions' }, clear));

  // Restore the inputs from the page address (the API's own query form).
  let restored = false;
  for (const [id, c] of controls) {
    if (!params.has(id)) continue;
    const value = parseParam(c.input, params.get(id));
    if (value === undefined && c.input.type !== 'multi') continue;
    c.write(value);
    restored = true;
  }

  let inflight = null;
  let seq = 0;
  let lastQuery = null; // the query of the answer shown or on its way: a repeat is not sent again

  /** The inputs as entered: [[id, value]] in the system's order; invalid ones are flagged. */
  function collect() {
    const values = [];
    for (const [id, c] of controls) {
      const v = c.read();
      if (v && typeof v === 'object' && !Array.isArray(v) && v.invalid) {
        c.error.set(v.invalid);
        continue;
      }
      c.error.set(null);
      if (v !== undefined) values.push([id, v]);
    }
    return values;
  }

  function remember(query) {
    const keep = [...params].filter(([name]) => !controls.has(name));
    const rest = keep.length ? new URLSearchParams(keep).toString() : '';
    const q = [query, rest].filter(Boolean).join('&');
    const hash = `#/systems/${encodeURIComponent(slug)}${q ? `?${q}` : ''}`;
    keepAddress(form, hash);
  }

  async function evaluate() {
    const values = collect();
    const query = toQuery(values);
    remember(query);
    if (query === lastQuery) return;
    lastQuery = query;
    if (inflight) inflight.abort();
    if (!values.length) {
      seq += 1; // an answer still on its way is for older inputs
      inflight = null;
      result.removeAttribute('aria-busy');
      summary.textContent = 'No inputs given yet.';
      mount(output, h('p', { class: 'muted' }, 'Nothing entered yet. Each unit of the system will show its answer, the rule that decided it with its source, and what is still missing.'));
      return;
    }
    const mine = ++seq;
    const controller = new AbortController();
    inflight = controller;
    result.setAttribute('aria-busy', 'true');
    const path = `/api/v1/systems/${encodeURIComponent(slug)}/evaluate?${query}`;
    try {
      const { data } = await api(path, { signal: controller.signal });
      if (mine !== seq) return;
      show(data);
    } catch (err) {
      if (err.name === 'AbortError' || mine !== seq) return;
      lastQuery = null;
      // The API names the input at fault: show the message next to its control too.
      const named = /input '([a-z0-9_]+)'/.exec(err.message || '');
      if (named && controls.has(named[1])) controls.get(named[1]).error.set(err.message);
      summary.textContent = `The evaluation failed: ${err.message}`;
      mount(output, errorBox(err, 'Could not evaluate these inputs'));
    } finally {
      if (mine === seq) { result.removeAttribute('aria-busy'); inflight = null; }
    }
  }

  function show(data) {
    const link = data.links.self;
    const spoken = data.units.map((u) => {
      if (u.status === 'needs_inputs') {
        return `${u.title}: needs ${(u.missing || []).map((m) => labels[m.id] || m.id).join(', ')}`;
      }
      return `${u.title}: ${answerText(u)}`;
    });
    summary.textContent = `${spoken.join('. ')}.`;
    mount(output,
      data.missing.length ? h('p', { class: 'calc-still-needed' }, h('strong', {}, 'Still needed: '),
        data.missing.flatMap((id, i) => [i ? ', ' : '', inputLink(controls, labels, id)])) : null,
      data.units.map((u) => unitCard(u, { refs, labels, controls, link })),
      h('p', { class: 'calc-links' }, 'Shareable answer: ',
        h('a', { href: link, class: 'calc-share' }, 'all units as JSON (GET link)'), ' · ',
        h('a', { href: withParam(link, 'format', 'markdown') }, 'as markdown')));
  }

  // On a narrow screen the answer sits below the form: a link moves focus there.
  const toAnswer = (event) => {
    event.preventDefault();
    result.setAttribute('tabindex', '-1');
    result.scrollIntoView({ block: 'start' });
    result.focus({ preventScroll: true });
  };

  const later = debounce(evaluate, DEBOUNCE_MS);
  form.addEventListener('input', later);
  form.addEventListener('change', later);
  form.addEventListener('reset', () => {
    // After the browser has reset the controls ("not stated" radios are checked by default).
    setTimeout(() => { for (const c of controls.values()) c.write(undefined); evaluate(); }, 0);
  });
  form.addEventListener('submit', (event) => { event.preventDefault(); evaluate(); });
  if (restored) evaluate();

  return h('div', { class: 'calc' },
    h('p', { class: 'calc-notice', role: 'note' }, h('strong', {}, 'Reference material, not a medical device. '),
      'The calculator runs the system’s published rules as paraphrased in radref, and cites each step. It does not replace clinical judgment; check every answer against its source.'),
    h('p', { class: 'small' }, 'Every change runs the rules through ',
      h('code', {}, `GET /api/v1/systems/${slug}/evaluate`), '. Leave an input “not stated” when you do not know it: a rule that depends on it stops the unit, and the answer says what is missing.'),
    h('p', { class: 'calc-skip small' }, h('a', { href: '#calc-result-h', onclick: toAnswer }, 'Go to the answer')),
    h('div', { class: 'calc-grid' }, form, result));
}
