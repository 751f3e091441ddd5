//! A report's findings: the sentences of its findings and impression sections (or of a text
//! without sections) that report on something a guideline could govern, each ranked on its
//! own, with the report-wide setting (its modalities, the cues that name no organ: screening,
//! incidental, trauma, lymphoma...) applied to every one.
//!
//! A sentence is a finding when what it asserts (ruled-out words already blanked) names an
//! organ or a measured noun ("nodule", "cyst", "laceration"), or names a system ("MCTSI 4"); a line's label ("Spleen:") and the
//! heading line above it ("KIDNEYS:") belong to its sentences. Impression findings come first,
//! as the report's own summary of what matters; then the others in the report's order.

use super::assertion::RuledOut;
use super::report::{self, Section};
use super::{read_said, score_hits, ContextQuery, Finding, Said, Selected};
use crate::corpus::text;
use crate::corpus::text::Word;
use crate::knowledge::{Category, Knowledge, SectionKind};
use crate::search;
use serde::Serialize;

/// Most findings grounded per text: each is a ranking of its own, so the work stays bounded
/// whatever the report's length (at 40, the longest bench report came to the Workers free
/// plan's 10 ms of CPU; see README, Performance). Past it, the impression's findings are kept
/// first, then the findings section's measured findings ([`measured`]), then its other
/// findings, each in the text's order; the rest are counted in the answer, not grounded.
pub const MAX_FINDINGS: usize = 30;
/// Systems listed per finding.
pub const SYSTEMS_PER_FINDING: usize = 3;
/// Most ruled-out findings listed per text (they are not ranked; a normal report negates an
/// organ a line). Past it they are counted.
pub const MAX_RULED_OUT_FINDINGS: usize = 48;

/// What a report asserts about a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Assertion {
    Present,
    /// Hedged ("probable", "cannot be excluded").
    Possible,
    /// Negated ("no pulmonary nodules"), asked about ("to evaluate for"), or about a relative.
    Absent,
    /// In the past ("has resolved", "prior", "status post").
    Historical,
}

impl Assertion {
    /// The assertion of a finding the text rules out by a trigger of `category`.
    fn ruled_out(category: Category) -> Assertion {
        match category {
            Category::Historical => Assertion::Historical,
            Category::Possible => Assertion::Possible,
            Category::Negated | Category::Hypothetical | Category::Family => Assertion::Absent,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Assertion::Present => "present",
            Assertion::Possible => "possible",
            Assertion::Absent => "absent",
            Assertion::Historical => "historical",
        }
    }

    /// Whether the finding is read for systems (present or possible).
    pub fn grounded(self) -> bool {
        matches!(self, Assertion::Present | Assertion::Possible)
    }
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
    /// The trigger that made it possible, absent or historical, with the phrase it ruled.
    pub trigger: Option<RuledOut>,
    pub systems: Vec<Selected>,
    /// The not-current entries its ranking left out (with `verified`).
    pub withheld: Vec<super::Withheld>,
    /// The words it was ranked on: its sentence, with its line's label and heading.
    pub read: String,
    /// Where those words are in the text: the heading line, the label and the sentence, as
    /// `[start, end)` character ranges.
    pub pieces: Vec<[usize; 2]>,
}

impl Group {
    /// The words of the finding as grounding read them, each with its offsets in the submitted
    /// text: those of its pieces among `read`, the words of the text as read (ruled-out words
    /// blanked), cut once.
    pub fn words(&self, read: &[text::Span]) -> Vec<text::Span> {
        self.pieces
            .iter()
            .flat_map(|&[from, to]| text::within(read, from, to))
            .cloned()
            .collect()
    }
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

/// How many words after a size a part word (`lexicon.json`'s `part_words`) may stand.
const PART_REACH: usize = 3;

/// The clauses of a sentence `[from, to)` that report findings of their own: a sentence is cut
/// at a joining word of the lexicon ("and") that follows a size and is followed by one ("Stable
/// 3 cm adrenal lesion and 2 cm renal angiomyolipoma"), so each finding is grounded alone; "a
/// 2 cm cyst with a 5 mm mural nodule" stays one finding, and so does "a 3 cm cystic mass with
/// thin septa and a 5 mm enhancing mural nodule" (a part word after the size). Each clause comes with its words,
/// cut once with the sentence's (a clause starts and ends at a word).
fn clauses(
    knowledge: &Knowledge,
    words: &[text::Span],
    from: usize,
    to: usize,
) -> Vec<(usize, usize, Vec<Word>)> {
    let joins = |w: &text::Span| knowledge.lexicon.finding_joins.contains(&w.text.as_str());
    let folded: Vec<Word> = words.iter().map(|w| w.text.clone()).collect();
    if !words.iter().any(joins) {
        return vec![(from, to, folded)];
    }
    let (sizes, _) = super::prefill::sizes_and_age(knowledge.lexicon, &folded);
    // Each clause's character range and the range of its words (the joining word between two
    // clauses belongs to neither).
    let mut cuts: Vec<(usize, usize, usize, usize)> = Vec::new();
    let (mut start, mut since) = (from, 0);
    for (k, w) in words.iter().enumerate() {
        if !joins(w) {
            continue;
        }
        let before = sizes.iter().any(|z| z.at >= since && z.end <= k);
        // The next size starts the clause, after an article at most, unless what it measures
        // is a part of the lesion before it (a part word within the next few words: "and a 5
        // mm enhancing mural nodule").
        let part = |end: usize| {
            folded[end..(end + PART_REACH).min(folded.len())]
                .iter()
                .any(|w| knowledge.lexicon.part_words.contains(&w.as_str()))
        };
        let after = sizes
            .iter()
            .find(|z| z.at > k)
            .is_some_and(|z| z.at <= k + 2 && !part(z.end));
        if before && after && k + 1 < words.len() {
            cuts.push((start, words[k].start, since, k));
            start = words[k + 1].start;
            since = k + 1;
        }
    }
    cuts.push((start, to, since, words.len()));
    cuts.into_iter()
        .map(|(s, e, first, past)| (s, e, folded[first..past].to_vec()))
        .collect()
}

/// The label of a line ("Spleen:" of "Spleen: 3 cm laceration"): up to four words before a
/// colon at its start, as a character range; a section heading is not one.
fn label(chars: &[char], words: &[text::Span], from: usize, to: usize) -> Option<(usize, usize)> {
    let colon = (from..to).find(|&i| chars[i] == ':')?;
    let words = text::within(words, from, colon).len();
    (words > 0 && words <= 4).then_some((from, colon + 1))
}

/// The folded words of [`text::within`].
fn words_within(words: &[text::Span], from: usize, to: usize) -> Vec<Word> {
    text::within(words, from, to)
        .iter()
        .map(|w| w.text.clone())
        .collect()
}

/// A report's words cut once, with their character offsets: the submitted text's and those of
/// the text as grounding reads it (ruled-out words and the examination's sections blanked).
pub struct Cut<'w> {
    pub original: &'w [text::Span],
    pub read: &'w [text::Span],
}

/// Where a line's body starts: after its label, if it has one.
fn body_from_of(label: Option<(usize, usize)>, from: usize) -> usize {
    label.map_or(from, |(_, t)| t)
}

/// Whether folded words report a finding a guideline may govern: a measured noun ("nodule",
/// "cyst", "laceration") or a finding word of the lexicon ("calcification",
/// "spondylosis", a system's name); not a recommendation ("Recommend follow-up CT ..."). An
/// organ alone is not a finding ("the hepatic veins are patent", "atelectasis at both lung
/// bases"), nor is a size alone ("Spleen: normal in size, 10 cm"), nor a part of the anatomy
/// without a size (`structure_nouns`: "Normal signal and calibre of the duct").
fn reports_on(knowledge: &Knowledge, words: &[Word]) -> bool {
    let lexicon = knowledge.lexicon;
    if words
        .first()
        .is_some_and(|w| lexicon.recommendation_words.contains(&w.as_str()))
    {
        return false;
    }
    // A lesion reports itself; a part of the anatomy only with a number beside it ("The
    // common bile duct measures 4 mm"; not "Normal calibre of the duct").
    let measured = words.iter().filter_map(|w| lexicon.measured(w));
    for noun in measured {
        if !lexicon.structure_nouns.contains(&noun) || has_number(words) {
            return true;
        }
    }
    lexicon.index().finding_words.any(words)
}

/// Whether folded words measure what they report: a measured noun, a lesion ("nodule",
/// "cyst", "polyp") or a part of the anatomy ("aorta", "duct"), and a number.
fn measured(knowledge: &Knowledge, words: &[Word]) -> bool {
    words
        .iter()
        .any(|w| knowledge.lexicon.measured(w).is_some())
        && has_number(words)
}

/// Whether one of the words is a number ("2.4", "5th").
fn has_number(words: &[Word]) -> bool {
    words
        .iter()
        .any(|w| w.starts_with(|c: char| c.is_ascii_digit()))
}

/// Whether folded words name an organ or a finding: what a ruled-out sentence must have named
/// to be listed as a finding the text rules out ("Thyroid: unremarkable").
fn names_something(knowledge: &Knowledge, words: &[Word]) -> bool {
    reports_on(knowledge, words) || knowledge.lexicon.index().organs.any(words)
}

/// The findings of a text (`read` is the text as grounding reads it: ruled-out words and the
/// examination's sections blanked, offsets unchanged): the present and possible ones
/// (impression first, at most [`MAX_FINDINGS`], each ranked), then the ones the text rules
/// out (in the text's order, at most [`MAX_RULED_OUT_FINDINGS`], with no system); how many
/// more there were of either; whether the text has section headings; and the character spans
/// of its clinical history sections.
pub fn findings(
    knowledge: &Knowledge,
    query: &ContextQuery,
    read: &str,
    cut: Cut,
    report_wide: &Finding,
    hedged: &[RuledOut],
    ruled: &[RuledOut],
) -> (Vec<Group>, usize, bool, Vec<[usize; 2]>) {
    let original = Chars::new(&query.text);
    // The organs the text names as written in `[from, to)`, ruled out or not: what a line's
    // label or sentence says the line is about.
    let organs_written = |from: usize, to: usize| {
        let said = Said::new(words_within(cut.original, from, to));
        super::stated_organs(knowledge.lexicon, said.words(), |p| said.count(p))
    };
    let chars = Chars::new(read);
    let mut found: Vec<Found> = Vec::new();
    let mut out_of_it: Vec<Group> = Vec::new();
    let sections = report::sections(knowledge.lexicon, &query.text);
    let headed = sections.iter().any(|s| s.kind.is_some());
    let history: Vec<[usize; 2]> = sections
        .iter()
        .filter(|s| s.kind == Some(SectionKind::History))
        .map(|s| s.span)
        .collect();
    // The examination's title ("ULTRASOUND THYROID", the lines before the first heading of a
    // report with headings) names the organ of the findings that name none ("Nodule 1: right
    // lobe, 1.8 cm").
    let title = match &sections[..] {
        [title, _, ..] if title.kind.is_none() => {
            Said::new(words_within(cut.read, title.span[0], title.span[1]))
        }
        _ => Said::new(Vec::new()),
    };
    let exam = Exam {
        organs: super::stated_organs(knowledge.lexicon, title.words(), |p| title.count(p)),
        modalities: super::stated_modalities(knowledge.lexicon, &title),
        title,
    };
    // A report that writes a findings or impression section reports there: the lines above its
    // first heading are the examination's title and the reason for it ("f/u GB polyp").
    let reports_below = sections.iter().any(|s| {
        matches!(
            s.kind,
            Some(SectionKind::Findings | SectionKind::Impression)
        )
    });
    for Section { kind, span } in sections {
        if kind.is_some_and(|k| k != SectionKind::Findings && k != SectionKind::Impression) {
            continue;
        }
        if kind.is_none() && span[0] == 0 && reports_below {
            continue;
        }
        // The bare heading line above ("LUNGS:"): its folded words joined, its range, and
        // those words.
        let mut heading: Option<(String, [usize; 2], Vec<Word>)> = None;
        let mut at = span[0];
        let section_text = chars.slice(span[0], span[1]);
        for line in section_text.split_inclusive('\n') {
            let (from, to) = (at, at + line.chars().count());
            at = to;
            // The line as written decides whether it is blank, a heading or labelled: a line
            // whose every word is ruled out ("Lungs: no nodules") is still a line.
            let written = original.slice(from, to);
            let written_words = words_within(cut.original, from, to);
            if written_words.is_empty() {
                heading = None;
                continue;
            }
            if report::bare_heading(written, &written_words) {
                // A section's own heading ("FINDINGS:") names no organ for the lines below.
                heading = report::heading(knowledge.lexicon, written)
                    .is_none()
                    .then(|| {
                        let words = words_within(cut.read, from, to);
                        (words.join(" "), [from, to], words)
                    });
                continue;
            }
            let label = label(&original, cut.original, from, to);
            let label_text = label.map_or("", |(f, t)| chars.slice(f, t));
            let label_words = label.map_or(Vec::new(), |(f, t)| words_within(cut.read, f, t));
            // The organs the line's last sentence that named one is about: a prose line goes on
            // about them ("The pancreas shows several cysts. The dominant one measures 2.9 cm").
            // It starts with the organs its label names as written: a label read as ruled out
            // ("Thyroid: Normal size. 2.1 cm solid nodule.") still says what the rest of its
            // line is about.
            let mut topic: Vec<&'static str> = Vec::new();
            if label.is_some() {
                topic = organs_written(from, body_from_of(label, from));
                // A line labelled with an organ of its own ("AIRWAYS:", "UPPER ABDOMEN:") ends
                // the block a bare heading above it opened ("LUNGS:"); "Nodule 1:" stays under
                // it.
                if !topic.is_empty() {
                    heading = None;
                }
            }
            let body_from = body_from_of(label, from);
            let mut pieces: Vec<[usize; 2]> = heading.iter().map(|h| h.1).collect();
            pieces.extend(label.map(|(f, t)| [f, t]));
            // The finding this line opened, by its place in `found`.
            let mut line_finding: Option<usize> = None;
            let pieces_of_line: Vec<_> = sentences(&chars, body_from, to)
                .into_iter()
                .flat_map(|(s, e)| clauses(knowledge, text::within(cut.read, s, e), s, e))
                .collect();
            let last_piece = pieces_of_line.len().saturating_sub(1);
            for (n, (s, e, sentence_words)) in pieces_of_line.into_iter().enumerate() {
                let sentence = chars.slice(s, e);
                // What the sentence still asserts, with its line's label: "Nodule 1: right
                // lobe, 1.8 cm, solid" reports on the nodule its label names. (The words of
                // two texts joined by a space are the words of each, in turn.)
                let own: Vec<Word> = label_words.iter().chain(&sentence_words).cloned().collect();
                // A sentence whose every word is ruled out asserts nothing, whatever its label.
                let asserts = sentence_words
                    .iter()
                    .any(|w| !knowledge.assertions.fillers.contains(&w.as_str()));
                // A clause that only names a system and its category ("MCTSI 4", "LR-5",
                // "Bosniak IIF") reports the finding that system graded.
                let reports = reports_on(knowledge, &own)
                    || (asserts
                        && !super::naming::named_systems_in(sentence, &sentence_words).is_empty());
                if !asserts || !reports {
                    // A prose line goes on about the organ a sentence named even when the
                    // sentence is ruled out ("Liver is normal in size. Two subcentimetre
                    // hypodensities in the right lobe"); not in the impression, whose numbered
                    // lines sum up several organs each ("No cervical spine fracture. Chronic
                    // small vessel disease."). The line's last sentence has none after it.
                    if n < last_piece && kind != Some(SectionKind::Impression) {
                        let named = organs_written(s, e);
                        if !named.is_empty() {
                            topic = named;
                        }
                    }
                    // A sentence whose ruled-out words named an organ or a finding is a
                    // finding the text rules out ("Lungs: no nodules"); the line's label is
                    // part of its first sentence.
                    let first = if n == 0 {
                        label.map_or(s, |(f, _)| f)
                    } else {
                        s
                    };
                    let (from_here, _) = trimmed(&original, first, e);
                    let (_, trim_to) = trimmed(&original, s, e);
                    // The phrases are in text order and do not overlap, so those that meet the
                    // sentence are a run, found by halving.
                    let first_meeting = ruled.partition_point(|r| r.span[1] <= from_here);
                    let rules: Vec<&RuledOut> = ruled[first_meeting..]
                        .iter()
                        .take_while(|r| r.span[0] < trim_to)
                        .collect();
                    // A phrase's words are the submitted text's in its span.
                    let words_of = |r: &RuledOut| words_within(cut.original, r.span[0], r.span[1]);
                    let said: Vec<Word> = rules.iter().flat_map(|r| words_of(r)).collect();
                    let rule = rules
                        .iter()
                        .find(|r| names_something(knowledge, &words_of(r)))
                        .or(rules.first());
                    if let (true, Some(rule)) = (names_something(knowledge, &said), rule) {
                        out_of_it.push(Group {
                            text: original.slice(from_here, trim_to).to_string(),
                            span: [from_here, trim_to],
                            section: kind,
                            assertion: Assertion::ruled_out(rule.assertion),
                            trigger: Some((*rule).clone()),
                            systems: Vec::new(),
                            withheld: Vec::new(),
                            read: String::new(),
                            pieces: Vec::new(),
                        });
                    }
                    continue;
                }
                let (trim_from, trim_to) = trimmed(&original, s, e);
                if trim_from >= trim_to {
                    continue;
                }
                // A later sentence of a labelled line that reports only through the label
                // ("Observation 1: segment 8, 2.3 cm. Nonrim APHE and washout.") goes on
                // describing the line's finding: it joins it instead of standing alone.
                if let Some(at) = line_finding
                    .filter(|_| n > 0 && label.is_some() && !reports_on(knowledge, &sentence_words))
                {
                    let Found {
                        group,
                        context,
                        words,
                        ..
                    } = &mut found[at];
                    group.span[1] = trim_to;
                    group.text = original.slice(group.span[0], trim_to).to_string();
                    group.pieces.push([s, e]);
                    context.push(' ');
                    context.push_str(sentence);
                    words.extend(sentence_words.iter().cloned());
                    continue;
                }
                let mut context = format!(
                    "{} {label_text} {sentence}",
                    heading.as_ref().map(|h| h.0.as_str()).unwrap_or_default()
                );
                // Its words are the words of each part in turn, as cut already.
                let words: Vec<Word> = heading
                    .iter()
                    .flat_map(|h| &h.2)
                    .chain(&label_words)
                    .chain(&sentence_words)
                    .cloned()
                    .collect();
                let said = Said::new(words);
                let organs =
                    super::stated_organs(knowledge.lexicon, said.words(), |p| said.count(p));
                let mut words = said.into_words();
                if organs.is_empty() {
                    let topic = topic.join(" ");
                    context = format!("{topic} {context}");
                    words.splice(0..0, text::words(&topic));
                } else {
                    topic = organs;
                }
                let hedge = hedged
                    .iter()
                    .find(|h| h.span[0] < trim_to && h.span[1] > trim_from)
                    .cloned();
                let mut pieces = pieces.clone();
                pieces.push([s, e]);
                let rank_key = if kind == Some(SectionKind::Impression) {
                    0
                } else {
                    1
                };
                found.push(Found {
                    key: rank_key,
                    group: Group {
                        text: original.slice(trim_from, trim_to).to_string(),
                        span: [trim_from, trim_to],
                        section: kind,
                        assertion: if hedge.is_some() {
                            Assertion::Possible
                        } else {
                            Assertion::Present
                        },
                        trigger: hedge,
                        systems: Vec::new(),
                        withheld: Vec::new(),
                        read: String::new(),
                        pieces,
                    },
                    context,
                    words,
                });
                line_finding = Some(found.len() - 1);
            }
        }
    }
    restate(knowledge, &mut found);
    // Impression first (a stable sort keeps the report's order within each); only the
    // findings kept are ranked.
    found.sort_by_key(|f| f.key);
    let more = found.len().saturating_sub(MAX_FINDINGS)
        + out_of_it.len().saturating_sub(MAX_RULED_OUT_FINDINGS);
    // Past the most ranked, a measured finding of the findings section ("a 2.4 cm left
    // adrenal nodule", "the aorta measures 2.7 cm") comes before its other findings, which a
    // guideline governs less often ("mild bronchial wall thickening"); those kept stay in the
    // order above.
    if found.len() > MAX_FINDINGS {
        let mut order: Vec<(usize, usize)> = found
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let rank = if f.key == 0 {
                    0
                } else if measured(knowledge, &f.words) {
                    1
                } else {
                    2
                };
                (rank, i)
            })
            .collect();
        order.sort_unstable();
        let mut kept: Vec<bool> = vec![false; found.len()];
        for &(_, i) in order.iter().take(MAX_FINDINGS) {
            kept[i] = true;
        }
        let mut kept = kept.into_iter();
        found.retain(|_| kept.next() == Some(true));
    }
    // At most the most ranked are left (the choice above).
    let groups = found
        .into_iter()
        .map(|f| {
            let mut g = f.group;
            (g.systems, g.withheld) =
                rank(knowledge, query, &f.context, f.words, report_wide, &exam);
            g.read = f.context;
            g
        })
        .chain(out_of_it.into_iter().take(MAX_RULED_OUT_FINDINGS))
        .collect();
    (groups, more, headed, history)
}

/// A finding the text reports, before it is ranked: impression first (`key` 0), its group, the
/// text it is ranked on (its sentence with its line's label and heading, and what it borrows)
/// and that text's folded words, kept beside it so that it is cut into words once.
struct Found {
    key: usize,
    group: Group,
    context: String,
    words: Vec<Word>,
}

/// Words two sentences must share for one to restate the other.
const RESTATED_WORDS: usize = 2;

/// An impression sentence that names no organ usually restates a finding of the findings
/// section in fewer words ("Incidental 6 mm lesion of the adenohypophysis" for the sella line):
/// it is ranked with the words of the finding it shares most with (sizes and words of four
/// letters or more, at least [`RESTATED_WORDS`]), so it reaches the same organ. The pairs are
/// bounded by the findings a text holds.
fn restate(knowledge: &Knowledge, found: &mut [Found]) {
    let names_organ = |words: &[Word]| knowledge.lexicon.index().organs.any(words);
    // The impression sentences that name no organ; most reports have few or none, and then no
    // finding's words are gathered.
    let restating: Vec<usize> = (0..found.len())
        .filter(|&i| found[i].key == 0 && !names_organ(&found[i].words))
        .collect();
    if restating.is_empty() {
        return;
    }
    // Each finding's content words (sizes and words of four letters or more), sorted and
    // distinct, so that two findings' shared words are counted in one pass over both.
    let contents: Vec<Vec<&str>> = found
        .iter()
        .map(|f| {
            let mut words: Vec<&str> = f
                .words
                .iter()
                .map(Word::as_str)
                .filter(|w| w.len() >= 4 || w.starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            words.sort_unstable();
            words.dedup();
            words
        })
        .collect();
    let shared = |a: &[&str], b: &[&str]| {
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
    };
    let borrowed: Vec<(usize, usize)> = restating
        .into_iter()
        .filter_map(|i| {
            (0..found.len())
                .filter(|&j| found[j].key != 0)
                .map(|j| (shared(&contents[i], &contents[j]), j))
                .filter(|(shared, _)| *shared >= RESTATED_WORDS)
                .max_by_key(|(shared, j)| (*shared, std::cmp::Reverse(*j)))
                .map(|(_, j)| (i, j))
        })
        .collect();
    for (i, j) in borrowed {
        let (context, words) = (found[j].context.clone(), found[j].words.clone());
        found[i].context.push(' ');
        found[i].context.push_str(&context);
        found[i].words.extend(words);
    }
}

/// A text by characters (a finding's offsets count characters), its pieces borrowed as `&str`:
/// the byte offset of each character is kept only when the text is not ASCII.
struct Chars<'t> {
    text: &'t str,
    chars: Vec<char>,
    bytes: Option<Vec<usize>>,
}

impl<'t> Chars<'t> {
    fn new(text: &'t str) -> Chars<'t> {
        let bytes = (!text.is_ascii()).then(|| {
            text.char_indices()
                .map(|(b, _)| b)
                .chain(std::iter::once(text.len()))
                .collect()
        });
        Chars {
            text,
            chars: text::char_vec(text),
            bytes,
        }
    }

    /// The characters `[from, to)`.
    fn slice(&self, from: usize, to: usize) -> &'t str {
        match &self.bytes {
            None => &self.text[from..to],
            Some(bytes) => &self.text[bytes[from]..bytes[to]],
        }
    }
}

impl std::ops::Deref for Chars<'_> {
    type Target = [char];
    fn deref(&self) -> &[char] {
        &self.chars
    }
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
    // "1. " is a list number; "1.8 cm" is a size.
    let listed = chars.get(s + digits) == Some(&'.')
        && !chars.get(s + digits + 1).is_some_and(char::is_ascii_digit);
    if digits > 0 && listed {
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

/// What the examination's title names: its organs and modalities.
struct Exam {
    organs: Vec<&'static str>,
    modalities: Vec<&'static str>,
    /// The title's words: a cue about an organ fires for a finding about that organ when the
    /// title states its phrase ("ULTRASOUND THYROID" for "Nodule 1: right lobe, 1.8 cm").
    title: Said,
}

/// The systems of one finding: its own words read, with the examination's organs and the
/// report's modalities when it names none, and the cues of the report's setting.
fn rank(
    knowledge: &Knowledge,
    query: &ContextQuery,
    text: &str,
    words: Vec<Word>,
    report: &Finding,
    exam: &Exam,
) -> (Vec<Selected>, Vec<super::Withheld>) {
    // The text was cut into words once (`words`), for its reading and its search.
    let said = Said::new(words);
    let mut finding = read_said(knowledge, text, &said);
    // A system a finding names leads it only when it is about what the finding or the
    // examination is about: in a chest CT's "LLL 6.0 mm solid nodule (LR 2)", "LR 2" is
    // shorthand for Lung-RADS, not LI-RADS; a screening CT's "S modifier: coronary
    // calcification" still names Lung-RADS. A system named elsewhere is ranked on its score.
    if !finding.organs.is_empty() {
        finding.named.retain(|n| {
            let about = crate::corpus::compiled::SYSTEMS[n.index].organs;
            about.is_empty()
                || about
                    .iter()
                    .any(|o| finding.organs.contains(o) || exam.organs.contains(o))
        });
    }
    if finding.organs.is_empty() {
        finding.organs = exam.organs.clone();
    }
    // The examination's own modality, else every modality the report names (its history may
    // name an earlier CT).
    if finding.modalities.is_empty() {
        finding.modalities = if exam.modalities.is_empty() {
            report.modalities.clone()
        } else {
            exam.modalities.clone()
        };
    }
    // The report-wide cues are those of its setting (screening, incidental, trauma, known
    // cancer...): a cue that follows a finding's words ("aneurysm", "lytic") is that finding's.
    super::setting::apply(knowledge, &report.setting, &mut finding);
    // Its settings, for the effects that do not hold under one (`unless_settings`).
    finding.setting.settings = report.setting.settings.clone();
    for cue in knowledge.cues {
        let about =
            cue.organ.is_some_and(|o| finding.organs.contains(&o)) && cue.fits(&finding.modalities);
        if about
            && !finding.cues.contains(&cue.name)
            && cue.phrases.iter().any(|p| exam.title.has(p))
        {
            finding.cues.push(cue.name);
        }
    }
    finding.read = text.to_string();
    let unit = ContextQuery {
        text: text.to_string(),
        systems: Vec::new(),
        organ: query.organ.clone(),
        limit: SYSTEMS_PER_FINDING,
        limit_asked: true,
        format: query.format,
        verified: query.verified,
        detail: query.detail,
        max_tokens: query.max_tokens,
    };
    // A finding's words match exactly (no typo walks), so a report's walks do not grow with its
    // findings.
    let hits = search::rank_finding(said.words(), knowledge.ranking.finding_search_hits);
    let (mut systems, withheld) = score_hits(knowledge, &unit, &finding, &hits);
    let floor = systems.first().map_or(0.0, |s| s.score) * knowledge.ranking.finding_relative_floor;
    let floor = floor.max(knowledge.ranking.finding_min_score);
    systems.retain(|s| s.score >= floor || s.forced || s.named);
    (systems, withheld)
}
