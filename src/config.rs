//! Runtime configuration, read from the Worker's `[vars]` once per isolate.
//!
//! Every value has a safe default, so a missing variable never breaks a request. Tests and
//! `make dev` override some of them (for example a low rate limit) through wrangler's `--var`.

/// The environment `make test` runs in: only there does the platform answer its test hooks
/// (a panic on purpose, to show that the next request gets a fresh instance).
pub const TEST_ENVIRONMENT: &str = "test";

/// The service's tunable settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Name of the deployment (`production`, `development`, `test`), shown in health.
    pub environment: String,
    /// Corpus requests allowed per client IP per window (`CORPUS_RATE_LIMIT`).
    pub corpus_rate_limit: u32,
    /// The rate-limit window in seconds (`CORPUS_RATE_WINDOW`).
    pub corpus_rate_window: u64,
    /// Template and webhook requests allowed per API key per window (`KEY_RATE_LIMIT`).
    pub key_rate_limit: u32,
    /// That window, in seconds (`KEY_RATE_WINDOW`).
    pub key_rate_window: u64,
    /// Failed key checks (401 and 403) allowed per client IP per window
    /// (`AUTH_FAILURE_LIMIT`); beyond it keyed routes answer 429 without looking the key up.
    pub auth_failure_limit: u32,
    /// That window, in seconds (`AUTH_FAILURE_WINDOW`).
    pub auth_failure_window: u64,
    /// Whether webhook URLs may be plain http to a loopback address (`ALLOW_HTTP_LOOPBACK`,
    /// `true` or `false`): on for `make dev` and the tests, off in the deployed configuration.
    pub allow_http_loopback: bool,
    /// Seconds before webhook attempts 2, 3, 4 and 5 (`WEBHOOK_RETRY_DELAYS`, four
    /// comma-separated numbers); attempt 1 is immediate.
    pub retry_delays: [u32; 4],
    /// The key that seals webhook secrets (`WEBHOOK_SECRET_KEY`, 64 hex digits, a Worker
    /// secret). Without it webhook routes answer 503.
    pub webhook_key: Option<SecretKey>,
    /// Days finished webhook deliveries, their attempts and their events are kept
    /// (`WEBHOOK_RETENTION_DAYS`, 1 to 3650); a daily sweep deletes older ones.
    pub retention_days: u32,
}

/// A 256-bit key whose `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretKey(pub [u8; 32]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}

impl SecretKey {
    /// A key from 64 hex digits.
    pub fn from_hex(text: &str) -> Option<SecretKey> {
        let bytes = hex::decode(text.trim()).ok()?;
        bytes.try_into().ok().map(SecretKey)
    }
}

/// The interface's retry schedule: 1 minute, 5 minutes, 30 minutes, 2 hours.
pub const DEFAULT_RETRY_DELAYS: [u32; 4] = [60, 300, 1800, 7200];
/// The longest delay a Cloudflare Queue accepts, in seconds (12 hours).
pub const MAX_QUEUE_DELAY: u32 = 43_200;

impl Default for Config {
    fn default() -> Config {
        Config {
            environment: "production".to_string(),
            corpus_rate_limit: 300,
            corpus_rate_window: 60,
            key_rate_limit: 120,
            key_rate_window: 60,
            auth_failure_limit: 20,
            auth_failure_window: 300,
            allow_http_loopback: false,
            retry_delays: DEFAULT_RETRY_DELAYS,
            webhook_key: None,
            retention_days: 30,
        }
    }
}

impl Config {
    /// Builds the configuration from a variable lookup (the Worker's `env.var`).
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Config {
        let defaults = Config::default();
        Config {
            environment: lookup("ENVIRONMENT")
                .filter(|v| !v.trim().is_empty())
                .unwrap_or(defaults.environment),
            corpus_rate_limit: number(&lookup, "CORPUS_RATE_LIMIT", 1, 1_000_000)
                .unwrap_or(defaults.corpus_rate_limit as u64) as u32,
            corpus_rate_window: number(&lookup, "CORPUS_RATE_WINDOW", 1, 86_400)
                .unwrap_or(defaults.corpus_rate_window),
            key_rate_limit: number(&lookup, "KEY_RATE_LIMIT", 1, 1_000_000)
                .unwrap_or(defaults.key_rate_limit as u64) as u32,
            key_rate_window: number(&lookup, "KEY_RATE_WINDOW", 1, 86_400)
                .unwrap_or(defaults.key_rate_window),
            auth_failure_limit: number(&lookup, "AUTH_FAILURE_LIMIT", 1, 1_000_000)
                .unwrap_or(defaults.auth_failure_limit as u64)
                as u32,
            auth_failure_window: number(&lookup, "AUTH_FAILURE_WINDOW", 1, 86_400)
                .unwrap_or(defaults.auth_failure_window),
            allow_http_loopback: lookup("ALLOW_HTTP_LOOPBACK")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
            retry_delays: lookup("WEBHOOK_RETRY_DELAYS")
                .and_then(|v| retry_delays(&v))
                .unwrap_or(defaults.retry_delays),
            webhook_key: lookup("WEBHOOK_SECRET_KEY").and_then(|v| SecretKey::from_hex(&v)),
            retention_days: number(&lookup, "WEBHOOK_RETENTION_DAYS", 1, 3650)
                .map_or(defaults.retention_days, |d| d as u32),
        }
    }
}

/// Four delays in seconds, each at most the queue's longest delay.
fn retry_delays(text: &str) -> Option<[u32; 4]> {
    let delays = text
        .split(',')
        .map(|part| {
            part.trim()
                .parse::<u32>()
                .ok()
                .filter(|d| *d <= MAX_QUEUE_DELAY)
        })
        .collect::<Option<Vec<u32>>>()?;
    delays.try_into().ok()
}

/// A numeric variable within bounds; anything else falls back to the default.
fn number(lookup: &impl Fn(&str) -> Option<String>, name: &str, min: u64, max: u64) -> Option<u64> {
    lookup(name)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| (min..=max).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_vars_fall_back_to_defaults() {
        assert_eq!(Config::from_vars(|_| None), Config::default());
    }

    #[test]
    fn vars_override_defaults() {
        let c = Config::from_vars(|k| (k == "ENVIRONMENT").then(|| "test".to_string()));
        assert_eq!(c.environment, "test");
    }

    #[test]
    fn out_of_range_numbers_fall_back() {
        let c = Config::from_vars(|k| match k {
            "CORPUS_RATE_LIMIT" => Some("0".into()),
            "CORPUS_RATE_WINDOW" => Some("30".into()),
            _ => None,
        });
        assert_eq!(c.corpus_rate_limit, 300);
        assert_eq!(c.corpus_rate_window, 30);
    }

    #[test]
    fn webhook_settings() {
        let c = Config::from_vars(|k| match k {
            "WEBHOOK_RETRY_DELAYS" => Some("1, 2,3,4".into()),
            "ALLOW_HTTP_LOOPBACK" => Some("true".into()),
            "WEBHOOK_SECRET_KEY" => Some("ab".repeat(32)),
            _ => None,
        });
        assert_eq!(c.retry_delays, [1, 2, 3, 4]);
        assert!(c.allow_http_loopback);
        assert_eq!(c.webhook_key, Some(SecretKey([0xab; 32])));
        assert!(!format!("{c:?}").contains("ab, ab") && !format!("{c:?}").contains("171"));
        for bad in ["1,2,3", "1,2,3,4,5", "1,2,x,4", "1,2,3,50000"] {
            let c = Config::from_vars(|k| (k == "WEBHOOK_RETRY_DELAYS").then(|| bad.to_string()));
            assert_eq!(c.retry_delays, DEFAULT_RETRY_DELAYS, "{bad}");
        }
        let c = Config::from_vars(|k| (k == "WEBHOOK_SECRET_KEY").then(|| "abcd".to_string()));
        assert_eq!(c.webhook_key, None, "a short key is no key");
    }
}
