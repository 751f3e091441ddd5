//! Services on real SQLite (the engine under D1), for host tests of everything that stores.
//!
//! The schema is `migrations/`, applied in order as wrangler applies it, so a new migration
//! reaches the host tests without a list to keep. The clock, ids, the queue and outgoing posts
//! are scripted: a test moves time, makes the queue refuse, and says what each subscriber
//! answers.

use crate::auth::hash_key;
use crate::db::{DbError, Row, SqlValue, Statement};
use crate::error::ApiError;
use crate::ratelimit::Shared;
use crate::services::{Outgoing, PostResult, QueueMessage, Services};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// An in-memory SQLite database with every migration applied, and scripted platform parts.
pub struct Sqlite {
    pub db: rusqlite::Connection,
    pub now: Cell<u64>,
    counter: Cell<u64>,
    /// Messages sent to the deliveries queue and not yet taken.
    pub queued: RefCell<Vec<QueueMessage>>,
    /// When set, the queue refuses every send.
    pub refuse_queue: Cell<bool>,
    /// Every outgoing POST, in order.
    pub posts: RefCell<Vec<Outgoing>>,
    /// What the next posts are answered (200 when empty).
    pub answers: RefCell<VecDeque<PostResult>>,
    pub logs: RefCell<Vec<String>>,
}

fn to_sql(v: &SqlValue) -> rusqlite::types::Value {
    match v {
        SqlValue::Null => rusqlite::types::Value::Null,
        SqlValue::Int(n) => rusqlite::types::Value::Integer(*n),
        SqlValue::Text(t) => rusqlite::types::Value::Text(t.clone()),
    }
}

/// D1 reports a unique violation by its text; so does SQLite.
fn classify(e: rusqlite::Error) -> DbError {
    let text = e.to_string();
    if text.contains("UNIQUE constraint failed") || text.contains("PRIMARY KEY constraint failed") {
        DbError::Unique
    } else {
        DbError::Other(text)
    }
}

/// The migrations, in file-name order.
fn migrations() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("migrations/ is readable")
        .map(|e| e.expect("a migrations/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("a migration is readable"))
        .collect()
}

impl Default for Sqlite {
    fn default() -> Sqlite {
        Sqlite::new()
    }
}

impl Sqlite {
    /// A fresh database with every migration applied, at a fixed time.
    pub fn new() -> Sqlite {
        let db = rusqlite::Connection::open_in_memory().expect("in-memory SQLite");
        db.execute_batch("PRAGMA foreign_keys = ON;")
            .expect("foreign keys");
        for sql in migrations() {
            db.execute_batch(&sql).expect("a migration applies");
        }
        Sqlite {
            db,
            now: Cell::new(1_790_000_000_000),
            counter: Cell::new(0),
            queued: RefCell::default(),
            refuse_queue: Cell::new(false),
            posts: RefCell::default(),
            answers: RefCell::default(),
            logs: RefCell::default(),
        }
    }

    /// Stores a user and an API key (`rr_<id>_<secret>`) with the given scopes.
    pub fn with_key(self, key: &str, user: &str, scopes: &str) -> Sqlite {
        let id = crate::auth::key_id(key).expect("a well-formed test key");
        self.db
            .execute(
                "INSERT OR IGNORE INTO users VALUES (?1, ?1, '2026-01-01T00:00:00Z')",
                [user],
            )
            .expect("user");
        self.db
            .execute(
                "INSERT INTO api_keys VALUES (?1, ?2, 'k', ?3, ?4, '2026-01-01T00:00:00Z', NULL)",
                [id, user, &hash_key(key), scopes],
            )
            .expect("key");
        self
    }

    /// Moves the clock forward.
    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
    }

    /// The single integer a query answers.
    pub fn scalar(&self, sql: &str) -> i64 {
        self.db
            .query_row(sql, [], |r| r.get(0))
            .expect("a scalar query")
    }
}

impl Services for Sqlite {
    fn now_ms(&self) -> u64 {
        self.now.get()
    }

    fn log(&self, line: &str) {
        self.logs.borrow_mut().push(line.to_string());
    }

    async fn query(&self, statement: Statement) -> Result<Vec<Row>, DbError> {
        let mut stmt = self.db.prepare(&statement.sql).map_err(classify)?;
        let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        let params: Vec<rusqlite::types::Value> = statement.params.iter().map(to_sql).collect();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(classify)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(classify)? {
            let mut map = Row::new();
            for (i, name) in names.iter().enumerate() {
                let v = match row.get::<_, rusqlite::types::Value>(i).map_err(classify)? {
                    rusqlite::types::Value::Null => Value::Null,
                    rusqlite::types::Value::Integer(n) => json!(n),
                    rusqlite::types::Value::Real(f) => json!(f),
                    rusqlite::types::Value::Text(t) => json!(t),
                    rusqlite::types::Value::Blob(_) => Value::Null,
                };
                map.insert(name.clone(), v);
            }
            out.push(map);
        }
        Ok(out)
    }

    async fn batch(&self, statements: Vec<Statement>) -> Result<(), DbError> {
        self.db.execute_batch("BEGIN").map_err(classify)?;
        for s in &statements {
            let params: Vec<rusqlite::types::Value> = s.params.iter().map(to_sql).collect();
            let result = self.db.prepare(&s.sql).and_then(|mut stmt| {
                for (i, p) in params.iter().enumerate() {
                    stmt.raw_bind_parameter(i + 1, p)?;
                }
                stmt.raw_execute()
            });
            if let Err(e) = result {
                self.db.execute_batch("ROLLBACK").map_err(classify)?;
                return Err(classify(e));
            }
        }
        self.db.execute_batch("COMMIT").map_err(classify)?;
        Ok(())
    }

    fn random_hex(&self, bytes: usize) -> Result<String, ApiError> {
        self.counter.set(self.counter.get() + 1);
        Ok(format!(
            "{:0width$x}",
            self.counter.get(),
            width = bytes * 2
        ))
    }

    async fn enqueue(&self, messages: Vec<QueueMessage>) -> Result<(), String> {
        if self.refuse_queue.get() {
            return Err("queue refused".into());
        }
        self.queued.borrow_mut().extend(messages);
        Ok(())
    }

    async fn post(&self, request: Outgoing) -> PostResult {
        self.posts.borrow_mut().push(request);
        self.advance(12);
        self.answers
            .borrow_mut()
            .pop_front()
            .unwrap_or(PostResult::Status(200))
    }

    /// No shared limiter is bound here: the isolate's counters decide.
    async fn shared_limit(&self, _limiter: Shared, _key: &str) -> Option<bool> {
        None
    }

    /// Host builds keep the bodies in the bundle: nothing asks.
    async fn corpus_pack(&self, path: &str) -> Result<Vec<u8>, String> {
        Err(format!("no corpus store on the host: {path}"))
    }
}
