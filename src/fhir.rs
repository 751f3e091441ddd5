//! An evaluation as FHIR R4: a `Bundle` (type `collection`) of `Observation`s, one per decided
//! unit, and radref's own `CodeSystem` per system and version for the codes those
//! Observations use (`GET /api/v1/fhir/CodeSystem/{slug}`).
//!
//! An Observation's `code` is the unit (its RadElement element where the corpus holds a
//! confirmed one, and always radref's code), its `valueCodeableConcept` the outcome (SNOMED CT,
//! RadLex, DICOM or RadElement codes where confirmed, and radref's), its `component`s the inputs
//! given, its `method` the system, version and deciding rule, and its `note`s the cited lines
//! with their locators. `status` is `preliminary` while any line it rests on is a draft. The
//! CodeSystem's `url` is the `system` of radref's codings: one per system *and version*, since
//! a category means something else in another version.

use crate::corpus::compiled::Logic;
use crate::corpus::evaluate::{Evaluation, Given};
use crate::corpus::source::{
    AsLine, Code, CodeScheme, Input, InputType, LineRef, Verification, NOTICE,
};
use crate::evaluation::Ask;
use serde_json::{json, Value};

/// The media type of a FHIR JSON resource.
pub const MEDIA_TYPE: &str = "application/fhir+json; charset=utf-8";

/// The `system` URI of a terminology, as FHIR names it.
fn system_uri(scheme: CodeScheme) -> &'static str {
    match scheme {
        CodeScheme::SnomedCt => "http://snomed.info/sct",
        CodeScheme::Loinc => "http://loinc.org",
        CodeScheme::RadLex => "http://radlex.org",
        CodeScheme::Dicom => "http://dicom.nema.org/resources/ontology/DCM",
        CodeScheme::RadElement => "https://radelement.org",
    }
}

/// The URL of radref's CodeSystem for a system (and so for its version): the `system` of
/// radref's own codings.
pub fn code_system_url(origin: &str, slug: &str) -> String {
    format!("{origin}/api/v1/fhir/CodeSystem/{slug}")
}

/// radref's code of a decision unit, of an input, of an outcome: outcomes by their own code,
/// units and inputs prefixed so no code of one kind can equal another's.
fn unit_code(id: &str) -> String {
    format!("unit:{id}")
}

fn input_code(id: &str) -> String {
    format!("input:{id}")
}

fn value_code(input: &str, value: &str) -> String {
    format!("input:{input}={value}")
}

/// A coding of a confirmed external code (the same concept only: a code of a set that
/// describes the finding, or of a related concept, is not the unit's or the outcome's).
fn external(c: &Code) -> Option<Value> {
    c.relation
        .is_same()
        .then(|| json!({ "system": system_uri(c.scheme), "code": c.code, "display": c.display }))
}

/// The UCUM unit of an input's unit, where one is written the same way.
fn ucum(unit: &str) -> Option<&'static str> {
    match unit {
        "mm" => Some("mm"),
        "cm" => Some("cm"),
        "mm3" => Some("mm3"),
        "mL" | "ml" => Some("mL"),
        "HU" => Some("[hnsf'U]"),
        "%" => Some("%"),
        "years" => Some("a"),
        "months" => Some("mo"),
        "days" => Some("d"),
        _ => None,
    }
}

/// A FHIR `id`: letters, digits, `-` and `.`, at most 64 characters.
fn fhir_id(s: &str) -> String {
    let mut id: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    id.truncate(64);
    id
}

/// A cited line as a FHIR annotation: the text, then where it comes from.
fn note(logic: &Logic, line: LineRef) -> Value {
    let source = logic
        .references
        .get(line.citation)
        .map(|r| r.short_citation())
        .unwrap_or_else(|| line.citation.to_string());
    let draft = if line.verification == Verification::Draft {
        " Draft: not yet verified against the source."
    } else {
        ""
    };
    json!({ "text": format!("{} Source: {source}, {}.{draft}", line.text, line.locator) })
}

/// The components of the inputs given: a quantity, a coded value (one component per chosen
/// value of a multi input) or a boolean.
fn components(logic: &Logic, ask: &Ask, url: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for input in &logic.inputs {
        let Some(given) = ask.inputs.get(&input.id) else {
            continue;
        };
        let code = input_concept(input, url);
        match given {
            Given::Number(x) => {
                let mut quantity = json!({ "value": x });
                if let Some(unit) = &input.unit {
                    quantity["unit"] = json!(unit);
                    if let Some(u) = ucum(unit) {
                        quantity["system"] = json!("http://unitsofmeasure.org");
                        quantity["code"] = json!(u);
                    }
                }
                out.push(json!({ "code": code, "valueQuantity": quantity }));
            }
            Given::Flag(b) => out.push(json!({ "code": code, "valueBoolean": b })),
            Given::Choice(v) => out.push(
                json!({ "code": code, "valueCodeableConcept": value_concept(input, v, url) }),
            ),
            Given::Choices(vs) => {
                for v in vs {
                    out.push(json!({ "code": code, "valueCodeableConcept": value_concept(input, v, url) }));
                }
            }
        }
    }
    out
}

fn input_concept(input: &Input, url: &str) -> Value {
    let mut coding: Vec<Value> = input.codes.iter().filter_map(external).collect();
    coding.push(json!({ "system": url, "code": input_code(&input.id), "display": input.label }));
    json!({ "coding": coding, "text": input.label })
}

fn value_concept(input: &Input, value: &str, url: &str) -> Value {
    let declared = input.values.iter().find(|v| v.value == value);
    let label = declared.map_or(value, |v| v.label.as_str());
    let mut coding: Vec<Value> = declared
        .map(|v| v.codes.iter().filter_map(external).collect())
        .unwrap_or_default();
    coding.push(json!({ "system": url, "code": value_code(&input.id, value), "display": label }));
    json!({ "coding": coding, "text": label })
}

/// The evaluation as a FHIR R4 Bundle of type `collection`: one Observation per decided unit.
pub fn bundle(logic: &Logic, ask: &Ask, eval: &Evaluation, origin: &str, link: &str) -> Value {
    let url = code_system_url(origin, &logic.slug);
    let category = json!([{ "coding": [{
        "system": "http://terminology.hl7.org/CodeSystem/observation-category",
        "code": "imaging", "display": "Imaging" }] }]);
    let system_codes: Vec<Value> = logic
        .codes
        .iter()
        .filter_map(external)
        .chain(std::iter::once(
            json!({ "system": url, "code": "system", "display": logic.name }),
        ))
        .collect();
    let mut entries = Vec::new();
    for u in eval
        .units
        .iter()
        // A unit that defers to others ("See solid nodules") classified nothing.
        .filter(|u| u.decides())
    {
        let Some(unit) = logic.decision_units.iter().find(|d| d.id == u.id) else {
            continue;
        };
        let rule = u.rule.as_ref();
        let mut lines: Vec<LineRef> = Vec::new();
        if let Some(index) = rule.and_then(|r| r.index) {
            lines.push(unit.rules[index].line());
        }
        let mut value = None;
        if let Some(o) = u.outcome {
            lines.push(o.definition.line());
            lines.extend(o.management.iter().map(|m| m.line()));
            let mut coding: Vec<Value> = o.codes.iter().filter_map(external).collect();
            coding.push(json!({ "system": url, "code": o.code, "display": o.label }));
            value = Some((
                "valueCodeableConcept",
                json!({ "coding": coding, "text": format!("{}: {}", o.code, o.label) }),
            ));
        }
        let value = value.or_else(|| u.result.map(|r| ("valueString", json!(r))));
        let Some((value_key, value)) = value else {
            continue;
        };
        let draft = lines.iter().any(|l| l.verification == Verification::Draft);
        let mut unit_coding: Vec<Value> = unit.codes.iter().filter_map(external).collect();
        unit_coding
            .push(json!({ "system": url, "code": unit_code(&unit.id), "display": unit.title }));
        let rule_text = rule.map_or(String::new(), |r| {
            format!(", rule {}: {}", r.index.map_or(0, |i| i + 1), r.text)
        });
        let mut observation = json!({
            "resourceType": "Observation",
            "id": fhir_id(&format!("{}-{}", logic.slug, unit.id)),
            "status": if draft { "preliminary" } else { "final" },
            "category": category,
            "code": { "coding": unit_coding, "text": unit.title },
            "method": {
                "coding": system_codes,
                "text": format!("{} (version {}){rule_text}", logic.short_name, logic.version),
            },
            "note": lines.iter().map(|l| note(logic, *l)).collect::<Vec<_>>(),
        });
        observation[value_key] = value;
        let parts = components(logic, ask, &url);
        if !parts.is_empty() {
            observation["component"] = json!(parts);
        }
        entries.push(json!({
            "fullUrl": format!("urn:uuid:{}", pseudo_uuid(&format!("{link}#{}", unit.id))),
            "resource": observation,
        }));
    }
    json!({
        "resourceType": "Bundle",
        "type": "collection",
        "meta": { "tag": [{ "system": url, "code": "reference-material", "display": NOTICE }] },
        "entry": entries,
    })
}

/// A stable UUID-shaped identifier derived from a text (FNV-1a, 128 bits), so the same
/// evaluation always gives the same `fullUrl`s.
fn pseudo_uuid(text: &str) -> String {
    let mut a: u64 = 0xcbf29ce484222325;
    let mut b: u64 = 0x84222325cbf29ce4;
    for byte in text.bytes() {
        a = (a ^ byte as u64).wrapping_mul(0x100000001b3);
        b = (b ^ byte as u64).wrapping_mul(0x100000001b3).rotate_left(7);
    }
    let hex = format!("{a:016x}{b:016x}");
    // Version 8 (custom) and the RFC 4122 variant.
    format!(
        "{}-{}-8{}-{}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        ["8", "9", "a", "b"][(b & 3) as usize],
        &hex[17..20],
        &hex[20..32]
    )
}

/// radref's CodeSystem for one system and version: its units, inputs, input values and
/// outcomes as concepts, each with its definition.
pub fn code_system(logic: &Logic, origin: &str) -> Value {
    let url = code_system_url(origin, &logic.slug);
    let draft = logic
        .scope
        .iter()
        .any(|l| l.verification == Verification::Draft)
        || logic
            .outcomes
            .iter()
            .any(|o| o.definition.verification == Verification::Draft);
    let mut concepts = vec![json!({ "code": "system", "display": logic.name })];
    for u in &logic.decision_units {
        concepts
            .push(json!({ "code": unit_code(&u.id), "display": u.title, "definition": u.text }));
    }
    for i in &logic.inputs {
        concepts
            .push(json!({ "code": input_code(&i.id), "display": i.label, "definition": i.text }));
        if matches!(i.kind, InputType::Enum | InputType::Multi) {
            for v in &i.values {
                concepts.push(json!({ "code": value_code(&i.id, &v.value), "display": v.label }));
            }
        }
    }
    for o in &logic.outcomes {
        concepts
            .push(json!({ "code": o.code, "display": o.label, "definition": o.definition.text }));
    }
    let name: String = logic
        .short_name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    json!({
        "resourceType": "CodeSystem",
        "id": fhir_id(&logic.slug),
        "url": url,
        "version": logic.version,
        "name": format!("Radref{name}"),
        "title": format!("{} (version {}): radref codes", logic.short_name, logic.version),
        "status": if draft { "draft" } else { "active" },
        "experimental": false,
        "publisher": "radref",
        "description": format!("The decision units, inputs and categories of {} as radref evaluates them, for the Observations of its evaluations. Categories are codes of this version only. {NOTICE}", logic.name),
        "caseSensitive": true,
        "content": "complete",
        "count": concepts.len(),
        "concept": concepts,
    })
}
