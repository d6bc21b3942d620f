//! What the manager needs to know of one server: how to reach it and how its tools are
//! exposed. The configuration files (`config`) resolve to these.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// How a tool of a server reaches the model (pi 1.6's `exposure` / `toolExposure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Exposure {
    /// Declared to the model.
    Direct,
    /// Declared once `tool_search` found it.
    Deferred,
    /// Called from codemode scripts (pi 1.6's default; this build has no codemode, so it is
    /// treated as `deferred`).
    #[serde(alias = "codemode-deferred")]
    Codemode,
    /// Never reachable.
    Hidden,
}

impl Exposure {
    pub fn as_str(self) -> &'static str {
        match self {
            Exposure::Direct => "direct",
            Exposure::Deferred => "deferred",
            Exposure::Codemode => "codemode",
            Exposure::Hidden => "hidden",
        }
    }
}

/// How the client reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportSpec {
    /// A process speaking newline-delimited JSON-RPC on stdin/stdout: one executable, no shell.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Added to pi's environment (values already expanded).
        env: Vec<(String, String)>,
        /// Absolute.
        cwd: PathBuf,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        /// Sent with every request (values already expanded).
        headers: Vec<(String, String)>,
    },
}

/// How an HTTP server is signed in to.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum AuthSpec {
    /// Headers only (or nothing).
    #[default]
    None,
    /// pi 1.6's `oauth {…}` block (or OAuth discovered on a 401), as the file gives it.
    OAuth(serde_json::Value),
    /// `auth {provider}`: that pi provider's login token as the bearer token.
    Provider(String),
}

/// One enabled server, resolved from the configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// The name in `mcp.json` (`[A-Za-z0-9_-]`).
    pub name: String,
    pub transport: TransportSpec,
    /// A request's deadline; progress notifications start it again (pi: `timeout`, 60 s).
    pub timeout: Duration,
    /// The server's exposure (pi 1.6's default: `codemode`).
    pub exposure: Exposure,
    /// `toolExposure` in file order: an exact name beats a pattern, the first pattern wins.
    pub tool_exposure: Vec<(String, Exposure)>,
    /// One line, for the system prompt's `mcp_servers` section and `/mcp`.
    pub description: Option<String>,
    pub auth: AuthSpec,
}

impl ServerSpec {
    /// The exposure of the server's tool `tool` (its name on the server).
    pub fn exposure_of(&self, tool: &str) -> Exposure {
        if let Some((_, exposure)) = self.tool_exposure.iter().find(|(key, _)| key == tool) {
            return *exposure;
        }
        self.tool_exposure
            .iter()
            .find(|(key, _)| key.contains('*') && glob_matches(key, tool))
            .map_or(self.exposure, |(_, exposure)| *exposure)
    }

    /// Every exposure the server's tools can have.
    pub fn exposures(&self) -> impl Iterator<Item = Exposure> + '_ {
        std::iter::once(self.exposure).chain(self.tool_exposure.iter().map(|(_, e)| *e))
    }
}

/// `*` matches any run of characters; everything else matches itself.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(tool_exposure: &[(&str, Exposure)]) -> ServerSpec {
        ServerSpec {
            name: "s".into(),
            transport: TransportSpec::Http {
                url: "http://127.0.0.1/".into(),
                headers: Vec::new(),
            },
            timeout: Duration::from_secs(60),
            exposure: Exposure::Deferred,
            tool_exposure: tool_exposure
                .iter()
                .map(|(k, e)| ((*k).to_owned(), *e))
                .collect(),
            description: None,
            auth: AuthSpec::None,
        }
    }

    #[test]
    fn an_exact_name_beats_a_pattern_and_the_first_pattern_wins() {
        let spec = spec(&[
            ("get_*", Exposure::Direct),
            ("get_*e", Exposure::Hidden),
            ("get_one", Exposure::Hidden),
        ]);
        assert_eq!(spec.exposure_of("get_one"), Exposure::Hidden);
        assert_eq!(spec.exposure_of("get_two"), Exposure::Direct);
        assert_eq!(spec.exposure_of("get_three"), Exposure::Direct);
        assert_eq!(spec.exposure_of("put"), Exposure::Deferred);
        assert!(glob_matches("a*c*e", "abcde"));
        assert!(!glob_matches("a*c*e", "abcdf"));
        assert!(glob_matches("*", ""));
    }
}
