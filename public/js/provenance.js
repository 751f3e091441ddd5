// A clinical line's provenance, the same on every screen: its citation (with the DOI link), its
// locator, its consensus level and its draft/verified badge. Used by the system page, the
// calculator, grounded context and the changes feed.

import { h } from './dom.js';

/** "MacMahon H, et al. 2017, Radiology" from a reference record. */
export function shortCitation(ref) {
  if (!ref) return 'unknown reference';
  if (typeof ref === 'string') {
    // A formatted citation (context answers): first author, "et al." and the year.
    const year = (/\b(1[89]|20)\d{2}\b/.exec(ref) || [''])[0];
    return `${ref.split(',')[0]}${ref.includes(',') ? ' et al.' : ''} ${year}`.trim();
  }
  const first = (ref.authors && ref.authors[0]) || '';
  const etal = ref.authors && ref.authors.length > 1 ? ' et al.' : '';
  return `${first.replace(/ et al\.$/, '')}${etal} ${ref.year || ''}${ref.journal ? `, ${ref.journal}` : ref.publisher ? `, ${ref.publisher}` : ''}`.trim();
}

export function doiLink(doi) {
  return h('a', { href: `https://doi.org/${encodeURI(doi)}`, rel: 'noopener noreferrer', target: '_blank', class: 'doi' },
    `doi:${doi}`, h('span', { class: 'visually-hidden' }, ' (opens in a new tab)'));
}

/** Scrolls to and focuses an element of this screen without touching the router's hash. */
export function jump(id) {
  return (event) => {
    const target = document.getElementById(id);
    if (!target) return;
    event.preventDefault();
    target.setAttribute('tabindex', '-1');
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  };
}

/** The verification badge: draft (amber) or verified (green, with reviewer and date). */
function verificationBadge(line) {
  if (line.verification === 'verified') {
    const who = line.reviewer ? ` by ${line.reviewer}${line.reviewed_on ? `, ${line.reviewed_on}` : ''}` : '';
    return h('span', { class: 'badge verified', title: `Verified against the source${who}` }, `verified${who}`);
  }
  return h('span', { class: 'badge draft', title: 'Not yet verified by a radiologist against its source' }, 'draft');
}

/** One clinical line with its provenance. */
export function lineView(line, refs, { lead, systemSlug } = {}) {
  const ref = refs[line.citation];
  const doi = typeof ref === 'string' ? (/doi:(\S+?)\.?$/.exec(ref) || [])[1] : ref && ref.doi;
  const source = systemSlug
    ? h('a', { href: `#/systems/${encodeURIComponent(systemSlug)}`, title: typeof ref === 'string' ? ref : undefined }, shortCitation(ref))
    : h('a', { href: `#ref-${line.citation}`, onclick: jump(`ref-${line.citation}`) }, shortCitation(ref));
  return h('div', { class: 'line' },
    h('p', { class: 'line-text' }, lead ? h('strong', {}, `${lead} `) : null, line.text),
    h('p', { class: 'line-meta' },
      verificationBadge(line), ' ',
      h('span', { class: 'meta-item' }, 'Source: ', source, doi ? [' ', doiLink(doi)] : null),
      h('span', { class: 'meta-item' }, `Locator: ${line.locator}`),
      h('span', { class: 'meta-item' }, `Consensus: ${line.consensus}`)));
}
