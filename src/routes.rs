//! The endpoint table: every operation of the service, declared once.
//!
//! A row holds what the service needs to know about an endpoint before any handler runs: its
//! method and path pattern, the operation, who may call it, which error body it answers with,
//! which rate limit counts it, and its tag and summary. Resolution (404, 405 with `Allow`,
//! `HEAD` wherever `GET` is, the CORS preflight), the access check, the limiter, the error
//! format and the OpenAPI paths all derive from [`ENDPOINTS`], so adding an endpoint is one row
//! here, one handler, one schema arm (`openapi::operation`, an exhaustive match, so an
//! undocumented operation does not compile) and one test.
//!
//! Patterns are resolved by `matchit`, the router axum uses; `{name}` matches one non-empty
//! path segment, and a static segment wins over a parameter (`/templates/voice` before
//! `/templates/{id}`).

use crate::error::ErrorFormat;
use crate::http::Method;
use std::sync::OnceLock;

/// The version of the HTTP interface, as the OpenAPI document states it.
pub const API_VERSION: &str = "1.0.0";

/// What a key may be used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Context,
    Templates,
    Webhooks,
    EventsPublish,
}

impl Scope {
    /// The scope's name as stored with the key.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Context => "context",
            Scope::Templates => "templates",
            Scope::Webhooks => "webhooks",
            Scope::EventsPublish => "events:publish",
        }
    }
}

/// Who may call an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone, without a key.
    Open,
    /// A valid, unrevoked key carrying the scope (401 without one, 403 without the scope).
    Key(Scope),
}

/// Which rate limit counts a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Not limited (the health check).
    None,
    /// Per client address, before any key is checked: the open corpus routes.
    Client,
    /// Per API key, after the key checked out: the keyed template and webhook routes.
    Key,
}

/// The service's own routes: liveness and self-description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceOp {
    GetHealth,
    GetOpenApi,
    GetLlmsTxt,
}

/// The open, read-only corpus routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorpusOp {
    ListOrgans,
    ListSystems,
    GetSystem,
    SearchCorpus,
    ListChanges,
    GetChangesRss,
    GetCoverage,
    EvaluateSystem,
    EvaluateSystemPost,
    DiffSystems,
    RescoreSystems,
    GetFhirCodeSystem,
}

/// Grounded context for a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextOp {
    GetGroundedContext,
    PostGroundedContext,
}

/// MCP protocol versions the tool endpoint speaks, newest first.
pub const MCP_PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The MCP tool endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpOp {
    PostMcp,
}

/// Per-user report templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemplateOp {
    ListTemplates,
    CreateTemplate,
    ResolveVoiceCommand,
    GetTemplate,
    UpdateTemplate,
    DeleteTemplate,
    UseTemplate,
    EvaluateTemplate,
}

/// Webhook subscriptions and publishing events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebhookOp {
    ListWebhooks,
    CreateWebhook,
    GetWebhook,
    UpdateWebhook,
    DeleteWebhook,
    TestWebhook,
    ListWebhookDeliveries,
    RedeliverWebhookEvent,
    RotateWebhookSecret,
    ListEventTypes,
    PublishEvent,
}

/// An operation, grouped by the feature whose handlers serve it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Service(ServiceOp),
    Corpus(CorpusOp),
    Context(ContextOp),
    Mcp(McpOp),
    Templates(TemplateOp),
    Webhooks(WebhookOp),
}

impl Op {
    /// The OpenAPI `operationId`: the variant's name in lower camel case (`ListSystems` is
    /// `listSystems`), so the name is written once, in the enum.
    pub fn id(self) -> String {
        let name = match self {
            Op::Service(o) => format!("{o:?}"),
            Op::Corpus(o) => format!("{o:?}"),
            Op::Context(o) => format!("{o:?}"),
            Op::Mcp(o) => format!("{o:?}"),
            Op::Templates(o) => format!("{o:?}"),
            Op::Webhooks(o) => format!("{o:?}"),
        };
        let mut chars = name.chars();
        chars
            .next()
            .map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
            .unwrap_or_default()
    }
}

/// The largest request bodies, in bytes. An endpoint's cap is [`Op::body_limit`]; a larger
/// body is refused with 413 before anything else happens: by its `Content-Length` before a byte
/// of it is read, otherwise as soon as the bytes read pass the cap.
pub mod body {
    /// Endpoints that read no body (a GET; a body sent anyway is not read).
    pub const NONE: usize = 0;
    /// Endpoints whose body is at most a few small fields (`{"type": ...}`, or nothing).
    pub const SMALL: usize = 4 * 1024;
    /// An evaluation: a system's inputs (a few dozen short values) and the units asked for.
    pub const EVALUATE: usize = 32 * 1024;
    /// A re-score: up to 100 input sets of a few dozen short values each.
    pub const RESCORE: usize = 256 * 1024;
    /// Webhook subscriptions and published events.
    pub const WEBHOOK: usize = 64 * 1024;
    /// A grounded-context POST: room for the longest text even when every character is sent
    /// as a JSON escape (up to 12 bytes for a surrogate pair), so an over-long text is refused
    /// by name (400), not by size.
    pub const CONTEXT: usize = 256 * 1024;
    /// One MCP message (or batch).
    pub const MCP: usize = 320 * 1024;
    /// A report template: room for the longest content even when every character is sent as
    /// a JSON escape, so an over-long content is refused by name (422), not by size.
    pub const TEMPLATE: usize = 2 * 1024 * 1024;
}

impl Op {
    /// The largest body this operation reads, in bytes (see [`body`]).
    pub fn body_limit(self) -> usize {
        match self {
            Op::Service(_) => body::NONE,
            Op::Corpus(op) => match op {
                CorpusOp::EvaluateSystemPost => body::EVALUATE,
                CorpusOp::RescoreSystems => body::RESCORE,
                CorpusOp::ListOrgans
                | CorpusOp::ListSystems
                | CorpusOp::GetSystem
                | CorpusOp::EvaluateSystem
                | CorpusOp::DiffSystems
                | CorpusOp::GetFhirCodeSystem
                | CorpusOp::SearchCorpus
                | CorpusOp::ListChanges
                | CorpusOp::GetChangesRss
                | CorpusOp::GetCoverage => body::NONE,
            },
            Op::Context(ContextOp::GetGroundedContext) => body::NONE,
            Op::Context(ContextOp::PostGroundedContext) => body::CONTEXT,
            Op::Mcp(McpOp::PostMcp) => body::MCP,
            Op::Templates(op) => match op {
                TemplateOp::CreateTemplate
                | TemplateOp::UpdateTemplate
                | TemplateOp::EvaluateTemplate => body::TEMPLATE,
                TemplateOp::UseTemplate | TemplateOp::DeleteTemplate => body::SMALL,
                TemplateOp::ListTemplates
                | TemplateOp::ResolveVoiceCommand
                | TemplateOp::GetTemplate => body::NONE,
            },
            Op::Webhooks(op) => match op {
                WebhookOp::CreateWebhook | WebhookOp::UpdateWebhook | WebhookOp::PublishEvent => {
                    body::WEBHOOK
                }
                WebhookOp::TestWebhook
                | WebhookOp::RotateWebhookSecret
                | WebhookOp::RedeliverWebhookEvent
                | WebhookOp::DeleteWebhook => body::SMALL,
                WebhookOp::ListWebhooks
                | WebhookOp::ListEventTypes
                | WebhookOp::GetWebhook
                | WebhookOp::ListWebhookDeliveries => body::NONE,
            },
        }
    }
}

/// The body cap of the endpoint a request resolves to; 0 when it resolves to none (a 404 or
/// 405 reads no body). The platform asks before it reads a byte of the body.
pub fn body_limit(method: Method, path: &str) -> usize {
    match resolve(method, path) {
        Resolution::Found(endpoint, _) => endpoint.op.body_limit(),
        _ => body::NONE,
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub method: Method,
    /// The path pattern, as the OpenAPI document writes it (`/api/v1/webhooks/{id}/test`).
    pub path: &'static str,
    pub op: Op,
    pub access: Access,
    pub errors: ErrorFormat,
    pub limit: Limit,
    /// The OpenAPI tag.
    pub tag: &'static str,
    /// The OpenAPI summary.
    pub summary: &'static str,
    /// The MCP tool that serves the same operation, if any.
    pub tool: Option<&'static Tool>,
}

/// An operation's MCP tool row: the same operation, reached through `POST /mcp`. Its
/// arguments are the operation's declared ones (`schema::arguments`); every tool is
/// read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    /// The short title of its annotations.
    pub label: &'static str,
    pub description: &'static str,
}

impl Endpoint {
    /// The row with its MCP tool.
    const fn with_tool(mut self, tool: &'static Tool) -> Endpoint {
        self.tool = Some(tool);
        self
    }
}

/// The endpoints that have an MCP tool, in table order.
pub fn tools() -> impl Iterator<Item = (&'static Endpoint, &'static Tool)> {
    ENDPOINTS.iter().filter_map(|e| e.tool.map(|t| (e, t)))
}

/// The endpoint of the tool with this name.
pub fn tool(name: &str) -> Option<&'static Endpoint> {
    tools().find(|(_, t)| t.name == name).map(|(e, _)| e)
}

const SEARCH_TOOL: Tool = Tool {
    name: "radref_search",
    title: "Search radiology classification systems",
    label: "Search radref",
    description: "Ranked, typo-tolerant search across systems and their categories (e.g. 'bosniak IIF', 'lungrads 4B', 'fleischer'). Each hit says why it matched.",
};

const GET_SYSTEM_TOOL: Tool = Tool {
    name: "radref_get_system",
    title: "Get one classification system",
    label: "Get a radref system",
    description: "The full record of a system by its stable slug: categories/outcomes with definitions, risk and management, decision units (rules), scope, crossrefs, references, currency and version lineage. Every clinical line is cited and flagged draft or verified.",
};

const GROUND_TOOL: Tool = Tool {
    name: "radref_ground",
    title: "Ground a finding in the systems that govern it",
    label: "Ground a finding",
    description: "Given a finding (e.g. 'incidental 8 mm solid lung nodule in a smoker' or a report paragraph), returns the most relevant systems with their cited criteria, categories, management and risk, and a markdown block ready for a prompt. A system the finding names (\"Bosniak IIF\", \"per Fleischner\") ranks first. Each system carries links.evaluate, a radref_evaluate-ready GET link prefilled with what the finding states (sizes in the input's unit, age, enum values), what that evaluation already decides, and missing_inputs: the input ids the evaluator still needs. verified=true (default) keeps only current systems and verified lines and says how many draft lines were withheld; verified=false includes drafts, flagged.",
};

const EVALUATE_TOOL: Tool = Tool {
    name: "radref_evaluate",
    title: "Evaluate a classification system on a finding's inputs",
    label: "Evaluate a radref system",
    description: "Runs a system's decision units (e.g. ACR TI-RADS points to TR level and FNA, Fleischner management, LI-RADS category) on the given inputs. Each unit answers decided (with the cited deciding rule, the outcome's definition, risk and management lines, and the nearest thresholds that would change the answer), needs_inputs (the inputs still needed, with their types and allowed values) or not_reached, with the rules tested. Input ids and values are those of the system's inputs (radref_get_system); a multi input takes a list. Also returns a compact cited markdown block.",
};

const DIFF_TOOL: Tool = Tool {
    name: "radref_diff",
    title: "What changed between two versions of a guideline",
    label: "Diff radref versions",
    description: "For two systems of one lineage (e.g. acr-lung-rads-v1-1 and acr-lung-rads-v2022, bosniak-2005 and bosniak-v2019, pi-rads-v2-2015 and pi-rads-v2-1-2019): a structured list of changes from the first to the second (inputs added, removed or renamed; values and points changed; units added or removed; categories added, removed, renamed, split or merged; thresholds moved; rules changed; management changed), each with the cited lines of both sides, what the sources announce, and a markdown block.",
};

const RESCORE_TOOL: Tool = Tool {
    name: "radref_rescore",
    title: "Re-score inputs under two versions of a guideline",
    label: "Re-score with radref",
    description: "Evaluates the same inputs (one object, or a list of up to 100) under two versions of one guideline: each decision unit's answer under both with the deciding rule cited, whether it moved, the inputs a version does not take (set aside, never translated by guesswork) and what each version still needs. A list answers with the counts of cases moved from which category to which.",
};

const LIST_SYSTEMS_TOOL: Tool = Tool {
    name: "radref_list_systems",
    title: "List classification systems",
    label: "List radref systems",
    description: "Systems filtered by organ, modality (CT, MRI, US, Mammography, PET/CT, XR), family (lexicon, algorithm, incidental, appropriateness), status (current, retired, draft) and full-text q.",
};

const COVERAGE_TOOL: Tool = Tool {
    name: "radref_coverage",
    title: "Corpus coverage",
    label: "radref coverage",
    description: "What the corpus covers (counts of systems, clinical lines, decision units, draft vs verified, per family and organ, each system's gaps) and what is explicitly not yet covered, with reasons.",
};

use Access::{Key, Open};
use ErrorFormat::{Detailed, Simple};
use Method::{Delete, Get, Patch, Post, Put};

#[allow(clippy::too_many_arguments)] // A row of the table, read as one line.
const fn row(
    method: Method,
    path: &'static str,
    op: Op,
    access: Access,
    errors: ErrorFormat,
    limit: Limit,
    tag: &'static str,
    summary: &'static str,
) -> Endpoint {
    Endpoint {
        method,
        path,
        op,
        access,
        errors,
        limit,
        tag,
        summary,
        tool: None,
    }
}

const TEMPLATES: Access = Key(Scope::Templates);
const WEBHOOKS: Access = Key(Scope::Webhooks);

/// Every endpoint of the service. `HEAD` is answered wherever `GET` is; `OPTIONS` everywhere.
#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    // method, path, operation, access, error format, limit, tag, summary
    row(Get, "/api/v1/health", Op::Service(ServiceOp::GetHealth), Open, Simple, Limit::None, "service",
        "Liveness, version and corpus build hash"),
    row(Get, "/api/v1/organs", Op::Corpus(CorpusOp::ListOrgans), Open, Simple, Limit::Client, "corpus",
        "Organs with system counts per family"),
    row(Get, "/api/v1/systems", Op::Corpus(CorpusOp::ListSystems), Open, Simple, Limit::Client, "corpus",
        "List and filter systems").with_tool(&LIST_SYSTEMS_TOOL),
    row(Get, "/api/v1/systems/{id}", Op::Corpus(CorpusOp::GetSystem), Open, Simple, Limit::Client, "corpus",
        "One system with decision units, outcomes, crossrefs, citations, currency and version lineage").with_tool(&GET_SYSTEM_TOOL),
    row(Get, "/api/v1/systems/{id}/evaluate", Op::Corpus(CorpusOp::EvaluateSystem), Open, Simple, Limit::Client, "corpus",
        "Evaluate a system: inputs as query parameters in, each decision unit's cited answer, what is missing and what would change it out"),
    row(Post, "/api/v1/systems/{id}/evaluate", Op::Corpus(CorpusOp::EvaluateSystemPost), Open, Simple, Limit::Client, "corpus",
        "Evaluate a system from a JSON body {inputs, units?, format?}").with_tool(&EVALUATE_TOOL),
    row(Get, "/api/v1/systems/{id}/diff/{other}", Op::Corpus(CorpusOp::DiffSystems), Open, Simple, Limit::Client, "corpus",
        "What changed between two versions of one guideline: inputs, values, units, categories, thresholds, rules and management, each change with both sides' cited lines").with_tool(&DIFF_TOOL),
    row(Post, "/api/v1/systems/{id}/rescore/{other}", Op::Corpus(CorpusOp::RescoreSystems), Open, Simple, Limit::Client, "corpus",
        "One input set, or up to 100, under two versions of one guideline: each unit's answer under both, which moved and by which rule, and what each version still needs").with_tool(&RESCORE_TOOL),
    row(Get, "/api/v1/fhir/CodeSystem/{id}", Op::Corpus(CorpusOp::GetFhirCodeSystem), Open, Simple, Limit::Client, "corpus",
        "radref's FHIR R4 CodeSystem of one system and version: the codes its FHIR Observations use (units, inputs, values, categories)"),
    row(Get, "/api/v1/search", Op::Corpus(CorpusOp::SearchCorpus), Open, Simple, Limit::Client, "corpus",
        "Ranked, typo-tolerant search across systems and outcomes").with_tool(&SEARCH_TOOL),
    row(Get, "/api/v1/context", Op::Context(ContextOp::GetGroundedContext), Key(Scope::Context), Simple, Limit::Client, "corpus",
        "Grounded, cited context for a finding (key required)"),
    row(Post, "/api/v1/context", Op::Context(ContextOp::PostGroundedContext), Key(Scope::Context), Simple, Limit::Client, "corpus",
        "Grounded context from a longer finding text (key required)").with_tool(&GROUND_TOOL),
    row(Get, "/api/v1/changes", Op::Corpus(CorpusOp::ListChanges), Open, Simple, Limit::Client, "corpus",
        "Version events, newest first (also RSS at /feed/changes.xml)"),
    row(Get, "/api/v1/coverage", Op::Corpus(CorpusOp::GetCoverage), Open, Simple, Limit::Client, "corpus",
        "What is covered and what is explicitly not yet covered").with_tool(&COVERAGE_TOOL),
    row(Get, "/api/v1/openapi", Op::Service(ServiceOp::GetOpenApi), Open, Simple, Limit::Client, "service",
        "This document"),
    row(Get, "/feed/changes.xml", Op::Corpus(CorpusOp::GetChangesRss), Open, Simple, Limit::Client, "corpus",
        "Version events as RSS 2.0"),
    row(Get, "/llms.txt", Op::Service(ServiceOp::GetLlmsTxt), Open, Simple, Limit::Client, "corpus",
        "Discovery file for agents (llms.txt convention)"),
    row(Post, "/mcp", Op::Mcp(McpOp::PostMcp), Open, Simple, Limit::Client, "corpus",
        "MCP tool endpoint (Streamable HTTP, JSON-RPC 2.0, no key)"),
    row(Get, "/api/v1/templates", Op::Templates(TemplateOp::ListTemplates), TEMPLATES, Detailed, Limit::Key, "templates",
        "The caller's report templates (or every public one with scope=public)"),
    row(Post, "/api/v1/templates", Op::Templates(TemplateOp::CreateTemplate), TEMPLATES, Detailed, Limit::Key, "templates",
        "Create a template (201, usage_count 0)"),
    row(Get, "/api/v1/templates/voice", Op::Templates(TemplateOp::ResolveVoiceCommand), TEMPLATES, Detailed, Limit::Key, "templates",
        "The caller's template answering to a spoken command (normalised; voice_command or alias)"),
    row(Get, "/api/v1/templates/{id}", Op::Templates(TemplateOp::GetTemplate), TEMPLATES, Detailed, Limit::Key, "templates",
        "One template: the caller's, or another user's public one"),
    row(Put, "/api/v1/templates/{id}", Op::Templates(TemplateOp::UpdateTemplate), TEMPLATES, Detailed, Limit::Key, "templates",
        "Partial update: only the supplied fields change"),
    row(Delete, "/api/v1/templates/{id}", Op::Templates(TemplateOp::DeleteTemplate), TEMPLATES, Detailed, Limit::Key, "templates",
        "Permanent delete"),
    row(Post, "/api/v1/templates/{id}/use", Op::Templates(TemplateOp::UseTemplate), TEMPLATES, Detailed, Limit::Key, "templates",
        "Record a use: usage_count + 1, last_used_at now"),
    row(Post, "/api/v1/templates/{id}/evaluate", Op::Templates(TemplateOp::EvaluateTemplate), TEMPLATES, Detailed, Limit::Key, "templates",
        "Evaluate a filled template: its bound fields' values go to their systems' evaluators"),
    row(Get, "/api/v1/webhooks", Op::Webhooks(WebhookOp::ListWebhooks), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "The caller's webhook subscriptions, newest first"),
    row(Post, "/api/v1/webhooks", Op::Webhooks(WebhookOp::CreateWebhook), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "Subscribe a URL to event types (201; the secret is stored sealed and never returned)"),
    row(Get, "/api/v1/webhooks/event-types", Op::Webhooks(WebhookOp::ListEventTypes), Open, Detailed, Limit::Client, "webhooks",
        "The event types, each with what it announces, the JSON Schema of the envelope a subscriber receives, and an example"),
    row(Get, "/api/v1/webhooks/{id}", Op::Webhooks(WebhookOp::GetWebhook), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "One of the caller's webhooks"),
    row(Patch, "/api/v1/webhooks/{id}", Op::Webhooks(WebhookOp::UpdateWebhook), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "Change url, events, secret or active; active=true reactivates an inactive webhook, active=false pauses it and cancels its pending deliveries"),
    row(Delete, "/api/v1/webhooks/{id}", Op::Webhooks(WebhookOp::DeleteWebhook), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "Delete a webhook, its pending deliveries and its attempt log"),
    row(Post, "/api/v1/webhooks/{id}/test", Op::Webhooks(WebhookOp::TestWebhook), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "Send a signed test event of a chosen type (default report.finalized) to this webhook only, through the same queue and retries"),
    row(Post, "/api/v1/webhooks/{id}/rotate", Op::Webhooks(WebhookOp::RotateWebhookSecret), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "Rotate the signing secret: the new one is returned once; the replaced one signs beside it for the overlap (default 24 h)"),
    row(Get, "/api/v1/webhooks/{id}/deliveries", Op::Webhooks(WebhookOp::ListWebhookDeliveries), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "The attempt log of this webhook, newest first: event, attempt number, outcome, status code, duration, error, next attempt time"),
    row(Post, "/api/v1/webhooks/{id}/deliveries/{event_id}/redeliver", Op::Webhooks(WebhookOp::RedeliverWebhookEvent), WEBHOOKS, Detailed, Limit::Key, "webhooks",
        "Send an event to this webhook again: the same body and webhook-id, a fresh run of up to five attempts"),
    row(Post, "/api/v1/events", Op::Webhooks(WebhookOp::PublishEvent), Key(Scope::EventsPublish), Detailed, Limit::Key, "webhooks",
        "Publish an event (key with the events:publish scope): one delivery to each of the publisher's active webhooks subscribed to its type"),
];

/// The values of a matched path's `{name}` segments, as sent (not percent-decoded).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathParams(Vec<(&'static str, String)>);

impl PathParams {
    /// The value of `{name}`; empty when the pattern has no such segment.
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// What the table says about a request's method and path.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    /// The endpoint, with its path parameters.
    Found(&'static Endpoint, PathParams),
    /// The path exists, the method does not: 405 with these methods in `Allow`.
    WrongMethod {
        allow: Vec<Method>,
        errors: ErrorFormat,
    },
    /// No such path: 404, in the format of the family the path falls under.
    NotFound { errors: ErrorFormat },
}

/// The distinct path patterns, in table order, and the router over them.
struct Table {
    paths: Vec<&'static str>,
    router: matchit::Router<usize>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut paths: Vec<&'static str> = Vec::new();
        for e in ENDPOINTS {
            if !paths.contains(&e.path) {
                paths.push(e.path);
            }
        }
        let mut router = matchit::Router::new();
        for (i, path) in paths.iter().enumerate() {
            // The table is a constant; a conflict is caught by the unit test below.
            router
                .insert(*path, i)
                .expect("endpoint table patterns conflict");
        }
        Table { paths, router }
    })
}

/// The rows declared for a path pattern, in table order.
fn rows_of(pattern: &str) -> impl Iterator<Item = &'static Endpoint> + '_ {
    ENDPOINTS.iter().filter(move |e| e.path == pattern)
}

/// The pattern a concrete path matches, with its parameters.
fn lookup(path: &str) -> Option<(&'static str, PathParams)> {
    let table = table();
    let matched = table.router.at(path).ok()?;
    let pattern = table.paths[*matched.value];
    let params = matched
        .params
        .iter()
        .filter_map(|(name, value)| {
            // Keys borrow from the router, which lives as long as the isolate; find the
            // table's own `'static` spelling of the name.
            let key = pattern
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .find(|k| *k == name)?;
            Some((key, value.to_string()))
        })
        .collect();
    Some((pattern, PathParams(params)))
}

/// The methods a path pattern answers, `HEAD` after `GET` (`OPTIONS` is not listed).
fn methods_of(pattern: &str) -> Vec<Method> {
    let mut out = Vec::new();
    for e in rows_of(pattern) {
        out.push(e.method);
        if e.method == Method::Get {
            out.push(Method::Head);
        }
    }
    out
}

/// Resolves a request to its endpoint, or says why there is none.
pub fn resolve(method: Method, path: &str) -> Resolution {
    let Some((pattern, params)) = lookup(path) else {
        return Resolution::NotFound {
            errors: family_format(path),
        };
    };
    let wanted = if method == Method::Head {
        Method::Get
    } else {
        method
    };
    match rows_of(pattern).find(|e| e.method == wanted) {
        Some(endpoint) => Resolution::Found(endpoint, params),
        None => Resolution::WrongMethod {
            allow: methods_of(pattern),
            errors: rows_of(pattern).next().map_or(Simple, |e| e.errors),
        },
    }
}

/// The methods a concrete path answers, or `None` for an unknown path (the preflight).
pub fn allowed(path: &str) -> Option<Vec<Method>> {
    lookup(path).map(|(pattern, _)| methods_of(pattern))
}

/// The error format of an unknown path: that of the endpoint whose pattern shares the most
/// leading segments with it, when they share more than the `/api/v1` prefix (so
/// `/api/v1/templates/a/b/c` answers like the templates, `/api/v1/nothing` like the corpus).
fn family_format(path: &str) -> ErrorFormat {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let shared = |pattern: &str| {
        pattern
            .split('/')
            .skip(1)
            .zip(&segments)
            .take_while(|(p, s)| p == *s || (p.starts_with('{') && !s.is_empty()))
            .count()
    };
    ENDPOINTS
        .iter()
        .map(|e| (shared(e.path), e.errors))
        .filter(|(n, _)| *n >= 3)
        .max_by_key(|(n, _)| *n)
        .map_or(Simple, |(_, errors)| errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_builds_and_every_pattern_resolves_to_its_own_rows() {
        for e in ENDPOINTS {
            let concrete = e.path.replace("{id}", "x1").replace("{event_id}", "e1");
            match resolve(e.method, &concrete) {
                Resolution::Found(found, _) => assert_eq!(found, e),
                other => panic!("{} {}: {other:?}", e.method, e.path),
            }
        }
    }

    #[test]
    fn operations_are_declared_once() {
        let mut ids: Vec<String> = ENDPOINTS.iter().map(|e| e.op.id()).collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "an operation appears in two rows");
        assert_eq!(Op::Corpus(CorpusOp::ListSystems).id(), "listSystems");
    }

    #[test]
    fn path_parameters_are_extracted() {
        let Resolution::Found(e, params) = resolve(
            Method::Post,
            "/api/v1/webhooks/wh_1/deliveries/evt_2/redeliver",
        ) else {
            panic!("not found");
        };
        assert_eq!(e.op, Op::Webhooks(WebhookOp::RedeliverWebhookEvent));
        assert_eq!(params.get("id"), "wh_1");
        assert_eq!(params.get("event_id"), "evt_2");
        let Resolution::Found(e, _) = resolve(Method::Get, "/api/v1/templates/voice") else {
            panic!("not found");
        };
        assert_eq!(e.op, Op::Templates(TemplateOp::ResolveVoiceCommand));
    }

    #[test]
    fn unknown_paths_do_not_resolve() {
        for path in [
            "",
            "/",
            "/api",
            "/api/v1",
            "/api/v2/health",
            "/api/v1/health/",
            "/api/v1/systems/",
            "/api/v1/systems/a/b",
            "api/v1/health",
            "/api/v1/templates/x/y/z",
        ] {
            assert!(
                matches!(resolve(Method::Get, path), Resolution::NotFound { .. }),
                "{path}"
            );
        }
    }

    #[test]
    fn head_follows_get_and_allow_lists_every_method_of_the_path() {
        assert!(matches!(
            resolve(Method::Head, "/api/v1/health"),
            Resolution::Found(..)
        ));
        assert_eq!(
            resolve(Method::Delete, "/api/v1/health"),
            Resolution::WrongMethod {
                allow: vec![Method::Get, Method::Head],
                errors: Simple
            }
        );
        assert_eq!(
            allowed("/api/v1/templates/tpl_1"),
            Some(vec![Method::Get, Method::Head, Method::Put, Method::Delete])
        );
        assert_eq!(allowed("/mcp"), Some(vec![Method::Post]));
        assert_eq!(allowed("/nope"), None);
    }

    #[test]
    fn unknown_paths_answer_in_their_familys_format() {
        for (path, errors) in [
            ("/api/v1/templates/x/y/z", Detailed),
            ("/api/v1/webhooks/x/test/more", Detailed),
            ("/api/v1/events/x", Detailed),
            ("/api/v1/templatesx", Simple),
            ("/api/v1/systems/x/y", Simple),
            ("/api/v1/nothing", Simple),
            ("/nope", Simple),
        ] {
            assert_eq!(
                resolve(Method::Get, path),
                Resolution::NotFound { errors },
                "{path}"
            );
        }
    }

    #[test]
    fn keyed_limits_need_a_key() {
        for e in ENDPOINTS {
            if e.limit == Limit::Key {
                assert!(matches!(e.access, Access::Key(_)), "{}", e.path);
            }
        }
    }
}
