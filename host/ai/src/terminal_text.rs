//! Text made safe for a terminal: the one function every string that pi writes to a terminal
//! passes through when it comes from anyone but pi itself (a model's answer, a provider's
//! error, a tool's result, a renderer component's lines, an extension's ids, a file's content).
//!
//! A terminal obeys the control characters in what it is given: ESC-introduced sequences set
//! the clipboard (OSC 52), make links (OSC 8), change the title (OSC 0/2), move the cursor and
//! rewrite the screen (CSI), and a bare CR or backspace lets a line pretend to be another. So
//! complete escape sequences (CSI, OSC, DCS, SOS, PM, APC and two-character ESC sequences, in
//! their 7-bit ESC form and in their C1 form U+0080–U+009F) are removed, and every other C0/C1
//! control character and DEL is made visible (Unicode control pictures for C0 and DEL, `\u{..}`
//! for C1). Only `\n` and `\t` may stay, and only where the [`Keep`] of the call site allows it
//! (text with lines, or a single line). Everything else — any printable character, multi-byte
//! UTF-8 included — is kept as it is. The UI's own styling never goes through this: it is
//! applied after, by pi.
//!
//! It lives in pi-ai because that is the one crate every face depends on (pi-tui, pi-cli,
//! pi-app, pi-packages, and pi-ext-host that validates extension ids), and because pi-ai is
//! where the first untrusted text (a provider's answer and errors) enters the host.

use std::borrow::Cow;

/// Which layout characters a call site can show as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Text with lines: `\n` and `\t` stay (and the `\r` of a `\r\n`).
    Lines,
    /// One line (a warning, a name): `\t` stays, `\n` is made visible.
    Line,
    /// One cell run of a drawn screen (a span of the UI): no layout character stays.
    Nothing,
}

/// `text` with escape sequences removed and other control characters made visible (see the
/// module doc); borrowed when there was nothing to change.
pub fn terminal_safe(text: &str, keep: Keep) -> Cow<'_, str> {
    if is_terminal_safe(text, keep) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(end) = sequence_end(&chars, i) {
            i = end;
            continue;
        }
        let crlf = c == '\r' && chars.get(i + 1) == Some(&'\n');
        if kept(c, keep) || (crlf && keep == Keep::Lines) {
            out.push(c);
        } else if is_control(c) {
            visible(c, &mut out);
        } else {
            out.push(c);
        }
        i += 1;
    }
    Cow::Owned(out)
}

/// Whether `text` holds anything [`terminal_safe`] would change.
pub fn is_terminal_safe(text: &str, keep: Keep) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let crlf = c == '\r' && keep == Keep::Lines && chars.peek() == Some(&'\n');
        if is_control(c) && !kept(c, keep) && !crlf {
            return false;
        }
    }
    true
}

/// C0, DEL and C1: what a terminal may act on.
fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

fn kept(c: char, keep: Keep) -> bool {
    match keep {
        Keep::Lines => c == '\n' || c == '\t',
        Keep::Line => c == '\t',
        Keep::Nothing => false,
    }
}

fn visible(c: char, out: &mut String) {
    match c {
        // U+2400..U+241F: SYMBOL FOR NULL … SYMBOL FOR UNIT SEPARATOR; U+2421: SYMBOL FOR DELETE.
        '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
        '\u{7f}' => out.push('\u{2421}'),
        _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// The kind of escape sequence starting at `chars[i]` (ESC form or C1 form), as the 7-bit
/// final character of its introducer: `[` CSI, `]` OSC, `P` DCS, `X` SOS, `^` PM, `_` APC;
/// `Some(None)` for an ESC that starts a two-character (or intermediate) sequence.
fn introducer(chars: &[char], i: usize) -> Option<(Option<char>, usize)> {
    match chars[i] {
        '\u{1b}' => match chars.get(i + 1) {
            Some(&c @ ('[' | ']' | 'P' | 'X' | '^' | '_')) => Some((Some(c), i + 2)),
            Some(_) => Some((None, i + 1)),
            None => None,
        },
        '\u{9b}' => Some((Some('['), i + 1)),
        '\u{9d}' => Some((Some(']'), i + 1)),
        '\u{90}' => Some((Some('P'), i + 1)),
        '\u{98}' => Some((Some('X'), i + 1)),
        '\u{9e}' => Some((Some('^'), i + 1)),
        '\u{9f}' => Some((Some('_'), i + 1)),
        _ => None,
    }
}

/// Where a complete escape sequence starting at `i` ends (exclusive); `None` when there is
/// none (a lone or malformed introducer, which is then made visible like any control).
fn sequence_end(chars: &[char], i: usize) -> Option<usize> {
    let (kind, body) = introducer(chars, i)?;
    match kind {
        Some('[') => csi_end(chars, body),
        Some(_) => string_end(chars, body),
        None => escape_end(chars, body),
    }
}

/// CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
fn csi_end(chars: &[char], mut j: usize) -> Option<usize> {
    while chars
        .get(j)
        .is_some_and(|c| ('\u{30}'..='\u{3f}').contains(c))
    {
        j += 1;
    }
    while chars
        .get(j)
        .is_some_and(|c| ('\u{20}'..='\u{2f}').contains(c))
    {
        j += 1;
    }
    chars
        .get(j)
        .filter(|c| ('\u{40}'..='\u{7e}').contains(*c))
        .map(|_| j + 1)
}

/// OSC, DCS, SOS, PM, APC: a string ended by BEL, ST (`ESC \` or U+009C).
fn string_end(chars: &[char], body: usize) -> Option<usize> {
    let mut j = body;
    while let Some(&c) = chars.get(j) {
        match c {
            '\u{7}' | '\u{9c}' => return Some(j + 1),
            '\u{1b}' if chars.get(j + 1) == Some(&'\\') => return Some(j + 2),
            _ => j += 1,
        }
    }
    None
}

/// ESC, intermediate bytes 0x20–0x2F, one final byte 0x30–0x7E (`ESC 7`, `ESC c`, `ESC ( B`).
fn escape_end(chars: &[char], mut j: usize) -> Option<usize> {
    while chars
        .get(j)
        .is_some_and(|c| ('\u{20}'..='\u{2f}').contains(c))
    {
        j += 1;
    }
    chars
        .get(j)
        .filter(|c| ('\u{30}'..='\u{7e}').contains(*c))
        .map(|_| j + 1)
}

#[cfg(test)]
mod tests {
    use super::{Keep, is_terminal_safe, terminal_safe};

    fn safe(text: &str) -> String {
        terminal_safe(text, Keep::Lines).into_owned()
    }

    #[test]
    fn plain_text_and_multi_byte_utf8_are_kept_borrowed() {
        for text in ["", "hello", "héllo wörld ✓ 日本語 🦀", "a\tb\nc\r\nd"] {
            let out = terminal_safe(text, Keep::Lines);
            assert!(matches!(out, std::borrow::Cow::Borrowed(_)), "{text:?}");
            assert_eq!(out, text);
        }
    }

    #[test]
    fn osc_sequences_are_removed_with_either_terminator() {
        assert_eq!(safe("a\x1b]52;c;aGVsbG8=\x07b"), "ab");
        assert_eq!(safe("a\x1b]52;c;aGVsbG8=\x1b\\b"), "ab");
        assert_eq!(
            safe("\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"),
            "click"
        );
        assert_eq!(safe("x\x1b]0;pwned title\x07y\x1b]2;other\x1b\\z"), "xyz");
    }

    #[test]
    fn csi_sequences_are_removed() {
        assert_eq!(safe("a\x1b[2J\x1b[1;1Hb"), "ab");
        assert_eq!(safe("\x1b[31mred\x1b[0m"), "red");
        assert_eq!(safe("up\x1b[7777Adown"), "updown");
        assert_eq!(safe("\x1b[?1049h\x1b[>4;2m!"), "!");
    }

    #[test]
    fn dcs_apc_pm_sos_and_two_character_escapes_are_removed() {
        assert_eq!(safe("a\x1bP1$qm\x1b\\b"), "ab");
        assert_eq!(safe("a\x1b_Ga=d\x1b\\b"), "ab");
        assert_eq!(safe("a\x1b^pm\x07b\x1bXsos\x1b\\c"), "abc");
        assert_eq!(safe("a\x1bcb\x1b7c\x1b(Bd"), "abcd");
    }

    #[test]
    fn c1_controls_in_utf8_form_are_removed_or_made_visible() {
        assert_eq!(safe("a\u{9b}2Jb"), "ab");
        assert_eq!(safe("a\u{9d}52;c;eA==\u{9c}b"), "ab");
        assert_eq!(safe("a\u{9d}0;t\x07b"), "ab");
        assert_eq!(safe("a\u{90}x\u{9c}b\u{9f}y\u{9c}c"), "abc");
        assert_eq!(safe("a\u{85}b\u{80}c\u{9c}"), "a\\u{85}b\\u{80}c\\u{9c}");
        for c in '\u{80}'..='\u{9f}' {
            let out = safe(&format!("x{c}"));
            assert!(
                !out.chars().any(|o| ('\u{80}'..='\u{9f}').contains(&o)),
                "{c:?}"
            );
        }
    }

    #[test]
    fn lone_and_unterminated_introducers_are_made_visible() {
        assert_eq!(safe("a\x1b"), "a␛");
        assert_eq!(safe("a\x1b]52;c;never ends"), "a␛]52;c;never ends");
        assert_eq!(safe("a\x1b[12"), "a␛[12");
        assert_eq!(safe("a\x1b[1\u{e9}"), "a␛[1\u{e9}");
        assert_eq!(safe("\u{9b}"), "\\u{9b}");
    }

    #[test]
    fn other_controls_and_del_are_made_visible() {
        assert_eq!(safe("a\rb"), "a␍b");
        assert_eq!(safe("a\x08b\x07c\x00d\x7fe"), "a␈b␇c␀d␡e");
        assert_eq!(safe("crlf\r\nkept"), "crlf\r\nkept");
    }

    #[test]
    fn what_stays_depends_on_the_call_site() {
        let text = "one\ttwo\nthree\r\n";
        assert_eq!(terminal_safe(text, Keep::Lines), text);
        assert_eq!(terminal_safe(text, Keep::Line), "one\ttwo␊three␍␊");
        assert_eq!(terminal_safe(text, Keep::Nothing), "one␉two␊three␍␊");
    }

    #[test]
    fn no_output_ever_holds_a_control_the_call_site_does_not_keep() {
        let mut seed: u64 = 0x5eed;
        let alphabet: Vec<char> =
            "\x1b[]P_^X\\;:0123456789?Hm\x07\u{9b}\u{9c}\u{9d}\u{90}\r\n\tabé日"
                .chars()
                .collect();
        for _ in 0..5000 {
            let mut text = String::new();
            for _ in 0..12 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            for keep in [Keep::Lines, Keep::Line, Keep::Nothing] {
                let out = terminal_safe(&text, keep);
                assert!(is_terminal_safe(&out, keep), "{text:?} -> {out:?}");
                let bad = out.chars().any(|c| {
                    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
                        && !(c == '\r' && keep == Keep::Lines)
                });
                assert!(!bad, "{text:?} -> {out:?}");
                assert!(!out.contains('\u{1b}'), "{text:?} -> {out:?}");
            }
        }
    }
}
