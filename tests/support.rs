//! Shared client helpers for the integration tests.

use std::time::Duration;

/// The base URL of the worker under test.
pub fn base_url() -> String {
    std::env::var("RADREF_BASE_URL")
        .expect("RADREF_BASE_URL is not set: run the integration tests through `make test`")
        .trim_end_matches('/')
        .to_string()
}

/// The published slugs of `corpus/slugs.txt`, in registry order.
pub fn published_slugs() -> Vec<&'static str> {
    include_str!("../corpus/slugs.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// An HTTP agent that never follows redirects and reports every status as a response.
pub fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(30))
        .redirects(0)
        .build()
}

/// A response reduced to what the tests look at.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    /// A header's value, looked up case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }
}

/// Sends a request to `path` on the worker; `body` is sent as is when given.
pub fn send(method: &str, path: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Reply {
    let url = format!("{}{}", base_url(), path);
    let mut request = agent().request(method, &url);
    // Each request comes from its own client address unless the test names one, so the
    // per-IP rate limit (set low by `make test`) only bites the test that is about it.
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("cf-connecting-ip"))
    {
        request = request.set("CF-Connecting-IP", &fresh_ip());
    }
    for (name, value) in headers {
        request = request.set(name, value);
    }
    let result = match body {
        Some(bytes) => request.send_bytes(bytes),
        None => request.call(),
    };
    let response = match result {
        Ok(response) => response,
        Err(ureq::Error::Status(_, response)) => response,
        Err(err) => panic!("{method} {url}: {err}"),
    };
    let status = response.status();
    let headers = response
        .headers_names()
        .into_iter()
        .filter_map(|name| {
            response
                .header(&name)
                .map(|value| (name.clone(), value.to_string()))
        })
        .collect();
    let body = response.into_string().unwrap_or_default();
    Reply {
        status,
        headers,
        body,
    }
}

/// A client address no other request of this run uses.
pub fn fresh_ip() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed) + std::process::id() % 1000 * 4096;
    format!("198.18.{}.{}", (n >> 8) & 0xff, n & 0xff)
}

/// `GET path`.
pub fn get(path: &str) -> Reply {
    send("GET", path, &[], None)
}

/// A name unique to this run, so reruns against one database do not collide.
pub fn unique(label: &str) -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let n = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{label} {}", n % 1_000_000_000)
}
