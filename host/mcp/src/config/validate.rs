//! One `mcpServers` entry checked the way pi 1.6 checks it (the files are a trust boundary),
//! with pi's messages, and turned into a [`ServerConfig`].

use super::{ServerConfig, ServerTransport};
use crate::spec::Exposure;
use serde_json::{Map, Value};

const EXPOSURES: &str = r#""codemode", "deferred", "direct", "hidden""#;
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The entry `raw` of server `name`: its JSON with exposure aliases replaced by their names
/// (what `pi mcp add` writes), and its typed form; or pi's message for what is wrong.
pub(crate) fn validate_server(
    name: &str,
    raw: &Value,
) -> Result<(Map<String, Value>, ServerConfig), String> {
    if !valid_name(name) {
        return Err(format!(
            r#"invalid server name "{name}" (use letters, digits, "_" and "-")"#
        ));
    }
    let Some(entry) = raw.as_object() else {
        return Err(format!(r#"server "{name}" must be an object"#));
    };
    let entry = resolve_aliases(entry);
    let in_server = |error: String| format!(r#"server "{name}": {error}"#);
    check_base(&entry).map_err(in_server)?;
    let kind = entry.get("type");
    if kind.and_then(Value::as_str) == Some("sse") {
        return Err(in_server(
            "legacy SSE transport is not supported; use the streamable HTTP URL".into(),
        ));
    }
    let kind_is = |names: &[&str]| {
        kind.is_none_or(|kind| kind.as_str().is_some_and(|kind| names.contains(&kind)))
    };
    let transport = match (entry.get("url"), entry.get("command")) {
        (Some(Value::String(url)), _) if kind_is(&["http", "streamable-http"]) => {
            http_transport(&entry, url).map_err(in_server)?
        }
        (_, Some(Value::String(command))) if kind_is(&["stdio"]) => {
            stdio_transport(&entry, command).map_err(in_server)?
        }
        _ => {
            return Err(format!(
                r#"server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)"#
            ));
        }
    };
    let (exposure, tool_exposure) = exposures(&entry).map_err(in_server)?;
    let config = ServerConfig {
        transport,
        enabled: entry.get("enabled") != Some(&Value::Bool(false)),
        exposure,
        tool_exposure,
        description: entry
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        timeout: entry.get("timeout").and_then(Value::as_f64),
    };
    Ok((entry, config))
}

/// Letters, digits, `_` and `-`: what tool names and namespaces are built from.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `codemode-deferred` is the older name of `codemode`.
fn resolve_aliases(entry: &Map<String, Value>) -> Map<String, Value> {
    let alias = |value: &mut Value| {
        if value.as_str() == Some("codemode-deferred") {
            *value = Value::String("codemode".into());
        }
    };
    let mut entry = entry.clone();
    if let Some(exposure) = entry.get_mut("exposure") {
        alias(exposure);
    }
    if let Some(Value::Object(tools)) = entry.get_mut("toolExposure") {
        tools.values_mut().for_each(alias);
    }
    entry
}

fn check_base(entry: &Map<String, Value>) -> Result<(), String> {
    if entry.get("enabled").is_some_and(|v| !v.is_boolean()) {
        return Err("enabled must be a boolean".into());
    }
    if entry.get("description").is_some_and(|v| !v.is_string()) {
        return Err("description must be a string".into());
    }
    let positive = |v: &Value| v.as_f64().is_some_and(|n| n > 0.0);
    if entry.get("timeout").is_some_and(|v| !positive(v)) {
        return Err("timeout must be a positive number of seconds".into());
    }
    Ok(())
}

fn http_transport(entry: &Map<String, Value>, url: &str) -> Result<ServerTransport, String> {
    let parsed = url::Url::parse(url).ok();
    let Some(parsed) = parsed.filter(|u| matches!(u.scheme(), "http" | "https")) else {
        return Err("url must be an http or https URL".into());
    };
    let headers = match entry.get("headers") {
        None => Vec::new(),
        Some(value) => string_pairs(value).ok_or("headers must map names to strings")?,
    };
    let oauth = entry.get("oauth").cloned();
    if let Some(oauth) = &oauth {
        check_oauth(oauth)?;
    }
    let auth_provider = match entry.get("auth") {
        None => None,
        Some(auth) => Some(check_auth(auth, &parsed)?),
    };
    Ok(ServerTransport::Http {
        url: url.to_owned(),
        headers,
        oauth,
        auth_provider,
    })
}

fn stdio_transport(entry: &Map<String, Value>, command: &str) -> Result<ServerTransport, String> {
    let args = match entry.get("args") {
        None => Vec::new(),
        Some(Value::Array(args)) if args.iter().all(Value::is_string) => args
            .iter()
            .filter_map(|arg| arg.as_str().map(str::to_owned))
            .collect(),
        Some(_) => return Err("args must be an array of strings".into()),
    };
    let env = match entry.get("env") {
        None => Vec::new(),
        Some(value) => string_pairs(value).ok_or("env must map names to strings")?,
    };
    let cwd = match entry.get("cwd") {
        None => None,
        Some(Value::String(cwd)) => Some(cwd.clone()),
        Some(_) => return Err("cwd must be a string".into()),
    };
    Ok(ServerTransport::Stdio {
        command: command.to_owned(),
        args,
        env,
        cwd,
    })
}

/// An object whose values are all strings, as pairs in file order.
fn string_pairs(value: &Value) -> Option<Vec<(String, String)>> {
    value
        .as_object()?
        .iter()
        .map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect()
}

fn check_oauth(oauth: &Value) -> Result<(), String> {
    let Some(oauth) = oauth.as_object() else {
        return Err("oauth must be an object".into());
    };
    for key in ["clientId", "clientSecret", "scope"] {
        if oauth.get(key).is_some_and(|v| !v.is_string()) {
            return Err(format!("oauth.{key} must be a string"));
        }
    }
    let port = oauth.get("callbackPort");
    let valid_port = |v: &Value| v.as_u64().is_some_and(|p| (1..=65535).contains(&p));
    if port.is_some_and(|p| !valid_port(p)) {
        return Err("oauth.callbackPort must be a port number".into());
    }
    if let Some(callback) = oauth.get("callbackUrl") {
        let Some(callback) = callback.as_str().and_then(loopback_redirect) else {
            return Err("oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment".into());
        };
        if let (Some(url_port), Some(port)) = (callback.port(), port.and_then(Value::as_u64))
            && u64::from(url_port) != port
        {
            return Err("oauth.callbackUrl and oauth.callbackPort name different ports".into());
        }
    }
    let non_empty = |v: &Value| v.as_str().is_some_and(|s| !s.trim().is_empty());
    if oauth.get("clientName").is_some_and(|v| !non_empty(v)) {
        return Err("oauth.clientName must be a non-empty string".into());
    }
    check_registration(oauth)?;
    if let Some(metadata) = oauth.get("authServerMetadataUrl") {
        let url = metadata.as_str().and_then(|u| url::Url::parse(u).ok());
        if !url.is_some_and(|url| https_or_loopback(&url)) {
            return Err("oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]".into());
        }
    }
    Ok(())
}

/// `clientRegistration`: `auto`, `dcr`, or `cimd` (pi's Client ID Metadata Documents, which list
/// `/callback` on localhost and 127.0.0.1 only).
fn check_registration(oauth: &Map<String, Value>) -> Result<(), String> {
    let Some(registration) = oauth.get("clientRegistration") else {
        return Ok(());
    };
    match registration.as_str() {
        Some("auto" | "dcr") => Ok(()),
        Some("cimd") => {
            if oauth.contains_key("clientId") || oauth.contains_key("clientName") {
                return Err(r#"oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName"#.into());
            }
            let callback = oauth
                .get("callbackUrl")
                .and_then(Value::as_str)
                .and_then(loopback_redirect);
            if callback
                .is_some_and(|url| url.host_str() == Some("[::1]") || url.path() != "/callback")
            {
                return Err(r#"oauth.clientRegistration "cimd" requires oauth.callbackUrl on localhost or 127.0.0.1 with path /callback"#.into());
            }
            Ok(())
        }
        _ => Err(r#"oauth.clientRegistration must be "auto", "dcr", or "cimd""#.into()),
    }
}

/// An http URL on a loopback host without query or fragment.
fn loopback_redirect(value: &str) -> Option<url::Url> {
    let url = url::Url::parse(value).ok()?;
    let loopback = url.host_str().is_some_and(|h| LOOPBACK_HOSTS.contains(&h));
    let bare = url.query().is_none_or(str::is_empty) && url.fragment().is_none_or(str::is_empty);
    (url.scheme() == "http" && loopback && bare).then_some(url)
}

fn https_or_loopback(url: &url::Url) -> bool {
    url.scheme() == "https"
        || (url.scheme() == "http" && url.host_str().is_some_and(|h| LOOPBACK_HOSTS.contains(&h)))
}

/// `auth {provider}` sends a provider's credential to the server: https, or http on loopback.
fn check_auth(auth: &Value, url: &url::Url) -> Result<String, String> {
    let provider = auth.get("provider").and_then(Value::as_str);
    let Some(provider) = provider.filter(|p| !p.is_empty()) else {
        return Err("auth.provider must be a provider name".into());
    };
    let loopback = url.host_str().is_some_and(|h| LOOPBACK_HOSTS.contains(&h));
    if url.scheme() != "https" && !loopback {
        return Err("auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]".into());
    }
    Ok(provider.to_owned())
}

/// `exposure` and `toolExposure` (in file order), after aliases were replaced.
pub(crate) fn exposures(
    entry: &Map<String, Value>,
) -> Result<(Exposure, Vec<(String, Exposure)>), String> {
    let exposure = match entry.get("exposure") {
        None => Exposure::Codemode,
        Some(value) => {
            parse_exposure(value).ok_or_else(|| format!("exposure must be one of {EXPOSURES}"))?
        }
    };
    let tools = match entry.get("toolExposure") {
        None => Vec::new(),
        Some(Value::Object(tools)) => tools
            .iter()
            .map(|(tool, value)| {
                parse_exposure(value)
                    .map(|exposure| (tool.clone(), exposure))
                    .ok_or_else(|| format!(r#"toolExposure "{tool}" must be one of {EXPOSURES}"#))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("toolExposure must map tool names to exposures".into()),
    };
    Ok((exposure, tools))
}

fn parse_exposure(value: &Value) -> Option<Exposure> {
    match value.as_str()? {
        "codemode" => Some(Exposure::Codemode),
        "deferred" => Some(Exposure::Deferred),
        "direct" => Some(Exposure::Direct),
        "hidden" => Some(Exposure::Hidden),
        _ => None,
    }
}
