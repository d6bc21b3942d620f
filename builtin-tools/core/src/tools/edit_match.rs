//! Locating `edit`'s old texts: exact matching first, then pi's normalised ("fuzzy") matching,
//! and applying all replacements against the original content at once.

use unicode_normalization::UnicodeNormalization;

/// Why a set of edits cannot be applied; indices refer to the `edits` array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MatchError {
    NotFound(usize),
    NotUnique { index: usize, count: usize },
    Overlap(usize, usize),
}

/// One located replacement: a byte range of the matching space and its new text.
#[derive(Debug, Clone)]
struct Located {
    index: usize,
    start: usize,
    end: usize,
    new_text: String,
}

/// pi's fuzzy normal form: NFKC, typographic quotes/dashes/spaces made plain, trailing
/// whitespace trimmed on every line. Line structure is preserved.
pub(crate) fn normalize_fuzzy(text: &str) -> String {
    let lines: Vec<String> = text.split('\n').map(normalize_line).collect();
    lines.join("\n")
}

fn normalize_line(line: &str) -> String {
    let mapped: String = line.nfkc().map(plain_char).collect();
    mapped.trim_end().to_string()
}

fn plain_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Applies every `(old, new)` pair to `content` (LF line endings), all matched against the
/// original. Returns the new content.
pub(crate) fn apply_edits(content: &str, edits: &[(String, String)]) -> Result<String, MatchError> {
    let fuzzy_content = normalize_fuzzy(content);
    let exact = edits.iter().all(|(old, _)| content.contains(old.as_str()));
    let mut located = Vec::with_capacity(edits.len());
    for (index, (old, new)) in edits.iter().enumerate() {
        let fuzzy_old = normalize_fuzzy(old);
        let count = occurrences(&fuzzy_content, &fuzzy_old);
        let (space, needle) = if exact {
            (content, old.as_str())
        } else {
            (fuzzy_content.as_str(), fuzzy_old.as_str())
        };
        let start = match space.find(needle) {
            Some(start) if !needle.is_empty() => start,
            _ => return Err(MatchError::NotFound(index)),
        };
        // Uniqueness is judged in the normalised space, so near-duplicates count too.
        let count = if count == 0 {
            occurrences(space, needle)
        } else {
            count
        };
        if count > 1 {
            return Err(MatchError::NotUnique { index, count });
        }
        located.push(Located {
            index,
            start,
            end: start + needle.len(),
            new_text: new.clone(),
        });
    }
    located.sort_by_key(|l| l.start);
    check_overlaps(&located)?;
    if exact {
        Ok(replace_ranges(content, 0, &located))
    } else {
        Ok(rebuild_touched_lines(content, &fuzzy_content, &located))
    }
}

fn occurrences(haystack: &str, needle: &str) -> usize {
    if needle.is_empty() {
        0
    } else {
        haystack.matches(needle).count()
    }
}

fn check_overlaps(sorted: &[Located]) -> Result<(), MatchError> {
    for pair in sorted.windows(2) {
        if pair[1].start < pair[0].end {
            let (a, b) = (pair[0].index, pair[1].index);
            return Err(MatchError::Overlap(a.min(b), a.max(b)));
        }
    }
    Ok(())
}

/// Replaces sorted, disjoint ranges of `text`; range offsets are relative to `base`.
fn replace_ranges(text: &str, base: usize, sorted: &[Located]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for l in sorted {
        out.push_str(&text[cursor..l.start - base]);
        out.push_str(&l.new_text);
        cursor = l.end - base;
    }
    out.push_str(&text[cursor..]);
    out
}

/// Byte ranges of the lines of `text`, each including its trailing `\n`.
fn line_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            spans.push((start, i + 1));
            start = i + 1;
        }
    }
    spans.push((start, text.len()));
    spans
}

fn line_of(spans: &[(usize, usize)], pos: usize) -> usize {
    spans
        .partition_point(|&(_, end)| end <= pos)
        .min(spans.len() - 1)
}

/// Fuzzy mode: lines touched by an edit are rewritten from the normalised text with the
/// replacements applied; every other line keeps its original bytes.
fn rebuild_touched_lines(original: &str, normalized: &str, sorted: &[Located]) -> String {
    let orig_spans = line_spans(original);
    let norm_spans = line_spans(normalized);
    if orig_spans.len() != norm_spans.len() {
        // Normalisation changed the line structure (should not happen); fall back to the
        // normalised text as a whole.
        return replace_ranges(normalized, 0, sorted);
    }
    let mut out = String::with_capacity(original.len());
    let mut next_line = 0;
    let mut i = 0;
    while i < sorted.len() {
        let first = line_of(&norm_spans, sorted[i].start);
        let mut last = line_of(
            &norm_spans,
            sorted[i].end.saturating_sub(1).max(sorted[i].start),
        );
        let mut j = i + 1;
        while j < sorted.len() && line_of(&norm_spans, sorted[j].start) <= last {
            last = last.max(line_of(
                &norm_spans,
                sorted[j].end.saturating_sub(1).max(sorted[j].start),
            ));
            j += 1;
        }
        for span in &orig_spans[next_line..first] {
            out.push_str(&original[span.0..span.1]);
        }
        let (cs, ce) = (norm_spans[first].0, norm_spans[last].1);
        out.push_str(&replace_ranges(&normalized[cs..ce], cs, &sorted[i..j]));
        next_line = last + 1;
        i = j;
    }
    for span in &orig_spans[next_line..] {
        out.push_str(&original[span.0..span.1]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn fuzzy_keeps_untouched_lines_byte_exact() {
        let content = "a \u{201C}x\u{201D}  \nkeep\u{00A0}me  \nlast";
        let out = apply_edits(content, &[pair("a \"x\"", "b")]).unwrap();
        assert_eq!(out, "b\nkeep\u{00A0}me  \nlast");
    }

    #[test]
    fn overlap_is_reported_in_index_order() {
        let err = apply_edits("abcdef", &[pair("cde", "1"), pair("abc", "2")]).unwrap_err();
        assert_eq!(err, MatchError::Overlap(0, 1));
    }
}
