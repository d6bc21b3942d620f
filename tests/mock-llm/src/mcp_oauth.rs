//! An OAuth-protected streamable-HTTP MCP server on loopback that is its own authorization
//! server: protected-resource metadata (RFC 9728), authorization-server metadata (RFC 8414,
//! with `iss` in authorization responses), dynamic client registration (RFC 7591), authorize
//! (redirects to the registered callback at once with a code, after checking the client, the
//! redirect URI and the S256 challenge), token (code with the PKCE verifier; refresh tokens that
//! rotate and can be revoked), and `/mcp`: 401 with a `resource_metadata` challenge without a
//! valid access token, else `initialize`, `tools/list` and `tools/call` of one tool, `whoami`.

use crate::oauth::{OAuthRequest, read_request};
use pi_ai::lock;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct State {
    log: Vec<OAuthRequest>,
    /// Registered clients and their redirect URIs.
    clients: BTreeMap<String, Vec<String>>,
    /// Issued codes: (challenge, client, redirect URI).
    codes: BTreeMap<String, (String, String, String)>,
    /// Valid access tokens and when they expire (ms).
    access: BTreeMap<String, i64>,
    refresh: BTreeSet<String>,
    /// Tokens accepted without a sign-in (an `auth {provider}` login token).
    extra_tokens: BTreeSet<String>,
    issued: u32,
    lifetime_secs: i64,
}

/// The running server (stops accepting when the process ends).
pub struct MockMcpOAuth {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl MockMcpOAuth {
    /// Starts on 127.0.0.1 at a random port. Panics when it cannot (a test helper).
    pub fn start() -> MockMcpOAuth {
        let state = Arc::new(Mutex::new(State {
            lifetime_secs: 3600,
            ..State::default()
        }));
        let shared = Arc::clone(&state);
        let port = crate::oauth::listen("mock-mcp-oauth", move |stream, port| {
            serve(stream, port, &shared)
        });
        MockMcpOAuth { port, state }
    }

    /// `http://127.0.0.1:<port>`: the issuer.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The MCP endpoint.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base_url())
    }

    pub fn requests(&self) -> Vec<OAuthRequest> {
        lock(&self.state).log.clone()
    }

    /// Requests to `path`, and with `grant_type` when given.
    pub fn count(&self, path: &str, grant_type: Option<&str>) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.path == path)
            .filter(|r| {
                grant_type.is_none_or(|g| r.params.get("grant_type").map(String::as_str) == Some(g))
            })
            .count()
    }

    /// `expires_in` of tokens issued from now on (default 3600 s).
    pub fn set_lifetime_secs(&self, secs: i64) {
        lock(&self.state).lifetime_secs = secs;
    }

    /// Every access token issued so far stops working (the server forgot them).
    pub fn expire_access_tokens(&self) {
        lock(&self.state).access.clear();
    }

    /// Every refresh token issued so far is refused from now on.
    pub fn revoke_refresh_tokens(&self) {
        lock(&self.state).refresh.clear();
    }

    /// `token` is accepted at `/mcp` as if issued here.
    pub fn accept_token(&self, token: &str) {
        lock(&self.state).extra_tokens.insert(token.to_owned());
    }

    /// The bearer tokens `/mcp` requests carried, in order (empty for none).
    pub fn mcp_tokens(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter(|r| r.path == "/mcp")
            .map(|r| {
                r.headers
                    .get("authorization")
                    .and_then(|a| a.strip_prefix("Bearer "))
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }
}

type Response = (u16, Vec<(String, String)>, String);

fn serve(mut stream: TcpStream, port: u16, state: &Mutex<State>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(request) = read_request(&stream) else {
        return;
    };
    lock(state).log.push(request.clone());
    let base = format!("http://127.0.0.1:{port}");
    let (status, headers, body) = route(&request, &base, state);
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

fn reply(status: u16, body: Value) -> Response {
    (status, Vec::new(), body.to_string())
}

fn oauth_error(status: u16, code: &str) -> Response {
    reply(
        status,
        json!({"error": code, "error_description": format!("mock: {code}")}),
    )
}

fn route(request: &OAuthRequest, base: &str, state: &Mutex<State>) -> Response {
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => reply(
            200,
            json!({"resource": format!("{base}/mcp"), "authorization_servers": [base],
                   "scopes_supported": ["mcp.tools"]}),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => reply(
            200,
            json!({"issuer": base, "authorization_endpoint": format!("{base}/authorize"),
                   "token_endpoint": format!("{base}/token"),
                   "registration_endpoint": format!("{base}/register"),
                   "response_types_supported": ["code"],
                   "code_challenge_methods_supported": ["S256"],
                   "token_endpoint_auth_methods_supported": ["none"],
                   "authorization_response_iss_parameter_supported": true}),
        ),
        ("POST", "/register") => register(request, state),
        ("GET", "/authorize") => authorize(request, base, state),
        ("POST", "/token") => token(request, state),
        ("POST", "/mcp") => mcp(request, base, state),
        ("DELETE", "/mcp") => (200, Vec::new(), String::new()),
        ("GET", "/mcp") => (405, Vec::new(), String::new()),
        _ => oauth_error(404, "not_found"),
    }
}

fn register(request: &OAuthRequest, state: &Mutex<State>) -> Response {
    let uris: Vec<String> = request
        .params
        .get("redirect_uris")
        .and_then(|v| serde_json::from_str(v).ok())
        .unwrap_or_default();
    if uris.is_empty() {
        return oauth_error(400, "invalid_redirect_uri");
    }
    let mut st = lock(state);
    st.issued += 1;
    let id = format!("client-{}", st.issued);
    st.clients.insert(id.clone(), uris.clone());
    reply(
        201,
        json!({"client_id": id, "redirect_uris": uris, "token_endpoint_auth_method": "none",
               "client_name": request.params.get("client_name")}),
    )
}

fn authorize(request: &OAuthRequest, base: &str, state: &Mutex<State>) -> Response {
    let param = |name: &str| request.params.get(name).cloned().unwrap_or_default();
    let mut st = lock(state);
    let client = param("client_id");
    let redirect = param("redirect_uri");
    let known = st
        .clients
        .get(&client)
        .is_some_and(|uris| uris.contains(&redirect));
    if !known || param("code_challenge_method") != "S256" || param("code_challenge").is_empty() {
        return oauth_error(400, "invalid_request");
    }
    st.issued += 1;
    let code = format!("code-{}", st.issued);
    st.codes.insert(
        code.clone(),
        (param("code_challenge"), client, redirect.clone()),
    );
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("code", &code);
    query.append_pair("state", &param("state"));
    query.append_pair("iss", base);
    let location = format!("{redirect}?{}", query.finish());
    (302, vec![("location".to_owned(), location)], String::new())
}

fn token(request: &OAuthRequest, state: &Mutex<State>) -> Response {
    let param = |name: &str| request.params.get(name).cloned().unwrap_or_default();
    let mut st = lock(state);
    match param("grant_type").as_str() {
        "authorization_code" => {
            let Some((challenge, client, redirect)) = st.codes.remove(&param("code")) else {
                return oauth_error(400, "invalid_grant");
            };
            let verified = challenge == pi_ai::oauth::pkce_challenge(&param("code_verifier"));
            if !verified || client != param("client_id") || redirect != param("redirect_uri") {
                return oauth_error(400, "invalid_grant");
            }
            issue(&mut st)
        }
        "refresh_token" => {
            // Refresh tokens rotate: each is spent by its use.
            if !st.refresh.remove(&param("refresh_token")) {
                return oauth_error(400, "invalid_grant");
            }
            issue(&mut st)
        }
        _ => oauth_error(400, "unsupported_grant_type"),
    }
}

fn issue(st: &mut State) -> Response {
    st.issued += 1;
    let access = format!("access-{}", st.issued);
    let refresh = format!("refresh-{}", st.issued);
    let expires = pi_ai::now_ms() + st.lifetime_secs * 1000;
    st.access.insert(access.clone(), expires);
    st.refresh.insert(refresh.clone());
    reply(
        200,
        json!({"access_token": access, "refresh_token": refresh,
               "expires_in": st.lifetime_secs, "token_type": "Bearer"}),
    )
}

fn authorized(request: &OAuthRequest, state: &Mutex<State>) -> bool {
    let Some(token) = request
        .headers
        .get("authorization")
        .and_then(|a| a.strip_prefix("Bearer "))
    else {
        return false;
    };
    let st = lock(state);
    st.extra_tokens.contains(token)
        || st
            .access
            .get(token)
            .is_some_and(|expires| *expires > pi_ai::now_ms())
}

fn mcp(request: &OAuthRequest, base: &str, state: &Mutex<State>) -> Response {
    if !authorized(request, state) {
        let challenge = format!(
            r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp", scope="mcp.tools""#
        );
        return (
            401,
            vec![("www-authenticate".to_owned(), challenge)],
            r#"{"error":"invalid_token"}"#.to_owned(),
        );
    }
    let method = request.params.get("method").cloned().unwrap_or_default();
    let Some(id) = request.params.get("id") else {
        return (202, Vec::new(), String::new());
    };
    let id: Value = serde_json::from_str(id).unwrap_or_else(|_| Value::String(id.clone()));
    let params: Value = request
        .params
        .get("params")
        .and_then(|p| serde_json::from_str(p).ok())
        .unwrap_or(Value::Null);
    let result = match method.as_str() {
        "initialize" => json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "mock-mcp-oauth", "version": "1.0.0"}
        }),
        "tools/list" => json!({"tools": [{
            "name": "whoami",
            "description": "Says who the caller signed in as.",
            "inputSchema": {"type": "object", "properties": {}}
        }]}),
        "tools/call" => json!({"content": [{"type": "text", "text": "signed in"}]}),
        "ping" => json!({}),
        _ => {
            return reply(
                200,
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}}),
            );
        }
    };
    let headers = vec![("mcp-session-id".to_owned(), "session-1".to_owned())];
    (
        200,
        headers,
        json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
    )
}
