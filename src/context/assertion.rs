//! What a report asserts about the words it writes: present, possible (hedged), or ruled out
//! (negated, historical, hypothetical, about a relative).
//!
//! The model is ConText's (Harkema et al. 2009), and its knowledge is corpus data
//! (`corpus/grounding/assertions.json`): a trigger phrase puts the words of its scope into its
//! category; a forward scope runs after the trigger, a backward one before it, at most
//! `max_scope` words, and both stop at the end of the sentence (or at a spaced dash), at a
//! terminator ("but", "however") or at another trigger, and keep to their side of a
//! parenthesis. A pseudo-trigger ("no change") holds a trigger word but
//! does not act. Where two scopes reach a word, the nearer trigger decides.
//!
//! Reports label their lines ("Lungs: no pulmonary nodules", "Thyroid: unremarkable"): the
//! label takes the assertion of its line when nothing else on the line is asserted present, so
//! "Lungs" is ruled out with the nodules it introduces.
//!
//! Grounding reads only what is present or possible: the ruled-out words are blanked from the
//! text it ranks, and the answer names each ruled-out phrase with its span and its trigger.
//! One pass over the words, with a bounded look at each position: linear in the text.

use crate::corpus::text::{self, Span};
use crate::knowledge::{Assertions, Category, Direction};
use serde::Serialize;
use std::borrow::Cow;

/// A ruled-out phrase of the text: the words one trigger's scope rules out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RuledOut {
    /// The phrase as the text writes it.
    pub text: String,
    /// `[start, end)` character offsets in the submitted text.
    pub span: [usize; 2],
    pub assertion: Category,
    /// The trigger as the text writes it, and its span.
    pub trigger: String,
    pub trigger_span: [usize; 2],
}

/// What one position of a sentence is.
use crate::knowledge::AssertionPhrase as Mark;

/// A phrase found at a word position: what it is and how many words it spans.
#[derive(Clone, Copy, Debug)]
struct Found {
    at: usize,
    len: usize,
    mark: Mark,
}

/// The longest trigger, pseudo-trigger or terminator starting at `i` (a pseudo-trigger wins a
/// tie, since it exists to stop the trigger it contains).
fn longest(model: &'static Assertions, words: &[Span], i: usize, end: usize) -> Option<Found> {
    let fits = |phrase: &[&str]| {
        i + phrase.len() <= end
            && phrase
                .iter()
                .zip(&words[i..])
                .all(|(p, w)| *p == w.text.as_str())
    };
    let mut best: Option<Found> = None;
    // The phrases that start with this word, pseudo-triggers first, then triggers, then
    // terminators, each list in the model's order.
    let starting = model.index().by_first.get(words[i].text.as_str())?;
    for &(mark, phrase) in starting {
        let len = phrase.len();
        if fits(phrase)
            && best.is_none_or(|b| len > b.len || (len == b.len && mark == Mark::Pseudo))
        {
            best = Some(Found { at: i, len, mark });
        }
    }
    best
}

/// Whether the text between two words ends a sentence (or a line), or sets off a part of it
/// with a spaced dash: "CT CHEST WITHOUT CONTRAST - LUNG CANCER SCREENING" rules out the
/// contrast, not the screening. (A dash between words without a space joins them: "low-dose".)
fn breaks(chars: &[char], from: usize, to: usize) -> bool {
    let gap = &chars[from..to];
    gap.iter()
        .any(|c| matches!(c, '.' | ';' | '!' | '?' | '\n'))
        || (gap
            .iter()
            .any(|c| matches!(c, '-' | '\u{2013}' | '\u{2014}'))
            && gap.iter().any(|c| c.is_whitespace()))
}

/// The category each word is asserted with (`None`: present), with the trigger that decided.
struct Assessment {
    /// The text's characters (its offsets count them).
    chars: Vec<char>,
    words: Vec<Span>,
    /// Per word: the category, the trigger's first word and its length, the distance to it.
    marks: Vec<Option<(Category, usize, usize, usize)>>,
}

fn assess(model: &'static Assertions, text: &str) -> Assessment {
    let chars = text::char_vec(text);
    let words = text::spans(text);
    let mut marks: Vec<Option<(Category, usize, usize, usize)>> = vec![None; words.len()];
    let mut start = 0;
    while start < words.len() {
        let mut end = start + 1;
        while end < words.len() && !breaks(&chars, words[end - 1].end, words[end].start) {
            end += 1;
        }
        assess_sentence(model, &chars, &words, start, end, &mut marks);
        start = end;
    }
    back_references(model, &chars, &words, &mut marks);
    label_lines(model, &chars, &words, &mut marks);
    Assessment {
        chars,
        words,
        marks,
    }
}

/// ConText over the words `[start, end)` of one sentence.
fn assess_sentence(
    model: &'static Assertions,
    chars: &[char],
    words: &[Span],
    start: usize,
    end: usize,
    marks: &mut [Option<(Category, usize, usize, usize)>],
) {
    let mut found: Vec<Found> = Vec::new();
    let mut i = start;
    while i < end {
        match longest(model, words, i, end) {
            Some(f) => {
                found.push(f);
                i += f.len;
            }
            None => i += 1,
        }
    }
    let reach = model.max_scope as usize;
    for (n, f) in found.iter().enumerate() {
        let Mark::Trigger(k) = f.mark else { continue };
        let trigger = &model.triggers[k];
        let mut scopes = Vec::new();
        // A scope runs over a trigger of its own category ("the cyst from the prior exam has
        // resolved"): only a terminator, a pseudo-trigger or another category stops it.
        let stops = |g: &Found| match g.mark {
            Mark::Trigger(j) => model.triggers[j].category != trigger.category,
            _ => true,
        };
        // A parenthesis sets an aside apart: a scope does not leave one it starts in ("2.6 cm
        // simple cyst, O-RADS 1 (normal ovary)" rules out only the ovary), nor enter one
        // backwards.
        let gap = |w: usize| &chars[words[w - 1].end..words[w].start];
        if matches!(trigger.direction, Direction::Forward | Direction::Both) {
            let stop = found[n + 1..]
                .iter()
                .find(|g| stops(g))
                .map_or(end, |next| next.at);
            let first = f.at + f.len;
            let stop = stop.min(first + reach);
            // A forward terminator ends the scope of a trigger within a clause, after what it
            // qualifies ("nodule without calcification measuring 9 mm"), not of one that opens
            // its sentence or line ("No lymph nodes measuring more than 1 cm").
            let within = f.at > start && !gap(f.at).contains(&':');
            // A change set off by a comma ("no echogenic foci, increased from 1.1 cm to 1.6
            // cm") ends it wherever the trigger stands: a ruled-out list's items are not changes.
            let forward_end = |w: usize| {
                let word = words[w].text.as_str();
                w > first
                    && (within && model.forward_terminators.contains(&word)
                        || model.comma_terminators.contains(&word) && gap(w).contains(&','))
            };
            let stop = (first..stop).find(|&w| forward_end(w)).unwrap_or(stop);
            let stop = (first..stop)
                .find(|&w| w > first && gap(w).contains(&')'))
                .unwrap_or(stop);
            scopes.push(first..stop);
        }
        if matches!(trigger.direction, Direction::Backward | Direction::Both) {
            let from = found[..n]
                .iter()
                .rev()
                .find(|g| stops(g))
                .map_or(start, |p| p.at + p.len);
            let from = from.max(f.at.saturating_sub(reach));
            let from = (from + 1..=f.at)
                .rev()
                .find(|&w| gap(w).contains(&'('))
                .unwrap_or(from);
            scopes.push(from..f.at);
        }
        for scope in scopes {
            for w in scope {
                let distance = w.abs_diff(f.at);
                let nearer = marks[w].is_none_or(|(_, _, _, d)| distance < d);
                if nearer {
                    marks[w] = Some((trigger.category, f.at, f.len, distance));
                }
            }
        }
    }
    // Trigger, pseudo-trigger and terminator words assert nothing themselves.
    for f in &found {
        for m in marks.iter_mut().skip(f.at).take(f.len) {
            *m = None;
        }
    }
}

/// A back-reference ("the largest") right after a ruled-out word of its line takes that word's
/// assertion, with the rest of its sentence: "No pelvic lymphadenopathy. The largest node is
/// 5 mm" measures the nodes the report calls normal. After a present word it is itself present
/// ("Several enlarged nodes; the largest is 24 mm").
fn back_references(
    model: &'static Assertions,
    chars: &[char],
    words: &[Span],
    marks: &mut [Option<(Category, usize, usize, usize)>],
) {
    let mut w = 1;
    while w < words.len() {
        let refers = model.back_references.iter().find(|p| {
            w + p.len() <= words.len()
                && p.iter()
                    .zip(&words[w..])
                    .all(|(a, b)| *a == b.text.as_str())
        });
        let before = marks[w - 1];
        let same_line = !chars[words[w - 1].end..words[w].start].contains(&'\n');
        match (refers, before) {
            (Some(_), Some(mark)) if marks[w].is_none() && same_line && rules_out(mark.0) => {
                let mut end = w + 1;
                while end < words.len() && !breaks(chars, words[end - 1].end, words[end].start) {
                    end += 1;
                }
                for m in marks.iter_mut().take(end).skip(w) {
                    if m.is_none() {
                        *m = Some(mark);
                    }
                }
                w = end;
            }
            _ => w += 1,
        }
    }
}

/// A line's label ("Lungs:") takes the assertion of its line when no other word of the line,
/// fillers aside, is asserted present.
fn label_lines(
    model: &'static Assertions,
    chars: &[char],
    words: &[Span],
    marks: &mut [Option<(Category, usize, usize, usize)>],
) {
    let mut line_start = 0;
    while line_start < words.len() {
        let mut line_end = line_start + 1;
        while line_end < words.len()
            && !chars[words[line_end - 1].end..words[line_end].start].contains(&'\n')
        {
            line_end += 1;
        }
        // A label: up to four words before a colon at the start of the line.
        let colon = (line_start..line_end.min(line_start + 4))
            .find(|&w| w + 1 < line_end && chars[words[w].end..words[w + 1].start].contains(&':'));
        if let Some(last) = colon {
            let rest = last + 1..line_end;
            let is_trigger_word = |w: usize| {
                model
                    .triggers
                    .iter()
                    .flat_map(|t| t.words.iter())
                    .any(|tw| words[w].text == *tw)
            };
            let present = rest.clone().any(|w| {
                marks[w].is_none()
                    && !model.fillers.contains(&words[w].text.as_str())
                    && !is_trigger_word(w)
            });
            let first_ruled = rest.clone().find_map(|w| marks[w]);
            if let (false, Some(mark)) = (present, first_ruled) {
                for m in marks.iter_mut().take(last + 1).skip(line_start) {
                    if m.is_none() {
                        *m = Some(mark);
                    }
                }
            }
        }
        line_start = line_end;
    }
}

/// Whether a category rules the words out of grounding (a hedge keeps them).
fn rules_out(category: Category) -> bool {
    category != Category::Possible
}

/// The phrases of the words `ws` (in order), consecutive words under one trigger making one
/// phrase.
fn phrases(a: &Assessment, ws: &[usize]) -> Vec<RuledOut> {
    let slice = |from: usize, to: usize| a.chars[from..to].iter().collect::<String>();
    let mut out: Vec<RuledOut> = Vec::new();
    let mut previous: Option<(usize, usize)> = None;
    for &w in ws {
        let Some((category, at, len, _)) = a.marks[w] else {
            continue;
        };
        let trigger_span = [a.words[at].start, a.words[at + len - 1].end];
        match (previous, out.last_mut()) {
            (Some((p, t)), Some(last)) if p + 1 == w && t == at => {
                last.span[1] = a.words[w].end;
            }
            _ => out.push(RuledOut {
                text: String::new(),
                span: [a.words[w].start, a.words[w].end],
                assertion: category,
                trigger: slice(trigger_span[0], trigger_span[1]),
                trigger_span,
            }),
        }
        previous = Some((w, at));
    }
    for r in &mut out {
        r.text = slice(r.span[0], r.span[1]);
    }
    out
}

/// How a text was read: what grounding reads of it, and what it rules out or hedges.
#[derive(Clone, Debug)]
pub struct Reading<'t> {
    /// The text with every ruled-out word (and its trigger) blanked, so every offset stays
    /// where it was; the text itself when nothing is ruled out.
    pub text: Cow<'t, str>,
    /// The ruled-out phrases (negated, historical, hypothetical, family), in text order.
    pub ruled_out: Vec<RuledOut>,
    /// The hedged phrases (possible): read, and marked possible.
    pub hedged: Vec<RuledOut>,
    /// The submitted text's words with their offsets, cut once for its reading: the words of
    /// `text` are those outside the ruled-out phrases and their triggers
    /// ([`Reading::blanked`]).
    pub spans: Vec<Span>,
}

impl Reading<'_> {
    /// The character ranges blanked from `text`: each ruled-out phrase and its trigger.
    pub fn blanked(&self) -> Vec<[usize; 2]> {
        self.ruled_out
            .iter()
            .flat_map(|r| [r.span, r.trigger_span])
            .collect()
    }
}

/// Reads a text: see [`Reading`].
pub fn read<'t>(model: &'static Assertions, text: &'t str) -> Reading<'t> {
    let a = assess(model, text);
    let (out, hedged): (Vec<usize>, Vec<usize>) = (0..a.words.len())
        .filter(|&w| a.marks[w].is_some())
        .partition(|&w| a.marks[w].is_some_and(|(c, ..)| rules_out(c)));
    let hedged = phrases(&a, &hedged);
    if out.is_empty() {
        return Reading {
            text: Cow::Borrowed(text),
            ruled_out: Vec::new(),
            hedged,
            spans: a.words,
        };
    }
    let mut reading = Reading {
        text: Cow::Borrowed(text),
        ruled_out: phrases(&a, &out),
        hedged,
        spans: a.words,
    };
    // A ruled-out phrase is blanked, and its trigger is read no more than it ("no",
    // "unremarkable").
    reading.text = Cow::Owned(text::blanked(text, &reading.blanked()));
    reading
}

/// [`read`]'s text and ruled-out phrases.
pub fn kept<'t>(model: &'static Assertions, text: &'t str) -> (Cow<'t, str>, Vec<RuledOut>) {
    let r = read(model, text);
    (r.text, r.ruled_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::ASSERTIONS;

    /// The words grounding keeps, and each ruled-out phrase as "category: phrase (trigger)".
    fn read(text: &str) -> (Vec<String>, Vec<String>) {
        let (kept, ruled) = kept(&ASSERTIONS, text);
        let words = text::words(&kept).iter().map(|w| w.to_string()).collect();
        let ruled = ruled
            .iter()
            .map(|r| format!("{}: {} ({})", r.assertion.as_str(), r.text, r.trigger))
            .collect();
        (words, ruled)
    }

    fn kept_words(text: &str) -> Vec<String> {
        read(text).0
    }

    #[test]
    fn negation_rules_out_what_follows_up_to_the_end_of_the_sentence() {
        let (words, ruled) = read("No pulmonary nodules. 8 mm solid nodule in the RUL.");
        assert_eq!(ruled, ["negated: pulmonary nodules (No)"]);
        assert_eq!(words, ["8", "mm", "solid", "nodule", "in", "the", "rul"]);
    }

    #[test]
    fn a_vessel_that_is_patent_is_ruled_out_and_a_patent_foramen_ovale_is_not() {
        let (words, ruled) =
            read("The celiac axis, superior mesenteric artery and renal arteries are patent.");
        assert_eq!(
            ruled,
            ["negated: celiac axis, superior mesenteric artery and renal arteries (are patent)"]
        );
        assert_eq!(words, ["the"]);
        let (words, ruled) = read("Small patent foramen ovale.");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert_eq!(words, ["small", "patent", "foramen", "ovale"]);
    }

    #[test]
    fn an_organ_with_a_clear_fat_plane_to_a_finding_is_ruled_out() {
        // The aorta is named to say the haematoma does not reach it.
        let (words, ruled) = read(
            "Non-displaced fracture of the sternum with a thin retrosternal haematoma and a clear fat plane to the aorta.",
        );
        assert_eq!(ruled, ["negated: the aorta (clear fat plane to)"]);
        assert!(words.contains(&"haematoma".to_string()));
        assert!(!words.contains(&"aorta".to_string()));
    }

    #[test]
    fn a_size_compared_with_the_previous_one_is_present() {
        // "previously" puts what follows it in the past, not what came before.
        for text in [
            "Right middle lobe solid nodule, 6 mm, previously 4 mm.",
            "Spleen: enlarged, 15.8 cm craniocaudal (previously 15.4 cm).",
        ] {
            let (words, ruled) = read(text);
            assert!(
                words.contains(&"nodule".to_string()) || words.contains(&"enlarged".to_string()),
                "{text}: {words:?}"
            );
            assert_eq!(ruled.len(), 1, "{text}: {ruled:?}");
            assert!(ruled[0].starts_with("historical: "), "{ruled:?}");
            assert!(
                !ruled[0].contains("nodule") && !ruled[0].contains("enlarged"),
                "{ruled:?}"
            );
        }
        // "now" ends the past: what it says is present.
        let (words, _) = read("Observation 1 (previously LR-4, now LR-5): segment VII, 24 mm.");
        assert!(words.contains(&"24".to_string()), "{words:?}");
        // What "previously" introduces is still the past.
        let (words, ruled) = read("The previously reported 1.1 cm upper pole cyst.");
        assert!(!words.contains(&"cyst".to_string()), "{words:?}: {ruled:?}");
    }

    #[test]
    fn the_largest_of_what_was_ruled_out_is_ruled_out_with_it() {
        let (words, ruled) = read("No pelvic lymphadenopathy. The largest node is 5 mm.");
        assert_eq!(
            ruled,
            ["negated: pelvic lymphadenopathy. The largest node is 5 mm (No)"]
        );
        assert!(words.is_empty(), "{words:?}");
        let (words, _) =
            read("Normal-appearing level II nodes with fatty hila bilaterally, the largest 7 mm.");
        assert!(!words.contains(&"7".to_string()), "{words:?}");
        // After present words, a back-reference is present.
        let (words, ruled) = read("Several enlarged nodes; the largest is 24 mm.");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert!(words.contains(&"24".to_string()), "{words:?}");
        // Only on the line of what it refers to.
        let (words, _) = read("Lymph nodes: none enlarged.\nThe largest node is 24 mm.");
        assert!(words.contains(&"24".to_string()), "{words:?}");
    }

    #[test]
    fn nodes_with_a_fatty_hilum_are_normal_and_normal_looks_back_only() {
        let (words, _) = read("Normal level I axillary nodes bilaterally with fatty hila.");
        assert!(!words.contains(&"nodes".to_string()), "{words:?}");
        let (words, _) = read("The liver is normal.");
        assert!(!words.contains(&"liver".to_string()), "{words:?}");
        // "normal in size" says nothing of what the organ holds.
        let (words, ruled) =
            read("The thyroid is normal in size with a 2 cm nodule in the right lobe.");
        assert!(words.contains(&"nodule".to_string()), "{words:?} {ruled:?}");
    }

    #[test]
    fn a_scope_runs_over_a_trigger_of_its_own_category() {
        let (words, ruled) = read("The 3.2 cm R ovarian cyst from the prior exam has resolved.");
        assert!(!words.contains(&"cyst".to_string()), "{words:?} {ruled:?}");
        // Another category stops it: the hedge keeps the nodule read.
        let (words, _) = read("No change in the probable 6 mm nodule.");
        assert!(words.contains(&"nodule".to_string()), "{words:?}");
    }

    #[test]
    fn a_scope_ends_at_but_however_and_a_new_sentence() {
        assert_eq!(
            kept_words("No adenopathy but a 12 mm adrenal nodule"),
            ["but", "a", "12", "mm", "adrenal", "nodule"]
        );
        assert_eq!(
            kept_words("No ascites; however, the liver is cirrhotic"),
            ["however", "the", "liver", "is", "cirrhotic"]
        );
        assert_eq!(
            kept_words("No polyp.\nGallbladder wall thickening"),
            ["gallbladder", "wall", "thickening"]
        );
    }

    #[test]
    fn a_spaced_dash_ends_a_scope_and_the_technique_is_no_negation() {
        let (words, ruled) = read("CT CHEST WITHOUT CONTRAST - LUNG CANCER SCREENING");
        assert_eq!(ruled, ["negated: CONTRAST (WITHOUT)"]);
        assert!(words.contains(&"screening".to_string()));
        // A hyphen inside a word joins it.
        let (_, ruled) = read("No low-dose artefact");
        assert_eq!(ruled, ["negated: low-dose artefact (No)"]);
        let (words, ruled) = read("CT of the chest without IV contrast, reconstructions in lung");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert!(words.contains(&"lung".to_string()));
    }

    #[test]
    fn a_scope_keeps_to_its_side_of_a_parenthesis() {
        // A backward trigger inside an aside does not reach out of it: the cyst is not what
        // "normal" describes.
        let (words, ruled) = read("2.6 cm simple cyst, O-RADS 1 (normal ovary)");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert!(words.contains(&"cyst".to_string()));
        // A forward one inside it stops where it closes.
        let (words, ruled) = read("Bosniak I cyst (no follow-up), mild emphysema");
        assert_eq!(ruled, ["negated: follow-up (no)"]);
        assert!(words.contains(&"emphysema".to_string()));
        // One outside still reaches into it.
        let (_, ruled) = read("No lymphadenopathy (nodes under 1 cm)");
        assert_eq!(ruled, ["negated: lymphadenopathy (nodes under 1 cm (No)"]);
    }

    #[test]
    fn a_pseudo_trigger_does_not_negate() {
        let (words, ruled) = read("No change in the 6 mm nodule");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert!(words.contains(&"nodule".to_string()));
        let (_, ruled) = read("No interval change of the left adrenal adenoma");
        assert!(ruled.is_empty(), "{ruled:?}");
    }

    #[test]
    fn new_findings_and_denied_histories_read_as_reports_write_them() {
        // "not seen previously" says a finding is new, not absent.
        let (words, ruled) = read("New 8 mm hypoechoic observation, not seen previously.");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert!(words.contains(&"observation".to_string()));
        // "no history of" denies the history; "no suspicious" negates what it qualifies.
        let (_, ruled) = read("No history of cancer. No suspicious cervical lymph nodes.");
        assert_eq!(
            ruled,
            [
                "negated: cancer (No history of)",
                "negated: cervical lymph nodes (No suspicious)"
            ]
        );
    }

    #[test]
    fn backward_triggers_reach_the_words_before_them() {
        let (words, ruled) = read("Thyroid: unremarkable. Gallbladder polyp not seen.");
        assert_eq!(
            ruled,
            [
                "negated: Thyroid (unremarkable)",
                "negated: Gallbladder polyp (not seen)"
            ]
        );
        assert!(words.is_empty(), "{words:?}");
    }

    #[test]
    fn a_line_label_follows_a_line_that_asserts_nothing_present() {
        let (words, ruled) = read("Lungs: no pulmonary nodules, consolidation or effusion.\nAdrenals: there is no adrenal nodule.\nLiver: 6 mm hypodense lesion, no biliary dilatation.");
        assert!(
            ruled.contains(&"negated: Lungs (no)".to_string()),
            "{ruled:?}"
        );
        assert!(
            ruled.contains(&"negated: Adrenals (no)".to_string()),
            "{ruled:?}"
        );
        assert!(!words.contains(&"lungs".to_string()) && !words.contains(&"adrenals".to_string()));
        // The liver line asserts a lesion: its label stays.
        assert!(words.contains(&"liver".to_string()) && words.contains(&"lesion".to_string()));
        assert!(!words.contains(&"biliary".to_string()));
    }

    /// A measurement verb ends the forward scope of a trigger within a clause, so the size
    /// after it measures the finding; not the scope of a trigger that opens its sentence or
    /// line, nor a scope that reaches back over it.
    #[test]
    fn a_measurement_verb_ends_a_negation_within_a_clause() {
        let (words, ruled) =
            read("Right upper lobe solid nodule without calcification measuring 9 mm.");
        assert_eq!(ruled, ["negated: calcification (without)"]);
        assert!(words.contains(&"9".to_string()), "{words:?}");
        let (words, ruled) = read("Solid nodule without calcification or fat, measuring 9 mm.");
        assert_eq!(ruled, ["negated: calcification or fat (without)"]);
        assert!(words.contains(&"9".to_string()), "{words:?}");
        // Not right after the trigger, nor for a trigger that opens its line.
        let (words, ruled) = read("Lymph nodes: No lymph nodes measuring more than 1 cm.");
        assert_eq!(
            ruled,
            [
                "negated: Lymph nodes (No)",
                "negated: lymph nodes measuring more than 1 cm (No)"
            ]
        );
        assert!(!words.contains(&"1".to_string()), "{words:?}");
        let (_, ruled) = read("No nodule measuring 5 mm or more.");
        assert_eq!(ruled, ["negated: nodule measuring 5 mm or more (No)"]);
        // A scope that reaches back is not ended by it.
        let (words, ruled) = read("The spleen measures 11.2 cm, normal in size.");
        assert!(!words.contains(&"11.2".to_string()), "{words:?} {ruled:?}");
    }

    #[test]
    fn a_change_after_a_comma_ends_a_negation_and_a_list_after_no_stays_ruled_out() {
        let (words, ruled) = read(
            "Solid hypoechoic nodule with no echogenic foci, increased from 1.1 cm to 1.6 cm.",
        );
        assert_eq!(ruled, ["negated: echogenic foci (no)"]);
        assert!(words.contains(&"1.6".to_string()), "{words:?}");
        // Wherever the trigger stands.
        let (words, ruled) = read("No echogenic foci, decreased from 2.0 cm to 1.5 cm.");
        assert_eq!(ruled, ["negated: echogenic foci (No)"]);
        assert!(words.contains(&"1.5".to_string()), "{words:?}");
        // The items of a list after "no" are not changes, and without its comma a change is
        // in the scope.
        let (words, ruled) = read("No pleural effusion, consolidation, or pneumothorax.");
        assert_eq!(
            ruled,
            ["negated: pleural effusion, consolidation, or pneumothorax (No)"]
        );
        assert!(words.is_empty(), "{words:?}");
        let (words, _) = read("Right lobe: no nodule increased in size, 8 mm cyst.");
        assert!(!words.contains(&"increased".to_string()), "{words:?}");
    }

    #[test]
    fn history_hypotheticals_and_relatives_are_ruled_out_and_hedges_kept() {
        let (_, ruled) = read("Previously seen 5 mm nodule has resolved.");
        assert!(
            ruled.iter().all(|r| r.starts_with("historical: ")),
            "{ruled:?}"
        );
        assert!(ruled.iter().any(|r| r.contains("nodule")), "{ruled:?}");
        let (_, ruled) = read("History of pancreatitis.");
        assert_eq!(ruled, ["historical: pancreatitis (History of)"]);
        let (_, ruled) = read("Family history of thyroid cancer.");
        assert_eq!(ruled, ["family: thyroid cancer (Family history of)"]);
        // A relative named with the condition: the condition is the relative's.
        let (_, ruled) = read("Mother diagnosed with breast cancer at 44.");
        assert_eq!(
            ruled,
            ["family: diagnosed with breast cancer at 44 (Mother)"]
        );
        let (_, ruled) = read("Brother with prostate cancer.");
        assert_eq!(ruled, ["family: with prostate cancer (Brother)"]);
        // A negated history is negated, not historical: "history of" within the negation does
        // not start a scope of its own.
        let (_, ruled) = read("No personal history of malignancy.");
        assert_eq!(ruled, ["negated: malignancy (No personal history of)"]);
        let (_, ruled) = read("Follow-up in a patient without a history of malignancy.");
        assert_eq!(ruled, ["negated: malignancy (without a history of)"]);
        let (_, ruled) = read("To exclude pulmonary embolism.");
        assert_eq!(ruled, ["hypothetical: pulmonary embolism (To exclude)"]);
        // A hedge keeps the finding: it may be present.
        let (words, ruled) = read("Probable 2 cm adrenal adenoma. Malignancy cannot be excluded.");
        assert!(ruled.is_empty(), "{ruled:?}");
        assert!(words.contains(&"adenoma".to_string()));
    }

    #[test]
    fn the_nearer_trigger_decides_and_triggers_do_not_chain() {
        // "not" reaches "seen" only through its own phrase: "not seen" is one trigger.
        let (_, ruled) = read("Previously noted splenic lesion is not seen.");
        assert!(ruled
            .iter()
            .any(|r| r.starts_with("negated: ") || r.starts_with("historical: ")));
        // A scope stops at the next trigger: the hedge after the negation keeps its words.
        let (words, _) = read("No mass, possible 4 mm polyp");
        assert!(words.contains(&"polyp".to_string()), "{words:?}");
    }

    #[test]
    fn spans_point_at_the_words_they_claim() {
        let text = "FINDINGS: Pancreas unremarkable, no cystic lesion. Gallbladder without polyps.";
        let (_, ruled) = kept(&ASSERTIONS, text);
        let chars: Vec<char> = text.chars().collect();
        for r in &ruled {
            let at: String = chars[r.span[0]..r.span[1]].iter().collect();
            assert_eq!(at, r.text);
            let trigger: String = chars[r.trigger_span[0]..r.trigger_span[1]].iter().collect();
            assert_eq!(trigger, r.trigger);
        }
        assert!(ruled.iter().any(|r| r.text == "cystic lesion"), "{ruled:?}");
        assert!(ruled
            .iter()
            .any(|r| r.text == "polyps" && r.trigger == "without"));
    }

    #[test]
    fn a_text_that_rules_nothing_out_is_read_as_it_is() {
        let text = "Incidental 8 mm solid nodule in the right upper lobe on chest CT";
        let (kept, ruled) = kept(&ASSERTIONS, text);
        assert!(matches!(kept, Cow::Borrowed(_)));
        assert!(ruled.is_empty());
    }
}
