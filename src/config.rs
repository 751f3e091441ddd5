//! Runtime configuration, read from the Worker's `[vars]` once per isolate.
//!
//! Every value has a safe default, so a missing variable never breaks a request. Tests and
//! `make dev` override some of them (for example a low rate limit) through wrangler's `--var`.

/// The service's tunable settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Name of the deployment (`production`, `development`, `test`), shown in health.
    pub environment: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            environment: "production".to_string(),
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
        }
    }
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
}
