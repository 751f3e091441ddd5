// The changes feed (version events, newest first, also as RSS) and the coverage report (what
// the corpus holds, per family and organ, its gaps, and what is not covered yet).

import { api } from './api.js';
import { h, mount, field, setFieldError, statusLine, errorBox, loading, keepAddress } from './dom.js';
import { shortCitation } from './provenance.js';

export async function renderChanges(view, params) {
  const since = h('input', { type: 'text', inputmode: 'numeric', placeholder: 'YYYY, YYYY-MM or YYYY-MM-DD', value: params.get('since') || '' });
  const limit = h('input', { type: 'number', min: '1', max: '500', value: params.get('limit') || '50' });
  const sf = field('Since (date)', since, { name: 'since', hint: 'Only events on or after this date.' });
  const lf = field('How many', limit, { name: 'limit', hint: '1 to 500.' });
  const button = h('button', { type: 'submit' }, 'Show changes');
  const form = h('form', { class: 'inline-form', 'aria-label': 'Filter changes' }, sf.wrap, lf.wrap, h('div', { class: 'actions' }, button));
  const status = statusLine();
  const results = h('div', {});
  mount(view, h('h1', {}, 'Changes'),
    h('p', { class: 'lead' }, 'Version events of the systems in the corpus, newest first. Also as an ',
      h('a', { href: '/feed/changes.xml' }, 'RSS feed'), '.'),
    form, status, results);

  const run = async () => {
    setFieldError(sf, null); setFieldError(lf, null);
    keepAddress(view, `#/changes?${new URLSearchParams({ since: since.value.trim(), limit: limit.value })}`);
    try {
      const { data } = await loading({ status, region: results, button, label: 'Loading changes…' },
        () => api('/api/v1/changes', { query: { since: since.value.trim(), limit: limit.value } }));
      status.textContent = `${data.data.length} of ${data.meta.total} events${data.meta.since ? ` since ${data.meta.since}` : ''}.`;
      mount(results, data.data.length ? h('ol', { class: 'changes' }, data.data.map((e) => h('li', { class: 'card' },
        h('p', {}, h('strong', {}, e.date), ' · ', h('span', { class: `badge event-${e.event}` }, e.event), ' · ',
          h('a', { href: `#/systems/${encodeURIComponent(e.slug)}` }, e.system), ` · version ${e.version}`),
        h('p', {}, e.summary),
        e.citation ? h('p', { class: 'small muted' }, 'Source: ', shortCitation(e.citation), e.citation.doi ? [' ',
          h('a', { href: `https://doi.org/${encodeURI(e.citation.doi)}`, rel: 'noopener noreferrer', target: '_blank' }, `doi:${e.citation.doi}`)] : null) : null)))
        : h('p', { class: 'empty' }, 'No events in that range.'));
    } catch (err) {
      const target = /since/.test(err.message) ? sf : /limit/.test(err.message) ? lf : null;
      if (target) setFieldError(target, err.message);
      mount(results, errorBox(err, 'Could not load the changes'));
      status.textContent = 'Failed.';
    }
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); run(); });
  await run();
}

function countsTable(caption, rows, keyName) {
  return h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, [keyName, 'systems', 'lines', 'verified', 'draft', 'outcomes', 'decision units', 'rules'].map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, rows.map((r) => h('tr', {},
      h('th', { scope: 'row' }, r[keyName]), h('td', {}, r.systems), h('td', {}, r.counts.lines), h('td', {}, r.counts.verified_lines),
      h('td', {}, r.counts.draft_lines), h('td', {}, r.counts.outcomes), h('td', {}, r.counts.decision_units), h('td', {}, r.counts.rules)))));
}

export async function renderCoverage(view) {
  const status = statusLine();
  const body = h('div', {});
  mount(view, h('h1', {}, 'Coverage'), status, body);
  let data;
  try {
    ({ data } = await loading({ status, region: body, label: 'Loading the coverage report…' }, () => api('/api/v1/coverage')));
  } catch (err) {
    body.append(errorBox(err, 'Could not load the coverage report'));
    return;
  }
  const t = data.totals;
  mount(body,
    h('p', { class: 'notice-inline', role: 'note' }, data.notice),
    h('p', { class: 'lead' }, `${t.systems} systems, ${t.counts.lines.toLocaleString()} clinical lines (${t.counts.verified_lines} verified, ${t.counts.draft_lines.toLocaleString()} draft), ${t.counts.outcomes} outcomes, ${t.counts.decision_units} decision units.`),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'By family' }, countsTable('By family', data.by_family, 'family')),
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'By organ' }, countsTable('By organ', data.by_organ, 'organ')),
    h('section', { 'aria-labelledby': 'cov-h' }, h('h2', { id: 'cov-h' }, `Covered systems and their gaps (${data.covered.length})`),
      h('ul', { class: 'covered' }, data.covered.map((c) => h('li', {},
        // The link sits beside the disclosure, not inside its summary: a control inside a
        // control is unreachable for keyboard and screen-reader users.
        h('a', { href: `#/systems/${encodeURIComponent(c.slug)}` }, c.name),
        ` — ${c.family}, ${c.status}, ${c.counts.lines} lines`,
        h('details', {}, h('summary', {}, `${c.gaps.length} gap${c.gaps.length === 1 ? '' : 's'}`),
          c.gaps.length ? h('ul', {}, c.gaps.map((g) => h('li', {}, h('strong', {}, g.topic), `: ${g.reason}`))) : h('p', {}, 'No gaps recorded.')))))),
    h('section', { 'aria-labelledby': 'notcov-h' }, h('h2', { id: 'notcov-h' }, `Not covered yet (${data.not_covered.length})`),
      h('ul', {}, data.not_covered.map((n) => h('li', {}, h('strong', {}, n.name),
        n.family ? ` (${n.family})` : '', n.planned_slug ? h('span', { class: 'muted' }, ` planned as ${n.planned_slug}`) : '', `: ${n.reason}`)))));
  status.textContent = '';
}
