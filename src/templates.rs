//! Report templates: per-user records on D1, with voice commands for dictation.
//!
//! Every rule lives here — validation, sanitizing, `content_text`, voice-command
//! normalisation and uniqueness, ownership, the SQL — so the handlers (`api::templates`) only
//! read the request and shape the answer, and the platform only executes statements.
//! A voice phrase is unique per user through the `voice_commands` primary key, written in the
//! same atomic batch as the template, so concurrent writers cannot both claim a phrase.

use crate::call::Principal;
use crate::corpus::compiled::{self, Logic, SYSTEMS};
use crate::corpus::source::InputType;
use crate::db::{int, string_list, text, OnUnique, Row, SqlValue, Statement};
use crate::error::ApiError;
use crate::html;
use crate::input::{is_blank, trim_ascii};
use crate::mrrt::{self, CodedEntry, Field, Metadata};
use crate::services::Services;
use crate::time::iso8601;
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

/// Fields a client may write.
pub const WRITABLE: &[&str] = &[
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
    "metadata",
    "coded_content",
];
/// Fields the service maintains; a body that sets one is refused.
pub const READ_ONLY: &[&str] = &[
    "owned",
    "id",
    "content_text",
    "fields",
    "usage_count",
    "last_used_at",
    "created_by",
    "created_at",
    "updated_at",
];

/// Fields only a template's owner sees; a public view of another user's template leaves them
/// out, and no filter or sort of another user's templates depends on them.
pub const OWNER_ONLY: &[&str] = &[
    "voice_command",
    "voice_aliases",
    "is_favorite",
    "usage_count",
    "last_used_at",
    "created_by",
];

/// The labels of a template, written to an MRRT export as `radref.X` metadata and read back.
pub const LABELS: [&str; 4] = ["exam_type", "modality", "category", "subcategory"];

/// The columns of a template row, in SELECT order.
const COLUMNS: &str = "id, user_id, name, content, content_text, exam_type, modality, category, \
    subcategory, tags, voice_command, voice_aliases, is_favorite, is_public, usage_count, \
    last_used_at, created_at, updated_at, metadata, coded_content";

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
    /// MRRT metadata (Dublin Core elements and template attributes).
    pub metadata: Metadata,
    /// MRRT coded content: codes of elements of `content`, by id.
    pub coded_content: Vec<CodedEntry>,
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
            tags: string_list(row, "tags"),
            voice_command: text(row, "voice_command"),
            voice_aliases: string_list(row, "voice_aliases"),
            is_favorite: int(row, "is_favorite") != 0,
            is_public: int(row, "is_public") != 0,
            usage_count: int(row, "usage_count"),
            last_used_at: text(row, "last_used_at"),
            created_at: text(row, "created_at").unwrap_or_default(),
            updated_at: text(row, "updated_at").unwrap_or_default(),
            // Written by this module only, from the same types.
            metadata: text(row, "metadata")
                .and_then(|m| serde_json::from_str(&m).ok())
                .unwrap_or_default(),
            coded_content: text(row, "coded_content")
                .and_then(|c| serde_json::from_str(&c).ok())
                .unwrap_or_default(),
        }
    }

    /// The fields of its content, with their codes and bindings.
    pub fn fields(&self) -> Vec<Field> {
        mrrt::fields(&self.content, &self.coded_content)
    }

    /// The template as an MRRT document. Its labels and tags travel as `radref.X` metadata;
    /// what only its owner sees (voice commands, favourite, uses) and whether it is public do
    /// not.
    pub fn to_mrrt(&self) -> mrrt::Document {
        let mut labels: Vec<(String, String)> = LABELS
            .iter()
            .zip([
                &self.exam_type,
                &self.modality,
                &self.category,
                &self.subcategory,
            ])
            .filter_map(|(key, value)| Some((key.to_string(), value.clone()?)))
            .collect();
        labels.extend(self.tags.iter().map(|t| ("tags".to_string(), t.clone())));
        mrrt::Document {
            name: self.name.clone(),
            content: self.content.clone(),
            metadata: self.metadata.clone(),
            coded_content: self.coded_content.clone(),
            labels,
        }
    }

    /// The template as `who` may see it: in full for its owner, the [public
    /// view](Template::to_public_json) for anyone else.
    pub fn view(&self, who: &Principal) -> Value {
        if self.user_id == who.user_id {
            self.to_json()
        } else {
            self.to_public_json()
        }
    }

    /// The template as its owner sees it: every field, `owned: true`.
    pub fn to_json(&self) -> Value {
        json!({
            "owned": true,
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
            "metadata": self.metadata,
            "coded_content": self.coded_content,
            "fields": self.fields(),
        })
    }

    /// Another user's public template: what a reader needs to use its content, and nothing
    /// about how its owner works with it. The owner's voice command and aliases, favourite
    /// flag, use count, last use and user id ([`OWNER_ONLY`]) are left out, and `owned` is
    /// false.
    pub fn to_public_json(&self) -> Value {
        let mut value = self.to_json();
        if let Some(fields) = value.as_object_mut() {
            for name in OWNER_ONLY {
                fields.remove(*name);
            }
            fields.insert("owned".to_string(), Value::Bool(false));
        }
        value
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
            json!(self.metadata).to_string().into(),
            json!(self.coded_content).to_string().into(),
        ]
    }
}

/// The writable fields of an MRRT document, as a JSON body would give them: its title as the
/// name, its body as the content, its metadata and coded content, and its `radref.X` labels
/// and tags. Other `radref.X` metadata is not read.
pub fn fields_of(doc: mrrt::Document) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("name".into(), Value::String(doc.name));
    map.insert("content".into(), Value::String(doc.content));
    map.insert("metadata".into(), json!(doc.metadata));
    map.insert("coded_content".into(), json!(doc.coded_content));
    let mut tags: Vec<Value> = Vec::new();
    for (key, value) in doc.labels {
        if key == "tags" {
            tags.push(Value::String(value));
        } else if LABELS.contains(&key.as_str()) && !map.contains_key(&key) {
            map.insert(key, Value::String(value));
        }
    }
    if !tags.is_empty() {
        map.insert("tags".into(), Value::Array(tags));
    }
    map
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
            let s = trim_ascii(s);
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
                let s = item.as_str().map(trim_ascii).unwrap_or_default();
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
            if is_blank(content) {
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
    match map.get("metadata") {
        None => {}
        Some(Value::Null) => template.metadata = Metadata::default(),
        Some(value) => {
            let shaped = object(value, "metadata").and_then(|m| {
                objects(m.get("terms"), "metadata.terms", Some("code"))?;
                objects(m.get("coding_schemes"), "metadata.coding_schemes", None)
            });
            template.metadata = shaped
                .and_then(|()| serde_json::from_value(value.clone()).map_err(|e| e.to_string()))
                .map_err(|e| ApiError::validation("metadata", format!("'metadata': {e}")))?;
        }
    }
    match map.get("coded_content") {
        None => {}
        Some(Value::Null) => template.coded_content = Vec::new(),
        Some(value) => {
            let shaped = objects(Some(value), "coded_content", None).and_then(|()| {
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .try_for_each(|entry| {
                        objects(entry.get("codes"), "coded_content[].codes", None)
                    })
            });
            template.coded_content = shaped
                .and_then(|()| serde_json::from_value(value.clone()).map_err(|e| e.to_string()))
                .map_err(|e| {
                    ApiError::validation("coded_content", format!("'coded_content': {e}"))
                })?;
        }
    }
    let ids = mrrt::element_ids(&template.content);
    if let Some(id) = ids
        .iter()
        .enumerate()
        .find(|(i, id)| ids[..*i].contains(id))
        .map(|(_, id)| id)
    {
        return Err(ApiError::validation(
            "content",
            format!("the id '{id}' is used by two elements of the content; ids name one element"),
        ));
    }
    mrrt::check_coded(&template.coded_content, &ids)
        .map_err(|e| ApiError::validation("coded_content", e))?;
    let fields = template.fields();
    for (i, field) in fields.iter().enumerate() {
        check_binding(field).map_err(|e| ApiError::validation("content", e))?;
        if let Some(other) = fields[..i]
            .iter()
            .find(|f| f.binding.is_some() && f.binding == field.binding)
        {
            return Err(ApiError::validation(
                "content",
                format!(
                    "fields '{}' and '{}' both fill the same evaluator input; bind each input once",
                    other.id, field.id
                ),
            ));
        }
    }
    template.metadata = std::mem::take(&mut template.metadata)
        .normalised(&template.id, &template.created_at, &template.coded_content)
        .map_err(|e| ApiError::validation("metadata", e))?;
    Ok(())
}

/// A JSON object, or the reason it is not one. (A struct could otherwise be read from an
/// array of its fields' values.)
fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("{what} must be an object"))
}

/// Checks that `value`, when given, is a list of objects (each with an object under `inner`
/// when named).
fn objects(value: Option<&Value>, what: &str, inner: Option<&str>) -> Result<(), String> {
    let Some(value) = value else { return Ok(()) };
    let items = value
        .as_array()
        .ok_or_else(|| format!("{what} must be a list of objects"))?;
    for item in items {
        let item = object(item, &format!("each item of {what}"))?;
        if let Some(key) = inner {
            if let Some(v) = item.get(key) {
                object(v, &format!("{what}[].{key}"))?;
            }
        }
    }
    Ok(())
}

/// The logic of the system a slug names.
fn system_logic(slug: &str) -> Option<&'static Logic> {
    SYSTEMS
        .iter()
        .position(|s| s.slug == slug)
        .and_then(compiled::logic)
}

/// Whether a field's binding names a system and one of its inputs the field can fill: a
/// number field a number input, a checkbox a yes/no input, a selection a choice input whose
/// values include every option's value (several when it takes several), a text field any
/// choice or number input (its text is read as one when evaluated).
fn check_binding(field: &Field) -> Result<(), String> {
    let Some(b) = &field.binding else {
        return Ok(());
    };
    let logic = system_logic(&b.system).ok_or_else(|| {
        format!(
            "field '{}' is bound to system '{}', which is not in the corpus (GET /api/v1/systems lists the slugs)",
            field.id, b.system
        )
    })?;
    let input = logic.model().input(&b.input).ok_or_else(|| {
        format!(
            "field '{}' is bound to input '{}', which '{}' does not take; its inputs: {}",
            field.id,
            b.input,
            b.system,
            logic.model().input_ids().join(", ")
        )
    })?;
    let fits = match field.kind.as_str() {
        "NUMBER" => input.kind == InputType::Number,
        "CHECKBOX" => input.kind == InputType::Boolean,
        "SELECTION" => {
            let wanted = if field.multiple {
                InputType::Multi
            } else {
                InputType::Enum
            };
            if input.kind == wanted {
                if let Some(o) = field
                    .options
                    .iter()
                    .find(|o| !input.values.iter().any(|v| v.value == o.value))
                {
                    return Err(format!(
                        "option '{}' of field '{}' is not a value of '{}' input '{}'; its values: {}",
                        o.value,
                        field.id,
                        b.system,
                        b.input,
                        input.values.iter().map(|v| v.value.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                }
                true
            } else {
                false
            }
        }
        "TEXT" | "TEXTAREA" => matches!(input.kind, InputType::Enum | InputType::Number),
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "field '{}' ({}{}) cannot fill '{}' input '{}', which takes {}",
            field.id,
            field.kind,
            if field.multiple { ", several" } else { "" },
            b.system,
            b.input,
            match input.kind {
                InputType::Number => "a number: use a NUMBER field",
                InputType::Boolean => "yes or no: use a CHECKBOX field",
                InputType::Enum => "one value: use a SELECTION field or a TEXT field",
                InputType::Multi => "several values: use a SELECTION field with multiple",
            }
        ))
    }
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
pub async fn readable<S: Services>(
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

/// Writes a template's row and its phrases in one batch; a phrase another template of the
/// user holds is refused by the `voice_commands` primary key and answered 409.
async fn write<S: Services>(
    services: &S,
    statement: Statement,
    t: &Template,
) -> Result<(), ApiError> {
    let mut statements = vec![statement];
    statements.extend(phrase_statements(t));
    let written = services
        .batch(statements)
        .await
        .on_unique(|| ApiError::Conflict {
            message: "a voice command of this template already belongs to another of yours".into(),
            field: "voice_command".into(),
            existing_id: None,
        });
    match written {
        // Name the phrase and the template that holds it.
        Err(ApiError::Conflict { .. }) => Err(conflict(services, t).await),
        other => other,
    }
}

/// The sort keys of a template list.
pub const SORTS: &[&str] = &["usage_count", "name", "created_at", "updated_at"];
/// Most tags a list may filter by.
pub const MAX_FILTER_TAGS: usize = MAX_TAGS;

/// A template list's filters, order and page, already read and checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListQuery {
    /// Every public template instead of the caller's own.
    pub public: bool,
    /// Case-insensitive equality filters: `(column, value)`, columns from a fixed set.
    pub labels: Vec<(&'static str, String)>,
    /// Tags every template must carry (case-insensitive).
    pub tags: Vec<String>,
    /// A substring of the name or the plain text (case-insensitive).
    pub search: Option<String>,
    pub favorites_only: bool,
    /// One of [`SORTS`].
    pub sort: &'static str,
    pub descending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// A page of templates and the number of all that match.
pub async fn list<S: Services>(
    services: &S,
    who: &Principal,
    query: &ListQuery,
) -> Result<(Vec<Template>, i64), ApiError> {
    let mut conditions: Vec<String> = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let bind = |params: &mut Vec<SqlValue>, v: SqlValue| -> String {
        params.push(v);
        format!("?{}", params.len())
    };
    // The caller's user id, bound once when a condition or the order needs it.
    let mut me: Option<String> = None;
    let mut caller = |params: &mut Vec<SqlValue>| -> String {
        me.get_or_insert_with(|| bind(params, who.user_id.clone().into()))
            .clone()
    };
    if query.public {
        conditions.push("is_public = 1".into());
    } else {
        let p = caller(&mut params);
        conditions.push(format!("user_id = {p}"));
    }
    for (column, value) in &query.labels {
        let p = bind(&mut params, value.to_lowercase().into());
        conditions.push(format!("lower({column}) = {p}"));
    }
    for tag in &query.tags {
        let p = bind(&mut params, tag.to_lowercase().into());
        conditions.push(format!(
            "EXISTS (SELECT 1 FROM json_each(templates.tags) WHERE lower(json_each.value) = {p})"
        ));
    }
    if let Some(search) = &query.search {
        // instr, not LIKE: D1 refuses LIKE patterns longer than 50 bytes, and a substring needs
        // no escaping. Both sides are lower-cased, so the match ignores ASCII case.
        let p = bind(&mut params, search.to_lowercase().into());
        conditions.push(format!(
            "(instr(lower(name), {p}) > 0 OR instr(lower(content_text), {p}) > 0)"
        ));
    }
    // The caller's own favourites: another user's favourite flag is theirs alone, so it
    // neither shows nor filters.
    if query.favorites_only {
        let p = caller(&mut params);
        conditions.push(format!("is_favorite = 1 AND user_id = {p}"));
    }
    let filter = conditions.join(" AND ");
    let total_rows = services
        .query(Statement::new(
            format!("SELECT COUNT(*) AS total FROM templates WHERE {filter}"),
            params.clone(),
        ))
        .await?;
    let total = total_rows.first().map(|r| int(r, "total")).unwrap_or(0);
    // Uses are ranked by the caller's own: another user's template counts as unused, so the
    // order of a public list says nothing about how often its owners use their templates.
    let sort = match query.sort {
        "usage_count" if query.public => {
            let p = caller(&mut params);
            format!("CASE WHEN user_id = {p} THEN usage_count ELSE 0 END")
        }
        other => other.to_string(),
    };
    let order = if query.descending { "DESC" } else { "ASC" };
    let l = bind(&mut params, query.limit.into());
    let o = bind(&mut params, query.offset.into());
    let rows = services
        .query(Statement::new(
            format!("SELECT {COLUMNS} FROM templates WHERE {filter} ORDER BY {sort} {order}, id ASC LIMIT {l} OFFSET {o}"),
            params,
        ))
        .await?;
    Ok((rows.iter().map(Template::from_row).collect(), total))
}

/// Creates a template from a body's fields.
pub async fn create<S: Services>(
    services: &S,
    who: &Principal,
    fields: &Map<String, Value>,
) -> Result<Template, ApiError> {
    let now = iso8601(services.now_ms());
    let mut t = Template {
        id: format!("tpl_{}", services.random_hex(16)?),
        user_id: who.user_id.clone(),
        created_at: now.clone(),
        updated_at: now,
        ..Template::default()
    };
    apply(&mut t, fields, true)?;
    let insert = Statement::new(
        format!("INSERT INTO templates ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)"),
        t.row_params(),
    );
    write(services, insert, &t).await?;
    Ok(t)
}

/// The caller's template answering to a spoken phrase (its command or an alias).
pub async fn by_voice<S: Services>(
    services: &S,
    who: &Principal,
    phrase: &str,
) -> Result<Template, ApiError> {
    let command = Some(normalize_voice(phrase))
        .filter(|c| !c.is_empty())
        .ok_or_else(|| ApiError::validation("command", "'command' is required"))?;
    let rows = services
        .query(Statement::new(
            format!("SELECT {} FROM templates t JOIN voice_commands v ON v.template_id = t.id WHERE v.user_id = ?1 AND v.phrase = ?2", prefixed("t")),
            vec![who.user_id.clone().into(), command.clone().into()],
        ))
        .await?;
    rows.first()
        .map(Template::from_row)
        .ok_or_else(|| ApiError::not_found(format!("no template of yours answers to '{command}'")))
}

/// Changes the given fields of one of the caller's templates.
pub async fn update<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
    fields: &Map<String, Value>,
) -> Result<Template, ApiError> {
    let mut t = writable(services, who, id).await?;
    apply(&mut t, fields, false)?;
    t.updated_at = iso8601(services.now_ms());
    let update = Statement::new(
        "UPDATE templates SET name = ?3, content = ?4, content_text = ?5, exam_type = ?6, modality = ?7, category = ?8, subcategory = ?9, tags = ?10, voice_command = ?11, voice_aliases = ?12, is_favorite = ?13, is_public = ?14, updated_at = ?18, metadata = ?19, coded_content = ?20 WHERE id = ?1 AND user_id = ?2",
        t.row_params(),
    );
    write(services, update, &t).await?;
    Ok(t)
}

/// Deletes one of the caller's templates and its phrases.
pub async fn delete<S: Services>(services: &S, who: &Principal, id: &str) -> Result<(), ApiError> {
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
    Ok(())
}

/// Records a use of one of the caller's templates: one more use, last used now.
pub async fn record_use<S: Services>(
    services: &S,
    who: &Principal,
    id: &str,
) -> Result<Template, ApiError> {
    let mut t = writable(services, who, id).await?;
    let now = iso8601(services.now_ms());
    services
        .query(Statement::new(
            "UPDATE templates SET usage_count = usage_count + 1, last_used_at = ?2 WHERE id = ?1",
            vec![t.id.clone().into(), now.clone().into()],
        ))
        .await?;
    t.usage_count += 1;
    t.last_used_at = Some(now);
    Ok(t)
}

/// The evaluations of a filled template: every field bound to an evaluator input gives its
/// value (from `given`, by field id, or else the value the template itself holds) to that
/// input, and each system with a bound field is evaluated on them.
pub fn evaluate_filled(t: &Template, given: &Map<String, Value>) -> Result<Value, ApiError> {
    let fields = t.fields();
    if let Some(unknown) = given.keys().find(|k| !fields.iter().any(|f| &f.id == *k)) {
        return Err(ApiError::validation(
            "values",
            format!(
                "this template has no field '{unknown}'; its fields: {}",
                fields
                    .iter()
                    .map(|f| f.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let bound: Vec<(&Field, &mrrt::Binding)> = fields
        .iter()
        .filter_map(|f| Some((f, f.binding.as_ref()?)))
        .collect();
    if bound.is_empty() {
        return Err(ApiError::validation(
            "content",
            "this template has no field bound to an evaluator input (data-radref-system and data-radref-input on a field)",
        ));
    }
    let mut systems: Vec<&str> = Vec::new();
    for (_, b) in &bound {
        if !systems.contains(&b.system.as_str()) {
            systems.push(&b.system);
        }
    }
    let mut used = Map::new();
    let mut evaluations = Vec::new();
    for slug in systems {
        let logic = system_logic(slug).ok_or_else(|| {
            ApiError::validation(
                "content",
                format!("system '{slug}' is no longer in the corpus"),
            )
        })?;
        let mut inputs = Map::new();
        for (field, b) in bound.iter().filter(|(_, b)| b.system == slug) {
            let value = given.get(&field.id).unwrap_or(&field.value);
            let Some(input) = logic.model().input(&b.input) else {
                continue;
            };
            if let Some(v) = input_value(field, input.kind, value)
                .map_err(|e| ApiError::validation("values", e))?
            {
                used.insert(field.id.clone(), v.clone());
                inputs.insert(b.input.clone(), v);
            }
        }
        let ask = crate::evaluation::Ask {
            inputs: logic
                .model()
                .inputs_from_json(&inputs)
                .map_err(|e| ApiError::validation("values", format!("{slug}: {e}")))?,
            units: None,
            format: crate::evaluation::Format::Json,
        };
        let eval = crate::evaluation::run(logic, &ask)?;
        evaluations.push(json!(crate::evaluation::answer(logic, &ask, &eval)));
    }
    Ok(json!({ "template_id": t.id, "values": used, "evaluations": evaluations }))
}

/// A field's value as the JSON its input takes; `None` when the field holds nothing.
fn input_value(field: &Field, kind: InputType, value: &Value) -> Result<Option<Value>, String> {
    let wrong = |what: &str| format!("field '{}' holds {value}, which is not {what}", field.id);
    Ok(match (kind, value) {
        (_, Value::Null) => None,
        (_, Value::String(s)) if s.trim().is_empty() => None,
        (InputType::Number, Value::Number(_)) => Some(value.clone()),
        (InputType::Number, Value::String(s)) => Some(Value::from(
            s.trim().parse::<f64>().map_err(|_| wrong("a number"))?,
        )),
        (InputType::Enum, Value::String(s)) => Some(Value::String(s.trim().to_string())),
        (InputType::Multi, Value::Array(_)) => Some(value.clone()),
        (InputType::Multi, Value::String(s)) => Some(json!([s.trim()])),
        (InputType::Boolean, Value::Bool(_)) => Some(value.clone()),
        (InputType::Boolean, Value::String(s)) => {
            Some(Value::Bool(match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" => true,
                "false" | "no" | "off" => false,
                _ => return Err(wrong("true or false")),
            }))
        }
        (InputType::Number, _) => return Err(wrong("a number")),
        (InputType::Enum, _) => return Err(wrong("one value")),
        (InputType::Multi, _) => return Err(wrong("a list of values")),
        (InputType::Boolean, _) => return Err(wrong("true or false")),
    })
}

fn prefixed(alias: &str) -> String {
    COLUMNS
        .split(',')
        .map(|c| format!("{alias}.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
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
    fn the_public_view_leaves_out_every_owner_field_and_keeps_the_rest() {
        let t = Template {
            voice_command: Some("x".into()),
            last_used_at: Some("2026-01-01T00:00:00.000Z".into()),
            ..Template::default()
        };
        let (full, public) = (t.to_json(), t.to_public_json());
        for key in OWNER_ONLY {
            assert!(full.get(key).is_some(), "{key} is not a field");
            assert!(public.get(key).is_none(), "{key} is in the public view");
        }
        // Every other field is in both: the public view hides nothing else.
        for key in full.as_object().unwrap().keys() {
            assert_eq!(
                public.get(key).is_some(),
                !OWNER_ONLY.contains(&key.as_str()),
                "{key}"
            );
        }
        assert_eq!(
            (full["owned"].clone(), public["owned"].clone()),
            (json!(true), json!(false))
        );
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
        for shapeless in [
            r#"{"name":"x","content":"x","metadata":[null,null]}"#,
            r#"{"name":"x","content":"x","metadata":{"terms":[["t",["S","1","m"]]]}}"#,
            r#"{"name":"x","content":"<p id=a>x</p>","coded_content":[["a",[["S","1","m"]]]]}"#,
            r#"{"name":"x","content":"<section id=a>x</section>","coded_content":[{"id":"a","codes":[["S","1","m"]]}]}"#,
        ] {
            let e = apply(&mut Template::default(), &body(shapeless), true).unwrap_err();
            assert!(
                matches!(field_of(e).as_str(), "metadata" | "coded_content"),
                "{shapeless}"
            );
        }
        apply(&mut t, &body(r#"{"name":" CT chest ","content":"<p>Lungs: clear.</p><script>x</script>","tags":["chest","chest"],"voice_command":"Normal chest","voice_aliases":["chest normal"]}"#), true).unwrap();
        assert_eq!(t.name, "CT chest");
        assert_eq!(t.content, "<p>Lungs: clear.</p>");
        assert_eq!(t.content_text, "Lungs: clear.");
        assert_eq!(t.tags, vec!["chest"]);
        assert_eq!(t.phrases(), vec!["chest normal", "normal chest"]);
    }
}
