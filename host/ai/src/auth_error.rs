//! Why a credential could not be read, stored, refreshed or resolved: one error type for the
//! store, the config-value syntax, OAuth refresh and resolution, each message naming the
//! provider and what to do.

use std::path::PathBuf;
use std::time::Duration;

/// Why a credential could not be read, stored or resolved.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid JSON: {message} (the file was left unchanged)", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: expected a JSON object of credentials keyed by provider", path.display())]
    NotAnObject { path: PathBuf },
    #[error(
        "the stored credential for \"{provider}\" is invalid: {message}; run `pi auth login {provider}`"
    )]
    BadCredential { provider: String, message: String },
    /// An OAuth login stored for a provider pi cannot sign in to: it is not used, and nothing
    /// else is tried in its place.
    #[error(
        "the credential stored for \"{provider}\" is an OAuth login, but pi has no OAuth sign-in for \"{provider}\": run `pi auth login {provider}` to store an API key"
    )]
    WrongType { provider: String },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The stored OAuth login cannot be renewed (no refresh possible, or the server refused
    /// the refresh token): only a new login helps; never a silent env fallback.
    #[error(
        "the OAuth login for \"{provider}\" has expired{}: log in again with `pi auth login {provider}`",
        reason_suffix(reason)
    )]
    OAuthExpired { provider: String, reason: String },
    /// Refreshing failed for a reason that may pass (network, server error, timeout); the
    /// stored credential was kept as it was.
    #[error(
        "refreshing the OAuth login for \"{provider}\" failed: {message} (the stored login was kept; if this persists, run `pi auth login {provider}`)"
    )]
    RefreshFailed { provider: String, message: String },
    #[error("refreshing the OAuth login for \"{provider}\" was cancelled")]
    RefreshCancelled { provider: String },
    #[error(
        "the stored API key for \"{provider}\" resolves to nothing (an unset variable?): run `pi auth login {provider}`"
    )]
    EmptyStoredKey { provider: String },
    #[error("cannot run command `{command}`: {source}")]
    CommandSpawn {
        command: String,
        source: std::io::Error,
    },
    #[error("command `{command}` failed ({status}){}", stderr_suffix(stderr))]
    CommandFailed {
        command: String,
        status: String,
        stderr: String,
    },
    #[error("command `{command}` did not finish within {} s", timeout.as_secs())]
    CommandTimeout { command: String, timeout: Duration },
}

fn reason_suffix(reason: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    }
}

pub(crate) fn stderr_suffix(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", stderr.trim())
    }
}
