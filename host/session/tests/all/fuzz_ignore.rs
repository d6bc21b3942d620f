//! Property tests of the skill scan's ignore rules: any pattern a package can ship, against
//! any path, is answered (no panic, no runaway matching), and the crafted patterns that made
//! the old backtracking matcher exponential finish.

use pi_fuzz::Gen;
use pi_session::skills::IgnoreRules;
use std::path::{Path, PathBuf};

const GLOB_TOKENS: &[&str] = &[
    "*", "**", "?", "/", "[", "]", "[!", "[^", "-", "!", "\\", "#", " ", "a", "b", ".md", "\n",
    "{", "}", ",",
];

fn path(g: &mut Gen) -> PathBuf {
    let mut path = PathBuf::from("/r");
    for _ in 0..=g.below(4) {
        let segment = g
            .string_with(6, &["a", "b", "*", ".", "[", "é"])
            .replace('/', "");
        path.push(if segment.is_empty() { "x" } else { &segment });
    }
    path
}

#[test]
fn any_pattern_against_any_path_is_answered() {
    pi_fuzz::run("ignore/patterns", 1500, |g| {
        let mut rules = IgnoreRules::default();
        rules.add_patterns(Path::new("/r"), &g.string_with(20, GLOB_TOKENS));
        if g.bool() {
            rules.add_patterns(Path::new("/r/a"), &g.string_with(10, GLOB_TOKENS));
        }
        for _ in 0..4 {
            let _ = rules.is_ignored(&path(g), g.bool());
        }
    });
}

/// Patterns with many `*`/`**` against a long name that almost matches: the old matcher tried
/// every way to split the name between the stars (tens of billions of steps here).
#[test]
fn star_heavy_patterns_finish() {
    let mut rules = IgnoreRules::default();
    let stars = "a*".repeat(20) + "b";
    let globstars = "**/a".repeat(12) + "/b";
    rules.add_patterns(Path::new("/r"), &format!("{stars}\n{globstars}\n"));
    let name = "a".repeat(80);
    assert!(!rules.is_ignored(&Path::new("/r").join(&name), false));
    let deep: PathBuf = std::iter::once("/r".to_owned())
        .chain(std::iter::repeat_n("a".to_owned(), 40))
        .collect();
    assert!(!rules.is_ignored(&deep, false));
    assert!(rules.is_ignored(&Path::new("/r").join(format!("{name}b")), false));
}

#[test]
fn gitignore_semantics_are_kept() {
    let mut rules = IgnoreRules::default();
    rules.add_patterns(
        Path::new("/r"),
        "drafts\n/top.md\n*.tmp\n!keep.tmp\nbuild/\ndocs/**/old\n\\#hash\nskill[0-9]\n",
    );
    rules.add_patterns(Path::new("/r/sub"), "!drafts\n");
    let cases = [
        ("/r/a/drafts", true, true),
        ("/r/sub/drafts", true, false),
        ("/r/top.md", false, true),
        ("/r/a/top.md", false, false),
        ("/r/x/y.tmp", false, true),
        ("/r/keep.tmp", false, false),
        ("/r/build", true, true),
        ("/r/build", false, false),
        ("/r/docs/a/b/old", true, true),
        ("/r/docs/old", true, true),
        ("/r/#hash", false, true),
        ("/r/skill3", true, true),
        ("/r/skillx", true, false),
        ("/r", true, false),
        ("/other/drafts", true, false),
    ];
    for (path, is_dir, ignored) in cases {
        assert_eq!(rules.is_ignored(Path::new(path), is_dir), ignored, "{path}");
    }
}
