//! Sealing subscription secrets: XChaCha20-Poly1305 under the key of the `WEBHOOK_SECRET_KEY`
//! Worker secret, with a random 192-bit nonce and the subscription's id as associated data, so
//! a sealed secret copied onto another row does not open.
//!
//! Stored form: `v1.<nonce hex>.<ciphertext and tag hex>`.

use crate::config::SecretKey;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

const VERSION: &str = "v1";

/// Seals `secret` for the subscription `id`. `nonce_hex` is 24 random bytes, hex-encoded.
pub fn seal(key: &SecretKey, id: &str, secret: &str, nonce_hex: &str) -> Option<String> {
    let nonce = hex::decode(nonce_hex).ok().filter(|n| n.len() == 24)?;
    let cipher = XChaCha20Poly1305::new((&key.0).into());
    let sealed = cipher
        .encrypt(
            XNonce::from_slice(&nonce),
            Payload {
                msg: secret.as_bytes(),
                aad: id.as_bytes(),
            },
        )
        .ok()?;
    Some(format!("{VERSION}.{nonce_hex}.{}", hex::encode(sealed)))
}

/// Opens a sealed secret of the subscription `id`; `None` if it was not sealed for this id
/// under this key.
pub fn open(key: &SecretKey, id: &str, stored: &str) -> Option<String> {
    let mut parts = stored.split('.');
    let (Some(VERSION), Some(nonce), Some(sealed), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let nonce = hex::decode(nonce).ok().filter(|n| n.len() == 24)?;
    let sealed = hex::decode(sealed).ok()?;
    let cipher = XChaCha20Poly1305::new((&key.0).into());
    let plain = cipher
        .decrypt(
            XNonce::from_slice(&nonce),
            Payload {
                msg: &sealed,
                aad: id.as_bytes(),
            },
        )
        .ok()?;
    String::from_utf8(plain).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONCE: &str = "000102030405060708090a0b0c0d0e0f1011121314151617";

    #[test]
    fn round_trip_and_binding() {
        let key = SecretKey([7; 32]);
        let sealed = seal(&key, "wh_1", "a-signing-secret-of-subscriber", NONCE).unwrap();
        assert!(sealed.starts_with("v1."));
        assert!(!sealed.contains("signing"), "the secret is not readable");
        assert_eq!(
            open(&key, "wh_1", &sealed).as_deref(),
            Some("a-signing-secret-of-subscriber")
        );
        assert_eq!(
            open(&key, "wh_2", &sealed),
            None,
            "bound to its subscription"
        );
        assert_eq!(
            open(&SecretKey([8; 32]), "wh_1", &sealed),
            None,
            "wrong key"
        );
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push(if sealed.ends_with('0') { '1' } else { '0' });
        assert_eq!(open(&key, "wh_1", &tampered), None, "tag checked");
        assert_eq!(open(&key, "wh_1", "plain-secret"), None);
    }

    #[test]
    fn published_xchacha20poly1305_vector() {
        // draft-irtf-cfrg-xchacha, appendix A.3.1 (AEAD_XChaCha20_Poly1305).
        let key: Vec<u8> = (0x80u8..0xa0).collect();
        let key = SecretKey(key.try_into().unwrap());
        let nonce = "404142434445464748494a4b4c4d4e4f5051525354555657";
        let aad = hex::decode("50515253c0c1c2c3c4c5c6c7").unwrap();
        let plaintext = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let cipher = XChaCha20Poly1305::new((&key.0).into());
        let out = cipher
            .encrypt(
                XNonce::from_slice(&hex::decode(nonce).unwrap()),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: &aad,
                },
            )
            .unwrap();
        assert_eq!(
            hex::encode(&out[out.len() - 16..]),
            "c0875924c1c7987947deafd8780acf49"
        );
        assert_eq!(hex::encode(&out[..16]), "bd6d179d3e83d43b9576579493c0e939");
    }
}
