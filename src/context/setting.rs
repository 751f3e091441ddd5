//! The report-wide setting: what a report says of the patient and the examination that
//! chooses between guidelines for every one of its findings (screening, known cancer, HCC risk,
//! pregnancy, immunosuppression, trauma, post-treatment, sex, age), read once, each with the
//! words that state it. The words are corpus data (`lexicon.json`, `settings`); a cue that
//! lists a setting (`cues.json`, `settings`) fires for every finding about its organ when the
//! report states it anywhere ("History: cirrhosis" for the liver observation of the findings).
//!
//! What the text negates, asks about or says of a relative states no setting ("No known
//! malignancy"); what it places in the past does ("status post TACE", "history of lymphoma").

use super::assertion::RuledOut;
use super::prefill;
use crate::corpus::text;
use crate::corpus::text::Word;
use crate::knowledge::{Category, Knowledge};
use serde::Serialize;

/// The settings that name the patient's sex.
const SEXES: [&str; 2] = ["female", "male"];

/// A setting the text states, and where.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stated {
    pub setting: &'static str,
    /// The words as the text writes them, and their `[start, end)` character offsets.
    pub text: String,
    pub span: [usize; 2],
}

/// The report-wide setting.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Setting {
    /// The settings stated, each once, in the lexicon's order (sex apart).
    pub settings: Vec<&'static str>,
    pub age_years: Option<f64>,
    /// `female` or `male`, the first the text states.
    pub sex: Option<&'static str>,
    /// Where each setting (and the sex) was first stated.
    pub read: Vec<Stated>,
}

impl Setting {
    /// Whether the report states one of `settings`.
    pub fn states_any(&self, settings: &[&str]) -> bool {
        settings.iter().any(|s| self.settings.contains(s))
    }
}

/// Reads the setting of `original` (the submitted text, cut into `cut`); `ruled` are its
/// ruled-out phrases: what is negated, hypothetical or about a relative is not the patient's
/// setting, what is historical is.
pub fn read(
    knowledge: &Knowledge,
    original: &str,
    cut: &[text::Span],
    ruled: &[RuledOut],
) -> Setting {
    let mut chars = text::char_vec(original);
    let spans = patients_words(cut, ruled, Some(&mut chars));
    let words: Vec<Word> = spans.iter().map(|s| s.text.clone()).collect();
    let mut setting = Setting::default();
    for (name, span) in stated(knowledge, &spans, &words) {
        setting.read.push(Stated {
            setting: name,
            text: chars[span[0]..span[1]].iter().collect(),
            span,
        });
        if !SEXES.contains(&name) {
            setting.settings.push(name);
        }
    }
    let age = prefill::sizes_and_age(knowledge.lexicon, &words).1;
    // A sex letter of the age ("61 y/o F") states the sex as a word would, where no earlier
    // word of the same sex did.
    if let Some((sex, at)) = age.and_then(|a| a.sex) {
        let span = [spans[at].start, spans[at].end];
        let stated = Stated {
            setting: sex,
            text: chars[span[0]..span[1]].iter().collect(),
            span,
        };
        match setting.read.iter_mut().find(|s| s.setting == sex) {
            Some(known) if known.span[0] <= span[0] => {}
            Some(known) => *known = stated,
            None => setting.read.push(stated),
        }
    }
    setting.sex = setting
        .read
        .iter()
        .filter(|s| SEXES.contains(&s.setting))
        .min_by_key(|s| s.span[0])
        .map(|s| s.setting);
    setting.age_years = age.map(|a| a.years);
    setting
}

/// The words of `cut` that can state a setting: those outside what `ruled` negates, asks about or
/// says of a relative (their triggers too); what it places in the past stays. With `chars`
/// (the text's characters), those phrases are blanked there as well.
pub fn patients_words(
    cut: &[text::Span],
    ruled: &[RuledOut],
    chars: Option<&mut [char]>,
) -> Vec<text::Span> {
    let blanked: Vec<[usize; 2]> = ruled
        .iter()
        .filter(|r| r.assertion != Category::Historical)
        .flat_map(|r| [r.span, r.trigger_span])
        .collect();
    if let Some(chars) = chars {
        text::blank(chars, &blanked);
    }
    text::spans_outside(cut, &blanked)
}

/// The settings `words` state (`folded`: their folded words), in the lexicon's order, each
/// with the character span of its first statement (the earliest of its phrases, the shortest
/// of those that start there).
pub fn stated(
    knowledge: &Knowledge,
    words: &[text::Span],
    folded: &[Word],
) -> Vec<(&'static str, [usize; 2])> {
    let entries = knowledge.lexicon.settings;
    let mut first: Vec<Option<(usize, usize)>> = vec![None; entries.len()];
    knowledge
        .lexicon
        .index()
        .settings
        .each_at(folded, |at, entry, phrase| {
            let end = at + phrase.split(' ').count();
            if first[entry].is_none_or(|known| (at, end) < known) {
                first[entry] = Some((at, end));
            }
        });
    entries
        .iter()
        .zip(first)
        .filter_map(|(entry, first)| {
            let (at, end) = first?;
            Some((entry.name, [words[at].start, words[end - 1].end]))
        })
        .collect()
}

/// Fires, for what was read of a finding, the cues whose settings the report states and whose
/// organ (if any) the finding names.
pub fn apply(knowledge: &Knowledge, setting: &Setting, finding: &mut super::Finding) {
    for cue in knowledge
        .cues
        .iter()
        .filter(|c| setting.states_any(c.settings))
    {
        // A cue of no organ weighs a finding only through systems about one of its organs: a
        // screening examination's setting says nothing of its liver finding, nor of a finding
        // that names no organ (its own words fire the cues they hold).
        let reaches = || {
            cue.effects.iter().flat_map(|e| e.systems).any(|&i| {
                crate::corpus::compiled::SYSTEMS[i as usize]
                    .organs
                    .iter()
                    .any(|o| finding.organs.contains(o) || *o == knowledge.ranking.any_organ)
            })
        };
        let about = cue
            .organ
            .map_or_else(reaches, |o| finding.organs.contains(&o))
            && cue.fits(&finding.modalities);
        if about && !finding.cues.contains(&cue.name) {
            finding.cues.push(cue.name);
        }
    }
}
