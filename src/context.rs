//! Grounded context: the few systems that govern a finding, with their cited lines.
//!
//! Given finding text ("8 mm solid nodule in a smoker", a pasted report paragraph), the systems
//! are ranked by the search index and by what the text says: organs, modalities, sizes and cue
//! phrases. Which words mean what, and how radiologists choose between systems that overlap
//! (an incidental thyroid nodule on CT goes to the ACR incidental paper before TI-RADS; a
//! screening nodule to Lung-RADS before Fleischner), is reviewed corpus data
//! (`corpus/grounding/`, compiled into [`crate::knowledge`]), each cue resting on a cited line;
//! this module holds the algorithm. Only what the text asserts is read: the phrases it negates,
//! places in the past or asks about are ruled out first ([`assertion`], a ConText model over
//! the corpus's triggers). The result is JSON or a markdown block for an assistant, every line
//! cited, located and flagged.

pub mod answer;
pub mod assertion;
pub mod findings;
pub mod naming;
pub mod prefill;
pub mod render;
pub mod report;
pub mod setting;

pub use answer::Grounding;
pub use render::markdown;

use crate::corpus::compiled::{self, DocKind, SystemEntry, DOCS, SYSTEMS};
use crate::corpus::source::Status;
use crate::corpus::text;
use crate::corpus::text::{FastHash, Word};
use crate::feature::FeatureError;
use crate::knowledge::{Knowledge, Lexicon};
use crate::search;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};

/// Longest accepted finding or report text, in characters (POST body, MCP argument).
pub const MAX_TEXT_CHARS: usize = 20_000;
/// Longest accepted `q` in a GET query string, in characters; longer text goes in a POST body.
pub const MAX_QUERY_CHARS: usize = 1_000;
/// Default and maximum number of systems.
pub const DEFAULT_LIMIT: usize = 4;
pub const MAX_LIMIT: usize = 8;
/// Most entries `systems` may list (room for every system of the corpus), so the work of
/// checking them and the list echoed in the answer stay bounded whatever the body's size.
pub const MAX_SYSTEMS: usize = 64;

/// The markdown block's default token budget, and the range a request may ask for.
pub const DEFAULT_MAX_TOKENS: usize = 2_000;
pub const MIN_MAX_TOKENS: usize = 300;
pub const MAX_MAX_TOKENS: usize = 32_000;

/// How much of each selected system the JSON answer carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// The default: per system its scope, the decision units with only the rules that decide
    /// (or, when none decides, none: the system's link has them all), and the outcomes the text
    /// matched or decided (or its first few).
    Compact,
    /// Every unit's first rules and the first outcomes, as far as the answer's caps go.
    Full,
}

/// The two output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Markdown,
}

/// Characters of finding text that weigh one request in the per-client rate limit: ranking
/// grows with the text, so a long finding spends more of the budget than a short one.
pub const COST_CHARS: usize = 500;

/// What grounding `text` costs in the per-client rate limit: one request, plus one per
/// [`COST_CHARS`] characters past the first.
pub fn cost(text: &str) -> u32 {
    1 + (text.chars().count().saturating_sub(1) / COST_CHARS) as u32
}

/// A grounding request, from the query string, a JSON body or an MCP tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextQuery {
    pub text: String,
    pub systems: Vec<String>,
    pub organ: Option<String>,
    pub limit: usize,
    /// Whether the request gave `limit`: a report of several findings not given one offers
    /// each finding's first system, up to [`MAX_LIMIT`].
    pub limit_asked: bool,
    pub format: Format,
    pub verified: bool,
    pub detail: Detail,
    /// The markdown block's budget, in approximate tokens.
    pub max_tokens: usize,
}

impl ContextQuery {
    /// Sets the answer's detail (`compact`, `full`) and the markdown block's token budget.
    pub fn options(
        mut self,
        detail: Option<String>,
        max_tokens: Option<i64>,
    ) -> Result<ContextQuery, FeatureError> {
        self.detail = match detail.as_deref().map(str::trim) {
            None | Some("") | Some("compact") => Detail::Compact,
            Some("full") => Detail::Full,
            Some(other) => {
                return Err(FeatureError::argument(
                    "detail",
                    format!("'detail' must be compact or full; got '{other}'"),
                ))
            }
        };
        self.max_tokens = match max_tokens {
            None => DEFAULT_MAX_TOKENS,
            Some(n) if (MIN_MAX_TOKENS as i64..=MAX_MAX_TOKENS as i64).contains(&n) => n as usize,
            Some(n) => {
                return Err(FeatureError::argument(
                    "max_tokens",
                    format!(
                        "'max_tokens' must be an integer from {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}; got {n}"
                    ),
                ))
            }
        };
        Ok(self)
    }

    /// Builds and checks a query. `text` may be empty when `systems` names systems.
    pub fn new(
        text: Option<String>,
        systems: Option<Vec<String>>,
        organ: Option<String>,
        limit: Option<i64>,
        format: Option<String>,
        verified: Option<bool>,
    ) -> Result<ContextQuery, FeatureError> {
        let text = text.unwrap_or_default();
        if text.chars().count() > MAX_TEXT_CHARS {
            return Err(FeatureError::argument(
                "text",
                format!("the finding text is longer than {MAX_TEXT_CHARS} characters"),
            ));
        }
        let mut systems: Vec<String> = systems
            .unwrap_or_default()
            .into_iter()
            .map(|s| s.trim().to_lowercase())
            .collect();
        // Each entry must name a system: `systems=` or `a,,b` is a mistake, not "none".
        if systems.iter().any(String::is_empty) {
            return Err(FeatureError::argument(
                "systems",
                "'systems' lists an empty slug: give comma-separated slugs, or leave it out",
            ));
        }
        if systems.len() > MAX_SYSTEMS {
            return Err(FeatureError::argument(
                "systems",
                format!(
                    "'systems' may list at most {MAX_SYSTEMS} slugs; got {}",
                    systems.len()
                ),
            ));
        }
        // A slug named twice is included once.
        let mut seen = std::collections::BTreeSet::new();
        systems.retain(|s| seen.insert(s.clone()));
        for slug in &systems {
            if compiled::system(slug).is_none() {
                let closest = search::closest_slugs(slug, 3);
                return Err(FeatureError::argument(
                    "systems",
                    format!("unknown system '{slug}'; closest: {}", closest.join(", ")),
                ));
            }
        }
        let organ = match organ
            .map(|o| o.trim().to_lowercase())
            .filter(|o| !o.is_empty())
        {
            None => None,
            Some(o) if SYSTEMS.iter().any(|s| s.organs.contains(&o.as_str())) => Some(o),
            Some(o) => {
                let mut organs: Vec<&str> = SYSTEMS
                    .iter()
                    .flat_map(|s| s.organs.iter().copied())
                    .collect();
                organs.sort();
                organs.dedup();
                return Err(FeatureError::argument(
                    "organ",
                    format!("unknown organ '{o}'; known: {}", organs.join(", ")),
                ));
            }
        };
        let limit_asked = limit.is_some();
        let limit = match limit {
            None => DEFAULT_LIMIT,
            Some(n) if (1..=MAX_LIMIT as i64).contains(&n) => n as usize,
            Some(n) => {
                return Err(FeatureError::argument(
                    "limit",
                    format!("'limit' must be an integer from 1 to {MAX_LIMIT}; got {n}"),
                ))
            }
        };
        let format = match format.as_deref().map(str::trim) {
            None | Some("") | Some("json") => Format::Json,
            Some("markdown") | Some("md") => Format::Markdown,
            Some(other) => {
                return Err(FeatureError::argument(
                    "format",
                    format!("'format' must be json or markdown; got '{other}'"),
                ))
            }
        };
        Ok(ContextQuery {
            text,
            systems,
            organ,
            limit,
            limit_asked,
            format,
            verified: verified.unwrap_or(true),
            detail: Detail::Compact,
            max_tokens: DEFAULT_MAX_TOKENS,
        })
    }
}

/// What the finding text says, as far as ranking needs it.
#[derive(Clone, Debug, Default)]
pub struct Finding {
    pub organs: Vec<&'static str>,
    pub modalities: Vec<&'static str>,
    /// The sizes and the patient's age stated, with the words that state them by their place
    /// in the words read: the answer's prefill of the whole text starts from them instead of
    /// reading the text again.
    pub sizes: Vec<prefill::SizeMention>,
    pub age: Option<prefill::Age>,
    /// The cues that fired, by name.
    pub cues: Vec<&'static str>,
    /// The systems the text names explicitly ("Bosniak IIF", "per Fleischner").
    pub named: Vec<naming::Named>,
    /// The text as grounding read it: the submitted text with its ruled-out words blanked.
    pub read: String,
    /// What the text rules out (negated, historical, hypothetical, about a relative).
    pub ruled_out: Vec<assertion::RuledOut>,
    /// What the text hedges ("possible", "cannot be excluded"): read, but stated as no fact.
    pub hedged: Vec<assertion::RuledOut>,
    /// The findings of a report, each with its own systems (impression first).
    pub groups: Vec<findings::Group>,
    /// Findings past [`findings::MAX_FINDINGS`], not grounded.
    pub more_findings: usize,
    /// The text is answered by its findings (a report of several, or one with headings): the
    /// systems offered are the findings' systems, each read on the finding it answers.
    pub by_findings: bool,
    /// The `[start, end)` character spans of the text's clinical history sections: what they
    /// state about the patient (an input `about: patient`) holds for each finding.
    pub history: Vec<[usize; 2]>,
    /// The report describes an examination without contrast ([`report::Examination`]): an
    /// attenuation its findings state is an unenhanced one.
    pub unenhanced: bool,
    /// The report-wide setting, read once and applied to every finding.
    pub setting: setting::Setting,
    /// The folded words of `read` with their offsets, as the text was cut for its reading (the
    /// answer's prefill and its findings' evaluations read them again).
    pub read_spans: Vec<text::Span>,
}

impl Finding {
    /// The sizes stated, in millimetres.
    pub fn sizes_mm(&self) -> Vec<f64> {
        self.sizes.iter().map(|s| s.mm).collect()
    }

    /// The patient's age stated, in years.
    pub fn age_years(&self) -> Option<f64> {
        self.age.map(|a| a.years)
    }
}

/// Folded words and where each stands, so a phrase of the lexicon is looked up by its first
/// word instead of searched for in the text: reading a report looks up every phrase of the
/// lexicon in every sentence, and a search per phrase made that the cost of a long report.
/// A short text (a line, a sentence) is scanned instead: building its table cost more than the
/// few phrases ever looked up in it.
pub(crate) struct Said {
    words: Vec<Word>,
    at: Option<text::Places<Word>>,
    /// Where each word starts in the text, in characters, when the words were cut from the
    /// whole text (its lines are then runs of them, not cut again).
    starts: Option<Vec<usize>>,
}

/// Texts of at most this many words are scanned for a phrase rather than indexed.
const SCANNED_WORDS: usize = 48;

impl Said {
    pub(crate) fn new(words: Vec<Word>) -> Said {
        let at = (words.len() > SCANNED_WORDS).then(|| text::Places::new(&words, Word::clone));
        Said {
            words,
            at,
            starts: None,
        }
    }

    /// [`Said::new`] of words cut with their offsets in the text.
    pub(crate) fn of_spans(spans: &[text::Span]) -> Said {
        let mut said = Said::new(spans.iter().map(|w| w.text.clone()).collect());
        said.starts = Some(spans.iter().map(|w| w.start).collect());
        said
    }

    pub(crate) fn words(&self) -> &[Word] {
        &self.words
    }

    /// The words, given back.
    pub(crate) fn into_words(self) -> Vec<Word> {
        self.words
    }

    /// How often a folded phrase (words joined by single spaces) occurs, as whole words.
    pub(crate) fn count(&self, phrase: &str) -> usize {
        match &self.at {
            Some(at) => text::phrase_count(&self.words, |w| at.of(w), phrase),
            None => {
                let mut parts = phrase.split(' ');
                let Some(first) = parts.next() else {
                    return 0;
                };
                (0..self.words.len())
                    .filter(|&start| {
                        self.words[start] == first
                            && parts
                                .clone()
                                .enumerate()
                                .all(|(k, p)| self.words.get(start + 1 + k).is_some_and(|w| w == p))
                    })
                    .count()
            }
        }
    }

    /// Whether a folded phrase occurs as whole words.
    pub(crate) fn has(&self, phrase: &str) -> bool {
        self.count(phrase) > 0
    }
}

/// Reads organs, modalities, sizes, age and cues from a finding (`text`, cut into its words
/// `said`), with the corpus's lexicon and cues.
pub(crate) fn read_said(knowledge: &Knowledge, text: &str, said: &Said) -> Finding {
    let mut finding = Finding::default();
    let lexicon = knowledge.lexicon;
    finding.organs = stated_organs(lexicon, said.words(), |p| said.count(p));
    finding.modalities = stated_modalities(lexicon, said);
    (finding.sizes, finding.age) = prefill::sizes_and_age(lexicon, said.words());
    // A cue about an organ fires where its phrase and the organ meet in one line of the text
    // (a report writes an organ per line: a kidney's "cyst" says nothing of the pancreas).
    // Each line is read once for the cues and the organs whose phrases it holds.
    let cue_index = crate::knowledge::cue_index(knowledge.cues);
    let mut lines: Option<Vec<(Vec<usize>, Vec<usize>)>> = None;
    // Most cues' phrases are nowhere in the text: only those that are look at its lines.
    let here = cue_index.items(said.words());
    for (i, cue) in knowledge.cues.iter().enumerate() {
        if !cue.fits(&finding.modalities) || !here.contains(&i) {
            continue;
        }
        let fires = match cue.organ {
            None => true,
            Some(organ) => {
                let lines = lines.get_or_insert_with(|| {
                    // A line with no cue's phrase needs no organs read.
                    organ_lines(text, said)
                        .iter()
                        .map(|words| {
                            let cues = cue_index.items(words);
                            let organs = if cues.is_empty() {
                                Vec::new()
                            } else {
                                lexicon.index().organs.items(words)
                            };
                            (cues, organs)
                        })
                        .collect()
                });
                let Some(organ) = lexicon.organs.iter().position(|o| o.name == organ) else {
                    continue;
                };
                lines
                    .iter()
                    .any(|(cues, organs)| cues.contains(&i) && organs.contains(&organ))
            }
        };
        if fires {
            finding.cues.push(cue.name);
        }
    }
    finding.named = naming::named_systems_in(text, said.words());
    finding
}

/// The organs folded `words` name (`count`: how often a phrase occurs in them), in the
/// lexicon's order. A phrase counts
/// where it is not part of a longer phrase of another organ: the "iliac" of "iliac bone" is
/// bone, not a vessel, and the "lobe" of "caudate lobe" is liver, not lung; nor a landmark
/// ([`is_landmark`]: the liver of "a node below the liver" is not the node's). Only the phrases
/// that occur are weighed: the lexicon's index finds them in one pass over the words.
fn stated_organs(
    lexicon: &'static Lexicon,
    words: &[Word],
    count: impl Fn(&str) -> usize,
) -> Vec<&'static str> {
    let index = lexicon.index();
    let mut occurrences: Vec<(usize, usize, &'static str)> = Vec::new();
    index.organs.each_at(words, |at, organ, phrase| {
        occurrences.push((at, organ, phrase))
    });
    // Each phrase that occurs, with how often it occurs as a landmark ("below the liver") or
    // as a part of another organ named near it ("gallbladder neck", "the pancreatic duct in
    // the head and neck").
    let mut present: Vec<(usize, &'static str, usize)> = Vec::new();
    for &(at, organ, phrase) in &occurrences {
        let part = index.parts.iter().any(|&(whole, parts)| {
            whole != organ
                && parts.contains(&phrase)
                && occurrences.iter().any(|&(other, o, p)| {
                    o == whole && !parts.contains(&p) && other.abs_diff(at) <= lexicon.part_reach
                })
        });
        let aside = usize::from(part || is_landmark(lexicon, words, at));
        match present
            .iter_mut()
            .find(|(o, p, _)| (*o, *p) == (organ, phrase))
        {
            Some(entry) => entry.2 += aside,
            None => present.push((organ, phrase, aside)),
        }
    }
    let stated: Vec<usize> = present
        .iter()
        .filter(|(organ, p, aside)| {
            let within: usize = index
                .organ_within
                .get(&(*organ, *p))
                .map_or(0, |longer| longer.iter().map(|q| count(q)).sum());
            count(p) > within + aside
        })
        .map(|(organ, _, _)| *organ)
        .collect();
    lexicon
        .organs
        .iter()
        .enumerate()
        .filter(|(i, _)| stated.contains(i))
        .map(|(_, o)| o.name)
        .collect()
}

/// Whether the organ phrase at `at` of `words` is a landmark: right after a reference phrase
/// of the lexicon, past up to two of its fillers ("below the liver", "uptake less than liver",
/// "at the level of the left renal vein").
fn is_landmark(lexicon: &'static Lexicon, words: &[Word], at: usize) -> bool {
    let mut end = at;
    while end > 0 && at - end < 2 && lexicon.reference_fillers.contains(&words[end - 1].as_str()) {
        end -= 1;
    }
    lexicon.index().references.iter().any(|parts| {
        end >= parts.len()
            && words[end - parts.len()..end]
                .iter()
                .zip(parts)
                .all(|(w, p)| w == p)
    })
}

/// The modalities folded words name, in the lexicon's order.
fn stated_modalities(lexicon: &'static Lexicon, said: &Said) -> Vec<&'static str> {
    // A short text (a finding, a title) is read once for every modality's phrases; a long one
    // has a table of its words, looked up phrase by phrase.
    if said.at.is_none() {
        return modalities_in(lexicon, &said.words);
    }
    lexicon
        .modalities
        .iter()
        .filter(|m| m.phrases.iter().any(|p| said.has(p)))
        .map(|m| m.name)
        .collect()
}

/// The modalities whose phrases `words` hold, in one pass over them (no table of the words).
fn modalities_in(lexicon: &'static Lexicon, words: &[Word]) -> Vec<&'static str> {
    let found = lexicon.index().modalities.items(words);
    lexicon
        .modalities
        .iter()
        .enumerate()
        .filter(|(i, _)| found.contains(i))
        .map(|(_, m)| m.name)
        .collect()
}

/// The lines of a text, folded, each with the label of the heading line above it ("KIDNEYS:"
/// alone on its line names the organ of the lines that follow, up to a blank line or the next
/// heading). A one-line finding is one line. The words are `said`'s own, so no text is cut
/// again: a text of one line (a finding) is its words, and a whole text read with its words'
/// offsets ([`Said::of_spans`]) has as each line's words the run that starts in it.
fn organ_lines(text: &str, said: &Said) -> Vec<Vec<Word>> {
    let mut out = Vec::new();
    let mut heading: Option<Vec<Word>> = None;
    let one_line = !text.contains('\n');
    // With the words' offsets, a line's words are the run that starts within it.
    let (mut at, mut next) = (0, 0);
    for line in text.split_inclusive('\n') {
        let words = match &said.starts {
            _ if one_line => said.words.clone(),
            Some(starts) => {
                at += line.chars().count();
                let first = next;
                while next < starts.len() && starts[next] < at {
                    next += 1;
                }
                said.words[first..next].to_vec()
            }
            None => text::words(line),
        };
        if words.is_empty() {
            heading = None;
            continue;
        }
        if report::bare_heading(line, &words) {
            heading = Some(words);
            continue;
        }
        out.push(match &heading {
            Some(h) => h.iter().cloned().chain(words).collect(),
            None => words,
        });
    }
    out
}

/// A system chosen for a finding, and why.
#[derive(Clone, Debug)]
pub struct Selected {
    pub system: &'static SystemEntry,
    pub index: usize,
    pub score: f64,
    pub matched_terms: Vec<String>,
    /// Outcome codes of this system the text matched (among the best 200 hits), best first.
    pub matched_codes: Vec<&'static str>,
    pub reasons: Vec<String>,
    pub forced: bool,
    /// The finding names this system explicitly: it ranks first, after forced systems.
    pub named: bool,
    /// The cues that weighed on its score, each with the effect that did.
    pub because: Vec<(&'static str, &'static crate::knowledge::Effect)>,
}

/// A system that would have been selected but is left out because `verified` asks for
/// current systems only (its status is draft or retired).
#[derive(Clone, Debug)]
pub struct Withheld {
    pub system: &'static SystemEntry,
    pub score: f64,
}

/// Ranks the systems for a query; the best first, at most `limit` plus forced systems.
pub fn rank(knowledge: &Knowledge, query: &ContextQuery) -> (Finding, Vec<Selected>) {
    let (finding, selected, _) = rank_with_withheld(knowledge, query);
    (finding, selected)
}

/// [`rank`], plus the systems `verified` kept out that would have ranked among the selected
/// (at most three), so the answer can say a matching entry exists but is not current.
pub fn rank_with_withheld(
    knowledge: &Knowledge,
    query: &ContextQuery,
) -> (Finding, Vec<Selected>, Vec<Withheld>) {
    // Only what the text asserts as present or possible is read: "no pulmonary nodules" pulls
    // in no nodule guideline.
    let reading = assertion::read(knowledge.assertions, &query.text);
    let setting = setting::read(knowledge, &query.text, &reading.spans, &reading.ruled_out);
    // The text is cut into words once (`reading.spans`); each blanked reading of it is those
    // words outside what it blanks.
    let read_words = text::spans_outside(&reading.spans, &reading.blanked());
    let (read, ruled_out) = (reading.text, reading.ruled_out);
    // The technique and comparison sections describe the examination: their modality is read,
    // not the organs they name.
    let report::Examination {
        patient,
        ranges: examination,
        unenhanced,
    } = report::examination(knowledge.lexicon, &read, &reading.spans);
    let patient_words = text::spans_outside(&read_words, &examination);
    let said = Said::of_spans(&patient_words);
    let mut finding = read_said(knowledge, &patient, &said);
    if matches!(patient, std::borrow::Cow::Owned(_)) {
        // Read once, for its modalities only: no table of its words is built.
        let read: Vec<Word> = read_words.into_iter().map(|w| w.text).collect();
        finding.modalities = modalities_in(knowledge.lexicon, &read);
    }
    finding.read = patient.into_owned();
    finding.unenhanced = unenhanced;
    finding.read_spans = patient_words;
    finding.ruled_out = ruled_out;
    setting::apply(knowledge, &setting, &mut finding);
    finding.setting = setting;
    let (groups, more, headed, history) = findings::findings(
        knowledge,
        query,
        &finding.read,
        findings::Cut {
            original: &reading.spans,
            read: &finding.read_spans,
        },
        &finding,
        &reading.hedged,
        &finding.ruled_out,
    );
    finding.hedged = reading.hedged;
    // A report of several findings offers its findings' systems, not the whole text's: after
    // the systems asked for, each finding's first system in the findings' order
    // (impression first), then each one's second, then third. A system that only a ruled-out
    // finding would pull in is not among them, whatever the whole text's words.
    // The whole text is searched and scored only when it is not a report of several findings
    // (a one-line finding, a paragraph): a report's answer is its findings', and the search of
    // 20,000 characters with its typo walks was the largest cost of reading one.
    let grounded: Vec<&findings::Group> =
        groups.iter().filter(|g| g.assertion.grounded()).collect();
    // A report with headings is answered by its findings even when it has one or none (a
    // normal study offers nothing, whatever its history says); a text without headings of a
    // single finding is ranked as a whole, as a one-line finding always was.
    let by_findings = grounded.len() >= 2 || headed;
    let (selected, withheld) = if by_findings {
        // The systems asked for, scored on what was read, without a search.
        let (asked, _) = score_hits(knowledge, query, &finding, &search::Ranking::default());
        let mut merged: Vec<Selected> = asked.into_iter().filter(|s| s.forced).collect();
        // A system the report names is first in the findings that name it, not before the
        // first finding of the report.
        for round in 0..findings::SYSTEMS_PER_FINDING {
            for system in grounded.iter().filter_map(|g| g.systems.get(round)) {
                if !merged.iter().any(|s| s.index == system.index) {
                    merged.push(system.clone());
                }
            }
        }
        // Without an asked limit, every finding's first system is offered (up to the most a
        // request may ask for): the default of four would leave out the fifth finding's.
        let firsts = grounded
            .iter()
            .filter_map(|g| g.systems.first())
            .map(|s| s.index)
            .collect::<HashSet<usize>>()
            .len();
        let limit = if query.limit_asked {
            query.limit
        } else {
            firsts.clamp(query.limit, MAX_LIMIT)
        };
        let forced = merged.iter().filter(|s| s.forced).count();
        merged.truncate(limit.max(forced));
        // The not-current entries the findings' rankings left out, best first.
        let mut withheld: Vec<Withheld> = Vec::new();
        // An entry counts where it would have led its finding.
        let leading = grounded.iter().flat_map(|g| {
            let first = g.systems.first().map_or(0.0, |s| s.score);
            g.withheld.iter().filter(move |w| w.score > first)
        });
        for w in leading {
            let listed = withheld.iter().any(|o| std::ptr::eq(o.system, w.system));
            if !listed && !merged.iter().any(|s| std::ptr::eq(s.system, w.system)) {
                withheld.push(w.clone());
            }
        }
        withheld.sort_by(|a, b| b.score.total_cmp(&a.score));
        withheld.truncate(3);
        (merged, withheld)
    } else {
        score(knowledge, query, &finding)
    };
    finding.groups = groups;
    finding.more_findings = more;
    finding.by_findings = by_findings;
    finding.history = history;
    (finding, selected, withheld)
}

/// Scores every system for what was read of a text (`finding`): the search index's relevance
/// for `finding.read`, weighed by its organs, modalities, cues and the systems it names; the
/// best first, at most `query.limit` plus the systems `query` forces, and the not-current
/// entries `verified` left out that would have made the cut.
pub(crate) fn score(
    knowledge: &Knowledge,
    query: &ContextQuery,
    finding: &Finding,
) -> (Vec<Selected>, Vec<Withheld>) {
    let ranking = knowledge.ranking;
    let hits = if finding.read.trim().is_empty() {
        search::Ranking::default()
    } else {
        search::rank(&finding.read, ranking.search_hits, true)
    };
    score_hits(knowledge, query, finding, &hits)
}

/// What explains a system's score: its reasons and the cues that weighed on it.
#[derive(Default)]
struct Explained {
    reasons: Vec<String>,
    because: Vec<(&'static str, &'static crate::knowledge::Effect)>,
}

/// A system's search relevance for what was read of a text: its best document's score and its
/// outcomes' share.
#[derive(Clone, Copy, Default)]
struct Base {
    best: f64,
    outcomes: f64,
}

/// A system's score for what was read of a text: the search relevance (`base`), weighed by
/// the organs, modalities and the cues that fired (`fired`, their effects by system, from
/// [`fired_effects`]); `explain` collects why, for the systems an answer keeps.
fn weigh(
    knowledge: &Knowledge,
    finding: &Finding,
    fired: &[Fired],
    index: usize,
    base: Base,
    mut explain: Option<&mut Explained>,
) -> f64 {
    let ranking = knowledge.ranking;
    let system = &SYSTEMS[index];
    let mut score = base.best + base.outcomes.min(base.best.max(ranking.outcome_floor));
    // What the finding states that the system is about, named in the reasons.
    let shared = |stated: &[&str], of: &[&str]| -> Vec<String> {
        stated
            .iter()
            .filter(|x| of.contains(x))
            .map(|x| x.to_string())
            .collect()
    };
    if finding.organs.iter().any(|o| system.organs.contains(o)) {
        score = (score + ranking.organ_bonus) * ranking.organ_factor;
        if let Some(why) = explain.as_deref_mut() {
            let organs = shared(&finding.organs, system.organs).join(", ");
            why.reasons.push(format!("organ: {organs}"));
        }
    } else if !finding.organs.is_empty() && !system.organs.contains(&ranking.any_organ) {
        score *= ranking.other_organ_factor;
    }
    if finding
        .modalities
        .iter()
        .any(|m| system.modalities.contains(m))
    {
        score *= ranking.modality_factor;
        if let Some(why) = explain.as_deref_mut() {
            let modalities = shared(&finding.modalities, system.modalities).join(", ");
            why.reasons.push(format!("modality: {modalities}"));
        }
    } else if !finding.modalities.is_empty() {
        score *= ranking.other_modality_factor;
    }
    if system.superseded {
        score *= ranking.superseded_factor;
        if let Some(why) = explain.as_deref_mut() {
            why.reasons
                .push("superseded: a later version is in the corpus".into());
        }
    }
    // The effects of the cues that fired on this system: one run of `fired`, in the cues' and
    // their effects' order.
    let from = fired.partition_point(|f| usize::from(f.system) < index);
    for f in fired[from..]
        .iter()
        .take_while(|f| usize::from(f.system) == index)
    {
        score *= f.effect.factor;
        if let Some(why) = explain.as_deref_mut() {
            why.because.push((f.cue.name, f.effect));
            if f.effect.factor > 1.0 {
                why.reasons.push(format!("cue: {}", f.cue.name));
            }
        }
    }
    score
}

/// An effect of a cue that fired for a finding, on one system, where the finding's settings
/// do not except it.
struct Fired {
    system: u16,
    cue: &'static crate::knowledge::Cue,
    effect: &'static crate::knowledge::Effect,
}

/// The effects of the cues that fired for `finding` ([`Fired`]), by system, each system's in
/// the cues' and their effects' order: weighing a system reads its own run, not every effect.
fn fired_effects(knowledge: &Knowledge, finding: &Finding) -> Vec<Fired> {
    let mut fired: Vec<Fired> = Vec::new();
    for cue in knowledge
        .cues
        .iter()
        .filter(|c| finding.cues.contains(&c.name))
    {
        for effect in cue.effects {
            let excepted = effect
                .unless
                .iter()
                .any(|s| finding.setting.settings.contains(s));
            if excepted {
                continue;
            }
            for (k, &system) in effect.systems.iter().enumerate() {
                // An effect applies to a system once, however often it lists it.
                if !effect.systems[..k].contains(&system) {
                    fired.push(Fired {
                        system,
                        cue,
                        effect,
                    });
                }
            }
        }
    }
    // Stable: each system's effects keep their order.
    fired.sort_by_key(|f| f.system);
    fired
}

/// The systems about an organ, by their place in the corpus (built on first use).
fn systems_of_organ(organ: &str) -> &'static [u16] {
    static BY_ORGAN: std::sync::OnceLock<HashMap<&'static str, Vec<u16>, FastHash>> =
        std::sync::OnceLock::new();
    let by_organ = BY_ORGAN.get_or_init(|| {
        let mut by_organ: HashMap<&'static str, Vec<u16>, FastHash> = HashMap::default();
        for (i, system) in SYSTEMS.iter().enumerate() {
            for &o in system.organs {
                by_organ.entry(o).or_default().push(i as u16);
            }
        }
        by_organ
    });
    by_organ.get(organ).map_or(&[], Vec::as_slice)
}

/// [`score`] for the ranking of a search already made.
pub(crate) fn score_hits(
    knowledge: &Knowledge,
    query: &ContextQuery,
    finding: &Finding,
    hits: &search::Ranking,
) -> (Vec<Selected>, Vec<Withheld>) {
    let ranking = knowledge.ranking;
    // Search relevance per system: its best document, plus a share of its matched outcomes.
    let mut base: Vec<Base> = vec![Base::default(); SYSTEMS.len()];
    for &(score, doc) in &hits.docs {
        let entry = &mut base[usize::from(DOCS[doc].system)];
        if DOCS[doc].kind == DocKind::System {
            entry.best = entry.best.max(score);
        } else {
            entry.outcomes += score * ranking.outcome_share;
        }
    }
    // The effects of the cues that fired, by system, found once for every system.
    let fired = fired_effects(knowledge, finding);
    // Every system is scored; only the ones kept are explained (their reasons are strings,
    // and a report scores every system once per finding).
    struct Scored {
        index: usize,
        score: f64,
        forced: bool,
        named: Option<&'static str>,
    }
    let mut ranked: Vec<Scored> = Vec::with_capacity(hits.docs.len());
    let mut withheld: Vec<Withheld> = Vec::new();
    // A system the search did not reach that concerns none of the finding's organs scores
    // nothing (its relevance is zero and every weight multiplies it), so only the others are
    // weighed, in the corpus's order: a finding costs what it reaches, not the corpus's size.
    let mut weighed: Vec<usize> = Vec::with_capacity(SYSTEMS.len());
    weighed.extend((0..SYSTEMS.len()).filter(|&i| base[i].best > 0.0 || base[i].outcomes > 0.0));
    weighed.extend(
        finding
            .organs
            .iter()
            .flat_map(|o| systems_of_organ(o).iter().map(|&i| usize::from(i))),
    );
    weighed.extend(finding.named.iter().map(|n| n.index));
    weighed.extend(
        query
            .systems
            .iter()
            .filter_map(|slug| SYSTEMS.iter().position(|s| s.slug == slug)),
    );
    weighed.sort_unstable();
    weighed.dedup();
    for index in weighed {
        let system = &SYSTEMS[index];
        let forced = query.systems.iter().any(|s| s == system.slug);
        let not_current = !forced && query.verified && system.status != Status::Current;
        if !forced {
            if let Some(organ) = &query.organ {
                if !system.organs.contains(&organ.as_str()) {
                    continue;
                }
            }
        }
        let score = weigh(knowledge, finding, &fired, index, base[index], None);
        let named = finding
            .named
            .iter()
            .find(|n| n.index == index)
            .map(|n| n.name);
        if not_current {
            if score > 0.0 {
                withheld.push(Withheld { system, score });
            }
            continue;
        }
        if score > 0.0 || forced || named.is_some() {
            ranked.push(Scored {
                index,
                score: (score * 100.0).round() / 100.0,
                forced,
                named,
            });
        }
    }
    ranked.sort_by(|a, b| {
        b.forced
            .cmp(&a.forced)
            .then(b.named.is_some().cmp(&a.named.is_some()))
            .then(
                b.score
                    .partial_cmp(&a.score)
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
            .then(a.index.cmp(&b.index))
    });
    let forced = ranked.iter().filter(|s| s.forced).count();
    ranked.truncate(query.limit.max(forced));
    let ranked: Vec<Selected> = ranked
        .into_iter()
        .map(|s| {
            let system = &SYSTEMS[s.index];
            let mut why = Explained::default();
            weigh(
                knowledge,
                finding,
                &fired,
                s.index,
                base[s.index],
                Some(&mut why),
            );
            if let Some(name) = s.named {
                why.reasons
                    .insert(0, format!("named in the finding: {name}"));
            }
            if s.forced {
                why.reasons.insert(0, "requested in systems".to_string());
            }
            // The terms its documents matched, in the hits' order, and the outcome codes among
            // the best hits.
            let mine = hits
                .docs
                .iter()
                .enumerate()
                .filter(|(_, (_, doc))| usize::from(DOCS[*doc].system) == s.index);
            let mut matched_terms: Vec<String> = Vec::new();
            let mut matched_codes: Vec<&'static str> = Vec::new();
            let mut listed: HashSet<&str, FastHash> = HashSet::default();
            for (rank, &(_, doc)) in mine {
                if rank < ranking.code_hits && DOCS[doc].kind == DocKind::Outcome {
                    matched_codes.push(DOCS[doc].code);
                }
                for term in hits.matched(rank) {
                    if listed.insert(term) {
                        matched_terms.push(term.to_string());
                    }
                }
            }
            Selected {
                system,
                index: s.index,
                score: s.score,
                matched_terms,
                matched_codes,
                reasons: why.reasons,
                forced: s.forced,
                named: s.named.is_some(),
                because: why.because,
            }
        })
        .collect();
    // A withheld system counts when it would have made the cut.
    let bar = if ranked.len() < query.limit {
        0.0
    } else {
        ranked.last().map_or(0.0, |s| s.score)
    };
    withheld.retain(|w| w.score > bar);
    withheld.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    withheld.truncate(3);
    (ranked, withheld)
}

/// What is derived from static items of the corpus (an input, a value, a reference), by
/// their addresses and those of what they are derived with (the lexicon): made once per
/// isolate and kept, as the items live as long, instead of once per finding or evaluation.
pub(crate) type Derived<T> = std::cell::RefCell<HashMap<(usize, usize), &'static T, FastHash>>;

/// What `derive` makes for `key` ([`at`] of the item and of what it is derived with), from
/// `cache` once it was made.
pub(crate) fn derived<T>(
    cache: &'static std::thread::LocalKey<Derived<T>>,
    key: (usize, usize),
    derive: impl FnOnce() -> T,
) -> &'static T {
    if let Some(found) = cache.with(|c| c.borrow().get(&key).copied()) {
        return found;
    }
    // Leaked once per item of a static table: the table lives as long.
    let made: &'static T = Box::leak(Box::new(derive()));
    cache.with(|c| c.borrow_mut().insert(key, made));
    made
}

/// The address of a static item, as [`derived`] keys it.
pub(crate) fn at<T>(item: &'static T) -> usize {
    std::ptr::from_ref(item) as usize
}

/// Grounds a finding: the typed answer (see [`answer`]).
pub fn ground(knowledge: &Knowledge, query: &ContextQuery) -> Grounding {
    answer::ground(knowledge, query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::KNOWLEDGE;
    use serde_json::{json, Value};

    fn to_json(query: &ContextQuery) -> Value {
        serde_json::to_value(ground(&KNOWLEDGE, query)).unwrap()
    }

    fn to_markdown(query: &ContextQuery) -> String {
        markdown(&ground(&KNOWLEDGE, query))
    }

    fn rank(query: &ContextQuery) -> (Finding, Vec<Selected>) {
        super::rank(&KNOWLEDGE, query)
    }

    /// A text cut once and filtered by what a reading blanks has the words of the blanked text
    /// cut again, for every report of the fixtures and benches and for texts whose blanks sit
    /// next to decimals, punctuation, line breaks and letters outside ASCII.
    #[test]
    fn a_reading_filters_the_words_of_the_text_as_cutting_the_blanked_text_would() {
        let blank = |text: &str, ranges: &[[usize; 2]]| -> String {
            let mut chars: Vec<char> = text.chars().collect();
            text::blank(&mut chars, ranges);
            chars.into_iter().collect()
        };
        let folded =
            |spans: Vec<text::Span>| -> Vec<Word> { spans.into_iter().map(|s| s.text).collect() };
        let mut texts: Vec<String> = [
            "No 3.5 cm mass. 2.1 cm cyst; no nodule.\nNo change in the probable 6 mm nodule.",
            "Leber: keine Läsion. Rénal: kyste simple 1,2 cm, no hydronephrosis.9 mm nodule.",
            "TECHNIQUE: CT of the chest.\nFINDINGS:\nLungs: no nodules.\nIMPRESSION: Normal.",
            "no",
            "",
            "No.5 mm",
            "x-ray: no fracture-dislocation",
        ]
        .map(String::from)
        .to_vec();
        let root = env!("CARGO_MANIFEST_DIR");
        for dir in ["tests/fixtures/reports", "benches/reports"] {
            for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
                texts.push(std::fs::read_to_string(entry.unwrap().path()).unwrap());
            }
        }
        assert!(texts.len() > 30, "the reports were read");
        for text in &texts {
            let reading = assertion::read(KNOWLEDGE.assertions, text);
            let read_words = text::spans_outside(&reading.spans, &reading.blanked());
            assert_eq!(
                text::words(&blank(text, &reading.blanked())),
                folded(read_words.clone()),
                "{text}"
            );
            assert_eq!(
                text::words(&reading.text),
                folded(read_words.clone()),
                "{text}"
            );
            let report::Examination {
                patient,
                ranges: examination,
                ..
            } = report::examination(KNOWLEDGE.lexicon, &reading.text, &reading.spans);
            assert_eq!(
                text::words(&patient),
                folded(text::spans_outside(&read_words, &examination)),
                "{text}"
            );
            let not_historical: Vec<[usize; 2]> = reading
                .ruled_out
                .iter()
                .filter(|r| r.assertion != crate::knowledge::Category::Historical)
                .flat_map(|r| [r.span, r.trigger_span])
                .collect();
            assert_eq!(
                text::spans(&blank(text, &not_historical)),
                text::spans_outside(&reading.spans, &not_historical),
                "{text}"
            );
        }
    }

    fn read_finding(text: &str) -> Finding {
        super::read_said(&KNOWLEDGE, text, &super::Said::new(text::words(text)))
    }

    fn q(text: &str) -> ContextQuery {
        ContextQuery::new(Some(text.into()), None, None, None, None, None).unwrap()
    }

    fn top(text: &str) -> Vec<&'static str> {
        rank(&q(text)).1.iter().map(|s| s.system.slug).collect()
    }

    #[test]
    fn reads_sizes_organs_modalities_and_cues() {
        let f = read_finding("Incidental 8 mm solid nodule in the right upper lobe on chest CT, 1.2cm node, 67-year-old");
        assert!(f.organs.contains(&"lung"));
        assert!(f.modalities.contains(&"CT"));
        assert_eq!(f.sizes_mm(), vec![8.0, 12.0]);
        assert_eq!(f.age_years(), Some(67.0));
        assert!(f.cues.contains(&"incidental"));
    }

    #[test]
    fn overlapping_systems_are_chosen_as_radiologists_do() {
        assert_eq!(
            top("incidental 12 mm thyroid nodule on chest CT")[0],
            "acr-if-thyroid-2015"
        );
        assert_eq!(
            top("thyroid nodule on ultrasound, solid hypoechoic, 14 mm")[0],
            "acr-ti-rads-2017"
        );
        assert_eq!(
            top("6 mm solid nodule on screening low-dose CT")[0],
            "acr-lung-rads-v2022"
        );
        assert_eq!(
            top("incidental 6 mm solid pulmonary nodule on CT abdomen")[0],
            "fleischner-2017"
        );
    }

    #[test]
    fn parameters_are_checked() {
        let bad = |r: Result<ContextQuery, FeatureError>, field: &str| {
            let e = r.unwrap_err();
            assert_eq!(e.field(), field);
            // Through the one door that turns it into HTTP: a 400 naming the parameter.
            let api = crate::error::ApiError::from(e);
            assert_eq!(api.status(), 400);
        };
        bad(
            ContextQuery::new(Some("x".into()), None, None, Some(9), None, None),
            "limit",
        );
        bad(
            ContextQuery::new(Some("x".into()), None, None, Some(0), None, None),
            "limit",
        );
        bad(
            ContextQuery::new(
                Some("x".into()),
                None,
                None,
                None,
                Some("html".into()),
                None,
            ),
            "format",
        );
        bad(
            ContextQuery::new(
                Some("x".into()),
                Some(vec!["nope-1".into()]),
                None,
                None,
                None,
                None,
            ),
            "systems",
        );
        bad(
            ContextQuery::new(
                Some("x".into()),
                None,
                Some("elbow".into()),
                None,
                None,
                None,
            ),
            "organ",
        );
        let ok = ContextQuery::new(
            None,
            Some(vec!["fleischner-2017".into()]),
            Some("Lung".into()),
            Some(8),
            Some("markdown".into()),
            Some(false),
        )
        .unwrap();
        assert_eq!(ok.organ.as_deref(), Some("lung"));
        assert_eq!(ok.format, Format::Markdown);
    }

    #[test]
    fn verified_names_the_draft_entries_it_leaves_out() {
        let text = "Incidental pituitary lesion, 6 mm, on brain MRI";
        let json = to_json(&q(text));
        let slugs: Vec<&str> = json["systems"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["slug"].as_str())
            .collect();
        assert!(
            !slugs.contains(&"acr-if-pituitary-2018"),
            "a draft entry is not selected"
        );
        let withheld = json["withheld_systems"].as_array().unwrap();
        assert_eq!(withheld[0]["slug"], "acr-if-pituitary-2018");
        assert_eq!(withheld[0]["status"], "draft");
        assert!(to_markdown(&q(text)).contains("`acr-if-pituitary-2018`, draft"));
        // Asked for everything, it is the first system; nothing is withheld then.
        let all =
            ContextQuery::new(Some(text.into()), None, None, None, None, Some(false)).unwrap();
        let json = to_json(&all);
        assert_eq!(json["systems"][0]["slug"], "acr-if-pituitary-2018");
        assert_eq!(json["withheld_systems"], json!([]));
        // A finding no draft entry matches withholds nothing.
        let json = to_json(&q(
            "6 mm solid pulmonary nodule on CT in a 60-year-old smoker",
        ));
        assert_eq!(json["withheld_systems"], json!([]));
    }

    #[test]
    fn verified_withholds_draft_lines_and_says_so() {
        let json = to_json(&q("bosniak IIF renal cyst"));
        let first = &json["systems"][0];
        assert!(first["withheld_draft_lines"].as_u64().unwrap() > 0);
        assert!(first["outcomes"][0]["definition"].is_null());
        assert!(first["withheld_note"]
            .as_str()
            .unwrap()
            .contains("verified=false"));
        let mut all = q("bosniak IIF renal cyst");
        all.verified = false;
        let json = to_json(&all);
        let first = &json["systems"][0];
        assert_eq!(first["withheld_draft_lines"], 0);
        let def = &first["outcomes"][0]["definition"];
        for key in ["text", "citation", "locator", "consensus", "verification"] {
            assert!(def[key].is_string(), "{key}");
        }
        assert!(!first["references"].as_object().unwrap().is_empty());
        // One citation style for grounding and evaluation: a cut author list ends "et al.".
        for cited in first["references"].as_object().unwrap().values() {
            assert!(!cited.as_str().unwrap().contains(".."), "{cited}");
        }
    }

    #[test]
    fn an_empty_request_grounds_nothing_and_says_why() {
        let empty = ContextQuery::new(None, None, None, None, None, None).unwrap();
        let json = to_json(&empty);
        assert_eq!(json["systems"], json!([]));
        assert!(json["note"].as_str().unwrap().contains("nothing to ground"));
        assert!(to_markdown(&empty).contains("No system in the corpus matched"));
    }

    #[test]
    fn forced_systems_come_first_and_organ_restricts() {
        let mut query = q("incidental 5 mm pulmonary nodule");
        query.systems = vec!["bosniak-v2019".into()];
        let (_, sel) = rank(&query);
        assert_eq!(sel[0].system.slug, "bosniak-v2019");
        let mut query = q("nodule");
        query.organ = Some("thyroid".into());
        let (_, sel) = rank(&query);
        assert!(sel.iter().all(|s| s.system.organs.contains(&"thyroid")));
    }

    #[test]
    fn markdown_is_one_cited_block() {
        let mut query = q("incidental 8 mm solid lung nodule, low risk patient");
        query.verified = false;
        query.limit = 2;
        let md = to_markdown(&query);
        assert!(md.starts_with("## radref grounded context"));
        assert!(md.contains("not a medical device"));
        assert!(md.contains("(draft)"));
        assert!(md.contains("References:\n[1] "));
        assert!(md.contains("about "));
        assert!(md.contains("`fleischner-2017`"));
    }

    #[test]
    fn a_system_the_finding_names_ranks_first() {
        for (text, slug) in [
            ("Bosniak IIF cyst follow-up", "bosniak-v2019"),
            ("bosniak 2F lesion, what next?", "bosniak-v2019"),
            // Named, a system wins over the cues that would favour another.
            (
                "Per Fleischner: 7 mm solid nodule on screening CT",
                "fleischner-2017",
            ),
            ("TI-RADS TR4 thyroid nodule seen on CT", "acr-ti-rads-2017"),
            ("TR4 nodule, 1.6 cm", "acr-ti-rads-2017"),
            (
                "LI-RADS category for an incidental 15 mm liver lesion on CT",
                "acr-li-rads-ct-mri-v2018",
            ),
            ("LIRADS LR-4 observation", "acr-li-rads-ct-mri-v2018"),
            ("LI-RADS TRA after TACE", "acr-li-rads-ct-mri-tra-v2024"),
            ("K-TIRADS 4 nodule", "k-tirads-2021"),
            ("EU-TIRADS 3", "eu-tirads-2017"),
            ("lung-rads 4A, incidental", "acr-lung-rads-v2022"),
            (
                "BTS guidelines for a 5 mm solid nodule, incidental",
                "bts-pulmonary-nodules-2015",
            ),
            ("Deauville 4 at interim PET", "lugano-2014"),
            ("O-RADS MRI 4 adnexal mass", "acr-o-rads-mri-2022"),
        ] {
            let ranked = top(text);
            assert_eq!(ranked[0], slug, "{text}: {ranked:?}");
            let (finding, selected) = rank(&q(text));
            assert!(finding.named.iter().any(|n| SYSTEMS[n.index].slug == slug));
            assert!(
                selected[0].reasons[0].starts_with("named in the finding: "),
                "{:?}",
                selected[0].reasons
            );
        }
        // Naming does not override systems asked for by slug, nor the organ restriction.
        let mut query = q("Fleischner 6 mm nodule");
        query.systems = vec!["bosniak-v2019".into()];
        assert_eq!(rank(&query).1[0].system.slug, "bosniak-v2019");
        assert_eq!(rank(&query).1[1].system.slug, "fleischner-2017");
    }

    fn system<'v>(json: &'v Value, slug: &str) -> &'v Value {
        json["systems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["slug"] == slug)
            .unwrap_or_else(|| panic!("{slug} not in {json}"))
    }

    #[test]
    fn the_evaluate_link_carries_what_the_finding_states_in_the_inputs_unit() {
        let json = to_json(&q(
            "Incidental 1.2 cm part-solid pulmonary nodule with a 5 mm solid component in a 64-year-old",
        ));
        let fleischner = system(&json, "fleischner-2017");
        assert_eq!(
            fleischner["links"]["evaluate"],
            "/api/v1/systems/fleischner-2017/evaluate?age_years=64&nodule_type=part_solid&size_mm=12&solid_component_mm=5"
        );
        assert_eq!(fleischner["prefilled"]["size_mm"], 12.0);
        // An input in centimetres gets centimetres.
        let json = to_json(&q("Incidental 25 mm solid enhancing renal mass on CT"));
        let renal = system(&json, "acr-if-renal-2018");
        assert!(
            renal["links"]["evaluate"]
                .as_str()
                .unwrap()
                .contains("size_cm=2.5"),
            "{}",
            renal["links"]["evaluate"]
        );
        // A system whose inputs the finding does not touch still links its evaluator.
        let json = to_json(&q("Bosniak classification"));
        assert_eq!(
            system(&json, "bosniak-v2019")["links"]["evaluate"],
            "/api/v1/systems/bosniak-v2019/evaluate"
        );
        // Values are percent-encoded: a derived category's hyphen stays, anything else is
        // escaped.
        let json = to_json(&q("LR-5 observation, 25 mm"));
        let li = system(&json, "acr-li-rads-ct-mri-v2018");
        let link = li["links"]["evaluate"].as_str().unwrap();
        assert!(
            link.contains("table_category=LR-5") && link.contains("size_mm=25"),
            "{link}"
        );
        assert!(link.bytes().all(|b| b.is_ascii_graphic()), "{link}");
    }

    /// The inputs a link's query string gives, read as the evaluate route reads them, and
    /// the evaluation they produce.
    fn follow(link: &str) -> (Vec<String>, Vec<String>) {
        let (path, query) = link.split_once('?').unwrap_or((link, ""));
        let slug = path
            .strip_prefix("/api/v1/systems/")
            .and_then(|p| p.strip_suffix("/evaluate"))
            .unwrap();
        let index = SYSTEMS.iter().position(|s| s.slug == slug).unwrap();
        let logic = compiled::logic(index).unwrap();
        let pairs = crate::http::parse_query(query);
        let ask = crate::evaluation::from_query(logic, &pairs).unwrap();
        let eval = crate::evaluation::run(logic, &ask).unwrap();
        let decided = eval
            .units
            .iter()
            .filter(|u| u.decides())
            .map(|u| u.id.to_string())
            .collect();
        (
            eval.missing.iter().map(|m| m.to_string()).collect(),
            decided,
        )
    }

    #[test]
    fn missing_inputs_are_what_the_evaluator_needs() {
        for text in [
            "Incidental 8 mm solid nodule in the right upper lobe on chest CT in a 67-year-old",
            "Thyroid nodule on ultrasound: solid, hypoechoic, taller-than-wide, 11 mm",
            "TI-RADS TR4 nodule measuring 1.6 cm, is FNA indicated?",
            "Cirrhotic liver, 15 mm observation with nonrim arterial phase hyperenhancement and nonperipheral washout on MRI",
            "Cystic renal mass with a 3 mm smooth enhancing septum on CT",
            "Screening CT shows a 16 mm part solid nodule with 9 mm solid component",
            "Gallbladder polyp 7 mm, sessile",
            "Which imaging is appropriate for low back pain?",
        ] {
            let mut query = q(text);
            query.verified = false;
            query.limit = MAX_LIMIT;
            let json = to_json(&query);
            for system in json["systems"].as_array().unwrap() {
                let link = system["links"]["evaluate"].as_str().unwrap();
                let (missing, decided) = follow(link);
                let listed: Vec<&str> = system["missing_inputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i["id"].as_str().unwrap())
                    .collect();
                assert_eq!(listed, missing, "{text}: {}", system["slug"]);
                let units: Vec<&str> = system["decided"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d["unit"].as_str().unwrap())
                    .collect();
                assert_eq!(units, decided, "{text}: {}", system["slug"]);
                for i in system["missing_inputs"].as_array().unwrap() {
                    assert!(i["label"].is_string() && i["type"].is_string(), "{i}");
                }
            }
        }
        // What the finding alone decides is said, in JSON and in the markdown block.
        let mut query = q("TI-RADS TR4 nodule measuring 1.6 cm, is FNA indicated?");
        query.verified = false;
        let json = to_json(&query);
        let tirads = system(&json, "acr-ti-rads-2017");
        assert_eq!(tirads["decided"][0]["unit"], "fna_followup");
        assert!(tirads["decided"][0]["answer"]
            .as_str()
            .unwrap()
            .contains("FNA"));
        let md = to_markdown(&query);
        assert!(md.contains("- Decided from the text, "), "{md}");
        assert!(
            md.contains("- The evaluator still needs: `composition` ("),
            "{md}"
        );
        assert!(md.contains(
            "- Evaluate (what the text states is filled in): /api/v1/systems/acr-ti-rads-2017/evaluate?max_diameter_mm=16&tr_level=TR4"
        ), "{md}");
    }

    /// A trauma CT report that negates most organs: only what it asserts is grounded. The
    /// splenic laceration goes to AAST; the lungs, gallbladder, pancreas and adrenals it rules
    /// out pull in no nodule, polyp, cyst or adrenal guideline, and each ruled-out phrase is named
    /// with its trigger and the span it came from.
    #[test]
    fn a_report_grounds_what_it_asserts_and_names_what_it_rules_out() {
        let report = include_str!("../tests/fixtures/trauma_report.txt");
        let mut query = q(report);
        query.verified = false;
        let json = to_json(&query);
        let slugs: Vec<&str> = json["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["slug"].as_str().unwrap())
            .collect();
        assert_eq!(slugs[0], "aast-ois-2018", "{slugs:?}");
        for ruled_out in [
            "fleischner-2017",
            "bts-pulmonary-nodules-2015",
            "acr-lung-rads-v2022",
            "sru-gallbladder-polyps-2022",
            "acr-if-gallbladder-biliary-2013",
            "kyoto-ipmn-2024",
            "acr-if-pancreatic-cyst-2017",
            "acr-if-adrenal-2017",
            "ese-adrenal-incidentaloma-2023",
        ] {
            assert!(!slugs.contains(&ruled_out), "{ruled_out} in {slugs:?}");
        }
        let chars: Vec<char> = report.chars().collect();
        let ruled = json["finding"]["ruled_out"].as_array().unwrap();
        for r in ruled {
            let span = r["span"].as_array().unwrap();
            let (from, to) = (
                span[0].as_u64().unwrap() as usize,
                span[1].as_u64().unwrap() as usize,
            );
            let at: String = chars[from..to].iter().collect();
            assert_eq!(at, r["text"].as_str().unwrap());
        }
        let nodules = ruled
            .iter()
            .find(|r| r["text"] == "pulmonary nodules, consolidation or pleural effusion")
            .expect("the lung line is ruled out");
        assert_eq!(nodules["assertion"], "negated");
        assert_eq!(nodules["trigger"], "No");
        assert!(ruled
            .iter()
            .any(|r| r["text"] == "Gallbladder" && r["trigger"] == "Without"));
        // The markdown block says what the report ruled out.
        let md = to_markdown(&query);
        assert!(md.contains("Ruled out by the text"), "{md}");
        // Its findings: the impression's laceration first, then the spleen line; each with
        // AAST first, and each span the words it claims.
        let all = json["findings"].as_array().unwrap();
        // The lines the report rules out are findings too, absent, with their trigger, and
        // with no system.
        let absent: Vec<&Value> = all.iter().filter(|f| f["assertion"] == "absent").collect();
        assert!(absent.len() >= 8, "{absent:?}");
        let lungs = absent
            .iter()
            .find(|f| {
                f["text"] == "Lung bases: No pulmonary nodules, consolidation or pleural effusion"
            })
            .expect("the lung line is an absent finding");
        assert_eq!(lungs["trigger"]["text"], "No");
        assert_eq!(lungs["trigger"]["category"], "negated");
        for f in &absent {
            assert!(f["systems"].as_array().unwrap().is_empty(), "{f}");
            let [a, b] = [
                f["span"][0].as_u64().unwrap() as usize,
                f["span"][1].as_u64().unwrap() as usize,
            ];
            let at: String = report.chars().skip(a).take(b - a).collect();
            assert_eq!(at, f["text"].as_str().unwrap());
        }
        let findings: Vec<&Value> = all.iter().filter(|f| f["assertion"] == "present").collect();
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!(findings[0]["section"], "impression");
        assert!(findings[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Splenic laceration of the inferior pole"));
        assert_eq!(findings[1]["section"], "findings");
        for f in findings {
            assert_eq!(f["assertion"], "present");
            assert_eq!(f["systems"][0]["slug"], "aast-ois-2018", "{f}");
            let span = f["span"].as_array().unwrap();
            let (from, to) = (
                span[0].as_u64().unwrap() as usize,
                span[1].as_u64().unwrap() as usize,
            );
            assert_eq!(
                chars[from..to].iter().collect::<String>(),
                f["text"].as_str().unwrap()
            );
        }
    }

    /// How a report's sentences become findings: two measured findings joined by "and" are
    /// two; a prose line's later sentence stays about the organ it named; a line labelled with
    /// an organ of its own ends the block of a bare heading above it.
    #[test]
    fn sentences_become_findings_as_a_reader_would_split_them() {
        let report = "CT CHEST ABDOMEN\n\nFINDINGS:\nUpper abdomen: Stable 3 cm adrenal lesion and 2 cm renal angiomyolipoma.\nThe pancreas shows several small cysts. The dominant cyst measures 2.9 cm in the uncinate process.\nLUNGS:\n6 mm solid nodule in the right upper lobe.\nMEDIASTINUM: Ascending aorta 4.3 cm, mildly dilated.\n";
        let mut query = q(report);
        query.verified = false;
        let json = to_json(&query);
        let findings = json["findings"].as_array().unwrap();
        let first_of = |needle: &str| -> Option<String> {
            let f = findings
                .iter()
                .find(|f| f["text"].as_str().unwrap().starts_with(needle))
                .unwrap_or_else(|| panic!("no finding starting {needle}: {findings:?}"));
            f["systems"][0]["slug"].as_str().map(String::from)
        };
        assert_eq!(
            first_of("Stable 3 cm adrenal lesion").as_deref(),
            Some("acr-if-adrenal-2017")
        );
        assert_eq!(
            first_of("2 cm renal angiomyolipoma").as_deref(),
            Some("acr-if-renal-2018")
        );
        let pancreas = first_of("The dominant cyst measures 2.9 cm").unwrap();
        assert!(
            ["kyoto-ipmn-2024", "acr-if-pancreatic-cyst-2017"].contains(&pancreas.as_str()),
            "{pancreas}"
        );
        let nodule = first_of("6 mm solid nodule").unwrap();
        assert!(["fleischner-2017", "bts-pulmonary-nodules-2015"].contains(&nodule.as_str()));
        // The aorta line is not read under LUNGS: no lung nodule guideline for it.
        let aorta = findings
            .iter()
            .find(|f| f["text"].as_str().unwrap().contains("aorta"))
            .map(|f| f["systems"].to_string())
            .expect("the aorta line is a finding");
        assert!(
            !aorta.contains("fleischner") && !aorta.contains("lung-rads"),
            "{aorta}"
        );
        // A size that measures a part of the lesion before it (`part_words`: "mural",
        // "component", ...) does not start a finding of its own after "and".
        let report = "FINDINGS:\nKidneys: 3.1 cm cystic mass in the left kidney with thin septa \
                      and a 5 mm enhancing mural nodule.\nOvaries: 4 cm cyst and a 12 mm solid \
                      component.\n";
        let json = to_json(&q(report));
        let texts: Vec<&str> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["text"].as_str().unwrap())
            .collect();
        assert!(
            texts.contains(&"3.1 cm cystic mass in the left kidney with thin septa and a 5 mm enhancing mural nodule"),
            "{texts:?}"
        );
        assert!(
            texts.contains(&"4 cm cyst and a 12 mm solid component"),
            "{texts:?}"
        );
    }

    /// A clause that only names a system and its category reports the finding that system
    /// graded; a system the text says does not apply is ruled out, not offered.
    #[test]
    fn a_clause_naming_only_a_system_is_a_finding() {
        let report = "IMPRESSION:\n1. Acute interstitial edematous pancreatitis without necrosis; MCTSI 4.\n2. LR-5.\n3. Screening examination; Fleischner guidelines not applicable.\n";
        let mut query = q(report);
        query.verified = false;
        let json = to_json(&query);
        let findings = json["findings"].as_array().unwrap();
        let first_of = |text: &str| -> Option<String> {
            findings
                .iter()
                .find(|f| f["text"] == text)
                .unwrap_or_else(|| panic!("no finding {text}: {findings:?}"))["systems"][0]["slug"]
                .as_str()
                .map(String::from)
        };
        assert_eq!(first_of("MCTSI 4").as_deref(), Some("modified-ctsi-2004"));
        assert_eq!(
            first_of("LR-5").as_deref(),
            Some("acr-li-rads-ct-mri-v2018")
        );
        assert!(
            !findings
                .iter()
                .any(|f| f["systems"].to_string().contains("fleischner")),
            "{findings:?}"
        );
        assert!(!json["systems"].to_string().contains("fleischner"));
    }

    /// A long report's findings are grounded one by one, impression first: the incidental
    /// adrenal nodule has the adrenal papers, the lung nodule Fleischner, a hedged finding is
    /// possible; and each finding's first system is offered at the top level.
    #[test]
    fn each_finding_of_a_report_has_its_own_systems() {
        let report = include_str!("../tests/fixtures/long_finding.txt");
        let mut query = q(report);
        query.verified = false;
        query.limit = MAX_LIMIT;
        let json = to_json(&query);
        let findings = json["findings"].as_array().unwrap();
        assert!(findings.len() >= 10, "{}", findings.len());
        assert_eq!(findings[0]["section"], "impression");
        let first_of = |needle: &str| -> Vec<String> {
            let f = findings
                .iter()
                .find(|f| f["text"].as_str().unwrap().contains(needle))
                .unwrap_or_else(|| panic!("no finding with {needle}"));
            f["systems"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["slug"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(
            first_of("14 mm left adrenal nodule")[0],
            "acr-if-adrenal-2017"
        );
        // Each finding's first system evaluates the finding's own words.
        let evaluation = |needle: &str| -> Value {
            findings
                .iter()
                .find(|f| f["text"].as_str().unwrap().contains(needle))
                .unwrap()["evaluation"]
                .clone()
        };
        let of = |needle: &str| -> Value {
            findings
                .iter()
                .find(|f| f["text"].as_str().unwrap().contains(needle))
                .unwrap()
                .clone()
        };
        // An input read from the text points at the words it was read from.
        let input = |f: &Value, id: &str| -> Value {
            let i = f["inputs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["id"] == id)
                .unwrap_or_else(|| panic!("no input {id} in {f}"))
                .clone();
            let [a, b] = [
                i["span"][0].as_u64().unwrap() as usize,
                i["span"][1].as_u64().unwrap() as usize,
            ];
            let at: String = report.chars().skip(a).take(b - a).collect();
            assert_eq!(at, i["text"].as_str().unwrap());
            i
        };
        let adrenal = evaluation("14 mm left adrenal nodule");
        assert_eq!(adrenal["slug"], "acr-if-adrenal-2017");
        let adrenal_finding = of("14 mm left adrenal nodule");
        let size = input(&adrenal_finding, "size_cm");
        assert_eq!(size["value"], 1.4);
        assert_eq!(size["text"], "14 mm");
        let missing = adrenal_finding["missing"].as_array().unwrap();
        let hu = missing
            .iter()
            .find(|m| m["id"] == "unenhanced_hu")
            .expect("the unenhanced attenuation is asked for");
        assert!(hu["label"].is_string() && hu["type"] == "number", "{hu}");
        let lung_finding = of("8 mm solid pulmonary nodule");
        assert_eq!(input(&lung_finding, "size_mm")["value"], 8.0);
        assert_eq!(input(&lung_finding, "nodule_type")["value"], "solid");
        let lung = evaluation("8 mm solid pulmonary nodule");
        assert!(lung["link"]
            .as_str()
            .unwrap()
            .starts_with("/api/v1/systems/fleischner-2017/evaluate?"));
        assert_eq!(
            first_of("8 mm solid pulmonary nodule")[0],
            "fleischner-2017"
        );
        assert_eq!(
            first_of("Mild coronary artery calcification")[0],
            "cad-rads-2-0-2022"
        );
        let hedged = findings
            .iter()
            .find(|f| {
                f["text"]
                    .as_str()
                    .unwrap()
                    .contains("6 mm hepatic hypodensity")
            })
            .unwrap();
        assert_eq!(hedged["assertion"], "possible");
        assert_eq!(hedged["trigger"]["category"], "possible");
        assert!(hedged["trigger"]["text"].is_string());
        let top: Vec<&str> = json["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["slug"].as_str().unwrap())
            .collect();
        assert!(top.contains(&"acr-if-adrenal-2017"), "{top:?}");
        // A one-line finding is one finding, and its top-level ranking is its own.
        let json = to_json(&q("Incidental 8 mm solid pulmonary nodule on chest CT"));
        assert_eq!(json["findings"].as_array().unwrap().len(), 1);
        assert_eq!(
            json["findings"][0]["systems"][0]["slug"],
            json["systems"][0]["slug"]
        );
    }

    /// A whole CT report near the longest text accepted: what it says is read, and the systems
    /// chosen are those of the organs it reports on, the incidental adrenal nodule and the renal
    /// findings of its impression among them. What it rules out pulls in nothing: "not in a lung
    /// cancer screening programme" fires no screening cue, and the normal thyroid and breasts
    /// name no organ. (The whole report is still ranked as one text, so the exact order is not
    /// what a radiologist would give and is not asserted.)
    #[test]
    fn a_long_report_is_read_and_ranked_sensibly() {
        let report = include_str!("../tests/fixtures/long_finding.txt");
        let chars = report.chars().count();
        assert!((7_500..=MAX_TEXT_CHARS).contains(&chars), "{chars}");
        let mut query = q(report);
        query.limit = MAX_LIMIT;
        query.verified = false;
        let (finding, selected) = rank(&query);
        for organ in ["lung", "adrenal", "kidney", "liver", "gallbladder"] {
            assert!(finding.organs.contains(&organ), "{organ}");
        }
        assert!(finding.modalities.contains(&"CT"));
        assert!(finding.sizes_mm().contains(&8.0) && finding.sizes_mm().contains(&14.0));
        assert_eq!(finding.age_years(), Some(64.0));
        assert!(finding.cues.contains(&"incidental"));
        assert!(!finding.cues.contains(&"screening"), "{:?}", finding.cues);
        for organ in ["thyroid", "breast", "spleen"] {
            assert!(
                !finding.organs.contains(&organ),
                "{organ} is normal in the report"
            );
        }
        let ruled: Vec<&str> = finding.ruled_out.iter().map(|r| r.text.as_str()).collect();
        assert!(
            ruled.iter().any(|r| r.contains("lung cancer screening")),
            "{ruled:?}"
        );
        let slugs: Vec<&str> = selected.iter().map(|s| s.system.slug).collect();
        assert_eq!(slugs.len(), MAX_LIMIT, "{slugs:?}");
        for slug in [
            "acr-if-adrenal-2017",
            "acr-if-renal-2018",
            "cad-rads-2-0-2022",
        ] {
            assert!(slugs.contains(&slug), "{slug} not in {slugs:?}");
        }
        for s in &selected {
            assert!(
                s.system.organs.iter().any(|o| finding.organs.contains(o)),
                "{} concerns no organ of the report",
                s.system.slug
            );
            assert!(s.reasons.iter().any(|r| r.starts_with("organ: ")));
        }
        // The answer an assistant gets is one cited block, per finding, within its budget;
        // what does not fit is named at its end.
        query.limit = DEFAULT_LIMIT;
        let md = to_markdown(&query);
        assert!(md.contains("References:\n[1] "));
        assert!(
            md.contains("### Finding 1: \"Incidental 8 mm solid pulmonary nodule"),
            "{md}"
        );
        assert!(md.contains("Governed by "), "{md}");
        let tokens = crate::corpus::text::approx_tokens(&md);
        assert!(tokens <= DEFAULT_MAX_TOKENS, "{tokens} tokens");
        assert!(
            md.contains("Not shown within the budget of 2000 tokens: findings "),
            "{md}"
        );
        for budget in [MIN_MAX_TOKENS, 1_000, 4_000] {
            query.max_tokens = budget;
            let md = to_markdown(&query);
            let tokens = crate::corpus::text::approx_tokens(&md);
            assert!(tokens <= budget, "{tokens} tokens for a budget of {budget}");
        }
        // With room for it all, every selected system has its block.
        query.max_tokens = MAX_MAX_TOKENS;
        let md = to_markdown(&query);
        assert!(!md.contains("Not shown within the budget"), "{md}");
        for s in &selected[..DEFAULT_LIMIT] {
            assert!(
                md.contains(&format!("`{}`)\n", s.system.slug)),
                "{}",
                s.system.slug
            );
        }
    }
}

/// The finding texts of `tests/fixtures/context_queries.json` with the systems that govern them.
#[cfg(test)]
mod quality {
    use super::*;
    use crate::knowledge::KNOWLEDGE;

    #[derive(Deserialize)]
    struct Case {
        text: String,
        expected: Vec<String>,
    }

    #[test]
    fn top3_accuracy_on_the_query_set() {
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../tests/fixtures/context_queries.json")).unwrap();
        assert!(cases.len() >= 60);
        let (mut top1, mut top3) = (0, 0);
        let mut misses = Vec::new();
        let mut naming = 0;
        for case in &cases {
            // A system the text names must be one that governs it.
            for n in naming::named_systems(&case.text) {
                let slug = SYSTEMS[n.index].slug;
                assert!(
                    case.expected.iter().any(|e| e == slug),
                    "{}: names {slug} ({}), expected {:?}",
                    case.text,
                    n.name,
                    case.expected
                );
                naming += 1;
            }
            for slug in &case.expected {
                assert!(compiled::system(slug).is_some(), "unknown slug {slug}");
            }
            // The ranking itself, over every system: verified=false, so draft entries compete.
            let query =
                ContextQuery::new(Some(case.text.clone()), None, None, None, None, Some(false))
                    .unwrap();
            let ranked: Vec<&str> = rank(&KNOWLEDGE, &query)
                .1
                .iter()
                .map(|s| s.system.slug)
                .collect();
            let hit = |n: usize| {
                ranked
                    .iter()
                    .take(n)
                    .any(|s| case.expected.iter().any(|e| e == s))
            };
            if hit(1) {
                top1 += 1;
            } else {
                println!(
                    "  top-1 miss: {} -> {:?} (expected {:?})",
                    case.text,
                    &ranked[..ranked.len().min(3)],
                    case.expected
                );
            }
            if hit(3) {
                top3 += 1;
            } else {
                misses.push(format!(
                    "{} -> {:?} (expected {:?})",
                    case.text,
                    &ranked[..ranked.len().min(3)],
                    case.expected
                ));
            }
        }
        let n = cases.len() as f64;
        println!(
            "context query set: {} cases ({naming} name a system), top-1 {:.1}%, top-3 {:.1}%",
            cases.len(),
            100.0 * top1 as f64 / n,
            100.0 * top3 as f64 / n
        );
        for m in &misses {
            println!("  miss: {m}");
        }
        assert!(
            top3 as f64 / n >= 0.95,
            "top-3 accuracy below 95%: {misses:#?}"
        );
    }
}

/// The fence around grounding's ranking: every finding text of the query set, ranked over every
/// system, must give exactly the rankings recorded in `tests/fixtures/context_rankings.json`
/// (systems, scores, reasons, and what was read from the text). A change of the lexicon, the
/// cues or the weights that moves any of them shows here as a diff; when the change is meant,
/// `RADREF_BLESS=1 cargo test --lib rankings_are_the_recorded_ones` records the new rankings
/// for review in the same commit.
#[cfg(test)]
mod fence {
    use super::*;
    use crate::knowledge::KNOWLEDGE;
    use serde_json::{json, Value};

    const FIXTURE: &str = "tests/fixtures/context_rankings.json";

    fn ranking(text: &str) -> Value {
        let query = ContextQuery::new(
            Some(text.to_string()),
            None,
            None,
            Some(MAX_LIMIT as i64),
            None,
            Some(false),
        )
        .unwrap();
        let (finding, selected) = rank(&KNOWLEDGE, &query);
        json!({
            "text": text,
            "organs": finding.organs,
            "modalities": finding.modalities,
            "cues": finding.cues,
            "ranked": selected.iter().map(|s| json!({
                "slug": s.system.slug,
                "score": s.score,
                "reasons": s.reasons,
            })).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn rankings_are_the_recorded_ones() {
        #[derive(Deserialize)]
        struct Case {
            text: String,
        }
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../tests/fixtures/context_queries.json")).unwrap();
        let mut texts: Vec<String> = cases.into_iter().map(|c| c.text).collect();
        texts.push(include_str!("../tests/fixtures/long_finding.txt").to_string());
        let now: Vec<Value> = texts.iter().map(|t| ranking(t)).collect();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
        if std::env::var_os("RADREF_BLESS").is_some() {
            let mut body = serde_json::to_string_pretty(&now).unwrap();
            body.push('\n');
            std::fs::write(&path, body).unwrap();
            return;
        }
        let recorded: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            recorded.len(),
            now.len(),
            "the recorded set has another size"
        );
        let mut changed = Vec::new();
        for (old, new) in recorded.iter().zip(&now) {
            if old != new {
                changed.push(format!(
                    "{}\n  recorded: {}\n  now:      {}",
                    new["text"], old, new
                ));
            }
        }
        assert!(
            changed.is_empty(),
            "{} ranking(s) moved:\n{}",
            changed.len(),
            changed.join("\n")
        );
    }
}

/// The report set of `tests/fixtures/reports/` (multi-section reports with pertinent
/// negatives, hedges, history and abbreviations, each with its expected answers in
/// `expected.json`), measured as the held-out checks measure a report: every positive
/// finding's governing system offered, the systems the text rules out kept out, the first
/// system answering the most salient finding, and a finding group over each positive finding
/// whose first system governs it. The floors are the levels reached; a change that lowers one
/// fails here (raise them as grounding improves).
#[cfg(test)]
mod report_set {
    use super::*;
    use crate::knowledge::KNOWLEDGE;

    #[derive(Deserialize)]
    struct Expected {
        reports: Vec<Report>,
    }

    #[derive(Deserialize)]
    struct Report {
        file: String,
        salient: Option<String>,
        findings: Vec<Quoted>,
        ruled_out: Vec<Quoted>,
    }

    #[derive(Deserialize)]
    struct Quoted {
        quote: String,
        systems: Vec<String>,
    }

    fn ratio(ok: usize, all: usize) -> f64 {
        ok as f64 / all.max(1) as f64
    }

    #[test]
    fn reports_are_grounded_per_finding() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/reports/");
        let expected: Expected =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}expected.json")).unwrap())
                .unwrap();
        assert!(expected.reports.len() >= 12);
        let [mut pos, mut pos_ok, mut out, mut out_ok] = [0usize; 4];
        let [mut sal, mut sal_ok, mut grp, mut grp_ok] = [0usize; 4];
        for report in &expected.reports {
            let text = std::fs::read_to_string(format!("{dir}{}", report.file)).unwrap();
            let query =
                ContextQuery::new(Some(text.clone()), None, None, None, None, Some(false)).unwrap();
            let answer = answer::ground(&KNOWLEDGE, &query);
            let offered: Vec<&str> = answer.systems.iter().map(|s| s.slug).collect();
            let chars: Vec<char> = text.chars().collect();
            // Every span points at the words it claims.
            for f in &answer.findings {
                let at: String = chars[f.span[0]..f.span[1]].iter().collect();
                assert_eq!(at, f.text, "{}", report.file);
                for i in &f.inputs {
                    let at: String = chars[i.span[0]..i.span[1]].iter().collect();
                    assert_eq!(at, i.text, "{}", report.file);
                }
                assert!(!f.text.is_empty(), "{}", report.file);
                if !f.assertion.grounded() {
                    assert!(f.systems.is_empty(), "{}: {}", report.file, f.text);
                }
            }
            for finding in &report.findings {
                pos += 1;
                grp += 1;
                if finding
                    .systems
                    .iter()
                    .any(|s| offered.contains(&s.as_str()))
                {
                    pos_ok += 1;
                }
                let start = text[..text.find(&finding.quote).unwrap()].chars().count();
                let end = start + finding.quote.chars().count();
                let governed = answer.findings.iter().any(|f| {
                    f.span[0] < end
                        && f.span[1] > start
                        && f.systems
                            .first()
                            .is_some_and(|s| finding.systems.iter().any(|e| e == s.slug))
                });
                if governed {
                    grp_ok += 1;
                }
            }
            let mut kept_out: Vec<&str> = report
                .ruled_out
                .iter()
                .flat_map(|r| r.systems.iter().map(String::as_str))
                .collect();
            kept_out.sort_unstable();
            kept_out.dedup();
            for slug in kept_out {
                out += 1;
                if !offered.contains(&slug) {
                    out_ok += 1;
                }
            }
            if let Some(salient) = &report.salient {
                sal += 1;
                if offered.first() == Some(&salient.as_str()) {
                    sal_ok += 1;
                }
            }
        }
        let figures = format!(
            "offered {pos_ok}/{pos}, kept out {out_ok}/{out}, salient first {sal_ok}/{sal}, finding groups {grp_ok}/{grp}"
        );
        // Shown with `--nocapture`, to compare a change's figures with these floors.
        eprintln!("report set: {figures}");
        assert!(ratio(pos_ok, pos) >= 0.99, "{figures}");
        assert!(ratio(out_ok, out) >= 0.97, "{figures}");
        assert!(ratio(sal_ok, sal) >= 0.93, "{figures}");
        assert!(ratio(grp_ok, grp) >= 0.95, "{figures}");
    }
}

/// The report-wide setting: read once with its words, negations respected, and applied to
/// every finding about the organ of a cue that lists it.
#[cfg(test)]
mod setting_tests {
    use super::*;
    use crate::knowledge::KNOWLEDGE;

    fn ground(text: &str) -> Grounding {
        let query =
            ContextQuery::new(Some(text.into()), None, None, None, None, Some(false)).unwrap();
        answer::ground(&KNOWLEDGE, &query)
    }

    /// The characters of `text` a `[start, end)` span of the answer points at.
    fn spanned(text: &str, span: [usize; 2]) -> String {
        text.chars().skip(span[0]).take(span[1] - span[0]).collect()
    }

    /// The first finding of `answer` whose text holds `words`.
    fn finding_with<'a>(answer: &'a Grounding, words: &str) -> &'a answer::FindingContext {
        answer
            .findings
            .iter()
            .find(|f| f.text.contains(words))
            .unwrap_or_else(|| panic!("{words}: {:?}", answer.findings))
    }

    /// The systems of the answer's finding whose text holds `words`.
    fn systems_of<'a>(answer: &'a Grounding, words: &str) -> Vec<&'a str> {
        finding_with(answer, words)
            .systems
            .iter()
            .map(|s| s.slug)
            .collect()
    }

    /// A report's system is read on a finding that offers it, never on the whole report: the
    /// whole text read at once gave the adrenal paper the 5 mm of a lung nodule ("smaller than
    /// 1 cm: no work-up" for a 1.9 cm adrenal nodule) and BTS the 11 mm of a thyroid nodule.
    #[test]
    fn a_reports_system_is_read_on_the_finding_that_offers_it() {
        use crate::corpus::evaluate::Given;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/");
        let read = |file: &str| std::fs::read_to_string(format!("{dir}{file}")).unwrap();
        let system = |answer: &Grounding, slug: &str| {
            let found = answer.systems.iter().find(|s| s.slug == slug);
            found
                .unwrap_or_else(|| panic!("{slug} not offered"))
                .clone()
        };
        let number = |s: &answer::SystemContext, id: &str| match s.prefilled.get(id) {
            Some(Given::Number(n)) => *n,
            other => panic!("{}: {id} = {other:?}", s.slug),
        };
        let incidentals = ground(&read(
            "tests/fixtures/reports/31-ct-ap-diverticulitis-aaa-incidentals.txt",
        ));
        let adrenal = system(&incidentals, "acr-if-adrenal-2017");
        assert_eq!(number(&adrenal, "size_cm"), 1.9);
        assert!(
            adrenal
                .decided
                .iter()
                .all(|d| !d.answer.contains("no-workup")),
            "{:?}",
            adrenal
                .decided
                .iter()
                .map(|d| &d.answer)
                .collect::<Vec<_>>()
        );
        let cyst = system(&incidentals, "acr-if-pancreatic-cyst-2017");
        assert_eq!(number(&cyst, "cyst_size_cm"), 1.4);
        let trauma = ground(&read("benches/reports/6-ct-trauma-whole-body.txt"));
        assert_eq!(
            number(&system(&trauma, "acr-if-adrenal-2017"), "size_cm"),
            2.4
        );
        assert_eq!(
            number(
                &system(&trauma, "bts-pulmonary-nodules-2015"),
                "max_diameter_mm"
            ),
            8.0
        );
        // Each such system names the finding it was read on, which offers it; a text of one
        // finding is read whole and names none.
        for answer in [&incidentals, &trauma] {
            for s in answer.systems.iter().filter(|s| !s.prefilled.is_empty()) {
                let span = s.prefilled_from.unwrap_or_else(|| panic!("{}", s.slug));
                let source = answer.findings.iter().find(|f| f.span == span).unwrap();
                assert!(
                    source.systems.iter().any(|o| o.slug == s.slug),
                    "{}",
                    s.slug
                );
            }
        }
        let one = ground("Incidental 6 mm solid lung nodule in a 61-year-old never-smoker.");
        let fleischner = system(&one, "fleischner-2017");
        assert_eq!(number(&fleischner, "size_mm"), 6.0);
        assert_eq!(fleischner.prefilled_from, None);
    }

    /// What a report's clinical history states about the patient (an input `about: patient`)
    /// reaches each finding's evaluation, with the words it was read from; a finding that
    /// states it keeps its own, and a text without a history has none to give.
    #[test]
    fn the_history_states_the_patient_for_each_finding() {
        let report = |history: &str, finding: &str| {
            format!(
                "PELVIC ULTRASOUND\n\nCLINICAL HISTORY: {history}\n\nFINDINGS:\nUterus: normal.\n\
                 Left ovary: {finding}\n\nIMPRESSION:\n1. {finding}\n"
            )
        };
        let cyst = "New 4.6 cm unilocular left ovarian cyst with a papillary projection.";
        let status = |answer: &Grounding| -> Vec<(String, String)> {
            let f = &answer.findings[0];
            assert_eq!(f.systems[0].slug, "acr-o-rads-us-v2022", "{:?}", f.systems);
            f.inputs
                .iter()
                .filter(|i| i.id == "menopausal_status")
                .map(|i| (format!("{:?}", i.value), i.text.clone()))
                .collect()
        };
        let text = report("58-year-old postmenopausal woman, asymptomatic.", cyst);
        let answer = ground(&text);
        let read = status(&answer);
        assert_eq!(read.len(), 1, "{read:?}");
        assert!(read[0].0.contains("\"postmenopausal\""), "{read:?}");
        // The words it was read from are the history's.
        let input = answer.findings[0]
            .inputs
            .iter()
            .find(|i| i.id == "menopausal_status")
            .unwrap();
        let chars: Vec<char> = text.chars().collect();
        let at: String = chars[input.span[0]..input.span[1]].iter().collect();
        assert_eq!(at, "postmenopausal");
        assert!(input.span[1] < text.find("FINDINGS").unwrap());
        let link = &answer.findings[0].evaluation.as_ref().unwrap().link;
        assert!(link.contains("menopausal_status=postmenopausal"), "{link}");
        // The finding's own statement wins over the history's.
        let own = ground(&report(
            "48-year-old woman.",
            "New 4.6 cm unilocular ovarian cyst with a papillary projection in a premenopausal patient.",
        ));
        let own = status(&own);
        assert!(
            own.len() == 1 && own[0].0.contains("\"premenopausal\""),
            "{own:?}"
        );
        // No history section, nothing from it.
        let bare = ground(&format!(
            "FINDINGS:\nLeft ovary: {cyst}\n\nIMPRESSION:\n1. {cyst}\n"
        ));
        assert!(status(&bare).is_empty());
    }

    /// A thyroid nodule described with "no echogenic foci" has TI-RADS's value for none of
    /// them, so all its points are read (TR4), with the words that rule them out; foci it has
    /// are not read as the whole list.
    #[test]
    fn a_nodule_without_echogenic_foci_is_scored_whole() {
        use crate::corpus::evaluate::Given;
        let text = "ULTRASOUND THYROID\n\nFINDINGS:\nRight lobe: 2.2 x 1.6 x 1.4 cm solid, \
                    hypoechoic nodule, wider than tall, smooth margins, no echogenic foci. Mild \
                    peripheral vascularity.\n\nIMPRESSION:\n1. 2.2 cm right thyroid nodule.\n";
        let answer = ground(text);
        let f = finding_with(&answer, "no echogenic foci");
        assert_eq!(f.systems[0].slug, "acr-ti-rads-2017");
        let foci = f.inputs.iter().find(|i| i.id == "echogenic_foci");
        let foci = foci.unwrap_or_else(|| panic!("{:?}", f.inputs));
        assert_eq!(
            foci.value,
            Given::Choices(vec!["none_or_large_comet_tail".to_string()])
        );
        assert_eq!(foci.text, "no echogenic foci");
        let chars: Vec<char> = text.chars().collect();
        let at: String = chars[foci.span[0]..foci.span[1]].iter().collect();
        assert_eq!(at, "no echogenic foci");
        // Solid (2) and hypoechoic (2), nothing else: 4 points, TR4.
        let decided = &f.evaluation.as_ref().unwrap().decided;
        let level = decided.iter().find(|d| d.unit == "tirads_level");
        assert!(
            level.is_some_and(|d| d.answer.starts_with("TR4")),
            "{decided:?}"
        );
        // Foci the nodule has are not ruled out: a report lists a nodule's echogenic foci
        // (TI-RADS marks the input `listed`), so those it states are its whole list, and
        // solid (2), hypoechoic (2) and punctate foci (3) make 7 points, TR5, and an FNA.
        let text = text.replace("no echogenic foci", "punctate echogenic foci");
        let answer = ground(&text);
        let f = finding_with(&answer, "punctate echogenic foci");
        let foci = f.inputs.iter().find(|i| i.id == "echogenic_foci");
        let foci = foci.unwrap_or_else(|| panic!("{:?}", f.inputs));
        assert_eq!(foci.value, Given::Choices(vec!["punctate".to_string()]));
        assert_eq!(spanned(&text, foci.span), "punctate echogenic foci");
        let decided = &f.evaluation.as_ref().unwrap().decided;
        let answers: Vec<&str> = decided.iter().map(|d| d.answer.as_str()).collect();
        assert!(answers.iter().any(|a| a.starts_with("TR5")), "{answers:?}");
        assert!(answers.contains(&"FNA"), "{answers:?}");
        // Two foci stated: both, in the input's order, read from the words that run from
        // the first to the last.
        let text = text.replace(
            "punctate echogenic foci",
            "punctate echogenic foci and macrocalcifications",
        );
        let answer = ground(&text);
        let f = finding_with(&answer, "punctate echogenic foci");
        let foci = f.inputs.iter().find(|i| i.id == "echogenic_foci").unwrap();
        assert_eq!(
            foci.value,
            Given::Choices(vec!["macrocalcifications".into(), "punctate".into()])
        );
        assert_eq!(foci.text, "punctate echogenic foci and macrocalcifications");
    }

    /// A multi input the corpus does not mark `listed` is never read from a finding: a list of
    /// some exclusions or risk factors would tell the evaluator the rest are absent.
    #[test]
    fn an_unlisted_multi_input_is_not_read_from_text() {
        let answer = ground(
            "CT CHEST\n\nFINDINGS:\nLungs: 7 mm solid nodule in the right upper lobe in an \
             immunocompromised patient with a known primary cancer.\n",
        );
        let f = finding_with(&answer, "7 mm solid nodule");
        assert!(
            f.inputs.iter().all(|i| i.id != "exclusions"),
            "{:?}",
            f.inputs
        );
    }

    /// A boolean about the patient that a report setting states (`setting` on the input): the
    /// adrenal papers' history of cancer is true where the clinical history states a cancer,
    /// even one it places in the past, with the history's words; a negated history or a
    /// relative's cancer leaves it unread, and nothing makes it false.
    #[test]
    fn a_cancer_the_clinical_history_states_reaches_the_adrenal_evaluation() {
        let report = |history: &str| {
            format!(
                "CT ABDOMEN\n\nCLINICAL HISTORY: 63-year-old woman with abdominal pain. \
                 {history}\n\nFINDINGS:\nAdrenals: 2.1 cm indeterminate left adrenal \
                 nodule.\n\nIMPRESSION:\n1. Indeterminate 2.1 cm left adrenal nodule.\n"
            )
        };
        use crate::corpus::evaluate::Given;
        let read = |text: &str| -> Vec<(Given, String, [usize; 2])> {
            let answer = ground(text);
            let f = &answer.findings[0];
            // Both adrenal papers that lead such a nodule take a history of cancer.
            let first = f.systems[0].slug;
            assert!(
                ["acr-ac-adrenal-mass-2021", "acr-if-adrenal-2017"].contains(&first),
                "{first}"
            );
            f.inputs
                .iter()
                .filter(|i| i.id == "cancer_history")
                .map(|i| (i.value.clone(), i.text.clone(), i.span))
                .collect()
        };
        let text = report("History of breast cancer treated in 2015.");
        let cancer = read(&text);
        assert_eq!(cancer.len(), 1, "{cancer:?}");
        assert_eq!(cancer[0].0, Given::Flag(true));
        assert_eq!(cancer[0].1, "breast cancer");
        let chars: Vec<char> = text.chars().collect();
        let at: String = chars[cancer[0].2[0]..cancer[0].2[1]].iter().collect();
        assert_eq!(at, "breast cancer");
        assert!(cancer[0].2[1] < text.find("FINDINGS").unwrap());
        let answer = ground(&text);
        let link = &answer.findings[0].evaluation.as_ref().unwrap().link;
        assert!(link.contains("cancer_history=true"), "{link}");
        for unread in [
            "No personal history of malignancy.",
            "Mother with breast cancer at 44.",
            "No cancer history.",
        ] {
            assert!(read(&report(unread)).is_empty(), "{unread}");
        }
    }

    /// "I cannot see any ..." rules out what follows, as British reports write it.
    #[test]
    fn what_the_reporter_cannot_see_is_ruled_out() {
        let report = "CT CHEST\n\nFINDINGS:\nMediastinum: I cannot see any enlarged \
                      mediastinal, hilar or axillary lymph nodes.\nLungs: 6 mm solid nodule in \
                      the right upper lobe.\n";
        let answer = ground(report);
        let nodes = finding_with(&answer, "lymph nodes");
        assert!(!nodes.assertion.grounded(), "{:?}", nodes.assertion);
        assert!(nodes.systems.is_empty());
        assert_eq!(
            systems_of(&answer, "6 mm solid nodule")[0],
            "fleischner-2017"
        );
    }

    #[test]
    fn arterial_calcification_in_a_trauma_cta_is_not_a_blunt_injury() {
        let report = "CT ANGIOGRAPHY HEAD AND NECK\n\nCLINICAL HISTORY: Motor vehicle collision, \
                      trauma.\n\nFINDINGS:\nNeck vessels: Calcification of both carotid siphons \
                      and of the vertebral arteries. Dissection of the left vertebral artery with \
                      less than 25% luminal narrowing.\n";
        let answer = ground(report);
        assert!(!systems_of(&answer, "carotid siphons").contains(&"biffl-bcvi-1999"));
        assert_eq!(
            systems_of(&answer, "Dissection of the left vertebral")[0],
            "biffl-bcvi-1999"
        );
    }

    #[test]
    fn a_lung_contusion_is_not_a_nodule() {
        let report = "CT CHEST WITH CONTRAST\n\nCLINICAL HISTORY: Fall from height.\n\n\
                      FINDINGS:\nLungs: Patchy consolidation in the right lower lobe adjacent \
                      to the rib fractures, consistent with pulmonary contusion. An incidental \
                      8 mm solid nodule in the left upper lobe.\n";
        let answer = ground(report);
        let contusion = systems_of(&answer, "pulmonary contusion");
        for nodule_guideline in ["bts-pulmonary-nodules-2015", "fleischner-2017"] {
            assert!(!contusion.contains(&nodule_guideline), "{contusion:?}");
        }
        let nodule = systems_of(&answer, "8 mm solid nodule");
        assert!(
            ["fleischner-2017", "bts-pulmonary-nodules-2015"].contains(&nodule[0]),
            "{nodule:?}"
        );
    }

    #[test]
    fn a_lung_contusion_in_ground_glass_is_not_a_nodule() {
        // "Lungs" and "fractures" mean "lung" and "fracture" too, and "ground glass" is a
        // nodule's word: the injury still outweighs them.
        let report = "CT CHEST ABDOMEN PELVIS WITH CONTRAST\n\nCLINICAL HISTORY: Motor vehicle \
                      collision.\n\nFINDINGS:\nLungs: Patchy ground glass and consolidation in \
                      the posterior segment of the right lower lobe and the lateral segment of \
                      the middle lobe, adjacent to the rib fractures, consistent with pulmonary \
                      contusion. An 8 mm solid nodule in the left upper lobe.\n";
        let answer = ground(report);
        assert_eq!(
            systems_of(&answer, "pulmonary contusion"),
            Vec::<&str>::new()
        );
        assert!(systems_of(&answer, "8 mm solid nodule").contains(&"bts-pulmonary-nodules-2015"));
    }

    #[test]
    fn lung_rads_is_for_nodules_found_at_screening() {
        let nodule = "8 mm solid nodule in the RUL, anterior segment, with smooth margins \
                      (series 3, image 48).";
        let routine = format!(
            "CT CHEST WITH CONTRAST\n\nCLINICAL HISTORY: Cough.\n\nFINDINGS:\nLungs: {nodule}\n"
        );
        let systems = systems_of(&ground(&routine), "8 mm solid nodule").join(" ");
        assert!(!systems.contains("lung-rads"), "{systems}");
        let screening =
            format!("LOW DOSE CT CHEST FOR LUNG CANCER SCREENING\n\nFINDINGS:\nLungs: {nodule}\n");
        let answer = ground(&screening);
        let systems = systems_of(&answer, "8 mm solid nodule");
        assert_eq!(systems[0], "acr-lung-rads-v2022", "{systems:?}");
        // A report that grades a nodule with Lung-RADS is a screening report.
        let graded = format!("CT CHEST\n\nFINDINGS:\nLungs: {nodule} Lung-RADS 4A.\n");
        assert!(ground(&graded).setting.settings.contains(&"screening"));
    }

    #[test]
    fn a_plural_finding_reaches_the_system_of_its_singular() {
        let report = "MRCP\n\nFINDINGS:\nKidneys: Both kidneys contain several simple cysts, the \
                      largest 2.2 cm in the right lower pole, T2 homogeneously hyperintense.\n";
        let answer = ground(report);
        let systems = systems_of(&answer, "several simple cysts");
        assert!(systems.contains(&"bosniak-v2019"), "{systems:?}");
    }

    #[test]
    fn a_treated_condition_is_not_a_treated_cancer() {
        // Osteoporosis treated with a drug states no post-treatment setting, so a neck finding
        // of the same report is not weighed for NI-RADS, which is for treated head and neck
        // cancer; chemoradiation is.
        let settings = |history: &str| {
            let report = format!(
                "CT NECK WITH CONTRAST\n\nCLINICAL HISTORY: {history}\n\nFINDINGS:\n\
                 Neck: 1.2 cm enhancing node at left level II.\n"
            );
            ground(&report).setting.settings
        };
        assert!(!settings("Osteoporosis treated with alendronate.").contains(&"post_treatment"));
        // Nor does any procedure the patient is status post.
        assert!(!settings("S/p cholecystectomy.").contains(&"post_treatment"));
        assert!(!settings("Status post appendectomy.").contains(&"post_treatment"));
        assert!(
            settings("Chemoradiation for laryngeal cancer in 2023.").contains(&"post_treatment")
        );
    }

    #[test]
    fn an_abbreviated_cancer_history_is_known_cancer_and_a_negated_one_is_not() {
        let settings = |history: &str| {
            let report = format!(
                "CT CHEST\n\nCLINICAL HISTORY: {history}\n\nFINDINGS:\nLungs: 6 mm solid \
                 nodule in the right upper lobe.\n"
            );
            ground(&report).setting.settings
        };
        for stated in [
            "72M, hx of prostate ca s/p prostatectomy.",
            "Breast ca in 2019.",
        ] {
            assert!(settings(stated).contains(&"known_cancer"), "{stated}");
        }
        for negated in [
            "No hx of malignancy.",
            "No h/o cancer. Smoker.",
            "No known hx of cancer.",
        ] {
            assert!(!settings(negated).contains(&"known_cancer"), "{negated}");
        }
    }

    /// A vertebral level names the spine ("L4 on L5"), so a listhesis listed under a
    /// "Bones:" label is still Meyerding's; levels that are also MRI sequences or tumour
    /// stages ("T2 hyperintense", "T1") are not read as the spine.
    #[test]
    fn a_vertebral_level_names_the_spine() {
        let report = "CT ABDOMEN AND PELVIS\n\nFINDINGS:\nBones: Degenerative changes of the \
                      lumbar spine. Grade 1 anterolisthesis of L4 on L5.\n";
        let answer = ground(report);
        assert_eq!(
            systems_of(&answer, "anterolisthesis").first(),
            Some(&"meyerding-1932")
        );
        let answer = ground("MRI ABDOMEN\n\nFINDINGS:\nLiver: 1.2 cm T2 hyperintense lesion.\n");
        assert!(
            !answer.finding.organs.contains(&"spine"),
            "{:?}",
            answer.finding.organs
        );
    }

    /// "Lumbar" names where a finding is, not a patient's low back pain: a lumbar finding is
    /// not weighed for the low back pain imaging criteria on that word (cue "low back pain").
    #[test]
    fn a_lumbar_finding_is_not_low_back_pain() {
        let answer = ground(
            "MRI LUMBAR SPINE\n\nFINDINGS:\nLumbar spine: 30% anterolisthesis of L4 on L5.\n",
        );
        let systems = systems_of(&answer, "anterolisthesis");
        assert_eq!(systems.first(), Some(&"meyerding-1932"), "{systems:?}");
        let answer = ground("MRI LUMBAR SPINE\n\nHISTORY: Low back pain with left sciatica.\n\nFINDINGS:\nL4-5: Disc bulge.\n");
        assert!(
            answer.finding.cues.contains(&"low back pain"),
            "{:?}",
            answer.finding.cues
        );
    }

    /// A metastasis of an organ is no injury of it: the injury scale is not offered for
    /// "hepatic metastases" in a restaging CT (cue "a lesion, not an injury").
    #[test]
    fn a_metastasis_is_not_graded_as_an_injury() {
        let report = "CT CHEST WITH CONTRAST\n\nHISTORY: 55 y/o M, metastatic colon ca, \
                      restaging.\n\nFINDINGS:\nUpper abdomen: Hepatic metastases better \
                      assessed on dedicated abdominal imaging.\n";
        let answer = ground(report);
        let systems = systems_of(&answer, "Hepatic metastases");
        assert!(!systems.contains(&"aast-ois-2018"), "{systems:?}");
    }

    #[test]
    fn renal_cysts_in_the_plural_are_graded_by_bosniak() {
        let report = "CT ABDOMEN WITH CONTRAST\n\nFINDINGS:\nKidneys: Bilateral simple cortical \
                      cysts, the largest 2.6 cm in the right lower pole, thin walled, with fluid \
                      attenuation and no septa, unchanged.\n";
        let answer = ground(report);
        let systems = systems_of(&answer, "cortical cysts");
        assert!(systems.contains(&"bosniak-v2019"), "{systems:?}");
    }

    /// A unit whose rule only points to another unit ("See solid nodules") decided nothing
    /// about the finding: the grounded answer leaves it out, the evaluator keeps it with its
    /// `defers_to`.
    #[test]
    fn a_unit_that_defers_to_another_is_not_shown_as_decided() {
        let report = "CT CHEST WITHOUT CONTRAST\n\nHISTORY: 61-year-old woman, cough.\n\n\
                      FINDINGS:\nLungs: 7 mm solid nodule in the right upper lobe.\n";
        let answer = ground(report);
        let f = finding_with(&answer, "7 mm solid nodule");
        let e = f.evaluation.as_ref().unwrap();
        assert_eq!(e.slug, "fleischner-2017");
        assert!(
            e.decided.iter().all(|d| d.unit != "subsolid_nodules"),
            "{:?}",
            e.decided
        );
        assert!(e.decided.iter().all(|d| !d.answer.starts_with("See ")));
        // The evaluator itself answers the subsolid unit, pointing to the solid one.
        let logic = compiled::logic(SYSTEMS.iter().position(|s| s.slug == e.slug).unwrap());
        let pairs = crate::http::parse_query("nodule_type=solid");
        let ask = crate::evaluation::from_query(logic.unwrap(), &pairs).unwrap();
        let eval = crate::evaluation::run(logic.unwrap(), &ask).unwrap();
        let subsolid = eval
            .units
            .iter()
            .find(|u| u.id == "subsolid_nodules")
            .unwrap();
        assert_eq!(
            subsolid.status,
            crate::corpus::evaluate::UnitStatus::Decided
        );
        assert_eq!(subsolid.defers_to, ["solid_nodules"]);
        assert!(!subsolid.decides());
    }

    #[test]
    fn a_sex_letter_after_the_age_states_the_patients_sex() {
        let report = "US THYROID\n\nHISTORY: 61 y/o F, palpable neck lump.\n\nFINDINGS:\n\
                      Right lobe: 1.7 cm solid hypoechoic nodule, wider than tall, smooth \
                      margins.\n";
        let s = ground(report).setting;
        assert_eq!((s.age_years, s.sex), (Some(61.0), Some("female")));
        let read = s.read.iter().find(|r| r.setting == "female").unwrap();
        assert_eq!(read.text, "F");
        assert_eq!(spanned(report, read.span), "F");
        // A word stating the sex earlier stays the one read; a lone letter elsewhere is none.
        let s = ground("History: woman, 61 y/o F.\nFindings: 8 mm nodule.").setting;
        assert_eq!(s.sex, Some("female"));
        assert_eq!(
            s.read.iter().find(|r| r.setting == "female").unwrap().text,
            "woman"
        );
        let s = ground("History: 61 y/o, chest pain. Findings: a lesion in segment F.").setting;
        assert_eq!(s.sex, None);
    }

    #[test]
    fn a_setting_stated_in_the_history_reaches_the_findings() {
        let report = "MRI ABDOMEN\n\nCLINICAL HISTORY: 58-year-old woman with cirrhosis.\n\n\
                      FINDINGS:\nLiver: 1.8 cm observation in segment 7 with arterial \
                      hyperenhancement.\nKidneys: 2 cm simple cyst in the left kidney.\n";
        let answer = ground(report);
        let s = &answer.setting;
        assert_eq!(s.settings, ["hcc_risk"]);
        assert_eq!(s.sex, Some("female"));
        assert_eq!(s.age_years, Some(58.0));
        let cirrhosis = s.read.iter().find(|r| r.setting == "hcc_risk").unwrap();
        assert_eq!(spanned(report, cirrhosis.span), "cirrhosis");
        // The liver line names no risk; the history does, and LI-RADS governs the observation,
        // its reason the cited scope line.
        let liver = finding_with(&answer, "1.8 cm observation");
        let first = &liver.systems[0];
        assert_eq!(first.slug, "acr-li-rads-ct-mri-v2018");
        let why = first.because.iter().find(|b| b.cue == "HCC risk").unwrap();
        let line = why.line.as_ref().unwrap();
        assert_eq!(line.system, "acr-li-rads-ct-mri-v2018");
        assert!(line.text.contains("cirrhosis"), "{}", line.text);
        assert!(!line.citation.is_empty() && !line.locator.is_empty());
        // The kidney finding is not a liver finding: no HCC-risk cue reaches it.
        let kidney = finding_with(&answer, "simple cyst");
        assert!(kidney.systems[0]
            .because
            .iter()
            .all(|b| b.cue != "HCC risk"));
    }

    #[test]
    fn an_effect_does_not_hold_under_a_setting_it_excepts_and_a_recommendation_sets_none() {
        let report = "LOW-DOSE CT LUNG CANCER SCREENING\n\nFINDINGS:\n\
                      Lungs: 6 mm solid nodule in the right upper lobe.\n\
                      Trachea: small tracheal diverticulum, incidental, unchanged.\n\n\
                      IMPRESSION:\n1. Lung-RADS 3. PET/CT may be considered for staging if it grows.\n";
        let answer = ground(report);
        // "may be considered for staging" is a recommendation, not a known cancer.
        let s = &answer.setting.settings;
        assert!(
            s.contains(&"screening") && s.contains(&"incidental"),
            "{s:?}"
        );
        assert!(!s.contains(&"known_cancer"), "{s:?}");
        // A low-dose CT is screening when it is of the chest, not when it corrects a PET's
        // attenuation or works up a cough.
        for (text, screening) in [
            ("LOW-DOSE CT CHEST. 5 mm solid nodule in the RUL.", true),
            (
                "Whole-body PET with low-dose CT for attenuation correction. FDG-avid node.",
                false,
            ),
        ] {
            let s = ground(text).setting.settings;
            assert_eq!(s.contains(&"screening"), screening, "{text}: {s:?}");
        }
        // "incidental" favours Fleischner, but not in a screening examination, which its scope
        // excludes: the effect does not hold there, and screening's own still does.
        // The cues that weighed on Fleischner for a text.
        let fleischner_cues = |text: &str| -> Vec<&'static str> {
            let answer = ground(text);
            let fleischner = answer
                .systems
                .iter()
                .find(|s| s.slug == "fleischner-2017")
                .expect("Fleischner is offered");
            fleischner.why.because.iter().map(|b| b.cue).collect()
        };
        let cues =
            fleischner_cues("Lung cancer screening CT: incidental 7 mm solid nodule in the RUL.");
        assert!(cues.contains(&"screening"), "{cues:?}");
        assert!(!cues.contains(&"incidental"), "{cues:?}");
        let cues = fleischner_cues("Incidental 7 mm solid nodule in the RUL on CT.");
        assert!(cues.contains(&"incidental"), "{cues:?}");
    }

    #[test]
    fn an_organ_named_as_a_landmark_is_not_what_the_finding_is_about() {
        for (text, landmark, organ) in [
            (
                "Residual mediastinal mass, uptake below the liver (Deauville 3).",
                "liver",
                None,
            ),
            (
                "Hodgkin lymphoma end-of-treatment PET, uptake below liver",
                "liver",
                None,
            ),
            (
                "Para-aortic lymph node at the level of the left renal vein, 11 mm.",
                "kidney",
                Some("lymph nodes"),
            ),
            (
                "3 cm lesion adjacent to the pancreas in the liver.",
                "pancreas",
                Some("liver"),
            ),
        ] {
            let organs = ground(text).finding.organs;
            assert!(!organs.contains(&landmark), "{text}: {organs:?}");
            if let Some(organ) = organ {
                assert!(organs.contains(&organ), "{text}: {organs:?}");
            }
        }
        // Named as what the finding is about, the same organ counts.
        let organs = ground("2 cm hypodense lesion in the liver, below the diaphragm.")
            .finding
            .organs;
        assert!(organs.contains(&"liver"), "{organs:?}");
        let answer = ground("Residual mediastinal mass, uptake below the liver (Deauville 3).");
        assert!(
            !answer.systems.iter().any(|s| s.slug.contains("li-rads")),
            "{:?}",
            answer.systems.iter().map(|s| s.slug).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_lobes_of_both_lungs_are_the_lungs() {
        // "the lower lobes" names the lungs as "the right lower lobe" does; a finding that named
        // no organ took the examination's, and a whole-body trauma CT's are every organ's.
        let organs = ground("Mild bronchial wall thickening in the lower lobes.")
            .finding
            .organs;
        assert_eq!(organs, ["lung"]);
        let report =
            "CT WHOLE BODY FOR TRAUMA: HEAD, CERVICAL SPINE, CHEST, ABDOMEN AND PELVIS\n\n\
                      FINDINGS:\nAirways: Mild bronchial wall thickening in the lower lobes.\n\
                      Spleen: 3 cm laceration of the inferior pole.\n";
        let answer = ground(report);
        let airways = finding_with(&answer, "bronchial");
        assert!(
            !airways.systems.iter().any(|s| s.slug == "aast-ois-2018"),
            "{:?}",
            airways.systems.iter().map(|s| s.slug).collect::<Vec<_>>()
        );
    }

    #[test]
    fn another_organs_word_near_an_organ_names_its_part() {
        // "neck" and "head and neck" name a part of the organ named beside them.
        for (text, organ) in [
            ("Nondisplaced left femoral neck fracture.", "bone"),
            (
                "Gallstone impacted in the gallbladder neck, 12 mm.",
                "gallbladder",
            ),
            ("Bladder neck thickening, 8 mm.", "bladder"),
            (
                "The main pancreatic duct is mildly dilated in the head and neck, measuring 6 mm.",
                "pancreas",
            ),
        ] {
            let answer = ground(text);
            let organs = &answer.finding.organs;
            assert!(organs.contains(&organ), "{text}: {organs:?}");
            assert!(!organs.contains(&"head and neck"), "{text}: {organs:?}");
            // NI-RADS is not weighed up as the neck's system (the search may still reach it).
            let ni_rads = answer
                .systems
                .iter()
                .find(|s| s.slug == "acr-ni-rads-ct-petct-2018");
            assert!(
                ni_rads.is_none_or(|s| s.why.score < 10.0),
                "{text}: {:?}",
                answer
                    .systems
                    .iter()
                    .map(|s| (s.slug, s.why.score))
                    .collect::<Vec<_>>()
            );
        }
        // Alone, or far from the organ, the neck is the neck.
        let organs = ground("Enlarged 2.1 cm level II lymph node in the right neck.")
            .finding
            .organs;
        assert!(organs.contains(&"head and neck"), "{organs:?}");
    }

    #[test]
    fn a_finding_about_anatomy_no_system_covers_takes_no_system_from_the_examination() {
        // The title's organs stand for a finding that names none ("Nodule 2: 4 mm" in an MR of
        // the liver is the liver's); a finding that names a site no system is about is that
        // site's, and a system about the examination's organ is not offered for it.
        let report = "MRI LIVER WITH AND WITHOUT CONTRAST\n\nFINDINGS:\n\
                      Liver: cirrhotic morphology. 24 mm observation in segment 7 with nonrim \
                      arterial phase hyperenhancement and washout.\n\
                      Right maxillary sinus mucosal thickening, 8 mm.\n\
                      Chest wall: 3 cm lipoma.\n\
                      L1 typical vertebral hemangioma.\n\
                      Uterus: 2 cm intramural fibroid.\n";
        let answer = ground(report);
        let systems_of = |start: &str| -> Vec<&'static str> {
            let finding = answer
                .findings
                .iter()
                .find(|g| g.text.starts_with(start))
                .unwrap_or_else(|| panic!("a finding starts with {start:?}"));
            assert!(
                finding.assertion.grounded(),
                "{start}: {:?}",
                finding.assertion
            );
            finding.systems.iter().map(|s| s.slug).collect()
        };
        assert_eq!(
            systems_of("24 mm observation")[0],
            "acr-li-rads-ct-mri-v2018"
        );
        // A fibroid is a finding (a finding word), about the uterus.
        for start in [
            "Right maxillary sinus",
            "3 cm lipoma",
            "2 cm intramural fibroid",
        ] {
            assert_eq!(systems_of(start), Vec::<&str>::new(), "{start}");
        }
        // "vertebral" is bone's, so no liver system either.
        let vertebral = systems_of("L1 typical");
        assert!(
            !vertebral.iter().any(|s| s.contains("li-rads")),
            "{vertebral:?}"
        );
        let organs = &answer.finding.organs;
        assert!(
            organs.contains(&"paranasal sinuses") && organs.contains(&"chest wall"),
            "{organs:?}"
        );
    }

    #[test]
    fn a_title_without_contrast_still_names_the_examination() {
        // "WITHOUT CONTRAST" says how the study was done: the rest of the title is not ruled
        // out, so a finding that names no organ takes the title's.
        let report = "MRI WITHOUT CONTRAST - LIVER\n\nFINDINGS:\n\
                      Observation 1: segment 7, 24 mm, nonrim arterial phase hyperenhancement.\n";
        let answer = ground(report);
        assert!(
            !answer
                .finding
                .ruled_out
                .iter()
                .any(|r| r.text.to_lowercase().contains("liver")),
            "{:?}",
            answer.finding.ruled_out
        );
        let finding = answer
            .findings
            .iter()
            .find(|g| g.text.contains("24 mm"))
            .expect("the observation is a finding");
        assert_eq!(finding.systems[0].slug, "acr-li-rads-ct-mri-v2018");
        // Contrast that is itself the finding is still negated.
        let answer = ground("Splenic laceration without contrast extravasation.");
        assert!(
            answer
                .finding
                .ruled_out
                .iter()
                .any(|r| r.text.contains("extravasation")),
            "{:?}",
            answer.finding.ruled_out
        );
    }

    #[test]
    fn a_part_of_the_anatomy_is_a_finding_only_with_a_size_and_a_ruled_out_label_keeps_its_organ() {
        let report = "CT LIVER\n\nFINDINGS:\n\
                      Pancreas: Normal signal and calibre of the duct.\n\
                      Biliary: The common bile duct measures 4 mm.\n\
                      Aorta: Normal caliber aorta.\n\
                      Thyroid: Normal size. 2.1 cm solid hypoechoic nodule.\n";
        let answer = ground(report);
        let texts: Vec<(&str, findings::Assertion)> = answer
            .findings
            .iter()
            .map(|g| (g.text.as_str(), g.assertion))
            .collect();
        let grounded = |start: &str| {
            texts
                .iter()
                .any(|(t, a)| t.starts_with(start) && a.grounded())
        };
        // A duct or an aorta named without a size is anatomy, not a finding.
        assert!(!grounded("Normal signal"), "{texts:?}");
        assert!(!grounded("Normal caliber"), "{texts:?}");
        assert!(grounded("The common bile duct measures 4 mm"), "{texts:?}");
        // "Thyroid:" is ruled out by "Normal size", yet the next sentence of its line is still
        // about the thyroid, not the examination's liver.
        let nodule = answer
            .findings
            .iter()
            .find(|g| g.text.starts_with("2.1 cm"))
            .expect("the nodule is a finding");
        assert!(nodule.assertion.grounded());
        let slugs: Vec<&str> = nodule.systems.iter().map(|s| s.slug).collect();
        assert!(
            slugs.first().is_some_and(|s| s.contains("thyroid")),
            "{slugs:?}"
        );
        assert!(!slugs.iter().any(|s| s.contains("li-rads")), "{slugs:?}");
    }

    #[test]
    fn a_system_named_in_a_finding_leads_it_only_when_about_its_organ() {
        let first_of = |report: &str, start: &str| -> Vec<&'static str> {
            let answer = ground(report);
            let finding = answer
                .findings
                .iter()
                .find(|g| g.text.starts_with(start))
                .unwrap_or_else(|| panic!("a finding starts with {start:?}"));
            finding.systems.iter().map(|s| s.slug).collect()
        };
        // "LR 2" in a lung line is Lung-RADS shorthand, not a LI-RADS category.
        let chest = "CT CHEST - LUNG CANCER SCREENING\n\nIMPRESSION:\n\
                     1. LLL 6.0 mm solid nodule, stable for 34 months (LR 2).\n";
        let slugs = first_of(chest, "LLL 6.0 mm");
        assert_eq!(slugs.first(), Some(&"acr-lung-rads-v2022"), "{slugs:?}");
        assert!(!slugs.iter().any(|s| s.contains("li-rads")), "{slugs:?}");
        // In the liver it names LI-RADS, which leads.
        let liver = "MRI LIVER\n\nIMPRESSION:\n\
                     1. Segment 7 observation, 14 mm, with arterial phase hyperenhancement (LR 4).\n";
        let slugs = first_of(liver, "Segment 7");
        assert!(slugs[0].contains("li-rads"), "{slugs:?}");
    }

    #[test]
    fn a_prose_line_stays_on_the_organ_of_a_ruled_out_sentence_and_new_since_the_prior_is_present()
    {
        let report = "CT ABDOMEN AND PELVIS WITH IV CONTRAST\n\nFINDINGS:\n\
                      Lower chest: 5 mm solid nodule in the RLL (series 2, image 14), not present \
                      on the prior.\n\
                      Hepatobiliary: Liver is normal in size. Two subcentimeter hypodensities in \
                      the right lobe, too small to characterize, likely cysts.\n\
                      Vessels: Infrarenal AAA, 3.6 cm, previously 3.3 cm.\n";
        let answer = ground(report);
        let finding = |start: &str| {
            answer
                .findings
                .iter()
                .find(|g| g.text.starts_with(start))
                .unwrap_or_else(|| panic!("a finding starts with {start:?}"))
        };
        let slugs = |start: &str| -> Vec<&'static str> {
            finding(start).systems.iter().map(|s| s.slug).collect()
        };
        // "not present on the prior" says the nodule is new, not absent.
        assert!(finding("5 mm solid nodule").assertion.grounded());
        assert!(slugs("5 mm solid nodule").contains(&"fleischner-2017"));
        // The hypodensities are the liver's, which the sentence before them named.
        let hypodensities = slugs("Two subcentimeter");
        assert_eq!(
            hypodensities.first(),
            Some(&"acr-if-liver-2017"),
            "{hypodensities:?}"
        );
        // "AAA" is an aneurysm, measured.
        assert!(finding("Infrarenal AAA").assertion.grounded());
        assert_eq!(
            slugs("Infrarenal AAA").first(),
            Some(&"acr-if-vascular-2013")
        );
    }

    #[test]
    fn a_finding_is_evaluated_at_the_patients_age() {
        let report = "CT ANGIOGRAPHY HEAD AND NECK\n\nCLINICAL INFORMATION: 78F, acute \
                      left hemiparesis.\n\nFINDINGS:\n\
                      Incidental: 8 mm hypodense nodule in the right thyroid lobe.\n\n\
                      IMPRESSION:\n1. Incidental 8 mm right thyroid nodule: no further \
                      evaluation per ACR incidental thyroid guidance (<1.5 cm, age >35).\n";
        let answer = ground(report);
        // The body's finding states no age; the impression's quotes the guideline's.
        for start in ["8 mm hypodense", "Incidental 8 mm right thyroid"] {
            let nodule = answer
                .findings
                .iter()
                .find(|g| g.text.starts_with(start))
                .expect("the nodule is a finding");
            let age = nodule
                .inputs
                .iter()
                .find(|i| i.id == "age_years")
                .expect("the patient's age is read for the nodule");
            assert_eq!(age.value, crate::corpus::evaluate::Given::Number(78.0));
            // Where the report states it.
            assert_eq!(age.text, "78F");
            assert_eq!(&report[age.span[0]..age.span[1]], "78F");
        }
    }

    #[test]
    fn a_number_the_report_names_by_its_label_is_evaluated() {
        // An infant hip report: the angles are named, not written as sizes.
        let report = "US BOTH HIPS (INFANT)\n\nHistory: 6 wk old F, breech.\n\nFINDINGS:\n\
                      Right hip: alpha angle 64 degrees, beta angle 50 degrees.\n\
                      Left hip: alpha angle 48 degrees, beta angle 80 degrees, with the \
                      cartilaginous roof displaced cranially.\n";
        let answer = ground(report);
        let decided = |start: &str| -> Vec<String> {
            let finding = answer
                .findings
                .iter()
                .find(|g| g.text.starts_with(start))
                .unwrap_or_else(|| panic!("a finding starts with {start:?}"));
            let evaluation = finding.evaluation.as_ref().expect("an evaluation");
            assert_eq!(evaluation.slug, "graf-hip-us-1980");
            evaluation
                .decided
                .iter()
                .map(|d| d.answer.clone())
                .collect()
        };
        let right = decided("alpha angle 64");
        assert!(right.iter().any(|a| a.starts_with("Type I ")), "{right:?}");
        let left = decided("alpha angle 48");
        assert!(left.iter().any(|a| a.starts_with("Type D ")), "{left:?}");
    }

    #[test]
    fn a_negated_setting_is_not_stated_and_a_known_cancer_disfavours_fleischner() {
        let answer = ground("No known malignancy. Incidental 7 mm solid nodule in the RUL on CT.");
        assert!(!answer.setting.settings.contains(&"known_cancer"));
        assert_eq!(answer.systems[0].slug, "fleischner-2017");
        let answer =
            ground("Known metastatic melanoma. Incidental 7 mm solid nodule in the RUL on CT.");
        assert!(answer.setting.settings.contains(&"known_cancer"));
        let fleischner = answer.systems.iter().find(|s| s.slug == "fleischner-2017");
        if let Some(f) = fleischner {
            let why = f
                .why
                .because
                .iter()
                .find(|b| b.cue == "known cancer")
                .unwrap();
            assert!(why.factor < 1.0);
            assert_eq!(why.line.as_ref().unwrap().path, "scope[2]");
        }
        assert_ne!(answer.systems[0].slug, "fleischner-2017");
    }

    /// Past the most findings ranked per text, the impression's come first, then the findings
    /// section's measured ones, then its others: a measured lesion written after more than
    /// [`findings::MAX_FINDINGS`] unmeasured findings is still ranked (with its system), the
    /// findings ranked are listed in the text's order, and the ones left are counted.
    #[test]
    fn past_the_most_findings_a_measured_one_is_ranked_before_unmeasured_ones() {
        let mut text =
            String::from("IMPRESSION:\n1. Multilevel thoracic spondylosis.\n\nFINDINGS:\n");
        let unmeasured = findings::MAX_FINDINGS + 5;
        for n in 1..=unmeasured {
            text.push_str(&format!(
                "Mild spondylosis at the level of vertebra number {n}.\n"
            ));
        }
        text.push_str("Incidental 2.4 cm left adrenal nodule, 8 HU on the unenhanced images.\n");
        let answer = ground(&text);
        let grounded: Vec<_> = answer
            .findings
            .iter()
            .filter(|f| f.assertion.grounded())
            .collect();
        assert_eq!(grounded.len(), findings::MAX_FINDINGS);
        assert_eq!(
            answer.more_findings,
            unmeasured + 2 - findings::MAX_FINDINGS
        );
        assert!(grounded[0]
            .text
            .starts_with("Multilevel thoracic spondylosis"));
        let adrenal = grounded.last().unwrap();
        assert!(adrenal.text.contains("adrenal nodule"), "{}", adrenal.text);
        assert!(
            adrenal
                .systems
                .iter()
                .any(|s| s.slug == "acr-if-adrenal-2017"),
            "{:?}",
            adrenal.systems.iter().map(|s| s.slug).collect::<Vec<_>>()
        );
        // The unmeasured ones kept are the first of the findings section, in its order.
        assert!(
            grounded[1].text.ends_with("vertebra number 1"),
            "{}",
            grounded[1].text
        );
        for pair in grounded[1..].windows(2) {
            assert!(pair[0].span[0] < pair[1].span[0]);
        }
    }
}
