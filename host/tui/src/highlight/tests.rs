use super::*;

/// Asserts the spans tile the line exactly, on char boundaries, with no empty or unmerged spans.
fn check(line: &str, spans: &[(Kind, Range<usize>)]) {
    let mut pos = 0;
    for (n, (kind, r)) in spans.iter().enumerate() {
        assert_eq!(r.start, pos, "gap or overlap in {line:?}: {spans:?}");
        assert!(
            r.end > r.start && line.is_char_boundary(r.end),
            "{line:?}: {spans:?}"
        );
        assert!(
            n == 0 || spans[n - 1].0 != *kind,
            "unmerged in {line:?}: {spans:?}"
        );
        pos = r.end;
    }
    assert_eq!(pos, line.len(), "spans stop short in {line:?}: {spans:?}");
}

/// Runs source lines, each followed by its mask, through one highlighter per `lang: name` item,
/// so state carries over as in a real block. A mask has one letter per char of its source: `.` plain, `k`
/// keyword, `t` type, `f` function, `s` string, `n` number, `c` comment, `o` operator,
/// `p` punctuation, `+` added, `-` removed.
fn golden(items: &[&str]) {
    let mut lang = "";
    let mut h = None;
    let mut items = items.iter();
    while let Some(&line) = items.next() {
        if let Some(name) = line.strip_prefix("lang: ") {
            (lang, h) = (name, Highlighter::for_language(name));
            continue;
        }
        let spans = h.as_mut().expect("known language").line(line);
        check(line, &spans);
        let letter = |i| {
            let kind = spans
                .iter()
                .find(|(_, r)| r.contains(&i))
                .map(|s| s.0 as usize);
            kind.map_or('?', |k| char::from(b".ktfsncop+-"[k]))
        };
        let mask: std::string::String = line.char_indices().map(|(i, _)| letter(i)).collect();
        assert_eq!(Some(&mask.as_str()), items.next(), "{lang}: {line}");
    }
}

#[test]
fn spans_cover_and_merge() {
    let mut h = Highlighter::for_language("rust").unwrap();
    let spans = h.line("a  +=  b");
    assert_eq!(
        spans,
        [
            (Kind::Plain, 0..3),
            (Kind::Operator, 3..5),
            (Kind::Plain, 5..8)
        ]
    );
    assert!(h.line("").is_empty());
    for (lang, line) in [
        ("python", "def f(x):  return x ** 2  # sq"),
        ("js", "const a = [1, 2, 3].map((x) => x * 2);"),
        ("kotlin", r#"fun main() { val s = """a""" }"#),
        ("cs", r#"var s = @"C:\"; // path"#),
    ] {
        check(line, &Highlighter::for_language(lang).unwrap().line(line));
    }
}

#[test]
fn rust_tokens() {
    golden(&[
        "lang: rust",
        "pub fn main<'a>(x: &'a str) -> u32 { 'q' } // end",
        "kkk.kk.ffffottop.p.ott.tttp.oo.ttt.p.sss.p.cccccc",
        r##"let s = r#"a "q" b"#; println!("{}", 0xff_u8 + 1.5e-3);"##,
        "kkk...o.ssssssssssssp.fffffffopssssp.nnnnnnn.o.nnnnnnpp",
        r#"struct Foo; let v: Vec<T> = MAX + b"x".len(); 'l: loop {}"#,
        "kkkkkk.tttp.kkk..p.tttoto.o.....o.sssspfffppp.ttp.kkkk.pp",
        // Char literals, and a raw string over three lines.
        "lang: rust",
        r#"let c = '\n'; let r = r##"one"#,
        "kkk...o.ssssp.kkk...o.sssssss",
        r##"two "# still"##,
        "ssssssssssss",
        r###"three"##; /* start"###,
        "ssssssssp.cccccccc",
    ]);
}

#[test]
fn block_comment_over_three_lines() {
    golden(&[
        "lang: rust",
        "let a; /* start",
        "kkk..p.cccccccc",
        r#"middle "x" /* nested */"#,
        "ccccccccccccccccccccccc",
        "end */ x.0 != 1..2",
        "cccccc..pn.oo.nppn",
        // C comments do not nest; a backslash continues a string.
        "lang: c",
        "#include <stdio.h>",
        "kkkkkkkk.o.....p.o",
        r#"/* a /* b */ int x = 10; char *s = "a\"#,
        "cccccccccccc.ttt...o.nnp.tttt.o..o.sss",
        r#"b";"#,
        "ssp",
    ]);
}

#[test]
fn python_triple_quotes() {
    golden(&[
        "lang: py",
        "@dataclass",
        "p.........",
        "class Foo(Base):",
        "kkkkk.tttp....pp",
        "    def go(self, n: int) -> str:",
        "....kkk.ffpkkkkp..p.tttp.oo.tttp",
        r#"        return f"""first"#,
        "........kkkkkk.sssssssss",
        "second 'q' # no",
        "sssssssssssssss",
        r#"third""" + 'x'  # done"#,
        "ssssssss.o.sss..cccccc",
    ]);
}

#[test]
fn js_template_literal() {
    golden(&[
        "lang: ts",
        "const s = `a ${b}",
        "kkkkk...o.sssssss",
        "c // no",
        "sssssss",
        "d`; f(x);",
        "ssp.fp.pp",
        "export interface Foo { bar: number }",
        "kkkkkk.kkkkkkkkk.ttt.p....p.tttttt.p",
    ]);
}

#[test]
fn shell_comments_and_variables() {
    golden(&[
        "lang: bash",
        r#"echo a#b $HOME ${PATH:-/bin} "$x" # real"#,
        "ffff..p..ttttt.ttttttttttttt.ssss.cccccc",
        "export FOO=1 && ls -la | grep x",
        "kkkkkk.ttton.oo.ff.o...o.ffff..",
        "if [ -f x ]; then cat x; fi",
        "kk.p.o....pp.kkkk.fff..p.kk",
        "lang: console",
        "$ cargo test # go",
        "ppfffff......cccc",
        "running 3 tests",
        "...............",
    ]);
}

#[test]
fn diff_lines() {
    golden(&[
        "lang: patch",
        "--- a/x",
        ".......",
        "+++ b/x",
        ".......",
        "@@ -1,2 +1,2 @@",
        "kkkkkkkkkkkkkkk",
        "-old",
        "----",
        "+new",
        "++++",
        " same",
        ".....",
    ]);
}

#[test]
fn data_keys() {
    golden(&[
        "lang: json",
        r#"{"key": "value", "n": -1.5, "ok": true, "z": null}"#,
        "ptttttp.sssssssp.tttp.onnnp.ttttp.kkkkp.tttp.kkkkp",
        "lang: toml",
        "[server.main]  # c",
        "kkkkkkkkkkkkk..ccc",
        r#"a.b-c = "x" # c"#,
        "ttttt.o.sss.ccc",
        "t = { k = 1 }",
        "t.o.p.t.o.n.p",
        "lang: yml",
        "on: push",
        "ttp.....",
        "- url: http://x#y # c",
        "o.tttp.....poo.p..ccc",
        "  it: don't stop",
        "..ttp....p......",
    ]);
}

#[test]
fn markup_css_and_more() {
    golden(&[
        "lang: html",
        r#"<div class="a" id='b'>x &amp; y<!-- c"#,
        "pkkk.tttttosss.ttosssp..nnnnn..cccccc",
        "still -->",
        "ccccccccc",
        "<img",
        "pkkk",
        r#"  src="p.png"/>"#,
        "..tttossssssspp",
        "lang: css",
        "@media x { .btn:hover { color: #fff; width: calc(1px) } }",
        "kkkkkk.k.p.ttttp......p.tttttp.nnnnp.tttttp.ffffpnnnp.p.p",
        "lang: SQL",
        "SELECT name FROM t WHERE id >= 10; -- c",
        "kkkkkk......kkkk...kkkkk....oo.nnp.cccc",
        "lang: lua",
        "local x = [[long",
        "kkkkk...o.ssssss",
        "string]] --[[ block",
        "ssssssss.cccccccccc",
        "comment ]] -- line",
        "cccccccccc.ccccccc",
        "lang: cpp",
        "int n = 1'000; char c = 'x';",
        "ttt...o.nnnnnp.tttt...o.sssp",
        "lang: go",
        "func (s *S) Name() string { return `raw` }",
        "kkkk.p..o.p.ffffpp.tttttt.p.kkkkkk.sssss.p",
    ]);
}

#[test]
fn language_names() {
    for info in ["klingon", "", "   ", ",rust"] {
        assert!(Highlighter::for_language(info).is_none(), "{info:?}");
    }
    for info in ["rust,ignore", "RUST no_run", "C++", "Python3"] {
        assert!(Highlighter::for_language(info).is_some(), "{info:?}");
    }
}

#[test]
fn odd_inputs_never_panic() {
    let bits = r##"" ' ` \ /* */ // # <!-- --> < > r#" "# """ ''' ${ } $ 日本語 é 🎉 a Foo fn 0x 1.5e- _
        --[[ ]] [[ @ @" '\ 'a b' = : [ + - @@ +++ & ; é' '🎉' #[ r br## \\ { /> &# <a abc\ .5
        '\u{1F600}' href=" 'é"##;
    let bits: Vec<&str> = bits.split([' ', '\n']).chain(["\t", "\r", "\0"]).collect();
    let long = [
        "x".repeat(30_000),
        "\"é".repeat(5_000),
        "/* 🎉 ".repeat(3_000),
    ];
    let mut lines: Vec<std::string::String> = bits.iter().map(|s| s.to_string()).collect();
    lines.extend(long);
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as usize
    };
    for _ in 0..400 {
        let n = random() % 40;
        lines.push((0..n).map(|_| bits[random() % bits.len()]).collect());
    }
    for (name, _) in NAMES {
        let mut carried = Highlighter::for_language(name).unwrap();
        for line in &lines {
            check(line, &carried.line(line));
            check(line, &Highlighter::for_language(name).unwrap().line(line));
        }
    }
}

#[test]
fn ten_thousand_lines_quickly() {
    let src = "/// Doc.\npub fn f<'a>(x: &'a str) -> Option<u32> {\n    let s = r#\"raw\"#; // note\n    \
               x.parse::<u32>().ok().map(|n| n * 0x10 + 1_000) /* c */\n}\n";
    let mut h = Highlighter::for_language("rust").unwrap();
    let start = std::time::Instant::now();
    let lines = src.lines().cycle().take(10_000);
    let spans: usize = lines.map(|l| h.line(l).len()).sum();
    let elapsed = start.elapsed();
    assert!(
        spans > 10_000 && elapsed.as_secs() < 2,
        "{spans} spans in {elapsed:?}"
    );
}
