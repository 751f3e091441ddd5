//! The sections of a report: the headings it writes ("CLINICAL HISTORY:", "TECHNIQUE:",
//! "FINDINGS:", "IMPRESSION:"), known by the corpus's lexicon, each section running to the next
//! heading. A one-line finding has no heading and is one section of no kind.
//!
//! Grounding reads the technique and comparison sections for their modality only: "delayed
//! images through the kidneys" describes the examination, not the kidneys.

use crate::corpus::text;
use crate::corpus::text::Word;
use crate::knowledge::{Lexicon, SectionKind};
use serde::Serialize;
use std::borrow::Cow;

/// A section of the text: its kind (none before the first heading) and `[start, end)` in
/// characters, heading included.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub kind: Option<SectionKind>,
    pub span: [usize; 2],
}

/// The kind of section a line opens, when it starts with a heading and a colon.
pub fn heading(lexicon: &Lexicon, line: &str) -> Option<SectionKind> {
    let (label, _) = line.split_once(':')?;
    let words = text::joined(label);
    if words.is_empty() {
        return None;
    }
    lexicon
        .sections
        .iter()
        .find(|s| s.phrases.contains(&words.as_str()))
        .map(|s| s.kind)
}

/// Whether a line is a heading of its own ("KIDNEYS:", "Lungs and airways:"): up to four
/// words (`words`, the line's folded words) ending in a colon. Its words name what the lines
/// below it report on.
pub fn bare_heading(line: &str, words: &[Word]) -> bool {
    !words.is_empty() && words.len() <= 4 && line.trim_end().ends_with(':')
}

/// Whether a section is one paragraph: the history, the sections that describe the
/// examination (technique, comparison) and the communication of results.
fn is_one_paragraph(kind: SectionKind) -> bool {
    matches!(kind, SectionKind::History | SectionKind::Communication)
        || kind.describes_the_examination()
}

/// The sections of a text, in order; every character belongs to one.
///
/// The history and the sections that describe the examination (technique, comparison) are
/// one paragraph each: a paragraph after one that opens with no heading of the lexicon
/// ("Comparison: None.", a blank line, "Coronary Arteries", ...; "Clinical: fell on the
/// wrist.", a blank line, "WRIST:") reports findings.
pub fn sections(lexicon: &Lexicon, text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut at = 0;
    let mut current = Section {
        kind: None,
        span: [0, 0],
    };
    // The examination's paragraph has had content, and then a blank line.
    let (mut content, mut ended) = (false, false);
    for line in text.split_inclusive('\n') {
        let len = line.chars().count();
        let blank = line.trim().is_empty();
        let opens = heading(lexicon, line).map(Some).or_else(|| {
            let one_paragraph = current.kind.is_some_and(is_one_paragraph);
            (one_paragraph && ended && !blank).then_some(Some(SectionKind::Findings))
        });
        if let Some(kind) = opens {
            if at > current.span[0] {
                current.span[1] = at;
                out.push(current);
            }
            current = Section {
                kind,
                span: [at, at],
            };
            ended = false;
            // The heading line's own text is the section's first content.
            content = line
                .split_once(':')
                .is_some_and(|(_, rest)| !rest.trim().is_empty());
        } else if blank {
            ended = content;
        } else {
            content = true;
        }
        at += len;
    }
    current.span[1] = at;
    if at > current.span[0] || out.is_empty() {
        out.push(current);
    }
    out
}

/// What a report says of its examination.
pub struct Examination<'t> {
    /// The text without the sections that describe the examination (blanked, so every offset
    /// stays where it was; the text itself when it has none).
    pub patient: Cow<'t, str>,
    /// The character ranges of those sections (technique, comparison).
    pub ranges: Vec<[usize; 2]>,
    /// The examination is one without contrast: its title (what precedes the report's first
    /// heading) or a technique section states one (the lexicon's `unenhanced_phrases`:
    /// "without contrast", "non-contrast") and neither states a contrast phase
    /// (`contrast_phrases`: "with and without", "portal venous"). A text without headings
    /// states no examination of its own, and a comparison section describes earlier ones.
    pub unenhanced: bool,
}

/// [`Examination`] of `text` (as read: its ruled-out words blanked, every offset kept), whose
/// words as written, with their offsets, are `words` (what is blanked for reading, "WITHOUT
/// CONTRAST", is what says how the examination was made).
pub fn examination<'t>(lexicon: &Lexicon, text: &'t str, words: &[text::Span]) -> Examination<'t> {
    let sections = sections(lexicon, text);
    let ranges: Vec<[usize; 2]> = sections
        .iter()
        .filter(|s| s.kind.is_some_and(SectionKind::describes_the_examination))
        .map(|s| s.span)
        .collect();
    let describing: Vec<Word> = sections
        .iter()
        .enumerate()
        .filter(|&(i, s)| match s.kind {
            None => i == 0 && sections.len() > 1,
            Some(kind) => kind == SectionKind::Technique,
        })
        .flat_map(|(_, s)| text::within(words, s.span[0], s.span[1]))
        .map(|w| w.text.clone())
        .collect();
    let said = super::Said::new(describing);
    let unenhanced = lexicon.unenhanced_phrases.iter().any(|p| said.has(p))
        && !lexicon.contrast_phrases.iter().any(|p| said.has(p));
    let patient = if ranges.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text::blanked(text, &ranges))
    };
    Examination {
        patient,
        ranges,
        unenhanced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::LEXICON;

    const REPORT: &str = "CT ABDOMEN\n\nCLINICAL HISTORY: Trauma.\nTECHNIQUE: Delayed images through the kidneys.\nCOMPARISON: None.\nFINDINGS:\nSpleen: laceration.\nIMPRESSION: Splenic laceration.\n";

    #[test]
    fn headings_open_sections_of_their_kind() {
        let kinds: Vec<Option<SectionKind>> =
            sections(&LEXICON, REPORT).iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                None,
                Some(SectionKind::History),
                Some(SectionKind::Technique),
                Some(SectionKind::Comparison),
                Some(SectionKind::Findings),
                Some(SectionKind::Impression)
            ]
        );
        // Every character belongs to one section.
        let spans: Vec<[usize; 2]> = sections(&LEXICON, REPORT).iter().map(|s| s.span).collect();
        assert_eq!(spans[0][0], 0);
        assert!(spans.windows(2).all(|w| w[0][1] == w[1][0]));
        assert_eq!(spans.last().unwrap()[1], REPORT.chars().count());
        // A paragraph after the examination's without a heading reports findings.
        let text = "CCTA\n\nComparison: None.\n\nCoronary Arteries\nLAD: plaque.\nImpression: CAD.";
        let kinds: Vec<Option<SectionKind>> =
            sections(&LEXICON, text).iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                None,
                Some(SectionKind::Comparison),
                Some(SectionKind::Findings),
                Some(SectionKind::Impression)
            ]
        );
        // A heading on a line of its own takes the paragraph below it.
        let text = "HISTORY:\n\n60M smoker.\n\nFINDINGS: nodule.";
        let kinds: Vec<Option<SectionKind>> =
            sections(&LEXICON, text).iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [Some(SectionKind::History), Some(SectionKind::Findings)]
        );
        // So does one after the history ("Clinical:" is a history heading).
        let text = "XR WRIST\n\nClinical: fell.\n\nWRIST:\nDistal radial fracture.\n\n\
                    IMPRESSION:\n1. Fracture.\n";
        let kinds: Vec<Option<SectionKind>> =
            sections(&LEXICON, text).iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                None,
                Some(SectionKind::History),
                Some(SectionKind::Findings),
                Some(SectionKind::Impression)
            ]
        );
        // The communication of results is a section of its own, one paragraph long.
        let text = "FINDINGS:\nLiver: 11 mm lesion.\nIMPRESSION:\n1. New liver lesion.\n\n\
                    COMMUNICATION: The new liver lesion was discussed with Dr A.\n\n\
                    Critical result notification: called at 10:15.\n";
        let kinds: Vec<Option<SectionKind>> =
            sections(&LEXICON, text).iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                Some(SectionKind::Findings),
                Some(SectionKind::Impression),
                Some(SectionKind::Communication),
                Some(SectionKind::Communication)
            ]
        );
        // An organ label is not a heading; a one-line finding is one section of no kind.
        assert_eq!(sections(&LEXICON, "Liver: 2 cm lesion").len(), 1);
        assert_eq!(sections(&LEXICON, "Liver: 2 cm lesion")[0].kind, None);
    }

    /// Whether `text`'s examination is one without contrast.
    fn unenhanced(text: &str) -> bool {
        examination(&LEXICON, text, &text::spans(text)).unenhanced
    }

    #[test]
    fn an_examination_without_contrast_is_read_from_its_title_or_technique_only() {
        let findings = "\nFINDINGS:\nAdrenals: 1.4 cm left adrenal nodule measuring 8 HU.\n";
        assert!(unenhanced(&format!(
            "CT CHEST WITHOUT CONTRAST\n{findings}"
        )));
        assert!(unenhanced(&format!(
            "CT CHEST\nTECHNIQUE: Non-contrast CT of the chest.\n{findings}"
        )));
        // A contrast phase in the title or the technique: the attenuation may be of it.
        assert!(!unenhanced(&format!(
            "CT ABDOMEN WITHOUT AND WITH CONTRAST\n{findings}"
        )));
        assert!(!unenhanced(&format!(
            "CT ABDOMEN WITHOUT CONTRAST\nTECHNIQUE: Portal venous phase images were also \
             obtained.\n{findings}"
        )));
        assert!(!unenhanced(&format!("CT CHEST WITH CONTRAST\n{findings}")));
        // Extravasation is of contrast given: a title paragraph that reports one "without
        // contrast extravasation" describes an examination with contrast.
        assert!(!unenhanced(&format!(
            "CT ABDOMEN\nSplenic laceration without contrast extravasation.\n{findings}"
        )));
        // A comparison describes an earlier examination; a finding's own words are its own;
        // a text without headings states no examination.
        assert!(!unenhanced(&format!(
            "CT CHEST\nCOMPARISON: CT chest without contrast, 2024.\n{findings}"
        )));
        assert!(!unenhanced(
            "CT CHEST\nFINDINGS:\nSplenic laceration without contrast extravasation.\n"
        ));
        assert!(!unenhanced(
            "CT chest without contrast: 1.4 cm left adrenal nodule measuring 8 HU."
        ));
    }

    #[test]
    fn the_examination_is_not_read_as_the_patient() {
        let Examination {
            patient: read,
            ranges,
            ..
        } = examination(&LEXICON, REPORT, &[]);
        assert!(!read.contains("kidneys"));
        assert!(read.contains("Spleen: laceration"));
        assert_eq!(read.chars().count(), REPORT.chars().count());
        // The ranges blanked are the technique and comparison sections, each from its heading.
        let blanked: Vec<String> = ranges
            .iter()
            .map(|r| REPORT.chars().skip(r[0]).take(r[1] - r[0]).collect())
            .collect();
        assert_eq!(
            blanked,
            [
                "TECHNIQUE: Delayed images through the kidneys.\n",
                "COMPARISON: None.\n"
            ]
        );
        assert!(matches!(
            examination(&LEXICON, "8 mm nodule", &[]),
            Examination { patient: Cow::Borrowed(_), ranges, .. } if ranges.is_empty()
        ));
    }
}
