//! Grounding knowledge: the source format of `corpus/grounding/`, the rules it must keep, and
//! the Rust tables it compiles to.
//!
//! Choosing *between* systems is clinical knowledge as much as describing one, so it lives in
//! the corpus as reviewed data, not in code: which words point to which organ and modality
//! (`lexicon.json`), which phrases of a finding favour or disfavour a system, a lineage of
//! versions or a family (`cues.json`), and how the search index, organs and modalities are
//! weighed (`ranking.json`). Each cue effect that encodes a clinical choice rests on a cited
//! line of the corpus; each ranking weight carries its reason.
//!
//! `build.rs` validates the three files against the systems (every problem names the file, the
//! JSON path and the reason) and writes them as static tables that the worker's `knowledge`
//! module includes. Targets are resolved at build time: an effect on a lineage becomes the
//! indices of every version linked to it by `supersedes`/`superseded_by`, so a new version of
//! a guideline inherits its predecessor's cues without a code change.

use super::problem::Problem;
use super::source::{
    About, Category, Direction, Family, InputType, SectionKind, Status, System, Verification,
    MODALITIES,
};
use super::syntax::is_date;
use super::text;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The four files, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Grounding {
    pub lexicon: Lexicon,
    pub cues: CueFile,
    pub ranking: Ranking,
    pub assertions: Assertions,
}

/// The file names under `corpus/grounding/`.
pub const LEXICON_FILE: &str = "grounding/lexicon.json";
pub const CUES_FILE: &str = "grounding/cues.json";
pub const RANKING_FILE: &str = "grounding/ranking.json";
pub const ASSERTIONS_FILE: &str = "grounding/assertions.json";

/// `assertions.json`: the ConText model of what a report asserts about the words it writes.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Assertions {
    #[serde(default)]
    pub about: Option<String>,
    /// The most words a trigger's scope reaches.
    pub max_scope: u32,
    pub triggers: Vec<Trigger>,
    /// Phrases that contain a trigger but do not act as one ("no change").
    pub pseudo_triggers: Vec<String>,
    /// Words that end a trigger's scope ("but", "however").
    pub terminators: Vec<String>,
    /// Single words that end a forward scope only, and not right after its trigger: a
    /// measurement verb after what a trigger rules out measures the finding ("solid nodule
    /// without calcification *measuring* 9 mm"), while a scope reaching back over it ("the
    /// spleen *measures* 11.2 cm, normal in size") rules the whole out.
    #[serde(default)]
    pub forward_terminators: Vec<String>,
    /// Single words that end a forward scope where a comma comes right before them: a change
    /// set off after what a trigger rules out is the finding's ("solid nodule with no
    /// echogenic foci*, increased* from 1.1 cm to 1.6 cm"), where the items of a ruled-out
    /// list that commas separate are not ("no effusion, consolidation or pneumothorax").
    #[serde(default)]
    pub comma_terminators: Vec<String>,
    /// Words that assert nothing on their own ("there", "is", "seen"): a line whose other
    /// words are all ruled out is ruled out, label and all.
    pub fillers: Vec<String>,
    /// Phrases that refer back to the words just before them ("the largest"): placed right
    /// after a ruled-out word of their line, they and the rest of their sentence take its
    /// assertion ("No pelvic lymphadenopathy. The largest node is 5 mm").
    #[serde(default)]
    pub back_references: Vec<String>,
}

/// A trigger phrase: the category it gives the words in its scope, and which way it reaches.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    pub phrase: String,
    pub category: Category,
    pub direction: Direction,
}

/// Who reviewed an entry, as on every clinical line (`verified` needs both reviewer and date).
/// serde cannot combine `flatten` with `deny_unknown_fields`, so each reviewed entry spells
/// the three fields out and lends them through this view.
struct Review<'a> {
    verification: Verification,
    reviewer: Option<&'a str>,
    reviewed_on: Option<&'a str>,
}

macro_rules! reviewed {
    ($($t:ty),*) => {$(
        impl $t {
            fn review(&self) -> Review<'_> {
                Review {
                    verification: self.verification,
                    reviewer: self.reviewer.as_deref(),
                    reviewed_on: self.reviewed_on.as_deref(),
                }
            }
        }
    )*};
}
reviewed!(OrganWords, ModalityWords, Cue);

/// `lexicon.json`: the words grounding reads from a finding.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lexicon {
    #[serde(default)]
    pub about: Option<String>,
    /// Organ words, in the order a finding's organs are listed.
    pub organs: Vec<OrganWords>,
    /// Anatomy no system of the corpus is about ("maxillary sinus", "chest wall"), each with
    /// the words that name it. A finding that names one is about it: it does not take the
    /// examination's organ, and every system about another organ is weighed as for any other
    /// organ. Listed after the organs.
    #[serde(default)]
    pub other_sites: Vec<OrganWords>,
    /// Another organ's words that also name a part of an organ ("neck": the gallbladder's, the
    /// bladder's, the femur's; "head and neck": the pancreas's): near a phrase of that organ,
    /// they name its part, not the other organ ("gallbladder neck" is no head-and-neck finding).
    #[serde(default)]
    pub organ_parts: Vec<PartWords>,
    /// How many words from a phrase of an organ one of its part words still names its part
    /// ("the main pancreatic duct is mildly dilated in the head and neck": nine).
    #[serde(default)]
    pub part_reach: usize,
    /// Modality words, in the order a finding's modalities are listed.
    pub modalities: Vec<ModalityWords>,
    /// The nouns a size may measure ("8 mm *nodule*"), each with the words that write it.
    pub measured_nouns: Vec<MeasuredNoun>,
    /// Measured nouns for a lesion as a whole.
    pub lesion_nouns: Vec<String>,
    /// Measured nouns that name a part of the anatomy ("duct", "wall", "aorta"): a sentence
    /// that names one reports a finding only with a size ("The common bile duct measures 4
    /// mm"), not alone ("Normal signal and calibre of the duct").
    pub structure_nouns: Vec<String>,
    /// Words of an input label that say how a length is taken, not what is measured.
    pub measure_words: Vec<String>,
    /// Words a size's measured noun is not looked for past.
    pub clause_breaks: Vec<String>,
    /// Words that join two measured findings in one sentence ("a 3 cm adrenal lesion and a
    /// 2 cm renal angiomyolipoma"): the sentence is read as two findings.
    #[serde(default)]
    pub finding_joins: Vec<String>,
    /// Words that negate the value phrase right after them.
    pub negations: Vec<String>,
    /// Phrases that make an organ named right after them (past up to two `reference_fillers`)
    /// a landmark, not what the finding is about ("below *the liver*", "uptake less than liver",
    /// "at the level of the left renal vein").
    #[serde(default)]
    pub reference_words: Vec<String>,
    /// Words passed over between a reference phrase and the organ it names ("the", "left").
    #[serde(default)]
    pub reference_fillers: Vec<String>,
    /// Words that set two readings side by side as a differential ("cyst versus solid mass"):
    /// a value stated next to one is one side of it, not a fact.
    #[serde(default)]
    pub alternative_words: Vec<String>,
    /// Words that make a size a sum of several ("sum of target lesion diameters 71 mm"): it
    /// measures no one lesion.
    #[serde(default)]
    pub aggregate_words: Vec<String>,
    /// Words that join the dimensions of one measurement ("1.8 *x* 1.4 *x* 1.2 cm"): it is
    /// read as one size, its largest dimension.
    #[serde(default)]
    pub dimension_joins: Vec<String>,
    /// Words after a size that make it a rate of change ("3 mm *per* year"): no size of a
    /// lesion.
    #[serde(default)]
    pub rate_words: Vec<String>,
    /// Words right before a size that make it a bound ("*over* 1 cm", "less *than* 3 mm"):
    /// the exact size is not stated.
    #[serde(default)]
    pub bound_words: Vec<String>,
    /// Words shortly before a size that make it an earlier one ("*previously* 6 mm", "grown
    /// *from* 6 mm to 9 mm"): the finding's current size, written after it, is read first.
    #[serde(default)]
    pub prior_words: Vec<String>,
    /// Words at which an input's label stops naming the thing it asks about and goes on to
    /// qualify it ("Clinical risk factors *for* thyroid cancer", "Red flags *and* risk
    /// features"): a finding that rules out the first part ("no risk factors") rules out
    /// every value of a multi input, or makes a boolean false.
    #[serde(default)]
    pub label_breaks: Vec<String>,
    /// Words of a length input's label that ask for a measurement's mean ("mean diameter",
    /// "average diameter"): of dimensions, the mean of the first two (long and short axis).
    #[serde(default)]
    pub mean_words: Vec<String>,
    /// Words of a length input's label that ask for a short axis: of dimensions, the smaller
    /// of the first two.
    #[serde(default)]
    pub short_axis_words: Vec<String>,
    /// Pairs of words that say opposite ways of taking a size ("long" and "short" axis): a size
    /// said one way fills no input whose label says the other.
    #[serde(default)]
    pub opposite_words: Vec<[String; 2]>,
    /// Value phrases too generic to read from free text.
    pub generic_values: Vec<String>,
    /// Value words under four letters that a text still states plainly ("new": Lung-RADS's
    /// timepoint), read as values; other values that short ("low", "yes") are too common.
    #[serde(default)]
    pub short_values: Vec<String>,
    /// Words after a number that make it a percentage, as a `%` written after it does ("40
    /// percent"): what a percentage input (`named_by`) reads.
    #[serde(default)]
    pub percent_words: Vec<String>,
    /// Words that, within a few words after a size, make what it measures a part of the lesion
    /// before it ("a 3 cm cystic mass with thin septa and a 5 mm enhancing *mural* nodule", "a
    /// 4 mm solid *component*"), so a joining word before that size does not start a finding of
    /// its own.
    #[serde(default)]
    pub part_words: Vec<String>,
    /// Phrases after a number that make it an age ("67-year-old", "67 yo", "67 years of age");
    /// a number of years alone is not one ("stable for 2 years", "CT 3 years ago").
    pub age_words: Vec<String>,
    /// Words right before a number that make it an age ("Age: 67 years", "aged 67").
    #[serde(default)]
    pub age_lead_words: Vec<String>,
    /// Words that may stand between a number input's name and its number ("alpha angle *is*
    /// 64", "calcium score *of* 412").
    #[serde(default)]
    pub value_links: Vec<String>,
    /// Letters for the patient's sex written onto or right after an adult's age ("78F",
    /// "66 M with chest pain", "61 y/o F"), each with the sex setting it states (`["f",
    /// "female"]`): a whole number from 18 to 110 so written is an age, and the letter states
    /// the sex only there.
    #[serde(default)]
    pub age_sex_words: Vec<[String; 2]>,
    /// Words after a number and such a letter that make it a device's French gauge, not an
    /// age ("28F chest tube", "8 F sheath").
    #[serde(default)]
    pub gauge_words: Vec<String>,
    /// Words that make a sentence report a finding a guideline may govern even with no
    /// measured noun and no size ("coronary calcification", "lumbar spondylosis").
    pub finding_words: Vec<String>,
    /// Words that open a recommendation, not a finding ("Recommend", "Consider").
    pub recommendation_words: Vec<String>,
    /// Words of an attenuation input's label that say how it is measured, not when ("CT",
    /// "attenuation"): the rest ("unenhanced") must be in the finding for an HU value to fill it.
    pub attenuation_words: Vec<String>,
    /// Words after a number that make it an attenuation in Hounsfield units ("hu").
    pub hu_words: Vec<String>,
    /// Phrases of a report's title or technique that state an examination without contrast
    /// ("without contrast", "non contrast"): an attenuation its findings state is then an
    /// unenhanced one, unless `contrast_phrases` state a contrast phase as well.
    #[serde(default)]
    pub unenhanced_phrases: Vec<String>,
    /// Phrases of a report's title or technique that state a contrast phase ("with and
    /// without", "portal venous"): an attenuation its findings state may be of that phase.
    #[serde(default)]
    pub contrast_phrases: Vec<String>,
    /// Words of an attenuation input's label that say it is measured without contrast
    /// ("unenhanced"; "non", "contrast" of "Non-contrast CT attenuation"), which an
    /// examination without contrast states for every finding of its report.
    #[serde(default)]
    pub unenhanced_label_words: Vec<String>,
    /// The section headings reports write, by kind.
    pub sections: Vec<SectionWords>,
    /// The report-wide setting a report states (screening, known cancer, HCC risk, pregnancy,
    /// immunosuppression, trauma, post-treatment, sex), each with the words that state it.
    pub settings: Vec<SettingWords>,
}

/// The words that name parts of one organ ([`Lexicon::organ_parts`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartWords {
    pub organ: String,
    pub phrases: Vec<String>,
}

/// One setting of a report and the phrases that state it ("known malignancy": known cancer).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingWords {
    pub setting: String,
    pub phrases: Vec<String>,
}

/// The headings of one kind of report section ("TECHNIQUE:", "CLINICAL HISTORY:").
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionWords {
    pub kind: SectionKind,
    pub phrases: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrganWords {
    pub organ: String,
    pub phrases: Vec<String>,
    pub verification: Verification,
    #[serde(default)]
    pub reviewer: Option<String>,
    #[serde(default)]
    pub reviewed_on: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModalityWords {
    pub modality: String,
    pub phrases: Vec<String>,
    /// What the systems list's `modality` filter accepts besides the name (case-insensitive).
    #[serde(default)]
    pub spellings: Vec<String>,
    pub verification: Verification,
    #[serde(default)]
    pub reviewer: Option<String>,
    #[serde(default)]
    pub reviewed_on: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredNoun {
    pub noun: String,
    pub phrases: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
}

/// `cues.json`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CueFile {
    #[serde(default)]
    pub about: Option<String>,
    pub cues: Vec<Cue>,
}

/// When any phrase occurs in a finding (and the finding concerns `organ`, when given), each
/// effect multiplies the score of the systems it targets.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cue {
    pub name: String,
    #[serde(default)]
    pub organ: Option<String>,
    pub phrases: Vec<String>,
    /// Report-wide settings (`lexicon.json`, `settings`) that fire the cue for every finding
    /// of the report about its organ, wherever the report states them.
    #[serde(default)]
    pub settings: Vec<String>,
    /// Modalities (`lexicon.json`, `modalities`) the finding must be read on for the cue to
    /// fire; none: any.
    #[serde(default)]
    pub modalities: Vec<String>,
    pub effects: Vec<Effect>,
    pub verification: Verification,
    #[serde(default)]
    pub reviewer: Option<String>,
    #[serde(default)]
    pub reviewed_on: Option<String>,
}

/// One effect of a cue: exactly one target (`system`, `lineage` or `family`), a factor, and
/// either the cited line it rests on (`basis`) or, when it only follows the words, `policy`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Effect {
    #[serde(default)]
    pub system: Option<String>,
    #[serde(default)]
    pub lineage: Option<String>,
    #[serde(default)]
    pub family: Option<Family>,
    pub factor: f64,
    #[serde(default)]
    pub basis: Option<Basis>,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// Report-wide settings (`lexicon.json`, `settings`) under which the effect does not hold
    /// ("incidental" favours Fleischner, but not in a screening examination, which it does not
    /// apply to).
    #[serde(default)]
    pub unless_settings: Vec<String>,
}

/// A cited line of the corpus: a system's slug and the line's path inside its file
/// (`scope[1]`, `decision_units[0]`, `decision_units[0].rules[2]`, `outcomes[3].definition`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Basis {
    pub system: String,
    pub line: String,
}

/// `ranking.json`: ranking policy, each weight with its reason.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ranking {
    #[serde(default)]
    pub about: Option<String>,
    pub search_hits: Weight<u32>,
    pub code_hits: Weight<u32>,
    pub finding_search_hits: Weight<u32>,
    /// A finding lists a system only when it scores at least this share of its first.
    pub finding_relative_floor: Weight<f64>,
    /// A finding of a report offers no system scoring below this, unless it names it.
    pub finding_min_score: Weight<f64>,
    pub outcome_share: Weight<f64>,
    pub outcome_floor: Weight<f64>,
    pub organ_bonus: Weight<f64>,
    pub organ_factor: Weight<f64>,
    pub other_organ_factor: Weight<f64>,
    pub modality_factor: Weight<f64>,
    pub other_modality_factor: Weight<f64>,
    pub superseded_factor: Weight<f64>,
    pub any_organ: Weight<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weight<T> {
    pub value: T,
    pub reason: String,
}

/// Collects problems with the file and path they concern.
struct Report<'a> {
    file: &'a str,
    problems: Vec<Problem>,
}

impl Report<'_> {
    fn add(&mut self, path: impl Into<String>, reason: impl Into<String>) {
        self.problems.push(Problem {
            file: self.file.to_string(),
            path: path.into(),
            reason: reason.into(),
        });
    }
}

/// The systems as grounding sees them: slugs, organs and lineages.
struct Corpus<'a> {
    systems: Vec<&'a System>,
    organs: BTreeSet<&'a str>,
}

impl<'a> Corpus<'a> {
    fn new(systems: &'a [(String, System)]) -> Corpus<'a> {
        let systems: Vec<&System> = systems.iter().map(|(_, s)| s).collect();
        let organs = systems
            .iter()
            .flat_map(|s| s.organs.iter().map(String::as_str))
            .collect();
        Corpus { systems, organs }
    }

    fn index(&self, slug: &str) -> Option<usize> {
        self.systems.iter().position(|s| s.slug == slug)
    }

    /// The indices of every version linked to `index` by `supersedes` or `superseded_by`,
    /// in corpus order.
    fn lineage(&self, index: usize) -> Vec<usize> {
        let mut members = BTreeSet::from([index]);
        let mut todo = vec![index];
        while let Some(i) = todo.pop() {
            let s = self.systems[i];
            let linked = s
                .currency
                .supersedes
                .iter()
                .chain(&s.currency.superseded_by);
            let back = self.systems.iter().enumerate().filter(|(_, o)| {
                o.currency.supersedes.contains(&s.slug)
                    || o.currency.superseded_by.contains(&s.slug)
            });
            let next: Vec<usize> = linked
                .filter_map(|slug| self.index(slug))
                .chain(back.map(|(j, _)| j))
                .collect();
            for j in next {
                if members.insert(j) {
                    todo.push(j);
                }
            }
        }
        members.into_iter().collect()
    }

    /// The systems an effect targets, or why it targets none.
    fn targets(&self, effect: &Effect) -> Result<Vec<usize>, String> {
        let named = [
            effect.system.is_some(),
            effect.lineage.is_some(),
            effect.family.is_some(),
        ];
        if named.iter().filter(|n| **n).count() != 1 {
            return Err("name exactly one target: system, lineage or family".into());
        }
        if let Some(family) = effect.family {
            return Ok((0..self.systems.len())
                .filter(|i| self.systems[*i].family == family)
                .collect());
        }
        let slug = effect.system.as_deref().or(effect.lineage.as_deref());
        let slug = slug.unwrap_or_default();
        let Some(index) = self.index(slug) else {
            let what = if effect.system.is_some() {
                "system"
            } else {
                "lineage"
            };
            return Err(format!(
                "unknown {what} '{slug}': no corpus/systems/{slug}.json"
            ));
        };
        let lineage = self.lineage(index);
        let current = lineage
            .iter()
            .any(|i| self.systems[*i].status == Status::Current);
        if !current && self.systems[index].status == Status::Retired {
            return Err(format!(
                "'{slug}' is retired and no version of its lineage is current: \
                 target the current successor, or remove the effect"
            ));
        }
        Ok(if effect.system.is_some() {
            vec![index]
        } else {
            lineage
        })
    }
}

/// Whether `phrase` is written as the finding's text is folded before matching.
fn folded(phrase: &str) -> bool {
    !phrase.is_empty() && text::joined(phrase) == phrase
}

/// Checks a list of phrases: folded, and (when `one_word`) a single word.
fn check_phrases(report: &mut Report, path: &str, phrases: &[String], one_word: bool) {
    if phrases.is_empty() {
        report.add(path, "list at least one phrase");
    }
    for (i, p) in phrases.iter().enumerate() {
        if !folded(p) {
            let fold = text::joined(p);
            report.add(
                format!("{path}[{i}]"),
                format!("'{p}' is not written folded: write '{fold}' (lower case, ASCII, one space between words)"),
            );
        } else if one_word && p.contains(' ') {
            report.add(
                format!("{path}[{i}]"),
                format!("'{p}' must be a single word"),
            );
        }
    }
}

fn check_review(report: &mut Report, path: &str, review: Review) {
    if review.verification == Verification::Verified {
        match (review.reviewer, review.reviewed_on) {
            (Some(_), Some(date)) if is_date(date) => {}
            (Some(_), Some(date)) => report.add(
                format!("{path}.reviewed_on"),
                format!("'{date}' is not a YYYY-MM-DD date"),
            ),
            _ => report.add(path, "'verified' requires reviewer and reviewed_on"),
        }
    }
}

/// The clinical line a basis points to, as JSON, when it is one (text, citation, locator).
fn line_at<'v>(system: &'v Value, path: &str) -> Option<&'v Value> {
    let mut at = system;
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        at = at.get(key)?;
        if !rest.is_empty() {
            let n: usize = rest.strip_suffix(']')?.parse().ok()?;
            at = at.get(n)?;
        }
    }
    let is_line = ["text", "citation", "locator"]
        .iter()
        .all(|k| at.get(k).is_some_and(Value::is_string));
    is_line.then_some(at)
}

/// Checks the grounding knowledge against the systems; an empty result means it may be built.
pub fn validate(grounding: &Grounding, systems: &[(String, System)]) -> Vec<Problem> {
    let corpus = Corpus::new(systems);
    let mut problems = Vec::new();
    problems.extend(validate_lexicon(&grounding.lexicon, &corpus));
    problems.extend(validate_cues(&grounding.cues, &corpus));
    // A cue's modalities and settings name entries of the lexicon.
    let lexicon = &grounding.lexicon;
    let modalities: Vec<&str> = lexicon
        .modalities
        .iter()
        .map(|m| m.modality.as_str())
        .collect();
    let settings: Vec<&str> = lexicon
        .settings
        .iter()
        .map(|s| s.setting.as_str())
        .collect();
    for (i, cue) in grounding.cues.cues.iter().enumerate() {
        // An effect's exceptions name settings too (`effects[k].unless_settings`).
        let exceptions = cue.effects.iter().enumerate().map(|(k, e)| {
            (
                format!("effects[{k}].unless_settings"),
                "settings",
                &e.unless_settings,
                &settings,
            )
        });
        let lists = [
            (
                "modalities".to_string(),
                "modalities",
                &cue.modalities,
                &modalities,
            ),
            ("settings".to_string(), "settings", &cue.settings, &settings),
        ];
        for (key, kind, listed, known) in lists.into_iter().chain(exceptions) {
            for (k, name) in listed.iter().enumerate() {
                if !known.contains(&name.as_str()) {
                    problems.push(Problem {
                        file: CUES_FILE.to_string(),
                        path: format!("$.cues[{i}].{key}[{k}]"),
                        reason: format!(
                            "unknown {kind} entry '{name}': lexicon.json lists the {kind}"
                        ),
                    });
                }
            }
        }
    }
    // An input read from the report's setting names one, and is a boolean about the patient
    // (the setting's statement makes it true).
    for (file, system) in systems {
        for (k, input) in system.inputs.iter().enumerate() {
            let Some(setting) = &input.setting else {
                continue;
            };
            let reason = if !settings.contains(&setting.as_str()) {
                format!("unknown setting '{setting}': lexicon.json lists the settings")
            } else if input.kind != InputType::Boolean || input.about != Some(About::Patient) {
                "only a boolean input with `about: patient` is read from a setting".to_string()
            } else {
                continue;
            };
            problems.push(Problem {
                file: file.clone(),
                path: format!("$.inputs[{k}].setting"),
                reason,
            });
        }
    }
    problems.extend(validate_ranking(&grounding.ranking, &corpus));
    problems.extend(validate_assertions(&grounding.assertions));
    problems
}

fn validate_assertions(a: &Assertions) -> Vec<Problem> {
    let mut r = Report {
        file: ASSERTIONS_FILE,
        problems: Vec::new(),
    };
    if a.max_scope == 0 {
        r.add("$.max_scope", "a scope reaches at least one word");
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, t) in a.triggers.iter().enumerate() {
        let path = format!("$.triggers[{i}].phrase");
        if !folded(&t.phrase) {
            let fold = text::joined(&t.phrase);
            r.add(
                &path,
                format!("'{}' is not written folded: write '{fold}'", t.phrase),
            );
        }
        if let Some(first) = seen.insert(&t.phrase, i) {
            r.add(path, format!("'{}' is also trigger {first}", t.phrase));
        }
    }
    check_phrases(&mut r, "$.pseudo_triggers", &a.pseudo_triggers, false);
    for (i, p) in a.pseudo_triggers.iter().enumerate() {
        let words: Vec<&str> = p.split(' ').collect();
        let holds_trigger = a.triggers.iter().any(|t| {
            let tw: Vec<&str> = t.phrase.split(' ').collect();
            words.windows(tw.len()).any(|w| w == &tw[..])
        });
        if !holds_trigger {
            r.add(
                format!("$.pseudo_triggers[{i}]"),
                format!("'{p}' holds no trigger, so it has nothing to keep from acting"),
            );
        }
    }
    check_phrases(&mut r, "$.terminators", &a.terminators, false);
    if !a.forward_terminators.is_empty() {
        check_phrases(
            &mut r,
            "$.forward_terminators",
            &a.forward_terminators,
            true,
        );
    }
    if !a.comma_terminators.is_empty() {
        check_phrases(&mut r, "$.comma_terminators", &a.comma_terminators, true);
    }
    check_phrases(&mut r, "$.fillers", &a.fillers, true);
    if !a.back_references.is_empty() {
        check_phrases(&mut r, "$.back_references", &a.back_references, false);
    }
    r.problems
}

fn validate_lexicon(lexicon: &Lexicon, corpus: &Corpus) -> Vec<Problem> {
    let mut r = Report {
        file: LEXICON_FILE,
        problems: Vec::new(),
    };
    let mut claimed: BTreeMap<&str, &str> = BTreeMap::new();
    let mut organs = BTreeSet::new();
    let sites = lexicon.other_sites.iter().enumerate();
    let entries = lexicon
        .organs
        .iter()
        .enumerate()
        .map(|(i, e)| (false, i, e));
    for (site, i, entry) in entries.chain(sites.map(|(i, e)| (true, i, e))) {
        let path = if site {
            format!("$.other_sites[{i}]")
        } else {
            format!("$.organs[{i}]")
        };
        if site && corpus.organs.contains(entry.organ.as_str()) {
            r.add(
                format!("{path}.organ"),
                format!(
                    "'{}' is an organ a system names: its words belong in organs",
                    entry.organ
                ),
            );
        }
        if !site && !corpus.organs.contains(entry.organ.as_str()) {
            let known: Vec<&str> = corpus.organs.iter().copied().collect();
            r.add(
                format!("{path}.organ"),
                format!(
                    "unknown organ '{}': no system names it; known: {}",
                    entry.organ,
                    known.join(", ")
                ),
            );
        }
        if !organs.insert(entry.organ.as_str()) {
            r.add(
                format!("{path}.organ"),
                format!("organ '{}' has two entries: merge them", entry.organ),
            );
        }
        check_phrases(&mut r, &format!("{path}.phrases"), &entry.phrases, false);
        for (k, p) in entry.phrases.iter().enumerate() {
            if let Some(first) = claimed.insert(p, &entry.organ) {
                if first != entry.organ {
                    r.add(
                        format!("{path}.phrases[{k}]"),
                        format!(
                            "'{p}' is claimed by two organs, '{first}' and '{}'",
                            entry.organ
                        ),
                    );
                }
            }
        }
        check_review(&mut r, &path, entry.review());
    }
    if !lexicon.organ_parts.is_empty() && lexicon.part_reach == 0 {
        r.add(
            "$.part_reach".to_string(),
            "must be at least 1 when organ_parts is given".to_string(),
        );
    }
    // A part's organ is an organ of the lexicon, and its words are another organ's: words no
    // other organ claims need no exception.
    for (i, part) in lexicon.organ_parts.iter().enumerate() {
        let path = format!("$.organ_parts[{i}]");
        if !lexicon.organs.iter().any(|o| o.organ == part.organ) {
            r.add(
                format!("{path}.organ"),
                format!("'{}' is not an organ of the lexicon", part.organ),
            );
        }
        check_phrases(&mut r, &format!("{path}.phrases"), &part.phrases, false);
        for (k, p) in part.phrases.iter().enumerate() {
            match claimed.get(p.as_str()) {
                Some(owner) if *owner != part.organ => {}
                _ => r.add(
                    format!("{path}.phrases[{k}]"),
                    format!("'{p}' is no other organ's phrase: it needs no exception"),
                ),
            }
        }
    }
    let mut claimed: BTreeMap<&str, &str> = BTreeMap::new();
    // The names first: a spelling may not be another modality's name.
    let mut spellings: Vec<(String, &str)> = lexicon
        .modalities
        .iter()
        .map(|m| (m.modality.clone(), m.modality.as_str()))
        .collect();
    for (i, entry) in lexicon.modalities.iter().enumerate() {
        let path = format!("$.modalities[{i}]");
        if !MODALITIES.contains(&entry.modality.as_str()) {
            r.add(
                format!("{path}.modality"),
                format!(
                    "unknown modality '{}'; known: {}",
                    entry.modality,
                    MODALITIES.join(", ")
                ),
            );
        }
        check_phrases(&mut r, &format!("{path}.phrases"), &entry.phrases, false);
        for (k, p) in entry.phrases.iter().enumerate() {
            if let Some(first) = claimed.insert(p, &entry.modality) {
                r.add(
                    format!("{path}.phrases[{k}]"),
                    format!("'{p}' is claimed twice (first by '{first}')"),
                );
            }
        }
        for (k, spelling) in entry.spellings.iter().enumerate() {
            let taken = spellings
                .iter()
                .find(|(s, _): &&(String, &str)| s.eq_ignore_ascii_case(spelling));
            if let Some((_, first)) = taken {
                r.add(
                    format!("{path}.spellings[{k}]"),
                    format!("spelling '{spelling}' is taken (by '{first}')"),
                );
            } else if spelling.trim() != spelling || spelling.is_empty() {
                r.add(
                    format!("{path}.spellings[{k}]"),
                    "a spelling is a non-empty trimmed name",
                );
            }
            spellings.push((spelling.clone(), &entry.modality));
        }
        check_review(&mut r, &path, entry.review());
    }
    for modality in MODALITIES {
        if !lexicon.modalities.iter().any(|m| m.modality == modality) {
            r.add(
                "$.modalities",
                format!("modality '{modality}' has no entry"),
            );
        }
    }
    let mut nouns: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, entry) in lexicon.measured_nouns.iter().enumerate() {
        let path = format!("$.measured_nouns[{i}]");
        check_phrases(&mut r, &format!("{path}.phrases"), &entry.phrases, false);
        for (k, p) in entry.phrases.iter().enumerate() {
            // A pair names a noun with what it is of ("aortic aneurysm"); a size before which
            // it is written measures the pair's noun.
            if p.split(' ').count() > 2 {
                r.add(
                    format!("{path}.phrases[{k}]"),
                    format!("'{p}' has more than two words"),
                );
            }
            if let Some(first) = nouns.insert(p, &entry.noun) {
                r.add(
                    format!("{path}.phrases[{k}]"),
                    format!(
                        "'{p}' is claimed by two nouns, '{first}' and '{}'",
                        entry.noun
                    ),
                );
            }
        }
    }
    for (key, list) in [
        ("lesion_nouns", &lexicon.lesion_nouns),
        ("structure_nouns", &lexicon.structure_nouns),
    ] {
        for (i, noun) in list.iter().enumerate() {
            if !lexicon.measured_nouns.iter().any(|m| &m.noun == noun) {
                r.add(
                    format!("$.{key}[{i}]"),
                    format!("'{noun}' is not a measured noun"),
                );
            }
        }
    }
    for (i, noun) in lexicon.structure_nouns.iter().enumerate() {
        if lexicon.lesion_nouns.contains(noun) {
            r.add(
                format!("$.structure_nouns[{i}]"),
                format!("'{noun}' is a lesion noun: a lesion is a finding whether measured or not"),
            );
        }
    }
    for (key, list) in [
        ("measure_words", &lexicon.measure_words),
        ("clause_breaks", &lexicon.clause_breaks),
        ("finding_joins", &lexicon.finding_joins),
        ("negations", &lexicon.negations),
        ("reference_fillers", &lexicon.reference_fillers),
        ("alternative_words", &lexicon.alternative_words),
        ("aggregate_words", &lexicon.aggregate_words),
        ("dimension_joins", &lexicon.dimension_joins),
        ("rate_words", &lexicon.rate_words),
        ("bound_words", &lexicon.bound_words),
        ("prior_words", &lexicon.prior_words),
        ("label_breaks", &lexicon.label_breaks),
        ("mean_words", &lexicon.mean_words),
        ("short_axis_words", &lexicon.short_axis_words),
        ("age_lead_words", &lexicon.age_lead_words),
        ("value_links", &lexicon.value_links),
        ("gauge_words", &lexicon.gauge_words),
        ("recommendation_words", &lexicon.recommendation_words),
        ("attenuation_words", &lexicon.attenuation_words),
        ("hu_words", &lexicon.hu_words),
        ("unenhanced_label_words", &lexicon.unenhanced_label_words),
    ] {
        check_phrases(&mut r, &format!("$.{key}"), list, true);
    }
    check_phrases(&mut r, "$.finding_words", &lexicon.finding_words, false);
    check_phrases(&mut r, "$.reference_words", &lexicon.reference_words, false);
    check_phrases(&mut r, "$.age_words", &lexicon.age_words, false);
    check_phrases(
        &mut r,
        "$.unenhanced_phrases",
        &lexicon.unenhanced_phrases,
        false,
    );
    check_phrases(
        &mut r,
        "$.contrast_phrases",
        &lexicon.contrast_phrases,
        false,
    );
    // A sex letter names a single word and one of the settings ("female", "male").
    for (i, [letter, sex]) in lexicon.age_sex_words.iter().enumerate() {
        let path = format!("$.age_sex_words[{i}]");
        check_phrases(&mut r, &path, std::slice::from_ref(letter), true);
        if !lexicon.settings.iter().any(|s| &s.setting == sex) {
            r.add(
                path,
                format!("unknown setting '{sex}': lexicon.json lists the settings"),
            );
        }
    }
    for (i, pair) in lexicon.opposite_words.iter().enumerate() {
        check_phrases(&mut r, &format!("$.opposite_words[{i}]"), pair, true);
        if pair[0] == pair[1] {
            r.add(
                format!("$.opposite_words[{i}]"),
                "a word is not its own opposite",
            );
        }
    }
    check_phrases(&mut r, "$.generic_values", &lexicon.generic_values, false);
    if !lexicon.short_values.is_empty() {
        check_phrases(&mut r, "$.short_values", &lexicon.short_values, true);
    }
    if !lexicon.percent_words.is_empty() {
        check_phrases(&mut r, "$.percent_words", &lexicon.percent_words, true);
    }
    if !lexicon.part_words.is_empty() {
        check_phrases(&mut r, "$.part_words", &lexicon.part_words, true);
    }
    let mut settings = BTreeSet::new();
    for (i, entry) in lexicon.settings.iter().enumerate() {
        let path = format!("$.settings[{i}]");
        if entry.setting.is_empty() || !settings.insert(entry.setting.as_str()) {
            r.add(
                format!("{path}.setting"),
                format!("setting '{}' is empty or named twice", entry.setting),
            );
        }
        check_phrases(&mut r, &format!("{path}.phrases"), &entry.phrases, false);
    }
    let mut headings: BTreeMap<&str, SectionKind> = BTreeMap::new();
    for (i, entry) in lexicon.sections.iter().enumerate() {
        let path = format!("$.sections[{i}].phrases");
        check_phrases(&mut r, &path, &entry.phrases, false);
        for (k, p) in entry.phrases.iter().enumerate() {
            if let Some(first) = headings.insert(p, entry.kind) {
                r.add(
                    format!("{path}[{k}]"),
                    format!("heading '{p}' is claimed twice (first by {first:?})"),
                );
            }
        }
    }
    r.problems
}

fn validate_cues(file: &CueFile, corpus: &Corpus) -> Vec<Problem> {
    let mut r = Report {
        file: CUES_FILE,
        problems: Vec::new(),
    };
    let details: Vec<Value> = corpus
        .systems
        .iter()
        .map(|s| serde_json::to_value(s).unwrap_or(Value::Null))
        .collect();
    let mut names = BTreeSet::new();
    for (i, cue) in file.cues.iter().enumerate() {
        let path = format!("$.cues[{i}]");
        if cue.name.trim().is_empty() {
            r.add(
                format!("{path}.name"),
                "a cue needs a name (it is shown as the reason)",
            );
        } else if !names.insert(cue.name.as_str()) {
            r.add(
                format!("{path}.name"),
                format!("two cues are named '{}'", cue.name),
            );
        }
        if let Some(organ) = &cue.organ {
            if !corpus.organs.contains(organ.as_str()) {
                r.add(
                    format!("{path}.organ"),
                    format!("unknown organ '{organ}': no system names it"),
                );
            }
        }
        check_phrases(&mut r, &format!("{path}.phrases"), &cue.phrases, false);
        check_review(&mut r, &path, cue.review());
        if cue.effects.is_empty() {
            r.add(format!("{path}.effects"), "a cue needs at least one effect");
        }
        for (k, effect) in cue.effects.iter().enumerate() {
            let path = format!("{path}.effects[{k}]");
            if let Err(reason) = corpus.targets(effect) {
                r.add(&path, reason);
            }
            if !(effect.factor.is_finite() && effect.factor > 0.0) {
                r.add(
                    format!("{path}.factor"),
                    format!(
                        "factor {} must be above 0 (below 1 disfavours, above 1 favours)",
                        effect.factor
                    ),
                );
            } else if effect.factor == 1.0 {
                r.add(
                    format!("{path}.factor"),
                    "a factor of 1 changes nothing: remove the effect",
                );
            }
            match (&effect.basis, &effect.policy) {
                (Some(_), Some(_)) => r.add(
                    &path,
                    "give basis (a cited line) or policy (a reason), not both",
                ),
                (None, None) => r.add(
                    &path,
                    "a clinical cue effect needs a basis: the cited corpus line it rests on \
                     ({\"system\": slug, \"line\": \"scope[N]\"}); an effect that only follows \
                     the words of the finding gives a policy reason instead",
                ),
                (None, Some(reason)) if reason.trim().is_empty() => {
                    r.add(format!("{path}.policy"), "the policy reason is empty")
                }
                (Some(basis), None) => match corpus.index(&basis.system) {
                    None => r.add(
                        format!("{path}.basis.system"),
                        format!("unknown system '{}'", basis.system),
                    ),
                    Some(s) => {
                        if line_at(&details[s], &basis.line).is_none() {
                            r.add(
                                format!("{path}.basis.line"),
                                format!(
                                    "'{}' is not a cited line of {} (write a path such as scope[0] or decision_units[1])",
                                    basis.line, basis.system
                                ),
                            );
                        }
                    }
                },
                (None, Some(_)) => {}
            }
        }
    }
    r.problems
}

fn validate_ranking(ranking: &Ranking, corpus: &Corpus) -> Vec<Problem> {
    let mut r = Report {
        file: RANKING_FILE,
        problems: Vec::new(),
    };
    for (key, w) in ranking.factors() {
        if !(w.value.is_finite() && w.value > 0.0) {
            r.add(
                format!("$.{key}.value"),
                format!("{} must be above 0", w.value),
            );
        }
    }
    for (key, w) in ranking.reasons() {
        if w.trim().is_empty() {
            r.add(
                format!("$.{key}.reason"),
                "each weight says why it is what it is",
            );
        }
    }
    if ranking.search_hits.value == 0 || ranking.code_hits.value > ranking.search_hits.value {
        r.add("$.code_hits.value", "0 < code_hits <= search_hits");
    }
    if ranking.finding_min_score.value < 0.0 {
        r.add("$.finding_min_score.value", "a score: 0 or more");
    }
    let floor = ranking.finding_relative_floor.value;
    if !(floor > 0.0 && floor < 1.0) {
        r.add(
            "$.finding_relative_floor.value",
            "a share of the first system's score: above 0 and below 1",
        );
    }
    if ranking.finding_search_hits.value == 0 {
        r.add(
            "$.finding_search_hits.value",
            "a finding reads at least one hit",
        );
    }
    if !corpus.organs.contains(ranking.any_organ.value.as_str()) {
        r.add(
            "$.any_organ.value",
            format!("unknown organ '{}'", ranking.any_organ.value),
        );
    }
    r.problems
}

impl Ranking {
    fn factors(&self) -> [(&'static str, &Weight<f64>); 8] {
        [
            ("outcome_share", &self.outcome_share),
            ("outcome_floor", &self.outcome_floor),
            ("organ_bonus", &self.organ_bonus),
            ("organ_factor", &self.organ_factor),
            ("other_organ_factor", &self.other_organ_factor),
            ("modality_factor", &self.modality_factor),
            ("other_modality_factor", &self.other_modality_factor),
            ("superseded_factor", &self.superseded_factor),
        ]
    }

    fn reasons(&self) -> Vec<(&'static str, &str)> {
        let mut out: Vec<(&'static str, &str)> = self
            .factors()
            .iter()
            .map(|(k, w)| (*k, w.reason.as_str()))
            .collect();
        out.push(("search_hits", &self.search_hits.reason));
        out.push(("code_hits", &self.code_hits.reason));
        out.push(("finding_search_hits", &self.finding_search_hits.reason));
        out.push((
            "finding_relative_floor",
            &self.finding_relative_floor.reason,
        ));
        out.push(("finding_min_score", &self.finding_min_score.reason));
        out.push(("any_organ", &self.any_organ.reason));
        out
    }
}

/// What the knowledge reaches: the systems no cue targets by system or lineage (family-wide
/// cues aside), and the organs of the corpus no lexicon word points to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    pub cues: usize,
    pub organ_phrases: usize,
    /// Slugs of the systems no cue names by system or lineage.
    pub without_cue: Vec<String>,
    /// Of those, the ones a family-wide cue still reaches.
    pub family_only: Vec<String>,
    /// Organs of the corpus without a lexicon entry.
    pub organs_without_words: Vec<String>,
}

/// The coverage of the knowledge over the systems (assumes it validated).
pub fn coverage(grounding: &Grounding, systems: &[(String, System)]) -> Coverage {
    let corpus = Corpus::new(systems);
    let effects = || grounding.cues.cues.iter().flat_map(|c| &c.effects);
    let named: BTreeSet<usize> = effects()
        .filter(|e| e.family.is_none())
        .filter_map(|e| corpus.targets(e).ok())
        .flatten()
        .collect();
    let families: BTreeSet<Family> = effects().filter_map(|e| e.family).collect();
    let without: Vec<&System> = (0..corpus.systems.len())
        .filter(|i| !named.contains(i))
        .map(|i| corpus.systems[i])
        .collect();
    Coverage {
        cues: grounding.cues.cues.len(),
        organ_phrases: grounding
            .lexicon
            .organs
            .iter()
            .map(|o| o.phrases.len())
            .sum(),
        without_cue: without.iter().map(|s| s.slug.clone()).collect(),
        family_only: without
            .iter()
            .filter(|s| families.contains(&s.family))
            .map(|s| s.slug.clone())
            .collect(),
        organs_without_words: corpus
            .organs
            .iter()
            .filter(|o| **o != grounding.ranking.any_organ.value)
            .filter(|o| !grounding.lexicon.organs.iter().any(|e| e.organ == **o))
            .map(|o| o.to_string())
            .collect(),
    }
}

/// The knowledge as Rust source for the worker's `knowledge` module (assumes it validated).
pub fn emit(grounding: &Grounding, systems: &[(String, System)]) -> String {
    let corpus = Corpus::new(systems);
    let lex = &grounding.lexicon;
    let mut out = String::from("// Generated by build.rs from corpus/grounding/: do not edit.\n\n");
    let words = |entries: Vec<(&str, &[String])>| -> String {
        let items: Vec<String> = entries
            .iter()
            .map(|(name, phrases)| format!("Words {{ name: {name:?}, phrases: &{phrases:?} }}"))
            .collect();
        format!("&[{}]", items.join(", "))
    };
    // The sites no system is about are read as organs, after them.
    let organs = words(
        lex.organs
            .iter()
            .chain(&lex.other_sites)
            .map(|o| (o.organ.as_str(), &o.phrases[..]))
            .collect(),
    );
    let modalities = words(
        lex.modalities
            .iter()
            .map(|m| (m.modality.as_str(), &m.phrases[..]))
            .collect(),
    );
    let measured = words(
        lex.measured_nouns
            .iter()
            .map(|m| (m.noun.as_str(), &m.phrases[..]))
            .collect(),
    );
    let spellings: Vec<(&str, &str)> = lex
        .modalities
        .iter()
        .map(|m| (m.modality.as_str(), m.modality.as_str()))
        .chain(lex.modalities.iter().flat_map(|m| {
            m.spellings
                .iter()
                .map(|s| (s.as_str(), m.modality.as_str()))
        }))
        .collect();
    let sections: Vec<String> = lex
        .sections
        .iter()
        .map(|s| {
            format!(
                "SectionWords {{ kind: SectionKind::{:?}, phrases: &{:?} }}",
                s.kind, s.phrases
            )
        })
        .collect();
    let sections = format!("&[{}]", sections.join(", "));
    let settings = words(
        lex.settings
            .iter()
            .map(|s| (s.setting.as_str(), &s.phrases[..]))
            .collect(),
    );
    let organ_parts = words(
        lex.organ_parts
            .iter()
            .map(|p| (p.organ.as_str(), &p.phrases[..]))
            .collect(),
    );
    let part_reach = lex.part_reach;
    writeln!(
        out,
        "pub static LEXICON: Lexicon = Lexicon {{\n    organs: {organs},\n    organ_parts: {organ_parts},\n    part_reach: {part_reach},\n    modalities: {modalities},\n    \
         sections: {sections},\n    \
         modality_spellings: &{spellings:?},\n    \
         measured_nouns: {measured},\n    lesion_nouns: &{:?},\n    structure_nouns: &{:?},\n    measure_words: &{:?},\n    \
         clause_breaks: &{:?},\n    finding_joins: &{:?},\n    negations: &{:?},\n    reference_words: &{:?},\n    reference_fillers: &{:?},\n    alternative_words: &{:?},\n    aggregate_words: &{:?},\n    dimension_joins: &{:?},\n    rate_words: &{:?},\n    bound_words: &{:?},\n    prior_words: &{:?},\n    label_breaks: &{:?},\n    mean_words: &{:?},\n    short_axis_words: &{:?},\n    opposite_words: &{:?},\n    generic_values: &{:?},\n    short_values: &{:?},\n    percent_words: &{:?},\n    part_words: &{:?},\n    age_words: &{:?},\n    age_lead_words: &{:?},\n    age_sex_words: &{:?},\n    gauge_words: &{:?},\n    value_links: &{:?},\n    \
         finding_words: &{:?},\n    recommendation_words: &{:?},\n    attenuation_words: &{:?},\n    hu_words: &{:?},\n    unenhanced_phrases: &{:?},\n    contrast_phrases: &{:?},\n    unenhanced_label_words: &{:?},\n    settings: {settings},\n}};\n",
        lex.lesion_nouns, lex.structure_nouns, lex.measure_words, lex.clause_breaks, lex.finding_joins, lex.negations, lex.reference_words, lex.reference_fillers, lex.alternative_words, lex.aggregate_words, lex.dimension_joins, lex.rate_words, lex.bound_words, lex.prior_words, lex.label_breaks, lex.mean_words, lex.short_axis_words, lex.opposite_words, lex.generic_values, lex.short_values, lex.percent_words, lex.part_words, lex.age_words, lex.age_lead_words, lex.age_sex_words, lex.gauge_words, lex.value_links,
        lex.finding_words, lex.recommendation_words, lex.attenuation_words, lex.hu_words, lex.unenhanced_phrases, lex.contrast_phrases, lex.unenhanced_label_words
    )
    .unwrap();
    writeln!(out, "pub static CUES: &[Cue] = &[").unwrap();
    for cue in &grounding.cues.cues {
        let effects: Vec<String> = cue
            .effects
            .iter()
            .map(|e| {
                let systems: Vec<u16> = corpus
                    .targets(e)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|i| i as u16)
                    .collect();
                // The basis as the cited line it points to (its system's index, its text,
                // reference id and locator), so an answer can show why without a lookup.
                let basis = e
                    .basis
                    .as_ref()
                    .and_then(|b| {
                        let index = corpus.index(&b.system)?;
                        let value = serde_json::to_value(corpus.systems[index]).ok()?;
                        let line = line_at(&value, &b.line)?;
                        Some(format!(
                            "Some(Basis {{ system: {index}, line: {:?}, text: {:?}, citation: {:?}, locator: {:?} }})",
                            b.line,
                            line["text"].as_str().unwrap_or_default(),
                            line["citation"].as_str().unwrap_or_default(),
                            line["locator"].as_str().unwrap_or_default(),
                        ))
                    })
                    .unwrap_or_else(|| "None".to_string());
                format!(
                    "Effect {{ systems: &{systems:?}, factor: {:?}, basis: {basis}, policy: {:?}, unless: &{:?} }}",
                    e.factor, e.policy, e.unless_settings
                )
            })
            .collect();
        writeln!(
            out,
            "    Cue {{ name: {:?}, organ: {:?}, phrases: &{:?}, settings: &{:?}, modalities: &{:?}, effects: &[{}] }},",
            cue.name,
            cue.organ,
            cue.phrases,
            cue.settings,
            cue.modalities,
            effects.join(", ")
        )
        .unwrap();
    }
    writeln!(out, "];\n").unwrap();
    let a = &grounding.assertions;
    let split = |p: &str| -> Vec<String> { p.split(' ').map(String::from).collect() };
    writeln!(
        out,
        "pub static ASSERTIONS: Assertions = Assertions {{\n    max_scope: {},",
        a.max_scope
    )
    .unwrap();
    writeln!(out, "    triggers: &[").unwrap();
    for t in &a.triggers {
        writeln!(
            out,
            "        Trigger {{ words: &{:?}, category: Category::{:?}, direction: Direction::{:?} }},",
            split(&t.phrase),
            t.category,
            t.direction
        )
        .unwrap();
    }
    let lists = |v: &[String]| -> String {
        let items: Vec<String> = v.iter().map(|p| format!("&{:?}", split(p))).collect();
        format!("&[{}]", items.join(", "))
    };
    writeln!(
        out,
        "    ],\n    pseudo_triggers: {},\n    terminators: {},\n    forward_terminators: &{:?},\n    comma_terminators: &{:?},\n    fillers: &{:?},\n    back_references: {},\n}};\n",
        lists(&a.pseudo_triggers),
        lists(&a.terminators),
        a.forward_terminators,
        a.comma_terminators,
        a.fillers,
        lists(&a.back_references)
    )
    .unwrap();
    let r = &grounding.ranking;
    writeln!(
        out,
        "pub static RANKING: Ranking = Ranking {{ search_hits: {}, code_hits: {}, finding_search_hits: {}, finding_relative_floor: {:?}, finding_min_score: {:?}, outcome_share: {:?}, \
         outcome_floor: {:?}, organ_bonus: {:?}, organ_factor: {:?}, other_organ_factor: {:?}, \
         modality_factor: {:?}, other_modality_factor: {:?}, superseded_factor: {:?}, any_organ: {:?} }};",
        r.search_hits.value,
        r.code_hits.value,
        r.finding_search_hits.value,
        r.finding_relative_floor.value,
        r.finding_min_score.value,
        r.outcome_share.value,
        r.outcome_floor.value,
        r.organ_bonus.value,
        r.organ_factor.value,
        r.other_organ_factor.value,
        r.modality_factor.value,
        r.other_modality_factor.value,
        r.superseded_factor.value,
        r.any_organ.value,
    )
    .unwrap();
    out
}
