//! The error of a read operation (search, ground, evaluate, catalog): what was wrong with the
//! question, in the operation's own terms.
//!
//! An operation knows nothing of HTTP or JSON-RPC. Its error names the argument at fault and
//! says how to fix it; `error.rs` turns it into the 4xx of the HTTP route in one place, and the
//! MCP door into the tool error a model reads, so both doors give the same message for the
//! same input.

use std::fmt;

/// Why an operation refused its question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeatureError {
    /// An argument is malformed, out of range or names nothing known: the argument (by its
    /// name in the request) and a message that says what is accepted.
    Argument { field: String, message: String },
    /// The argument names a thing that does not exist (a slug no system has): the argument
    /// and a message that suggests what does.
    NotFound { field: String, message: String },
}

impl FeatureError {
    /// An argument error.
    pub fn argument(field: &str, message: impl Into<String>) -> FeatureError {
        FeatureError::Argument {
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// A not-found error.
    pub fn not_found(field: &str, message: impl Into<String>) -> FeatureError {
        FeatureError::NotFound {
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// The argument at fault.
    pub fn field(&self) -> &str {
        match self {
            FeatureError::Argument { field, .. } | FeatureError::NotFound { field, .. } => field,
        }
    }
}

impl fmt::Display for FeatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeatureError::Argument { message, .. } | FeatureError::NotFound { message, .. } => {
                f.write_str(message)
            }
        }
    }
}
