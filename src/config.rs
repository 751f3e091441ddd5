//! Runtime configuration, read from the Worker's `[vars]` once per isolate.
//!
//! Every value has a safe default, so a missing variable never breaks a request. Tests and
//! `make dev` override some of them (for example a low rate limit) through wrangler's `--var`.

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
}

impl Default for Config {
    fn default() -> Config {
        Config {
            environment: "production".to_string(),
            corpus_rate_limit: 300,
            corpus_rate_window: 60,
            key_rate_limit: 120,
            key_rate_window: 60,
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
        }
    }
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
}
