// One system, in full: overview, scope, categories (definition, risk figures, management),
// inputs and decision units (ordered rules), appropriateness variants, cross-references,
// version lineage, references and gaps, and for systems with decision units a calculator
// (calculator.js). Every clinical line shows its citation (with the DOI link), its locator, its
// consensus level and a draft/verified badge.

import { api } from './api.js';
import { h, mount, statusLine, errorBox, loading } from './dom.js';
import { systemBadges } from './explore.js';
import { calculator } from './calculator.js';
import { shortCitation, doiLink, jump, lineView } from './provenance.js';

const OPS = { eq: 'is', ne: 'is not', lt: '<', lte: '≤', gt: '>', gte: '≥', in: 'is one of', has: 'includes' };
const RATINGS = { 'usually-appropriate': 'Usually appropriate', 'may-be-appropriate': 'May be appropriate', 'usually-not-appropriate': 'Usually not appropriate' };

function conditionText(cond, names) {
  if (!cond) return '';
  if (cond.always) return 'always (otherwise)';
  if (cond.all) return cond.all.map((c) => wrap(c, names)).join(' and ');
  if (cond.any) return cond.any.map((c) => wrap(c, names)).join(' or ');
  if (cond.not) return `not ${wrap(cond.not, names)}`;
  const input = names[cond.var] || { label: cond.var, values: {} };
  const show = (v) => (input.values && input.values[v]) || (typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v));
  const value = Array.isArray(cond.value) ? cond.value.map(show).join(', ') : show(cond.value);
  return `${input.label} ${OPS[cond.op] || cond.op} ${value}${input.unit && typeof cond.value === 'number' ? ` ${input.unit}` : ''}`;
}

function wrap(c, names) {
  const text = conditionText(c, names);
  return c.all || c.any ? `(${text})` : text;
}

function section(id, title, ...content) {
  return h('section', { id, 'aria-labelledby': `${id}-h`, class: 'system-section' }, h('h2', { id: `${id}-h` }, title), content);
}

/** External codes (RadElement, RadLex, SNOMED CT, LOINC, DICOM), each with where it was confirmed. */
function codesView(codes) {
  if (!codes || !codes.length) return null;
  return h('ul', { class: 'codes' }, codes.map((c) => h('li', {},
    h('span', { class: 'badge code-scheme' }, c.scheme), ' ', h('code', {}, c.code), ` ${c.display}`,
    c.relation && c.relation !== 'same' ? h('span', { class: 'muted' }, ` (${c.relation} set)`) : null,
    h('span', { class: 'muted small' }, ` · confirmed in ${c.source}`),
    c.note ? h('span', { class: 'muted small' }, ` · ${c.note}`) : null)));
}

function overview(s) {
  const c = s.currency || {};
  const link = (slug) => h('a', { href: `#/systems/${encodeURIComponent(slug)}` }, slug);
  const list = (slugs) => (slugs && slugs.length ? slugs.flatMap((x, i) => (i ? [', ', link(x)] : [link(x)])) : '—');
  return h('dl', { class: 'facts' },
    h('dt', {}, 'Issuer'), h('dd', {}, s.issuer),
    h('dt', {}, 'Version'), h('dd', {}, s.version),
    h('dt', {}, 'Organs'), h('dd', {}, s.organs.join(', ')),
    h('dt', {}, 'Modalities'), h('dd', {}, s.modalities.join(', ') || '—'),
    h('dt', {}, 'Effective'), h('dd', {}, c.effective || '—'),
    h('dt', {}, 'Last reviewed'), h('dd', {}, c.last_reviewed || '—'),
    h('dt', {}, 'Supersedes'), h('dd', {}, list(c.supersedes)),
    h('dt', {}, 'Superseded by'), h('dd', {}, list(c.superseded_by)),
    h('dt', {}, 'Lines'), h('dd', {}, `${s.counts.lines} (${s.counts.verified_lines} verified, ${s.counts.draft_lines} draft)`),
    s.codes && s.codes.length ? [h('dt', {}, 'Codes'), h('dd', {}, codesView(s.codes))] : null,
    s.abbreviations && s.abbreviations.length ? [h('dt', {}, 'Also called'), h('dd', {}, s.abbreviations.join(', '))] : null,
    s.synonyms && s.synonyms.length ? [h('dt', {}, 'Synonyms'), h('dd', {}, s.synonyms.join(', '))] : null);
}

function outcomeView(o, refs, highlight) {
  return h('article', { class: `outcome${highlight ? ' highlight' : ''}`, id: `outcome-${o.code}`, 'aria-labelledby': `outcome-${o.code}-h` },
    h('h3', { id: `outcome-${o.code}-h` }, h('span', { class: 'code' }, o.code), ` ${o.label}`),
    lineView(o.definition, refs, { lead: 'Definition:' }),
    o.risk ? h('div', { class: 'risk' }, lineView(o.risk, refs, { lead: 'Risk:' })) : null,
    h('h4', {}, 'Management'),
    o.management.length ? o.management.map((m) => lineView(m, refs))
      : h('p', { class: 'muted' }, 'The source gives no management for this category.'),
    codesView(o.codes));
}

function inputView(i, refs) {
  let detail = i.type;
  if (i.type === 'number') detail = `number${i.unit ? ` (${i.unit})` : ''}${i.min !== undefined ? `, min ${i.min}` : ''}${i.max !== undefined ? `, max ${i.max}` : ''}`;
  return h('li', { class: 'input' },
    h('p', {}, h('strong', {}, i.label), h('span', { class: 'muted' }, ` — ${detail} · id ${i.id}`)),
    i.values ? h('ul', { class: 'values' }, i.values.map((v) => h('li', {}, v.label, v.points !== undefined ? h('span', { class: 'muted' }, ` (${v.points} points)`) : null, codesView(v.codes)))) : null,
    i.text ? lineView(i, refs) : null,
    codesView(i.codes));
}

function unitView(u, refs, names, outcomes) {
  return h('article', { class: 'unit', id: `unit-${u.id}`, 'aria-labelledby': `unit-${u.id}-h` },
    h('h3', { id: `unit-${u.id}-h` }, u.title),
    h('p', { class: 'muted small' }, `Reads: ${u.inputs.map((x) => (names[x] ? names[x].label : x)).join(', ')}`,
      u.score ? ` · Score “${u.score.label}” = sum of ${u.score.sum.map((x) => (names[x] ? names[x].label : x)).join(' + ')}` : ''),
    u.text ? lineView(u, refs) : null,
    codesView(u.codes),
    h('p', { class: 'small' }, 'Rules, in order: the first whose condition holds wins.'),
    h('ol', { class: 'rules' }, u.rules.map((r) => h('li', {},
      h('p', { class: 'rule-when' }, h('span', { class: 'muted' }, 'When '), conditionText(r.when, names), ' → ',
        r.outcome ? h('a', { href: `#outcome-${r.outcome}`, onclick: jump(`outcome-${r.outcome}`), class: 'code' },
          r.outcome, outcomes[r.outcome] ? ` ${outcomes[r.outcome]}` : '') : null,
        r.result ? h('span', { class: 'result' }, `${r.outcome ? ' · ' : ''}${r.result}`) : null),
      lineView(r, refs)))));
}

function variantView(v, refs) {
  return h('article', { class: 'variant' },
    h('h3', {}, `Variant ${v.id}`),
    lineView(v.label, refs, { lead: 'Scenario:' }),
    h('ul', { class: 'procedures' }, v.procedures.map((p) => h('li', {},
      h('p', {}, h('strong', {}, p.procedure), ' — ', h('span', { class: `badge rating-${p.rating}` }, RATINGS[p.rating] || p.rating),
        p.rrl ? h('span', { class: 'muted' }, ` · relative radiation level ${p.rrl}`) : null),
      lineView(p, refs)))));
}

function crossrefView(x) {
  let target;
  if (x.slug) {
    target = x.available === false
      ? h('span', {}, `${x.name || x.slug} (not yet in the corpus)`)
      : h('a', { href: `#/systems/${encodeURIComponent(x.slug)}` }, x.name || x.slug);
  } else if (x.external) {
    target = h('span', {}, `${x.external.scheme} ${x.external.id}`);
  }
  return h('li', {}, h('span', { class: 'badge' }, x.relation), ' ', target, h('p', { class: 'small' }, x.note));
}

const KINDS = {
  input_added: 'Inputs added', input_removed: 'Inputs removed', input_renamed: 'Inputs renamed', input_changed: 'Inputs changed',
  values_changed: 'Values changed', values_redescribed: 'Values described otherwise', points_changed: 'Points changed', unit_added: 'Decision units added', unit_removed: 'Decision units removed',
  category_added: 'Categories added', category_removed: 'Categories removed', category_renamed: 'Categories renamed',
  category_split: 'Categories split', category_merged: 'Categories merged', threshold_moved: 'Thresholds moved',
  rule_changed: 'Rules changed', rule_added: 'Rules added', rule_removed: 'Rules removed', management_changed: 'Management changed',
};

/** What changed between this version and another: the diff, by kind, both sides' lines. */
function diffView(d) {
  const groups = [];
  for (const c of d.changes) {
    const last = groups[groups.length - 1];
    if (last && last.kind === c.kind) last.items.push(c); else groups.push({ kind: c.kind, items: [c] });
  }
  const side = (lines, refs, sys) => (lines.length
    ? lines.map((l) => lineView(l, refs, { systemSlug: sys.slug }))
    : h('p', { class: 'muted small' }, `Not in ${sys.name}.`));
  return h('div', { class: 'diff' },
    h('p', {}, `${d.changes.length} change(s) from ${d.from.name} to ${d.to.name}.`),
    groups.map((g) => h('section', { class: 'diff-kind', 'aria-label': KINDS[g.kind] || g.kind },
      h('h3', {}, `${KINDS[g.kind] || g.kind} (${g.items.length})`),
      h('ul', { class: 'changes' }, g.items.map((c) => h('li', { class: 'change' },
        h('p', {}, c.summary),
        h('div', { class: 'sides' },
          h('div', { class: 'side' }, h('h4', {}, d.from.name), side(c.from, d.references.from, d.from)),
          h('div', { class: 'side' }, h('h4', {}, d.to.name), side(c.to, d.references.to, d.to)))))))),
    d.announced.length ? [h('h3', {}, 'What the sources announce'),
      h('ul', {}, d.announced.map((a) => h('li', {}, h('strong', {}, `${a.date} · ${a.version} · ${a.event}`), ' ', a.summary)))] : null,
    h('p', {}, h('a', { href: d.links.self }, 'This comparison as JSON'), ' · ',
      h('a', { href: `${d.links.self}?format=markdown` }, 'as markdown')));
}

/** The other versions of this system, each with a button that loads what changed. */
function versionsView(s) {
  const c = s.currency || {};
  const others = [...(c.supersedes || []), ...(c.superseded_by || [])];
  if (!others.length) return null;
  return others.map((other) => {
    const out = h('div', { class: 'diff-out', 'aria-live': 'polite' });
    const button = h('button', { type: 'button' }, `What changed: ${s.slug} → ${other}`);
    button.addEventListener('click', async () => {
      button.disabled = true;
      out.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
      try {
        const from = (c.supersedes || []).includes(other) ? other : s.slug;
        const to = from === other ? s.slug : other;
        const d = (await api(`/api/v1/systems/${encodeURIComponent(from)}/diff/${encodeURIComponent(to)}`)).data;
        out.replaceChildren(diffView(d));
      } catch (err) {
        out.replaceChildren(errorBox(err, 'Could not compare the versions'));
      } finally {
        button.disabled = false;
      }
    });
    return h('div', { class: 'version-pair' }, button, out);
  });
}

function referenceView(id, r) {
  const bits = [r.authors.join(', '), '. ', h('cite', {}, r.title), '.'];
  if (r.journal) bits.push(` ${r.journal}`);
  if (r.publisher) bits.push(` ${r.publisher}`);
  bits.push(` ${r.year}`);
  if (r.volume) bits.push(`;${r.volume}`);
  if (r.issue) bits.push(`(${r.issue})`);
  if (r.pages) bits.push(`:${r.pages}`);
  bits.push('.');
  return h('li', { id: `ref-${id}` },
    h('span', { class: 'muted' }, `[${id}] `), bits,
    r.doi ? [' ', doiLink(r.doi)] : null,
    r.pmid ? [' ', h('a', { href: `https://pubmed.ncbi.nlm.nih.gov/${encodeURIComponent(r.pmid)}/`, rel: 'noopener noreferrer', target: '_blank' }, `PMID ${r.pmid}`)] : null,
    r.url ? [' ', h('a', { href: r.url, rel: 'noopener noreferrer', target: '_blank' }, 'official page')] : null);
}

export async function render(view, slug, params) {
  const status = statusLine();
  mount(view, h('p', {}, h('a', { href: '#/' }, '← Back to the explorer')), h('h1', {}, slug), status);
  let s;
  try {
    s = await loading({ status, region: view, label: `Loading ${slug}…` }, async () => (await api(`/api/v1/systems/${encodeURIComponent(slug)}`)).data);
  } catch (err) {
    const box = errorBox(err, `Could not open ${slug}`);
    const closest = /closest: (.+)$/.exec(err.message || '');
    view.append(box);
    if (closest) {
      view.append(h('p', {}, 'Did you mean: ', closest[1].split(', ').flatMap((c, i) =>
        [i ? ', ' : '', h('a', { href: `#/systems/${encodeURIComponent(c)}` }, c)])));
    }
    return;
  }
  document.title = `${s.short_name} · radref`;
  const refs = s.references || {};
  const names = {};
  for (const i of s.inputs) names[i.id] = { label: i.label, unit: i.unit, values: Object.fromEntries((i.values || []).map((v) => [v.value, v.label])) };
  for (const u of s.decision_units) if (u.score) names[u.score.id] = { label: u.score.label, values: {} };
  const outcomeLabels = Object.fromEntries(s.outcomes.map((o) => [o.code, o.label]));
  const focusOutcome = params.get('outcome');
  const calc = calculator(s, refs, params);
  const versions = versionsView(s);

  const sections = [
    ['overview', 'Overview', overview(s)],
    ['scope', 'Scope', s.scope.map((l) => lineView(l, refs))],
    calc ? ['calculator', 'Calculator', calc] : null,
    s.outcomes.length ? ['outcomes', `Categories and outcomes (${s.outcomes.length})`, s.outcomes.map((o) => outcomeView(o, refs, o.code === focusOutcome))] : null,
    s.inputs.length ? ['inputs', `Inputs (${s.inputs.length})`, h('ul', { class: 'inputs' }, s.inputs.map((i) => inputView(i, refs)))] : null,
    s.decision_units.length ? ['units', `Decision units (${s.decision_units.length})`, s.decision_units.map((u) => unitView(u, refs, names, outcomeLabels))] : null,
    s.variants && s.variants.length ? ['variants', `Clinical variants (${s.variants.length})`, s.variants.map((v) => variantView(v, refs))] : null,
    ['crossrefs', 'Cross-references', s.crossrefs.length ? h('ul', { class: 'crossrefs' }, s.crossrefs.map(crossrefView)) : h('p', { class: 'muted' }, 'None.')],
    versions ? ['versions', 'Other versions: what changed', versions] : null,
    ['lineage', 'Version lineage', h('ol', { class: 'lineage' }, s.lineage.map((e) => h('li', {},
      h('strong', {}, `${e.date} · ${e.version} · ${e.event}`), ' ', e.summary,
      e.citation ? [' ', h('a', { href: `#ref-${e.citation}`, onclick: jump(`ref-${e.citation}`) }, `[${shortCitation(refs[e.citation])}]`)] : null)))],
    ['references', 'References', h('ol', { class: 'references' }, Object.entries(refs).map(([id, r]) => referenceView(id, r)))],
    ['gaps', 'Gaps: deliberately left out', s.gaps.length ? h('ul', {}, s.gaps.map((g) => h('li', {}, h('strong', {}, g.topic), `: ${g.reason}`))) : h('p', { class: 'muted' }, 'None recorded.')],
  ].filter(Boolean);

  mount(view,
    h('p', {}, h('a', { href: '#/' }, '← Back to the explorer')),
    h('h1', {}, s.name),
    h('p', { class: 'badges' }, h('span', { class: 'short-name' }, s.short_name), ' ', systemBadges(s), h('span', { class: 'muted' }, ` ${s.slug}`)),
    h('p', { class: 'lead' }, s.summary),
    h('p', { class: 'notice-inline', role: 'note' }, s.notice),
    h('nav', { class: 'toc', 'aria-label': 'Sections of this system' },
      h('ul', {}, sections.map(([id, title]) => h('li', {}, h('a', { href: `#${id}`, onclick: jump(id) }, title))))),
    sections.map(([id, title, content]) => section(id, title, content)),
    h('p', {}, h('a', { href: `/api/v1/systems/${encodeURIComponent(s.slug)}` }, 'This system as JSON')));

  if (focusOutcome) {
    const target = document.getElementById(`outcome-${focusOutcome}`);
    if (target) { target.setAttribute('tabindex', '-1'); target.scrollIntoView({ block: 'center' }); }
  }
}
