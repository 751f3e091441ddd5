// The corpus explorer: search as you type (typo tolerant) with filters by organ, modality,
// family and status. Systems come from GET /systems (which ranks by relevance when q is set);
// matching categories and the typo explanations come from GET /search.

import { api } from './api.js';
import { h, mount, field, statusLine, errorBox, loading, debounce, keepAddress } from './dom.js';

const MODALITIES = ['CT', 'MRI', 'US', 'Mammography', 'PET/CT', 'XR'];
const FAMILIES = ['lexicon', 'algorithm', 'incidental', 'appropriateness'];
const STATUSES = ['current', 'retired', 'draft'];
const FILTERS = ['organ', 'modality', 'family', 'status'];

function select(options, anyLabel) {
  return h('select', {}, h('option', { value: '' }, anyLabel), options.map((o) => h('option', { value: o }, o)));
}

/** Badges for a system's family and status. */
export function systemBadges(s) {
  return [
    h('span', { class: `badge family-${s.family}` }, s.family),
    h('span', { class: `badge status-${s.status}` }, s.status),
  ];
}

function systemCard(s) {
  const counts = s.counts || {};
  return h('li', { class: 'card system-card' },
    h('h3', {}, h('a', { href: `#/systems/${encodeURIComponent(s.slug)}` }, s.short_name || s.name)),
    h('p', { class: 'badges' }, systemBadges(s), h('span', { class: 'muted' }, ` ${s.issuer} · version ${s.version}`)),
    h('p', {}, s.summary),
    h('p', { class: 'muted small' },
      `Organs: ${s.organs.join(', ')} · Modalities: ${s.modalities.join(', ') || '—'} · `,
      `${counts.lines ?? 0} lines (${counts.verified_lines ?? 0} verified, ${counts.draft_lines ?? 0} draft)`));
}

/** Describes the fuzzy matches of a search response: “fleischer” read as “fleischner”. */
function typoNote(hits) {
  const seen = new Map();
  for (const hit of hits) {
    for (const w of hit.why || []) {
      if (w.match === 'fuzzy' && !seen.has(w.term)) seen.set(w.term, w.matched);
    }
  }
  if (!seen.size) return null;
  const parts = [...seen].map(([term, matched]) => `“${term}” as “${matched}”`);
  return h('p', { class: 'typo-note' }, `Typo-tolerant search read ${parts.join(', ')}.`);
}

export async function render(view, params) {
  const q = h('input', { type: 'search', autocomplete: 'off', spellcheck: 'false', value: params.get('q') || '',
    placeholder: 'e.g. fleischner, bosniak IIF, tirads, LR-5' });
  const qf = field('Search systems, categories and synonyms', q, { name: 'q', hint: 'Results update as you type; typos are tolerated.' });
  const organ = select([], 'any organ');
  const controls = {
    organ: field('Organ', organ, { name: 'organ' }),
    modality: field('Modality', select(MODALITIES, 'any modality'), { name: 'modality' }),
    family: field('Family', select(FAMILIES, 'any family'), { name: 'family' }),
    status: field('Status', select(STATUSES, 'any status'), { name: 'status' }),
  };
  const clear = h('button', { type: 'reset', class: 'secondary' }, 'Clear search and filters');
  const form = h('form', { role: 'search', class: 'explore-form', 'aria-label': 'Search the corpus' },
    qf.wrap, h('div', { class: 'filters' }, FILTERS.map((n) => controls[n].wrap)), h('div', { class: 'actions' }, clear));
  const status = statusLine();
  const systemsRegion = h('section', { 'aria-labelledby': 'systems-h' });
  const hitsRegion = h('section', { 'aria-labelledby': 'hits-h', hidden: true });
  mount(view,
    h('h1', {}, 'Explore the corpus'),
    h('p', { class: 'lead' }, 'Classification systems, management algorithms, incidental-findings criteria and appropriateness criteria, each line cited to its primary source. No key needed.'),
    form, status, systemsRegion, hitsRegion);

  for (const n of FILTERS.slice(1)) controls[n].input.value = params.get(n) || '';
  // Organs come from the API, so the list is always the corpus's own.
  try {
    const { data } = await api('/api/v1/organs');
    for (const o of data.data) organ.append(h('option', { value: o.organ }, `${o.organ} (${o.systems})`));
    organ.value = params.get('organ') || '';
  } catch (err) {
    controls.organ.wrap.append(errorBox(err, 'Could not load the organ list'));
  }

  let inflight = null;
  const run = async () => {
    const query = { q: q.value.trim() };
    for (const n of FILTERS) query[n] = controls[n].input.value;
    const hash = new URLSearchParams(Object.entries(query).filter(([, v]) => v)).toString();
    keepAddress(view, `#/${hash ? `?${hash}` : ''}`);
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    for (const n of FILTERS) controls[n].error.hidden = true;
    try {
      await loading({ status, region: systemsRegion, label: 'Searching…' }, async () => {
        const [systems, hits] = await Promise.all([
          api('/api/v1/systems', { query, signal: ctl.signal }),
          query.q ? api('/api/v1/search', { query: { q: query.q, limit: 20 }, signal: ctl.signal }) : null,
        ]);
        if (ctl.signal.aborted) return;
        showSystems(systems.data, query);
        showHits(hits && hits.data, query);
      });
    } catch (err) {
      if (err.name === 'AbortError') return;
      // A 400 names the parameter at fault; show it next to that control when we can tell.
      const blamed = FILTERS.find((n) => err.status === 400 && err.message.includes(`'${n}'`)) ||
        FILTERS.find((n) => err.status === 400 && err.message.toLowerCase().startsWith(`unknown ${n}`));
      const target = blamed ? controls[blamed] : qf;
      target.error.hidden = false;
      mount(target.error, err.message);
      mount(systemsRegion, errorBox(err, 'Search failed'));
      status.textContent = 'Search failed.';
    }
  };

  function showSystems(body, query) {
    const filtered = FILTERS.some((n) => query[n]) || query.q;
    const n = body.meta.total;
    status.textContent = `${n} system${n === 1 ? '' : 's'}${filtered ? ' match' : ' in the corpus'}${n === 1 && filtered ? 'es' : ''}.`;
    mount(systemsRegion,
      h('h2', { id: 'systems-h' }, query.q ? 'Systems, most relevant first' : 'Systems'),
      n ? h('ul', { class: 'cards' }, body.data.map(systemCard))
        : h('p', { class: 'empty' }, 'No system matches. Try fewer filters or another spelling.'));
  }

  function showHits(body, query) {
    hitsRegion.hidden = !body;
    if (!body) return;
    const outcomes = body.data.filter((hit) => hit.type === 'outcome');
    mount(hitsRegion,
      h('h2', { id: 'hits-h' }, 'Matching categories'),
      typoNote(body.data),
      outcomes.length
        ? h('ul', { class: 'hits' }, outcomes.map((hit) => h('li', {},
          h('a', { href: `#/systems/${encodeURIComponent(hit.slug)}?outcome=${encodeURIComponent(hit.code)}` },
            h('span', { class: 'code' }, hit.code), ` ${hit.label}`),
          h('span', { class: 'muted' }, ` — ${hit.system}`))))
        : h('p', { class: 'empty' }, `No category matches “${query.q}”.`));
  }

  const later = debounce(run, 250);
  q.addEventListener('input', later);
  for (const n of FILTERS) controls[n].input.addEventListener('change', run);
  form.addEventListener('submit', (e) => { e.preventDefault(); run(); });
  form.addEventListener('reset', () => setTimeout(run, 0));
  await run();
}
