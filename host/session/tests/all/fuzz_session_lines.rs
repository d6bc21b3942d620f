//! Property tests of session-file reading: a file made of real lines (pi's own v3 lines and the
//! v1 lines of the fixture) with some mutated, cut or replaced by noise always loads or is
//! refused with an error, never a panic; and every entry pi writes reads back equal (floats
//! to within a few ulps, see [`same`]).

use pi_fuzz::Gen;
use pi_session::session::SessionEntry;
use pi_session::session::file;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pi/before-compaction.jsonl")
}

/// The fixture's first lines (v1), and the same session migrated to v3 lines by pi itself.
fn seeds(dir: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let v1: Vec<String> = text.lines().take(60).map(str::to_owned).collect();
    let path = dir.join("seed.jsonl");
    std::fs::write(&path, v1.join("\n") + "\n").unwrap();
    let loaded = file::load(&path).unwrap();
    let mut v3 = vec![loaded.header.to_json().to_string()];
    v3.extend(loaded.entries.iter().map(SessionEntry::to_line));
    (v1, v3)
}

const LINE_TOKENS: &[&str] = &[
    "{",
    "}",
    "\"type\":",
    "\"message\"",
    "\"id\":",
    "\"parentId\":",
    "\"role\":",
    "\"content\":",
    "[]",
    "null",
    "\"version\":3",
    "\"compaction\"",
    "\"toolResult\"",
    "\"assistant\"",
];

fn mutate_line(g: &mut Gen, line: &str) -> String {
    match g.below(4) {
        0 => g.mutate(line, LINE_TOKENS),
        1 => {
            let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(line) else {
                return line.to_owned();
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            if let Some(key) = keys.get(g.below(keys.len())) {
                let replacement = g.json(2);
                map.insert(key.clone(), replacement);
            }
            Value::Object(map).to_string()
        }
        2 => g.string_with(30, LINE_TOKENS),
        _ => line[..g.boundary(line)].to_owned(),
    }
}

#[test]
fn mutated_session_files_load_or_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (v1, v3) = seeds(dir.path());
    let path = dir.path().join("case.jsonl");
    pi_fuzz::run("session/lines", 400, |g| {
        let source = if g.bool() { &v3 } else { &v1 };
        let mut lines: Vec<String> = vec![source[0].clone()];
        for _ in 0..g.below(12) {
            lines.push(g.pick(&source[1..]).clone());
        }
        for _ in 0..=g.below(3) {
            let at = g.below(lines.len() - 1);
            lines[at] = mutate_line(g, &lines[at]);
        }
        let mut text = lines.join("\n");
        if g.bool() {
            text.push('\n');
        }
        std::fs::write(&path, &text).unwrap();
        if let Ok(loaded) = file::load(&path) {
            assert!(loaded.entries.len() <= lines.len());
        }
    });
}

#[test]
fn entries_read_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let (_, v3) = seeds(dir.path());
    pi_fuzz::run("session/round-trip", 300, |g| {
        let line = g.pick(&v3[1..]).clone();
        let line = if g.bool() {
            mutate_line(g, &line)
        } else {
            line
        };
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            return;
        };
        let Ok(entry) = SessionEntry::from_json(value) else {
            return;
        };
        let again: Value = serde_json::from_str(&entry.to_line()).unwrap();
        let again = SessionEntry::from_json(again).unwrap();
        assert!(same(&again.to_json(), &entry.to_json()), "{line}");
    });
}

/// JSON equality, floats within a few ulps: serde_json (without its `float_roundtrip`
/// feature) may read a float it wrote one ulp off, which is no loss worth a test failure.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            (x - y).abs() <= 4.0 * f64::EPSILON * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, a), (l, b))| k == l && same(a, b))
        }
        _ => a == b,
    }
}

/// Found by `entries_read_back_as_written`: a `timestamp` that is not a string is kept in the
/// entry's extra fields, but writing the entry put an empty timestamp first, so the original
/// value was lost on the next read.
#[test]
fn a_non_string_timestamp_survives_a_rewrite() {
    let line = r#"{"type":"message","id":"a1","parentId":null,"timestamp":[1,"x"],"message":{"role":"user","content":"hi","timestamp":1}}"#;
    let entry = SessionEntry::from_json(serde_json::from_str(line).unwrap()).unwrap();
    let written: Value = serde_json::from_str(&entry.to_line()).unwrap();
    assert_eq!(written["timestamp"], serde_json::json!([1, "x"]));
    assert_eq!(SessionEntry::from_json(written).as_ref(), Ok(&entry));
}

/// The session's index (lazily held entries) and the whole file parsed agree on every mutated
/// v3 file: the same entries, the same warnings, the same repair.
#[test]
fn the_index_and_the_full_parse_agree() {
    let dir = tempfile::tempdir().unwrap();
    let (_, v3) = seeds(dir.path());
    let path = dir.path().join("index.jsonl");
    pi_fuzz::run("session/index", 300, |g| {
        let mut lines: Vec<String> = vec![v3[0].clone()];
        for _ in 0..g.below(12) {
            lines.push(g.pick(&v3[1..]).clone());
        }
        for _ in 0..=g.below(3) {
            let at = 1 + g.below(lines.len());
            if at < lines.len() {
                lines[at] = mutate_line(g, &lines[at]);
            }
        }
        let mut text = lines.join("\n");
        if g.bool() {
            text.push('\n');
        }
        std::fs::write(&path, &text).unwrap();
        let Ok(loaded) = file::load(&path) else {
            return;
        };
        let session = pi_session::session::SessionManager::open(&path, Path::new("/p")).unwrap();
        let full: Vec<Value> = loaded.entries.iter().map(SessionEntry::to_json).collect();
        let lazy: Vec<Value> = session.entries().iter().map(|e| e.to_json()).collect();
        assert_eq!(lazy, full, "{text}");
        assert_eq!(session.warnings(), &loaded.warnings[..], "{text}");
    });
}

/// Found by `the_index_and_the_full_parse_agree`: a lone surrogate escape in a message is
/// skipped by the index's head reader but rejected by a full parse; the index must report the
/// line as the full parse does, not hold it as an entry.
#[test]
fn a_lone_surrogate_in_a_message_is_reported_as_by_the_full_parse() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("surrogate.jsonl");
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let good = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"fine \u001b[0m","timestamp":1}}"#;
    let bad = r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"half \ud83d","timestamp":2}}"#;
    std::fs::write(&path, format!("{header}\n{good}\n{bad}\n")).unwrap();
    let loaded = file::load(&path).unwrap();
    let session = pi_session::session::SessionManager::open(&path, Path::new("/p")).unwrap();
    assert_eq!(loaded.warnings.len(), 1);
    assert_eq!(session.warnings(), &loaded.warnings[..]);
    assert_eq!(session.entry_count(), 1);
    assert_eq!(session.leaf_id(), Some("a1"));
}
