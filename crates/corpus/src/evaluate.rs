//! The evaluator: runs a system's decision units on given inputs and says which cited rule
//! decided, what it means, what is still missing and what would change the answer.
//!
//! It is pure: no clock, no worker types, only the corpus source types. `build.rs` runs it on
//! every example of the corpus (a mismatch stops the build), and the worker runs it on the
//! compiled model of a system for `/api/v1/systems/{slug}/evaluate` and the MCP tool.
//!
//! The semantics, fixed because test vectors are authored against them:
//!
//! - **Order.** Units run in dependency order. An input with `derived_from: <unit>` takes that
//!   unit's answer: the deciding rule's `outcome` code, else its `result`, passed on as it is
//!   (an answer the input does not declare, such as "No TR level assigned...", equals none of
//!   the declared values, so `eq` is false and `ne` true). A derived input given directly
//!   overrides the unit's answer (some sources let the reader state it, e.g. RECIST's `none`).
//! - **Three-valued logic.** A comparison on a missing input is unknown; `all` is false if any
//!   part is false, else unknown if any is; `any` is true if any part is true, else unknown if
//!   any is; `not` flips true and false; `always` is true. A score is unknown while any summed
//!   input is missing. Rules are tested in order and the first true one decides. An unknown
//!   rule stops the unit there: it never skips to a later rule that happens to hold.
//! - **Statuses.** `decided`: a rule held. `needs_inputs`: the unit stopped at an unknown
//!   rule; `missing` lists the inputs that rule depends on. A derived input that is missing
//!   because its unit itself needs inputs is reported as those underlying inputs, so a client
//!   always learns which inputs to send. `not_reached`: the unit reached no rule and more
//!   inputs would not help: either every rule is false for these inputs (the rules do not
//!   cover them), or it stopped on a derived input whose unit was itself `not_reached`.
//!   `reason` says which.
//! - **What would change it.** For each number input of the deciding rule, the unit is run
//!   again with the number moved to each boundary its conditions name (just below, at, just
//!   above); the nearest boundary in each direction where the unit decides differently is
//!   reported with the rule that would then decide.

use super::source::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A system's logic: what the evaluator reads.
#[derive(Clone, Copy, Debug)]
pub struct Model<'a> {
    pub inputs: &'a [Input],
    pub units: &'a [DecisionUnit],
    pub outcomes: &'a [Outcome],
}

impl<'a> Model<'a> {
    /// The logic of a source system.
    pub fn of(system: &'a System) -> Model<'a> {
        Model {
            inputs: &system.inputs,
            units: &system.decision_units,
            outcomes: &system.outcomes,
        }
    }

    /// The input with this id.
    pub fn input(&self, id: &str) -> Option<&'a Input> {
        self.inputs.iter().find(|i| i.id == id)
    }

    fn unit_index(&self, id: &str) -> Option<usize> {
        self.units.iter().position(|u| u.id == id)
    }

    fn outcome(&self, code: &str) -> Option<&'a Outcome> {
        self.outcomes.iter().find(|o| o.code == code)
    }

    /// The input ids a client may send, in the system's order.
    pub fn input_ids(&self) -> Vec<String> {
        self.inputs.iter().map(|i| i.id.clone()).collect()
    }

    /// Indices of the units whose answers feed `unit` through derived inputs.
    fn sources_of(&self, unit: &DecisionUnit) -> Vec<usize> {
        unit.inputs
            .iter()
            .filter_map(|id| self.input(id)?.derived_from.as_deref())
            .filter_map(|u| self.unit_index(u))
            .collect()
    }

    /// Every unit index in dependency order (sources first, otherwise the file's order), or
    /// the ids of units that feed each other in a cycle.
    pub fn order(&self) -> Result<Vec<usize>, Vec<String>> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        fn visit(
            model: &Model,
            i: usize,
            marks: &mut [Mark],
            out: &mut Vec<usize>,
        ) -> Result<(), Vec<String>> {
            match marks[i] {
                Mark::Done => return Ok(()),
                Mark::Open => return Err(vec![model.units[i].id.clone()]),
                Mark::New => {}
            }
            marks[i] = Mark::Open;
            for s in model.sources_of(&model.units[i]) {
                visit(model, s, marks, out).map_err(|mut cycle| {
                    cycle.push(model.units[i].id.clone());
                    cycle
                })?;
            }
            marks[i] = Mark::Done;
            out.push(i);
            Ok(())
        }
        let mut marks = vec![Mark::New; self.units.len()];
        let mut out = Vec::with_capacity(self.units.len());
        for i in 0..self.units.len() {
            visit(self, i, &mut marks, &mut out)?;
        }
        Ok(out)
    }
}

/// A value given for an input.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Given {
    /// An enum value.
    Choice(String),
    /// The chosen values of a multi input (possibly none).
    Choices(Vec<String>),
    Number(f64),
    Flag(bool),
}

/// Given inputs by id.
pub type Inputs = BTreeMap<String, Given>;

/// Why inputs were refused. Each names the field at fault and how to put it right.
#[derive(Clone, Debug, PartialEq)]
pub enum InputError {
    /// An input id the system does not have.
    UnknownInput { input: String, known: Vec<String> },
    /// A value of the wrong JSON type (or, in a query, one that does not parse as the type).
    WrongType {
        input: String,
        expected: &'static str,
        got: String,
    },
    /// An enum or multi value the input does not declare.
    UndeclaredValue {
        input: String,
        value: String,
        allowed: Vec<String>,
    },
    /// A number outside the input's `min`/`max`.
    OutOfRange {
        input: String,
        value: f64,
        min: Option<f64>,
        max: Option<f64>,
    },
    /// A single value where a multi input takes a list (JSON bodies and tool arguments).
    ScalarForMulti { input: String, value: String },
    /// The same value twice in a multi input.
    RepeatedValue { input: String, value: String },
    /// A unit id the system does not have (the `units` selection).
    UnknownUnit { unit: String, known: Vec<String> },
}

impl InputError {
    /// The field at fault: `inputs.<id>`, or `units`.
    pub fn field(&self) -> String {
        match self {
            InputError::UnknownUnit { .. } => "units".into(),
            InputError::UnknownInput { input, .. }
            | InputError::WrongType { input, .. }
            | InputError::UndeclaredValue { input, .. }
            | InputError::OutOfRange { input, .. }
            | InputError::ScalarForMulti { input, .. }
            | InputError::RepeatedValue { input, .. } => format!("inputs.{input}"),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::UnknownInput { input, known } => write!(
                f,
                "unknown input '{input}'; this system's inputs: {}",
                known.join(", ")
            ),
            InputError::WrongType {
                input,
                expected,
                got,
            } => write!(f, "input '{input}' must be {expected}; got {got}"),
            InputError::UndeclaredValue {
                input,
                value,
                allowed,
            } => write!(
                f,
                "input '{input}' has no value '{value}'; allowed: {}",
                allowed.join(", ")
            ),
            InputError::OutOfRange {
                input,
                value,
                min,
                max,
            } => {
                let range = match (min, max) {
                    (Some(lo), Some(hi)) => format!("from {} to {}", num(*lo), num(*hi)),
                    (Some(lo), None) => format!("at least {}", num(*lo)),
                    (None, Some(hi)) => format!("at most {}", num(*hi)),
                    (None, None) => "finite".into(),
                };
                write!(f, "input '{input}' must be {range}; got {}", num(*value))
            }
            InputError::ScalarForMulti { input, value } => write!(
                f,
                "input '{input}' takes several values: send a list, e.g. [{value}]"
            ),
            InputError::RepeatedValue { input, value } => {
                write!(f, "input '{input}' lists '{value}' more than once")
            }
            InputError::UnknownUnit { unit, known } => write!(
                f,
                "unknown decision unit '{unit}' in 'units'; this system's units: {}",
                known.join(", ")
            ),
        }
    }
}

/// A number as people write it: `15`, `2.5`, `-30`.
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn expected(kind: InputType) -> &'static str {
    match kind {
        InputType::Enum => "one of its values (a string)",
        InputType::Multi => "a list of its values",
        InputType::Number => "a number",
        InputType::Boolean => "true or false",
    }
}

fn json_kind(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "null".into(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => format!("the string \"{s}\""),
        serde_json::Value::Array(_) => "a list".into(),
        serde_json::Value::Object(_) => "an object".into(),
    }
}

impl<'a> Model<'a> {
    fn known_input(&self, id: &str) -> Result<&'a Input, InputError> {
        self.input(id).ok_or_else(|| InputError::UnknownInput {
            input: id.to_string(),
            known: self.input_ids(),
        })
    }

    fn declared(input: &Input, value: &str) -> Result<String, InputError> {
        if input.values.iter().any(|v| v.value == value) {
            Ok(value.to_string())
        } else {
            Err(InputError::UndeclaredValue {
                input: input.id.clone(),
                value: value.to_string(),
                allowed: input.values.iter().map(|v| v.value.clone()).collect(),
            })
        }
    }

    fn in_range(input: &Input, x: f64) -> Result<f64, InputError> {
        let low = input.min.is_some_and(|m| x < m);
        let high = input.max.is_some_and(|m| x > m);
        if !x.is_finite() || low || high {
            return Err(InputError::OutOfRange {
                input: input.id.clone(),
                value: x,
                min: input.min,
                max: input.max,
            });
        }
        Ok(x)
    }

    fn choices<'s>(
        input: &Input,
        items: impl Iterator<Item = &'s str>,
    ) -> Result<Given, InputError> {
        let mut chosen: Vec<String> = Vec::new();
        for item in items {
            let value = Self::declared(input, item)?;
            if chosen.contains(&value) {
                return Err(InputError::RepeatedValue {
                    input: input.id.clone(),
                    value,
                });
            }
            chosen.push(value);
        }
        Ok(Given::Choices(chosen))
    }

    /// Reads inputs from a JSON object (a POST body's `inputs`, a tool's or an example's).
    /// `null` counts as not given. A multi input takes a list; a single string is refused.
    pub fn inputs_from_json(
        &self,
        map: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Inputs, InputError> {
        let mut out = Inputs::new();
        for (id, value) in map {
            let input = self.known_input(id)?;
            if value.is_null() {
                continue;
            }
            let wrong = || InputError::WrongType {
                input: id.clone(),
                expected: expected(input.kind),
                got: json_kind(value),
            };
            let given = match (input.kind, value) {
                (InputType::Enum, serde_json::Value::String(s)) => {
                    Given::Choice(Self::declared(input, s)?)
                }
                (InputType::Multi, serde_json::Value::Array(items)) => {
                    let strings: Option<Vec<&str>> = items.iter().map(|v| v.as_str()).collect();
                    Self::choices(input, strings.ok_or_else(wrong)?.into_iter())?
                }
                (InputType::Multi, serde_json::Value::String(s)) => {
                    return Err(InputError::ScalarForMulti {
                        input: id.clone(),
                        value: format!("\"{s}\""),
                    })
                }
                (InputType::Number, serde_json::Value::Number(n)) => {
                    Given::Number(Self::in_range(input, n.as_f64().ok_or_else(wrong)?)?)
                }
                (InputType::Boolean, serde_json::Value::Bool(b)) => Given::Flag(*b),
                _ => return Err(wrong()),
            };
            out.insert(id.clone(), given);
        }
        Ok(out)
    }

    /// Reads inputs from query parameters: every pair is an input. Multi values are
    /// comma-separated (one value is a one-element list, and an empty value means none
    /// chosen); for any other type an empty value counts as not given. Booleans are `true`/`1`
    /// or `false`/`0`.
    pub fn inputs_from_query<'p>(
        &self,
        pairs: impl IntoIterator<Item = (&'p str, &'p str)>,
    ) -> Result<Inputs, InputError> {
        let mut out = Inputs::new();
        for (id, raw) in pairs {
            let input = self.known_input(id)?;
            let value = raw.trim();
            let wrong = || InputError::WrongType {
                input: id.to_string(),
                expected: expected(input.kind),
                got: format!("'{raw}'"),
            };
            let given = match input.kind {
                InputType::Multi if value.is_empty() => Given::Choices(Vec::new()),
                _ if value.is_empty() => continue,
                InputType::Enum => Given::Choice(Self::declared(input, value)?),
                InputType::Multi => Self::choices(input, value.split(',').map(str::trim))?,
                InputType::Number => {
                    let x: f64 = value.parse().map_err(|_| wrong())?;
                    Given::Number(Self::in_range(input, x)?)
                }
                InputType::Boolean => match value {
                    "true" | "1" => Given::Flag(true),
                    "false" | "0" => Given::Flag(false),
                    _ => return Err(wrong()),
                },
            };
            out.insert(id.to_string(), given);
        }
        Ok(out)
    }
}

/// Percent-encodes a query component: RFC 3986 unreserved characters stay, every other byte
/// of the UTF-8 text becomes `%XX`.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A given value as a query parameter writes it (multi values comma-separated).
pub fn given_text(g: &Given) -> String {
    match g {
        Given::Choice(s) => s.clone(),
        Given::Choices(v) => v.join(","),
        Given::Number(x) => num(*x),
        Given::Flag(b) => b.to_string(),
    }
}

/// The `GET` link that evaluates `slug` on these inputs: each given input as a parameter, in
/// the system's order, then `units` when some are selected. It is what the evaluate route
/// reads back (`Model::inputs_from_query`), so following it gives the same evaluation.
pub fn evaluate_link(
    slug: &str,
    model: Model,
    inputs: &Inputs,
    units: Option<&[String]>,
) -> String {
    let mut query: Vec<String> = model
        .inputs
        .iter()
        .filter_map(|i| {
            inputs
                .get(&i.id)
                .map(|g| format!("{}={}", i.id, encode(&given_text(g))))
        })
        .collect();
    if let Some(units) = units {
        query.push(format!("units={}", encode(&units.join(","))));
    }
    let base = format!("/api/v1/systems/{slug}/evaluate");
    if query.is_empty() {
        base
    } else {
        format!("{base}?{}", query.join("&"))
    }
}

/// Where a unit stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitStatus {
    Decided,
    NeedsInputs,
    NotReached,
}

impl UnitStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitStatus::Decided => "decided",
            UnitStatus::NeedsInputs => "needs_inputs",
            UnitStatus::NotReached => "not_reached",
        }
    }
}

/// The truth of a rule's condition: true, false, or unknown for want of these variables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Truth {
    True,
    False,
    Unknown,
}

/// One rule tested.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    pub rule: usize,
    pub holds: Truth,
}

/// A clinical line as it is cited: text, citation, locator, consensus, verification.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cited<'a> {
    /// The rule's index within its unit (rules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub text: &'a str,
    pub citation: &'a str,
    pub locator: &'a str,
    pub consensus: Consensus,
    pub verification: Verification,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewed_on: Option<&'a str>,
}

impl<'a> Cited<'a> {
    /// Any clinical line as it is cited.
    pub fn of(l: LineRef<'a>) -> Cited<'a> {
        Cited {
            index: None,
            text: l.text,
            citation: l.citation,
            locator: l.locator,
            consensus: l.consensus,
            verification: l.verification,
            reviewer: l.reviewer,
            reviewed_on: l.reviewed_on,
        }
    }

    /// A unit's rule as it is cited, with its index.
    pub fn rule(unit: &'a DecisionUnit, index: usize) -> Cited<'a> {
        Cited {
            index: Some(index),
            ..Cited::of(unit.rules[index].line())
        }
    }
}

/// The points one summed input contributed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Points<'a> {
    pub input: &'a str,
    /// The chosen value (a list for a multi input).
    pub value: Given,
    pub points: f64,
}

/// A unit's score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreAnswer<'a> {
    pub id: &'a str,
    pub label: &'a str,
    /// The sum; `null` while a summed input is missing.
    pub value: Option<f64>,
    pub points: Vec<Points<'a>>,
    /// Summed inputs not given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<&'a str>,
}

/// Where a derived input's value came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Derived<'a> {
    pub input: &'a str,
    /// The unit it derives from.
    pub from: &'a str,
    /// The value used; `null` when that unit gave none.
    pub value: Option<String>,
    /// Whether the client gave it directly (overriding the unit's answer).
    pub given: bool,
}

/// Which side of a boundary the changed answer lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    AtOrAbove,
    Above,
    Below,
    AtOrBelow,
}

/// A threshold at which the unit's answer would change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change<'a> {
    pub input: &'a str,
    /// The boundary, in the input's unit.
    pub at: f64,
    pub side: Side,
    /// What the unit would answer there.
    pub answer: String,
    /// For example "Maximum diameter at 15 mm or more: FNA".
    pub note: String,
    /// The rule that would then decide, cited.
    pub rule: Cited<'a>,
}

/// What one unit answered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitAnswer<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub status: UnitStatus,
    /// What a derived input of a later unit takes: the outcome code, else the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'a str>,
    /// Why the unit was not reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreAnswer<'a>>,
    /// The deciding rule (or, for `needs_inputs`, the rule it stopped at), cited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<Cited<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'a Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'a str>,
    /// The units that answer the case instead, when the deciding rule defers to them
    /// ("See solid nodules"): this unit decided only that it does not apply.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defers_to: Vec<&'a str>,
    /// The inputs to send, with their definitions (`needs_inputs` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<&'a Input>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<Derived<'a>>,
    /// The rules tested, in order, the last being the one that decided or stopped the unit.
    pub trace: Vec<Step>,
    /// What would change the answer (`decided` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change<'a>>,
}

impl UnitAnswer<'_> {
    /// Whether the unit decided the case itself: decided, by a rule that does not defer to
    /// other units.
    pub fn decides(&self) -> bool {
        self.status == UnitStatus::Decided && self.defers_to.is_empty()
    }

    /// The trace as text: `0 false, 1 false, 2 true`.
    pub fn trace_text(&self) -> String {
        let steps: Vec<String> = self
            .trace
            .iter()
            .map(|s| {
                let t = match s.holds {
                    Truth::True => "true",
                    Truth::False => "false",
                    Truth::Unknown => "unknown",
                };
                format!("{} {t}", s.rule)
            })
            .collect();
        if steps.is_empty() {
            "no rule tested".into()
        } else {
            steps.join(", ")
        }
    }
}

/// The answer of every unit evaluated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evaluation<'a> {
    /// In dependency order.
    pub units: Vec<UnitAnswer<'a>>,
    /// Every input some unit still needs, in the system's order.
    pub missing: Vec<&'a str>,
}

impl<'a> Evaluation<'a> {
    /// The answer of one unit.
    pub fn unit(&self, id: &str) -> Option<&UnitAnswer<'a>> {
        self.units.iter().find(|u| u.id == id)
    }
}

/// A value as conditions see it.
#[derive(Clone, Copy, Debug)]
enum Val<'v> {
    Choice(&'v str),
    Choices(&'v [String]),
    Number(f64),
    Flag(bool),
}

impl<'v> Val<'v> {
    fn of(given: &'v Given) -> Val<'v> {
        match given {
            Given::Choice(s) => Val::Choice(s),
            Given::Choices(v) => Val::Choices(v),
            Given::Number(x) => Val::Number(*x),
            Given::Flag(b) => Val::Flag(*b),
        }
    }
}

/// The variables of one unit: its inputs and its score, each known or missing (a missing
/// score lists the summed inputs it lacks).
#[derive(Clone, Debug)]
struct Env<'v> {
    known: BTreeMap<&'v str, Val<'v>>,
    missing: BTreeMap<&'v str, Vec<&'v str>>,
}

/// A condition's truth, with the variables an unknown depends on.
enum Tri<'v> {
    True,
    False,
    Unknown(BTreeSet<&'v str>),
}

impl<'v> Env<'v> {
    /// Kleene's `all` (`decisive` false) and `any` (`decisive` true): a part with the decisive
    /// value decides at once; otherwise the result is unknown, with every missing input, if any
    /// part is unknown, and the other value if none is.
    fn combine(&self, parts: &'v [Condition], decisive: bool) -> Tri<'v> {
        let mut missing = BTreeSet::new();
        for part in parts {
            match self.test(part) {
                Tri::Unknown(m) => missing.extend(m),
                Tri::True if decisive => return Tri::True,
                Tri::False if !decisive => return Tri::False,
                Tri::True | Tri::False => {}
            }
        }
        match (missing.is_empty(), decisive) {
            (false, _) => Tri::Unknown(missing),
            (true, true) => Tri::False,
            (true, false) => Tri::True,
        }
    }

    fn test(&self, cond: &'v Condition) -> Tri<'v> {
        match cond {
            Condition::Always(a) => {
                if a.always {
                    Tri::True
                } else {
                    Tri::False
                }
            }
            Condition::Not(n) => match self.test(&n.not) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                unknown => unknown,
            },
            Condition::All(a) => self.combine(&a.all, false),
            Condition::Any(a) => self.combine(&a.any, true),
            Condition::Compare(c) => match self.known.get(c.var.as_str()) {
                Some(v) => {
                    if compare(*v, c.op, &c.value) {
                        Tri::True
                    } else {
                        Tri::False
                    }
                }
                None => {
                    let vars = match self.missing.get(c.var.as_str()) {
                        Some(inputs) if !inputs.is_empty() => inputs.iter().copied().collect(),
                        _ => BTreeSet::from([c.var.as_str()]),
                    };
                    Tri::Unknown(vars)
                }
            },
        }
    }

    /// Tests the rules in order up to the first that is not false.
    fn run(&self, unit: &'v DecisionUnit) -> (Stop<'v>, Vec<Step>) {
        let mut trace = Vec::new();
        for (i, rule) in unit.rules.iter().enumerate() {
            match self.test(&rule.when) {
                Tri::False => trace.push(Step {
                    rule: i,
                    holds: Truth::False,
                }),
                Tri::True => {
                    trace.push(Step {
                        rule: i,
                        holds: Truth::True,
                    });
                    return (Stop::Decided(i), trace);
                }
                Tri::Unknown(m) => {
                    trace.push(Step {
                        rule: i,
                        holds: Truth::Unknown,
                    });
                    return (Stop::Unknown(i, m), trace);
                }
            }
        }
        (Stop::NoRule, trace)
    }
}

enum Stop<'v> {
    Decided(usize),
    Unknown(usize, BTreeSet<&'v str>),
    NoRule,
}

fn compare(v: Val, op: Op, value: &serde_json::Value) -> bool {
    let strings = || {
        value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str())
    };
    match v {
        Val::Number(x) => {
            let t = value.as_f64();
            match op {
                Op::Eq => t == Some(x),
                Op::Ne => t.is_some_and(|t| t != x),
                Op::Lt => t.is_some_and(|t| x < t),
                Op::Lte => t.is_some_and(|t| x <= t),
                Op::Gt => t.is_some_and(|t| x > t),
                Op::Gte => t.is_some_and(|t| x >= t),
                Op::In => value
                    .as_array()
                    .is_some_and(|a| a.iter().any(|t| t.as_f64() == Some(x))),
                Op::Has => false,
            }
        }
        Val::Choice(s) => match op {
            Op::Eq => value.as_str() == Some(s),
            Op::Ne => value.as_str().is_some_and(|t| t != s),
            Op::In => strings().any(|t| t == s),
            _ => false,
        },
        Val::Choices(set) => {
            let has = |t: &str| set.iter().any(|s| s == t);
            match op {
                Op::Has | Op::Eq => value.as_str().is_some_and(has),
                Op::Ne => value.as_str().is_some_and(|t| !has(t)),
                Op::In => strings().any(has),
                _ => false,
            }
        }
        Val::Flag(b) => match op {
            Op::Eq => value.as_bool() == Some(b),
            Op::Ne => value.as_bool().is_some_and(|t| t != b),
            _ => false,
        },
    }
}

/// The points of a chosen value (a value without points counts 0).
fn points_of(input: &Input, given: &Given) -> f64 {
    let p = |v: &str| {
        input
            .values
            .iter()
            .find(|d| d.value == v)
            .and_then(|d| d.points)
            .unwrap_or(0.0)
    };
    match given {
        Given::Choice(v) => p(v),
        Given::Choices(vs) => vs.iter().map(|v| p(v)).sum(),
        _ => 0.0,
    }
}

/// What one unit evaluation produced before it is shaped into an answer.
struct Evaluated<'a> {
    answer: UnitAnswer<'a>,
    /// The primary inputs still needed (for `needs_inputs`).
    needs: Vec<&'a str>,
}

/// Evaluates the system: every unit, or those named in `units` and the units they depend on.
pub fn evaluate<'a>(
    model: Model<'a>,
    inputs: &Inputs,
    units: Option<&[String]>,
) -> Result<Evaluation<'a>, InputError> {
    for id in inputs.keys() {
        model.known_input(id)?;
    }
    let order = model
        .order()
        .unwrap_or_else(|_| (0..model.units.len()).collect());
    let mut wanted = vec![units.is_none(); model.units.len()];
    if let Some(ids) = units {
        let mut stack = Vec::new();
        for id in ids {
            let i = model
                .unit_index(id)
                .ok_or_else(|| InputError::UnknownUnit {
                    unit: id.clone(),
                    known: model.units.iter().map(|u| u.id.clone()).collect(),
                })?;
            stack.push(i);
        }
        while let Some(i) = stack.pop() {
            if !wanted[i] {
                wanted[i] = true;
                stack.extend(model.sources_of(&model.units[i]));
            }
        }
    }
    let mut done: BTreeMap<&'a str, Evaluated<'a>> = BTreeMap::new();
    let mut answers = Vec::new();
    for i in order.into_iter().filter(|&i| wanted[i]) {
        let unit = &model.units[i];
        let out = evaluate_unit(model, unit, inputs, &done);
        answers.push(unit.id.as_str());
        done.insert(unit.id.as_str(), out);
    }
    let mut missing: BTreeSet<&str> = BTreeSet::new();
    let mut units_out = Vec::with_capacity(answers.len());
    for id in answers {
        if let Some(out) = done.remove(id) {
            missing.extend(out.needs.iter().copied());
            units_out.push(out.answer);
        }
    }
    let missing = model
        .inputs
        .iter()
        .map(|i| i.id.as_str())
        .filter(|id| missing.contains(id))
        .collect();
    Ok(Evaluation {
        units: units_out,
        missing,
    })
}

fn evaluate_unit<'a>(
    model: Model<'a>,
    unit: &'a DecisionUnit,
    inputs: &Inputs,
    done: &BTreeMap<&'a str, Evaluated<'a>>,
) -> Evaluated<'a> {
    // The values: given inputs, derived answers, the score.
    let mut derived_values: Vec<(&'a str, String)> = Vec::new();
    let mut derived = Vec::new();
    for id in &unit.inputs {
        let Some(input) = model.input(id) else {
            continue;
        };
        let Some(from) = input.derived_from.as_deref() else {
            continue;
        };
        if let Some(Given::Choice(v)) = inputs.get(id) {
            derived.push(Derived {
                input: &input.id,
                from,
                value: Some(v.clone()),
                given: true,
            });
            continue;
        }
        let answer = done.get(from).and_then(|o| o.answer.answer);
        if let Some(a) = answer {
            derived_values.push((&input.id, a.to_string()));
        }
        derived.push(Derived {
            input: &input.id,
            from,
            value: answer.map(String::from),
            given: false,
        });
    }
    let mut env = Env {
        known: BTreeMap::new(),
        missing: BTreeMap::new(),
    };
    for id in &unit.inputs {
        match inputs.get(id) {
            Some(g) => {
                env.known.insert(id.as_str(), Val::of(g));
            }
            None => {
                if let Some((_, v)) = derived_values.iter().find(|(d, _)| *d == id.as_str()) {
                    env.known.insert(id.as_str(), Val::Choice(v));
                } else {
                    env.missing.insert(id.as_str(), Vec::new());
                }
            }
        }
    }
    let score = unit.score.as_ref().map(|s| {
        let mut points = Vec::new();
        let mut missing = Vec::new();
        let mut total = 0.0;
        for id in &s.sum {
            match (model.input(id), inputs.get(id)) {
                (Some(input), Some(g)) => {
                    let p = points_of(input, g);
                    total += p;
                    points.push(Points {
                        input: &input.id,
                        value: g.clone(),
                        points: p,
                    });
                }
                _ => missing.push(id.as_str()),
            }
        }
        ScoreAnswer {
            id: &s.id,
            label: &s.label,
            value: missing.is_empty().then_some(total),
            points,
            missing,
        }
    });
    if let Some(s) = &score {
        match s.value {
            Some(v) => {
                env.known.insert(s.id, Val::Number(v));
            }
            None => {
                env.missing.insert(s.id, s.missing.clone());
            }
        }
    }

    let (stop, trace) = env.run(unit);
    let mut answer = UnitAnswer {
        id: &unit.id,
        title: &unit.title,
        status: UnitStatus::NotReached,
        answer: None,
        reason: None,
        score,
        rule: None,
        outcome: None,
        result: None,
        defers_to: Vec::new(),
        missing: Vec::new(),
        derived,
        trace,
        changes: Vec::new(),
    };
    let mut needs = Vec::new();
    match stop {
        Stop::Decided(i) => {
            let rule = &unit.rules[i];
            answer.status = UnitStatus::Decided;
            answer.rule = Some(Cited::rule(unit, i));
            answer.outcome = rule.outcome.as_deref().and_then(|c| model.outcome(c));
            answer.result = rule.result.as_deref();
            answer.defers_to = rule.defers_to.iter().map(String::as_str).collect();
            answer.answer = rule.outcome.as_deref().or(rule.result.as_deref());
            answer.changes = changes(model, unit, &env, i);
        }
        Stop::NoRule => {
            answer.reason = Some(format!(
                "no rule of '{}' holds for these inputs: the source's rules do not cover this \
                 combination",
                unit.id
            ));
        }
        Stop::Unknown(i, vars) => {
            answer.rule = Some(Cited::rule(unit, i));
            let mut wanted: BTreeSet<&str> = BTreeSet::new();
            let mut blocked = Vec::new();
            for var in vars {
                let source = model.input(var).and_then(|i| i.derived_from.as_deref());
                match source.and_then(|s| done.get(s).map(|o| (s, o))) {
                    Some((_, o)) if o.answer.status == UnitStatus::NeedsInputs => {
                        wanted.extend(o.needs.iter().copied())
                    }
                    Some((s, _)) => blocked.push(format!("'{var}' (from '{s}', not reached)")),
                    None => {
                        wanted.insert(var);
                    }
                }
            }
            if wanted.is_empty() {
                answer.reason = Some(format!(
                    "rule {i} depends on {}, which no input can supply",
                    blocked.join(", ")
                ));
            } else {
                answer.status = UnitStatus::NeedsInputs;
                needs = model
                    .inputs
                    .iter()
                    .map(|i| i.id.as_str())
                    .filter(|id| wanted.contains(id))
                    .collect();
                answer.missing = needs.iter().filter_map(|id| model.input(id)).collect();
            }
        }
    }
    Evaluated { answer, needs }
}

/// The text of an answer: `TR4 (Moderately suspicious)`, or the result, or both.
pub fn answer_text(model: Model, rule: &Rule) -> String {
    let outcome =
        rule.outcome
            .as_deref()
            .map(|code| match model.outcome(code).map(|o| o.label.as_str()) {
                Some(label) if label != code => format!("{code} ({label})"),
                _ => code.to_string(),
            });
    match (outcome, rule.result.as_deref()) {
        (Some(o), Some(r)) => format!("{o}: {r}"),
        (Some(o), None) => o,
        (None, Some(r)) => r.to_string(),
        (None, None) => String::new(),
    }
}

/// Collects the numbers a unit's conditions compare `var` with.
fn thresholds(cond: &Condition, var: &str, out: &mut Vec<f64>) {
    match cond {
        Condition::Compare(c) if c.var == var => match &c.value {
            serde_json::Value::Array(items) => out.extend(items.iter().filter_map(|v| v.as_f64())),
            v => out.extend(v.as_f64()),
        },
        Condition::All(a) => a.all.iter().for_each(|c| thresholds(c, var, out)),
        Condition::Any(a) => a.any.iter().for_each(|c| thresholds(c, var, out)),
        Condition::Not(n) => thresholds(&n.not, var, out),
        _ => {}
    }
}

/// The number inputs a condition compares.
fn number_vars<'a>(model: Model<'a>, cond: &'a Condition, out: &mut Vec<&'a Input>) {
    match cond {
        Condition::Compare(c) => {
            if let Some(input) = model.input(&c.var) {
                if input.kind == InputType::Number && !out.iter().any(|i| i.id == input.id) {
                    out.push(input);
                }
            }
        }
        Condition::All(a) => a.all.iter().for_each(|c| number_vars(model, c, out)),
        Condition::Any(a) => a.any.iter().for_each(|c| number_vars(model, c, out)),
        Condition::Not(n) => number_vars(model, &n.not, out),
        Condition::Always(_) => {}
    }
}

/// How far beside a boundary "just above" and "just below" are probed.
fn nudge(t: f64) -> f64 {
    1e-6 * t.abs().max(1.0)
}

/// For each number input of the deciding rule, the nearest boundary below and above the given
/// value at which the unit would decide differently.
fn changes<'a>(
    model: Model<'a>,
    unit: &'a DecisionUnit,
    env: &Env,
    decided: usize,
) -> Vec<Change<'a>> {
    let current = answer_text(model, &unit.rules[decided]);
    let mut vars = Vec::new();
    number_vars(model, &unit.rules[decided].when, &mut vars);
    let mut out = Vec::new();
    for input in vars {
        let Some(Val::Number(v)) = env.known.get(input.id.as_str()).copied() else {
            continue;
        };
        let (ts, probes) = boundary_probes(unit, input);
        let up = probes.iter().copied().filter(|p| *p > v);
        let down = probes.iter().rev().copied().filter(|p| *p < v);
        for (dir_up, seq) in [
            (true, up.collect::<Vec<_>>()),
            (false, down.collect::<Vec<_>>()),
        ] {
            let mut moved = env.clone();
            for p in seq {
                moved.known.insert(&input.id, Val::Number(p));
                match moved.run(unit).0 {
                    Stop::Decided(j) => {
                        let answer = answer_text(model, &unit.rules[j]);
                        if answer == current {
                            continue;
                        }
                        let on_boundary = ts.contains(&p);
                        let (at, side) = if dir_up {
                            if on_boundary {
                                (p, Side::AtOrAbove)
                            } else {
                                (nearest(&ts, p), Side::Above)
                            }
                        } else if on_boundary {
                            (p, Side::AtOrBelow)
                        } else {
                            (nearest(&ts, p), Side::Below)
                        };
                        let note = format!(
                            "{} {}: {answer}",
                            input.label,
                            side_text(side, at, input.unit.as_deref())
                        );
                        out.push(Change {
                            input: &input.id,
                            at,
                            side,
                            answer,
                            note,
                            rule: Cited::rule(unit, j),
                        });
                        break;
                    }
                    // Another input would be needed there, or no rule covers it: say nothing.
                    _ => break,
                }
            }
        }
    }
    out
}

fn nearest(ts: &[f64], p: f64) -> f64 {
    ts.iter()
        .copied()
        .min_by(|a, b| (a - p).abs().total_cmp(&(b - p).abs()))
        .unwrap_or(p)
}

fn side_text(side: Side, at: f64, unit: Option<&str>) -> String {
    let amount = match unit {
        Some("%") => format!("{}%", num(at)),
        Some(u) if !u.is_empty() => format!("{} {u}", num(at)),
        _ => num(at),
    };
    match side {
        Side::AtOrAbove => format!("at {amount} or more"),
        Side::Above => format!("above {amount}"),
        Side::Below => format!("below {amount}"),
        Side::AtOrBelow => format!("at {amount} or less"),
    }
}

/// The values a variable is tried with when looking for rules no input can reach.
fn domain(model: Model, unit: &DecisionUnit, input: &Input) -> Option<Vec<Given>> {
    Some(match input.kind {
        InputType::Enum => {
            let mut values: Vec<String> = input.values.iter().map(|v| v.value.clone()).collect();
            // A derived input also takes whatever its unit may answer.
            if let Some(i) = input
                .derived_from
                .as_deref()
                .and_then(|u| model.unit_index(u))
            {
                for r in &model.units[i].rules {
                    if let Some(a) = r.outcome.as_ref().or(r.result.as_ref()) {
                        if !values.contains(a) {
                            values.push(a.clone());
                        }
                    }
                }
            }
            values.into_iter().map(Given::Choice).collect()
        }
        InputType::Multi => {
            let n = input.values.len();
            if n > 10 {
                return None;
            }
            (0..1u32 << n)
                .map(|mask| {
                    Given::Choices(
                        (0..n)
                            .filter(|b| mask & (1 << b) != 0)
                            .map(|b| input.values[b].value.clone())
                            .collect(),
                    )
                })
                .collect()
        }
        InputType::Boolean => vec![Given::Flag(false), Given::Flag(true)],
        InputType::Number => {
            let (_, mut probes) = boundary_probes(unit, input);
            if probes.is_empty() {
                probes.push(input.min.unwrap_or(0.0));
            }
            probes.into_iter().map(Given::Number).collect()
        }
    })
}

fn mentions(cond: &Condition, var: &str) -> bool {
    match cond {
        Condition::Compare(c) => c.var == var,
        Condition::All(a) => a.all.iter().any(|c| mentions(c, var)),
        Condition::Any(a) => a.any.iter().any(|c| mentions(c, var)),
        Condition::Not(n) => mentions(&n.not, var),
        Condition::Always(_) => false,
    }
}

/// Whether a rule can decide, as the exhaustive search over input values found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Some combination of input values makes the rule the deciding one.
    Reached,
    /// No combination does. `before` lists the earlier rules that decided in the combinations
    /// where this rule's condition held; empty when its condition held in none of them.
    Never { before: Vec<usize> },
}

/// The inputs a unit reads with the values the exhaustive search tries for each. Every input
/// the unit reads is given a value: enum and boolean inputs each of theirs (a derived input
/// also every answer its unit can give), multi inputs every subset, numbers each boundary
/// their conditions name and just beside it. `None` when there are more than `limit`
/// combinations to try.
fn search_space<'a>(
    model: Model<'a>,
    unit: &'a DecisionUnit,
    limit: usize,
) -> Option<Vec<(&'a Input, Vec<Given>)>> {
    let summed: Vec<&str> = unit
        .score
        .iter()
        .flat_map(|s| s.sum.iter().map(String::as_str))
        .collect();
    let mut vars: Vec<(&Input, Vec<Given>)> = Vec::new();
    for id in &unit.inputs {
        let Some(input) = model.input(id) else {
            continue;
        };
        let used =
            summed.contains(&id.as_str()) || unit.rules.iter().any(|r| mentions(&r.when, id));
        if used && !vars.iter().any(|(i, _)| i.id == *id) {
            vars.push((input, domain(model, unit, input)?));
        }
    }
    let mut total: usize = 1;
    for (_, d) in &vars {
        total = total.checked_mul(d.len().max(1))?;
        if total > limit {
            return None;
        }
    }
    Some(vars)
}

/// Calls `visit` with the variables of every combination of `vars` (the score computed) until
/// it returns `false`.
fn each_combination<'v>(
    unit: &'v DecisionUnit,
    vars: &'v [(&'v Input, Vec<Given>)],
    mut visit: impl FnMut(&Env<'v>) -> bool,
) {
    if vars.iter().any(|(_, d)| d.is_empty()) {
        return;
    }
    let mut digits = vec![0usize; vars.len()];
    loop {
        let mut env = Env {
            known: BTreeMap::new(),
            missing: BTreeMap::new(),
        };
        for ((input, d), &k) in vars.iter().zip(&digits) {
            env.known.insert(&input.id, Val::of(&d[k]));
        }
        if let Some(s) = &unit.score {
            let total: f64 = vars
                .iter()
                .zip(&digits)
                .filter(|((input, _), _)| s.sum.contains(&input.id))
                .map(|((input, d), &k)| points_of(input, &d[k]))
                .sum();
            env.known.insert(&s.id, Val::Number(total));
        }
        if !visit(&env) {
            return;
        }
        // The next combination, odometer-style.
        let mut pos = 0;
        loop {
            if pos == digits.len() {
                return;
            }
            digits[pos] += 1;
            if digits[pos] < vars[pos].1.len() {
                break;
            }
            digits[pos] = 0;
            pos += 1;
        }
    }
}

/// For each rule of `unit`, whether some combination of input values makes it the deciding
/// rule (see `search_space` for the values tried), and for a rule none does, which earlier
/// rules decide where its condition holds. Inputs are all given: a rule that decides with some
/// inputs missing also decides once they are given (three-valued logic is monotone), so a rule
/// not found here is reached by no request at all. `None` when there are more than `limit`
/// combinations to try.
pub fn reachable_rules(model: Model, unit: &DecisionUnit, limit: usize) -> Option<Vec<Reach>> {
    let vars = search_space(model, unit, limit)?;
    let mut reached = vec![false; unit.rules.len()];
    each_combination(unit, &vars, |env| {
        if let (Stop::Decided(i), _) = env.run(unit) {
            reached[i] = true;
        }
        !reached.iter().all(|r| *r)
    });
    let mut before: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); unit.rules.len()];
    if reached.iter().any(|r| !*r) {
        // Second pass, only for a unit with unreachable rules: where each holds, who decides.
        each_combination(unit, &vars, |env| {
            if let (Stop::Decided(i), _) = env.run(unit) {
                for (j, rule) in unit.rules.iter().enumerate().skip(i + 1) {
                    if !reached[j] && matches!(env.test(&rule.when), Tri::True) {
                        before[j].insert(i);
                    }
                }
            }
            true
        });
    }
    Some(
        reached
            .into_iter()
            .zip(before)
            .map(|(r, b)| {
                if r {
                    Reach::Reached
                } else {
                    Reach::Never {
                        before: b.into_iter().collect(),
                    }
                }
            })
            .collect(),
    )
}

/// The thresholds a unit's rules name for a number input, and the values worth trying: each
/// threshold and just below and above it, within the input's min/max, sorted, no repeats.
fn boundary_probes(unit: &DecisionUnit, input: &Input) -> (Vec<f64>, Vec<f64>) {
    let mut ts = Vec::new();
    for rule in &unit.rules {
        thresholds(&rule.when, &input.id, &mut ts);
    }
    let mut probes: Vec<f64> = ts
        .iter()
        .flat_map(|&t| [t - nudge(t), t, t + nudge(t)])
        .filter(|p| input.min.is_none_or(|m| *p >= m) && input.max.is_none_or(|m| *p <= m))
        .collect();
    probes.sort_by(|a, b| a.total_cmp(b));
    probes.dedup();
    (ts, probes)
}
