//! The one error type of the service, and how it becomes an HTTP response.
//!
//! The interface has two error formats. Corpus routes (and unknown paths) answer
//! `{"error": "message"}`; template, webhook and event routes answer
//! `{"error": {"code", "message", "details"}}`. A handler returns an [`ApiError`]; the
//! endpoint table (`routes`) says which format each route answers with, so no handler can send
//! the wrong shape.
//!
//! Internal causes are logged by the caller of [`ApiError::into_response`] and never sent:
//! the client sees a generic message and the status.

use crate::http::{Method, Response};
use serde_json::{json, Map, Value};

/// Which of the two documented error bodies a route answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorFormat {
    /// `{"error": "message"}`: the corpus routes, feeds, MCP discovery and unknown paths.
    Simple,
    /// `{"error": {"code", "message", "details"}}`: templates, webhooks and events.
    Detailed,
}

/// Everything that can go wrong in a request, each variant with its status and code.
#[derive(Clone, Debug, PartialEq)]
pub enum ApiError {
    /// 400 `bad_request`: the request could not be read (malformed JSON, wrong content type,
    /// a parameter of the wrong syntax). `field` names the offending parameter if there is one.
    BadRequest {
        message: String,
        field: Option<String>,
    },
    /// 401 `unauthorized`: a key is required and was missing, malformed or unknown.
    Unauthorized { message: String },
    /// 403 `forbidden`: the resource exists but belongs to another user.
    Forbidden { message: String },
    /// 404 `not_found`: no such resource or route.
    NotFound { message: String },
    /// 405 `method_not_allowed`, with the methods the path does allow.
    MethodNotAllowed { method: Method, allow: Vec<Method> },
    /// 409 `conflict`: a unique value is taken (e.g. a voice command).
    Conflict {
        message: String,
        field: String,
        existing_id: Option<String>,
    },
    /// 413 `payload_too_large`: the body exceeds the route's documented cap (in bytes).
    PayloadTooLarge { limit: usize },
    /// 422 `validation_error`: the request was readable but a value breaks a rule.
    Validation { message: String, field: String },
    /// 429 `rate_limited`, with the seconds until the window resets.
    RateLimited { retry_after: u64 },
    /// 500 `internal_error`: the cause is for the log only.
    Internal { cause: String },
    /// 503 `unavailable`: a binding the route needs is missing or failing.
    Unavailable { cause: String },
}

/// The one place where an operation's error becomes a 4xx: an argument error is a 400 naming
/// the parameter, a thing that does not exist (a slug in the path) a 404.
impl From<crate::feature::FeatureError> for ApiError {
    fn from(e: crate::feature::FeatureError) -> ApiError {
        match e {
            crate::feature::FeatureError::Argument { field, message } => ApiError::BadRequest {
                message,
                field: Some(field),
            },
            crate::feature::FeatureError::NotFound { message, .. } => {
                ApiError::NotFound { message }
            }
        }
    }
}

impl ApiError {
    /// A 400 without a field.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::BadRequest {
            message: message.into(),
            field: None,
        }
    }

    /// A 400 naming the parameter at fault.
    pub fn bad_param(field: &str, message: impl Into<String>) -> ApiError {
        ApiError::BadRequest {
            message: message.into(),
            field: Some(field.to_string()),
        }
    }

    /// A 404 with a message.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::NotFound {
            message: message.into(),
        }
    }

    /// A 422 naming the field at fault.
    pub fn validation(field: &str, message: impl Into<String>) -> ApiError {
        ApiError::Validation {
            message: message.into(),
            field: field.to_string(),
        }
    }

    /// A 500 whose cause is logged, never sent.
    pub fn internal(cause: impl Into<String>) -> ApiError {
        ApiError::Internal {
            cause: cause.into(),
        }
    }

    /// The HTTP status of the error.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::BadRequest { .. } => 400,
            ApiError::Unauthorized { .. } => 401,
            ApiError::Forbidden { .. } => 403,
            ApiError::NotFound { .. } => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::Conflict { .. } => 409,
            ApiError::PayloadTooLarge { .. } => 413,
            ApiError::Validation { .. } => 422,
            ApiError::RateLimited { .. } => 429,
            ApiError::Internal { .. } => 500,
            ApiError::Unavailable { .. } => 503,
        }
    }

    /// The machine-readable code of the detailed format.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest { .. } => "bad_request",
            ApiError::Unauthorized { .. } => "unauthorized",
            ApiError::Forbidden { .. } => "forbidden",
            ApiError::NotFound { .. } => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::Conflict { .. } => "conflict",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::Validation { .. } => "validation_error",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::Internal { .. } => "internal_error",
            ApiError::Unavailable { .. } => "unavailable",
        }
    }

    /// The message a client may see. Internal causes are replaced by a generic text.
    pub fn public_message(&self) -> String {
        match self {
            ApiError::BadRequest { message, .. }
            | ApiError::Unauthorized { message }
            | ApiError::Forbidden { message }
            | ApiError::NotFound { message }
            | ApiError::Conflict { message, .. }
            | ApiError::Validation { message, .. } => message.clone(),
            ApiError::MethodNotAllowed { method, allow } => format!(
                "method {method} is not allowed here; allowed: {}",
                allow_header(allow)
            ),
            ApiError::PayloadTooLarge { limit } => {
                format!("request body exceeds the limit of {limit} bytes")
            }
            ApiError::RateLimited { retry_after } => {
                format!("rate limit exceeded; retry after {retry_after} seconds")
            }
            ApiError::Internal { .. } => "internal error".to_string(),
            ApiError::Unavailable { .. } => "service temporarily unavailable".to_string(),
        }
    }

    /// What should be logged for this error, if anything: the internal cause, never a secret.
    pub fn log_line(&self) -> Option<String> {
        match self {
            ApiError::Internal { cause } => Some(format!("internal error: {cause}")),
            ApiError::Unavailable { cause } => Some(format!("unavailable: {cause}")),
            _ => None,
        }
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        match self {
            ApiError::BadRequest {
                field: Some(field), ..
            }
            | ApiError::Validation { field, .. } => {
                details.insert("field".into(), json!(field));
            }
            ApiError::Conflict {
                field, existing_id, ..
            } => {
                details.insert("field".into(), json!(field));
                if let Some(id) = existing_id {
                    details.insert("existing_template_id".into(), json!(id));
                }
            }
            ApiError::MethodNotAllowed { allow, .. } => {
                let allowed: Vec<&str> = allow.iter().map(|m| m.as_str()).collect();
                details.insert("allowed_methods".into(), json!(allowed));
            }
            ApiError::PayloadTooLarge { limit } => {
                details.insert("limit_bytes".into(), json!(limit));
            }
            ApiError::RateLimited { retry_after } => {
                details.insert("retry_after".into(), json!(retry_after));
            }
            _ => {}
        }
        details
    }

    /// The response for this error in the given format, with the headers the status implies
    /// (`Allow` on 405, `Retry-After` on 429, `WWW-Authenticate` on 401).
    pub fn into_response(self, format: ErrorFormat) -> Response {
        let body = match format {
            ErrorFormat::Simple => json!({ "error": self.public_message() }),
            ErrorFormat::Detailed => json!({
                "error": {
                    "code": self.code(),
                    "message": self.public_message(),
                    "details": Value::Object(self.details()),
                }
            }),
        };
        let mut response = Response::json(self.status(), &body);
        match &self {
            ApiError::MethodNotAllowed { allow, .. } => {
                response.set_header("allow", allow_header(allow));
            }
            ApiError::RateLimited { retry_after } => {
                response.set_header("retry-after", retry_after.to_string());
            }
            ApiError::Unauthorized { .. } => {
                response.set_header("www-authenticate", "Bearer realm=\"radref\"");
            }
            _ => {}
        }
        response
    }
}

/// The value of an `Allow` header for a set of methods.
pub fn allow_header(allow: &[Method]) -> String {
    allow
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(r: &Response) -> Value {
        serde_json::from_slice(&r.body).unwrap()
    }

    #[test]
    fn simple_format_is_a_string() {
        let r = ApiError::not_found("no system 'x'").into_response(ErrorFormat::Simple);
        assert_eq!(r.status, 404);
        assert_eq!(body(&r), json!({"error": "no system 'x'"}));
    }

    #[test]
    fn detailed_conflict_names_field_and_existing_template() {
        let r = ApiError::Conflict {
            message: "voice command already exists".into(),
            field: "voice_command".into(),
            existing_id: Some("t_1".into()),
        }
        .into_response(ErrorFormat::Detailed);
        assert_eq!(r.status, 409);
        assert_eq!(
            body(&r),
            json!({"error": {"code": "conflict", "message": "voice command already exists",
                "details": {"field": "voice_command", "existing_template_id": "t_1"}}})
        );
    }

    #[test]
    fn every_spec_code_has_its_status() {
        let cases = [
            (ApiError::bad_request("x"), 400, "bad_request"),
            (
                ApiError::Unauthorized {
                    message: "x".into(),
                },
                401,
                "unauthorized",
            ),
            (
                ApiError::Forbidden {
                    message: "x".into(),
                },
                403,
                "forbidden",
            ),
            (ApiError::not_found("x"), 404, "not_found"),
            (ApiError::validation("name", "x"), 422, "validation_error"),
            (
                ApiError::RateLimited { retry_after: 3 },
                429,
                "rate_limited",
            ),
        ];
        for (err, status, code) in cases {
            let r = err.into_response(ErrorFormat::Detailed);
            assert_eq!(r.status, status);
            assert_eq!(body(&r)["error"]["code"], code);
        }
    }

    #[test]
    fn internal_cause_is_never_sent() {
        let err = ApiError::internal("D1_ERROR: secret table dump");
        assert!(err.log_line().unwrap().contains("D1_ERROR"));
        for format in [ErrorFormat::Simple, ErrorFormat::Detailed] {
            let r = err.clone().into_response(format);
            assert_eq!(r.status, 500);
            assert!(!String::from_utf8_lossy(&r.body).contains("D1_ERROR"));
        }
    }

    #[test]
    fn method_not_allowed_sets_allow() {
        let r = ApiError::MethodNotAllowed {
            method: Method::Post,
            allow: vec![Method::Get, Method::Head],
        }
        .into_response(ErrorFormat::Simple);
        assert_eq!(r.status, 405);
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
    }

    #[test]
    fn rate_limited_sets_retry_after() {
        let r = ApiError::RateLimited { retry_after: 42 }.into_response(ErrorFormat::Simple);
        assert_eq!(r.header("retry-after"), Some("42"));
    }
}
