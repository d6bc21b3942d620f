//! The example packages of `extensions/`, installed as a user installs them (`pi ext install
//! <dir> --yes`, the component built next to the manifest) and used through the `pi` binary
//! against servers on loopback.

use super::cli_support::*;
use pi_extension_examples::Example;
use pi_mock_llm::Api;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A copy of `example`'s package directory with its built component in it, where a user has
/// it after building the package.
pub(super) fn built_package(pi: &PiEnv, example: Example, component_name: &str) -> PathBuf {
    let source = Path::new(example.dir);
    let dir = pi.root.path().join("src").join(source.file_name().unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["pi-extension.toml", "README.md"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    std::fs::copy(example.component, dir.join(component_name)).unwrap();
    dir
}

/// One line of an answer, and whether the server waits for the test's go before the next.
type Line = (Value, bool);

/// A small Ollama: `GET /api/tags` lists one model; each `POST /api/chat` is answered with
/// the next scripted list of NDJSON lines, written one at a time.
struct FakeOllama {
    port: u16,
    chats: Arc<Mutex<Vec<Value>>>,
    go: mpsc::Sender<()>,
}

impl FakeOllama {
    fn start(answers: Vec<Vec<Line>>) -> FakeOllama {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let chats = Arc::new(Mutex::new(Vec::new()));
        let (go, gate) = mpsc::channel::<()>();
        let seen = chats.clone();
        std::thread::spawn(move || {
            let mut answers = answers.into_iter();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let (path, body) = read_request(&stream);
                if path == "/api/tags" {
                    respond(
                        stream,
                        &[(json!({"models": [{"name": "qwen3:8b"}]}), false)],
                        &gate,
                    );
                    continue;
                }
                seen.lock()
                    .unwrap()
                    .push(serde_json::from_slice(&body).unwrap());
                respond(stream, &answers.next().unwrap_or_default(), &gate);
            }
        });
        FakeOllama { port, chats, go }
    }

    fn chats(&self) -> Vec<Value> {
        self.chats.lock().unwrap().clone()
    }
}

/// The path and body of one request (a body of `content-length` bytes or chunked, as the
/// component's HTTP client sends it).
fn read_request(stream: &TcpStream) -> (String, Vec<u8>) {
    let mut reader = BufReader::new(stream);
    let mut line = || {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        line
    };
    let head = line();
    let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
    let (mut length, mut chunked) = (0, false);
    loop {
        let header = line();
        if header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or_default();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().unwrap();
        }
        if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.trim().eq_ignore_ascii_case("chunked");
        }
    }
    let mut body = Vec::new();
    if !chunked {
        body.resize(length, 0);
        reader.read_exact(&mut body).unwrap();
        return (path, body);
    }
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk).unwrap();
        if size == 0 {
            return (path, body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

/// Writes `lines` as a chunked NDJSON body, each line in its own chunk.
fn respond(mut stream: TcpStream, lines: &[Line], gate: &mpsc::Receiver<()>) {
    stream
        .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")
        .unwrap();
    for (line, wait) in lines {
        let text = format!("{line}\n");
        stream
            .write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes())
            .unwrap();
        stream.flush().unwrap();
        // Without the go (pi held the piece back), the answer ends in an error, which fails
        // the run instead of hanging the test.
        if *wait && gate.recv_timeout(Duration::from_secs(60)).is_err() {
            let error = json!({"error": "the first piece never reached pi's output"});
            let text = format!("{error}\n");
            stream
                .write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes())
                .unwrap();
            break;
        }
    }
    stream.write_all(b"0\r\n\r\n").unwrap();
}

fn piece(content: &str) -> Value {
    json!({"model": "qwen3:8b", "message": {"role": "assistant", "content": content}, "done": false})
}

fn done(prompt: u64, output: u64) -> Value {
    json!({"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": true,
           "done_reason": "stop", "prompt_eval_count": prompt, "eval_count": output})
}

#[test]
fn the_ollama_provider_streams_each_piece_as_it_arrives_and_calls_tools() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::write(pi.cwd().join("notes.txt"), "the answer is 42\n").unwrap();
    let ollama = FakeOllama::start(vec![
        vec![
            (
                json!({"model": "qwen3:8b", "message": {"role": "assistant", "content": "",
                    "tool_calls": [{"function": {"name": "read", "arguments": {"path": "notes.txt"}}}]},
                    "done": false}),
                false,
            ),
            (done(30, 5), false),
        ],
        vec![
            (piece("The notes "), true),
            (piece("say 42."), false),
            (done(60, 7), false),
        ],
    ]);
    let package = built_package(&pi, pi_extension_examples::OLLAMA, "ollama.wasm");
    let out = pi.run(&["ext", "install", package.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));

    // Ollama takes no key, but pi wants one per provider: the README says to store any.
    let out = pi.run_with_stdin(&["auth", "login", "ollama", "--api-key"], "none\n");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));

    let host = format!("127.0.0.1:{}", ollama.port);
    let mut child = pi
        .command(&[
            "--model",
            "ollama/qwen3:8b",
            "--mode",
            "json",
            "-p",
            "What do my notes say?",
        ])
        .env("OLLAMA_HOST", &host)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut deltas = Vec::new();
    for line in stdout.lines() {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        let inner = &event["assistantMessageEvent"];
        if event["type"] == "message_update" && inner["type"] == "text_delta" {
            deltas.push(inner["delta"].as_str().unwrap().to_owned());
            // The server holds the rest of the answer until the first piece is seen here.
            if deltas.len() == 1 {
                ollama.go.send(()).unwrap();
            }
        }
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(child.wait().unwrap().success(), "stderr: {err}");
    assert_eq!(deltas, ["The notes ", "say 42."]);

    let chats = ollama.chats();
    assert_eq!(chats.len(), 2, "{chats:?}");
    assert_eq!(chats[0]["model"], "qwen3:8b");
    assert_eq!(chats[0]["stream"], true);
    let tools: Vec<&str> = chats[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"read"), "{tools:?}");
    // The tool ran, and its result went back the way Ollama reads it.
    let sent = chats[1]["messages"].as_array().unwrap();
    let call = &sent[sent.len() - 2];
    assert_eq!(
        call["tool_calls"][0]["function"]["arguments"]["path"],
        "notes.txt"
    );
    let result = &sent[sent.len() - 1];
    assert_eq!(result["role"], "tool");
    assert_eq!(result["tool_name"], "read");
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("the answer is 42"),
        "{result}"
    );
    let lines = pi.session_lines();
    assert_complete_session(&lines);
    let last = messages(&lines).last().copied().cloned().unwrap();
    assert_eq!(last["usage"]["input"], 60, "{last}");
    assert_eq!(last["usage"]["output"], 7, "{last}");
}
