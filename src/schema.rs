//! One declaration of the arguments of each read operation, for both doors.
//!
//! An operation that HTTP and MCP both serve (search, a system, grounding, evaluation, the
//! systems list, coverage) declares its arguments here once: the name each door uses, where
//! the HTTP route takes it (query, path or body), what values it takes and whether it is
//! required. The OpenAPI document renders them as parameters or body properties, the MCP
//! `tools/list` as the tool's input schema, and both doors refuse an argument the declaration
//! does not list with the same rule; the values themselves are read by the feature's one
//! reader, so a bad value gets the same message through either door.

use crate::context;
use crate::corpus::compiled::{self, SYSTEMS};
use crate::corpus::source::{Family, Status};
use crate::routes::{ContextOp, CorpusOp, Op};
use crate::search;
use serde_json::{json, Value};

/// Where the HTTP route takes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Query,
    Path,
    /// A JSON body field.
    Body,
    /// A JSON body field where `null` means the same as leaving it out.
    NullableBody,
}

/// What values an argument takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Free text up to `max` characters; `nonblank` when it must hold a non-space character.
    Text {
        max: usize,
        nonblank: bool,
    },
    /// An integer in a range, with the default used when it is left out.
    Integer {
        min: usize,
        max: usize,
        default: usize,
    },
    Boolean {
        default: bool,
    },
    /// One system's slug.
    Slug,
    /// Up to `max` system slugs.
    Slugs {
        max: usize,
    },
    /// One of the corpus's organs (case-insensitive).
    Organ,
    /// An organ to filter by (case-insensitive, any text).
    OrganFilter,
    /// A modality, by any of its spellings (case-insensitive).
    Modality,
    Family,
    Status,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A system's inputs: input id to value.
    Inputs,
    /// Decision unit ids.
    Units,
    /// One input set (input id to value) or a list of up to `max` of them.
    InputSets {
        max: usize,
    },
}

/// One argument of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    /// Its name at the HTTP door (query parameter, path parameter or body field).
    pub name: &'static str,
    /// Its name as a tool argument; `None` when the tool does not take it.
    pub tool: Option<&'static str>,
    pub place: Place,
    pub kind: Kind,
    pub required: bool,
    pub description: &'static str,
}

const fn arg(
    name: &'static str,
    tool: Option<&'static str>,
    place: Place,
    kind: Kind,
    required: bool,
    description: &'static str,
) -> Arg {
    Arg {
        name,
        tool,
        place,
        kind,
        required,
        description,
    }
}

use Place::{Body, NullableBody, Path, Query};

/// The formats of a grounding answer; `md` is short for markdown.
pub const CONTEXT_FORMATS: &[&str] = &["json", "markdown", "md"];
/// How much of each system a grounding's JSON carries.
pub const CONTEXT_DETAILS: &[&str] = &["compact", "full"];
const DETAIL_ABOUT: &str = "compact (default): per system its scope, the rules that decide and the outcomes matched or decided, with the link to the whole system; full: every unit's first rules and the first outcomes.";
const LIMIT_ABOUT: &str = "Maximum number of ranked systems (default 4). A report of several findings given no limit offers each finding's first system, up to 8.";
/// The markdown block's token budget.
const MAX_TOKENS: Kind = Kind::Integer {
    min: context::MIN_MAX_TOKENS,
    max: context::MAX_MAX_TOKENS,
    default: context::DEFAULT_MAX_TOKENS,
};
const MAX_TOKENS_ABOUT: &str = "The markdown block's budget in approximate tokens (4 characters each): findings and systems that do not fit are named at its end, not silently cut.";

/// The formats of an evaluation.
pub const EVALUATION_FORMATS: &[&str] = &["json", "markdown", "fhir"];

const SEARCH: &[Arg] = &[
    arg(
        "q",
        Some("query"),
        Query,
        Kind::Text {
            max: search::MAX_QUERY_CHARS,
            nonblank: true,
        },
        true,
        "What to look for; must contain a non-space character.",
    ),
    arg(
        "limit",
        Some("limit"),
        Query,
        Kind::Integer {
            min: 1,
            max: search::MAX_LIMIT,
            default: search::DEFAULT_LIMIT,
        },
        false,
        "Maximum hits.",
    ),
];

const LIST_SYSTEMS: &[Arg] = &[
    arg(
        "organ",
        Some("organ"),
        Query,
        Kind::OrganFilter,
        false,
        "Filter by organ (case-insensitive).",
    ),
    arg(
        "modality",
        Some("modality"),
        Query,
        Kind::Modality,
        false,
        "CT, MRI, US, Mammography, PET/CT or XR, or one of the listed aliases (case-insensitive).",
    ),
    arg(
        "family",
        Some("family"),
        Query,
        Kind::Family,
        false,
        "Filter by family (case-insensitive; empty means no filter).",
    ),
    arg(
        "status",
        Some("status"),
        Query,
        Kind::Status,
        false,
        "Filter by status (case-insensitive; empty means no filter).",
    ),
    arg(
        "q",
        Some("q"),
        Query,
        Kind::Text {
            max: search::MAX_QUERY_CHARS,
            nonblank: false,
        },
        false,
        "Full-text query; results are then ordered by relevance.",
    ),
];

const GET_SYSTEM: &[Arg] = &[arg(
    "id",
    Some("slug"),
    Path,
    Kind::Slug,
    true,
    "The system's stable slug.",
)];

const GET_CONTEXT: &[Arg] = &[
    arg("q", None, Query, Kind::Text { max: context::MAX_QUERY_CHARS, nonblank: false }, false,
        "Finding text or query to ground against (POST takes longer text)."),
    arg("systems", None, Query, Kind::Slugs { max: context::MAX_SYSTEMS }, false,
        "Comma-separated system slugs to include whatever their rank (an empty value or entry is refused)."),
    arg("organ", None, Query, Kind::Organ, false, "Restrict to systems of this organ."),
    arg("limit", None, Query, Kind::Integer { min: 1, max: context::MAX_LIMIT, default: context::DEFAULT_LIMIT }, false,
        LIMIT_ABOUT),
    arg("format", None, Query, Kind::Choice(CONTEXT_FORMATS), false, "json (default) or markdown (md)."),
    arg("verified", None, Query, Kind::Boolean { default: true }, false,
        "Only current systems and verified lines (default); false includes drafts, flagged, for curation or research."),
    arg("detail", None, Query, Kind::Choice(CONTEXT_DETAILS), false, DETAIL_ABOUT),
    arg("max_tokens", None, Query, MAX_TOKENS, false, MAX_TOKENS_ABOUT),
];

const POST_CONTEXT: &[Arg] = &[
    arg(
        "text",
        Some("text"),
        NullableBody,
        Kind::Text {
            max: context::MAX_TEXT_CHARS,
            nonblank: false,
        },
        false,
        "The finding text.",
    ),
    arg(
        "systems",
        Some("systems"),
        NullableBody,
        Kind::Slugs {
            max: context::MAX_SYSTEMS,
        },
        false,
        "Systems to include whatever their rank.",
    ),
    arg(
        "organ",
        Some("organ"),
        NullableBody,
        Kind::Organ,
        false,
        "Restrict to systems of this organ.",
    ),
    arg(
        "limit",
        Some("limit"),
        NullableBody,
        Kind::Integer {
            min: 1,
            max: context::MAX_LIMIT,
            default: context::DEFAULT_LIMIT,
        },
        false,
        LIMIT_ABOUT,
    ),
    arg(
        "format",
        None,
        NullableBody,
        Kind::Choice(CONTEXT_FORMATS),
        false,
        "json (default; also empty) or markdown (md).",
    ),
    arg(
        "verified",
        Some("verified"),
        NullableBody,
        Kind::Boolean { default: true },
        false,
        "Only current systems and verified lines (default); false includes drafts, flagged.",
    ),
    arg(
        "detail",
        Some("detail"),
        NullableBody,
        Kind::Choice(CONTEXT_DETAILS),
        false,
        DETAIL_ABOUT,
    ),
    arg(
        "max_tokens",
        Some("max_tokens"),
        NullableBody,
        MAX_TOKENS,
        false,
        MAX_TOKENS_ABOUT,
    ),
];

const EVALUATE_POST: &[Arg] = &[
    arg(
        "id",
        Some("slug"),
        Path,
        Kind::Slug,
        true,
        "The system's stable slug.",
    ),
    arg(
        "inputs",
        Some("inputs"),
        Body,
        Kind::Inputs,
        false,
        "Input id to value: a string (enum), a list of strings (multi), a number, or true/false.",
    ),
    arg(
        "units",
        Some("units"),
        Body,
        Kind::Units,
        false,
        "Only these decision units (and those they depend on).",
    ),
    arg(
        "format",
        None,
        Body,
        Kind::Choice(EVALUATION_FORMATS),
        false,
        "json (default), markdown, or fhir: a FHIR R4 Bundle of Observations (also chosen by Accept: application/fhir+json when no format is given).",
    ),
];

const OTHER: Arg = arg(
    "other",
    Some("other"),
    Path,
    Kind::Slug,
    true,
    "The slug of another version of the same guideline (a system its supersedes links reach).",
);

const DIFF: &[Arg] = &[
    arg(
        "id",
        Some("slug"),
        Path,
        Kind::Slug,
        true,
        "The slug of the version compared from.",
    ),
    OTHER,
    arg(
        "format",
        None,
        Query,
        Kind::Choice(crate::versions::FORMATS),
        false,
        "json (default) or markdown.",
    ),
];

const RESCORE: &[Arg] = &[
    arg(
        "id",
        Some("slug"),
        Path,
        Kind::Slug,
        true,
        "The slug of the version re-scored from.",
    ),
    OTHER,
    arg(
        "inputs",
        Some("inputs"),
        Body,
        Kind::InputSets {
            max: crate::versions::MAX_RESCORE_CASES,
        },
        true,
        "One input set (input id to value, either version's ids), or a list of input sets.",
    ),
    arg(
        "format",
        None,
        Body,
        Kind::Choice(crate::versions::FORMATS),
        false,
        "json (default) or markdown.",
    ),
];

/// The declared arguments of an operation (empty for the operations declared elsewhere).
pub fn arguments(op: Op) -> &'static [Arg] {
    match op {
        Op::Corpus(CorpusOp::SearchCorpus) => SEARCH,
        Op::Corpus(CorpusOp::ListSystems) => LIST_SYSTEMS,
        Op::Corpus(CorpusOp::GetSystem) => GET_SYSTEM,
        Op::Corpus(CorpusOp::EvaluateSystemPost) => EVALUATE_POST,
        Op::Corpus(CorpusOp::DiffSystems) => DIFF,
        Op::Corpus(CorpusOp::RescoreSystems) => RESCORE,
        Op::Context(ContextOp::GetGroundedContext) => GET_CONTEXT,
        Op::Context(ContextOp::PostGroundedContext) => POST_CONTEXT,
        _ => &[],
    }
}

/// The names an operation's tool takes, in declaration order.
pub fn tool_names(op: Op) -> Vec<&'static str> {
    arguments(op).iter().filter_map(|a| a.tool).collect()
}

/// The body fields an operation's HTTP route takes, in declaration order.
pub fn body_names(op: Op) -> Vec<&'static str> {
    arguments(op)
        .iter()
        .filter(|a| matches!(a.place, Body | NullableBody))
        .map(|a| a.name)
        .collect()
}

/// An argument's description with the range it takes, as both doors show it.
pub fn describe(arg: &Arg) -> String {
    match arg.kind {
        Kind::Text { max, .. } => format!("{} Up to {max} characters.", arg.description),
        Kind::Integer { min, max, default } => {
            format!("{} {min} to {max} (default {default}).", arg.description)
        }
        Kind::Slugs { max } => format!("{} At most {max}.", arg.description),
        Kind::InputSets { max } => format!("{} At most {max} sets.", arg.description),
        _ => arg.description.to_string(),
    }
}

/// Every slug of the corpus.
pub fn slugs() -> Vec<&'static str> {
    SYSTEMS.iter().map(|s| s.slug).collect()
}

/// Every organ of the corpus, sorted.
pub fn organs() -> Vec<&'static str> {
    let mut organs: Vec<&str> = SYSTEMS
        .iter()
        .flat_map(|s| s.organs.iter().copied())
        .collect();
    organs.sort();
    organs.dedup();
    organs
}

/// Any value an input takes: a string, a number, a boolean, a list of strings, or null.
pub fn input_value() -> Value {
    json!({ "anyOf": [
        { "type": "string" }, { "type": "number" }, { "type": "boolean" },
        { "type": "array", "items": { "type": "string" } }, { "type": "null" } ] })
}

/// The JSON Schema of a kind's values, as a JSON value or a tool argument gives them (a door
/// adds its own: the empty query value, `null` in a body).
pub fn value_schema(kind: Kind) -> Value {
    match kind {
        Kind::Text {
            max,
            nonblank: true,
        } => {
            json!({ "type": "string", "minLength": 1, "maxLength": max, "pattern": "\\S" })
        }
        Kind::Text {
            max,
            nonblank: false,
        } => json!({ "type": "string", "maxLength": max }),
        Kind::Integer { min, max, default } => {
            json!({ "type": "integer", "minimum": min, "maximum": max, "default": default })
        }
        Kind::Boolean { default } => json!({ "type": "boolean", "default": default }),
        Kind::Slug => json!({ "type": "string", "enum": slugs() }),
        Kind::Slugs { max } => json!({ "type": "array", "maxItems": max,
            "items": { "type": "string", "enum": slugs() } }),
        Kind::Organ => json!({ "type": "string", "enum": organs() }),
        Kind::OrganFilter => json!({ "type": "string" }),
        Kind::Modality => {
            let spellings: Vec<&str> = crate::knowledge::LEXICON
                .modality_spellings
                .iter()
                .map(|(spelling, _)| *spelling)
                .collect();
            json!({ "type": "string", "enum": spellings })
        }
        Kind::Family => json!({ "type": "string",
            "enum": Family::ALL.iter().map(|f| f.as_str()).collect::<Vec<_>>() }),
        Kind::Status => json!({ "type": "string",
            "enum": Status::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>() }),
        // The first value is the default.
        Kind::Choice(values) => json!({ "type": "string", "enum": values, "default": values[0] }),
        Kind::Inputs => json!({ "type": "object", "additionalProperties": input_value() }),
        Kind::InputSets { max } => json!({ "anyOf": [
            { "type": "object", "additionalProperties": input_value() },
            { "type": "array", "minItems": 1, "maxItems": max,
              "items": { "type": "object", "additionalProperties": input_value() } } ] }),
        Kind::Units => {
            json!({ "type": "array", "items": { "type": "string", "enum": compiled::UNIT_IDS } })
        }
    }
}

/// A tool's input schema: its declared arguments only, so a misspelt argument is caught.
pub fn tool_input(op: Op) -> Value {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for a in arguments(op) {
        let Some(name) = a.tool else { continue };
        let mut schema = value_schema(a.kind);
        // A tool argument is free text where the value is matched case-insensitively.
        if matches!(a.kind, Kind::Modality) {
            schema = json!({ "type": "string" });
        }
        schema["description"] = json!(describe(a));
        properties.insert(name.to_string(), schema);
        if a.required {
            required.push(name);
        }
    }
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::ENDPOINTS;

    #[test]
    fn every_tool_argument_is_declared_once_and_every_tool_has_its_declaration() {
        for e in ENDPOINTS.iter().filter(|e| e.tool.is_some()) {
            let names = tool_names(e.op);
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(names.len(), unique.len(), "{:?}", e.op);
            // Every tool of an operation with arguments declares them here.
            if !matches!(e.op, Op::Corpus(CorpusOp::GetCoverage)) {
                assert!(
                    !names.is_empty(),
                    "{:?} has a tool but no declared arguments",
                    e.op
                );
            }
        }
    }
}
