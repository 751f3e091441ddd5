//! The corpus source format: what a `corpus/systems/<slug>.json` file contains.
//!
//! These types are shared by `build.rs` (which reads, validates and compiles the files) and
//! the crate's host tests. Unknown fields are refused so that a typo fails the build instead
//! of silently dropping a clinical line. `corpus/README.md` documents the format.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The four families of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Lexicon,
    Algorithm,
    Incidental,
    Appropriateness,
}

impl Family {
    /// Every family, in the interface's order.
    pub const ALL: [Family; 4] = [
        Family::Lexicon,
        Family::Algorithm,
        Family::Incidental,
        Family::Appropriateness,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Lexicon => "lexicon",
            Family::Algorithm => "algorithm",
            Family::Incidental => "incidental",
            Family::Appropriateness => "appropriateness",
        }
    }
}

/// Whether a system is in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Current,
    Retired,
    Draft,
}

impl Status {
    /// Every status, in the interface's order.
    pub const ALL: [Status; 3] = [Status::Current, Status::Retired, Status::Draft];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Current => "current",
            Status::Retired => "retired",
            Status::Draft => "draft",
        }
    }
}

/// How the source characterises the statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(clippy::enum_variant_names)] // The names are the wire values of the format.
pub enum Consensus {
    Guideline,
    Consensus,
    ExpertOpinion,
}

/// Whether a named radiologist has checked the line against its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verification {
    Draft,
    Verified,
}

/// The notice every clinical payload carries.
pub const NOTICE: &str = "Reference material only, paraphrased from and cited to primary sources; \
not a medical device and no substitute for clinical judgment. The reporting radiologist remains \
author of and responsible for the report. Lines marked draft have not been verified by a \
radiologist against their source.";

/// Query parameters of `GET /api/v1/systems/{slug}/evaluate` that are not inputs, so no input
/// may be named after them.
pub const RESERVED_PARAMS: [&str; 2] = ["format", "units"];

/// What a report asserts about a mention (grounding's `assertions.json`): the category a
/// trigger gives the words of its scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Negated or ruled out.
    Negated,
    /// Hedged: the finding may be present.
    Possible,
    /// In the past: resolved, prior, treated.
    Historical,
    /// Conditional or asked about: "if", "to exclude".
    Hypothetical,
    /// About a relative: "family history of".
    Family,
}

impl Category {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Negated => "negated",
            Category::Possible => "possible",
            Category::Historical => "historical",
            Category::Hypothetical => "hypothetical",
            Category::Family => "family",
        }
    }
}

/// Which way an assertion trigger's scope runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Forward,
    Backward,
    Both,
}

/// The kinds of report section (grounding's `lexicon.json`, `sections`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionKind {
    History,
    Technique,
    Comparison,
    Findings,
    Impression,
    /// Who was told what, and when ("COMMUNICATION: The new liver lesion was discussed with
    /// ..."): it restates findings for the record and reports none of its own.
    Communication,
}

impl SectionKind {
    /// Whether the section is about the examination rather than the patient: technique and
    /// comparison name organs and modalities without reporting on them.
    pub fn describes_the_examination(self) -> bool {
        matches!(self, SectionKind::Technique | SectionKind::Comparison)
    }
}

/// The modalities a system may name.
pub const MODALITIES: [&str; 6] = ["CT", "MRI", "US", "Mammography", "PET/CT", "XR"];

/// Declares a struct whose fields include those of a clinical line, flattened.
///
/// serde cannot combine `flatten` with `deny_unknown_fields`, so the line fields are spelled
/// out in each struct that is itself a line, and [`AsLine`] gives uniform access to them.
macro_rules! line_struct {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty,)*
            /// The paraphrase.
            pub text: String,
            /// A key of the system's references.
            pub citation: String,
            /// Where in the source: section, table, figure or page.
            pub locator: String,
            pub consensus: Consensus,
            pub verification: Verification,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub reviewer: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub reviewed_on: Option<String>,
        }

        impl AsLine for $name {
            fn line(&self) -> LineRef<'_> {
                LineRef {
                    text: &self.text,
                    citation: &self.citation,
                    locator: &self.locator,
                    consensus: self.consensus,
                    verification: self.verification,
                    reviewer: self.reviewer.as_deref(),
                    reviewed_on: self.reviewed_on.as_deref(),
                }
            }
        }
    };
}

/// A borrowed view of the line fields of anything that is a clinical line.
#[derive(Clone, Copy, Debug)]
pub struct LineRef<'a> {
    pub text: &'a str,
    pub citation: &'a str,
    pub locator: &'a str,
    pub consensus: Consensus,
    pub verification: Verification,
    pub reviewer: Option<&'a str>,
    pub reviewed_on: Option<&'a str>,
}

/// Anything that carries the fields of a clinical line.
pub trait AsLine {
    fn line(&self) -> LineRef<'_>;
}

line_struct! {
    /// A clinical statement: criterion, definition, risk figure, management step.
    pub struct Line {}
}

/// One system file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct System {
    pub slug: String,
    pub name: String,
    pub short_name: String,
    pub abbreviations: Vec<String>,
    pub synonyms: Vec<String>,
    pub family: Family,
    pub status: Status,
    pub organs: Vec<String>,
    pub modalities: Vec<String>,
    pub issuer: String,
    pub version: String,
    pub summary: String,
    pub currency: Currency,
    pub lineage: Vec<LineageEvent>,
    pub references: BTreeMap<String, Reference>,
    pub scope: Vec<Line>,
    pub inputs: Vec<Input>,
    pub decision_units: Vec<DecisionUnit>,
    pub outcomes: Vec<Outcome>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    pub crossrefs: Vec<Crossref>,
    pub gaps: Vec<Gap>,
    /// External codes of the system (a RadElement set, a SNOMED CT observable).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<Code>,
}

/// Validity of the version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Currency {
    pub effective: String,
    pub last_reviewed: String,
    pub supersedes: Vec<String>,
    pub superseded_by: Vec<String>,
    /// The day the system joined radref's corpus, when it joined after the first release: the
    /// changes feed announces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<String>,
}

/// Kinds of version event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Published,
    Updated,
    Superseded,
    Retired,
    Corrected,
}

impl EventKind {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Published => "published",
            EventKind::Updated => "updated",
            EventKind::Superseded => "superseded",
            EventKind::Retired => "retired",
            EventKind::Corrected => "corrected",
        }
    }
}

/// A dated event in a system's version lineage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineageEvent {
    pub date: String,
    pub version: String,
    pub event: EventKind,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
}

/// A bibliographic reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub authors: Vec<String>,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    pub year: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Reference {
    /// The reference as one citation: authors. Title. Journal Year;Vol(Issue):Pages. doi. A
    /// list longer than `max_authors` is cut there and ends "et al.", as Vancouver style has it.
    /// The reference as a short citation: the first three authors, then "et al." (the form
    /// an evaluation, a diff and a FHIR note give).
    pub fn short_citation(&self) -> String {
        self.citation(3)
    }

    pub fn citation(&self, max_authors: usize) -> String {
        let mut authors = if self.authors.len() > max_authors {
            format!("{}, et al.", self.authors[..max_authors].join(", "))
        } else {
            self.authors.join(", ")
        };
        if !authors.ends_with('.') {
            authors.push('.');
        }
        let mut s = format!("{authors} {}.", self.title);
        if let Some(venue) = self.journal.as_ref().or(self.publisher.as_ref()) {
            s.push_str(&format!(" {venue}"));
        }
        s.push_str(&format!(" {}", self.year));
        if let Some(v) = &self.volume {
            s.push_str(&format!(";{v}"));
            if let Some(i) = &self.issue {
                s.push_str(&format!("({i})"));
            }
        }
        if let Some(p) = &self.pages {
            s.push_str(&format!(":{p}"));
        }
        s.push('.');
        if let Some(d) = &self.doi {
            s.push_str(&format!(" doi:{d}"));
        }
        s
    }
}

/// The type of a decision input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputType {
    Enum,
    Multi,
    Number,
    Boolean,
}

impl InputType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InputType::Enum => "enum",
            InputType::Multi => "multi",
            InputType::Number => "number",
            InputType::Boolean => "boolean",
        }
    }
}

/// One allowed value of an enum or multi input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputValue {
    pub value: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<Code>,
}

line_struct! {
    /// A named input of the decision units.
    pub struct Input {
        pub id: String,
        pub label: String,
        #[serde(rename = "type")]
        pub kind: InputType,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub values: Vec<InputValue>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub unit: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub derived_from: Option<String>,
        /// What the input describes, when it is the patient rather than a finding (menopausal
        /// status, clinical risk, a history of cancer): a report's clinical history that
        /// states it applies to each of the report's findings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub about: Option<About>,
        /// For a boolean input about the patient: the report setting (`lexicon.json`,
        /// `settings`) whose statement in a report's clinical history makes it true ("History
        /// of breast cancer" states `known_cancer`). Nothing makes it false: a history that
        /// does not mention a cancer does not rule one out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub setting: Option<String>,
        /// For a multi input: a report lists the values a finding has (a nodule's echogenic
        /// foci, an observation's major features), so the values a finding's text states are
        /// read as its whole list, and those it leaves out as absent. Unmarked, a multi input
        /// is never read from text (a list of risk factors a text half states would say the
        /// rest are absent).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        pub listed: bool,
        /// The phrases a report names the input by. For a percentage input (a number input in
        /// `%`): what it measures ("anterolisthesis" for a slip, "absolute washout"), so a
        /// percentage a finding writes next to one of them ("30% anterolisthesis", "absolute
        /// washout of 65%") is its value; unnamed, it is read only where the finding names its
        /// label before its number. For a boolean input about a finding: what states it
        /// ("enhancing nodule"), so a finding that writes one, neither ruled out nor hedged,
        /// makes it true; unnamed, a boolean is only read false.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub named_by: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub codes: Vec<Code>,
    }
}

/// What an input describes, when it is not a finding (see [`Input::about`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum About {
    /// The patient: stated once in a report's history, it holds for each finding.
    Patient,
}

/// The sum of the points of the chosen values of some inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Score {
    pub id: String,
    pub label: String,
    pub sum: Vec<String>,
}

line_struct! {
    /// A piece of the system's logic: inputs, an optional score and ordered rules.
    pub struct DecisionUnit {
        pub id: String,
        pub title: String,
        pub inputs: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub score: Option<Score>,
        pub rules: Vec<Rule>,
        /// Test vectors: `build.rs` evaluates each and refuses the build on a mismatch.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub examples: Vec<Example>,
        /// External codes of what the unit decides (a RadElement category element).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub codes: Vec<Code>,
    }
}

/// A test vector of a decision unit: inputs in, the expected answer out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// Values of the system's primary inputs (never derived ones), as a POST body gives them.
    pub inputs: serde_json::Map<String, serde_json::Value>,
    pub expect: Expect,
    /// Where in the source the case comes from (a table row, a figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What an example expects: the unit decided with this outcome and/or result, or (`needs`
/// alone) the unit stopped as `needs_inputs` missing exactly these inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<Vec<String>>,
}

line_struct! {
    /// A rule: when the condition holds, the outcome and/or result apply.
    pub struct Rule {
        pub when: Condition,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub outcome: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub result: Option<String>,
        /// The other units of the system that answer the case instead ("See solid nodules"):
        /// the rule decides nothing of its own but that this unit does not apply.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub defers_to: Vec<String>,
    }
}

/// Comparison operators of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    Has,
}

/// A condition over the inputs and score of a unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Condition {
    Compare(Compare),
    All(AllOf),
    Any(AnyOf),
    Not(NotOf),
    Always(AlwaysTrue),
}

/// `{"var", "op", "value"}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compare {
    pub var: String,
    pub op: Op,
    pub value: serde_json::Value,
}

/// `{"all": [...]}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllOf {
    pub all: Vec<Condition>,
}

/// `{"any": [...]}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnyOf {
    pub any: Vec<Condition>,
}

/// `{"not": ...}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotOf {
    pub not: Box<Condition>,
}

/// `{"always": true}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlwaysTrue {
    pub always: bool,
}

/// A category or end result of the system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    pub code: String,
    pub label: String,
    pub definition: Line,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Line>,
    pub management: Vec<Line>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<Code>,
}

/// A code of another terminology for a system, an input, a value, a decision unit or an
/// outcome, as confirmed where it was seen: never guessed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    pub scheme: CodeScheme,
    pub code: String,
    /// The code's name in its terminology.
    pub display: String,
    /// Where the code was confirmed: a URL, or `owner/repo:path@commit`.
    pub source: String,
    /// How the coded concept relates to what carries it.
    #[serde(default, skip_serializing_if = "CodeRelation::is_same")]
    pub relation: CodeRelation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The terminologies codes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CodeScheme {
    RadElement,
    RadLex,
    #[serde(rename = "SNOMED CT")]
    SnomedCt,
    #[serde(rename = "LOINC")]
    Loinc,
    #[serde(rename = "DICOM")]
    Dicom,
}

impl CodeScheme {
    pub const ALL: [CodeScheme; 5] = [
        CodeScheme::RadElement,
        CodeScheme::RadLex,
        CodeScheme::SnomedCt,
        CodeScheme::Loinc,
        CodeScheme::Dicom,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CodeScheme::RadElement => "RadElement",
            CodeScheme::RadLex => "RadLex",
            CodeScheme::SnomedCt => "SNOMED CT",
            CodeScheme::Loinc => "LOINC",
            CodeScheme::Dicom => "DICOM",
        }
    }
}

/// What a code names, relative to what carries it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeRelation {
    /// The same concept: the system's set, the input's element, the category's code.
    #[default]
    Same,
    /// A set or element describing the finding the system grades, not the system itself.
    Finding,
    /// A related concept (a measurement set beside the system).
    Related,
}

impl CodeRelation {
    pub fn is_same(&self) -> bool {
        *self == CodeRelation::Same
    }
}

/// Appropriateness ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(clippy::enum_variant_names)] // The names are the wire values of the format.
pub enum Rating {
    UsuallyAppropriate,
    MayBeAppropriate,
    UsuallyNotAppropriate,
}

impl Rating {
    /// The rating in words.
    pub fn words(self) -> &'static str {
        match self {
            Rating::UsuallyAppropriate => "usually appropriate",
            Rating::MayBeAppropriate => "may be appropriate",
            Rating::UsuallyNotAppropriate => "usually not appropriate",
        }
    }
}

/// A clinical variant of an appropriateness topic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub id: String,
    pub label: Line,
    pub procedures: Vec<Procedure>,
}

line_struct! {
    /// A procedure's rating within a variant.
    pub struct Procedure {
        pub procedure: String,
        pub rating: Rating,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rrl: Option<String>,
    }
}

/// Relations between systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relation {
    Supersedes,
    SupersededBy,
    Complements,
    Alternative,
    SeeAlso,
}

/// An identifier in another terminology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct External {
    pub scheme: ExternalScheme,
    pub id: String,
}

/// The external terminologies radref links to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExternalScheme {
    RadElement,
    RadLex,
}

/// A link to another system or an external identifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crossref {
    pub relation: Relation,
    pub note: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<External>,
    /// On a `supersedes` link only: where the superseded version's input ids and outcome codes
    /// became others in this one (ids that stay the same are not listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maps: Option<Correspondence>,
}

line_struct! {
    /// How an earlier version's ids correspond to this version's, where they differ: an input
    /// renamed (`inputs`: old id to new id), a category renamed, split or merged (`outcomes`:
    /// old code to the new codes; several old codes to one new code is a merge). Cited, like
    /// every clinical line, to the source that states the correspondence.
    pub struct Correspondence {
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        pub inputs: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        pub outcomes: BTreeMap<String, Vec<String>>,
    }
}

/// Something deliberately left out of a system file, with the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    /// `input` for a guideline input the file does not model yet (the evaluator cannot be
    /// asked about it); anything else left out otherwise.
    #[serde(default, skip_serializing_if = "GapKind::is_content")]
    pub kind: GapKind,
    pub topic: String,
    pub reason: String,
}

/// What a gap leaves out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GapKind {
    /// Content: a table, a figure, a section, a risk figure.
    #[default]
    Content,
    /// A guideline input the decision units do not take yet.
    Input,
}

impl GapKind {
    pub fn is_content(&self) -> bool {
        *self == GapKind::Content
    }
}

/// `corpus/coverage.json`: what is explicitly not yet covered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverageFile {
    pub not_covered: Vec<NotCovered>,
}

/// An entry of the not-yet-covered list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotCovered {
    pub name: String,
    /// The slug it will have, when one is planned (crossrefs may point to it already).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_slug: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    pub reason: String,
}
