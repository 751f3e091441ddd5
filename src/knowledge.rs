//! The grounding knowledge the build compiled from `corpus/grounding/`, typed and read-only.
//!
//! Which words name which organ or modality, what a size may measure, which phrases of a
//! finding favour or disfavour which systems, and how the ranking weighs its evidence: all of
//! it is reviewed corpus data (`corpus/README.md`, Grounding knowledge), validated at build
//! time against the systems and compiled into the static tables below. Grounding's code holds
//! the algorithms only; a new guideline version inherits its lineage's cues with no code change.

use crate::corpus::text::{FastHash, Word, WordTable};

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
    /// Other organs' words that name a part of an organ near its phrases ("gallbladder neck").
    pub organ_parts: &'static [Words],
    /// How many words from an organ's phrase its part words name its part.
    pub part_reach: usize,
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
    /// Measured nouns for a part of the anatomy ("duct", "wall"): a finding only with a size.
    pub structure_nouns: &'static [&'static str],
    /// Words of an input label that say how a length is taken, not what is measured.
    pub measure_words: &'static [&'static str],
    /// Words a size's measured noun is not looked for past.
    pub clause_breaks: &'static [&'static str],
    /// Words that join two measured findings in one sentence: it is read as two.
    pub finding_joins: &'static [&'static str],
    /// Words that negate the value phrase right after them.
    pub negations: &'static [&'static str],
    /// Phrases that make an organ named right after them (past up to two `reference_fillers`)
    /// a landmark, not the finding's ("below the liver").
    pub reference_words: &'static [&'static str],
    /// Words passed over between a reference phrase and its organ ("the", "left").
    pub reference_fillers: &'static [&'static str],
    /// Words that set two readings side by side as a differential ("cyst versus solid mass").
    pub alternative_words: &'static [&'static str],
    /// Words that make a size a sum of several ("sum of target lesion diameters 71 mm").
    pub aggregate_words: &'static [&'static str],
    /// Words that join the dimensions of one measurement ("1.8 x 1.4 x 1.2 cm").
    pub dimension_joins: &'static [&'static str],
    /// Words after a size that make it a rate of change ("3 mm per year").
    pub rate_words: &'static [&'static str],
    /// Words right before a size that make it a bound ("over 1 cm").
    pub bound_words: &'static [&'static str],
    /// Words shortly before a size that make it an earlier one ("previously 6 mm").
    pub prior_words: &'static [&'static str],
    /// Words at which an input's label goes on to qualify what it asks about ("for", "and").
    pub label_breaks: &'static [&'static str],
    /// Words of a length input's label that ask for a measurement's mean.
    pub mean_words: &'static [&'static str],
    /// Words of a length input's label that ask for a short axis.
    pub short_axis_words: &'static [&'static str],
    /// Pairs of words that say opposite ways of taking a size ("long" and "short" axis).
    pub opposite_words: &'static [[&'static str; 2]],
    /// Value phrases too generic to read from free text.
    pub generic_values: &'static [&'static str],
    /// Value words under four letters read all the same ("new").
    pub short_values: &'static [&'static str],
    /// Words after a number that make it a percentage ("40 percent"), as a `%` does.
    pub percent_words: &'static [&'static str],
    /// Words after a size that make what it measures a part of the lesion before it ("mural").
    pub part_words: &'static [&'static str],
    /// Phrases after a number that make it an age ("67-year-old"; not "2 years ago").
    pub age_words: &'static [&'static str],
    /// Words right before a number that make it an age ("Age: 67").
    pub age_lead_words: &'static [&'static str],
    /// Sex letters written onto or after an adult's age ("78F"), each with the sex setting
    /// it states there.
    pub age_sex_words: &'static [[&'static str; 2]],
    /// Words that make a number and such a letter a French gauge ("28F chest tube").
    pub gauge_words: &'static [&'static str],
    /// Words between a number input's name and its number ("alpha angle is 64").
    pub value_links: &'static [&'static str],
    /// Phrases that make a sentence report a finding with no measured noun and no size.
    pub finding_words: &'static [&'static str],
    /// Words that open a recommendation, not a finding.
    pub recommendation_words: &'static [&'static str],
    /// Words of an attenuation input's label that say how it is measured.
    pub attenuation_words: &'static [&'static str],
    /// Words after a number that make it an attenuation in Hounsfield units.
    pub hu_words: &'static [&'static str],
    /// Phrases of a report's title or technique that state an examination without contrast.
    pub unenhanced_phrases: &'static [&'static str],
    /// Phrases of a report's title or technique that state a contrast phase.
    pub contrast_phrases: &'static [&'static str],
    /// Words of an attenuation input's label that an examination without contrast states.
    pub unenhanced_label_words: &'static [&'static str],
    /// The report-wide settings and the phrases that state them.
    pub settings: &'static [Words],
}

impl Lexicon {
    /// The measured noun a single folded word stands for.
    pub fn measured(&'static self, word: &str) -> Option<&'static str> {
        self.index().measured.get(word).copied()
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
    /// Report-wide settings under which the effect does not hold.
    pub unless: &'static [&'static str],
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
    /// Single words that end a forward scope only ("measuring").
    pub forward_terminators: &'static [&'static str],
    /// Single words that end a forward scope after a comma ("increased").
    pub comma_terminators: &'static [&'static str],
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

/// Phrases of a fixed list by their first word, so that which of them occur in folded words is
/// found in one pass over the words rather than one lookup per phrase: a report's sentences are
/// many and short, the lexicon's phrases many more.
#[derive(Debug, Default)]
pub struct PhraseIndex {
    /// Per first word: each phrase's item, the phrase, and its words after the first (none
    /// for a phrase of one word, most of them), split once and compared only when the first
    /// word is met.
    by_first: WordTable<&'static str, Vec<Indexed>>,
}

/// A phrase as a [`PhraseIndex`] keeps it under its first word: its item, the phrase, and its
/// words after the first.
type Indexed = (usize, &'static str, &'static [&'static str]);

impl PhraseIndex {
    /// Indexes `(item, phrase)` pairs: the item is what the caller counts (an organ, a cue).
    pub fn new(items: impl IntoIterator<Item = (usize, &'static str)>) -> PhraseIndex {
        let mut by_first: std::collections::HashMap<_, Vec<_>, FastHash> = Default::default();
        for (item, phrase) in items {
            let (first, rest) = phrase.split_once(' ').unwrap_or((phrase, ""));
            // Kept for the isolate's life, as the phrases are (an index is built once).
            let rest: &'static [&'static str] = if rest.is_empty() {
                &[]
            } else {
                Box::leak(rest.split(' ').collect::<Vec<_>>().into_boxed_slice())
            };
            by_first
                .entry(first)
                .or_default()
                .push((item, phrase, rest));
        }
        PhraseIndex {
            by_first: by_first.into(),
        }
    }

    /// Calls `found(at, item, phrase)` for each occurrence of a phrase as whole consecutive
    /// words, in the order of the words (`at`: the place of the phrase's first word), until it
    /// returns false; whether it did. A loop rather than a chain of iterator adapters: a long
    /// report is read for several indexes' phrases at every word.
    fn scan(
        &self,
        words: &[Word],
        mut found: impl FnMut(usize, usize, &'static str) -> bool,
    ) -> bool {
        for (at, word) in words.iter().enumerate() {
            let Some(phrases) = self.by_first.get(word.as_str()) else {
                continue;
            };
            for &(item, phrase, rest) in phrases {
                let whole = rest
                    .iter()
                    .enumerate()
                    .all(|(k, p)| words.get(at + 1 + k).is_some_and(|w| w == p));
                if whole && !found(at, item, phrase) {
                    return true;
                }
            }
        }
        false
    }

    /// Calls `found(item, phrase)` for each occurrence of a phrase as whole consecutive words.
    pub fn each(&self, words: &[Word], mut found: impl FnMut(usize, &'static str)) {
        self.scan(words, |_, item, phrase| {
            found(item, phrase);
            true
        });
    }

    /// [`PhraseIndex::each`], with the place of the phrase's first word: `found(at, item,
    /// phrase)`.
    pub fn each_at(&self, words: &[Word], mut found: impl FnMut(usize, usize, &'static str)) {
        self.scan(words, |at, item, phrase| {
            found(at, item, phrase);
            true
        });
    }

    /// Whether any phrase occurs (stopping at the first).
    pub fn any(&self, words: &[Word]) -> bool {
        self.scan(words, |_, _, _| false)
    }

    /// The items with a phrase that occurs, each once, in the order first found.
    pub fn items(&self, words: &[Word]) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        self.each(words, |item, _| {
            if !out.contains(&item) {
                out.push(item);
            }
        });
        out
    }
}

/// A phrase of the assertion model: a pseudo-trigger, the trigger at its place in
/// [`Assertions::triggers`], or a terminator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AssertionPhrase {
    Trigger(usize),
    Terminator,
    Pseudo,
}

/// The assertion model's phrases by their first word (built once per isolate, per model): a
/// report is read for them at every word, and trying every phrase there was most of reading
/// a long report's assertions.
#[derive(Debug, Default)]
pub struct AssertionIndex {
    /// Per first word: pseudo-triggers, then triggers, then terminators, each in the model's
    /// order.
    pub by_first: WordTable<&'static str, Vec<(AssertionPhrase, &'static [&'static str])>>,
}

impl Assertions {
    pub fn index(&'static self) -> &'static AssertionIndex {
        cached(
            &ASSERTION_INDEXES,
            self as *const Assertions as usize,
            || {
                let mut by_first: std::collections::HashMap<_, Vec<_>, FastHash> =
                    Default::default();
                let phrases = self
                    .pseudo_triggers
                    .iter()
                    .map(|p| (AssertionPhrase::Pseudo, *p))
                    .chain(
                        self.triggers
                            .iter()
                            .enumerate()
                            .map(|(k, t)| (AssertionPhrase::Trigger(k), t.words)),
                    )
                    .chain(
                        self.terminators
                            .iter()
                            .map(|p| (AssertionPhrase::Terminator, *p)),
                    );
                for (kind, phrase) in phrases {
                    if let Some(first) = phrase.first() {
                        by_first.entry(*first).or_default().push((kind, phrase));
                    }
                }
                AssertionIndex {
                    by_first: by_first.into(),
                }
            },
        )
    }
}

/// The lexicon's phrases indexed for reading text (built once per isolate, per lexicon).
#[derive(Debug)]
pub struct LexiconIndex {
    /// Organ phrases; the item is the organ's place in [`Lexicon::organs`].
    pub organs: PhraseIndex,
    /// For each organ phrase, the longer phrases of other organs made of whole words of it
    /// ("iliac" in "iliac bone"): where those occur, the shorter one is theirs.
    /// Keyed by the organ's place and the phrase (two organs may share a phrase).
    pub organ_within: std::collections::HashMap<(usize, &'static str), Vec<&'static str>, FastHash>,
    /// Modality phrases; the item is the modality's place in [`Lexicon::modalities`].
    pub modalities: PhraseIndex,
    /// The phrases that make a sentence report a finding.
    pub finding_words: PhraseIndex,
    /// The reference phrases ([`Lexicon::reference_words`]), each cut into its words.
    pub references: Vec<Vec<&'static str>>,
    /// Per organ part entry ([`Lexicon::organ_parts`]): the organ's place in
    /// [`Lexicon::organs`] and the words that name its parts.
    pub parts: Vec<(usize, &'static [&'static str])>,
    /// The measured noun each of their words stands for (a word is one noun's: the build
    /// checks it).
    pub measured: WordTable<&'static str, &'static str>,
    /// The report settings' phrases; the item is the setting's place in [`Lexicon::settings`].
    pub settings: PhraseIndex,
}

/// Whether folded phrase `inner` is made of whole words of folded phrase `outer`: tried only
/// where a word of `outer` starts (a substring search sets itself up for each pair, and the
/// organ index asks this of every pair of organ phrases on an isolate's first report).
pub fn phrase_within(outer: &str, inner: &str) -> bool {
    let (outer, inner) = (outer.as_bytes(), inner.as_bytes());
    let word_starts = std::iter::once(0).chain(
        outer
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b' ')
            .map(|(at, _)| at + 1),
    );
    word_starts
        .filter(|&at| outer[at..].starts_with(inner))
        .any(|at| {
            let end = at + inner.len();
            end == outer.len() || outer[end] == b' '
        })
}

/// Indexes built from static tables, kept per table (by its address) for the isolate's life.
fn cached<T: 'static>(
    cache: &'static std::thread::LocalKey<std::cell::RefCell<Vec<(usize, &'static T)>>>,
    key: usize,
    build: impl FnOnce() -> T,
) -> &'static T {
    if let Some(found) = cache.with(|c| c.borrow().iter().find(|(k, _)| *k == key).map(|e| e.1)) {
        return found;
    }
    // Built once per table and kept: the tables are static, so the index lives as long.
    let built: &'static T = Box::leak(Box::new(build()));
    cache.with(|c| c.borrow_mut().push((key, built)));
    built
}

thread_local! {
    static LEXICON_INDEXES: std::cell::RefCell<Vec<(usize, &'static LexiconIndex)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    static CUE_INDEXES: std::cell::RefCell<Vec<(usize, &'static PhraseIndex)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    static ASSERTION_INDEXES: std::cell::RefCell<Vec<(usize, &'static AssertionIndex)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Lexicon {
    /// The lexicon's phrase indexes.
    pub fn index(&'static self) -> &'static LexiconIndex {
        cached(&LEXICON_INDEXES, self as *const Lexicon as usize, || {
            let organs = self.organs;
            // Each word of an organ phrase, with the phrases (and their organ's place) it is a
            // word of, in the lexicon's order: a phrase within another shares its first word.
            let mut by_word: std::collections::HashMap<&str, Vec<(usize, &'static str)>, FastHash> =
                std::collections::HashMap::default();
            for (j, other) in organs.iter().enumerate() {
                for q in other.phrases {
                    let mut seen: Vec<&str> = Vec::new();
                    for word in q.split(' ').filter(|w| !w.is_empty()) {
                        if !seen.contains(&word) {
                            seen.push(word);
                            by_word.entry(word).or_default().push((j, *q));
                        }
                    }
                }
            }
            let mut organ_within = std::collections::HashMap::default();
            for (i, organ) in organs.iter().enumerate() {
                for p in organ.phrases {
                    let first = p.split(' ').find(|w| !w.is_empty()).unwrap_or("");
                    let within: Vec<&'static str> = by_word
                        .get(first)
                        .into_iter()
                        .flatten()
                        .filter(|(j, q)| {
                            organs[*j].name != organ.name
                                && q.len() > p.len()
                                && phrase_within(q, p)
                        })
                        .map(|(_, q)| *q)
                        .collect();
                    organ_within.insert((i, *p), within);
                }
            }
            LexiconIndex {
                organs: PhraseIndex::new(
                    organs
                        .iter()
                        .enumerate()
                        .flat_map(|(i, o)| o.phrases.iter().map(move |p| (i, *p))),
                ),
                organ_within,
                modalities: PhraseIndex::new(
                    self.modalities
                        .iter()
                        .enumerate()
                        .flat_map(|(i, m)| m.phrases.iter().map(move |p| (i, *p))),
                ),
                finding_words: PhraseIndex::new(self.finding_words.iter().map(|p| (0, *p))),
                references: self
                    .reference_words
                    .iter()
                    .map(|r| r.split(' ').collect())
                    .collect(),
                parts: self
                    .organ_parts
                    .iter()
                    .filter_map(|p| {
                        let organ = organs.iter().position(|o| o.name == p.name)?;
                        Some((organ, p.phrases))
                    })
                    .collect(),
                measured: self
                    .measured_nouns
                    .iter()
                    .flat_map(|n| n.phrases.iter().map(move |p| (*p, n.name)))
                    .collect(),
                settings: PhraseIndex::new(
                    self.settings
                        .iter()
                        .enumerate()
                        .flat_map(|(i, s)| s.phrases.iter().map(move |p| (i, *p))),
                ),
            }
        })
    }
}

/// The cues' phrases indexed for reading text; the item is the cue's place in `cues`.
pub fn cue_index(cues: &'static [Cue]) -> &'static PhraseIndex {
    cached(&CUE_INDEXES, cues.as_ptr() as usize, || {
        PhraseIndex::new(
            cues.iter()
                .enumerate()
                .flat_map(|(i, c)| c.phrases.iter().map(move |p| (i, *p))),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::phrase_within;

    #[test]
    fn a_phrase_is_within_another_only_as_whole_words() {
        assert!(phrase_within("iliac bone", "iliac"));
        assert!(phrase_within("iliac bone", "bone"));
        assert!(phrase_within("left iliac bone", "iliac bone"));
        assert!(phrase_within("iliac", "iliac"));
        // Part of a word, at either end, is not a word.
        assert!(!phrase_within("iliac bones", "bone"));
        assert!(!phrase_within("periliac bone", "iliac"));
        assert!(!phrase_within("iliac bone", "liac"));
        assert!(!phrase_within("bone", "iliac bone"));
        // A later occurrence counts when an earlier one is part of a word.
        assert!(phrase_within("bones of the bone", "bone"));
        assert!(phrase_within("the head and neck", "head and neck"));
        assert!(!phrase_within("the head and necks", "head and neck"));
    }

    #[test]
    fn the_organ_index_holds_every_longer_phrase_of_another_organ() {
        let lexicon = super::KNOWLEDGE.lexicon;
        let index = lexicon.index();
        let mut found = 0;
        for (i, organ) in lexicon.organs.iter().enumerate() {
            for p in organ.phrases {
                // Every pair of phrases compared.
                let expected: Vec<&str> = lexicon
                    .organs
                    .iter()
                    .filter(|other| other.name != organ.name)
                    .flat_map(|other| other.phrases.iter().copied())
                    .filter(|q| q.len() > p.len() && phrase_within(q, p))
                    .collect();
                assert_eq!(index.organ_within[&(i, *p)], expected, "{p}");
                found += expected.len();
            }
        }
        assert!(found > 0);
    }
}
