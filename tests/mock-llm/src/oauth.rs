//! A loopback OAuth server for sign-in tests: authorize (redirecting to the client's
//! loopback callback), token (authorization code with a PKCE check, refresh, device code,
//! optionally with PKCE),
//! device-code, Copilot token exchange and OpenRouter key minting, with a request log and
//! scripted refresh failures; plus [`browse`], a browser stand-in that follows redirects.
//!
//! Routes are matched by the end of the path, so every provider's sign-in URLs work once
//! `PI_OAUTH_BASE_URL_<PROVIDER>` points at [`MockOAuth::base_url`]. Issued access tokens
//! start with `sk-ant-oat01-` (what Anthropic's adapter recognises as an OAuth token).

use pi_ai::lock;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the token endpoint answers a refresh.
#[derive(Debug, Clone, PartialEq)]
pub enum RefreshReply {
    /// New tokens (`sk-ant-oat01-refreshed-<n>`, `refresh-<n>`), after `delay`.
    Tokens { delay: Duration },
    /// This status with an OAuth error body (`invalid_grant` for 400).
    Status(u16),
    /// Never answers (the connection is held for a minute).
    Hang,
}

/// One request the server received; `params` holds the query, form or JSON body fields.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthRequest {
    pub method: String,
    pub path: String,
    pub params: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    log: Vec<OAuthRequest>,
    /// Issued authorization codes and the PKCE challenge each was issued for.
    codes: BTreeMap<String, String>,
    issued: u32,
    pending_polls: u32,
    refresh: Option<RefreshReply>,
    lifetime_secs: i64,
}

/// Accepts connections on 127.0.0.1 at a random port, each served by `serve` (given the
/// stream and the port) on a thread of its own; the port. Panics when it cannot bind (a test
/// helper).
pub(crate) fn listen(name: &str, serve: impl Fn(TcpStream, u16) + Send + Sync + 'static) -> u16 {
    let listener = match TcpListener::bind("127.0.0.1:0") {
        Ok(listener) => listener,
        Err(err) => panic!("{name}: cannot bind: {err}"),
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
    let serve = Arc::new(serve);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let serve = Arc::clone(&serve);
            std::thread::spawn(move || serve(stream, port));
        }
    });
    port
}

/// The running server (stops accepting when dropped).
pub struct MockOAuth {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl MockOAuth {
    /// Starts on 127.0.0.1 at a random port. Panics when it cannot (a test helper).
    pub fn start() -> MockOAuth {
        let state = Arc::new(Mutex::new(State {
            pending_polls: 1,
            lifetime_secs: 3600,
            ..State::default()
        }));
        let shared = Arc::clone(&state);
        let port = listen("mock-oauth", move |stream, _| serve(stream, &shared));
        MockOAuth { port, state }
    }

    /// `http://127.0.0.1:<port>`: the value for `PI_OAUTH_BASE_URL_<PROVIDER>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<OAuthRequest> {
        lock(&self.state).log.clone()
    }

    /// Requests whose `grant_type` is `refresh_token` (or Copilot token exchanges).
    pub fn refresh_requests(&self) -> Vec<OAuthRequest> {
        self.requests()
            .into_iter()
            .filter(|r| {
                r.params.get("grant_type").map(String::as_str) == Some("refresh_token")
                    || r.path.ends_with("/copilot_internal/v2/token")
            })
            .collect()
    }

    /// How refreshes are answered from now on (default: tokens at once).
    pub fn set_refresh(&self, reply: RefreshReply) {
        lock(&self.state).refresh = Some(reply);
    }

    /// `expires_in` of issued tokens (default 3600 s).
    pub fn set_lifetime_secs(&self, secs: i64) {
        lock(&self.state).lifetime_secs = secs;
    }
}

fn serve(mut stream: TcpStream, state: &Mutex<State>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(request) = read_request(&stream) else {
        return;
    };
    lock(state).log.push(request.clone());
    let (status, headers, body) = route(&request, state);
    if status == 0 {
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

type Response = (u16, Vec<(String, String)>, String);

fn json_reply(status: u16, body: Value) -> Response {
    (status, Vec::new(), body.to_string())
}

fn oauth_error(status: u16, code: &str) -> Response {
    json_reply(
        status,
        json!({"error": code, "error_description": format!("mock: {code}")}),
    )
}

fn route(request: &OAuthRequest, state: &Mutex<State>) -> Response {
    let path = request.path.as_str();
    let param = |name: &str| request.params.get(name).cloned().unwrap_or_default();
    if path.ends_with("/authorize") || path.ends_with("/auth") {
        let mut st = lock(state);
        st.issued += 1;
        let code = format!("code-{}", st.issued);
        st.codes.insert(code.clone(), param("code_challenge"));
        let target = request
            .params
            .get("redirect_uri")
            .or(request.params.get("callback_url"))
            .cloned()
            .unwrap_or_default();
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("code", &code);
        if let Some(state) = request.params.get("state") {
            query.append_pair("state", state);
        }
        let location = format!("{target}?{}", query.finish());
        return (302, vec![("location".to_owned(), location)], String::new());
    }
    if path.ends_with("/device/code") || path.ends_with("/device_authorization") {
        if let Some(challenge) = request.params.get("code_challenge") {
            lock(state)
                .codes
                .insert("device-1".to_owned(), challenge.clone());
        }
        return json_reply(
            200,
            json!({"device_code": "device-1", "user_code": "ABCD-1234",
                   "verification_uri": "https://example.invalid/device",
                   "interval": 0, "expires_in": 600}),
        );
    }
    if path.ends_with("/copilot_internal/v2/token") {
        let auth = request
            .headers
            .get("authorization")
            .cloned()
            .unwrap_or_default();
        if !auth.starts_with("Bearer gho_") && !auth.starts_with("Bearer sk-ant-oat01-") {
            return oauth_error(401, "bad_github_token");
        }
        let mut st = lock(state);
        st.issued += 1;
        let expires_at = pi_ai::now_ms() / 1000 + st.lifetime_secs;
        return json_reply(
            200,
            json!({"token": format!("copilot-token-{}", st.issued), "expires_at": expires_at}),
        );
    }
    if path.ends_with("/api/v1/auth/keys") {
        return match check_code(state, &param("code"), &param("code_verifier")) {
            true => json_reply(200, json!({"key": "sk-or-v1-minted"})),
            false => oauth_error(400, "invalid_code"),
        };
    }
    if path.ends_with("/token") || path.ends_with("/access_token") {
        return token(request, state);
    }
    oauth_error(404, "not_found")
}

fn token(request: &OAuthRequest, state: &Mutex<State>) -> Response {
    let param = |name: &str| request.params.get(name).cloned().unwrap_or_default();
    match param("grant_type").as_str() {
        "authorization_code" => {
            if !check_code(state, &param("code"), &param("code_verifier")) {
                return oauth_error(400, "invalid_grant");
            }
            tokens(state, "access")
        }
        "refresh_token" => {
            let reply = lock(state).refresh.clone();
            match reply.unwrap_or(RefreshReply::Tokens {
                delay: Duration::ZERO,
            }) {
                RefreshReply::Tokens { delay } => {
                    std::thread::sleep(delay);
                    tokens(state, "refreshed")
                }
                RefreshReply::Status(400) => oauth_error(400, "invalid_grant"),
                RefreshReply::Status(status) => oauth_error(status, "server_error"),
                RefreshReply::Hang => (0, Vec::new(), String::new()),
            }
        }
        "urn:ietf:params:oauth:grant-type:device_code" => {
            let mut st = lock(state);
            // A device code asked for with a PKCE challenge is only redeemed with its verifier.
            if let Some(challenge) = st.codes.get(&param("device_code"))
                && *challenge != pi_ai::oauth::pkce_challenge(&param("code_verifier"))
            {
                return oauth_error(400, "invalid_grant");
            }
            if st.pending_polls > 0 {
                st.pending_polls -= 1;
                return oauth_error(400, "authorization_pending");
            }
            json_reply(
                200,
                json!({"access_token": "gho_mock-github-token", "token_type": "bearer",
                       "refresh_token": "device-refresh", "expires_in": st.lifetime_secs}),
            )
        }
        _ => oauth_error(400, "unsupported_grant_type"),
    }
}

fn tokens(state: &Mutex<State>, kind: &str) -> Response {
    let mut st = lock(state);
    st.issued += 1;
    json_reply(
        200,
        json!({"access_token": format!("sk-ant-oat01-{kind}-{}", st.issued),
               "refresh_token": format!("refresh-{}", st.issued),
               "expires_in": st.lifetime_secs, "token_type": "Bearer"}),
    )
}

/// Whether `code` was issued and `verifier` hashes to its challenge (then it is used up).
fn check_code(state: &Mutex<State>, code: &str, verifier: &str) -> bool {
    let challenge = lock(state).codes.remove(code);
    challenge.is_some_and(|c| c == pi_ai::oauth::pkce_challenge(verifier))
}

pub(crate) fn read_request(stream: &TcpStream) -> Option<OAuthRequest> {
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut parts = first.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut params: BTreeMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(fields)) => {
            for (key, value) in fields {
                let text = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                params.insert(key, text);
            }
        }
        _ => params.extend(url::form_urlencoded::parse(&body).into_owned()),
    }
    Some(OAuthRequest {
        method,
        path: path.to_owned(),
        params,
        headers,
    })
}

/// A browser stand-in: GETs `url` and follows redirects (`localhost` is 127.0.0.1), returning
/// the last status and body. `Err` says what failed.
pub fn browse(url: &str) -> Result<(u16, String), String> {
    let mut url = url.to_owned();
    for _ in 0..5 {
        let (status, location, body) = get(&url)?;
        match location {
            Some(next) if (300..400).contains(&status) => url = next,
            _ => return Ok((status, body)),
        }
    }
    Err(format!("too many redirects at {url}"))
}

/// Where the authorize URL redirects to (what a browser elsewhere ends up at and the user
/// pastes), without following it.
pub fn authorize_redirect(url: &str) -> Result<String, String> {
    match get(url)? {
        (302, Some(location), _) => Ok(location),
        (status, _, body) => Err(format!("expected a redirect, got {status}: {body}")),
    }
}

fn get(url: &str) -> Result<(u16, Option<String>, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("not an http URL: {url}"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = host.replace("localhost", "127.0.0.1");
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(&host).map_err(|e| format!("{host}: {e}"))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let request = format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("{host}: {e}"))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| format!("{host}: {e}"))?;
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let location = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("location"))
        .map(|(_, value)| value.trim().to_owned());
    Ok((status, location, body.to_owned()))
}
