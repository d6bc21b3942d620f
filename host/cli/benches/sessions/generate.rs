//! Session files of a given size and shape, written the way pi writes them (one JSON object a
//! line, ids chained through `parentId`), for the sessions bench.

use serde_json::{Value, json};
use std::io::{BufWriter, Write};
use std::path::Path;

/// What the file holds besides its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One branch of user / assistant (tool call) / tool result turns.
    Branch,
    /// Eight branches of equal size, each forked near the start; the last is current.
    Branches,
    /// One branch with a compaction every fifth of the file: the context is the last part.
    Compacted,
    /// One branch whose turns carry a 48 KB image and a 256 KB tool result.
    Media,
}

impl Shape {
    pub const ALL: [Shape; 4] = [
        Shape::Branch,
        Shape::Branches,
        Shape::Compacted,
        Shape::Media,
    ];

    /// The name `PI_BENCH_SHAPES` uses.
    pub fn key(self) -> &'static str {
        match self {
            Shape::Branch => "branch",
            Shape::Branches => "branches",
            Shape::Compacted => "compacted",
            Shape::Media => "media",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::Branch => "one branch",
            Shape::Branches => "8 branches",
            Shape::Compacted => "compacted",
            Shape::Media => "images + big results",
        }
    }
}

/// Writes lines and remembers the last id, the byte count and every id written.
struct Writer<W: Write> {
    out: W,
    bytes: u64,
    next: u64,
    ids: Vec<String>,
}

impl<W: Write> Writer<W> {
    fn line(&mut self, value: &Value) {
        let text = value.to_string();
        self.out.write_all(text.as_bytes()).unwrap();
        self.out.write_all(b"\n").unwrap();
        self.bytes += text.len() as u64 + 1;
    }

    fn entry(&mut self, parent: Option<&str>, kind: &str, fields: Value) -> String {
        let id = format!("{:08x}", self.next);
        self.next += 1;
        let mut value = json!({
            "type": kind, "id": id, "parentId": parent,
            "timestamp": stamp(self.next),
        });
        if let (Value::Object(map), Value::Object(extra)) = (&mut value, fields) {
            map.extend(extra);
        }
        self.line(&value);
        self.ids.push(id.clone());
        id
    }

    fn message(&mut self, parent: Option<&str>, message: Value) -> String {
        self.entry(parent, "message", json!({ "message": message }))
    }

    /// One turn after `parent`: a user prompt, an assistant tool call, the tool's result.
    fn turn(&mut self, parent: Option<&str>, n: u64, media: bool) -> String {
        let ms = 1_700_000_000_000 + n as i64 * 1000;
        let mut user = vec![
            json!({"type": "text", "text": format!("step {n}: look at src/file_{n}.rs and fix what is wrong")}),
        ];
        if media {
            user.push(
                json!({"type": "image", "mimeType": "image/png", "data": filler(48 * 1024, n)}),
            );
        }
        let user = self.message(
            parent,
            json!({"role": "user", "content": user, "timestamp": ms}),
        );
        let call = format!("call_{n:08}");
        let assistant = self.message(
            Some(&user),
            json!({
                "role": "assistant",
                "content": [
                    {"type": "text", "text": format!("Reading file {n} to check it.")},
                    {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": format!("src/file_{n}.rs")}}
                ],
                "api": "openai-completions", "provider": "mock", "model": "mock-model",
                "usage": {"input": 1000, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1050,
                          "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "toolUse", "timestamp": ms + 1
            }),
        );
        let size = if media { 256 * 1024 } else { 8 * 1024 };
        self.message(
            Some(&assistant),
            json!({
                "role": "toolResult", "toolCallId": call, "toolName": "read",
                "content": [{"type": "text", "text": source_text(size, n)}],
                "isError": false, "timestamp": ms + 2
            }),
        )
    }
}

fn stamp(n: u64) -> String {
    let secs = n % 60;
    let mins = (n / 60) % 60;
    let hours = (n / 3600) % 24;
    let day = 1 + (n / 86_400) % 28;
    format!("2026-01-{day:02}T{hours:02}:{mins:02}:{secs:02}.000Z")
}

/// Text that looks like a source file (so JSON escaping costs what it costs on real files).
fn source_text(bytes: usize, n: u64) -> String {
    let mut text = String::with_capacity(bytes + 80);
    let mut line = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "    let value_{line} = compute(\"{n}\", {line}); // step \"{line}\"\n"
        ));
        line += 1;
    }
    text
}

/// Base64-looking data of `bytes` characters.
fn filler(bytes: usize, n: u64) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..bytes)
        .map(|i| ALPHABET[(i as u64 * 7 + n) as usize % 64] as char)
        .collect()
}

/// Writes a session of about `mb` megabytes for `cwd` to `path`.
pub fn write_session(path: &Path, cwd: &Path, mb: u64, shape: Shape) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = Writer {
        out: BufWriter::with_capacity(1 << 20, file),
        bytes: 0,
        next: 1,
        ids: Vec::new(),
    };
    w.line(&json!({
        "type": "session", "version": 3, "id": "0195f3c0-0000-7000-8000-000000000001",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd.to_string_lossy(),
    }));
    let target = mb * 1024 * 1024;
    let media = shape == Shape::Media;
    let mut leaf = Some(w.entry(
        None,
        "model_change",
        json!({"provider": "mock", "modelId": "mock-model"}),
    ));
    let mut n = 0;
    let mut branch = 0;
    let mut compactions = 0;
    while w.bytes < target {
        n += 1;
        leaf = Some(w.turn(leaf.as_deref(), n, media));
        let share = w.bytes * 8 / target.max(1);
        if shape == Shape::Branches && share > branch {
            branch = share;
            // The next branch starts from an entry near the start of the file.
            leaf = w.ids.get(3).cloned();
        }
        let fifth = w.bytes * 5 / target.max(1);
        if shape == Shape::Compacted && fifth > compactions && w.bytes < target {
            compactions = fifth;
            let kept = w.ids[w.ids.len().saturating_sub(6)].clone();
            leaf = Some(w.entry(
                leaf.as_deref(),
                "compaction",
                json!({"summary": format!("Summary {compactions}: files were read and fixed."),
                       "firstKeptEntryId": kept, "tokensBefore": 50_000}),
            ));
        }
    }
    w.out.flush().unwrap();
}
