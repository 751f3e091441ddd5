//! A report's findings: the sentences of its findings and impression sections (or of a text
//! without sections) that report on something a guideline could govern, each ranked on its
//! own, with the report-wide setting (its modalities, the cues that name no organ: screening,
//! incidental, trauma, lymphoma...) applied to every one.
//!
//! A sentence is a finding when what it asserts (ruled-out words already blanked) names an
//! organ or a measured noun ("nodule", "cyst", "laceration"); a line's label ("Spleen:") and the
//! heading line above it ("KIDNEYS:") belong to its sentences. Impression findings come first,
//! as the report's own summary of what matters; then the others in the report's order.

use super::assertion::RuledOut;
use super::report::{self, Section};
use super::{read_finding, score_hits, ContextQuery, Finding, Selected};
use crate::corpus::text;
use crate::knowledge::{Knowledge, SectionKind};
use crate::search;
use serde::Serialize;

/// Most findings grounded per text: each is a ranking of its own, so the work stays bounded
/// whatever the report's length. Findings past it are counted in the answer, not grounded.
pub const MAX_FINDINGS: usize = 24;
/// Systems listed per finding.
pub const SYSTEMS_PER_FINDING: usize = 3;

/// What a report asserts about a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Assertion {
    Present,
    /// Hedged ("probable", "cannot be excluded").
    Possible,
}

/// A finding of the report and the systems that govern it.
#[derive(Clone, Debug)]
pub struct Group {
    /// The sentence as the report writes it.
    pub text: String,
    /// `[start, end)` character offsets in the submitted text.
    pub span: [usize; 2],
    pub section: Option<SectionKind>,
    pub assertion: Assertion,
    /// The hedge that made it possible, when one did.
    pub hedge: Option<RuledOut>,
    pub systems: Vec<Selected>,
    /// The words it was ranked on: its sentence, with its line's label and heading.
    pub read: String,
}

/// A sentence of a line: its character range.
fn sentences(chars: &[char], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = from;
    for i in from..to {
        let end_here = matches!(chars[i], '.' | ';' | '!' | '?')
            // A decimal point is not the end of a sentence.
            && !(chars[i] == '.'
                && i > from
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit));
        if end_here {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < to {
        out.push((start, to));
    }
    out
}

/// The label of a line ("Spleen:" of "Spleen: 3 cm laceration"): up to four words before a
/// colon at its start, as a character range; a section heading is not one.
fn label(chars: &[char], from: usize, to: usize) -> Option<(usize, usize)> {
    let colon = (from..to).find(|&i| chars[i] == ':')?;
    let words = text::words(&chars[from..colon].iter().collect::<String>());
    (!words.is_empty() && words.len() <= 4).then_some((from, colon + 1))
}

/// Whether folded words name an organ or something a size measures.
fn reports_on(knowledge: &Knowledge, words: &[String]) -> bool {
    let folded = format!(" {} ", words.join(" "));
    let lexicon = knowledge.lexicon;
    lexicon
        .organs
        .iter()
        .any(|o| o.phrases.iter().any(|p| super::has_phrase(&folded, p)))
        || words.iter().any(|w| lexicon.measured(w).is_some())
}

/// The findings of a text (`read` is the text as grounding reads it: ruled-out words and the
/// examination's sections blanked, offsets unchanged), impression first, at most
/// [`MAX_FINDINGS`]; and how many more there were.
pub fn findings(
    knowledge: &Knowledge,
    query: &ContextQuery,
    read: &str,
    report_wide: &Finding,
    hedged: &[RuledOut],
) -> (Vec<Group>, usize) {
    let original: Vec<char> = query.text.chars().collect();
    let chars: Vec<char> = read.chars().collect();
    let slice = |c: &[char], from: usize, to: usize| c[from..to].iter().collect::<String>();
    let mut found: Vec<(usize, Group, String)> = Vec::new();
    for Section { kind, span } in report::sections(knowledge.lexicon, &query.text) {
        if kind.is_some_and(|k| k != SectionKind::Findings && k != SectionKind::Impression) {
            continue;
        }
        let mut heading: Option<String> = None;
        let mut at = span[0];
        let section_text = slice(&chars, span[0], span[1]);
        for line in section_text.split_inclusive('\n') {
            let (from, to) = (at, at + line.chars().count());
            at = to;
            let words = text::words(line);
            if words.is_empty() {
                heading = None;
                continue;
            }
            if report::bare_heading(line, &words) {
                heading = Some(words.join(" "));
                continue;
            }
            let label = label(&chars, from, to);
            let label_text = label.map(|(f, t)| slice(&chars, f, t)).unwrap_or_default();
            let body_from = label.map_or(from, |(_, t)| t);
            for (s, e) in sentences(&chars, body_from, to) {
                let sentence = slice(&chars, s, e);
                let own = text::words(&sentence);
                if !reports_on(knowledge, &own) {
                    continue;
                }
                let context = format!(
                    "{} {label_text} {sentence}",
                    heading.as_deref().unwrap_or_default()
                );
                let (trim_from, trim_to) = trimmed(&original, s, e);
                let hedge = hedged
                    .iter()
                    .find(|h| h.span[0] < trim_to && h.span[1] > trim_from)
                    .cloned();
                let rank_key = if kind == Some(SectionKind::Impression) {
                    0
                } else {
                    1
                };
                found.push((
                    rank_key,
                    Group {
                        text: slice(&original, trim_from, trim_to),
                        span: [trim_from, trim_to],
                        section: kind,
                        assertion: if hedge.is_some() {
                            Assertion::Possible
                        } else {
                            Assertion::Present
                        },
                        hedge,
                        systems: Vec::new(),
                        read: String::new(),
                    },
                    context,
                ));
            }
        }
    }
    // Impression first (a stable sort keeps the report's order within each); only the
    // findings kept are ranked.
    found.sort_by_key(|(key, ..)| *key);
    let more = found.len().saturating_sub(MAX_FINDINGS);
    let groups = found
        .into_iter()
        .take(MAX_FINDINGS)
        .map(|(_, mut g, context)| {
            g.systems = rank(knowledge, query, &context, report_wide);
            g.read = context;
            g
        })
        .collect();
    (groups, more)
}

/// The sentence's range without the spaces, list numbers and punctuation around it.
fn trimmed(chars: &[char], from: usize, to: usize) -> (usize, usize) {
    let mut s = from;
    let mut e = to;
    while s < e && !chars[s].is_alphanumeric() {
        s += 1;
    }
    // A list number ("1. ") is not part of the finding.
    let digits = (s..e).take_while(|&i| chars[i].is_ascii_digit()).count();
    if digits > 0 && chars.get(s + digits) == Some(&'.') {
        s += digits + 1;
        while s < e && !chars[s].is_alphanumeric() {
            s += 1;
        }
    }
    while e > s && !chars[e - 1].is_alphanumeric() && chars[e - 1] != ')' {
        e -= 1;
    }
    (s, e)
}

/// The systems of one finding: its own words read, with the report's modalities when it names
/// none and the report-wide cues that name no organ.
fn rank(
    knowledge: &Knowledge,
    query: &ContextQuery,
    text: &str,
    report: &Finding,
) -> Vec<Selected> {
    let mut finding = read_finding(knowledge, text);
    if finding.modalities.is_empty() {
        finding.modalities = report.modalities.clone();
    }
    for cue in knowledge.cues.iter().filter(|c| c.organ.is_none()) {
        if report.cues.contains(&cue.name) && !finding.cues.contains(&cue.name) {
            finding.cues.push(cue.name);
        }
    }
    finding.read = text.to_string();
    let unit = ContextQuery {
        text: text.to_string(),
        systems: Vec::new(),
        organ: query.organ.clone(),
        limit: SYSTEMS_PER_FINDING,
        format: query.format,
        verified: query.verified,
    };
    // The whole report was searched with its typo walks; a finding's own words match exactly.
    let hits = search::search_exact(text, knowledge.ranking.finding_search_hits);
    score_hits(knowledge, &unit, &finding, &hits).0
}
