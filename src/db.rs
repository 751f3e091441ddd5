//! The database vocabulary of the core: SQL values, rows and errors.
//!
//! The core writes every SQL statement itself (so the rules live in tested code); the platform
//! only executes them on D1. A unique-constraint violation is its own error, so a race between
//! two writers turns into a clean 409, decided by the database's unique index.

use crate::error::ApiError;
use serde_json::{Map, Value};

/// A bound parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlValue {
    Null,
    Int(i64),
    Text(String),
}

impl From<&str> for SqlValue {
    fn from(s: &str) -> SqlValue {
        SqlValue::Text(s.to_string())
    }
}

impl From<String> for SqlValue {
    fn from(s: String) -> SqlValue {
        SqlValue::Text(s)
    }
}

impl From<Option<String>> for SqlValue {
    fn from(s: Option<String>) -> SqlValue {
        s.map_or(SqlValue::Null, SqlValue::Text)
    }
}

impl From<i64> for SqlValue {
    fn from(n: i64) -> SqlValue {
        SqlValue::Int(n)
    }
}

impl From<Option<i64>> for SqlValue {
    fn from(n: Option<i64>) -> SqlValue {
        n.map_or(SqlValue::Null, SqlValue::Int)
    }
}

impl From<bool> for SqlValue {
    fn from(b: bool) -> SqlValue {
        SqlValue::Int(i64::from(b))
    }
}

/// A statement with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<SqlValue>,
}

impl Statement {
    /// A statement from SQL and parameters (`?1`, `?2`, ... in the SQL).
    pub fn new(sql: impl Into<String>, params: Vec<SqlValue>) -> Statement {
        Statement {
            sql: sql.into(),
            params,
        }
    }
}

/// A result row, column name to value.
pub type Row = Map<String, Value>;

/// Why a statement failed.
#[derive(Clone, Debug, PartialEq)]
pub enum DbError {
    /// A UNIQUE or PRIMARY KEY constraint refused the write.
    Unique,
    /// Anything else; the text is for the log only.
    Other(String),
}

/// A failure no caller mapped: an unexpected unique violation is a bug (500), anything else
/// is storage trouble (503). Callers that expect a violation use [`OnUnique::on_unique`].
impl From<DbError> for ApiError {
    fn from(e: DbError) -> ApiError {
        match e {
            DbError::Unique => ApiError::internal("unexpected unique violation"),
            DbError::Other(cause) => ApiError::Unavailable { cause },
        }
    }
}

/// Turns a unique-constraint refusal into the 409 of the caller's choosing, in one place;
/// any other failure keeps its meaning (503 for storage trouble).
pub trait OnUnique<T> {
    /// `conflict` builds the error that answers a unique violation.
    fn on_unique(self, conflict: impl FnOnce() -> ApiError) -> Result<T, ApiError>;
}

impl<T> OnUnique<T> for Result<T, DbError> {
    fn on_unique(self, conflict: impl FnOnce() -> ApiError) -> Result<T, ApiError> {
        match self {
            Ok(value) => Ok(value),
            Err(DbError::Unique) => Err(conflict()),
            Err(other) => Err(other.into()),
        }
    }
}

/// A text column of a row.
pub fn text(row: &Row, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).map(String::from)
}

/// An integer column of a row (0 when NULL).
pub fn int(row: &Row, key: &str) -> i64 {
    opt_int(row, key).unwrap_or(0)
}

/// An integer column of a row that may be NULL.
pub fn opt_int(row: &Row, key: &str) -> Option<i64> {
    // D1 hands integers to JavaScript as numbers, which arrive as floats.
    row.get(key)
        .and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)))
}

/// A column holding a JSON array of strings.
pub fn string_list(row: &Row, key: &str) -> Vec<String> {
    text(row, key)
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}
