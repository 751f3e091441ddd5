//! The grounding answer, typed: what `GET|POST /api/v1/context` and the `radref_ground` tool
//! return. serde writes its JSON; `render` writes its markdown block from the same struct, so
//! the two cannot disagree.
//!
//! Every clinical line in it is borrowed from the compiled corpus as it is, with its citation,
//! locator, consensus and verification; `verified` keeps only verified lines and counts the
//! ones it withheld.

use super::assertion::RuledOut;
use super::findings::Assertion;
use super::{prefill, setting};
use super::{rank_with_withheld, ContextQuery, Detail, Selected, Withheld};
use crate::corpus::compiled::{self, Logic, SYSTEMS};
use crate::corpus::evaluate::{self as evaluator, Cited, Evaluation, Given};
use crate::corpus::source::{
    About, AsLine, Family, InputType, Line, Outcome, Reference, Status, Verification, NOTICE,
};
use crate::corpus::text;
use crate::corpus::text::Word;
use crate::knowledge::{Knowledge, SectionKind};
use serde::Serialize;
use std::collections::BTreeMap;

/// Outcomes and rules shown per system, at most.
const MAX_OUTCOMES: usize = 8;
/// Outcomes a compact answer shows when the text matched or decided none.
const COMPACT_OUTCOMES: usize = 3;
const MAX_RULES_PER_UNIT: usize = 12;
const MAX_UNITS: usize = 4;

/// The answer to a grounding query.
#[derive(Clone, Debug, Serialize)]
pub struct Grounding {
    pub notice: &'static str,
    pub query: QueryEcho,
    pub finding: FindingRead,
    /// The report-wide setting, read once and applied to every finding.
    pub setting: super::setting::Setting,
    /// The report's findings, each with the systems that govern it (impression first).
    pub findings: Vec<FindingContext>,
    /// Findings past the most grounded per text, counted, not grounded.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_findings: usize,
    pub systems: Vec<SystemContext>,
    /// The references the cues' cited lines (`because`) point to, by system and id, each as
    /// one citation string: once per answer, not once per finding.
    pub cue_references: BTreeMap<&'static str, BTreeMap<&'static str, String>>,
    pub withheld_systems: Vec<WithheldSystem>,
    /// Said when there was nothing to ground.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A finding of the text and the systems that govern it.
#[derive(Clone, Debug, Serialize)]
pub struct FindingContext {
    /// The sentence as the text writes it.
    pub text: String,
    /// `[start, end)` character offsets in the submitted text.
    pub span: [usize; 2],
    /// The report section it stands in (none for a text without headings).
    pub section: Option<SectionKind>,
    pub assertion: Assertion,
    /// The trigger that made it possible, absent or historical, as the text writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<FindingTrigger>,
    /// Its systems, best first (none for a finding the text rules out).
    pub systems: Vec<FindingSystem>,
    /// The evaluator inputs of its first system that the finding's words state, each with the
    /// words it was read from.
    pub inputs: Vec<ReadInput>,
    /// The inputs that system's evaluator still needs, with their definitions.
    pub missing: Vec<MissingInput>,
    /// What that system's evaluator decides from the inputs read, when it has decision units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<FindingEvaluation>,
}

/// The trigger of a finding's assertion.
#[derive(Clone, Debug, Serialize)]
pub struct FindingTrigger {
    pub text: String,
    pub span: [usize; 2],
    /// The ConText category of the trigger (negated, possible, historical, hypothetical,
    /// family).
    pub category: crate::knowledge::Category,
}

/// An evaluator input read from the text.
#[derive(Clone, Debug, Serialize)]
pub struct ReadInput {
    pub id: &'static str,
    pub value: Given,
    /// The words as the text writes them, and their `[start, end)` character offsets.
    pub text: String,
    pub span: [usize; 2],
}

/// A finding's evaluation by its first system: the units the inputs read decide, each with
/// its cited rule and outcome, and the link that evaluates the finding (prefilled).
#[derive(Clone, Debug, Serialize)]
pub struct FindingEvaluation {
    pub slug: &'static str,
    pub decided: Vec<Decided>,
    pub link: String,
}

/// A system of a finding, and why.
#[derive(Clone, Debug, Serialize)]
pub struct FindingSystem {
    pub slug: &'static str,
    pub name: &'static str,
    pub score: f64,
    pub reasons: Vec<String>,
    /// The cues that weighed on it, each with the cited line (or the policy) it rests on.
    pub because: Vec<Because>,
}

/// A cue that weighed on a system's score: its factor (above 1 favours, below disfavours) and
/// the cited corpus line it rests on ("Does not apply to patients with a known primary
/// cancer"), or the policy when it only follows the words.
#[derive(Clone, Debug, Serialize)]
pub struct Because {
    pub cue: &'static str,
    pub factor: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<BasisLine>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<&'static str>,
}

/// The cited line of a cue's basis.
#[derive(Clone, Debug, Serialize)]
pub struct BasisLine {
    /// The system whose line it is, and the line's path in its file (`scope[2]`).
    pub system: &'static str,
    pub path: &'static str,
    pub text: &'static str,
    /// The reference's id in its system (`Grounding::cue_references` has it as one string).
    pub citation: &'static str,
    pub locator: &'static str,
}

/// Why a selected system's score was weighed as it was: its cues with their cited lines.
fn because(selected: &Selected) -> Vec<Because> {
    selected
        .because
        .iter()
        .map(|(cue, effect)| Because {
            cue,
            factor: effect.factor,
            line: effect.basis.as_ref().map(|b| BasisLine {
                system: SYSTEMS[b.system].slug,
                path: b.line,
                text: b.text,
                citation: b.citation,
                locator: b.locator,
            }),
            policy: effect.policy,
        })
        .collect()
}

/// The query as it was read.
#[derive(Clone, Debug, Serialize)]
pub struct QueryEcho {
    pub text: String,
    pub systems: Vec<String>,
    pub organ: Option<String>,
    pub limit: usize,
    pub verified: bool,
    pub detail: Detail,
    pub max_tokens: usize,
}

/// What was read from the finding.
#[derive(Clone, Debug, Serialize)]
pub struct FindingRead {
    pub organs: Vec<&'static str>,
    pub modalities: Vec<&'static str>,
    pub sizes_mm: Vec<f64>,
    pub age_years: Option<f64>,
    pub cues: Vec<&'static str>,
    pub named_systems: Vec<&'static str>,
    /// The phrases the text rules out, with their assertion and trigger: they pull in no
    /// system.
    pub ruled_out: Vec<RuledOut>,
}

/// A clinical line as the answer shows it (the evaluator's cited line, without a rule index).
pub type CitedLine = Cited<'static>;

/// A rule of a decision unit: its line, and the outcome code and/or result it gives.
#[derive(Clone, Debug, Serialize)]
pub struct RuleLine {
    #[serde(flatten)]
    pub line: CitedLine,
    pub outcome: Option<&'static str>,
    pub result: Option<&'static str>,
}

/// A decision unit: its summary line and its first rules.
#[derive(Clone, Debug, Serialize)]
pub struct UnitContext {
    pub id: &'static str,
    pub title: &'static str,
    pub summary: Option<CitedLine>,
    pub rules: Vec<RuleLine>,
}

/// An outcome (category) with its lines; `matched` when the finding's words matched its code.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeContext {
    pub code: &'static str,
    pub label: &'static str,
    pub matched: bool,
    pub definition: Option<CitedLine>,
    pub risk: Option<CitedLine>,
    pub management: Vec<CitedLine>,
}

/// Why a system was selected.
#[derive(Clone, Debug, Serialize)]
pub struct Why {
    pub score: f64,
    pub matched_terms: Vec<String>,
    pub reasons: Vec<String>,
    /// The cues that weighed on the score, each with the cited line it rests on.
    pub because: Vec<Because>,
}

/// A unit the finding alone decides.
#[derive(Clone, Debug, Serialize)]
pub struct Decided {
    pub unit: &'static str,
    pub title: &'static str,
    pub answer: String,
    /// The deciding rule's verification.
    pub verification: Option<Verification>,
    /// The deciding rule, cited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<CitedLine>,
    /// The outcome it gives, with its cited definition and management.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<DecidedOutcome>,
}

/// The outcome of a decided unit.
#[derive(Clone, Debug, Serialize)]
pub struct DecidedOutcome {
    pub code: &'static str,
    pub label: &'static str,
    pub definition: CitedLine,
    pub management: Vec<CitedLine>,
}

/// An input the evaluator still needs, with its definition.
#[derive(Clone, Debug, Serialize)]
pub struct MissingInput {
    pub id: &'static str,
    pub label: &'static str,
    #[serde(rename = "type")]
    pub kind: InputType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// Where to read the system and evaluate the finding.
#[derive(Clone, Debug, Serialize)]
pub struct Links {
    pub system: String,
    /// The evaluate link, prefilled with what the finding states.
    pub evaluate: String,
}

/// A selected system with its cited lines and what the evaluator makes of the finding.
#[derive(Clone, Debug, Serialize)]
pub struct SystemContext {
    pub slug: &'static str,
    pub name: &'static str,
    pub short_name: &'static str,
    pub family: Family,
    pub status: Status,
    pub version: &'static str,
    pub organs: &'static [&'static str],
    pub modalities: &'static [&'static str],
    pub why: Why,
    pub scope: Vec<CitedLine>,
    pub decision_units: Vec<UnitContext>,
    pub outcomes: Vec<OutcomeContext>,
    /// The evaluator inputs the finding states.
    pub prefilled: BTreeMap<String, Given>,
    /// Where a report's inputs were read from: the `[start, end)` span of the finding that
    /// offers this system and states the most of what its evaluator needs (the first such,
    /// impression first), so one finding's size is never read as another's. Absent when the
    /// whole text was read (a one-finding text, or a system only the request asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefilled_from: Option<[usize; 2]>,
    pub decided: Vec<Decided>,
    pub missing_inputs: Vec<MissingInput>,
    /// The references the shown lines cite, by id, as one citation string each.
    pub references: BTreeMap<&'static str, String>,
    pub withheld_draft_lines: usize,
    pub links: Links,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld_note: Option<String>,
}

/// A system that matched but is left out because its entry is not current.
#[derive(Clone, Debug, Serialize)]
pub struct WithheldSystem {
    pub slug: &'static str,
    pub name: &'static str,
    pub status: Status,
    pub score: f64,
    pub reason: String,
}

/// Keeps the lines `verified` allows and counts the others.
struct Keep {
    verified: bool,
    withheld: usize,
}

impl Keep {
    fn line<L: AsLine>(&mut self, line: &'static L) -> Option<CitedLine> {
        let l = line.line();
        if self.verified && l.verification != Verification::Verified {
            self.withheld += 1;
            return None;
        }
        Some(Cited::of(l))
    }

    fn lines(&mut self, lines: &'static [Line]) -> Vec<CitedLine> {
        lines.iter().filter_map(|l| self.line(l)).collect()
    }
}

/// The outcomes worth showing: those the finding matched first, then the rest, up to a cap.
fn outcome_order(outcomes: &'static [Outcome], matched: &[&str]) -> Vec<&'static Outcome> {
    let (first, rest): (Vec<&Outcome>, Vec<&Outcome>) = outcomes
        .iter()
        .partition(|o| matched.contains(&o.code.as_str()));
    first.into_iter().chain(rest).take(MAX_OUTCOMES).collect()
}

/// What the evaluator makes of a finding for one system: the inputs read from the text, the
/// link that evaluates them, and the evaluation itself (`None` when the system has no logic).
struct Evaluated {
    prefilled: BTreeMap<String, Given>,
    /// Per input, the words it was read from (word indices).
    from: BTreeMap<String, (usize, usize)>,
    /// Per input read from other characters than the finding's own words (the report's
    /// clinical history, or a phrase the finding rules out), the `[start, end)` characters it
    /// was read from.
    from_chars: BTreeMap<String, [usize; 2]>,
    /// The organs the finding states.
    organs: Vec<&'static str>,
    link: String,
    evaluation: Option<Evaluation<'static>>,
}

impl Evaluated {
    /// `signs`: per word, the signs before it, where the characters are known (then an
    /// attenuation in HU is read too, and a bound is no size).
    fn of(
        knowledge: &Knowledge,
        logic: &'static Logic,
        finding: &prefill::Reading,
        signs: Option<&[prefill::Sign]>,
    ) -> Evaluated {
        let filled = prefill::prefill_signed(knowledge.lexicon, logic, finding, signs, false);
        Evaluated::filled(logic, filled, BTreeMap::new())
    }

    /// The evaluation of what was read (`filled`, and `from_chars`'s inputs among it).
    fn filled(
        logic: &'static Logic,
        filled: prefill::Filled,
        from_chars: BTreeMap<String, [usize; 2]>,
    ) -> Evaluated {
        let prefill::Filled {
            inputs: prefilled,
            from,
            organs,
        } = filled;
        let link = evaluator::evaluate_link(&logic.slug, logic.model(), &prefilled, None);
        // The prefilled values are the system's own ids and values, so the evaluator accepts
        // them; were it to refuse, the answer would simply carry no evaluation.
        let evaluation = evaluator::evaluate(logic.model(), &prefilled, None).ok();
        Evaluated {
            prefilled,
            from,
            from_chars,
            organs,
            link,
            evaluation,
        }
    }

    /// The inputs the evaluator still needs, with their definitions.
    fn missing(&self, logic: &'static Logic) -> Vec<MissingInput> {
        let Some(eval) = &self.evaluation else {
            return Vec::new();
        };
        eval.missing
            .iter()
            .filter_map(|id| logic.model().input(id))
            .map(|input| MissingInput {
                id: &input.id,
                label: &input.label,
                kind: input.kind,
                unit: input.unit.as_deref(),
                values: input.values.iter().map(|v| v.value.as_str()).collect(),
                min: input.min,
                max: input.max,
            })
            .collect()
    }

    /// The units the finding alone decides.
    fn decided(&self) -> Vec<Decided> {
        let Some(eval) = &self.evaluation else {
            return Vec::new();
        };
        eval.units
            .iter()
            .filter(|u| u.decides())
            .map(|u| Decided {
                unit: u.id,
                title: u.title,
                answer: match (u.outcome, u.result) {
                    (Some(o), _) if o.label != o.code => format!("{} ({})", o.code, o.label),
                    (Some(o), _) => o.code.clone(),
                    (None, Some(r)) => r.to_string(),
                    (None, None) => u.answer.unwrap_or_default().to_string(),
                },
                verification: u.rule.as_ref().map(|r| r.verification),
                rule: u.rule.clone(),
                outcome: u.outcome.map(|o| DecidedOutcome {
                    code: &o.code,
                    label: &o.label,
                    definition: Cited::of(o.definition.line()),
                    management: o.management.iter().map(|m| Cited::of(m.line())).collect(),
                }),
            })
            .collect()
    }
}

/// One selected system's context. A compact one carries the rules that decide and the
/// outcomes matched or decided (or the first few), not every unit's rules.
fn system_context(
    sel: &Selected,
    evaluated: Option<&Evaluated>,
    prefilled_from: Option<[usize; 2]>,
    verified: bool,
    detail: Detail,
) -> SystemContext {
    let system = sel.system;
    let logic = compiled::logic(sel.index);
    let mut keep = Keep {
        verified,
        withheld: 0,
    };
    // The outcomes the text names, then those the evaluator decides from it.
    let mut matched: Vec<&str> = sel.matched_codes.clone();
    let mut decided_codes: Vec<&str> = Vec::new();
    let decided_units: Vec<(&str, Option<usize>)> = evaluated
        .and_then(|e| e.evaluation.as_ref())
        .map(|e| {
            e.units
                .iter()
                .filter(|u| u.decides())
                .map(|u| (u.id, u.rule.as_ref().and_then(|r| r.index)))
                .collect()
        })
        .unwrap_or_default();
    if let Some(e) = evaluated.and_then(|e| e.evaluation.as_ref()) {
        for u in e.units.iter().filter(|u| u.decides()) {
            if let Some(o) = u.outcome {
                decided_codes.push(&o.code);
                if !matched.contains(&o.code.as_str()) {
                    matched.push(&o.code);
                }
            }
        }
    }
    let all = logic.map(|l| &l.outcomes[..]).unwrap_or_default();
    let shown: Vec<&'static Outcome> = match detail {
        Detail::Full => outcome_order(all, &matched),
        // Compact: what the evaluator decides; else what the text names, best first; else
        // the first few (the system's link has them all).
        Detail::Compact if !decided_codes.is_empty() => all
            .iter()
            .filter(|o| decided_codes.contains(&o.code.as_str()))
            .collect(),
        Detail::Compact => outcome_order(all, &matched)
            .into_iter()
            .take(COMPACT_OUTCOMES)
            .collect(),
    };
    let outcomes: Vec<OutcomeContext> = shown
        .into_iter()
        .map(|o| OutcomeContext {
            code: &o.code,
            label: &o.label,
            matched: matched.contains(&o.code.as_str()),
            definition: keep.line(&o.definition),
            risk: o.risk.as_ref().and_then(|r| keep.line(r)),
            management: keep.lines(&o.management),
        })
        .collect();
    let units: Vec<UnitContext> = logic
        .map(|l| &l.decision_units[..])
        .unwrap_or_default()
        .iter()
        .take(MAX_UNITS)
        .map(|u| {
            let deciding = decided_units
                .iter()
                .find(|(id, _)| *id == u.id.as_str())
                .and_then(|(_, rule)| *rule);
            let rules = u
                .rules
                .iter()
                .enumerate()
                .filter(|(k, _)| match detail {
                    Detail::Full => *k < MAX_RULES_PER_UNIT,
                    Detail::Compact => Some(*k) == deciding,
                })
                .filter_map(|(_, r)| {
                    keep.line(r).map(|line| RuleLine {
                        line,
                        outcome: r.outcome.as_deref(),
                        result: r.result.as_deref(),
                    })
                })
                .collect();
            UnitContext {
                id: &u.id,
                title: &u.title,
                summary: keep.line(u),
                rules,
            }
        })
        .collect();
    let scope = logic.map(|l| keep.lines(&l.scope)).unwrap_or_default();
    let references = logic
        .map(|l| cited(&l.references, &scope, &outcomes, &units))
        .unwrap_or_default();
    let withheld = keep.withheld;
    SystemContext {
        slug: system.slug,
        name: system.name,
        short_name: system.short_name,
        family: system.family,
        status: system.status,
        version: logic.map(|l| l.version.as_str()).unwrap_or_default(),
        organs: system.organs,
        modalities: system.modalities,
        why: Why {
            score: sel.score,
            matched_terms: sel.matched_terms.clone(),
            reasons: sel.reasons.clone(),
            because: because(sel),
        },
        scope,
        decision_units: units,
        outcomes,
        prefilled: evaluated.map(|e| e.prefilled.clone()).unwrap_or_default(),
        prefilled_from: evaluated.and(prefilled_from),
        decided: evaluated.map(Evaluated::decided).unwrap_or_default(),
        missing_inputs: match (evaluated, logic) {
            (Some(e), Some(l)) => e.missing(l),
            _ => Vec::new(),
        },
        references,
        withheld_draft_lines: withheld,
        links: Links {
            system: format!("/api/v1/systems/{}", system.slug),
            evaluate: evaluated
                .map(|e| e.link.clone())
                .unwrap_or_else(|| format!("/api/v1/systems/{}/evaluate", system.slug)),
        },
        withheld_note: (withheld > 0).then(|| {
            format!(
                "{withheld} draft line(s) not yet verified by a radiologist were withheld; \
                 verified=false includes them, flagged, for curation or research"
            )
        }),
    }
}

/// The references the shown lines cite, each as one citation string.
fn cited(
    references: &'static BTreeMap<String, Reference>,
    scope: &[CitedLine],
    outcomes: &[OutcomeContext],
    units: &[UnitContext],
) -> BTreeMap<&'static str, String> {
    let lines = scope
        .iter()
        .chain(outcomes.iter().flat_map(|o| {
            o.definition
                .iter()
                .chain(o.risk.iter())
                .chain(o.management.iter())
        }))
        .chain(
            units
                .iter()
                .flat_map(|u| u.summary.iter().chain(u.rules.iter().map(|r| &r.line))),
        );
    let mut out = BTreeMap::new();
    for line in lines {
        if let Some((id, r)) = references.get_key_value(line.citation) {
            out.entry(id.as_str()).or_insert_with(|| cite(r));
        }
    }
    out
}

/// A reference as one citation string, every author listed. Written once per isolate for
/// each reference of the corpus and kept: a report's answer cites the same few dozen, each
/// with every author.
pub fn cite(r: &'static Reference) -> String {
    thread_local! {
        static CITED: super::Derived<String> = Default::default();
    }
    super::derived(&CITED, (super::at(r), 0), || r.citation(usize::MAX)).clone()
}

/// The reference `id` of the system `slug`, as one citation string.
pub fn reference(slug: &str, id: &str) -> Option<String> {
    SYSTEMS
        .iter()
        .position(|s| s.slug == slug)
        .and_then(compiled::logic)
        .and_then(|l| l.references.get(id))
        .map(cite)
}

/// A finding's words as its evaluations read them: the patient's age where the report states
/// it, then the finding's own words, each with its offsets in the submitted text, folded, and
/// the signs written right before it (a minus, a comparison).
struct FindingWords {
    spans: Vec<text::Span>,
    folded: Vec<Word>,
    signs: Vec<prefill::Sign>,
    /// The phrases the finding negates (its words leave them out).
    negated: Vec<Negated>,
    /// The report describes an examination without contrast (`Finding::unenhanced`).
    unenhanced: bool,
}

/// A phrase a finding negates ("*no* echogenic foci"): its folded words, where each ends in
/// the text, and where its trigger starts.
struct Negated {
    words: Vec<Word>,
    ends: Vec<usize>,
    from: usize,
}

impl FindingWords {
    /// The patient's age where the report states it comes before the finding's words: the
    /// first age stated is read, so the finding is evaluated at the patient's age, with the
    /// place the report states it. An age a finding states is most often a guideline's ("no
    /// further evaluation (<1.5 cm, age >35)"); it counts only when the report states none.
    /// `ruled`: the text's ruled-out phrases, of which those it negates within `span` are the
    /// finding's; `hedged`: the text's hedged phrases, whose words (marked in their signs) state
    /// no input true.
    fn of(
        own: Vec<text::Span>,
        report_age: &[text::Span],
        original: &[char],
        span: [usize; 2],
        ruled: &[RuledOut],
        hedged: &[RuledOut],
    ) -> FindingWords {
        let spans: Vec<text::Span> = report_age.iter().cloned().chain(own).collect();
        let mut signs = prefill::signs(&spans, original);
        // A word of a phrase the finding hedges, or of its trigger, states nothing as a fact.
        let hedges: Vec<[usize; 2]> = hedged
            .iter()
            .filter(|h| h.span[0] >= span[0] && h.span[1] <= span[1])
            .flat_map(|h| [h.span, h.trigger_span])
            .collect();
        for (sign, word) in signs.iter_mut().zip(&spans) {
            sign.hedged = hedges
                .iter()
                .any(|&[from, to]| word.start >= from && word.end <= to);
        }
        let negated = ruled
            .iter()
            .filter(|r| r.assertion == crate::knowledge::Category::Negated)
            .filter(|r| r.span[0] >= span[0] && r.span[1] <= span[1])
            .map(|r| {
                let (words, ends) = text::spans(&r.text)
                    .into_iter()
                    .map(|w| (w.text, w.end + r.span[0]))
                    .unzip();
                Negated {
                    words,
                    ends,
                    from: r.trigger_span[0].min(r.span[0]),
                }
            })
            .collect();
        FindingWords {
            folded: spans.iter().map(|w| w.text.clone()).collect(),
            signs,
            spans,
            negated,
            unenhanced: false,
        }
    }

    /// What the evaluator of `logic` makes of these words, with what the report's clinical
    /// history states about the patient (the inputs `about: patient` these words leave unread).
    fn evaluate(
        &self,
        knowledge: &Knowledge,
        logic: &'static Logic,
        history: &History,
    ) -> Evaluated {
        let mut filled = self.read(knowledge, logic);
        let mut from_chars = BTreeMap::new();
        // An input the finding rules out whole ("no echogenic foci", "no enhancing nodule").
        if !self.negated.is_empty() {
            let phrases: Vec<&[Word]> = self.negated.iter().map(|n| &n.words[..]).collect();
            let ruled =
                prefill::ruled_out_inputs(knowledge.lexicon, logic, &filled.organs, &phrases);
            for (id, value, (k, n)) in ruled {
                let negated = &self.negated[k];
                if !filled.inputs.contains_key(id) {
                    filled.inputs.insert(id.to_string(), value);
                    from_chars.insert(id.to_string(), [negated.from, negated.ends[n - 1]]);
                }
            }
        }
        let unread: Vec<&'static str> = logic
            .inputs
            .iter()
            .filter(|i| i.about == Some(About::Patient) && prefill::reads(i))
            .filter(|i| !filled.inputs.contains_key(&i.id))
            .map(|i| i.id.as_str())
            .collect();
        for id in unread {
            if let Some((value, span)) = history.states(knowledge, logic, id) {
                filled.inputs.insert(id.to_string(), value);
                from_chars.insert(id.to_string(), span);
            }
        }
        // A boolean about the patient that a report setting states ("History of breast
        // cancer"): true where the history states that setting.
        for input in &logic.inputs {
            let Some(setting) = input.setting.as_deref() else {
                continue;
            };
            if input.about != Some(About::Patient) || filled.inputs.contains_key(&input.id) {
                continue;
            }
            if let Some(&(_, span)) = history.settings.iter().find(|(s, _)| *s == setting) {
                filled.inputs.insert(input.id.clone(), Given::Flag(true));
                from_chars.insert(input.id.clone(), span);
            }
        }
        Evaluated::filled(logic, filled, from_chars)
    }

    /// The inputs of `logic` these words state.
    fn read(&self, knowledge: &Knowledge, logic: &'static Logic) -> prefill::Filled {
        let index = text::WordIndex::new(&self.folded);
        let reading = prefill::Reading::of(knowledge.lexicon, &index);
        prefill::prefill_signed(
            knowledge.lexicon,
            logic,
            &reading,
            Some(&self.signs),
            self.unenhanced,
        )
    }

    /// The characters `[start, end)` of the words `[a, b)`, with a `%` written after the last.
    fn chars_of(&self, (a, b): (usize, usize)) -> Option<[usize; 2]> {
        let words = &self.spans;
        let last = b.checked_sub(1)?;
        let percent = self.signs.get(last).map_or(0, |s| usize::from(s.percent));
        Some([words.get(a)?.start, words.get(last)?.end + percent])
    }
}

/// A report's clinical history as its findings' evaluations read it: its words (what it rules
/// out blanked), per system what it states, read once, and the report settings it states
/// (where it places something in the past, that counts: "History of breast cancer").
struct History {
    words: FindingWords,
    read: std::cell::RefCell<BTreeMap<&'static str, prefill::Filled>>,
    settings: Vec<(&'static str, [usize; 2])>,
}

impl History {
    /// The history of the text whose words (as read) are `read`: the words within `spans`;
    /// `ruled` are the text's ruled-out phrases.
    fn of(
        knowledge: &Knowledge,
        read: &[text::Span],
        spans: &[[usize; 2]],
        original: &[char],
        ruled: &[RuledOut],
    ) -> History {
        let own = spans
            .iter()
            .flat_map(|&[from, to]| text::within(read, from, to))
            .cloned()
            .collect();
        // The history's words cut again, with only what it negates, asks about or says of a
        // relative left out, as the report's setting is read.
        let cut: Vec<text::Span> = spans
            .iter()
            .flat_map(|&[from, to]| {
                let section: String = original[from..to].iter().collect();
                text::spans(&section).into_iter().map(move |w| text::Span {
                    start: w.start + from,
                    end: w.end + from,
                    ..w
                })
            })
            .collect();
        let patients = setting::patients_words(&cut, ruled, None);
        let folded: Vec<Word> = patients.iter().map(|w| w.text.clone()).collect();
        History {
            words: FindingWords::of(own, &[], original, [0, 0], &[], &[]),
            read: Default::default(),
            settings: setting::stated(knowledge, &patients, &folded),
        }
    }

    /// The value the history states for the input `id` of `logic`, and the characters it was
    /// read from.
    fn states(
        &self,
        knowledge: &Knowledge,
        logic: &'static Logic,
        id: &str,
    ) -> Option<(Given, [usize; 2])> {
        if self.words.spans.is_empty() {
            return None;
        }
        let mut read = self.read.borrow_mut();
        let filled = read
            .entry(logic.slug.as_str())
            .or_insert_with(|| self.words.read(knowledge, logic));
        let value = filled.inputs.get(id)?.clone();
        Some((value, self.words.chars_of(*filled.from.get(id)?)?))
    }
}

/// The logic of a finding's first system, when it has decision units to evaluate.
fn first_logic(systems: &[Selected]) -> Option<&'static Logic> {
    systems
        .first()
        .and_then(|first| compiled::logic(first.index))
        .filter(|l| !l.decision_units.is_empty())
}

/// What a finding's first system's evaluator makes of the finding's own words (`words`, with
/// their offsets in `original`; `evaluated`, their evaluation by `logic`): the inputs read, the
/// inputs missing, the units decided.
fn finding_evaluation(
    knowledge: &Knowledge,
    logic: &'static Logic,
    words: &FindingWords,
    evaluated: &Evaluated,
    original: &[char],
) -> (Vec<ReadInput>, Vec<MissingInput>, Option<FindingEvaluation>) {
    let inputs = evaluated
        .prefilled
        .iter()
        .filter_map(|(id, value)| {
            let input = logic.model().input(id)?;
            let span = match evaluated.from_chars.get(id) {
                Some(span) => *span,
                None => words.chars_of(*evaluated.from.get(id)?)?,
            };
            Some(ReadInput {
                id: &input.id,
                value: value.clone(),
                text: original[span[0]..span[1]].iter().collect(),
                span,
            })
        })
        .collect();
    // What the evaluator still needs, of the inputs about this finding's organs.
    let organs = &evaluated.organs;
    let missing = evaluated
        .missing(logic)
        .into_iter()
        .filter(|m| {
            logic
                .model()
                .input(m.id)
                .is_none_or(|i| prefill::concerns(knowledge.lexicon, i, organs))
        })
        .collect();
    let evaluation = FindingEvaluation {
        slug: &logic.slug,
        decided: evaluated.decided(),
        link: evaluated.link.clone(),
    };
    (inputs, missing, Some(evaluation))
}

/// The references of every cited line a `because` points to, by system and id.
fn cue_references(answer: &Grounding) -> BTreeMap<&'static str, BTreeMap<&'static str, String>> {
    let lines = answer
        .findings
        .iter()
        .flat_map(|f| f.systems.iter().flat_map(|s| s.because.iter()))
        .chain(answer.systems.iter().flat_map(|s| s.why.because.iter()))
        .filter_map(|b| b.line.as_ref());
    let mut out: BTreeMap<&'static str, BTreeMap<&'static str, String>> = BTreeMap::new();
    for line in lines {
        let ids = out.entry(line.system).or_default();
        if ids.contains_key(line.citation) {
            continue;
        }
        if let Some(reference) = reference(line.system, line.citation) {
            ids.insert(line.citation, reference);
        }
    }
    out
}

fn withheld_system(w: &Withheld) -> WithheldSystem {
    WithheldSystem {
        slug: w.system.slug,
        name: w.system.name,
        status: w.system.status,
        score: (w.score * 100.0).round() / 100.0,
        reason: format!(
            "matches the finding, but the entry's status is {}: it is incomplete or no longer current, so verified=true leaves it out; ask with verified=false, or name it in systems, to include it",
            w.system.status.as_str()
        ),
    }
}

/// A report's findings as its systems' evaluations read them: each finding's words, its first
/// system's evaluation, and the report's history.
struct FindingsRead<'a> {
    finding: &'a super::Finding,
    words: &'a [Option<FindingWords>],
    first: &'a [Option<(&'static Logic, Evaluated)>],
    history: &'a History,
}

impl FindingsRead<'_> {
    /// The finding a report's system (`index`, whose logic is `logic`) is read on, not the
    /// whole report, which would give one system another finding's size ("1.1 cm" of the
    /// thyroid nodule for the adrenal one): of the findings that offer it, the one from which
    /// its evaluator reads the most inputs (the findings' line that describes a lesion over the
    /// impression's line that names it), the first of those (impression first). With it, the
    /// evaluation, `None` when it is the finding's own first-system evaluation.
    fn best_for(
        &self,
        knowledge: &Knowledge,
        index: usize,
        logic: &'static Logic,
    ) -> Option<(usize, Option<Evaluated>)> {
        let mut best: Option<(usize, Option<Evaluated>, usize)> = None;
        for (g, group) in self.finding.groups.iter().enumerate() {
            if !group.assertion.grounded() || !group.systems.iter().any(|s| s.index == index) {
                continue;
            }
            let (own, read) = match &self.first[g] {
                Some((l, e)) if std::ptr::eq(*l, logic) => (None, e.prefilled.len()),
                _ => {
                    let Some(words) = &self.words[g] else {
                        continue;
                    };
                    let e = words.evaluate(knowledge, logic, self.history);
                    let read = e.prefilled.len();
                    (Some(e), read)
                }
            };
            if best.as_ref().is_none_or(|b| read > b.2) {
                best = Some((g, own, read));
            }
        }
        best.map(|(g, own, _)| (g, own))
    }
}

/// Grounds a finding: the systems that govern it, ranked, each with its cited lines and what
/// the evaluator makes of the finding.
pub fn ground(knowledge: &Knowledge, query: &ContextQuery) -> Grounding {
    let (mut finding, selected, withheld) = rank_with_withheld(knowledge, query);
    let original = text::char_vec(&query.text);
    // The evaluator is given what the text asserts, not what it rules out.
    let read = std::mem::take(&mut finding.read_spans);
    let (sizes_mm, age_years) = (finding.sizes_mm(), finding.age_years());
    // The patient's age, where the report states it ("78F" in its history): a finding that
    // states none is evaluated at that age.
    let report_age: &[text::Span] = finding.age.map_or(&[], |a| &read[a.at..a.end]);
    // Each finding with systems, read for its evaluations once; its first system's evaluation,
    // which the answer's system list shares where that system leads it.
    let finding_words: Vec<Option<FindingWords>> = finding
        .groups
        .iter()
        .map(|g| {
            (!g.systems.is_empty()).then(|| FindingWords {
                unenhanced: finding.unenhanced,
                ..FindingWords::of(
                    g.words(&read),
                    report_age,
                    &original,
                    g.span,
                    &finding.ruled_out,
                    &finding.hedged,
                )
            })
        })
        .collect();
    let history = History::of(
        knowledge,
        &read,
        &finding.history,
        &original,
        &finding.ruled_out,
    );
    let first_evaluations: Vec<Option<(&'static Logic, Evaluated)>> = finding
        .groups
        .iter()
        .zip(&finding_words)
        .map(|(g, words)| {
            let logic = first_logic(&g.systems)?;
            Some((logic, words.as_ref()?.evaluate(knowledge, logic, &history)))
        })
        .collect();
    // A report answered by its findings reads each system on one of them.
    let from_findings: Vec<Option<(usize, Option<Evaluated>)>> = {
        let read = FindingsRead {
            finding: &finding,
            words: &finding_words,
            first: &first_evaluations,
            history: &history,
        };
        selected
            .iter()
            .map(|sel| {
                let logic = compiled::logic(sel.index)?;
                finding
                    .by_findings
                    .then(|| read.best_for(knowledge, sel.index, logic))?
            })
            .collect()
    };
    // The whole text's reading, for the systems no finding offers.
    let words: Vec<Word> = if from_findings.iter().any(Option::is_none) {
        read.iter().map(|w| w.text.clone()).collect()
    } else {
        Vec::new()
    };
    let whole_index = text::WordIndex::new(&words);
    let whole = prefill::Reading::read(
        &whole_index,
        std::mem::take(&mut finding.sizes),
        finding.age,
        finding.organs.clone(),
    );
    let whole_evaluations: Vec<Option<Evaluated>> = selected
        .iter()
        .zip(&from_findings)
        .map(|(sel, chosen)| match chosen {
            Some(_) => None,
            None => Some(Evaluated::of(
                knowledge,
                compiled::logic(sel.index)?,
                &whole,
                None,
            )),
        })
        .collect();
    let systems = selected
        .iter()
        .zip(from_findings.iter().zip(&whole_evaluations))
        .map(|(sel, (chosen, whole))| {
            let (evaluated, from) = match chosen {
                Some((g, own)) => (
                    own.as_ref()
                        .or_else(|| first_evaluations[*g].as_ref().map(|(_, e)| e)),
                    Some(finding.groups[*g].span),
                ),
                None => (whole.as_ref(), None),
            };
            system_context(sel, evaluated, from, query.verified, query.detail)
        })
        .collect();
    let nothing = crate::input::is_blank(&query.text) && query.systems.is_empty();
    let mut answer = Grounding {
        notice: NOTICE,
        query: QueryEcho {
            text: query.text.clone(),
            systems: query.systems.clone(),
            organ: query.organ.clone(),
            limit: query.limit,
            verified: query.verified,
            detail: query.detail,
            max_tokens: query.max_tokens,
        },
        finding: FindingRead {
            organs: finding.organs,
            modalities: finding.modalities,
            sizes_mm,
            age_years,
            cues: finding.cues,
            named_systems: finding
                .named
                .iter()
                .map(|n| SYSTEMS[n.index].slug)
                .collect(),
            ruled_out: finding.ruled_out,
        },
        setting: finding.setting,
        findings: finding
            .groups
            .into_iter()
            .zip(first_evaluations.iter().zip(&finding_words))
            .map(|(g, (first, words))| {
                let (inputs, missing, evaluation) = match (first, words) {
                    (Some((logic, evaluated)), Some(words)) => {
                        finding_evaluation(knowledge, logic, words, evaluated, &original)
                    }
                    _ => (Vec::new(), Vec::new(), None),
                };
                FindingContext {
                text: g.text,
                span: g.span,
                section: g.section,
                assertion: g.assertion,
                trigger: g.trigger.map(|t| FindingTrigger {
                    text: t.trigger,
                    span: t.trigger_span,
                    category: t.assertion,
                }),
                inputs,
                missing,
                evaluation,
                systems: g
                    .systems
                    .iter()
                    .map(|s| FindingSystem {
                        slug: s.system.slug,
                        name: s.system.name,
                        score: s.score,
                        reasons: s.reasons.clone(),
                        because: because(s),
                    })
                    .collect(),
            }})
            .collect(),
        more_findings: finding.more_findings,
        cue_references: BTreeMap::new(),
        systems,
        withheld_systems: withheld.iter().map(withheld_system).collect(),
        note: nothing.then_some(
            "nothing to ground: give the finding text (q, or text in a POST body) or systems to include",
        ),
    };
    answer.cue_references = cue_references(&answer);
    answer
}
