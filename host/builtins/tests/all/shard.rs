//! `grep`/`find` split between several instances of their component give what one instance
//! gives: same lines in the same order, same notices and details, on a tree with nested
//! ignore files, with and without the limits hit.

use crate::common::Ws;
use pi_builtin_tools::ToolOutput;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// A tree deep enough to be split (entries below the split depth in several subtrees), with
/// nested `.gitignore`/`.ignore` files that only an instance walking from the root applies.
fn tree() -> Ws {
    let ws = Ws::new();
    // A repository root, so that grep (ripgrep) applies the .gitignore files too.
    ws.write(".git/HEAD", "ref: refs/heads/main\n");
    ws.write(".gitignore", "*.log\nbuild/\n");
    ws.write("top.rs", "needle at the top\n");
    ws.write("build/out.rs", "needle ignored\n");
    for a in 0..4 {
        ws.write(&format!("a{a}/.gitignore"), "skip*\n/local.rs\n");
        ws.write(&format!("a{a}/local.rs"), "needle anchored ignore\n");
        for b in 0..6 {
            let dir = format!("a{a}/b{b}");
            ws.write(&format!("{dir}/keep.rs"), needles(a * 10 + b));
            ws.write(
                &format!("{dir}/skip_me.rs"),
                "needle ignored by the parent\n",
            );
            ws.write(&format!("{dir}/x.log"), "needle ignored by the root\n");
            ws.write(
                &format!("{dir}/c/deep.md"),
                "needle deep\nlong ".repeat(120),
            );
            if b == 2 {
                ws.write(&format!("{dir}/c/.ignore"), "deep.md\n");
            }
        }
    }
    ws
}

fn needles(n: usize) -> String {
    (0..=n % 7)
        .map(|i| format!("line {i} needle {n} {}\n", "x".repeat(n * 9)))
        .collect()
}

fn run(ws: &mut Ws, instances: usize, tool: &str, args: &Value) -> Result<ToolOutput, String> {
    ws.ctx.shards = instances;
    ws.ctx.shard_min_entries = 0;
    ws.run(tool, args.clone()).map_err(|e| e.message)
}

/// Details without the (long) truncated content.
fn brief(details: &Value) -> Value {
    let mut details = details.clone();
    if let Some(t) = details.get_mut("truncation").and_then(Value::as_object_mut) {
        t.remove("content");
    }
    details
}

/// Result lines without pi's trailing notice.
fn lines(out: &ToolOutput) -> Vec<String> {
    let text = out.joined_text();
    let body = text.split("\n\n[").next().unwrap_or_default().to_owned();
    body.lines().map(str::to_owned).collect()
}

#[test]
fn split_calls_give_what_one_instance_gives() {
    let mut ws = tree();
    let cases = [
        ("grep", json!({"pattern": "needle", "limit": 100_000})),
        (
            "grep",
            json!({"pattern": "needle ignored", "limit": 100_000}),
        ),
        (
            "grep",
            json!({"pattern": "NEEDLE", "ignoreCase": true, "context": 1, "limit": 100_000}),
        ),
        (
            "grep",
            json!({"pattern": "needle", "glob": "*.md", "limit": 100_000}),
        ),
        (
            "grep",
            json!({"pattern": "needle", "path": "a1", "limit": 100_000}),
        ),
        (
            "grep",
            json!({"pattern": "needle", "path": "a2/b3/keep.rs"}),
        ),
        ("grep", json!({"pattern": "nothing matches this"})),
        ("grep", json!({"pattern": "(unclosed"})),
        ("find", json!({"pattern": "*.rs"})),
        ("find", json!({"pattern": "skip*"})),
        ("find", json!({"pattern": "*"})),
        ("find", json!({"pattern": "a*/**/c"})),
        ("find", json!({"pattern": "*.rs", "path": "a3"})),
        ("find", json!({"pattern": "*.none"})),
        ("find", json!({"pattern": "*", "path": "missing"})),
    ];
    for (tool, args) in &cases {
        let one = run(&mut ws, 1, tool, args);
        for instances in [2, 3, 5] {
            let split = run(&mut ws, instances, tool, args);
            match (&one, &split) {
                (Ok(a), Ok(b)) => {
                    // Compared line by line: the outputs are too long to print whole.
                    let (la, lb) = (a.joined_text(), b.joined_text());
                    for (i, (x, y)) in la.lines().zip(lb.lines()).enumerate() {
                        assert_eq!(x, y, "{tool} {args} x{instances}: line {i}");
                    }
                    assert_eq!(la.len(), lb.len(), "{tool} {args} x{instances}");
                    assert_eq!(
                        brief(&a.details),
                        brief(&b.details),
                        "{tool} {args} x{instances}"
                    );
                    assert_eq!(a.details, b.details, "{tool} {args} x{instances}");
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{tool} {args} x{instances}"),
                _ => panic!("{tool} {args} x{instances}: {one:?} vs {split:?}"),
            }
        }
    }
    // The nested ignore files were applied by every shard.
    let ignored = json!({"pattern": "needle ignored|needle anchored", "limit": 100_000});
    let text = run(&mut ws, 3, "grep", &ignored).unwrap().joined_text();
    assert_eq!(text, "No matches found");
    let text = run(
        &mut ws,
        3,
        "find",
        &json!({"pattern": "{skip*,*.log,local.rs}"}),
    );
    assert_eq!(
        text.unwrap().joined_text(),
        "No files found matching pattern"
    );
    let deep = run(&mut ws, 3, "find", &json!({"pattern": "deep.md"})).unwrap();
    assert_eq!(lines(&deep).len(), 20, "{}", deep.joined_text());
    // The case the 50 KB cut applies to without the match limit (every line kept or counted
    // by the same rule): the shards' parts must not drop or double anything.
    let huge = json!({"pattern": "long|needle", "limit": 100_000});
    let one = run(&mut ws, 1, "grep", &huge).unwrap();
    assert!(
        one.details["truncation"]["truncated"] == json!(true),
        "{}",
        one.details
    );
    let split = run(&mut ws, 4, "grep", &huge).unwrap();
    assert!(one.joined_text() == split.joined_text());
    assert_eq!(one.details, split.details);
}

/// With the limit hit, which matches are kept depends on the walk order (as with ripgrep's
/// parallel walk); the count, the notices and the lines' validity do not.
#[test]
fn split_calls_hit_the_limits_like_one_instance() {
    let mut ws = tree();
    for (tool, pattern) in [("grep", "needle"), ("find", "*")] {
        let all: BTreeSet<String> = lines(
            &run(
                &mut ws,
                1,
                tool,
                &json!({"pattern": pattern, "limit": 100_000}),
            )
            .unwrap(),
        )
        .into_iter()
        .collect();
        let args = json!({"pattern": pattern, "limit": 7});
        let one = run(&mut ws, 1, tool, &args).unwrap();
        let split = run(&mut ws, 3, tool, &args).unwrap();
        assert_eq!(one.details, split.details, "{tool}");
        let (a, b) = (lines(&one), lines(&split));
        assert_eq!(a.len(), 7, "{tool}: {a:?}");
        assert_eq!(b.len(), 7, "{tool}: {b:?}");
        assert!(b.iter().all(|l| all.contains(l)), "{tool}: {b:?}");
        let mut sorted = b.clone();
        sorted.sort();
        if tool == "find" {
            assert_eq!(b, sorted, "find output is sorted");
        }
        assert!(
            one.joined_text()
                .ends_with("[7 matches limit reached. Use limit=14 for more, or refine pattern]")
                || one.joined_text().ends_with(
                    "[7 results limit reached. Use limit=14 for more, or refine pattern]"
                )
        );
        assert_eq!(
            one.joined_text().rsplit("\n\n").next(),
            split.joined_text().rsplit("\n\n").next()
        );
    }
}
