//! fetch-url: a pi tool (the `tool` world of WIT 0.3.0) that fetches one URL over HTTP(S) and
//! returns it as text a model can read: HTML as text (`html.rs`), JSON pretty-printed, other
//! text as it is, cut at a size with a note saying so.
//!
//! Only the hosts the package was granted (`network` in its manifest, approved at install) can
//! be reached: pi checks every request, each redirect hop included, and refuses the others
//! before connecting. A refused host comes back as the tool's error, which names the host.

mod html;
mod url;

use pi_guest_sdk::{ExecutionMode, Tool, ToolCall, ToolDefinition, ToolResult, host, http, text};
use serde_json::{Value, json};
use url::Url;

/// Characters returned when the call does not say, and the most it may ask for.
const DEFAULT_MAX_CHARS: usize = 20_000;
const LIMIT_MAX_CHARS: usize = 200_000;
/// Bytes read from a body at most; the rest is not downloaded.
const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;
/// Redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;

struct FetchUrl;

/// A fetched response.
struct Page {
    url: Url,
    /// The media type, lowercased, without parameters (`text/html`); empty when not sent.
    media_type: String,
    body: Vec<u8>,
    /// The body was longer than [`MAX_BODY_BYTES`].
    cut: bool,
}

fn schema() -> String {
    json!({
        "type": "object",
        "properties": {
            "url": {
                "type": "string",
                "description": "The http:// or https:// URL to fetch."
            },
            "max_chars": {
                "type": "integer",
                "minimum": 1,
                "maximum": LIMIT_MAX_CHARS,
                "description": format!("Most characters of text to return (default {DEFAULT_MAX_CHARS}).")
            }
        },
        "required": ["url"],
        "additionalProperties": false
    })
    .to_string()
}

impl Tool for FetchUrl {
    fn describe() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "fetch_url".into(),
            label: "Fetch URL".into(),
            description: "Fetches a web page or file over HTTP(S) and returns it as readable \
                          text: HTML as text with its headings and links (`text (url)`), JSON \
                          pretty-printed, other text as it is. Only the hosts the user allowed \
                          can be reached."
                .into(),
            parameters_schema: schema(),
            prompt_snippet: Some(
                "fetch_url: read a web page or an HTTP API from the hosts the user allowed".into(),
            ),
            prompt_guidelines: vec![
                "Use fetch_url for documentation or data on the web the user points you to; \
                 if it says a host was not granted, tell the user, do not retry."
                    .into(),
            ],
            execution_mode: ExecutionMode::Parallel,
        }]
    }

    fn execute(call: ToolCall) -> Result<ToolResult, String> {
        let args: Value =
            serde_json::from_str(&call.arguments).map_err(|e| format!("invalid arguments: {e}"))?;
        let url = args["url"].as_str().ok_or("`url` is required")?;
        let max_chars = args["max_chars"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map_or(DEFAULT_MAX_CHARS, |n| n.clamp(1, LIMIT_MAX_CHARS));
        let page = fetch(Url::parse(url)?)?;
        Ok(text(&readable(&page, max_chars)?))
    }
}

/// GETs `url`, following redirects (each one a request the host checks against the grant).
fn fetch(mut url: Url) -> Result<Page, String> {
    let headers = [
        ("user-agent".to_owned(), "pi-fetch-url/0.1".to_owned()),
        (
            "accept".to_owned(),
            "text/html, application/json;q=0.9, text/*;q=0.8, */*;q=0.1".to_owned(),
        ),
    ];
    for _ in 0..=MAX_REDIRECTS {
        host::log(host::LogLevel::Debug, &format!("GET {url}"));
        let mut response = http::get(&url.to_string(), &headers).map_err(|e| {
            let hint = if e.contains("not granted") {
                " (the hosts it may reach are the `network` list of the fetch-url package; the \
                 user can add this one and run `pi ext update fetch-url`)"
            } else {
                ""
            };
            format!("cannot fetch {url}: {e}{hint}")
        })?;
        if matches!(response.status, 301 | 302 | 303 | 307 | 308) {
            let location = response.header("location").ok_or_else(|| {
                format!("{url} redirects ({}) without a Location", response.status)
            })?;
            url = Url::parse(&url.resolve(location))?;
            continue;
        }
        if !(200..300).contains(&response.status) {
            return Err(format!("{url} answered HTTP {}", response.status));
        }
        let media_type = response
            .header("content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let (body, cut) = read_body(&mut response)?;
        return Ok(Page {
            url,
            media_type,
            body,
            cut,
        });
    }
    Err(format!("{url}: more than {MAX_REDIRECTS} redirects"))
}

/// The body, at most [`MAX_BODY_BYTES`] of it, and whether there was more.
fn read_body(response: &mut http::Response) -> Result<(Vec<u8>, bool), String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.read_chunk()? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BODY_BYTES {
            body.truncate(MAX_BODY_BYTES);
            return Ok((body, true));
        }
    }
    Ok((body, false))
}

fn is_html(page: &Page) -> bool {
    match page.media_type.as_str() {
        "text/html" | "application/xhtml+xml" => true,
        "" => {
            let start = String::from_utf8_lossy(&page.body[..page.body.len().min(256)])
                .trim_start()
                .to_ascii_lowercase();
            start.starts_with("<!doctype html") || start.starts_with("<html")
        }
        _ => false,
    }
}

fn is_json(media_type: &str) -> bool {
    media_type == "application/json" || media_type.ends_with("+json")
}

/// Whether the body is text at all (what is not is refused rather than shown as noise).
fn is_text(page: &Page) -> bool {
    let textual = page.media_type.is_empty()
        || page.media_type.starts_with("text/")
        || is_json(&page.media_type)
        || page.media_type.ends_with("+xml")
        || matches!(
            page.media_type.as_str(),
            "application/xml"
                | "application/javascript"
                | "application/x-yaml"
                | "application/toml"
        );
    textual && !page.body.contains(&0)
}

/// The page as the tool's text: a header line, then the readable body, cut at `max_chars`.
fn readable(page: &Page, max_chars: usize) -> Result<String, String> {
    if !is_text(page) {
        return Err(format!(
            "{} is not text ({}, {} bytes): fetch_url returns only text",
            page.url,
            if page.media_type.is_empty() {
                "no type"
            } else {
                &page.media_type
            },
            page.body.len()
        ));
    }
    let raw = String::from_utf8_lossy(&page.body);
    let media_type = if page.media_type.is_empty() {
        "no type"
    } else {
        &page.media_type
    };
    let mut header = format!("{} ({media_type}, {} bytes)", page.url, page.body.len());
    let body = if is_html(page) {
        let readable = html::to_text(&raw, &page.url);
        if let Some(title) = readable.title {
            header.push_str(&format!("\nTitle: {title}"));
        }
        readable.text
    } else if is_json(&page.media_type) {
        serde_json::from_str::<Value>(&raw)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| raw.into_owned())
    } else {
        raw.into_owned()
    };
    let total = body.chars().count();
    let mut out = format!("{header}\n\n");
    out.extend(body.chars().take(max_chars));
    if total > max_chars {
        out.push_str(&format!(
            "\n\n[cut: the first {max_chars} of {total} characters; call again with a larger \
             max_chars (at most {LIMIT_MAX_CHARS}) for more]"
        ));
    }
    if page.cut {
        out.push_str(&format!(
            "\n\n[the response is larger than {MAX_BODY_BYTES} bytes: only its start was read]"
        ));
    }
    Ok(out)
}

pi_guest_sdk::export_tool!(FetchUrl);
