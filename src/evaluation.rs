//! Evaluating a system for a client: reading the inputs from a query string, a JSON body or
//! tool arguments, running the evaluator (`corpus::evaluate`) on the compiled logic, and
//! shaping the answer as JSON or as one compact cited markdown block.
//!
//! The same functions serve `GET|POST /api/v1/systems/{slug}/evaluate` and the MCP tool
//! `radref_evaluate`, so all three answer alike.

use crate::corpus::compiled::Logic;
use crate::corpus::evaluate::{
    evaluate, evaluate_link, given_text, num, Evaluation, Given, InputError, Inputs, UnitAnswer,
    UnitStatus,
};
use crate::corpus::source::NOTICE;
use crate::corpus::source::RESERVED_PARAMS;
use crate::corpus::source::{Reference, Verification};
use crate::feature::FeatureError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How the answer is shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Markdown,
    /// A FHIR R4 Bundle of Observations (`format=fhir`, or `Accept: application/fhir+json`).
    Fhir,
}

impl Format {
    /// `json` (the default) or `markdown`.
    pub fn parse(value: Option<&str>) -> Result<Format, FeatureError> {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("json") => Ok(Format::Json),
            Some("markdown") => Ok(Format::Markdown),
            Some("fhir") => Ok(Format::Fhir),
            Some(other) => Err(FeatureError::argument(
                "format",
                format!(
                    "unknown format '{other}'; allowed: {}",
                    crate::schema::EVALUATION_FORMATS.join(", ")
                ),
            )),
        }
    }
}

/// What a client asked: the inputs, the units wanted (all when `None`) and the format.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    pub inputs: Inputs,
    pub units: Option<Vec<String>>,
    pub format: Format,
}

fn refused(e: InputError) -> FeatureError {
    FeatureError::argument(&e.field(), e.to_string())
}

/// Reads a query string: `format`, `units` (comma-separated) and every other parameter an
/// input (multi values comma-separated). A parameter given twice is refused.
pub fn from_query(logic: &Logic, pairs: &[(String, String)]) -> Result<Ask, FeatureError> {
    for (i, (name, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(n, _)| n == name) {
            return Err(FeatureError::argument(
                name,
                format!("parameter '{name}' was given more than once"),
            ));
        }
    }
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let units = get("units")
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|u| u.trim().to_string()).collect());
    let inputs = logic
        .model()
        .inputs_from_query(
            pairs
                .iter()
                .filter(|(n, _)| !RESERVED_PARAMS.contains(&n.as_str()))
                .map(|(n, v)| (n.as_str(), v.as_str())),
        )
        .map_err(refused)?;
    Ok(Ask {
        inputs,
        units,
        format: Format::parse(get("format"))?,
    })
}

/// Reads a JSON object `{inputs, units?, format?}` (a POST body or tool arguments without the
/// slug). `format_param` is the query's `format`, used when the body has none.
pub fn from_object(
    logic: &Logic,
    body: &Map<String, Value>,
    fields: &[&str],
    format_param: Option<&str>,
) -> Result<Ask, FeatureError> {
    if let Some(k) = body.keys().find(|k| !fields.contains(&k.as_str())) {
        return Err(FeatureError::argument(
            k,
            format!("unknown field '{k}'; allowed: {}", fields.join(", ")),
        ));
    }
    // `null` stands for "not given" inside `inputs`; the body's own fields are what the schema
    // says they are, or absent.
    let inputs = match body.get("inputs") {
        None => Inputs::new(),
        Some(Value::Object(map)) => logic.model().inputs_from_json(map).map_err(refused)?,
        Some(_) => {
            return Err(FeatureError::argument(
                "inputs",
                "'inputs' must be an object of input ids to values",
            ))
        }
    };
    let units = match body.get("units") {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|v| v.as_str().map(String::from))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| {
                    FeatureError::argument("units", "'units' must be a list of unit ids")
                })?,
        ),
        Some(_) => {
            return Err(FeatureError::argument(
                "units",
                "'units' must be a list of unit ids",
            ))
        }
    };
    // The query's `format` must be valid even when the body names one (the body's wins).
    let from_query = Format::parse(format_param)?;
    let format = match body.get("format") {
        None => from_query,
        Some(Value::String(s)) => Format::parse(Some(s))?,
        Some(_) => {
            return Err(FeatureError::argument(
                "format",
                "'format' must be json, markdown or fhir",
            ))
        }
    };
    Ok(Ask {
        inputs,
        units,
        format,
    })
}

/// Runs the evaluator.
pub fn run<'a>(logic: &'a Logic, ask: &Ask) -> Result<Evaluation<'a>, FeatureError> {
    evaluate(logic.model(), &ask.inputs, ask.units.as_deref()).map_err(refused)
}

/// The shareable `GET` link of an evaluation: the inputs in the system's order.
pub fn link(logic: &Logic, ask: &Ask) -> String {
    evaluate_link(
        &logic.slug,
        logic.model(),
        &ask.inputs,
        ask.units.as_deref(),
    )
}

/// The references the answer cites, by id.
fn cited<'a>(logic: &'a Logic, eval: &Evaluation) -> BTreeMap<&'a str, &'a Reference> {
    let mut ids: Vec<&str> = Vec::new();
    for u in &eval.units {
        ids.extend(u.rule.iter().map(|r| r.citation));
        ids.extend(u.changes.iter().map(|c| c.rule.citation));
        if let Some(o) = u.outcome {
            ids.push(&o.definition.citation);
            ids.extend(o.risk.iter().map(|l| l.citation.as_str()));
            ids.extend(o.management.iter().map(|l| l.citation.as_str()));
        }
        ids.extend(u.missing.iter().map(|i| i.citation.as_str()));
    }
    logic
        .references
        .iter()
        .filter(|(id, _)| ids.contains(&id.as_str()))
        .map(|(id, r)| (id.as_str(), r))
        .collect()
}

/// The JSON answer, serialised straight from the evaluation.
#[derive(Serialize)]
pub struct Answer<'a> {
    notice: &'static str,
    slug: &'a str,
    system: &'a str,
    version: &'a str,
    /// The inputs as read.
    inputs: &'a Inputs,
    units: &'a [UnitAnswer<'a>],
    missing: &'a [&'a str],
    references: BTreeMap<&'a str, &'a Reference>,
    links: Links,
}

#[derive(Serialize)]
struct Links {
    #[serde(rename = "self")]
    self_: String,
    system: String,
}

/// The JSON answer.
pub fn answer<'a>(logic: &'a Logic, ask: &'a Ask, eval: &'a Evaluation<'a>) -> Answer<'a> {
    Answer {
        notice: NOTICE,
        slug: &logic.slug,
        system: &logic.short_name,
        version: &logic.version,
        inputs: &ask.inputs,
        units: &eval.units,
        missing: &eval.missing,
        references: cited(logic, eval),
        links: Links {
            self_: link(logic, ask),
            system: format!("/api/v1/systems/{}", logic.slug),
        },
    }
}

/// A reference as one citation.
fn cite(r: &Reference) -> String {
    r.short_citation()
}

/// The answer as one compact markdown block: per unit its answer, the deciding rule, the
/// outcome's lines and what would change it, each cited `[n, locator]`; then what is missing,
/// the numbered references, the notice and the shareable link.
pub fn to_markdown(logic: &Logic, ask: &Ask, eval: &Evaluation) -> String {
    let refs: Vec<&str> = cited(logic, eval).keys().copied().collect();
    let mark = |citation: &str, locator: &str, v: Verification| {
        let n = refs
            .iter()
            .position(|r| *r == citation)
            .map_or(0, |i| i + 1);
        let draft = if v == Verification::Draft {
            "; draft"
        } else {
            ""
        };
        format!("[{n}, {locator}{draft}]")
    };
    let mut md = format!("## {} ({}): evaluation\n\n", logic.short_name, logic.slug);
    let given: Vec<String> = logic
        .inputs
        .iter()
        .filter_map(|i| {
            ask.inputs.get(&i.id).map(|g| {
                let unit = i
                    .unit
                    .as_deref()
                    .map(|u| format!(" {u}"))
                    .unwrap_or_default();
                let value = match g {
                    Given::Choices(v) if v.is_empty() => "none chosen".to_string(),
                    g => given_text(g),
                };
                format!("{} {value}{unit}", i.id)
            })
        })
        .collect();
    md.push_str(&format!(
        "Inputs: {}\n",
        if given.is_empty() {
            "none".to_string()
        } else {
            given.join("; ")
        }
    ));
    for u in &eval.units {
        md.push_str(&unit_markdown(u, &mark));
    }
    if !eval.missing.is_empty() {
        md.push_str(&format!("\nStill needed: {}\n", eval.missing.join(", ")));
    }
    md.push_str("\nReferences:\n");
    for (i, id) in refs.iter().enumerate() {
        if let Some(r) = logic.references.get(*id) {
            md.push_str(&format!("{}. {}\n", i + 1, cite(r)));
        }
    }
    md.push_str(&format!("\n{NOTICE}\nLink: {}\n", link(logic, ask)));
    md
}

fn unit_markdown(u: &UnitAnswer, mark: &dyn Fn(&str, &str, Verification) -> String) -> String {
    let mut md = format!("\n**{}** ({}): ", u.title, u.id);
    match u.status {
        UnitStatus::Decided => {
            let answer = match (u.outcome, u.result) {
                (Some(o), Some(r)) => format!("{} ({}): {r}", o.code, o.label),
                (Some(o), None) => format!("{} ({})", o.code, o.label),
                (None, Some(r)) => r.to_string(),
                (None, None) => String::new(),
            };
            md.push_str(&format!("**{answer}**"));
            if let Some(s) = &u.score {
                let parts: Vec<String> = s
                    .points
                    .iter()
                    .map(|p| format!("{} {}", p.input, num(p.points)))
                    .collect();
                if let Some(v) = s.value {
                    md.push_str(&format!(". {} {} ({})", s.label, num(v), parts.join(", ")));
                }
            }
            md.push('\n');
            if let Some(r) = &u.rule {
                md.push_str(&format!(
                    "- Rule {}: {} {}\n",
                    r.index.unwrap_or_default(),
                    r.text,
                    mark(r.citation, r.locator, r.verification)
                ));
            }
            if let Some(o) = u.outcome {
                let d = &o.definition;
                md.push_str(&format!(
                    "- Definition: {} {}\n",
                    d.text,
                    mark(&d.citation, &d.locator, d.verification)
                ));
                if let Some(r) = &o.risk {
                    md.push_str(&format!(
                        "- Risk: {} {}\n",
                        r.text,
                        mark(&r.citation, &r.locator, r.verification)
                    ));
                }
                for m in &o.management {
                    md.push_str(&format!(
                        "- Management: {} {}\n",
                        m.text,
                        mark(&m.citation, &m.locator, m.verification)
                    ));
                }
            }
            for c in &u.changes {
                md.push_str(&format!(
                    "- Would change: {} {}\n",
                    c.note,
                    mark(c.rule.citation, c.rule.locator, c.rule.verification)
                ));
            }
        }
        UnitStatus::NeedsInputs => {
            md.push_str("needs inputs");
            if let Some(r) = &u.rule {
                md.push_str(&format!(
                    " (stopped at rule {})",
                    r.index.unwrap_or_default()
                ));
            }
            md.push('\n');
            for i in &u.missing {
                let mut what = format!("{:?}", i.kind).to_lowercase();
                if !i.values.is_empty() {
                    let values: Vec<&str> = i.values.iter().map(|v| v.value.as_str()).collect();
                    what.push_str(&format!(": {}", values.join(" | ")));
                }
                if let Some(unit) = &i.unit {
                    what.push_str(&format!(", {unit}"));
                }
                match (i.min, i.max) {
                    (Some(lo), Some(hi)) => what.push_str(&format!(", {} to {}", num(lo), num(hi))),
                    (Some(lo), None) => what.push_str(&format!(", at least {}", num(lo))),
                    (None, Some(hi)) => what.push_str(&format!(", at most {}", num(hi))),
                    (None, None) => {}
                }
                md.push_str(&format!("- {} ({what}): {}\n", i.id, i.label));
            }
        }
        UnitStatus::NotReached => {
            md.push_str(&format!(
                "not reached: {}\n",
                u.reason.as_deref().unwrap_or_default()
            ));
        }
    }
    md
}
