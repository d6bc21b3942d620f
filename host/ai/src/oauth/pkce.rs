//! PKCE (RFC 7636): a random verifier, its S256 challenge, and a random `state`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// A verifier and the challenge derived from it.
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    pub fn new() -> Pkce {
        let verifier = random_token();
        Pkce {
            challenge: challenge(&verifier),
            verifier,
        }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Pkce::new()
    }
}

/// `BASE64URL(SHA256(verifier))`.
pub fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// 32 random bytes from the operating system, base64url: 43 characters.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // The OS generator does not fail on the systems pi runs on; should it, a time-and-pid
    // seeded generator still gives a unique (if guessable) value, and the login still works.
    if getrandom::getrandom(&mut bytes).is_err() {
        let mut rng = fastrand::Rng::with_seed(
            crate::types::now_ms().unsigned_abs() ^ u64::from(std::process::id()),
        );
        rng.fill(&mut bytes);
    }
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_matches_the_rfc_7636_example() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let pkce = Pkce::new();
        assert_eq!(pkce.verifier.len(), 43);
        assert_ne!(pkce.verifier, Pkce::new().verifier);
    }
}
