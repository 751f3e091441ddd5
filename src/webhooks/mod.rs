//! Webhook rules that need no platform: delivery signatures, subscription validation (with the
//! SSRF rules for subscriber URLs) and the retry schedule.
//!
//! Signing is a pure function of the secret, the message id, the time and the raw body, so each
//! attempt of a delivery carries the same signatures over byte-identical bodies, and tests pin
//! the published vectors of GitHub and Standard Webhooks.

pub mod delivery;
pub mod publish;
pub mod retention;
pub mod seal;
pub mod subscriptions;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The event types a subscription may ask for.
pub const EVENT_TYPES: [&str; 6] = [
    "report.created",
    "report.finalized",
    "report.sent",
    "report.updated",
    "critical_finding.detected",
    "connection.status_changed",
];

/// Shortest and longest accepted secret, in characters.
pub const MIN_SECRET_CHARS: usize = 16;
pub const MAX_SECRET_CHARS: usize = 256;
/// Longest accepted subscriber URL.
pub const MAX_URL_CHARS: usize = 2048;

/// Largest body of a subscription write or an event, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Longest `Idempotency-Key` of a publish, in characters.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// Attempts per delivery. After the last one fails the subscription becomes inactive.
pub const MAX_ATTEMPTS: u32 = 5;

fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// `X-Radref-Signature`: `sha256=` and the lower-case hex HMAC-SHA256 of the raw body, keyed
/// with the subscription's secret.
pub fn signature(secret: &[u8], body: &[u8]) -> String {
    format!("sha256={}", hex::encode(hmac_sha256(secret, &[body])))
}

/// Checks an `X-Radref-Signature` value against a body, in constant time.
pub fn verify_signature(secret: &[u8], body: &[u8], header: &str) -> bool {
    crate::auth::constant_time_eq(signature(secret, body).as_bytes(), header.trim().as_bytes())
}

/// The Standard Webhooks `webhook-signature` value: `v1,` and the base64 HMAC-SHA256 of
/// `{id}.{timestamp}.{body}`, keyed with `key` (radref uses the secret's bytes as the key).
pub fn standard_signature(key: &[u8], id: &str, timestamp: u64, body: &[u8]) -> String {
    let ts = timestamp.to_string();
    let mac = hmac_sha256(key, &[id.as_bytes(), b".", ts.as_bytes(), b".", body]);
    format!("v1,{}", base64(&mac))
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Why a subscription request was refused: the field and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub field: &'static str,
    pub reason: String,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> Invalid {
    Invalid {
        field,
        reason: reason.into(),
    }
}

/// Checks a subscriber URL: https only (http only to a loopback address when
/// `allow_loopback_http`, for local testing), no credentials, and no host that points inside:
/// no private, loopback, link-local, unspecified, shared or metadata address literal and no
/// `localhost`/`.local`/`.internal` name.
pub fn check_url(url: &str, allow_loopback_http: bool) -> Result<(), Invalid> {
    let field = "url";
    if url.len() > MAX_URL_CHARS || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid(field, "the URL is too long or contains spaces"));
    }
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| invalid(field, "the URL must be absolute (https://...)"))?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err(invalid(
            field,
            "the URL must not carry credentials (user@host)",
        ));
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6
            .split_once(']')
            .map(|(h, _)| h)
            .ok_or_else(|| invalid(field, "malformed IPv6 host"))?,
        None => authority.rsplit_once(':').map_or(authority, |(h, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                authority
            }
        }),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return Err(invalid(field, "the URL has no host"));
    }
    let ip: Option<IpAddr> = host.parse().ok();
    let loopback = ip.is_some_and(|ip| ip.is_loopback());
    match scheme.as_str() {
        "https" => {}
        "http" if allow_loopback_http && loopback => return Ok(()),
        "http" => return Err(invalid(field, "the URL must use https")),
        _ => return Err(invalid(field, "the URL must use https")),
    }
    if host == "localhost"
        || [
            ".localhost",
            ".local",
            ".internal",
            ".localdomain",
            ".home.arpa",
        ]
        .iter()
        .any(|suffix| host.ends_with(suffix))
    {
        return Err(invalid(
            field,
            "the URL must not point to a local host name",
        ));
    }
    if let Some(ip) = ip {
        if is_internal(ip) {
            return Err(invalid(
                field,
                "the URL must not point to a private, loopback, link-local or metadata address",
            ));
        }
    }
    Ok(())
}

/// Addresses a webhook must never be sent to.
fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal_v4(v4);
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7 (includes fd00:ec2::254)
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (first & 0xff00) == 0xff00 // multicast
                || v6 == Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0) // NAT64 prefix itself
        }
    }
}

fn is_internal_v4(v4: Ipv4Addr) -> bool {
    let [a, b, _, _] = v4.octets();
    v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local() // includes the 169.254.169.254 metadata service
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space 100.64.0.0/10
        || (a == 192 && b == 0 && v4.octets()[2] == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

/// Checks the events of a subscription: non-empty, each a known type; duplicates dropped.
pub fn check_events(events: &[String]) -> Result<Vec<String>, Invalid> {
    if events.is_empty() {
        return Err(invalid("events", "at least one event type is required"));
    }
    let mut out: Vec<String> = Vec::new();
    for e in events {
        if !EVENT_TYPES.contains(&e.as_str()) {
            return Err(invalid(
                "events",
                format!(
                    "unknown event type '{e}'; known: {}",
                    EVENT_TYPES.join(", ")
                ),
            ));
        }
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    Ok(out)
}

/// Checks a signing secret's length.
pub fn check_secret(secret: &str) -> Result<(), Invalid> {
    let n = secret.chars().count();
    if !(MIN_SECRET_CHARS..=MAX_SECRET_CHARS).contains(&n) {
        return Err(invalid(
            "secret",
            format!("the secret must be {MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters"),
        ));
    }
    Ok(())
}

/// What happens after attempt `attempt` (1-based) failed: the delay before the next attempt in
/// seconds, from `delays` (before attempts 2 to 5; the configured schedule), or `None` when that
/// was the last one and the subscription becomes inactive.
pub fn next_delay(delays: &[u32; 4], attempt: u32) -> Option<u32> {
    if attempt == 0 || attempt >= MAX_ATTEMPTS {
        return None;
    }
    delays.get(attempt as usize - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_published_vector() {
        // docs.github.com, "Validating webhook deliveries".
        let sig = signature(b"It's a Secret to Everybody", b"Hello, World!");
        assert_eq!(
            sig,
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
        assert!(verify_signature(
            b"It's a Secret to Everybody",
            b"Hello, World!",
            &sig
        ));
        assert!(!verify_signature(
            b"It's a Secret to Everybody",
            b"Hello, World?",
            &sig
        ));
        assert!(!verify_signature(b"another secret", b"Hello, World!", &sig));
    }

    #[test]
    fn standard_webhooks_published_vector() {
        // The Standard Webhooks specification's example: the key is the base64-decoded part of
        // "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".
        let key = [
            0x31, 0xf2, 0x90, 0xf6, 0xbf, 0x06, 0x29, 0x8a, 0xab, 0x4f, 0x08, 0xd4, 0x3c, 0x3f,
            0x08, 0x2c, 0xf6, 0x48, 0xa3, 0x62, 0xda, 0x2d, 0xa4, 0xb0,
        ];
        assert_eq!(
            standard_signature(
                &key,
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                br#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn base64_matches_rfc4648() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    #[test]
    fn subscriber_urls_that_point_inside_are_refused() {
        for url in [
            "http://example.org/hook",
            "ftp://example.org/hook",
            "example.org/hook",
            "https://user:pass@example.org/hook",
            "https://localhost/hook",
            "https://api.localhost/hook",
            "https://printer.local/hook",
            "https://metadata.google.internal/computeMetadata",
            "https://127.0.0.1/hook",
            "https://10.1.2.3/hook",
            "https://172.16.0.1/hook",
            "https://192.168.1.1:8443/hook",
            "https://169.254.169.254/latest/meta-data",
            "https://0.0.0.0/hook",
            "https://100.64.0.1/hook",
            "https://[::1]/hook",
            "https://[fe80::1]/hook",
            "https://[fd00:ec2::254]/hook",
            "https://[::ffff:10.0.0.1]/hook",
            "https://exa mple.org/hook",
            "http://127.0.0.1:9000/hook",
        ] {
            assert!(check_url(url, false).is_err(), "{url} should be refused");
        }
        for url in [
            "https://example.org/hook",
            "https://hooks.example.org:8443/radref?x=1",
            "https://93.184.216.34/hook",
            "https://[2606:4700::1111]/hook",
        ] {
            assert_eq!(check_url(url, false), Ok(()), "{url}");
        }
        // Local testing: plain http to a loopback address only, and only when allowed.
        assert_eq!(check_url("http://127.0.0.1:9000/hook", true), Ok(()));
        assert!(check_url("http://10.0.0.1:9000/hook", true).is_err());
        assert!(check_url("http://localhost:9000/hook", true).is_err());
    }

    #[test]
    fn events_and_secrets() {
        assert!(check_events(&[]).is_err());
        assert!(check_events(&["report.deleted".into()]).is_err());
        assert_eq!(
            check_events(&["report.sent".into(), "report.sent".into()]).unwrap(),
            vec!["report.sent"]
        );
        assert!(check_secret("short").is_err());
        assert!(check_secret("sixteen-chars-ok").is_ok());
    }

    #[test]
    fn retry_schedule_is_the_interfaces() {
        let delays = crate::config::DEFAULT_RETRY_DELAYS;
        assert_eq!(next_delay(&delays, 1), Some(60));
        assert_eq!(next_delay(&delays, 2), Some(300));
        assert_eq!(next_delay(&delays, 3), Some(1800));
        assert_eq!(next_delay(&delays, 4), Some(7200));
        assert_eq!(
            next_delay(&delays, 5),
            None,
            "after the fifth failure: inactive"
        );
        assert_eq!(next_delay(&[1, 2, 3, 4], 2), Some(2));
    }
}
