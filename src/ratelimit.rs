//! Rate limits, on two levels.
//!
//! - [`RateLimiter`]: a fixed-window request counter per client, kept in the isolate's memory.
//!   It answers at once and knows what is left, so it gives the `X-RateLimit-*` headers; its
//!   counts are this isolate's. The clock is passed in, so the rules are testable on the host.
//! - [`Shared`]: the platform's limiters (the Workers Rate Limiting binding), counted across
//!   the worker's isolates in a Cloudflare location. Where one is bound (deployed, and
//!   `wrangler dev`), a request the isolate allows is also counted there, and refused when the
//!   location's count is over; where none is (the host tests, the plain-workerd benchmark) the
//!   isolate's counter alone decides. The binding answers yes or no, nothing more.

use std::cell::RefCell;
use std::collections::HashMap;

/// Above this many tracked clients, expired windows are dropped before counting.
const MAX_TRACKED: usize = 10_000;

/// A limiter shared by the isolates of a location: a Workers Rate Limiting binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// The open corpus routes, per client address (the binding `CORPUS_LIMITER`).
    Corpus,
    /// The keyed routes, per API key (the binding `KEY_LIMITER`).
    Key,
}

impl Shared {
    /// Every shared limiter.
    pub const ALL: [Shared; 2] = [Shared::Corpus, Shared::Key];
    /// The longest period a binding may count over (it allows 10 or 60 seconds): what a client
    /// refused by one is told to wait, at most.
    pub const MAX_PERIOD_SECS: u64 = 60;

    /// The binding's name in `wrangler.toml`.
    pub fn binding(self) -> &'static str {
        match self {
            Shared::Corpus => "CORPUS_LIMITER",
            Shared::Key => "KEY_LIMITER",
        }
    }

    /// The verdict when the shared limiter refuses a request the isolate allowed: nothing left,
    /// and the binding's longest period to wait.
    pub fn refused(limit: u32) -> Decision {
        Decision {
            allowed: false,
            limit,
            remaining: 0,
            reset: Shared::MAX_PERIOD_SECS,
        }
    }
}

/// The verdict on one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the window resets.
    pub reset: u64,
}

/// Fixed-window counters keyed by client.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    window_secs: u64,
    windows: RefCell<HashMap<String, (u64, u32)>>,
}

impl RateLimiter {
    /// `limit` requests per `window_secs` seconds per key.
    pub fn new(limit: u32, window_secs: u64) -> RateLimiter {
        RateLimiter {
            limit,
            window_secs: window_secs.max(1),
            windows: RefCell::new(HashMap::new()),
        }
    }

    /// Counts a request of `key` at `now_secs` and decides whether it may proceed.
    pub fn check(&self, key: &str, now_secs: u64) -> Decision {
        self.take(key, 1, now_secs)
    }

    /// The state of `key`'s budget at `now_secs`, counting nothing.
    pub fn peek(&self, key: &str, now_secs: u64) -> Decision {
        self.take(key, 0, now_secs)
    }

    /// Spends `units` of `key`'s budget at `now_secs` if that many are left (a costly request
    /// weighs more than one); otherwise spends nothing and refuses.
    pub fn take(&self, key: &str, units: u32, now_secs: u64) -> Decision {
        let window = now_secs / self.window_secs * self.window_secs;
        let reset = window + self.window_secs - now_secs;
        let mut windows = self.windows.borrow_mut();
        if windows.len() > MAX_TRACKED {
            windows.retain(|_, (start, _)| *start == window);
        }
        let entry = windows.entry(key.to_string()).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        let allowed = if units == 0 {
            entry.1 < self.limit
        } else {
            entry.1.saturating_add(units) <= self.limit
        };
        if allowed {
            entry.1 = entry.1.saturating_add(units);
        }
        Decision {
            allowed,
            limit: self.limit,
            remaining: self.limit - entry.1.min(self.limit),
            reset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_then_refuses_then_resets() {
        let rl = RateLimiter::new(2, 60);
        let a = rl.check("1.2.3.4", 120);
        assert!(a.allowed);
        assert_eq!(a.remaining, 1);
        assert_eq!(a.reset, 60);
        assert!(rl.check("1.2.3.4", 130).allowed);
        let c = rl.check("1.2.3.4", 150);
        assert!(!c.allowed);
        assert_eq!(c.remaining, 0);
        assert_eq!(c.reset, 30);
        assert!(rl.check("5.6.7.8", 150).allowed, "keys are independent");
        assert!(rl.check("1.2.3.4", 180).allowed, "a new window starts");
    }

    #[test]
    fn a_costly_request_spends_several_units_or_none() {
        let rl = RateLimiter::new(10, 60);
        assert_eq!(rl.take("ip", 8, 0).remaining, 2);
        let refused = rl.take("ip", 3, 1);
        assert!(!refused.allowed);
        assert_eq!(refused.remaining, 2, "a refused request spends nothing");
        assert!(rl.peek("ip", 2).allowed);
        assert_eq!(rl.peek("ip", 2).remaining, 2, "peeking spends nothing");
        assert!(rl.take("ip", 2, 3).allowed);
        assert!(!rl.peek("ip", 4).allowed, "spent");
        assert!(!rl.check("ip", 5).allowed);
    }
}
