use crate::common::Ws;
use serde_json::json;

fn edit(old: &str, new: &str) -> serde_json::Value {
    json!({"oldText": old, "newText": new})
}

#[test]
fn single_edit_with_diff_details() {
    let ws = Ws::new();
    ws.write("f.txt", "a\nb\nc\nd\n");
    let out = ws
        .run("edit", json!({"path": "f.txt", "edits": [edit("c", "C")]}))
        .unwrap();
    assert_eq!(
        out.joined_text(),
        "Successfully replaced 1 block(s) in f.txt."
    );
    assert_eq!(ws.read("f.txt"), "a\nb\nC\nd\n");
    assert_eq!(out.details["firstChangedLine"], 3);
    let patch = out.details["patch"].as_str().unwrap();
    assert!(patch.contains("-c\n+C\n"), "{patch}");
    assert!(out.details["diff"].as_str().unwrap().contains("+3 C"));
}

#[test]
fn several_edits_matched_against_original() {
    let ws = Ws::new();
    ws.write("f.txt", "alpha\nbeta\ngamma\n");
    let text = ws.ok(
        "edit",
        json!({"path": "f.txt", "edits": [edit("gamma", "alpha"), edit("alpha", "ALPHA")]}),
    );
    assert_eq!(text, "Successfully replaced 2 block(s) in f.txt.");
    assert_eq!(ws.read("f.txt"), "ALPHA\nbeta\nalpha\n");
}

#[test]
fn legacy_pair_and_string_edits_are_accepted() {
    let ws = Ws::new();
    ws.write("f.txt", "one two three");
    ws.ok(
        "edit",
        json!({"path": "f.txt", "oldText": "two", "newText": "2"}),
    );
    assert_eq!(ws.read("f.txt"), "one 2 three");
    let edits = serde_json::to_string(&json!([edit("three", "3")])).unwrap();
    ws.ok(
        "edit",
        json!({"path": "f.txt", "edits": edits, "oldText": "one", "newText": "1"}),
    );
    assert_eq!(ws.read("f.txt"), "1 2 3");
}

#[test]
fn crlf_and_bom_are_preserved() {
    let ws = Ws::new();
    ws.write("f.txt", "\u{FEFF}line1\r\nline2\r\nline3\r\n");
    ws.ok(
        "edit",
        json!({"path": "f.txt", "edits": [edit("line2\nline3", "two\nthree\nfour")]}),
    );
    assert_eq!(
        ws.read("f.txt"),
        "\u{FEFF}line1\r\ntwo\r\nthree\r\nfour\r\n"
    );
    ws.write("lf.txt", "x\ny\n");
    ws.ok(
        "edit",
        json!({"path": "lf.txt", "edits": [edit("x\r\ny", "z")]}),
    );
    assert_eq!(ws.read("lf.txt"), "z\n");
}

#[test]
fn unicode_edits() {
    let ws = Ws::new();
    ws.write("u.txt", "naïve café 🚀 日本語\n");
    ws.ok(
        "edit",
        json!({"path": "u.txt", "edits": [edit("café 🚀", "bar 🛸"), edit("日本語", "中文")]}),
    );
    assert_eq!(ws.read("u.txt"), "naïve bar 🛸 中文\n");
}

#[test]
fn fuzzy_match_rewrites_only_touched_lines() {
    let ws = Ws::new();
    ws.write(
        "q.txt",
        "keep\u{00A0}this   \nsay \u{201C}hi\u{201D} \u{2014} now   \nalso keep\t\n",
    );
    ws.ok(
        "edit",
        json!({"path": "q.txt", "edits": [edit("say \"hi\" - now", "said hello")]}),
    );
    assert_eq!(
        ws.read("q.txt"),
        "keep\u{00A0}this   \nsaid hello\nalso keep\t\n"
    );
    ws.write("t.txt", "fn main() {    \n    x();\n}\n");
    ws.ok(
        "edit",
        json!({"path": "t.txt", "edits": [edit("fn main() {\n    x();", "fn main() {\n    y();")]}),
    );
    assert_eq!(ws.read("t.txt"), "fn main() {\n    y();\n}\n");
}

#[test]
fn not_found_errors() {
    let ws = Ws::new();
    ws.write("f.txt", "abc\n");
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("xyz", "1")]}),
    );
    assert_eq!(
        err,
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("abc", "1"), edit("xyz", "2")]}),
    );
    assert_eq!(
        err,
        "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines."
    );
    assert_eq!(ws.read("f.txt"), "abc\n", "all or nothing");
}

#[test]
fn not_unique_errors_count_fuzzy_duplicates() {
    let ws = Ws::new();
    ws.write("f.txt", "x = 1\nx = 1\n");
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("x = 1", "y")]}),
    );
    assert_eq!(
        err,
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("\nx", "z"), edit("x = 1", "y")]}),
    );
    assert_eq!(
        err,
        "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique. Please provide more context to make it unique."
    );
    ws.write("q.txt", "a 'x'\na \u{2018}x\u{2019}\n");
    let err = ws.err(
        "edit",
        json!({"path": "q.txt", "edits": [edit("a 'x'", "b")]}),
    );
    assert!(err.starts_with("Found 2 occurrences"), "{err}");
}

#[test]
fn overlapping_edits_are_refused() {
    let ws = Ws::new();
    ws.write("f.txt", "abcdef\n");
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("abcd", "1"), edit("cdef", "2")]}),
    );
    assert_eq!(
        err,
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
    assert_eq!(ws.read("f.txt"), "abcdef\n");
}

#[test]
fn no_change_errors() {
    let ws = Ws::new();
    ws.write("f.txt", "same\nother\n");
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("same", "same")]}),
    );
    assert_eq!(
        err,
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    );
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("same", "same"), edit("other", "other")]}),
    );
    assert!(
        err.starts_with("No changes made to f.txt. The replacements produced identical content."),
        "{err}"
    );
}

#[test]
fn missing_file_and_empty_old_text() {
    let ws = Ws::new();
    let err = ws.err(
        "edit",
        json!({"path": "none.txt", "edits": [edit("a", "b")]}),
    );
    assert_eq!(err, "Could not edit file: none.txt. Error code: ENOENT.");
    ws.write("f.txt", "abc");
    let err = ws.err("edit", json!({"path": "f.txt", "edits": [edit("", "b")]}));
    assert_eq!(err, "oldText must not be empty in f.txt.");
    let err = ws.err(
        "edit",
        json!({"path": "f.txt", "edits": [edit("a", "b"), edit("", "c")]}),
    );
    assert_eq!(err, "edits[1].oldText must not be empty in f.txt.");
}
