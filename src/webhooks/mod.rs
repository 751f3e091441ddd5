//! Webhook rules that need no platform: delivery signatures, subscription validation (with the
//! SSRF rules for subscriber URLs) and the retry schedule.
//!
//! Signing is a pure function of the secret, the message id, the time and the raw body, so each
//! attempt of a delivery carries the same signatures over byte-identical bodies, and tests pin
//! the published vectors of GitHub and Standard Webhooks.

pub mod delivery;
pub mod publish;
pub mod recovery;
pub mod retention;
pub mod seal;
pub mod subscriptions;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::net::{IpAddr, Ipv4Addr};

/// The JSON type of a field an event's `data` must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A non-blank string of at most `publish::MAX_DATA_STRING_CHARS` characters.
    Text,
    Flag,
}

/// An event type: its name, what it announces, and the fields its `data` must hold (more may
/// follow them). The catalog route, the publish check and the OpenAPI document all read this.
#[derive(Clone, Copy, Debug)]
pub struct EventSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub required: &'static [(&'static str, Field)],
}

/// Every event type, in the order subscriptions list them.
pub const EVENTS: [EventSpec; 6] = [
    EventSpec { name: "report.created", description: "A report was created (draft).", required: &[] },
    EventSpec {
        name: "report.finalized",
        description: "A report was signed off: its id, examination, status and whether it holds a critical finding.",
        required: &[
            ("report_id", Field::Text),
            ("exam_type", Field::Text),
            ("status", Field::Text),
            ("has_critical_finding", Field::Flag),
        ],
    },
    EventSpec { name: "report.sent", description: "A report was sent to its destination.", required: &[] },
    EventSpec { name: "report.updated", description: "A report was changed.", required: &[] },
    EventSpec { name: "critical_finding.detected", description: "A critical finding was flagged in a report.", required: &[] },
    EventSpec { name: "connection.status_changed", description: "A connection to another system changed its status.", required: &[] },
];

/// The event types a subscription may ask for: the names of [`EVENTS`].
pub const EVENT_TYPES: [&str; EVENTS.len()] = {
    let mut names = [""; EVENTS.len()];
    let mut i = 0;
    while i < EVENTS.len() {
        names[i] = EVENTS[i].name;
        i += 1;
    }
    names
};

/// How long the secret a rotation replaces keeps signing, by default and at most, in hours.
pub const DEFAULT_OVERLAP_HOURS: u64 = 24;
pub const MAX_OVERLAP_HOURS: u64 = 168;

/// Shortest and longest accepted secret, in characters.
pub const MIN_SECRET_CHARS: usize = 16;
pub const MAX_SECRET_CHARS: usize = 256;
/// Longest accepted subscriber URL.
pub const MAX_URL_CHARS: usize = 2048;

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

/// Checks an `X-Radref-Signature` value against a body, in constant time: during a secret
/// rotation's overlap the header holds one signature per secret, space-separated, and one
/// matching is enough.
pub fn verify_signature(secret: &[u8], body: &[u8], header: &str) -> bool {
    let expected = signature(secret, body);
    header
        .split_ascii_whitespace()
        .any(|s| crate::auth::constant_time_eq(expected.as_bytes(), s.as_bytes()))
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

/// Checks a subscriber URL and returns it normalised, as it will be fetched.
///
/// The URL is parsed by the WHATWG URL standard (the `url` crate), the standard the runtime's
/// `fetch` follows, and the host it produces is judged, so no spelling reaches a host that the
/// check did not see: IPv4 in every numeric form (`0x7f000001`, `2130706433`, `127.1`,
/// `0177.0.0.1`, percent-encoded or fullwidth digits), IPv6 with an embedded IPv4 (mapped,
/// compatible, NAT64, 6to4, Teredo), and names after IDNA mapping (`ⓛⓞⓒⓐⓛⓗⓞⓢⓣ` is
/// `localhost`). Refused: anything but https (http only to a loopback address when
/// `allow_loopback_http`, for local testing), credentials, private, loopback, link-local,
/// shared, reserved and metadata addresses, single-label names and local suffixes. Names that
/// resolve to a private address (DNS rebinding) cannot be judged here: see the README.
pub fn check_url(input: &str, allow_loopback_http: bool) -> Result<String, Invalid> {
    let field = "url";
    if input.len() > MAX_URL_CHARS || input.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid(field, "the URL is too long or contains spaces"));
    }
    let url = url::Url::parse(input)
        .map_err(|e| invalid(field, format!("not an absolute URL ({e}); use https://...")))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            field,
            "the URL must not carry credentials (user@host)",
        ));
    }
    let host = url
        .host()
        .ok_or_else(|| invalid(field, "the URL has no host"))?;
    let ip = match &host {
        url::Host::Ipv4(v4) => Some(IpAddr::V4(*v4)),
        url::Host::Ipv6(v6) => Some(IpAddr::V6(*v6)),
        url::Host::Domain(_) => None,
    };
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback_http && ip.is_some_and(|ip| ip.is_loopback()) => {
            return Ok(url.to_string())
        }
        _ => return Err(invalid(field, "the URL must use https")),
    }
    match host {
        url::Host::Domain(name) => check_name(name)?,
        _ => {
            if ip.is_some_and(is_internal) {
                return Err(invalid(
                    field,
                    "the URL must not point to a private, loopback, link-local or metadata address",
                ));
            }
        }
    }
    Ok(url.to_string())
}

/// A host name, as the URL standard leaves it (lower case, IDNA-mapped to ASCII): a public,
/// dotted name, not a local one.
fn check_name(name: &str) -> Result<(), Invalid> {
    let name = name.trim_end_matches('.');
    // The URL standard lets through characters no DNS name holds (`*`, `!`, `$`, `_`...); a
    // name that cannot resolve is refused now rather than failing every delivery later.
    let label_ok = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    if !name.split('.').all(label_ok) {
        return Err(invalid(
            "url",
            "the URL's host is not a valid DNS name (letters, digits and hyphens, dot-separated)",
        ));
    }
    if !name.contains('.') {
        return Err(invalid(
            "url",
            "the URL's host must be a public domain name (a single-label name is local)",
        ));
    }
    let local = name == "localhost"
        || [
            ".localhost",
            ".local",
            ".internal",
            ".localdomain",
            ".home.arpa",
            ".intranet",
            ".lan",
            ".corp",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix));
    if local {
        return Err(invalid(
            "url",
            "the URL must not point to a local host name",
        ));
    }
    Ok(())
}

/// Addresses a webhook must never be sent to, including IPv6 forms that carry an IPv4 address
/// a router would reach: mapped, compatible, NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`) and
/// Teredo (`2001::/32`, server and client).
fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
            let embedded: Vec<Ipv4Addr> = match s {
                // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d.
                [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => vec![v4(hi, lo)],
                // NAT64, the well-known prefix.
                [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => vec![v4(hi, lo)],
                // 6to4: the IPv4 address follows the prefix.
                [0x2002, hi, lo, ..] => vec![v4(hi, lo)],
                // Teredo: the server, and the client (obfuscated by inverting its bits).
                [0x2001, 0, shi, slo, _, _, chi, clo] => vec![v4(shi, slo), v4(!chi, !clo)],
                _ => vec![],
            };
            let first = s[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || embedded.into_iter().any(is_internal_v4)
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7 (includes fd00:ec2::254)
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (first & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
                || (first & 0xff00) == 0xff00 // multicast
                || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) // local-use NAT64 64:ff9b:1::/48
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation 2001:db8::/32
                || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard 100::/64
        }
    }
}

fn is_internal_v4(v4: Ipv4Addr) -> bool {
    let [a, b, c, _] = v4.octets();
    v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local() // includes the 169.254.169.254 metadata service
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation TEST-NET-1
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // documentation TEST-NET-3
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
    fn host_names_that_no_dns_name_can_be_are_refused() {
        for url in [
            "https://we.com*",
            "https://exa_mple.com/hook",
            "https://example!.org/",
            "https://-example.org/",
            "https://example-.org/",
            "https://a..example.org/",
        ] {
            assert!(check_url(url, false).is_err(), "{url} was accepted");
        }
        for url in [
            "https://hooks.example.org/radref",
            "https://xn--bcher-kva.example/",
            "https://b\u{fc}cher.example/",
            "https://a-b.example.org./x",
        ] {
            assert!(check_url(url, false).is_ok(), "{url} was refused");
        }
    }

    #[test]
    fn subscriber_urls_that_point_inside_are_refused_in_every_spelling() {
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
            // Numeric IPv4 forms the URL standard reads as 127.0.0.1 (or 0.0.0.0).
            "https://0x7f000001/",
            "https://2130706433/",
            "https://017700000001/",
            "https://127.1/",
            "https://0/",
            "https://0x7f.0.0.1/",
            "https://0177.0.0.1/",
            "https://127.000.000.001/",
            "https://%31%32%37.0.0.1/",
            "https://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}/",
            // Names that IDNA maps to localhost.
            "https://\u{24db}\u{24de}\u{24d2}\u{24d0}\u{24db}\u{24d7}\u{24de}\u{24e2}\u{24e3}/",
            "https://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
            "https://local\u{ad}host/",
            // A backslash ends the host in a special URL.
            "https://127.0.0.1\\.good.com/",
            // IPv6 that embeds a forbidden IPv4, and zone ids.
            "https://[::127.0.0.1]/",
            "https://[64:ff9b::a9fe:a9fe]/",
            "https://[2002:7f00:1::]/",
            "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
            "https://[fe80::1%25eth0]/",
            // Single-label names, and ports out of range.
            "https://metadata/",
            "https://intranet/",
            "https://example.org:99999/",
            "https://example.org:-1/",
        ] {
            assert!(check_url(url, false).is_err(), "{url} should be refused");
        }
    }

    #[test]
    fn public_subscriber_urls_are_accepted_and_normalised() {
        for (url, normalised) in [
            ("https://example.org/hook", "https://example.org/hook"),
            ("https://EXAMPLE.org:443/hook", "https://example.org/hook"),
            (
                "https://hooks.example.org:8443/radref?x=1",
                "https://hooks.example.org:8443/radref?x=1",
            ),
            ("https://93.184.216.34/hook", "https://93.184.216.34/hook"),
            (
                "https://[2606:4700::1111]/hook",
                "https://[2606:4700::1111]/hook",
            ),
            (
                "https://b\u{fc}cher.example/",
                "https://xn--bcher-kva.example/",
            ),
        ] {
            assert_eq!(check_url(url, false).as_deref(), Ok(normalised), "{url}");
        }
        // Local testing: plain http to a loopback address only, and only when allowed.
        assert_eq!(
            check_url("http://127.0.0.1:9000/hook", true).as_deref(),
            Ok("http://127.0.0.1:9000/hook")
        );
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
