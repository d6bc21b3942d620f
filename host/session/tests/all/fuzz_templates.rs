//! Property tests of prompt-template expansion: argument splitting and substitution never panic
//! on any text or any argument reference, and `${@:N:L}` slices as specified for every `N`
//! and `L` up to `usize::MAX`.

use pi_fuzz::Gen;
use pi_session::prompt_templates::{parse_args, substitute};

const TEMPLATE_TOKENS: &[&str] = &[
    "$",
    "$1",
    "$0",
    "$@",
    "$ARGUMENTS",
    "${",
    "}",
    "${@:",
    "${1:-",
    ":-",
    ":",
    "${ARGUMENTS:-x}",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "\"",
    "'",
];

#[test]
fn huge_slice_lengths_saturate() {
    let args: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    assert_eq!(substitute("${@:2:18446744073709551615}", &args), "b c");
    assert_eq!(substitute("${@:18446744073709551615:1}", &args), "");
    assert_eq!(
        substitute("${@:18446744073709551615:18446744073709551615}", &args),
        ""
    );
}

#[test]
fn any_template_and_arguments_expand_without_panicking() {
    pi_fuzz::run("templates/substitute", 3000, |g| {
        let content = g.string_with(30, TEMPLATE_TOKENS);
        let args = parse_args(&g.string_with(12, TEMPLATE_TOKENS));
        let out = substitute(&content, &args);
        // Text without `$` is returned as it is.
        if !content.contains('$') {
            assert_eq!(out, content);
        }
    });
}

#[test]
fn slices_match_the_specification() {
    pi_fuzz::run("templates/slices", 2000, |g| {
        let args: Vec<String> = (0..g.below(5)).map(|i| format!("a{i}")).collect();
        let edge = |g: &mut Gen| match g.below(3) {
            0 => g.below(8),
            1 => usize::MAX - g.below(2),
            _ => g.u64() as usize,
        };
        let (start, len) = (edge(g), edge(g));
        let from = start.saturating_sub(1).min(args.len());
        let to = from.saturating_add(len).min(args.len());
        assert_eq!(
            substitute(&format!("${{@:{start}:{len}}}"), &args),
            args[from..to].join(" ")
        );
        assert_eq!(
            substitute(&format!("${{@:{start}}}"), &args),
            args[from..].join(" ")
        );
    });
}
