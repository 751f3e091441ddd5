//! What a handler is given: the isolate's state, the platform, the request, the path's
//! parameters and, on keyed routes, who is calling.
//!
//! The dispatcher (`app`) builds a [`Call`] once the endpoint table has resolved the request
//! and the access rule and rate limits have passed, so a handler only reads its input and does
//! its work.

use crate::error::ApiError;
use crate::http::Request;
use crate::routes::PathParams;
use crate::services::{App, Services};
use std::cell::Cell;

/// Who is calling, once the key checked out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub user_id: String,
    pub key_id: String,
}

/// One request on its way to a handler.
pub struct Call<'a, S> {
    pub app: &'a App,
    pub services: &'a S,
    pub request: &'a Request,
    pub params: PathParams,
    /// The caller, on routes whose access rule asks for a key.
    pub who: Option<Principal>,
    /// Units the handler asked to spend in this pass, and units spent over all passes: a
    /// handler that meets an unread pack of the corpus store runs again (`app`), and spends
    /// only what the earlier passes have not.
    pub charged: Cell<(u32, u32)>,
}

impl<S: Services> Call<'_, S> {
    /// The value of the path's `{name}` segment.
    pub fn path(&self, name: &str) -> &str {
        self.params.get(name)
    }

    /// The caller of a keyed route. The table guarantees one; a handler of an open route
    /// that asks is a programming error, reported as a 500.
    pub fn who(&self) -> Result<&Principal, ApiError> {
        self.who
            .as_ref()
            .ok_or_else(|| ApiError::internal("a keyed handler was reached without a key"))
    }

    /// Starts a pass of the handler: what it asks to spend counts from nothing again, against
    /// what earlier passes spent.
    pub fn begin_pass(&self) {
        let (_, spent) = self.charged.get();
        self.charged.set((0, spent));
    }

    /// Milliseconds since the epoch, from the platform's clock.
    pub fn now_ms(&self) -> u64 {
        self.services.now_ms()
    }

    /// Spends `units` more of the caller's per-client budget (the request itself already
    /// spent one): a costly operation weighs what it costs. 429 when that many are not left,
    /// before the work is done.
    pub fn charge(&self, units: u32) -> Result<(), ApiError> {
        let (asked, spent) = self.charged.get();
        let asked = asked + units;
        self.charged.set((asked, spent));
        let units = asked.saturating_sub(spent);
        if units == 0 {
            return Ok(());
        }
        let now_secs = self.services.now_ms() / 1000;
        let decision = self
            .app
            .corpus_limiter
            .take(self.request.client_ip(), units, now_secs);
        if decision.allowed {
            self.charged.set((asked, asked));
            Ok(())
        } else {
            Err(ApiError::RateLimited {
                retry_after: decision.reset,
            })
        }
    }
}
