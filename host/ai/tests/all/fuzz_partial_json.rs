//! Property tests of the streaming tool-argument parser (`pi_ai::partial_json`): it never
//! panics, a complete document parses exactly as `serde_json` parses it, and feeding a text in
//! any split gives, after every fragment, what a one-shot parse of the text so far gives.

// Test helpers fail loudly: a broken fixture is a failed test.
#![allow(clippy::unwrap_used)]

use pi_ai::partial_json::{MAX_DEPTH, PartialJsonError, StreamingJson, parse};
use pi_fuzz::Gen;
use serde_json::{Map, Value};

/// The text cut at random places: after each fragment the incremental value and error must
/// equal a one-shot parse of the prefix.
fn assert_split_agrees(g: &mut Gen, text: &str) {
    let mut parser = StreamingJson::new();
    let mut value = Value::Object(Map::new());
    let mut end = 0;
    for piece in g.str_chunks(text) {
        parser.push(&mut value, piece);
        end += piece.len();
        let (whole, error) = parse(&text[..end]);
        assert_eq!(value, whole, "prefix {:?}", &text[..end]);
        assert_eq!(parser.error(), error.as_ref(), "prefix {:?}", &text[..end]);
    }
    assert!(value.is_object());
}

fn document(g: &mut Gen) -> String {
    let value = Value::Object(g.json_object(3));
    if g.bool() {
        serde_json::to_string(&value).unwrap()
    } else {
        serde_json::to_string_pretty(&value).unwrap()
    }
}

#[test]
fn complete_documents_parse_as_serde_json_parses_them() {
    pi_fuzz::run("partial_json/complete", 600, |g| {
        let text = document(g);
        let theirs: Value = serde_json::from_str(&text).unwrap();
        let (ours, error) = parse(&text);
        assert_eq!(error, None, "{text}");
        assert_eq!(ours, theirs, "{text}");
        // Same key order too (the maps keep insertion order).
        assert_eq!(ours.to_string(), theirs.to_string());
        assert_split_agrees(g, &text);
    });
}

#[test]
fn any_text_in_any_split_agrees_with_one_shot() {
    pi_fuzz::run("partial_json/arbitrary", 1500, |g| {
        let text = if g.bool() {
            format!("{{{}", g.string(40))
        } else {
            g.string(40)
        };
        assert_split_agrees(g, &text);
    });
}

#[test]
fn mutated_documents_never_panic_and_split_agrees() {
    pi_fuzz::run("partial_json/mutated", 1500, |g| {
        let seed = document(g);
        let text = g.mutate(&seed, &["\\u", "\\ud83d", "1e400", "-", "[[[["]);
        assert_split_agrees(g, &text);
        // When serde_json accepts the mutant as an object, so do we, with the same value.
        if let Ok(theirs @ Value::Object(_)) = serde_json::from_str::<Value>(&text) {
            assert_eq!(parse(&text), (theirs, None), "{text}");
        }
    });
}

#[test]
fn nesting_is_bounded_whatever_the_brackets() {
    pi_fuzz::run("partial_json/deep", 200, |g| {
        let depth = g.below(3 * MAX_DEPTH);
        let mut text = String::from("{\"a\":");
        for _ in 0..depth {
            text.push_str(if g.bool() { "[" } else { "{\"k\":" });
        }
        let (_, error) = parse(&text);
        assert_eq!(
            error == Some(PartialJsonError::TooDeep),
            depth >= MAX_DEPTH,
            "depth {depth}"
        );
        assert_split_agrees(g, &text);
    });
}
