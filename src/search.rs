//! Ranked, typo-tolerant search over the compiled corpus.
//!
//! A query is cut into terms exactly as the corpus was (see `corpus::text`). Each term is looked
//! up in the `fst` index three ways: exactly, as a prefix (search as you type) and within an
//! edit distance that grows with the term's length (typos; a swap of two adjacent letters
//! counts as one edit). The fuzzy lookup walks the index with [`Fuzzy`], an automaton whose
//! state is a row of the edit-distance table, so nothing is built per query and whole branches
//! of the index are skipped as soon as they cannot come within the distance. Every document a term reaches
//! scores the weight of the field it was found in times the quality of the match; a document's
//! score is the sum over query terms of its best match, with a bonus when every query word
//! matched. Hits say which term matched what, where and how.

use crate::corpus::compiled::{DocKind, DOCS, FST, POSTINGS, SYSTEMS};
use crate::corpus::index::read_postings;
use crate::corpus::text;
use fst::automaton::Str;
use fst::{Automaton, IntoStreamer, Map, Streamer};
use serde::Serialize;
use std::collections::HashMap;

/// The most hits a search returns.
pub const MAX_LIMIT: usize = 50;
/// Hits returned when no limit is given.
pub const DEFAULT_LIMIT: usize = 10;
/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 500;
/// How many index terms a prefix or fuzzy lookup may expand to, per query term.
const MAX_EXPANSIONS: usize = 40;

/// How a query term met an index term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    Exact,
    Prefix,
    Fuzzy,
}

impl MatchKind {
    fn quality(self, distance: u32) -> f64 {
        match self {
            MatchKind::Exact => 1.0,
            MatchKind::Prefix => 0.7,
            MatchKind::Fuzzy if distance <= 1 => 0.6,
            MatchKind::Fuzzy => 0.4,
        }
    }
}

/// Why a hit matched: one query term and what it met.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    /// The query term.
    pub term: String,
    /// The index term it met.
    pub matched: String,
    #[serde(rename = "match")]
    pub kind: MatchKind,
    /// Edit distance of a fuzzy match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<u32>,
    /// The field of the document where the term was found.
    pub field: &'static str,
}

/// A ranked search hit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// `system` or `outcome`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub slug: &'static str,
    /// The system's short name.
    pub system: &'static str,
    /// The outcome code, for outcome hits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// The text that matched: the system's name, or the outcome's label.
    pub label: &'static str,
    pub score: f64,
    pub why: Vec<Reason>,
    #[serde(skip)]
    pub doc: usize,
}

/// One candidate index term for a query term.
struct Candidate {
    term: String,
    id: u64,
    kind: MatchKind,
    distance: u32,
}

fn index() -> Map<&'static [u8]> {
    // The bytes were produced by fst's own builder in build.rs; failure means a broken build.
    Map::new(FST).expect("compiled fst index is valid")
}

/// The edit distance allowed for a query term of this length.
fn fuzziness(term: &str) -> u32 {
    match term.chars().count() {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// How a query term may be expanded beyond its exact match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Expand {
    /// The term ends the query, so it may be a word still being typed.
    prefix: bool,
    /// The term is a single word typed by the user (joined terms are not fuzzed).
    fuzzy: bool,
}

fn candidates(map: &Map<&'static [u8]>, term: &str, expand: Expand) -> Vec<Candidate> {
    let mut out = Vec::new();
    let exact = map.get(term);
    if let Some(id) = exact {
        out.push(Candidate {
            term: term.to_string(),
            id,
            kind: MatchKind::Exact,
            distance: 0,
        });
    }
    let is_number = term.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if expand.prefix && term.len() >= 3 && !is_number {
        let mut stream = map.search(Str::new(term).starts_with()).into_stream();
        let mut n = 0;
        while let Some((key, id)) = stream.next() {
            if key != term.as_bytes() {
                out.push(Candidate {
                    term: String::from_utf8_lossy(key).into_owned(),
                    id,
                    kind: MatchKind::Prefix,
                    distance: 0,
                });
                n += 1;
                if n >= MAX_EXPANSIONS {
                    break;
                }
            }
        }
    }
    // A word the index knows is taken as meant; only unknown words are treated as typos.
    let distance = if is_number || exact.is_some() || !expand.fuzzy {
        0
    } else {
        fuzziness(term)
    };
    if distance > 0 {
        let mut stream = map
            .search(Fuzzy::new(term.as_bytes(), distance as u8))
            .into_stream();
        let mut n = 0;
        while let Some((key, id)) = stream.next() {
            let key = String::from_utf8_lossy(key).into_owned();
            if key != term && !out.iter().any(|c| c.term == key) {
                let d = edit_distance(term, &key);
                out.push(Candidate {
                    term: key,
                    id,
                    kind: MatchKind::Fuzzy,
                    distance: d,
                });
                n += 1;
                if n >= MAX_EXPANSIONS {
                    break;
                }
            }
        }
    }
    out
}

/// Searches the corpus. `query` is free text; at most `limit` hits are returned, best first.
pub fn search(query: &str, limit: usize) -> Vec<Hit> {
    let words = text::words(query);
    if words.is_empty() {
        return Vec::new();
    }
    let terms = text::identity_terms(query);
    let last_word = words.last().map(String::as_str);
    let map = index();
    // doc -> (score, reasons, words matched)
    let mut scored: HashMap<usize, (f64, Vec<Reason>, Vec<bool>)> = HashMap::new();
    for term in &terms {
        // Best match of this term per document.
        let mut best: HashMap<usize, (f64, Reason)> = HashMap::new();
        let expand = Expand {
            prefix: last_word.is_some_and(|w| term.ends_with(w)),
            fuzzy: words.contains(term),
        };
        for c in candidates(&map, term, expand) {
            let quality = c.kind.quality(c.distance);
            for p in read_postings(POSTINGS, c.id) {
                let whole = if p.whole { 1.25 } else { 1.0 };
                let score = p.field.weight() as f64 * quality * whole;
                let doc = p.doc as usize;
                if best.get(&doc).is_none_or(|(s, _)| score > *s) {
                    best.insert(
                        doc,
                        (
                            score,
                            Reason {
                                term: term.clone(),
                                matched: c.term.clone(),
                                kind: c.kind,
                                distance: (c.kind == MatchKind::Fuzzy).then_some(c.distance),
                                field: p.field.as_str(),
                            },
                        ),
                    );
                }
            }
        }
        let word_index = words.iter().position(|w| w == term);
        for (doc, (score, reason)) in best {
            let entry = scored
                .entry(doc)
                .or_insert_with(|| (0.0, Vec::new(), vec![false; words.len()]));
            entry.0 += score;
            entry.1.push(reason);
            match word_index {
                Some(i) => entry.2[i] = true,
                // A joined term ("tirads") stands for the words it joins.
                None => {
                    for (i, w) in words.iter().enumerate() {
                        if term.contains(w.as_str()) {
                            entry.2[i] = true;
                        }
                    }
                }
            }
        }
    }
    let mut hits: Vec<Hit> = scored
        .into_iter()
        .map(|(doc, (score, why, covered))| {
            let d = &DOCS[doc];
            let s = &SYSTEMS[d.system as usize];
            let all = covered.iter().all(|c| *c);
            let score = if all { score * 1.5 } else { score };
            Hit {
                kind: match d.kind {
                    DocKind::System => "system",
                    DocKind::Outcome => "outcome",
                },
                slug: s.slug,
                system: s.short_name,
                code: (d.kind == DocKind::Outcome).then_some(d.code),
                label: d.label,
                score: (score * 1000.0).round() / 1000.0,
                why,
                doc,
            }
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.doc.cmp(&b.doc))
    });
    hits.truncate(limit);
    hits
}

/// The slugs closest to an unknown one, for a 404's suggestions.
pub fn closest_slugs(slug: &str, n: usize) -> Vec<&'static str> {
    let mut by_distance: Vec<(usize, &'static str)> = SYSTEMS
        .iter()
        .map(|s| (edit_distance(slug, s.slug) as usize, s.slug))
        .collect();
    // Systems the slug's words find by search come first when they are found at all.
    let found: Vec<&'static str> = search(&slug.replace('-', " "), n)
        .into_iter()
        .map(|h| h.slug)
        .collect();
    by_distance.sort();
    let mut out: Vec<&'static str> = Vec::new();
    for s in found
        .into_iter()
        .chain(by_distance.into_iter().map(|(_, s)| s))
    {
        if !out.contains(&s) {
            out.push(s);
        }
        if out.len() == n {
            break;
        }
    }
    out
}

/// Optimal-string-alignment distance between two strings, by characters: insertions,
/// deletions, substitutions and swaps of adjacent characters each count one.
pub fn edit_distance(a: &str, b: &str) -> u32 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0u32; (a.len() + 1) * width];
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j as u32;
    }
    for i in 1..=a.len() {
        d[i * width] = i as u32;
        for j in 1..=b.len() {
            let cost = u32::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = v;
        }
    }
    d[a.len() * width + b.len()]
}

/// An `fst` automaton accepting the keys within `max` edits (optimal string alignment) of a
/// query, over bytes.
///
/// The state is the current row of the edit-distance table, with the previous row and the
/// previous input byte for swaps. A branch of the index is abandoned as soon as every cell of
/// the row exceeds `max`, which keeps the walk to a small part of the index.
#[derive(Clone, Debug)]
pub struct Fuzzy<'a> {
    query: &'a [u8],
    max: u8,
}

/// A row of the edit-distance table and what swaps need from the step before.
#[derive(Clone, Debug)]
pub struct FuzzyState {
    prev: Vec<u8>,
    row: Vec<u8>,
    last: Option<u8>,
}

impl<'a> Fuzzy<'a> {
    /// Keys within `max` edits of `query`.
    pub fn new(query: &'a [u8], max: u8) -> Fuzzy<'a> {
        Fuzzy { query, max }
    }
}

impl fst::Automaton for Fuzzy<'_> {
    type State = Option<FuzzyState>;

    fn start(&self) -> Self::State {
        let row: Vec<u8> = (0..=self.query.len())
            .map(|i| i.min(u8::MAX as usize) as u8)
            .collect();
        Some(FuzzyState {
            prev: Vec::new(),
            row,
            last: None,
        })
    }

    fn is_match(&self, state: &Self::State) -> bool {
        state
            .as_ref()
            .is_some_and(|s| s.row.last().is_some_and(|&d| d <= self.max))
    }

    fn can_match(&self, state: &Self::State) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Self::State, byte: u8) -> Self::State {
        let s = state.as_ref()?;
        let q = self.query;
        let mut row = Vec::with_capacity(s.row.len());
        row.push(s.row[0].saturating_add(1));
        for j in 1..=q.len() {
            let cost = u8::from(q[j - 1] != byte);
            let mut v = (s.row[j].saturating_add(1))
                .min(row[j - 1].saturating_add(1))
                .min(s.row[j - 1].saturating_add(cost));
            if j > 1 && s.last == Some(q[j - 1]) && q[j - 2] == byte && !s.prev.is_empty() {
                v = v.min(s.prev[j - 2].saturating_add(1));
            }
            row.push(v);
        }
        if row.iter().all(|&d| d > self.max) {
            return None;
        }
        Some(FuzzyState {
            prev: s.row.clone(),
            row,
            last: Some(byte),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(query: &str) -> Vec<(&'static str, &'static str, Option<&'static str>)> {
        search(query, 5)
            .into_iter()
            .map(|h| (h.kind, h.slug, h.code))
            .collect()
    }

    fn first_slug(query: &str) -> &'static str {
        search(query, 1)
            .first()
            .map(|h| h.slug)
            .unwrap_or_else(|| panic!("no hit for {query}"))
    }

    #[test]
    fn typos_find_their_system() {
        assert_eq!(first_slug("fleischer"), "fleischner-2017");
        assert_eq!(first_slug("bosniack"), "bosniak-v2019");
        assert_eq!(first_slug("tirads"), "acr-ti-rads-2017");
        assert_eq!(first_slug("TI-RADS"), "acr-ti-rads-2017");
        assert_eq!(first_slug("pirads"), "pi-rads-v2-1-2019");
        assert_eq!(first_slug("lirads"), "acr-li-rads-ct-mri-v2018");
    }

    #[test]
    fn abbreviations_of_the_whole_scope_find_their_system() {
        for (q, slug) in [
            ("eu-tirads", "eu-tirads-2017"),
            ("ktirads", "k-tirads-2021"),
            ("RECIST", "recist-1-1"),
            ("recsit", "recist-1-1"),
            ("Lugano", "lugano-2014"),
            ("Kyoto IPMN", "kyoto-ipmn-2024"),
            ("CAD-RADS", "cad-rads-2-0-2022"),
            ("VI-RADS", "vi-rads-2018"),
            ("Node-RADS", "node-rads-1-0-2021"),
            ("O-RADS MRI", "acr-o-rads-mri-2022"),
            ("revised Atlanta", "atlanta-acute-pancreatitis-2012"),
            ("BTS pulmonary nodules", "bts-pulmonary-nodules-2015"),
            ("gallbladder polyp", "sru-gallbladder-polyps-2022"),
            ("NI-RADS", "acr-ni-rads-ct-petct-2018"),
        ] {
            assert_eq!(first_slug(q), slug, "{q}: {:?}", top(q));
        }
    }

    #[test]
    fn category_queries_find_the_outcome() {
        let hits = top("lungrads 4B");
        assert_eq!(
            hits[0],
            ("outcome", "acr-lung-rads-v2022", Some("4B")),
            "{hits:?}"
        );
        let hits = top("Bosniak IIF");
        assert_eq!(
            hits[0],
            ("outcome", "bosniak-v2019", Some("IIF")),
            "{hits:?}"
        );
        let hits = top("LR-5");
        assert_eq!(hits[0].1, "acr-li-rads-ct-mri-v2018", "{hits:?}");
    }

    #[test]
    fn hits_explain_themselves() {
        let hit = &search("bosniack", 1)[0];
        assert!(hit.score > 0.0);
        let reason = &hit.why[0];
        assert_eq!(reason.kind, MatchKind::Fuzzy);
        assert_eq!(reason.matched, "bosniak");
        assert_eq!(reason.distance, Some(1));
    }

    #[test]
    fn prefix_search_as_you_type() {
        assert_eq!(first_slug("fleisch"), "fleischner-2017");
    }

    #[test]
    fn nonsense_finds_nothing_and_limit_holds() {
        assert!(search("qqqqzzzz", 10).is_empty());
        assert!(search("   ", 10).is_empty());
        assert!(search("nodule", 3).len() <= 3);
    }

    #[test]
    fn suggestions_for_unknown_slugs() {
        assert_eq!(closest_slugs("fleischner-2005", 3)[0], "fleischner-2017");
        assert_eq!(closest_slugs("acr-tirads", 3)[0], "acr-ti-rads-2017");
    }

    #[test]
    fn fuzzy_automaton_agrees_with_edit_distance() {
        use fst::{IntoStreamer, Set, Streamer};
        let words = [
            "bosniak",
            "fleischner",
            "fleischer",
            "recist",
            "tirads",
            "washout",
            "zz",
        ];
        let set = Set::from_iter(
            words
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>(),
        )
        .unwrap();
        for (query, max) in [
            ("bosniack", 1u8),
            ("recsit", 1),
            ("fleischr", 2),
            ("washot", 1),
        ] {
            let mut found = Vec::new();
            let mut stream = set.search(Fuzzy::new(query.as_bytes(), max)).into_stream();
            while let Some(key) = stream.next() {
                found.push(String::from_utf8(key.to_vec()).unwrap());
            }
            let expected: Vec<String> = words
                .iter()
                .filter(|w| edit_distance(query, w) <= max as u32)
                .map(|w| w.to_string())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            assert_eq!(found, expected, "{query} within {max}");
        }
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("bosniack", "bosniak"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("müller", "muller"), 1);
        assert_eq!(edit_distance("recsit", "recist"), 1, "a swap is one edit");
    }
}
