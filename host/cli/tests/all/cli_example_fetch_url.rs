//! The `fetch-url` example (`extensions/fetch-url`, a Rust tool on WIT 0.3.0 that reaches the
//! network through `wasi:http`): installed with its `network` list edited to 127.0.0.1, as its
//! README tells a user to do, it fetches pages from a loopback HTTP server the test runs and
//! the readable text reaches the model; a host it was not granted is refused before any
//! connection, as a tool error, and the run goes on.

use super::cli_extension_examples::built_package;
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// A loopback HTTP/1.1 server answering `GET <path>` with fixed bodies (404 for others), one
/// connection per request; it records the paths asked for.
struct Server {
    port: u16,
    paths: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(pages: Vec<(&'static str, &'static str, String)>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let paths = Arc::new(Mutex::new(Vec::new()));
        let seen = paths.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                reader.read_line(&mut head).unwrap();
                let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
                loop {
                    let mut header = String::new();
                    reader.read_line(&mut header).unwrap();
                    if header.trim().is_empty() {
                        break;
                    }
                }
                seen.lock().unwrap().push(path.clone());
                let (status, media_type, body) = pages.iter().find(|(p, _, _)| *p == path).map_or(
                    ("404 Not Found", "text/plain", "no such page"),
                    |(_, t, b)| ("200 OK", *t, b.as_str()),
                );
                let response = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {media_type}\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{body}",
                    body.len()
                );
                stream.write_all(response.as_bytes()).unwrap();
            }
        });
        Server { port, paths }
    }

    fn paths(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
}

const PAGE: &str = r#"<!DOCTYPE html>
<html><head><title>Release   notes</title>
<style>body { color: red }</style>
<script>if (a < b) { document.write("<p>never</p>"); }</script>
</head>
<body>
  <h1>Version 2.0</h1>
  <p>The   new release
     brings <a href="/docs/upgrade.html">the upgrade guide</a> and
     <a href="https://example.com/">https://example.com/</a>.</p>
  <ul><li>faster &amp; smaller</li><li>fixed &lt;bugs&gt;</li></ul>
  <h2>Thanks</h2>
  <!-- <p>hidden</p> -->
</body></html>"#;

/// The tool result for call `id` in request `request` of the run.
fn tool_result(pi: &PiEnv, request: usize, id: &str) -> Value {
    let requests = pi.mock.requests();
    let messages = requests[request].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    messages
        .into_iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in request {request}"))
}

#[test]
fn fetch_url_returns_readable_text_from_a_granted_host_and_refuses_others() {
    let server = Server::start(vec![
        ("/notes.html", "text/html; charset=utf-8", PAGE.to_owned()),
        (
            "/data.json",
            "application/json",
            r#"{"name":"pi","tags":["a","b"]}"#.to_owned(),
        ),
    ]);
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = built_package(&pi, pi_extension_examples::FETCH_URL, "fetch-url.wasm");
    // What the README asks a user to do: put the hosts to reach in the list.
    let manifest = package.join("pi-extension.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        text.contains("network = [\"docs.rs\", \"example.com\"]"),
        "{text}"
    );
    std::fs::write(
        &manifest,
        text.replace(
            "network = [\"docs.rs\", \"example.com\"]",
            "network = [\"127.0.0.1\"]",
        ),
    )
    .unwrap();
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let info = stdout(&pi.run(&["ext", "info", "fetch-url"]));
    assert!(info.contains("wit: 0.3.0"), "{info}");
    assert!(info.contains("fetch-url.wasm (tool)"), "{info}");
    assert!(
        info.contains("granted: reach these hosts: 127.0.0.1"),
        "{info}"
    );

    let page = format!("http://127.0.0.1:{}/notes.html", server.port);
    let data = format!("http://127.0.0.1:{}/data.json", server.port);
    let elsewhere = format!("http://localhost:{}/notes.html", server.port);
    pi.mock
        .push(Turn::new().tool_call("c1", "fetch_url", json!({"url": page})));
    pi.mock
        .push(Turn::new().tool_call("c2", "fetch_url", json!({"url": data, "max_chars": 20})));
    pi.mock
        .push(Turn::new().tool_call("c3", "fetch_url", json!({"url": elsewhere})));
    pi.mock.push(Turn::text("Read them."));
    let out = pi.run(&["--no-session", "-p", "Read the release notes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Read them.\n");

    let offered = pi.mock.requests()[0].body["tools"].to_string();
    assert!(offered.contains("fetch_url"), "{offered}");
    let notes = tool_result(&pi, 1, "c1");
    assert_eq!(
        notes["content"].as_str().unwrap(),
        format!(
            "{page} (text/html, {} bytes)\nTitle: Release notes\n\n\
             # Version 2.0\n\n\
             The new release brings the upgrade guide (http://127.0.0.1:{port}/docs/upgrade.html) \
             and https://example.com/.\n\n\
             - faster & smaller\n\
             - fixed <bugs>\n\n\
             ## Thanks",
            PAGE.len(),
            port = server.port
        ),
        "{notes}"
    );
    let json_text = tool_result(&pi, 2, "c2");
    assert_eq!(
        json_text["content"].as_str().unwrap(),
        format!(
            "{data} (application/json, 30 bytes)\n\n{{\n  \"name\": \"pi\",\n  \n\n\
             [cut: the first 20 of 52 characters; call again with a larger max_chars (at most \
             200000) for more]"
        ),
        "{json_text}"
    );
    let refused = tool_result(&pi, 3, "c3");
    let message = refused["content"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "cannot fetch {elsewhere}: HTTP request to localhost:{} denied: host not granted",
            server.port
        )),
        "{refused}"
    );
    // Refused before connecting: the server saw the two granted requests only.
    assert_eq!(server.paths(), ["/notes.html", "/data.json"]);
}
