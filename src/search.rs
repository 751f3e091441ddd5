//! Ranked, typo-tolerant search over the compiled corpus.
//!
//! A query is cut into terms exactly as the corpus was (see `corpus::text`). Each term is looked
//! up in the `fst` index three ways: exactly, as a prefix (search as you type) and within an
//! edit distance that grows with the term's length (typos; a swap of two adjacent letters
//! counts as one edit). The fuzzy lookup walks the index with [`Fuzzy`], an automaton whose
//! state is a few bytes of the edit-distance table, so nothing is built or allocated per query
//! and whole branches of the index are skipped as soon as they cannot come within the distance.
//! Every document a term reaches scores the weight of the field it was found in times the
//! quality of the match; a document's score is the sum over query terms of its best match, with
//! a bonus when every query word matched. Hits say which term matched what, where and how.
//!
//! A query may be a whole pasted report (grounded context takes 20,000 characters), so the work
//! per term is bounded: no step walks the query's words or terms again.

use crate::corpus::compiled::{DocKind, DOCS, FST, POSTINGS, SYSTEMS};
use crate::corpus::index::{read_postings, Field};
use crate::corpus::text;
use crate::corpus::text::{FastHash, Word};
use crate::feature::FeatureError;
use fst::Map;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The most hits a search returns.
pub const MAX_LIMIT: usize = 50;
/// Hits returned when no limit is given.
pub const DEFAULT_LIMIT: usize = 10;
/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 500;
/// A search question, checked: non-blank text of at most [`MAX_QUERY_CHARS`], and a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    pub text: String,
    pub limit: usize,
}

impl SearchQuery {
    /// Checks a search question. `field` is the text argument's name at the door that asks
    /// (`q` over HTTP, `query` as a tool argument), so the message names what the client sent.
    pub fn new(
        field: &str,
        text: Option<String>,
        limit: usize,
    ) -> Result<SearchQuery, FeatureError> {
        let text = text.unwrap_or_default();
        if text.chars().count() > MAX_QUERY_CHARS {
            return Err(FeatureError::argument(
                field,
                format!("'{field}' is longer than {MAX_QUERY_CHARS} characters"),
            ));
        }
        if crate::input::is_blank(&text) {
            return Err(FeatureError::argument(
                field,
                format!("'{field}' is required and must not be empty"),
            ));
        }
        Ok(SearchQuery { text, limit })
    }
}

/// The error for a slug no system has, naming the closest slugs (the slug is shown cut to 80
/// characters).
pub fn unknown_slug(field: &str, slug: &str) -> FeatureError {
    let shown: String = slug.chars().take(80).collect();
    let suggestions = closest_slugs(&shown.to_lowercase(), 3);
    FeatureError::not_found(
        field,
        format!(
            "no system with slug '{shown}'; closest: {}",
            suggestions.join(", ")
        ),
    )
}

/// The weight of a document of an earlier version whose later version the corpus also holds:
/// on the same words, the version in use ranks first (the earlier stays found by its own
/// words, such as its slug or version).
const SUPERSEDED_WEIGHT: f64 = 0.8;

/// How many index terms a prefix or fuzzy lookup may expand to, per query term.
const MAX_EXPANSIONS: usize = 40;
/// How many unknown words of one query are walked as possible typos. A search query never
/// reaches it; a pasted report full of words the index does not know (names, dictation
/// noise) stops paying for fuzzy walks there and matches its further words exactly.
pub const MAX_FUZZY_WORDS: usize = 64;

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

/// A [`Reason`] as a [`Ranking`] holds it.
#[derive(Clone, Copy, Debug)]
pub struct ReasonRef<'a> {
    pub term: &'a str,
    pub matched: &'a str,
    pub kind: MatchKind,
    pub distance: Option<u32>,
    pub field: &'static str,
}

impl ReasonRef<'_> {
    pub fn owned(self) -> Reason {
        Reason {
            term: self.term.to_string(),
            matched: self.matched.to_string(),
            kind: self.kind,
            distance: self.distance,
            field: self.field,
        }
    }
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
    /// The index term met (the table's own text, which lives as long as the isolate).
    term: &'static str,
    id: u64,
    kind: MatchKind,
    distance: u32,
}

fn index() -> Map<&'static [u8]> {
    // The bytes were produced by fst's own builder in build.rs; failure means a broken build.
    Map::new(FST).expect("compiled fst index is valid")
}

/// Every term of the index with its number, in key order (the `fst`'s): the text of each
/// lives as long as the isolate. Read from the index once, on an isolate's first search.
fn terms_in_order() -> &'static [(&'static str, u64)] {
    static TERMS: std::sync::OnceLock<Vec<(&'static str, u64)>> = std::sync::OnceLock::new();
    TERMS.get_or_init(|| {
        let map = index();
        // The terms' text in one piece.
        let mut text = String::new();
        let mut ends = Vec::with_capacity(map.len());
        walk_prefixed(map.as_fst(), b"", |key, id| {
            text.push_str(&String::from_utf8_lossy(key));
            ends.push((text.len(), id));
            true
        });
        let text: &'static str = Box::leak(text.into_boxed_str());
        let mut start = 0;
        ends.into_iter()
            .map(|(end, id)| {
                let term = &text[start..end];
                start = end;
                (term, id)
            })
            .collect()
    })
}

/// Every term of the index with its number, in a hash table: an exact lookup (each term of a
/// query, and of each of a report's findings) is then one hash and one comparison, where the
/// `fst` walks its nodes byte by byte (about 1,300 instructions a lookup natively, 7% of a
/// search). Keyed by the term's bytes, as the `fst`'s walks give their keys, with the term as
/// text beside its number: a key found is a term, so no byte string is checked for UTF-8 on
/// the way (that check was 1% of grounding a long report). Built on an isolate's first search;
/// the prefix and two-edit walks still go through the `fst`.
fn exact_terms() -> &'static HashMap<&'static [u8], (&'static str, u64), FastHash> {
    static TERMS: std::sync::OnceLock<HashMap<&'static [u8], (&'static str, u64), FastHash>> =
        std::sync::OnceLock::new();
    TERMS.get_or_init(|| {
        terms_in_order()
            .iter()
            .map(|&(term, id)| (term.as_bytes(), (term, id)))
            .collect()
    })
}

/// A byte string's key in [`one_edit_table`]: 32 bits of its hash (a collision only costs a
/// comparison, as every candidate is checked).
fn edit_key(bytes: &[u8]) -> u32 {
    use std::hash::BuildHasher;
    FastHash::default().hash_one(bytes) as u32
}

/// Every term of the index and every term with one byte deleted, as `(key, place in
/// [`terms_in_order`])`, sorted: two strings are one edit apart (a substitution, an insertion,
/// a deletion or a swap of neighbours) only if one of them, or both, with at most one byte
/// deleted are the same (symmetric deletion). So the terms one edit from a word are found by
/// looking up the word and its deletions, a dozen lookups, where walking the `fst` for them
/// tried every first byte and followed each: about 16 µs a word natively, 40% of a search of
/// the query mix. Built on an isolate's first typo; about nine entries a term.
fn one_edit_table() -> &'static [(u32, u32)] {
    static TABLE: std::sync::OnceLock<Vec<(u32, u32)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let terms = terms_in_order();
        let size: usize = terms.iter().map(|(t, _)| t.len() + 1).sum();
        let mut table: Vec<(u32, u32)> = Vec::with_capacity(size);
        let mut deleted: Vec<u8> = Vec::new();
        for (place, (term, _)) in terms.iter().enumerate() {
            let bytes = term.as_bytes();
            table.push((edit_key(bytes), place as u32));
            for i in 0..bytes.len() {
                deleted.clear();
                deleted.extend_from_slice(&bytes[..i]);
                deleted.extend_from_slice(&bytes[i + 1..]);
                table.push((edit_key(&deleted), place as u32));
            }
        }
        table.sort_unstable();
        table.dedup();
        table
    })
}

/// Whether two byte strings are at most one edit apart: a substitution, an insertion, a
/// deletion or a swap of neighbouring bytes (what [`Fuzzy`] accepts with one edit).
fn within_one_edit(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let Some(i) = short.iter().zip(long).position(|(x, y)| x != y) else {
        return true;
    };
    if short.len() == long.len() {
        // A substitution at i, or a swap of i and i + 1.
        short[i + 1..] == long[i + 1..]
            || (i + 1 < short.len()
                && short[i] == long[i + 1]
                && short[i + 1] == long[i]
                && short[i + 2..] == long[i + 2..])
    } else {
        // The longer has one byte more, at i.
        short[i..] == long[i + 1..]
    }
}

/// Hands the terms of the index within one edit of `word` (itself included, if it is one), in
/// key order with their numbers, to `visit` until it returns `false`: the keys a walk of the
/// `fst` with [`Fuzzy`] at one edit would hand it.
fn one_edit_from(word: &[u8], mut visit: impl FnMut(&[u8], u64) -> bool) {
    let table = one_edit_table();
    let terms = terms_in_order();
    let mut places: Vec<u32> = Vec::new();
    let mut look_up = |bytes: &[u8]| {
        let key = edit_key(bytes);
        let from = table.partition_point(|&(k, _)| k < key);
        places.extend(
            table[from..]
                .iter()
                .take_while(|&&(k, _)| k == key)
                .map(|e| e.1),
        );
    };
    look_up(word);
    let mut deleted: Vec<u8> = Vec::with_capacity(word.len());
    for i in 0..word.len() {
        deleted.clear();
        deleted.extend_from_slice(&word[..i]);
        deleted.extend_from_slice(&word[i + 1..]);
        look_up(&deleted);
    }
    places.sort_unstable();
    places.dedup();
    for place in places {
        let (term, id) = terms[place as usize];
        if within_one_edit(word, term.as_bytes()) && !visit(term.as_bytes(), id) {
            return;
        }
    }
}

/// The number of a term of the index, if it is one.
fn exact(term: &str) -> Option<u64> {
    exact_terms().get(term.as_bytes()).map(|&(_, id)| id)
}

/// A term of the index as the table holds it, with its number: the text a candidate keeps.
fn exact_key(term: &[u8]) -> Option<(&'static str, u64)> {
    exact_terms().get(term).copied()
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
    /// A plural also means its singular ("cysts" a "cyst"): a report's findings are written
    /// in the plural where a guideline's text names one.
    singular: bool,
}

/// The singular of an English plural, when the word looks like one ("cysts", "arteries",
/// "masses"), as its stem and the ending that replaces the plural's; not for words ending in
/// "ss", "us" or "is" ("mass", "status", "metastasis").
fn singular_of(word: &str) -> Option<(&str, &'static str)> {
    if word.len() < 4 || !word.ends_with('s') {
        return None;
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return Some((stem, "y"));
    }
    if let Some(stem) = word.strip_suffix("sses") {
        return Some((stem, "ss"));
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return None;
    }
    Some((&word[..word.len() - 1], ""))
}

/// The index term that is the singular of `word`, if it is a plural ([`singular_of`]) and its
/// singular is a term; joined on the stack (it is asked for every term of every finding).
fn singular_key(word: &str) -> Option<(&'static str, u64)> {
    let (stem, ending) = singular_of(word)?;
    let mut joined = [0u8; 64];
    let len = stem.len() + ending.len();
    if len > joined.len() {
        return exact_key([stem, ending].concat().as_bytes());
    }
    joined[..stem.len()].copy_from_slice(stem.as_bytes());
    joined[stem.len()..len].copy_from_slice(ending.as_bytes());
    exact_key(&joined[..len])
}

/// The index terms a query term may mean, appended to `out` (a query's candidates, term after
/// term, are kept in one list).
fn candidates(map: &Map<&'static [u8]>, term: &str, expand: Expand, out: &mut Vec<Candidate>) {
    let first = out.len();
    let exact = exact_key(term.as_bytes());
    if let Some((key, id)) = exact {
        out.push(Candidate {
            term: key,
            id,
            kind: MatchKind::Exact,
            distance: 0,
        });
    }
    if expand.singular {
        if let Some((key, id)) = singular_key(term) {
            out.push(Candidate {
                term: key,
                id,
                kind: MatchKind::Fuzzy,
                distance: 1,
            });
        }
    }
    let is_number = term.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if expand.prefix && term.len() >= 3 && !is_number {
        let mut n = 0;
        walk_prefixed(map.as_fst(), term.as_bytes(), |key, id| {
            if let Some((key, _)) = exact_key(key).filter(|(k, _)| *k != term) {
                out.push(Candidate {
                    term: key,
                    id,
                    kind: MatchKind::Prefix,
                    distance: 0,
                });
                n += 1;
            }
            n < MAX_EXPANSIONS
        });
    }
    // A word the index knows is taken as meant; only unknown words are treated as typos.
    let distance = if is_number || exact.is_some() || !expand.fuzzy {
        0
    } else {
        fuzziness(term)
    };
    // The nearest terms first: a word one edit from index terms is taken to mean them, and only
    // a word with none is walked again at two edits (each edit allowed widens the walk of the
    // index several times over).
    for allowed in 1..=distance {
        let mut n = 0;
        let visit = |key: &[u8], id: u64| {
            let Some((key, _)) = exact_key(key) else {
                return true;
            };
            if key != term && !out[first..].iter().any(|c| c.term == key) {
                let d = edit_distance(term, key);
                out.push(Candidate {
                    term: key,
                    id,
                    kind: MatchKind::Fuzzy,
                    distance: d,
                });
                n += 1;
            }
            n < MAX_EXPANSIONS
        };
        // One edit away: looked up by deletions, not walked; two: walked.
        if allowed == 1 {
            one_edit_from(term.as_bytes(), visit);
        } else {
            Fuzzy::new(term.as_bytes(), allowed as u8).walk(map.as_fst(), visit);
        }
        if out[first..].iter().any(|c| c.kind == MatchKind::Fuzzy) {
            break;
        }
    }
}

/// The words of a query that may be typos: unknown to the index, long enough to fuzz, not
/// numbers; the first [`MAX_FUZZY_WORDS`] of them in the order they were written.
fn typo_candidates(words: &[Word]) -> HashSet<&str, FastHash> {
    let mut out = HashSet::default();
    for word in words {
        if out.len() == MAX_FUZZY_WORDS {
            break;
        }
        let is_number = word.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        if !is_number && fuzziness(word) > 0 && exact(word).is_none() {
            out.insert(word.as_str());
        }
    }
    out
}

/// The distinct words of a query, for telling which of them a document's matching terms account
/// for (a document that accounts for every word gets a bonus).
///
/// Long text (a pasted report) has thousands of words and terms, so a term's words are found by
/// hashing, never by walking the word list: a walk per term and document made a search of long
/// text quadratic in its length.
struct QueryWords<'a> {
    /// Each distinct word: its slot, and whether it occurs more than once.
    slots: HashMap<&'a str, (usize, bool), FastHash>,
    /// The longest word, in bytes.
    longest: usize,
}

impl<'a> QueryWords<'a> {
    fn new(words: &'a [Word]) -> QueryWords<'a> {
        let mut slots: HashMap<&str, (usize, bool), FastHash> =
            HashMap::with_capacity_and_hasher(words.len(), FastHash::default());
        for w in words {
            let next = slots.len();
            slots
                .entry(w.as_str())
                .and_modify(|(_, repeated)| *repeated = true)
                .or_insert((next, false));
        }
        let longest = words.iter().map(|w| w.len()).max().unwrap_or(0);
        QueryWords { slots, longest }
    }

    /// The slots of the words a term accounts for in every place they occur. A word matched as
    /// itself accounts for its first occurrence only, so for a repeated word nothing; a joined
    /// term ("tirads") accounts for every word it contains, wherever it occurs.
    ///
    /// Only terms that met the index are asked about, and those are no longer than the longest
    /// index key (joined terms are not fuzzed), so the substrings tried are few.
    /// They are written into `out` (emptied first), a buffer kept from term to term.
    fn accounted_for(&self, term: &str, out: &mut Vec<usize>) {
        out.clear();
        if let Some(&(slot, repeated)) = self.slots.get(term) {
            if !repeated {
                out.push(slot);
            }
            return;
        }
        // Words and joined terms are folded to ASCII, so every byte offset is a boundary.
        for start in 0..term.len() {
            let end = term.len().min(start + self.longest);
            for stop in start + 1..=end {
                if let Some(&(slot, _)) = term.get(start..stop).and_then(|w| self.slots.get(w)) {
                    out.push(slot);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// Why a document matched a term, before it is spelled out: the term, the candidate it met
/// (which holds the match kind and distance) and the field. Only the hits returned are given
/// their [`Reason`]s; a term can reach hundreds of documents, and two strings per document and
/// term were most of a search's allocations.
#[derive(Clone, Copy)]
struct RawReason {
    term: u32,
    candidate: u32,
    field: Field,
    /// The document's previous reason (its reasons are a list, latest first), or `u32::MAX`.
    previous: u32,
}

/// The documents one search has reached: each one's score so far and the distinct query words
/// its terms account for (one bit per word), stored compactly in the order they were reached.
/// Its per-document table is kept from search to search and reset through the documents
/// reached, so a search costs what its terms reach, not the corpus's size: grounding a report
/// searches once per finding, and clearing tables the size of the corpus for each was a large
/// part of each search.
struct Reached {
    /// Per document: its place among the reached, or `u32::MAX`.
    place: Vec<u32>,
    /// Per document: the current term's best match (score, candidate, field), reset per term.
    best: Vec<Option<(f64, u32, Field)>>,
    docs: Vec<usize>,
    scores: Vec<f64>,
    count: Vec<usize>,
    /// Each reached document's latest reason, or `u32::MAX`.
    latest: Vec<u32>,
    /// Cells of 64 bits per reached document.
    cells: usize,
    seen: Vec<u64>,
    /// Every (document, term) match of the query, in term order (buffers kept from query to
    /// query, like the tables above).
    reasons: Vec<RawReason>,
    /// The documents the current term reached.
    touched: Vec<usize>,
}

impl Reached {
    fn new() -> Reached {
        Reached {
            place: vec![u32::MAX; DOCS.len()],
            best: vec![None; DOCS.len()],
            docs: Vec::new(),
            scores: Vec::new(),
            count: Vec::new(),
            latest: Vec::new(),
            cells: 0,
            seen: Vec::new(),
            reasons: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Ready for a query of `words` distinct words.
    fn start(&mut self, words: usize) {
        for &doc in &self.docs {
            self.place[doc] = u32::MAX;
        }
        self.docs.clear();
        self.scores.clear();
        self.count.clear();
        self.latest.clear();
        self.seen.clear();
        self.reasons.clear();
        self.touched.clear();
        self.cells = words.div_ceil(64);
    }

    /// Adds a term's score to `doc`, and the word slots it accounts for; its place among the
    /// reached.
    fn add(&mut self, doc: usize, score: f64, slots: &[usize]) -> usize {
        let mut at = self.place[doc] as usize;
        if at == u32::MAX as usize {
            at = self.docs.len();
            self.place[doc] = at as u32;
            self.docs.push(doc);
            self.scores.push(0.0);
            self.count.push(0);
            self.latest.push(u32::MAX);
            self.seen.resize(self.seen.len() + self.cells, 0);
        }
        self.scores[at] += score;
        let seen = &mut self.seen[at * self.cells..(at + 1) * self.cells];
        for &slot in slots {
            let (cell, bit) = (slot / 64, 1u64 << (slot % 64));
            if seen[cell] & bit == 0 {
                seen[cell] |= bit;
                self.count[at] += 1;
            }
        }
        at
    }
}

/// `x.round() as u64` for a score (never negative): half away from zero, as `f64::round`,
/// without its library call (wasm has no instruction for that rounding; a truncation it has,
/// and `x - trunc(x)` is exact).
fn round_positive(x: f64) -> u64 {
    let whole = x as u64;
    whole + u64::from(x - whole as f64 >= 0.5)
}

/// Bits of a ranking key that hold the document (a posting numbers its document in 16 bits).
const DOC_BITS: u32 = 16;
const DOC_MASK: u64 = (1 << DOC_BITS) - 1;
/// One more than the highest score a ranking key holds, in thousandths (a score is a sum of a
/// few field weights per query term; this is far above any).
const SCORE_KEYS: u64 = 1 << 46;

thread_local! {
    static REACHED: std::cell::RefCell<Option<Reached>> = const { std::cell::RefCell::new(None) };
}

/// Searches the corpus. `query` is free text; at most `limit` hits are returned, best first.
pub fn search(query: &str, limit: usize) -> Vec<Hit> {
    rank(query, limit, true).hits()
}

/// The documents a query reaches, scored and ranked, with what each matched kept as numbers
/// until it is asked for: a search answer spells out the reasons of its ten hits, while
/// grounding weighs a hundred hits per finding of a report and reads only the matched terms of
/// the few systems it keeps.
#[derive(Default)]
pub struct Ranking {
    terms: Vec<Word>,
    candidates: Vec<Candidate>,
    /// Every (document, term) match of the ranked documents, in rank order, each document's in
    /// term order: those of the document at rank `r` are `reasons[spans[r].0..spans[r].1]`.
    reasons: Vec<RawReason>,
    spans: Vec<(u32, u32)>,
    /// `(score, document)`, best first.
    pub docs: Vec<(f64, usize)>,
}

impl Ranking {
    fn reasons_of(&self, rank: usize) -> &[RawReason] {
        let (from, to) = self.spans[rank];
        &self.reasons[from as usize..to as usize]
    }

    /// The index terms the document at `rank` matched, in the query's term order.
    pub fn matched(&self, rank: usize) -> impl Iterator<Item = &str> {
        self.reasons_of(rank)
            .iter()
            .map(|r| self.candidates[r.candidate as usize].term)
    }

    /// The ranked documents as hits, each with its reasons spelled out.
    pub fn hits(&self) -> Vec<Hit> {
        (0..self.docs.len())
            .map(|rank| Hit {
                why: self.why(rank).map(|r| r.owned()).collect(),
                ..self.hit_at(rank)
            })
            .collect()
    }

    /// The hit at `rank` without its reasons (`why` empty): see [`Ranking::why`].
    pub fn hit_at(&self, rank: usize) -> Hit {
        let (score, doc) = self.docs[rank];
        let d = &DOCS[doc];
        let s = &SYSTEMS[d.system as usize];
        Hit {
            kind: match d.kind {
                DocKind::System => "system",
                DocKind::Outcome => "outcome",
            },
            slug: s.slug,
            system: s.short_name,
            code: (d.kind == DocKind::Outcome).then_some(d.code),
            label: d.label,
            score,
            why: Vec::new(),
            doc,
        }
    }

    /// The reasons of the hit at `rank`, in the query's term order, borrowed from the ranking
    /// (the search route writes them as they are, without a `String` each).
    pub fn why(&self, rank: usize) -> impl Iterator<Item = ReasonRef<'_>> {
        self.reasons_of(rank).iter().map(|r| {
            let c = &self.candidates[r.candidate as usize];
            ReasonRef {
                term: &self.terms[r.term as usize],
                matched: c.term,
                kind: c.kind,
                distance: (c.kind == MatchKind::Fuzzy).then_some(c.distance),
                field: r.field.as_str(),
            }
        })
    }

    /// How many hits it ranked.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// Ranks the documents for `query`, at most `limit`. With `typos`, unknown words are walked as
/// possible typos; without, they match nothing (the many short texts of one request, a report's
/// findings, so that a request's typo walks do not grow with its findings).
pub fn rank(query: &str, limit: usize, typos: bool) -> Ranking {
    rank_words(&text::words(query), limit, typos)
}

/// [`rank`] of a query already cut into its folded words.
pub fn rank_words(words: &[Word], limit: usize, typos: bool) -> Ranking {
    rank_terms(
        words,
        text::identity_terms_of(words),
        words,
        limit,
        typos,
        false,
    )
}

/// The ranking of a finding of a report, cut into its folded words: its words match exactly
/// (no typo walks), and its stopwords ("of", "the", "and") match nothing, alone or joined to
/// one another ("ofthe"): a sentence has many, and in a system's name ("Reporting and Data
/// System") they say nothing about what the sentence is about.
pub fn rank_finding(words: &[Word], limit: usize) -> Ranking {
    let terms = text::identity_terms_without(words, text::is_stopword);
    let content: Vec<Word> = words
        .iter()
        .filter(|w| !text::is_stopword(w))
        .cloned()
        .collect();
    rank_terms(words, terms, &content, limit, false, true)
}

/// [`rank_words`] of the terms chosen from `words`, of which `counted` are those a document
/// must match all of to be found by the whole query; with `singular`, a plural term also
/// matches its singular.
fn rank_terms(
    words: &[Word],
    terms: Vec<Word>,
    counted: &[Word],
    limit: usize,
    typos: bool,
    singular: bool,
) -> Ranking {
    if terms.is_empty() {
        return Ranking::default();
    }
    let query_words = QueryWords::new(counted);
    let distinct = query_words.slots.len();
    let map = index();
    let typos = if typos {
        typo_candidates(words)
    } else {
        HashSet::default()
    };
    REACHED.with(|cell| {
        let mut cell = cell.borrow_mut();
        let reached = cell.get_or_insert_with(Reached::new);
        reached.start(distinct);
        let last_word = words.last().map(Word::as_str);
        let expand = |term: &str| Expand {
            prefix: last_word.is_some_and(|w| term.ends_with(w)),
            fuzzy: typos.contains(term),
            singular,
        };
        rank_in(reached, &map, expand, terms, &query_words, limit)
    })
}

/// [`rank`] with its per-document tables (`reached`, ready for the query); `expand` says how
/// each term may be expanded.
fn rank_in(
    reached: &mut Reached,
    map: &Map<&'static [u8]>,
    expand: impl Fn(&str) -> Expand,
    terms: Vec<Word>,
    query_words: &QueryWords,
    limit: usize,
) -> Ranking {
    let distinct = query_words.slots.len();
    // Every (document, term) match, in term order, and every candidate of every term.
    let mut reasons = std::mem::take(&mut reached.reasons);
    let mut candidates_seen: Vec<Candidate> = Vec::with_capacity(terms.len());
    let mut touched = std::mem::take(&mut reached.touched);
    let mut accounted_for: Vec<usize> = Vec::new();
    for (t, term) in terms.iter().enumerate() {
        let first = candidates_seen.len();
        candidates(map, term, expand(term), &mut candidates_seen);
        for (i, c) in candidates_seen.iter().enumerate().skip(first) {
            let quality = c.kind.quality(c.distance);
            for p in read_postings(POSTINGS, c.id) {
                let whole = if p.whole { 1.25 } else { 1.0 };
                let score = p.field.weight() as f64 * quality * whole;
                let doc = p.doc as usize;
                match reached.best[doc] {
                    Some((s, _, _)) if score <= s => {}
                    Some(_) => reached.best[doc] = Some((score, i as u32, p.field)),
                    None => {
                        touched.push(doc);
                        reached.best[doc] = Some((score, i as u32, p.field));
                    }
                }
            }
        }
        if touched.is_empty() {
            continue;
        }
        query_words.accounted_for(term, &mut accounted_for);
        for doc in touched.drain(..) {
            let Some((score, i, field)) = reached.best[doc].take() else {
                continue;
            };
            let at = reached.add(doc, score, &accounted_for);
            reasons.push(RawReason {
                term: t as u32,
                candidate: i,
                field,
                previous: reached.latest[at],
            });
            reached.latest[at] = (reasons.len() - 1) as u32;
        }
    }
    // Final scores (rounded to thousandths, as shown) of every document reached, best first:
    // the best `limit` are chosen, then only they are sorted. A score is kept as whole
    // thousandths beside its document in one integer key, so ordering compares integers.
    let mut ranked: Vec<u64> = reached
        .docs
        .iter()
        .enumerate()
        .map(|(at, &doc)| {
            let score = reached.scores[at];
            let all = reached.count[at] == distinct;
            let score = if all { score * 1.5 } else { score };
            let score = if SYSTEMS[DOCS[doc].system as usize].superseded {
                score * SUPERSEDED_WEIGHT
            } else {
                score
            };
            let thousandths = round_positive(score * 1000.0);
            // Higher scores first, then the lower document.
            ((SCORE_KEYS - thousandths.min(SCORE_KEYS)) << DOC_BITS) | doc as u64
        })
        .collect();
    if limit == 0 {
        ranked.clear();
    } else if ranked.len() > limit {
        ranked.select_nth_unstable(limit - 1);
        ranked.truncate(limit);
    }
    ranked.sort_unstable();
    let docs: Vec<(f64, usize)> = ranked
        .iter()
        .map(|key| {
            let thousandths = SCORE_KEYS - (key >> DOC_BITS);
            (thousandths as f64 / 1000.0, (key & DOC_MASK) as usize)
        })
        .collect();
    // Only the ranked documents' reasons are kept, in rank order, each document's in term order.
    let mut kept: Vec<RawReason> = Vec::with_capacity(docs.len() * 2);
    let mut spans: Vec<(u32, u32)> = Vec::with_capacity(docs.len());
    for &(_, doc) in &docs {
        let from = kept.len();
        let mut at = reached.latest[reached.place[doc] as usize];
        while at != u32::MAX {
            let r = reasons[at as usize];
            kept.push(r);
            at = r.previous;
        }
        kept[from..].reverse();
        spans.push((from as u32, kept.len() as u32));
    }
    reached.reasons = reasons;
    reached.touched = touched;
    Ranking {
        terms,
        candidates: candidates_seen,
        reasons: kept,
        spans,
        docs,
    }
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

/// The most edits [`Fuzzy`] tells apart; a larger `max` counts as this.
pub const MAX_EDITS: u8 = 3;
/// Cells of a row kept: those within [`MAX_EDITS`] of the diagonal.
const BAND: usize = 2 * MAX_EDITS as usize + 1;
/// Bytes of the query one step of [`Fuzzy`] compares a key's byte with: the band's columns and
/// the one before them (a swap).
const WINDOW: usize = BAND + 1;

/// An `fst` automaton accepting the keys within `max` edits (optimal string alignment) of a
/// query, over bytes.
///
/// The state is the current row of the edit-distance table, with the previous row and the
/// previous input byte for swaps. A branch of the index is abandoned as soon as every cell of
/// the row exceeds `max`, which keeps the walk to a small part of the index.
///
/// Only the cells within `max` of the diagonal are kept, capped at `max + 1`: a cell further
/// from the diagonal is above `max` whatever the strings, and the automaton only ever asks
/// whether a cell is within `max`. So a state is a few bytes, copied without allocating. A
/// search of a long finding fuzzes hundreds of words and visits thousands of states for each,
/// and rows allocated per state made that walk the bulk of the work.
#[derive(Clone, Debug)]
pub struct Fuzzy<'a> {
    query: &'a [u8],
    max: u8,
}

/// A band of a row of the edit-distance table and what swaps need from the row before.
#[derive(Clone, Copy, Debug)]
pub struct FuzzyState {
    /// Bytes of the key read: the row's number.
    depth: usize,
    /// Cell `depth - max + k` of the row at `k`, for `k` in `0..=2 * max`.
    row: [u8; BAND],
    /// The same band of the row before.
    prev: [u8; BAND],
    last: Option<u8>,
}

impl<'a> Fuzzy<'a> {
    /// Keys within `max` edits of `query` (`max` at most [`MAX_EDITS`]).
    pub fn new(query: &'a [u8], max: u8) -> Fuzzy<'a> {
        Fuzzy {
            query,
            max: max.min(MAX_EDITS),
        }
    }

    /// The cells of a band.
    fn width(&self) -> usize {
        2 * self.max as usize + 1
    }

    /// A value beyond `max`: every cell the automaton cannot use any more.
    fn over(&self) -> u8 {
        self.max + 1
    }

    /// The column of the query that cell `k` of row `depth` stands for, if there is one.
    fn column(&self, depth: usize, k: usize) -> Option<usize> {
        (depth + k)
            .checked_sub(self.max as usize)
            .filter(|&j| j <= self.query.len())
    }

    /// The state before any byte of a key: row 0 of the table.
    fn start_state(&self) -> FuzzyState {
        let mut row = [self.over(); BAND];
        for (k, cell) in row.iter_mut().enumerate().take(self.width()) {
            if let Some(j) = self.column(0, k) {
                *cell = j.min(self.over() as usize) as u8;
            }
        }
        FuzzyState {
            depth: 0,
            row,
            prev: [self.over(); BAND],
            last: None,
        }
    }

    /// Is the key read so far within `max` edits of the whole query?
    fn matches(&self, s: &FuzzyState) -> bool {
        // The cell of the whole query: column `len`, at `k = len + max - depth`.
        (self.query.len() + self.max as usize)
            .checked_sub(s.depth)
            .filter(|&k| k < self.width())
            .is_some_and(|k| s.row[k] <= self.max)
    }

    /// The state after one more byte of the key, or `None` when no key going on from here can
    /// come within `max` edits.
    fn step(&self, s: &FuzzyState, byte: u8) -> Option<FuzzyState> {
        let q = self.query;
        let (width, over) = (self.width(), self.over());
        let depth = s.depth + 1;
        let mut row = [over; BAND];
        for k in 0..width {
            let Some(j) = self.column(depth, k) else {
                continue;
            };
            if j == 0 {
                row[k] = depth.min(over as usize) as u8;
                continue;
            }
            // Cell (depth - 1, j) sits at k + 1 of the row before, (depth - 1, j - 1) at k,
            // (depth, j - 1) at k - 1 of this row and (depth - 2, j - 2) at k of the one before.
            let cost = u8::from(q[j - 1] != byte);
            let mut v = s.row[k] + cost;
            if k + 1 < width {
                v = v.min(s.row[k + 1] + 1);
            }
            if k > 0 {
                v = v.min(row[k - 1] + 1);
            }
            if j > 1 && s.last == Some(q[j - 1]) && q[j - 2] == byte {
                v = v.min(s.prev[k] + 1);
            }
            row[k] = v.min(over);
        }
        if row[..width].iter().all(|&d| d > self.max) {
            return None;
        }
        Some(FuzzyState {
            depth,
            row,
            prev: s.row,
            last: Some(byte),
        })
    }

    /// The bytes a key may go on with from state `s` and stay within reach, when only bytes of
    /// the query can: sorted, distinct, `len` of them. `None` when a byte outside the query
    /// might keep the state alive (while the key has edits to spare).
    ///
    /// One step compares the key's byte only with the query's bytes in a window around the
    /// state's depth; a byte outside that window is an edit wherever it goes.
    fn live_bytes(&self, s: &FuzzyState) -> Option<([u8; WINDOW], usize)> {
        let q = self.query;
        let from = s.depth.saturating_sub(self.max as usize + 1);
        let to = (s.depth + self.max as usize + 1).min(q.len());
        let mut bytes = [0u8; WINDOW];
        let mut len = 0;
        for &b in q.get(from..to).unwrap_or_default() {
            if !bytes[..len].contains(&b) {
                bytes[len] = b;
                len += 1;
            }
        }
        // For such a byte every edit costs one, so each cell of the next row is one more than a
        // cell of this row or than the depth (the cell of the empty query).
        let least = s.row[..self.width()].iter().copied().min().unwrap_or(0);
        if least.min(s.depth.min(u8::MAX as usize) as u8) < self.max {
            return None;
        }
        bytes[..len].sort_unstable();
        Some((bytes, len))
    }

    /// Hands the keys of `fst` this automaton accepts, in key order, with their values to
    /// `visit`, until it returns `false`.
    ///
    /// The keys are those of `fst`'s own stream with this automaton, found with less work: the
    /// stream reads the node behind every transition it tries and keeps dead branches on its
    /// stack until it pops them, where this walk drops a branch before reading its node. Fuzzy
    /// lookups are most of the cost of searching long text, and most of the branches they try
    /// are dead. Past the first bytes of a key, only a few bytes keep a state alive
    /// ([`Fuzzy::live_bytes`]): those transitions are looked up instead of every transition of
    /// the node being tried.
    pub fn walk<D: AsRef<[u8]>>(
        &self,
        fst: &fst::raw::Fst<D>,
        visit: impl FnMut(&[u8], u64) -> bool,
    ) {
        // A key within reach is at most `max` bytes longer than the query.
        let deepest = self.query.len() + self.max as usize + 1;
        let (root, zero) = (fst.root(), fst::raw::Output::zero());
        let start = self.start_state();
        walk_below(
            self,
            fst,
            root,
            zero,
            Vec::with_capacity(deepest),
            start,
            visit,
        );
    }
}

impl fst::Automaton for Fuzzy<'_> {
    type State = Option<FuzzyState>;

    fn start(&self) -> Self::State {
        Some(self.start_state())
    }

    fn is_match(&self, state: &Self::State) -> bool {
        state.as_ref().is_some_and(|s| self.matches(s))
    }

    fn can_match(&self, state: &Self::State) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Self::State, byte: u8) -> Self::State {
        self.step(state.as_ref()?, byte)
    }
}

/// What leads a walk of an fst's keys ([`walk_below`]): an automaton over bytes.
trait Walker {
    type State: Copy;
    /// The state after one more byte of a key, or `None` when no key going on from here is
    /// accepted.
    fn step(&self, s: &Self::State, byte: u8) -> Option<Self::State>;
    fn accepts(&self, s: &Self::State) -> bool;
    /// The only bytes that may keep `s` alive, sorted and distinct (`len` of them), or `None`
    /// when any byte may.
    fn live_bytes(&self, s: &Self::State) -> Option<([u8; WINDOW], usize)>;
}

impl Walker for Fuzzy<'_> {
    type State = FuzzyState;
    fn step(&self, s: &FuzzyState, byte: u8) -> Option<FuzzyState> {
        Fuzzy::step(self, s, byte)
    }
    fn accepts(&self, s: &FuzzyState) -> bool {
        self.matches(s)
    }
    fn live_bytes(&self, s: &FuzzyState) -> Option<([u8; WINDOW], usize)> {
        Fuzzy::live_bytes(self, s)
    }
}

/// Every key below a node: what a prefix leads to.
struct Below;

impl Walker for Below {
    type State = ();
    fn step(&self, _: &(), _: u8) -> Option<()> {
        Some(())
    }
    fn accepts(&self, _: &()) -> bool {
        true
    }
    fn live_bytes(&self, _: &()) -> Option<([u8; WINDOW], usize)> {
        None
    }
}

/// Hands the keys of `fst` that start with `prefix`, in key order, with their values to
/// `visit`, until it returns `false`: those of `fst`'s stream with `Str::starts_with`, without
/// the stream's general machinery (a search's last word is expanded this way).
pub fn walk_prefixed<D: AsRef<[u8]>>(
    fst: &fst::raw::Fst<D>,
    prefix: &[u8],
    visit: impl FnMut(&[u8], u64) -> bool,
) {
    let mut node = fst.root();
    let mut out = fst::raw::Output::zero();
    for &b in prefix {
        let Some(i) = node.find_input(b) else {
            return;
        };
        let t = node.transition(i);
        out = out.cat(t.out);
        node = fst.node(t.addr);
    }
    let mut key = Vec::with_capacity(prefix.len() + 16);
    key.extend_from_slice(prefix);
    walk_below(&Below, fst, node, out, key, (), visit);
}

/// Hands the keys below `node` (reached by `key`, with output `out`, in state `start`) that
/// `walker` accepts to `visit`, in key order (`node`'s own key first), until it returns
/// `false`.
///
/// It reads a node only once a transition to it is alive, and past the first bytes of a key,
/// where only a few bytes keep a state alive ([`Walker::live_bytes`]), it looks those
/// transitions up instead of trying every transition of the node.
fn walk_below<D: AsRef<[u8]>, W: Walker>(
    walker: &W,
    fst: &fst::raw::Fst<D>,
    node: fst::raw::Node<'_>,
    out: fst::raw::Output,
    mut key: Vec<u8>,
    start: W::State,
    mut visit: impl FnMut(&[u8], u64) -> bool,
) {
    if node.is_final()
        && walker.accepts(&start)
        && !visit(&key, out.cat(node.final_output()).value())
    {
        return;
    }
    /// A node being walked: the transitions to try are all of them, or those of `tries`.
    struct Frame<'f, S> {
        node: fst::raw::Node<'f>,
        next: usize,
        tries: Option<([u8; WINDOW], usize)>,
        out: fst::raw::Output,
        state: S,
    }
    fn frame<'f, W: Walker>(
        walker: &W,
        node: fst::raw::Node<'f>,
        out: fst::raw::Output,
        state: W::State,
    ) -> Frame<'f, W::State> {
        // The transitions of the live bytes, in input order as the node keeps them; a node
        // of one transition (most are) is tried as it is.
        let few = node.len() <= 1;
        let tries = (!few)
            .then(|| walker.live_bytes(&state))
            .flatten()
            .map(|(bytes, len)| {
                // A node has at most 256 transitions, so an index is a byte.
                let mut at = [0u8; WINDOW];
                let mut n = 0;
                for &b in &bytes[..len] {
                    if let Some(i) = node.find_input(b) {
                        at[n] = i as u8;
                        n += 1;
                    }
                }
                (at, n)
            });
        Frame {
            node,
            next: 0,
            tries,
            out,
            state,
        }
    }
    let mut stack = Vec::with_capacity(key.capacity().max(8));
    stack.push(frame(walker, node, out, start));
    while let Some(frame_at) = stack.last_mut() {
        let tried = frame_at.tries.map_or(frame_at.node.len(), |(_, n)| n);
        if frame_at.next == tried {
            // Done with this node (the key loses its byte; past the first node, the walk ends).
            stack.pop();
            key.pop();
            continue;
        }
        let i = frame_at
            .tries
            .map_or(frame_at.next, |(at, _)| at[frame_at.next] as usize);
        frame_at.next += 1;
        let t = frame_at.node.transition(i);
        let Some(state) = walker.step(&frame_at.state, t.inp) else {
            continue;
        };
        let out = frame_at.out.cat(t.out);
        let node = fst.node(t.addr);
        key.push(t.inp);
        if node.is_final()
            && walker.accepts(&state)
            && !visit(&key, out.cat(node.final_output()).value())
        {
            return;
        }
        stack.push(frame(walker, node, out, state));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_round_half_away_from_zero_as_f64_round() {
        let mut x = 0.0f64;
        while x < 5000.0 {
            for v in [x, x + 0.5, x + 0.4999999999999999, x + 0.5000000000000001] {
                assert_eq!(round_positive(v), v.round() as u64, "{v}");
            }
            x += 0.25;
        }
        for v in [
            0.0,
            0.49999999999999994,
            1.3125 * 1000.0,
            2.5,
            1e15 + 0.5,
            f64::NAN,
        ] {
            assert_eq!(round_positive(v), v.round() as u64, "{v}");
        }
    }

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

    /// A typo one edit from index terms means those terms: the walk at two edits (several
    /// times the work) is taken only for a word with no term one edit away.
    #[test]
    fn a_plural_names_its_singular() {
        let singular = |w: &str| singular_of(w).map(|(stem, ending)| format!("{stem}{ending}"));
        assert_eq!(singular("cysts").as_deref(), Some("cyst"));
        assert_eq!(singular("arteries").as_deref(), Some("artery"));
        assert_eq!(singular("masses").as_deref(), Some("mass"));
        assert_eq!(singular("nodules").as_deref(), Some("nodule"));
        for not_plural in ["mass", "status", "metastasis", "cyst", "gas"] {
            assert_eq!(singular(not_plural), None, "{not_plural}");
        }
    }

    #[test]
    fn the_nearest_typo_tier_is_walked_first() {
        let fuzzy = |word: &str| -> Vec<(&'static str, u32)> {
            let expand = Expand {
                prefix: false,
                fuzzy: true,
                singular: false,
            };
            let mut found = Vec::new();
            candidates(&index(), word, expand, &mut found);
            found
                .into_iter()
                .filter(|c| c.kind == MatchKind::Fuzzy)
                .map(|c| (c.term, c.distance))
                .collect()
        };
        // One edit from "bosniak" (two from "bosniak1" ... "bosniaki", which it does not mean).
        assert_eq!(fuzzy("bosniack"), [("bosniak", 1)]);
        assert_eq!(fuzzy("calcificaton"), [("calcification", 1)]);
        // Two letters dropped: no term one edit away, so the walk at two edits finds it.
        assert!(fuzzy("flschner").contains(&("fleischner", 2)));
        assert_eq!(first_slug("flschner"), "fleischner-2017");
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
    fn a_findings_stopwords_match_nothing() {
        // The search route matches "and" in system names ("Reporting and Data System").
        assert!(!search("and the of", 10).is_empty());
        let words = text::words("and the of");
        assert!(rank_finding(&words, 100).is_empty());
        // A finding's hits are reached by its other words only, alone or joined.
        let words = text::words("bone lesion in the left iliac bone and of the spine");
        let ranking = rank_finding(&words, 100);
        assert!(!ranking.is_empty());
        for rank in 0..ranking.len() {
            for term in ranking.matched(rank) {
                assert!(!["in", "the", "and", "of", "ofthe", "inthe", "andof"].contains(&term));
            }
        }
        // The same words through the search route match them.
        let all = rank_words(&words, 100, false);
        assert!((0..all.len()).any(|rank| all.matched(rank).any(|t| t == "and")));
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
    fn a_long_text_stops_fuzzing_after_its_budget_of_unknown_words() {
        let noise: Vec<String> = (0..MAX_FUZZY_WORDS)
            .map(|i| format!("zq{}xv", char::from(b'a' + (i % 26) as u8)).repeat(1 + i / 26))
            .collect();
        let noise = noise.join(" ");
        let fuzzed = |text: &str| {
            search(text, 50)
                .iter()
                .flat_map(|h| h.why.iter())
                .any(|r| r.kind == MatchKind::Fuzzy && r.matched == "fleischner")
        };
        assert!(fuzzed(&format!("fleischer {noise}")), "within the budget");
        assert!(
            !fuzzed(&format!("{noise} fleischer")),
            "past the budget the word is matched exactly only"
        );
        // A known word is never a typo, so it spends none of the budget.
        let known = "nodule ".repeat(200);
        assert!(fuzzed(&format!("{known} fleischer")));
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

    /// The walk gives, in key order, exactly the index keys within reach: those `fst`'s own
    /// stream gives with the same automaton, and those the edit distance puts within `max`.
    #[test]
    fn fuzzy_walk_finds_exactly_the_keys_within_reach() {
        use fst::IntoStreamer;
        let map = index();
        let keys = map.stream().into_str_vec().unwrap();
        let mut queries: Vec<String> = [
            "bosniack",
            "fleischer",
            "recsit",
            "tirdas",
            "lymhpoma",
            "hypoechoic",
            "ab",
            "zzzz",
            "nodlue",
            "adrenl",
            "pancreatitsi",
            "qwertyuiop",
        ]
        .iter()
        .map(|q| q.to_string())
        .collect();
        // Keys spread over the index, each with an edit or two.
        for (i, (key, _)) in keys.iter().enumerate().step_by(313) {
            let mut b = key.clone().into_bytes();
            let at = i % b.len();
            match i % 4 {
                0 => b[at] = b'q',
                1 => {
                    b.remove(at);
                }
                2 => b.insert(at, b'e'),
                _ => b.swap(at.saturating_sub(1), at),
            }
            if i % 3 == 0 {
                b.push(b's');
            }
            queries.push(String::from_utf8(b).unwrap());
        }
        for query in &queries {
            for max in 1..=MAX_EDITS {
                let fuzzy = Fuzzy::new(query.as_bytes(), max);
                let mut walked = Vec::new();
                fuzzy.walk(map.as_fst(), |key, id| {
                    walked.push((String::from_utf8(key.to_vec()).unwrap(), id));
                    true
                });
                let streamed = map
                    .search(fuzzy.clone())
                    .into_stream()
                    .into_str_vec()
                    .unwrap();
                let within: Vec<(String, u64)> = keys
                    .iter()
                    .filter(|(key, _)| edit_distance(query, key) <= max as u32)
                    .cloned()
                    .collect();
                assert_eq!(walked, streamed, "{query} within {max}");
                assert_eq!(walked, within, "{query} within {max}");
                // Stopping early keeps the first keys.
                let mut first = Vec::new();
                fuzzy.walk(map.as_fst(), |key, _| {
                    first.push(key.to_vec());
                    first.len() < 2
                });
                assert_eq!(first.len(), walked.len().min(2), "{query} within {max}");
                // At one edit, the deletion table gives the same keys in the same order.
                if max == 1 {
                    let mut looked_up = Vec::new();
                    one_edit_from(query.as_bytes(), |key, id| {
                        looked_up.push((String::from_utf8(key.to_vec()).unwrap(), id));
                        true
                    });
                    assert_eq!(looked_up, walked, "{query} by deletions");
                }
            }
        }
        // Every key of the index, and every key with one edit of each kind, by deletions as by
        // the walk.
        for (i, (key, _)) in keys.iter().enumerate().step_by(7) {
            let mut variants = vec![key.clone().into_bytes()];
            let b = key.as_bytes();
            let at = i % b.len();
            let mut changed = b.to_vec();
            changed[at] = b'x';
            variants.push(changed);
            let mut shorter = b.to_vec();
            shorter.remove(at);
            variants.push(shorter);
            let mut longer = b.to_vec();
            longer.insert(at, b'o');
            variants.push(longer);
            let mut swapped = b.to_vec();
            swapped.swap(at.saturating_sub(1), at);
            variants.push(swapped);
            for v in variants {
                let (mut walked, mut looked_up) = (Vec::new(), Vec::new());
                Fuzzy::new(&v, 1).walk(map.as_fst(), |key, id| {
                    walked.push((key.to_vec(), id));
                    true
                });
                one_edit_from(&v, |key, id| {
                    looked_up.push((key.to_vec(), id));
                    true
                });
                assert_eq!(looked_up, walked, "{:?}", String::from_utf8_lossy(&v));
            }
        }
    }

    #[test]
    fn one_edit_is_a_substitution_an_insertion_a_deletion_or_a_swap() {
        for (a, b, within) in [
            ("recist", "recist", true),
            ("recist", "recsit", true),
            ("recist", "rexist", true),
            ("recist", "recit", true),
            ("recist", "reciist", true),
            ("recist", "rcesit", false),
            ("recist", "resict", false),
            ("ab", "ba", true),
            ("a", "", true),
            ("abc", "bcd", false),
            ("", "", true),
        ] {
            assert_eq!(
                within_one_edit(a.as_bytes(), b.as_bytes()),
                within,
                "{a} {b}"
            );
            assert_eq!(
                within_one_edit(b.as_bytes(), a.as_bytes()),
                within,
                "{b} {a}"
            );
        }
    }

    /// The prefix walk gives, in key order, exactly the keys `fst`'s own stream gives for the
    /// prefix, and stops where it is told to.
    #[test]
    fn the_hashed_terms_are_exactly_the_index_terms() {
        let map = index();
        let mut stream = map.stream();
        let mut n = 0;
        while let Some((key, id)) = fst::Streamer::next(&mut stream) {
            assert_eq!(exact(std::str::from_utf8(key).unwrap()), Some(id));
            n += 1;
        }
        assert_eq!(exact_terms().len(), n);
        for absent in ["", "zzzzqx", "lungradsx", "tirad"] {
            assert_eq!(exact(absent), map.get(absent), "{absent}");
        }
    }

    #[test]
    fn prefix_walk_finds_exactly_the_keys_of_the_prefix() {
        use fst::automaton::{Automaton, Str};
        use fst::{IntoStreamer, Streamer};
        let map = index();
        let keys = map.stream().into_str_vec().unwrap();
        let mut prefixes: Vec<String> = ["", "a", "bos", "lung", "tirads", "zzzz", "lr", "1"]
            .iter()
            .map(|p| p.to_string())
            .collect();
        // Prefixes of keys spread over the index, and whole keys.
        for (i, (key, _)) in keys.iter().enumerate().step_by(211) {
            prefixes.push(key[..key.len().min(1 + i % 6)].to_string());
            prefixes.push(key.clone());
        }
        for prefix in &prefixes {
            let mut walked = Vec::new();
            walk_prefixed(map.as_fst(), prefix.as_bytes(), |key, id| {
                walked.push((String::from_utf8(key.to_vec()).unwrap(), id));
                true
            });
            let mut streamed = Vec::new();
            let mut stream = map.search(Str::new(prefix).starts_with()).into_stream();
            while let Some((key, id)) = stream.next() {
                streamed.push((String::from_utf8(key.to_vec()).unwrap(), id));
            }
            assert_eq!(walked, streamed, "{prefix:?}");
            assert!(
                !walked.is_empty() || !keys.iter().any(|(k, _)| k.starts_with(prefix.as_str()))
            );
            let mut first = 0;
            walk_prefixed(map.as_fst(), prefix.as_bytes(), |_, _| {
                first += 1;
                first < 3
            });
            assert_eq!(first, walked.len().min(3), "{prefix:?}");
        }
    }

    #[test]
    fn words_are_accounted_for_as_before() {
        let words: Vec<Word> = ["lung", "rads", "lung", "a"].map(Word::from).to_vec();
        let query = QueryWords::new(&words);
        let slot = |w: &str| query.slots[w].0;
        // The buffer is reused, as a search does: each answer replaces the last.
        let mut buffer = vec![99];
        let mut accounted_for = |term: &str| {
            query.accounted_for(term, &mut buffer);
            buffer.clone()
        };
        // A repeated word matched as itself accounts only for its first place.
        assert_eq!(accounted_for("lung"), Vec::<usize>::new());
        assert_eq!(accounted_for("rads"), vec![slot("rads")]);
        // A joined term accounts for every word it contains, wherever it occurs.
        let mut joined = vec![slot("lung"), slot("rads"), slot("a")];
        joined.sort();
        assert_eq!(accounted_for("lungrads"), joined);
        assert_eq!(accounted_for("xyz"), Vec::<usize>::new());
    }
}
