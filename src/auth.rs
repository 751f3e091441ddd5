//! API keys: how a request proves who it is, and what it may do.
//!
//! A key looks like `rr_<id>_<secret>` and is sent as `Authorization: Bearer <key>` or
//! `X-API-Key: <key>`. The database keeps only the SHA-256 of the whole key, found by the
//! public id; the hashes are compared in constant time. Keys never appear in a response or a
//! log line: errors say what is wrong with the request, not what the key was.

use crate::call::Principal;
use crate::db::{text, Statement};
use crate::error::ApiError;
use crate::http::Request;
use crate::routes::Scope;
use crate::services::Services;
use sha2::{Digest, Sha256};

/// A key as stored: its hash, never the key.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StoredKey {
    id: String,
    user_id: String,
    /// SHA-256 (lower-case hex) of the whole key.
    key_hash: String,
    /// Space-separated scopes.
    scopes: String,
    revoked: bool,
}

/// The stored key with this public id, if any.
async fn find_key<S: Services>(services: &S, id: &str) -> Result<Option<StoredKey>, ApiError> {
    let rows = services
        .query(Statement::new(
            "SELECT id, user_id, key_hash, scopes, revoked_at FROM api_keys WHERE id = ?1",
            vec![id.into()],
        ))
        .await?;
    Ok(rows.first().map(|row| StoredKey {
        id: text(row, "id").unwrap_or_default(),
        user_id: text(row, "user_id").unwrap_or_default(),
        key_hash: text(row, "key_hash").unwrap_or_default(),
        scopes: text(row, "scopes").unwrap_or_default(),
        revoked: text(row, "revoked_at").is_some(),
    }))
}

/// The key a request carries, from `Authorization: Bearer` or `X-API-Key`.
fn presented_key(request: &Request) -> Result<&str, ApiError> {
    if let Some(value) = request.header("authorization") {
        let mut parts = value.trim().splitn(2, ' ');
        let scheme = parts.next().unwrap_or_default();
        let token = parts.next().unwrap_or_default().trim();
        if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
            return Err(unauthorized(
                "the Authorization header must be 'Bearer <API key>'",
            ));
        }
        return Ok(token);
    }
    match request.header("x-api-key").map(str::trim) {
        Some(key) if !key.is_empty() => Ok(key),
        _ => Err(unauthorized(
            "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'",
        )),
    }
}

fn unauthorized(message: &str) -> ApiError {
    ApiError::Unauthorized {
        message: message.to_string(),
    }
}

/// Splits `rr_<id>_<secret>` into its id, or `None` when the key is not of that form.
pub fn key_id(key: &str) -> Option<&str> {
    let rest = key.strip_prefix("rr_")?;
    let (id, secret) = rest.split_once('_')?;
    let id_ok = (4..=32).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let secret_ok =
        (16..=128).contains(&secret.len()) && secret.bytes().all(|b| b.is_ascii_alphanumeric());
    (id_ok && secret_ok).then_some(id)
}

/// SHA-256 (lower-case hex) of a key, as stored.
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// Compares two byte strings in time that depends only on their length.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks the request's key and that it carries `scope`.
///
/// Missing, malformed, unknown and revoked keys all answer 401 with the same message, so the
/// answer does not tell which ids exist; a valid key without the scope answers 403.
pub async fn authenticate<S: Services>(
    services: &S,
    request: &Request,
    scope: Scope,
) -> Result<Principal, ApiError> {
    let key = presented_key(request)?;
    let invalid = || unauthorized("the API key is invalid or revoked");
    let id = key_id(key).ok_or_else(invalid)?;
    let stored = find_key(services, id).await?.ok_or_else(invalid)?;
    let matches = constant_time_eq(hash_key(key).as_bytes(), stored.key_hash.as_bytes());
    if !matches || stored.revoked {
        return Err(invalid());
    }
    if !stored
        .scopes
        .split_whitespace()
        .any(|s| s == scope.as_str())
    {
        return Err(ApiError::Forbidden {
            message: format!("this API key lacks the '{}' scope", scope.as_str()),
        });
    }
    Ok(Principal {
        user_id: stored.user_id,
        key_id: stored.id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::block_on;
    use crate::host::sqlite::Sqlite;
    use crate::http::Method;

    const KEY: &str = "rr_test0001_abcdefghijklmnop0123";

    fn services() -> Sqlite {
        Sqlite::new().with_key(KEY, "alice", "context templates")
    }

    fn request(header: (&str, &str)) -> Request {
        Request::new(Method::Get, "/api/v1/context").with_header(header.0, header.1)
    }

    #[test]
    fn bearer_and_x_api_key_both_work() {
        let s = services();
        for header in [
            ("authorization", format!("Bearer {KEY}")),
            ("authorization", format!("bearer  {KEY} ")),
            ("x-api-key", KEY.to_string()),
        ] {
            let p = block_on(authenticate(
                &s,
                &request((header.0, &header.1)),
                Scope::Context,
            ));
            assert_eq!(p.unwrap().user_id, "alice");
        }
    }

    #[test]
    fn missing_malformed_unknown_wrong_and_revoked_are_401() {
        let s = services();
        let cases = [
            Request::new(Method::Get, "/x"),
            request(("authorization", "Basic abc")),
            request(("authorization", "Bearer not-a-key")),
            request(("x-api-key", "rr_nobody01_abcdefghijklmnop0123")),
            request(("x-api-key", "rr_test0001_abcdefghijklmnop9999")),
        ];
        for r in cases {
            let err = block_on(authenticate(&s, &r, Scope::Context)).unwrap_err();
            assert_eq!(err.status(), 401, "{r:?}");
        }
        s.db.execute_batch("UPDATE api_keys SET revoked_at = '2026-11-01T00:00:00Z'")
            .unwrap();
        let err = block_on(authenticate(
            &s,
            &request(("x-api-key", KEY)),
            Scope::Context,
        ));
        assert_eq!(err.unwrap_err().status(), 401);
    }

    #[test]
    fn missing_scope_is_403() {
        let s = services();
        let err = block_on(authenticate(
            &s,
            &request(("x-api-key", KEY)),
            Scope::Webhooks,
        ));
        assert_eq!(err.unwrap_err().status(), 403);
    }

    #[test]
    fn errors_never_echo_the_key() {
        let s = services();
        let r = request(("x-api-key", "rr_test0001_abcdefghijklmnop9999"));
        let err = block_on(authenticate(&s, &r, Scope::Context)).unwrap_err();
        assert!(!err.public_message().contains("abcdefgh"));
    }

    #[test]
    fn key_format() {
        assert_eq!(key_id(KEY), Some("test0001"));
        assert_eq!(key_id("rr_UPPER001_abcdefghijklmnop0123"), None);
        assert_eq!(key_id("rr_test0001_short"), None);
        assert_eq!(key_id("xx_test0001_abcdefghijklmnop0123"), None);
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
