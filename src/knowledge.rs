//! The grounding knowledge the build compiled from `corpus/grounding/`, typed and read-only.
//!
//! Which words name which organ or modality, what a size may measure, which phrases of a
//! finding favour or disfavour which systems, and how the ranking weighs its evidence: all of
//! it is reviewed corpus data (`corpus/README.md`, Grounding knowledge), validated at build
//! time against the systems and compiled into the static tables below. Grounding's code holds
//! the algorithms only; a new guideline version inherits its lineage's cues with no code change.

pub use crate::corpus::source::{Category, Direction, SectionKind};

/// A named group of phrases: an organ, a modality or a measured noun and how findings write it.
#[derive(Debug)]
pub struct Words {
    pub name: &'static str,
    /// Folded phrases (lower case, ASCII, one space between words).
    pub phrases: &'static [&'static str],
}

/// The words grounding reads from a finding.
#[derive(Debug)]
pub struct Lexicon {
    /// Organ words, in the order a finding's organs are listed.
    pub organs: &'static [Words],
    /// Modality words, in the order a finding's modalities are listed.
    pub modalities: &'static [Words],
    /// Report section headings, by kind.
    pub sections: &'static [SectionWords],
    /// Every spelling the systems list's `modality` filter accepts (compared
    /// case-insensitively), with the modality it stands for: the names first, then the others.
    pub modality_spellings: &'static [(&'static str, &'static str)],
    /// The nouns a size may measure; each phrase is a single word.
    pub measured_nouns: &'static [Words],
    /// Measured nouns for a lesion as a whole.
    pub lesion_nouns: &'static [&'static str],
    /// Words of an input label that say how a length is taken, not what is measured.
    pub measure_words: &'static [&'static str],
    /// Words a size's measured noun is not looked for past.
    pub clause_breaks: &'static [&'static str],
    /// Words that join two measured findings in one sentence: it is read as two.
    pub finding_joins: &'static [&'static str],
    /// Words that negate the value phrase right after them.
    pub negations: &'static [&'static str],
    /// Value phrases too generic to read from free text.
    pub generic_values: &'static [&'static str],
    /// Words after a number that make it an age.
    pub age_words: &'static [&'static str],
    /// Phrases that make a sentence report a finding with no measured noun and no size.
    pub finding_words: &'static [&'static str],
    /// Words that open a recommendation, not a finding.
    pub recommendation_words: &'static [&'static str],
    /// Words of an attenuation input's label that say how it is measured.
    pub attenuation_words: &'static [&'static str],
    /// Words after a number that make it an attenuation in Hounsfield units.
    pub hu_words: &'static [&'static str],
    /// The report-wide settings and the phrases that state them.
    pub settings: &'static [Words],
}

impl Lexicon {
    /// The measured noun a single folded word stands for.
    pub fn measured(&self, word: &str) -> Option<&'static str> {
        self.measured_nouns
            .iter()
            .find(|n| n.phrases.contains(&word))
            .map(|n| n.name)
    }
}

/// One effect of a cue: the systems it applies to (indices into the corpus's systems, its
/// lineage or family already resolved by the build) and the factor.
#[derive(Debug)]
pub struct Effect {
    pub systems: &'static [u16],
    /// Above 1 favours, below 1 disfavours.
    pub factor: f64,
    /// The cited corpus line the effect rests on.
    pub basis: Option<Basis>,
    /// Why an effect that only follows the words is what it is.
    pub policy: Option<&'static str>,
}

/// The cited line a cue's effect rests on: its system (an index into the corpus's systems),
/// its path in the system's file, and the line itself (its reference id and locator).
#[derive(Debug)]
pub struct Basis {
    pub system: usize,
    pub line: &'static str,
    pub text: &'static str,
    pub citation: &'static str,
    pub locator: &'static str,
}

/// The headings of one kind of section, folded.
#[derive(Debug)]
pub struct SectionWords {
    pub kind: SectionKind,
    pub phrases: &'static [&'static str],
}

/// A cue: when any phrase occurs (and the finding concerns `organ`, when given), each effect
/// multiplies the score of its systems.
#[derive(Debug)]
pub struct Cue {
    /// Shown in the answer as `cue: <name>`.
    pub name: &'static str,
    pub organ: Option<&'static str>,
    pub phrases: &'static [&'static str],
    /// Report-wide settings that fire the cue for every finding about its organ.
    pub settings: &'static [&'static str],
    /// The modalities the finding must be read on; none: any.
    pub modalities: &'static [&'static str],
    pub effects: &'static [Effect],
}

impl Cue {
    /// Whether a finding read on `modalities` may fire the cue.
    pub fn fits(&self, modalities: &[&str]) -> bool {
        self.modalities.is_empty() || self.modalities.iter().any(|m| modalities.contains(m))
    }
}

/// The ranking weights (`corpus/grounding/ranking.json` says why each is what it is).
#[derive(Debug)]
pub struct Ranking {
    pub search_hits: usize,
    pub code_hits: usize,
    /// The search hits read per finding of a report.
    pub finding_search_hits: usize,
    /// A finding lists a system only when it scores at least this share of its first.
    pub finding_relative_floor: f64,
    /// A finding of a report offers no system scoring below this, unless it names it.
    pub finding_min_score: f64,
    pub outcome_share: f64,
    pub outcome_floor: f64,
    pub organ_bonus: f64,
    pub organ_factor: f64,
    pub other_organ_factor: f64,
    pub modality_factor: f64,
    pub other_modality_factor: f64,
    /// A version the corpus holds a later version of.
    pub superseded_factor: f64,
    /// The organ of systems that apply to every organ.
    pub any_organ: &'static str,
}

/// A trigger phrase, as folded words.
#[derive(Debug)]
pub struct Trigger {
    pub words: &'static [&'static str],
    pub category: Category,
    pub direction: Direction,
}

/// The ConText model: triggers, pseudo-triggers and terminators, each as folded words.
#[derive(Debug)]
pub struct Assertions {
    pub max_scope: u32,
    pub triggers: &'static [Trigger],
    pub pseudo_triggers: &'static [&'static [&'static str]],
    pub terminators: &'static [&'static [&'static str]],
    /// Words that assert nothing on their own.
    pub fillers: &'static [&'static str],
    /// Phrases that refer back to the ruled-out words right before them ("the largest").
    pub back_references: &'static [&'static [&'static str]],
}

include!(concat!(env!("OUT_DIR"), "/knowledge_tables.rs"));

/// Everything grounding knows besides the systems themselves: what an operation is handed, so
/// a test can ground with other knowledge than the corpus's.
#[derive(Debug)]
pub struct Knowledge {
    pub lexicon: &'static Lexicon,
    pub cues: &'static [Cue],
    pub ranking: &'static Ranking,
    pub assertions: &'static Assertions,
}

/// The corpus's knowledge.
pub static KNOWLEDGE: Knowledge = Knowledge {
    lexicon: &LEXICON,
    cues: CUES,
    ranking: &RANKING,
    assertions: &ASSERTIONS,
};
