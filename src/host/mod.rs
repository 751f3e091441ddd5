//! Running the core on the host: in-memory services and a minimal executor, for tests,
//! benchmarks and tools, and (in tests) services backed by real SQLite. Not compiled into the
//! worker.

#[cfg(test)]
pub mod sqlite;

use crate::db::{DbError, Row, Statement};
use crate::error::ApiError;
use crate::ratelimit::Shared;
use crate::services::{Outgoing, PostResult, QueueMessage, Services};
use std::cell::RefCell;

/// Services for running the core outside the Worker: a fixed clock and a log kept in memory,
/// no database (see [`sqlite`] for one).
#[derive(Debug, Default)]
pub struct HostServices {
    /// What `now_ms` answers.
    pub now: u64,
    /// Every line the core logged.
    pub logs: RefCell<Vec<String>>,
    /// What a shared limiter answers (`None`: none is bound).
    pub shared: Option<bool>,
    /// Every request counted on a shared limiter.
    pub shared_counted: RefCell<Vec<(Shared, String)>>,
}

impl Services for HostServices {
    fn now_ms(&self) -> u64 {
        self.now
    }

    fn log(&self, line: &str) {
        self.logs.borrow_mut().push(line.to_string());
    }

    /// No database here: routes that need one are tested on [`sqlite::Sqlite`] and against D1
    /// under `wrangler dev`.
    async fn query(&self, _statement: Statement) -> Result<Vec<Row>, DbError> {
        Err(DbError::Other("no database on the host".into()))
    }

    async fn batch(&self, _statements: Vec<Statement>) -> Result<(), DbError> {
        Err(DbError::Other("no database on the host".into()))
    }

    fn random_hex(&self, bytes: usize) -> Result<String, ApiError> {
        // Tests need distinct ids, not secret ones.
        let n = self.logs.borrow().len() as u64 + self.now;
        Ok(format!("{n:0width$x}", width = bytes * 2))
    }

    async fn enqueue(&self, _messages: Vec<QueueMessage>) -> Result<(), String> {
        Err("no queue on the host".into())
    }

    async fn post(&self, _request: Outgoing) -> PostResult {
        PostResult::Failed("no network on the host".into())
    }

    async fn shared_limit(&self, limiter: Shared, key: &str) -> Option<bool> {
        self.shared?;
        self.shared_counted
            .borrow_mut()
            .push((limiter, key.to_string()));
        self.shared
    }

    async fn corpus_pack(&self, path: &str) -> Result<Vec<u8>, String> {
        Err(format!("no corpus store on the host: {path}"))
    }
}

/// Runs a future to completion on the current thread. The core's futures only wait on the
/// services they are given; with [`HostServices`] they never pend, so polling in a loop with a
/// waker that does nothing is enough.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::pin::pin;
    use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
    fn noop(_: *const ()) {}
    fn clone(p: *const ()) -> RawWaker {
        RawWaker::new(p, &VTABLE)
    }
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, noop, noop, noop);
    // SAFETY: the vtable's functions never touch the (null) data pointer.
    let waker = unsafe { Waker::from_raw(RawWaker::new(std::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}
