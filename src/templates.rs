//! Report templates: per-user CRUD on D1, with voice commands for dictation.
//!
//! Every rule lives here — validation, sanitizing, `content_text`, voice-command
//! normalisation and uniqueness, ownership, the SQL — so the platform only executes statements.
//! A voice phrase is unique per user through the `voice_commands` primary key, written in the
//! same atomic batch as the template, so concurrent writers cannot both claim a phrase.

use crate::app::{App, Services};
use crate::auth::{Principal, Scope};
use crate::db::{int, list, text, DbError, Row, SqlValue, Statement};
use crate::error::ApiError;
use crate::html;
use crate::http::{Method, Request, Response};
use serde_json::{json, Map, Value};

/// Longest name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// Longest content, in characters of HTML as sent.
pub const MAX_CONTENT_CHARS: usize = 100_000;
/// Longest exam_type, modality, category or subcategory, in characters.
pub const MAX_LABEL_CHARS: usize = 64;
/// Most tags, and the longest tag.
pub const MAX_TAGS: usize = 30;
pub const MAX_TAG_CHARS: usize = 50;
/// Most voice aliases, and the longest voice phrase.
pub const MAX_ALIASES: usize = 20;
pub const MAX_VOICE_CHARS: usize = 100;
/// Largest request body: room for the longest content even when every character is sent as a
/// JSON escape, so an over-long content is refused by name (422), not by size.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Fields a client may write.
const WRITABLE: &[&str] = &[
    "name",
    "content",
    "exam_type",
    "modality",
    "category",
    "subcategory",
    "tags",
    "voice_command",
    "voice_aliases",
    "is_favorite",
    "is_public",
];
/// Fields the service maintains; a body that sets one is refused.
const READ_ONLY: &[&str] = &[
    "id",
    "content_text",
    "usage_count",
    "last_used_at",
    "created_by",
    "created_at",
    "updated_at",
];

/// The columns of a template row, in SELECT order.
const COLUMNS: &str = "id, user_id, name, content, content_text, exam_type, modality, category, \
    subcategory, tags, voice_command, voice_aliases, is_favorite, is_public, usage_count, \
    last_used_at, created_at, updated_at";

/// The template routes under `/api/v1/templates`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateRoute {
    /// `GET|POST /templates`
    Collection,
    /// `GET /templates/voice?command=`
    Voice,
    /// `GET|PUT|DELETE /templates/{id}`
    Item(String),
    /// `POST /templates/{id}/use`
    Use(String),
}

/// Normalises a spoken phrase: case folded, ASCII whitespace, punctuation and control
/// characters turned into single spaces, so "Normal Chest-X-ray!" and "normal chest x ray" are the
/// same command. Letters of every script are kept. (The OpenAPI pattern of voice phrases
/// states the same rule: at least one character that is none of these.)
pub fn normalize_voice(phrase: &str) -> String {
    // Exactly the OpenAPI pattern's separators: ASCII whitespace, ASCII punctuation and ASCII
    // control characters. Everything else, in any script, is part of a word.
    let separator =
        |c: char| c.is_ascii_whitespace() || c.is_ascii_punctuation() || c.is_ascii_control();
    phrase
        .split(separator)
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A template as stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Template {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub content: String,
    pub content_text: String,
    pub exam_type: Option<String>,
    pub modality: Option<String>,
    pub category: Option<String>,
    pub subcategory: Option<String>,
    pub tags: Vec<String>,
    pub voice_command: Option<String>,
    pub voice_aliases: Vec<String>,
    pub is_favorite: bool,
    pub is_public: bool,
    pub usage_count: i64,
    pub last_used_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl Template {
    fn from_row(row: &Row) -> Template {
        Template {
            id: text(row, "id").unwrap_or_default(),
            user_id: text(row, "user_id").unwrap_or_default(),
            name: text(row, "name").unwrap_or_default(),
            content: text(row, "content").unwrap_or_default(),
            content_text: text(row, "content_text").unwrap_or_default(),
            exam_type: text(row, "exam_type"),
            modality: text(row, "modality"),
            category: text(row, "category"),
            subcategory: text(row, "subcategory"),
            tags: list(row, "tags"),
            voice_command: text(row, "voice_command"),
            voice_aliases: list(row, "voice_aliases"),
            is_favorite: int(row, "is_favorite") != 0,
            is_public: int(row, "is_public") != 0,
            usage_count: int(row, "usage_count"),
            last_used_at: text(row, "last_used_at"),
            created_at: text(row, "created_at").unwrap_or_default(),
            updated_at: text(row, "updated_at").unwrap_or_default(),
        }
    }

    /// The template as the API shows it.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "content": self.content,
            "content_text": self.content_text,
            "exam_type": self.exam_type,
            "modality": self.modality,
            "category": self.category,
            "subcategory": self.subcategory,
            "tags": self.tags,
            "voice_command": self.voice_command,
            "voice_aliases": self.voice_aliases,
            "is_favorite": self.is_favorite,
            "is_public": self.is_public,
            "usage_count": self.usage_count,
            "last_used_at": self.last_used_at,
            "created_by": self.user_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        })
    }

    /// Every normalised phrase that should call this template.
    fn phrases(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .voice_command
            .iter()
            .chain(&self.voice_aliases)
            .map(|p| normalize_voice(p))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn row_params(&self) -> Vec<SqlValue> {
        vec![
            self.id.clone().into(),
            self.user_id.clone().into(),
            self.name.clone().into(),
            self.content.clone().into(),
            self.content_text.clone().into(),
            self.exam_type.clone().into(),
            self.modality.clone().into(),
            self.category.clone().into(),
            self.subcategory.clone().into(),
            json!(self.tags).to_string().into(),
            self.voice_command.clone().into(),
            json!(self.voice_aliases).to_string().into(),
            self.is_favorite.into(),
            self.is_public.into(),
            self.usage_count.into(),
            self.last_used_at.clone().into(),
            self.created_at.clone().into(),
            self.updated_at.clone().into(),
        ]
    }
}

/// Reads the JSON object of a create or update body. Malformed JSON or another content type
/// is 400; a field the client may not write (unknown or read-only) is 422 naming it.
fn read_body(request: &Request) -> Result<Map<String, Value>, ApiError> {
    if !request.is_json() {
        return Err(ApiError::bad_request(
            "the body must be JSON, sent with 'Content-Type: application/json'",
        ));
    }
    if request.body.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge {
            limit: MAX_BODY_BYTES,
        });
    }
    let map = crate::http::json_object(&request.body)?;
    for key in map.keys() {
        if READ_ONLY.contains(&key.as_str()) {
            return Err(ApiError::validation(
                key,
                format!("'{key}' is maintained by the service and cannot be written"),
            ));
        }
        if !WRITABLE.contains(&key.as_str()) {
            return Err(ApiError::validation(
                key,
                format!("unknown field '{key}'; writable: {}", WRITABLE.join(", ")),
            ));
        }
    }
    Ok(map)
}

fn string_field(
    map: &Map<String, Value>,
    key: &str,
    max_chars: usize,
) -> Result<Option<Option<String>>, ApiError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => {
            let s = crate::http::trim_ascii(s);
            if s.chars().count() > max_chars {
                return Err(ApiError::validation(
                    key,
                    format!("'{key}' is longer than {max_chars} characters"),
                ));
            }
            Ok(Some((!s.is_empty()).then(|| s.to_string())))
        }
        Some(_) => Err(ApiError::validation(
            key,
            format!("'{key}' must be a string"),
        )),
    }
}

fn list_field(
    map: &Map<String, Value>,
    key: &str,
    max_items: usize,
    max_chars: usize,
) -> Result<Option<Vec<String>>, ApiError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(Vec::new())),
        Some(Value::Array(items)) => {
            if items.len() > max_items {
                return Err(ApiError::validation(
                    key,
                    format!("'{key}' has more than {max_items} items"),
                ));
            }
            let mut out: Vec<String> = Vec::new();
            for item in items {
                let s = item
                    .as_str()
                    .map(crate::http::trim_ascii)
                    .unwrap_or_default();
                if s.is_empty() || s.chars().count() > max_chars {
                    return Err(ApiError::validation(
                        key,
                        format!("'{key}' items must be non-empty strings of at most {max_chars} characters"),
                    ));
                }
                if !out.iter().any(|o| o == s) {
                    out.push(s.to_string());
                }
            }
            Ok(Some(out))
        }
        Some(_) => Err(ApiError::validation(
            key,
            format!("'{key}' must be an array of strings"),
        )),
    }
}

fn bool_field(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, ApiError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ApiError::validation(
            key,
            format!("'{key}' must be true or false"),
        )),
    }
}

/// Applies a body's fields to a template (all of them for a create, the given ones for an
/// update) and checks the result.
fn apply(
    template: &mut Template,
    map: &Map<String, Value>,
    creating: bool,
) -> Result<(), ApiError> {
    if creating {
        for key in ["name", "content"] {
            if map.get(key).is_none_or(Value::is_null) {
                return Err(ApiError::validation(key, format!("'{key}' is required")));
            }
        }
    }
    if let Some(name) = string_field(map, "name", MAX_NAME_CHARS)? {
        template.name =
            name.ok_or_else(|| ApiError::validation("name", "'name' must not be empty"))?;
    }
    match map.get("content") {
        None => {}
        Some(Value::String(content)) => {
            if content.chars().count() > MAX_CONTENT_CHARS {
                return Err(ApiError::validation(
                    "content",
                    format!("'content' is longer than {MAX_CONTENT_CHARS} characters"),
                ));
            }
            if crate::http::is_blank(content) {
                return Err(ApiError::validation(
                    "content",
                    "'content' must not be empty",
                ));
            }
            // What survives sanitising is stored, even when nothing safe remains.
            let clean = html::sanitize(content);
            template.content_text = html::to_text(&clean);
            template.content = clean;
        }
        Some(_) => {
            return Err(ApiError::validation(
                "content",
                "'content' must be a string of HTML",
            ))
        }
    }
    for (key, slot) in [
        ("exam_type", &mut template.exam_type),
        ("modality", &mut template.modality),
        ("category", &mut template.category),
        ("subcategory", &mut template.subcategory),
    ] {
        if let Some(v) = string_field(map, key, MAX_LABEL_CHARS)? {
            *slot = v;
        }
    }
    if let Some(tags) = list_field(map, "tags", MAX_TAGS, MAX_TAG_CHARS)? {
        template.tags = tags;
    }
    if let Some(command) = string_field(map, "voice_command", MAX_VOICE_CHARS)? {
        if command
            .as_deref()
            .is_some_and(|c| normalize_voice(c).is_empty())
        {
            return Err(ApiError::validation(
                "voice_command",
                "'voice_command' needs a character other than spaces and punctuation",
            ));
        }
        template.voice_command = command;
    }
    if let Some(aliases) = list_field(map, "voice_aliases", MAX_ALIASES, MAX_VOICE_CHARS)? {
        if aliases.iter().any(|a| normalize_voice(a).is_empty()) {
            return Err(ApiError::validation(
                "voice_aliases",
                "each voice alias needs a character other than spaces and punctuation",
            ));
        }
        template.voice_aliases = aliases;
    }
    if let Some(b) = bool_field(map, "is_favorite")? {
        template.is_favorite = b;
    }
    if let Some(b) = bool_field(map, "is_public")? {
        template.is_public = b;
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch.
pub fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

async fn load<S: Services>(services: &S, id: &str) -> Result<Option<Template>, ApiError> {
    if !id.starts_with("tpl_") || id.len() > 64 {
        return Ok(None);
    }
    let rows = services
        .query(Statement::new(
            format!("SELECT {COLUMNS} FROM templates WHERE id = ?1"),
            vec![id.into()],
        ))
        .await?;
    Ok(rows.first().map(Template::from_row))
}

fn not_found(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no template '{}'",
        id.chars().take(64).collect::<String>()
    ))
}

/// The template if the caller may read it: their own, or another user's public one.
async fn readable<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
) -> Result<Template, ApiError> {
    let t = load(services, id).await?.ok_or_else(|| not_found(id))?;
    if t.user_id != who.user_id && !t.is_public {
        return Err(ApiError::Forbidden {
            message: "this template belongs to another user".into(),
        });
    }
    Ok(t)
}

/// The template if the caller may change it: their own only.
async fn writable<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
) -> Result<Template, ApiError> {
    let t = load(services, id).await?.ok_or_else(|| not_found(id))?;
    if t.user_id != who.user_id {
        return Err(ApiError::Forbidden {
            message: "this template belongs to another user and cannot be changed".into(),
        });
    }
    Ok(t)
}

/// Turns a unique-index refusal of a voice phrase into 409, naming the template that holds it.
async fn conflict<S: Services>(services: &S, template: &Template) -> ApiError {
    let phrases = template.phrases();
    let placeholders: Vec<String> = (0..phrases.len()).map(|i| format!("?{}", i + 3)).collect();
    let mut params: Vec<SqlValue> =
        vec![template.user_id.clone().into(), template.id.clone().into()];
    params.extend(phrases.iter().map(|p| SqlValue::from(p.clone())));
    let existing = services
        .query(Statement::new(
            format!(
                "SELECT template_id, phrase FROM voice_commands WHERE user_id = ?1 AND template_id <> ?2 AND phrase IN ({}) LIMIT 1",
                placeholders.join(", ")
            ),
            params,
        ))
        .await
        .ok()
        .and_then(|rows| rows.into_iter().next());
    let (id, phrase) = existing
        .map(|r| {
            (
                text(&r, "template_id"),
                text(&r, "phrase").unwrap_or_default(),
            )
        })
        .unwrap_or((None, String::new()));
    ApiError::Conflict {
        message: format!("voice command '{phrase}' already belongs to another of your templates"),
        field: "voice_command".into(),
        existing_id: id,
    }
}

/// The statements that give a template exactly its phrases.
fn phrase_statements(t: &Template) -> Vec<Statement> {
    let mut out = vec![Statement::new(
        "DELETE FROM voice_commands WHERE template_id = ?1",
        vec![t.id.clone().into()],
    )];
    for phrase in t.phrases() {
        out.push(Statement::new(
            "INSERT INTO voice_commands (user_id, phrase, template_id) VALUES (?1, ?2, ?3)",
            vec![t.user_id.clone().into(), phrase.into(), t.id.clone().into()],
        ));
    }
    out
}

async fn write<S: Services>(
    services: &S,
    mut statements: Vec<Statement>,
    t: &Template,
) -> Result<(), ApiError> {
    statements.extend(phrase_statements(t));
    match services.batch(statements).await {
        Ok(()) => Ok(()),
        Err(DbError::Unique) => Err(conflict(services, t).await),
        Err(other) => Err(other.into()),
    }
}

fn data(status: u16, t: &Template) -> Response {
    Response::json(status, &json!({ "data": t.to_json() }))
}

/// Handles a template route: key, rate limit, then the operation.
pub async fn handle<S: Services>(
    app: &App,
    services: &S,
    route: &TemplateRoute,
    request: &Request,
) -> Result<Response, ApiError> {
    crate::auth::keyed(app, services, request, Scope::Templates, async |who| {
        operate(services, &who, route, request).await
    })
    .await
}

async fn operate<S: Services>(
    services: &S,
    who: &Principal,
    route: &TemplateRoute,
    request: &Request,
) -> Result<Response, ApiError> {
    let now = iso8601(services.now_ms());
    match (route, request.method) {
        (TemplateRoute::Collection, Method::Get | Method::Head) => {
            list_templates(services, who, request).await
        }
        (TemplateRoute::Collection, Method::Post) => {
            let map = read_body(request)?;
            let mut t = Template {
                id: format!("tpl_{}", services.random_hex(16)?),
                user_id: who.user_id.clone(),
                created_at: now.clone(),
                updated_at: now,
                ..Template::default()
            };
            apply(&mut t, &map, true)?;
            let insert_params = t.row_params();
            write(
                services,
                vec![Statement::new(
                    format!(
                        "INSERT INTO templates ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"
                    ),
                    insert_params,
                )],
                &t,
            )
            .await?;
            Ok(data(201, &t).with_header("location", format!("/api/v1/templates/{}", t.id)))
        }
        (TemplateRoute::Voice, Method::Get | Method::Head) => {
            let command = crate::corpus_api::Params::get(request, "command")?
                .map(|c| normalize_voice(&c))
                .filter(|c| !c.is_empty())
                .ok_or_else(|| ApiError::validation("command", "'command' is required"))?;
            let rows = services
                .query(Statement::new(
                    format!("SELECT {} FROM templates t JOIN voice_commands v ON v.template_id = t.id WHERE v.user_id = ?1 AND v.phrase = ?2", prefixed("t")),
                    vec![who.user_id.clone().into(), command.clone().into()],
                ))
                .await?;
            let t = rows.first().map(Template::from_row).ok_or_else(|| {
                ApiError::not_found(format!("no template of yours answers to '{command}'"))
            })?;
            Ok(data(200, &t))
        }
        (TemplateRoute::Item(id), Method::Get | Method::Head) => {
            Ok(data(200, &readable(services, who, id).await?))
        }
        (TemplateRoute::Item(id), Method::Put) => {
            let map = read_body(request)?;
            let mut t = writable(services, who, id).await?;
            apply(&mut t, &map, false)?;
            t.updated_at = now;
            let params = t.row_params();
            write(
                services,
                vec![Statement::new(
                    "UPDATE templates SET name = ?3, content = ?4, content_text = ?5, exam_type = ?6, modality = ?7, category = ?8, subcategory = ?9, tags = ?10, voice_command = ?11, voice_aliases = ?12, is_favorite = ?13, is_public = ?14, updated_at = ?18 WHERE id = ?1 AND user_id = ?2",
                    params,
                )],
                &t,
            )
            .await?;
            Ok(data(200, &t))
        }
        (TemplateRoute::Item(id), Method::Delete) => {
            let t = writable(services, who, id).await?;
            services
                .batch(vec![
                    Statement::new(
                        "DELETE FROM voice_commands WHERE template_id = ?1",
                        vec![t.id.clone().into()],
                    ),
                    Statement::new(
                        "DELETE FROM templates WHERE id = ?1 AND user_id = ?2",
                        vec![t.id.clone().into(), t.user_id.clone().into()],
                    ),
                ])
                .await?;
            Ok(Response::empty(204))
        }
        (TemplateRoute::Use(id), Method::Post) => {
            let mut t = writable(services, who, id).await?;
            services
                .query(Statement::new(
                    "UPDATE templates SET usage_count = usage_count + 1, last_used_at = ?2 WHERE id = ?1",
                    vec![t.id.clone().into(), now.clone().into()],
                ))
                .await?;
            t.usage_count += 1;
            t.last_used_at = Some(now);
            Ok(data(200, &t))
        }
        (_, method) => Err(ApiError::MethodNotAllowed {
            method,
            allow: route.allow(),
        }),
    }
}

fn prefixed(alias: &str) -> String {
    COLUMNS
        .split(',')
        .map(|c| format!("{alias}.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl TemplateRoute {
    /// Resolves the part of a path after `/api/v1/templates`.
    pub fn resolve(rest: &[&str]) -> Option<TemplateRoute> {
        match rest {
            [] => Some(TemplateRoute::Collection),
            ["voice"] => Some(TemplateRoute::Voice),
            [id] if !id.is_empty() => Some(TemplateRoute::Item(id.to_string())),
            [id, "use"] if !id.is_empty() => Some(TemplateRoute::Use(id.to_string())),
            _ => None,
        }
    }

    /// The methods the route answers.
    pub fn allow(&self) -> &'static [Method] {
        match self {
            TemplateRoute::Collection => &[Method::Get, Method::Head, Method::Post],
            TemplateRoute::Voice => &[Method::Get, Method::Head],
            TemplateRoute::Item(_) => &[Method::Get, Method::Head, Method::Put, Method::Delete],
            TemplateRoute::Use(_) => &[Method::Post],
        }
    }
}

/// The `limit` (1-100, default `default_limit`) and `offset` of a keyed list; out-of-range or
/// non-integer values are 422 naming the parameter.
pub fn paging(request: &Request, default_limit: i64) -> Result<(i64, i64), ApiError> {
    use crate::corpus_api::Params;
    let int_param = |name: &str, default: i64, min: i64, max: i64| -> Result<i64, ApiError> {
        match request.get(name)? {
            None => Ok(default),
            Some(v) => match v.trim().parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                Ok(_) => Err(ApiError::validation(
                    name,
                    format!("'{name}' must be from {min} to {max}"),
                )),
                Err(_) => Err(ApiError::validation(
                    name,
                    format!("'{name}' must be an integer"),
                )),
            },
        }
    };
    Ok((
        int_param("limit", default_limit, 1, 100)?,
        int_param("offset", 0, 0, 1_000_000)?,
    ))
}

/// The sort columns of the list.
const SORTS: &[&str] = &["usage_count", "name", "created_at", "updated_at"];

async fn list_templates<S: Services>(
    services: &S,
    who: &Principal,
    request: &Request,
) -> Result<Response, ApiError> {
    use crate::corpus_api::Params;
    let (limit, offset) = paging(request, 50)?;
    let sort = request.get("sort")?.unwrap_or_else(|| "usage_count".into());
    if !SORTS.contains(&sort.as_str()) {
        return Err(ApiError::validation(
            "sort",
            format!("'sort' must be one of {}", SORTS.join(", ")),
        ));
    }
    let order = match request.get("order")?.as_deref() {
        None | Some("desc") => "DESC",
        Some("asc") => "ASC",
        Some(_) => return Err(ApiError::validation("order", "'order' must be asc or desc")),
    };
    let favorites_only = match request.get("favorites_only")?.as_deref() {
        None | Some("false") | Some("0") => false,
        Some("true") | Some("1") => true,
        Some(_) => {
            return Err(ApiError::validation(
                "favorites_only",
                "'favorites_only' must be true or false",
            ))
        }
    };
    let mut conditions: Vec<String> = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let bind = |params: &mut Vec<SqlValue>, v: SqlValue| -> String {
        params.push(v);
        format!("?{}", params.len())
    };
    match request.get("scope")?.as_deref() {
        None | Some("mine") => {
            let p = bind(&mut params, who.user_id.clone().into());
            conditions.push(format!("user_id = {p}"));
        }
        Some("public") => conditions.push("is_public = 1".into()),
        Some(_) => {
            return Err(ApiError::validation(
                "scope",
                "'scope' must be mine or public",
            ))
        }
    }
    for key in ["exam_type", "modality", "category"] {
        if let Some(v) = request.get(key)? {
            let p = bind(&mut params, v.trim().to_lowercase().into());
            conditions.push(format!("lower({key}) = {p}"));
        }
    }
    if let Some(tags) = request.get("tags")? {
        for tag in tags.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let p = bind(&mut params, tag.to_lowercase().into());
            conditions.push(format!("EXISTS (SELECT 1 FROM json_each(templates.tags) WHERE lower(json_each.value) = {p})"));
        }
    }
    if let Some(search) = request.get("search")? {
        // instr, not LIKE: D1 refuses LIKE patterns longer than 50 bytes, and a substring needs
        // no escaping. Both sides are lower-cased, so the match ignores ASCII case.
        let p = bind(&mut params, search.trim().to_lowercase().into());
        conditions.push(format!(
            "(instr(lower(name), {p}) > 0 OR instr(lower(content_text), {p}) > 0)"
        ));
    }
    if favorites_only {
        conditions.push("is_favorite = 1".into());
    }
    let filter = conditions.join(" AND ");
    let total_rows = services
        .query(Statement::new(
            format!("SELECT COUNT(*) AS total FROM templates WHERE {filter}"),
            params.clone(),
        ))
        .await?;
    let total = total_rows.first().map(|r| int(r, "total")).unwrap_or(0);
    let l = bind(&mut params, limit.into());
    let o = bind(&mut params, offset.into());
    let rows = services
        .query(Statement::new(
            format!("SELECT {COLUMNS} FROM templates WHERE {filter} ORDER BY {sort} {order}, id ASC LIMIT {l} OFFSET {o}"),
            params,
        ))
        .await?;
    let items: Vec<Value> = rows
        .iter()
        .map(|r| Template::from_row(r).to_json())
        .collect();
    Ok(page(items, total, limit, offset))
}

/// A page of a keyed list: `{data, meta: {total, limit, offset, has_more}}`.
pub fn page(items: Vec<Value>, total: i64, limit: i64, offset: i64) -> Response {
    let has_more = offset + (items.len() as i64) < total;
    Response::json(
        200,
        &json!({
            "data": items,
            "meta": { "total": total, "limit": limit, "offset": offset, "has_more": has_more },
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voice_phrases_normalise() {
        assert_eq!(
            normalize_voice("  Normal   Chest X-Ray! "),
            "normal chest x ray"
        );
        assert_eq!(
            normalize_voice("CT abdomen, w/ contrast"),
            "ct abdomen w contrast"
        );
        assert_eq!(normalize_voice("!!!"), "");
        assert_eq!(normalize_voice("Thorax Übersicht"), "thorax übersicht");
        // Non-ASCII spaces and C1 controls are not separators, as in the OpenAPI pattern.
        assert_eq!(normalize_voice("\u{2028}"), "\u{2028}");
        assert_eq!(normalize_voice("a\u{85}b"), "a\u{85}b");
    }

    #[test]
    fn timestamps_are_iso8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_795_305_600_123), "2026-11-22T00:00:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    fn body(json: &str) -> Map<String, Value> {
        serde_json::from_str(json).unwrap()
    }

    fn field_of(e: ApiError) -> String {
        match e {
            ApiError::Validation { field, .. } => field,
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn create_requires_name_and_content_and_checks_types() {
        let mut t = Template::default();
        assert_eq!(
            field_of(apply(&mut t, &body(r#"{"content":"<p>x</p>"}"#), true).unwrap_err()),
            "name"
        );
        assert_eq!(
            field_of(apply(&mut t, &body(r#"{"name":"x"}"#), true).unwrap_err()),
            "content"
        );
        let long = format!(r#"{{"name":"{}","content":"x"}}"#, "n".repeat(101));
        assert_eq!(
            field_of(apply(&mut t, &body(&long), true).unwrap_err()),
            "name"
        );
        assert_eq!(
            field_of(
                apply(
                    &mut t,
                    &body(r#"{"name":"x","content":"x","tags":["a",""]}"#),
                    true
                )
                .unwrap_err()
            ),
            "tags"
        );
        assert_eq!(
            field_of(
                apply(
                    &mut t,
                    &body(r#"{"name":"x","content":"x","is_public":"yes"}"#),
                    true
                )
                .unwrap_err()
            ),
            "is_public"
        );
        assert_eq!(
            field_of(apply(&mut t, &body(r#"{"name":"x","content":"  "}"#), true).unwrap_err()),
            "content"
        );
        assert_eq!(
            field_of(
                apply(
                    &mut t,
                    &body(r#"{"name":"x","content":"x","voice_command":"?!"}"#),
                    true
                )
                .unwrap_err()
            ),
            "voice_command"
        );
        apply(&mut t, &body(r#"{"name":" CT chest ","content":"<p>Lungs: clear.</p><script>x</script>","tags":["chest","chest"],"voice_command":"Normal chest","voice_aliases":["chest normal"]}"#), true).unwrap();
        assert_eq!(t.name, "CT chest");
        assert_eq!(t.content, "<p>Lungs: clear.</p>");
        assert_eq!(t.content_text, "Lungs: clear.");
        assert_eq!(t.tags, vec!["chest"]);
        assert_eq!(t.phrases(), vec!["chest normal", "normal chest"]);
    }

    #[test]
    fn read_only_and_unknown_fields_are_refused() {
        let req = |b: &str| {
            Request::new(Method::Post, "/api/v1/templates")
                .with_header("content-type", "application/json")
                .with_body(b.as_bytes().to_vec())
        };
        assert_eq!(
            field_of(read_body(&req(r#"{"name":"x","usage_count":5}"#)).unwrap_err()),
            "usage_count"
        );
        assert_eq!(
            field_of(read_body(&req(r#"{"name":"x","colour":"red"}"#)).unwrap_err()),
            "colour"
        );
        assert_eq!(read_body(&req("{oops")).unwrap_err().status(), 400);
        assert_eq!(read_body(&req("[1]")).unwrap_err().status(), 400);
        let text = Request::new(Method::Post, "/x")
            .with_header("content-type", "text/plain")
            .with_body(b"{}".to_vec());
        assert_eq!(read_body(&text).unwrap_err().status(), 400);
    }

    #[test]
    fn routes_resolve() {
        assert_eq!(TemplateRoute::resolve(&[]), Some(TemplateRoute::Collection));
        assert_eq!(
            TemplateRoute::resolve(&["voice"]),
            Some(TemplateRoute::Voice)
        );
        assert_eq!(
            TemplateRoute::resolve(&["tpl_1"]),
            Some(TemplateRoute::Item("tpl_1".into()))
        );
        assert_eq!(
            TemplateRoute::resolve(&["tpl_1", "use"]),
            Some(TemplateRoute::Use("tpl_1".into()))
        );
        assert_eq!(TemplateRoute::resolve(&["tpl_1", "other"]), None);
    }
}
