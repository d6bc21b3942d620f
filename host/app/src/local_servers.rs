//! A local model with zero set-up: when no provider has a credential, start-up asks the usual
//! loopback ports of local OpenAI-compatible servers (Ollama, llama.cpp, LM Studio, vLLM) for
//! `GET /v1/models` and offers what they list as a provider of their own.
//!
//! Only 127.0.0.1 is contacted, all ports at once (one thread each), each with a short connect
//! and read deadline, so a machine with nothing listening pays a refused connection per port
//! and a port held by something else costs at most the read deadline. `--offline`
//! (`PI_OFFLINE=1`) and the setting `probeLocalServers: false` turn the probe off; the
//! environment variable `PI_LOCAL_SERVER_PORTS` (`11434,8080` or `Ollama=11500,…`) replaces the
//! list, for a server on another port (and for tests, which cannot own the well-known ports).

use pi_ai::{AuthStorage, Modality, Model, ModelCost, ModelRegistry};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// One kind of local server and the port it listens on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalServer {
    /// What the user knows it as.
    pub name: &'static str,
    /// The provider id its models get.
    pub provider: &'static str,
    pub port: u16,
}

/// The servers probed by default, with their default ports.
pub const DEFAULT_LOCAL_SERVERS: [LocalServer; 4] = [
    LocalServer {
        name: "Ollama",
        provider: "ollama",
        port: 11434,
    },
    LocalServer {
        name: "llama.cpp",
        provider: "llama-cpp",
        port: 8080,
    },
    LocalServer {
        name: "LM Studio",
        provider: "lm-studio",
        port: 1234,
    },
    LocalServer {
        name: "vLLM",
        provider: "vllm",
        port: 8000,
    },
];

/// A port given without a name.
const UNNAMED: LocalServer = LocalServer {
    name: "a local OpenAI-compatible server",
    provider: "local",
    port: 0,
};

/// The variable replacing [`DEFAULT_LOCAL_SERVERS`].
pub const PORTS_ENV: &str = "PI_LOCAL_SERVER_PORTS";

const CONNECT_TIMEOUT: Duration = Duration::from_millis(300);
const READ_TIMEOUT: Duration = Duration::from_millis(1500);
/// Larger answers are not a model list worth reading.
const MAX_RESPONSE: u64 = 4 << 20;
/// Local servers rarely say; these are pi's defaults for a model models.json leaves open.
const CONTEXT_WINDOW: u64 = 128_000;
const MAX_TOKENS: u64 = 16_384;

/// The servers to probe: [`DEFAULT_LOCAL_SERVERS`], or the list `ports` gives (`8080` takes
/// the name of the default server on that port, `vLLM=9000` a server's name on another port).
/// Entries that are not ports are left out.
pub fn targets(ports: Option<&str>) -> Vec<LocalServer> {
    let Some(list) = ports else {
        return DEFAULT_LOCAL_SERVERS.to_vec();
    };
    list.split(',')
        .filter_map(|entry| {
            let (name, port) = match entry.split_once('=') {
                Some((name, port)) => (Some(name.trim()), port),
                None => (None, entry),
            };
            let port: u16 = port.trim().parse().ok().filter(|p| *p != 0)?;
            let known = DEFAULT_LOCAL_SERVERS.iter().find(|s| match name {
                Some(name) => s.name.eq_ignore_ascii_case(name) || s.provider == name,
                None => s.port == port,
            });
            Some(LocalServer {
                port,
                ..known.copied().unwrap_or(UNNAMED)
            })
        })
        .collect()
}

/// A server that answered, with the model ids it listed.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundServer {
    pub server: LocalServer,
    pub models: Vec<String>,
}

impl FoundServer {
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.server.port)
    }

    /// Its models as pi models (Chat Completions, text only, pi's default limits).
    pub fn models(&self) -> Vec<Model> {
        self.models
            .iter()
            .map(|id| Model {
                id: id.clone(),
                name: id.clone(),
                api: "openai-completions".to_owned(),
                provider: self.server.provider.to_owned(),
                base_url: self.base_url(),
                reasoning: false,
                input: vec![Modality::Text],
                cost: ModelCost::default(),
                context_window: CONTEXT_WINDOW,
                max_tokens: MAX_TOKENS,
                headers: None,
                compat: None,
            })
            .collect()
    }
}

/// Asks every server at once; the ones that listed at least one model, in `servers` order.
pub fn probe(servers: &[LocalServer]) -> Vec<FoundServer> {
    let handles: Vec<_> = servers
        .iter()
        .map(|server| {
            let server = *server;
            std::thread::spawn(move || {
                list_models(server.port).map(|models| FoundServer { server, models })
            })
        })
        .collect();
    handles
        .into_iter()
        .filter_map(|handle| handle.join().ok().flatten())
        .filter(|found| !found.models.is_empty())
        .collect()
}

/// What start-up did about local servers.
#[derive(Debug, Clone, PartialEq)]
pub enum LocalProbe {
    /// A provider has a credential: nothing was probed.
    NotNeeded,
    /// Turned off, by what.
    Off(&'static str),
    /// These servers were asked; these answered.
    Probed {
        servers: Vec<LocalServer>,
        found: Vec<FoundServer>,
    },
}

impl LocalProbe {
    /// For the no-credentials message: what was probed, or why nothing was.
    pub fn summary(&self) -> Option<String> {
        match self {
            LocalProbe::NotNeeded => None,
            LocalProbe::Off(why) => Some(format!("Local servers were not probed ({why}).")),
            LocalProbe::Probed { servers, .. } if servers.is_empty() => Some(format!(
                "Local servers were not probed ({PORTS_ENV} lists no port)."
            )),
            LocalProbe::Probed { servers, .. } => Some(format!(
                "No local server answered GET /v1/models on {}.",
                describe(servers)
            )),
        }
    }
}

/// With no credential anywhere (and no `--api-key`), probes the local servers and adds the
/// models of those that answer to `registry`. Returns what happened and a notice per server
/// found.
pub fn discover(
    offline: bool,
    enabled: bool,
    has_api_key: bool,
    registry: &mut ModelRegistry,
    auth: &AuthStorage,
) -> (LocalProbe, Vec<String>) {
    if has_api_key || !registry.available(auth).is_empty() {
        return (LocalProbe::NotNeeded, Vec::new());
    }
    if offline {
        return (LocalProbe::Off("--offline"), Vec::new());
    }
    if !enabled {
        return (
            LocalProbe::Off("setting probeLocalServers is false"),
            Vec::new(),
        );
    }
    let servers = targets(std::env::var(PORTS_ENV).ok().as_deref());
    let found = probe(&servers);
    let notices = found
        .iter()
        .map(|f| {
            registry.add_local_models(f.server.provider, f.models(), f.server.provider);
            format!(
                "No credentials are set: using {} found at {} ({} models, provider \"{}\").",
                f.server.name,
                f.base_url(),
                f.models.len(),
                f.server.provider
            )
        })
        .collect();
    (LocalProbe::Probed { servers, found }, notices)
}

/// `name (127.0.0.1:port)` for each server, for messages.
pub fn describe(servers: &[LocalServer]) -> String {
    servers
        .iter()
        .map(|s| format!("{} (127.0.0.1:{})", s.name, s.port))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The model ids `GET /v1/models` on the loopback `port` lists, if it answers in time.
fn list_models(port: u16) -> Option<Vec<String>> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).ok()?;
    let deadline = Instant::now() + READ_TIMEOUT;
    stream.set_read_timeout(Some(READ_TIMEOUT)).ok()?;
    stream.set_write_timeout(Some(CONNECT_TIMEOUT)).ok()?;
    // HTTP/1.0: the answer comes whole (no chunking) and the server closes after it.
    let request = format!(
        "GET /v1/models HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if Instant::now() > deadline || response.len() as u64 > MAX_RESPONSE {
            return None;
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => response.extend_from_slice(&buf[..n]),
            Err(_) => return None,
        }
        if complete_body(&response).is_some() {
            break;
        }
    }
    parse_model_list(complete_body(&response).or_else(|| body_after_head(&response))?)
}

/// The body once all `content-length` bytes of it have arrived (`None` before, or without one).
fn complete_body(response: &[u8]) -> Option<&[u8]> {
    let body = body_after_head(response)?;
    let head = String::from_utf8_lossy(&response[..response.len() - body.len()]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))?
        .trim()
        .parse()
        .ok()?;
    (body.len() >= length).then(|| &body[..length])
}

/// The bytes after the response head, when the status is 200.
fn body_after_head(response: &[u8]) -> Option<&[u8]> {
    let end = response.windows(4).position(|w| w == b"\r\n\r\n")?;
    let status_line = response.split(|b| *b == b'\n').next()?;
    let status = String::from_utf8_lossy(status_line);
    (status.split_whitespace().nth(1) == Some("200")).then(|| &response[end + 4..])
}

/// The ids of an OpenAI `{"data": [{"id": …}]}` list (Ollama's `{"models": [{"name"}]}` too).
fn parse_model_list(body: &[u8]) -> Option<Vec<String>> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let (list, key) = match (value.get("data"), value.get("models")) {
        (Some(data), _) => (data.as_array()?, "id"),
        (None, Some(models)) => (models.as_array()?, "name"),
        (None, None) => return None,
    };
    Some(
        list.iter()
            .filter_map(|m| m.get(key).and_then(|id| id.as_str()))
            .filter(|id| !id.trim().is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_list_is_the_four_usual_servers() {
        let ports: Vec<(&str, u16)> = targets(None).iter().map(|s| (s.name, s.port)).collect();
        assert_eq!(
            ports,
            [
                ("Ollama", 11434),
                ("llama.cpp", 8080),
                ("LM Studio", 1234),
                ("vLLM", 8000)
            ]
        );
    }

    #[test]
    fn the_port_list_can_be_replaced() {
        let list = targets(Some("8080, vllm=9000,Ollama=11500, 7777, nope, 0"));
        let got: Vec<(&str, &str, u16)> =
            list.iter().map(|s| (s.name, s.provider, s.port)).collect();
        assert_eq!(
            got,
            [
                ("llama.cpp", "llama-cpp", 8080),
                ("vLLM", "vllm", 9000),
                ("Ollama", "ollama", 11500),
                ("a local OpenAI-compatible server", "local", 7777),
            ]
        );
        assert!(targets(Some("")).is_empty());
    }

    #[test]
    fn model_lists_in_both_shapes() {
        let openai = br#"{"object":"list","data":[{"id":"qwen2.5-coder:7b"},{"id":""},{"x":1}]}"#;
        assert_eq!(
            parse_model_list(openai),
            Some(vec!["qwen2.5-coder:7b".to_owned()])
        );
        let ollama = br#"{"models":[{"name":"llama3.2:latest"}]}"#;
        assert_eq!(
            parse_model_list(ollama),
            Some(vec!["llama3.2:latest".to_owned()])
        );
        assert_eq!(parse_model_list(b"<html>"), None);
        assert_eq!(parse_model_list(br#"{"error":"x"}"#), None);
    }

    #[test]
    fn only_a_complete_200_answer_counts() {
        let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"data\":[]}";
        assert_eq!(complete_body(ok), Some(&b"{\"data\":[]}"[..]));
        let partial = b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"data\":[]}";
        assert_eq!(complete_body(partial), None);
        let missing = b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(body_after_head(missing), None);
    }

    #[test]
    fn a_closed_port_is_not_a_server() {
        // Bind then drop: the port is (for the moment) free on loopback.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let servers = [LocalServer { port, ..UNNAMED }];
        assert!(probe(&servers).is_empty());
    }
}
