//! Wrapping text to a width in terminal cells. Widths come from `unicode-width`, so CJK and
//! emoji take two cells and combining marks none; words move to the next line whole when they
//! fit on one, and a word longer than the width is cut at a character boundary.
//!
//! Every line is first made [`screen_text`]: what a model, a tool or a file says reaches the
//! screen (and the transcript printed at exit) without the escape sequences and control
//! characters a terminal would act on, and is measured as it will be shown.

use pi_ai::terminal_text::{Keep, terminal_safe};
use std::borrow::Cow;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Cells a tab takes on screen (as in code blocks).
const TAB: &str = "    ";

/// `text` (one screen line's worth, no `\n`) as the screen may show it: a tab becomes spaces,
/// escape sequences are removed and other control characters made visible
/// (`pi_ai::terminal_text`).
pub fn screen_text(text: &str) -> Cow<'_, str> {
    if text.contains('\t') {
        Cow::Owned(terminal_safe(&text.replace('\t', TAB), Keep::Nothing).into_owned())
    } else {
        terminal_safe(text, Keep::Nothing)
    }
}

/// `text` wrapped to `width` cells: one entry per screen line, `\n` breaks kept.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line in text.split('\n') {
        wrap_line(&screen_text(line.trim_end_matches('\r')), width, &mut out);
    }
    out
}

/// How many screen lines `wrap(text, width)` makes, without building the lines that fit.
pub fn rows(text: &str, width: usize) -> usize {
    let width = width.max(1);
    let mut scratch = Vec::new();
    text.split('\n')
        .map(|line| {
            let line = screen_text(line.trim_end_matches('\r'));
            // Every word of a line that fits fits where it is: one screen line. No character
            // takes more cells than it has bytes, so most lines need no measuring.
            if line.len() <= width || line.width() <= width {
                return 1;
            }
            scratch.clear();
            wrap_line(&line, width, &mut scratch);
            scratch.len()
        })
        .sum()
}

fn wrap_line(line: &str, width: usize, out: &mut Vec<String>) {
    let mut current = String::new();
    let mut used = 0;
    for word in split_keeping_spaces(line) {
        let w = word.width();
        // Trailing spaces may hang past the edge: they are trimmed at the break.
        if used + word.trim_end().width() <= width {
            current.push_str(word);
            used += w;
            continue;
        }
        if !current.is_empty() {
            out.push(current.trim_end().to_owned());
            current = String::new();
            used = 0;
        }
        let word = if word.trim().is_empty() { "" } else { word };
        for ch in word.chars() {
            let cw = ch.width().unwrap_or(0);
            if used + cw > width && !current.is_empty() {
                out.push(std::mem::take(&mut current));
                used = 0;
            }
            current.push(ch);
            used += cw;
        }
    }
    out.push(current.trim_end().to_owned());
}

/// Words with the spaces that follow them.
fn split_keeping_spaces(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let word_end = rest.find(' ').unwrap_or(rest.len());
        let end = rest[word_end..]
            .find(|c| c != ' ')
            .map_or(rest.len(), |i| word_end + i);
        let (word, tail) = rest.split_at(end);
        rest = tail;
        Some(word)
    })
}

/// The longest start of `text` that fits in `width` cells.
pub fn take_width(text: &str, width: usize) -> String {
    let mut used = 0;
    text.chars()
        .take_while(|ch| {
            used += ch.width().unwrap_or(0);
            used <= width
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{rows, wrap};

    #[test]
    fn words_move_whole_and_long_words_are_cut() {
        assert_eq!(wrap("hello big world", 9), ["hello big", "world"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb", 10), ["a", "", "b"]);
    }

    #[test]
    fn wide_characters_take_two_cells() {
        assert_eq!(wrap("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
        // A combining accent adds no width.
        assert_eq!(
            wrap("e\u{301}e\u{301}e\u{301}", 2),
            ["e\u{301}e\u{301}", "e\u{301}"]
        );
    }

    #[test]
    fn control_characters_never_reach_a_screen_line() {
        let text = "a\x1b]52;c;eA==\x07b\x1b[7777Ac\u{9b}2Jd\te\rf\r\ng\x1b";
        assert_eq!(wrap(text, 80), ["abcd    e␍f", "g␛"]);
        assert_eq!(rows(text, 80), 2);
        assert_eq!(
            wrap("\x1b]8;;http://x/\x07link\x1b]8;;\x07 ok", 4),
            ["link", "ok"]
        );
    }

    #[test]
    fn rows_count_what_wrap_makes() {
        let texts = [
            "",
            "short",
            "hello big world\n\nand a line that is much longer than the width here\r\n",
            "abcdefghijklmnopqrstuvwxyz",
            "日本語のテキスト 日本語のテキスト",
            "👩‍👩‍👧 family, e\u{301}e\u{301} and trailing spaces     \n   ",
            "tabs\tand\x1b[31m colours\x1b[0m and \u{7}bells\u{9b} in a long line",
        ];
        for text in texts {
            for width in [0, 1, 2, 5, 9, 80] {
                assert_eq!(
                    rows(text, width),
                    wrap(text, width).len(),
                    "{text:?} at {width}"
                );
            }
        }
    }
}
