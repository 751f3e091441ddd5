// The grounding playground: paste a finding or a whole report, see each finding highlighted in
// the text by what the report asserts of it, the system that governs it with the inputs read
// and the cited outcome, the prefilled calculator to edit, the systems ranked (with the
// reasons) and the markdown block an assistant would receive, ready to copy. Needs a key with
// the context scope.

import { api } from './api.js';
import { h, mount, field, setFieldError, statusLine, errorBox, loading } from './dom.js';
import { keyPanel } from './keys.js';
import { systemBadges } from './explore.js';
import { lineView } from './provenance.js';

const EXAMPLE = 'Incidental 8 mm solid pulmonary nodule in the right upper lobe on CT in a 60-year-old former smoker.';

/** Copies text, with a fallback for browsers without the async clipboard (or without focus). */
async function copyText(text, fallbackSource) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(fallbackSource);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return document.execCommand && document.execCommand('copy');
  }
}

/** The system's calculator, prefilled with what the finding stated, and the same as JSON. */
function calculatorLinks(s) {
  const query = s.links.evaluate.split('?')[1] || '';
  return h('p', { class: 'calc-links' },
    h('a', { href: `#/systems/${encodeURIComponent(s.slug)}${query ? `?${query}` : ''}` },
      'Open the calculator with what the finding states'),
    ' · ', h('a', { href: s.links.evaluate }, 'the evaluation as JSON'));
}

function rankedSystem(s, index) {
  const matched = (s.outcomes || []).filter((o) => o.matched);
  const refs = s.references || {};
  return h('li', { class: 'card ranked' },
    h('h3', {}, `${index + 1}. `, h('a', { href: `#/systems/${encodeURIComponent(s.slug)}` }, s.name)),
    h('p', { class: 'badges' }, systemBadges(s), h('span', { class: 'muted' }, ` score ${s.why.score}`)),
    h('p', {}, h('strong', {}, 'Why: '), s.why.reasons.length ? s.why.reasons.join('; ') : 'requested explicitly',
      s.why.matched_terms.length ? h('span', { class: 'muted' }, ` · matched terms: ${s.why.matched_terms.join(', ')}`) : null),
    (s.decided || []).length ? h('p', {}, h('strong', {}, 'Decided from the finding alone: '),
      s.decided.map((d) => `${d.title}: ${d.answer}`).join('; '), h('span', { class: 'muted' }, ' (draft)')) : null,
    s.missing_inputs.length ? h('p', {}, h('strong', {}, 'To decide, the finding should also state: '),
      s.missing_inputs.map((i) => i.label).join(', ')) : null,
    s.links && s.links.evaluate ? calculatorLinks(s) : null,
    s.withheld_draft_lines ? h('p', { class: 'warn' }, `${s.withheld_draft_lines} draft lines withheld. `, s.withheld_note || '') : null,
    matched.length ? h('details', {}, h('summary', {}, `Categories the finding points to (${matched.length})`),
      matched.map((o) => h('div', {}, h('h4', {}, h('span', { class: 'code' }, o.code), ` ${o.label}`),
        o.definition ? lineView(o.definition, refs, { systemSlug: s.slug }) : null))) : null);
}

export async function render(view) {
  const results = h('div', { class: 'ground-results' });
  const key = keyPanel('context', {
    purpose: 'The grounded-context operation needs a key.',
    onChange: () => { mount(results); },
  });
  const text = h('textarea', { rows: '5', spellcheck: 'true', placeholder: EXAMPLE });
  const tf = field('Finding or report', text, { name: 'text', hint: 'Paste a finding as you would dictate it, or a whole report with its sections (up to 20,000 characters).' });
  const organ = h('select', {}, h('option', { value: '' }, 'any organ'));
  const of = field('Restrict to organ', organ, { name: 'organ' });
  const limit = h('input', { type: 'number', min: '1', max: '8', value: '4' });
  const lf = field('Systems to return', limit, { name: 'limit', hint: '1 to 8.' });
  const drafts = h('input', { type: 'checkbox', checked: true });
  const df = field('Include draft lines (each marked draft)', drafts, { name: 'drafts', hint: 'Every line is draft today; unchecked, only verified lines are returned, so none are.' });
  const button = h('button', { type: 'submit' }, 'Ground this finding');
  const example = h('button', { type: 'button', class: 'secondary' }, 'Use an example');
  const status = statusLine();
  const form = h('form', { class: 'ground-form', 'aria-label': 'Ground a finding' },
    tf.wrap, h('div', { class: 'filters' }, of.wrap, lf.wrap), df.wrap, h('div', { class: 'actions' }, button, example), status);
  const fields = { text: tf, organ: of, limit: lf, verified: df, systems: tf };

  mount(view, h('h1', {}, 'Grounding playground'),
    h('p', { class: 'lead' }, 'Paste a finding; radref returns the systems that govern it, with their cited criteria, categories, management and risk lines, and the same as a markdown block for an assistant.'),
    key.el, form, results);

  api('/api/v1/organs').then(({ data }) => {
    for (const o of data.data) organ.append(h('option', { value: o.organ }, o.organ));
  }).catch((err) => of.wrap.append(errorBox(err, 'Could not load the organ list')));

  example.addEventListener('click', () => { text.value = EXAMPLE; text.focus(); });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const f of Object.values(fields)) setFieldError(f, null);
    setFieldError(key.field, null);
    if (!key.get()) {
      setFieldError(key.field, 'Enter a key with the context scope first.');
      key.field.input.focus();
      return;
    }
    if (!text.value.trim()) {
      setFieldError(tf, 'Paste a finding first.');
      text.focus();
      return;
    }
    const submitted = text.value;
    const body = { text: submitted, limit: Number(limit.value) || 4, verified: !drafts.checked };
    if (organ.value) body.organ = organ.value;
    try {
      const [json, md] = await loading({ status, region: results, button, label: 'Grounding…' }, () => Promise.all([
        api('/api/v1/context', { method: 'POST', key: key.get(), body }),
        api('/api/v1/context', { method: 'POST', key: key.get(), body: { ...body, format: 'markdown' }, accept: 'text' }),
      ]));
      show(json.data, md.data, md.headers.get('X-Approx-Tokens'), submitted);
    } catch (err) {
      status.textContent = 'Grounding failed.';
      if (err.status === 401 || err.status === 403) setFieldError(key.field, err.message);
      else {
        const name = Object.keys(fields).find((n) => err.message.includes(`'${n}'`) || err.message.toLowerCase().includes(`unknown ${n}`));
        setFieldError(name ? fields[name] : tf, err.message);
      }
      mount(results, errorBox(err, 'Grounding failed'));
    }
  });

  function show(data, markdown, tokens, submitted) {
    const f = data.finding || {};
    const read = [
      f.organs && f.organs.length ? `organs ${f.organs.join(', ')}` : null,
      f.modalities && f.modalities.length ? `modalities ${f.modalities.join(', ')}` : null,
      f.sizes_mm && f.sizes_mm.length ? `sizes ${f.sizes_mm.join(', ')} mm` : null,
      f.age_years ? `age ${f.age_years} years` : null,
      f.cues && f.cues.length ? `cues: ${f.cues.join('; ')}` : null,
    ].filter(Boolean);
    status.textContent = `${data.systems.length} system${data.systems.length === 1 ? '' : 's'} found.`;
    const pre = h('pre', { class: 'markdown', tabindex: '0' }, markdown);
    const copyStatus = h('span', { role: 'status', 'aria-live': 'polite', class: 'copy-status' });
    const copy = h('button', { type: 'button' }, 'Copy markdown');
    copy.addEventListener('click', async () => {
      const ok = await copyText(markdown, pre);
      copyStatus.textContent = ok ? 'Copied to the clipboard.' : 'Copying failed: select the text and copy it by hand.';
    });
    mount(results,
      h('p', { class: 'notice-inline', role: 'note' }, data.notice),
      data.note ? h('p', { class: 'warn' }, data.note) : null,
      reportView(submitted, data),
      h('section', { 'aria-labelledby': 'ranked-h' },
        h('h2', { id: 'ranked-h' }, 'Ranked systems'),
        h('p', { class: 'muted' }, read.length ? `Read from the finding: ${read.join(' · ')}.` : 'Nothing specific was read from the finding.'),
        withheldNote(data.withheld_systems),
        data.systems.length ? h('ol', { class: 'cards ranked-list' }, data.systems.map(rankedSystem))
          : h('p', { class: 'empty' }, 'No system governs this finding, as far as radref can tell.')),
      h('section', { 'aria-labelledby': 'md-h' },
        h('h2', { id: 'md-h' }, 'Markdown for an assistant'),
        h('p', { class: 'muted' }, tokens ? `About ${tokens} tokens.` : ''),
        h('div', { class: 'actions' }, copy, copyStatus),
        pre));
  }
}

/** Matching entries left out because their status is draft or retired (verified answers only). */
function withheldNote(withheld) {
  if (!withheld || !withheld.length) return null;
  return h('p', { class: 'warn withheld' },
    'Also matching, but left out because the entry is not current: ',
    ...withheld.flatMap((w, i) => [i ? '; ' : '',
      h('a', { href: `#/systems/${encodeURIComponent(w.slug)}` }, w.name), ` (${w.status})`]),
    '. Tick “Include draft lines” to ground in them as well.');
}

const ASSERTED = {
  present: 'present',
  possible: 'possible (hedged)',
  absent: 'ruled out',
  historical: 'historical',
};

/**
 * The text as submitted, each finding marked by its assertion. Spans count Unicode code
 * points, as the API does, so the text is split into code points, not UTF-16 units.
 */
function markedText(submitted, findings) {
  const chars = Array.from(submitted);
  const spans = findings.slice().sort((a, b) => a.span[0] - b.span[0]);
  const parts = [];
  let at = 0;
  for (const f of spans) {
    const [start, end] = f.span;
    if (start < at || end > chars.length) continue;
    if (start > at) parts.push(chars.slice(at, start).join(''));
    parts.push(h('mark', {
      class: `finding assert-${f.assertion}`,
      title: `${ASSERTED[f.assertion] || f.assertion}${f.systems.length ? `: ${f.systems[0].name}` : ''}`,
    }, chars.slice(start, end).join('')));
    at = end;
  }
  if (at < chars.length) parts.push(chars.slice(at).join(''));
  return h('pre', { class: 'report-text', tabindex: '0', 'aria-label': 'The report, its findings marked' }, parts);
}

/** One finding: its words, assertion, governing system, inputs read, outcome and calculator. */
function findingCard(f, index, systems) {
  const first = f.systems[0];
  const trigger = f.trigger ? ` (“${f.trigger.text}”)` : '';
  const items = [
    h('h3', {}, `${index + 1}. `, h('q', {}, f.text)),
    h('p', { class: 'badges' }, h('span', { class: `badge assert-${f.assertion}` }, `${ASSERTED[f.assertion] || f.assertion}${trigger}`),
      f.section ? h('span', { class: 'muted' }, ` ${f.section}`) : null),
  ];
  if (!first) {
    items.push(h('p', { class: 'muted' }, f.assertion === 'present' || f.assertion === 'possible'
      ? 'No system in the corpus governs it.' : 'Ruled out by the text: no system is offered for it.'));
    return h('li', { class: 'card finding-card' }, items);
  }
  items.push(h('p', {}, h('strong', {}, 'Governed by: '),
    h('a', { href: `#/systems/${encodeURIComponent(first.slug)}` }, first.name),
    f.systems.length > 1 ? h('span', { class: 'muted' }, ` · also ${f.systems.slice(1).map((s) => s.name).join('; ')}`) : null));
  const why = (first.because || []).filter((b) => b.line);
  if (why.length) {
    items.push(h('ul', { class: 'because' }, why.map((b) => h('li', {},
      `${b.factor > 1 ? 'Favoured' : 'Disfavoured'} by ${b.cue}: `, h('q', {}, b.line.text),
      h('span', { class: 'muted' }, ` (${b.line.locator})`)))));
  }
  if (f.inputs.length) {
    items.push(h('p', {}, h('strong', {}, 'Read from the text: '),
      f.inputs.map((i) => `${i.id} = ${Array.isArray(i.value) ? i.value.join(', ') : i.value} (“${i.text}”)`).join('; ')));
  }
  const e = f.evaluation;
  if (e) {
    const refs = ((systems || []).find((s) => s.slug === e.slug) || {}).references || {};
    for (const d of e.decided) {
      items.push(h('div', { class: 'decided' },
        h('p', {}, h('strong', {}, `${d.title}: `), d.answer, d.verification === 'verified' ? '' : h('span', { class: 'muted' }, ' (draft)')),
        d.rule ? lineView(d.rule, refs, { lead: 'Rule:', systemSlug: e.slug }) : null,
        d.outcome ? d.outcome.management.map((m) => lineView(m, refs, { lead: 'Management:', systemSlug: e.slug })) : null));
    }
    if (f.missing.length) {
      items.push(h('p', {}, h('strong', {}, 'To decide, the report should also state: '), f.missing.map((m) => m.label).join(', ')));
    }
    const query = e.link.split('?')[1] || '';
    items.push(h('p', { class: 'calc-links' },
      h('a', { href: `#/systems/${encodeURIComponent(e.slug)}${query ? `?${query}` : ''}` }, 'Edit in the calculator, prefilled from the report'),
      ' · ', h('a', { href: e.link }, 'the evaluation as JSON')));
  }
  return h('li', { class: 'card finding-card' }, items);
}

/** A report's findings: the text marked, the setting read, and one card per finding. */
function reportView(submitted, data) {
  const findings = data.findings || [];
  if (!findings.length) return null;
  const setting = data.setting || {};
  const read = (setting.read || []).map((r) => `${r.setting.replace('_', ' ')} (“${r.text}”)`);
  if (setting.age_years) read.push(`${setting.age_years} years`);
  const grounded = findings.filter((f) => f.assertion === 'present' || f.assertion === 'possible');
  return h('section', { 'aria-labelledby': 'findings-h' },
    h('h2', { id: 'findings-h' }, 'Findings'),
    h('p', { class: 'muted' }, `${grounded.length} finding${grounded.length === 1 ? '' : 's'} grounded, ${findings.length - grounded.length} ruled out by the text`,
      data.more_findings ? `, ${data.more_findings} more not grounded` : '', '.',
      read.length ? ` Setting: ${read.join('; ')}.` : ''),
    h('p', { class: 'legend' }, 'Marked: ',
      ['present', 'possible', 'absent', 'historical'].map((a) => h('mark', { class: `finding assert-${a}` }, ASSERTED[a])).flatMap((m, i) => (i ? [' ', m] : [m]))),
    markedText(submitted, findings),
    h('ol', { class: 'cards finding-list' }, findings.map((f, i) => findingCard(f, i, data.systems))));
}
