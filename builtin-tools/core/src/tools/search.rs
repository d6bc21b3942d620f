//! Helpers shared by `grep`, `find` and `ls`: result limits, notices, relative paths.

use crate::args::no_details;
use crate::truncate::{DEFAULT_MAX_BYTES, TruncatedBy, format_size, truncate_head};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::Path;

/// `path` relative to `base` with `/` separators (the path itself when it is not below).
pub(crate) fn relative_display(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    let text = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// Result lines of a search. Past 50 KB lines are only counted, so huge result sets cost no
/// formatting or memory while the truncation details still report the true totals.
#[derive(Default)]
pub(crate) struct Listing {
    lines: Vec<String>,
    kept_bytes: usize,
    extra_lines: usize,
    extra_bytes: usize,
}

impl Listing {
    /// Whether the next line is still stored (once the stored text exceeds 50 KB it is not).
    pub(crate) fn wants_text(&self) -> bool {
        self.kept_bytes <= DEFAULT_MAX_BYTES
    }

    pub(crate) fn push(&mut self, line: String) {
        if self.wants_text() {
            self.kept_bytes += line.len() + 1;
            self.lines.push(line);
        } else {
            self.count(line.len());
        }
    }

    /// Records a line of `len` bytes that will not be shown.
    pub(crate) fn count(&mut self, len: usize) {
        self.extra_lines += 1;
        self.extra_bytes += len + 1;
    }
}

impl Listing {
    /// Appends one result item of a shard's part: its stored lines (still subject to this
    /// listing's own 50 KB cut) and the lines the part only counted. A line the part counted
    /// lies past 50 KB of the part's own earlier lines, hence past this listing's cut too.
    pub(crate) fn push_item(&mut self, item: Item) {
        for line in item.lines {
            self.push(line);
        }
        self.extra_lines += item.extra_lines;
        self.extra_bytes += item.extra_bytes;
    }
}

/// One result item (a grep match with its context lines) with the same 50 KB economy as
/// [`Listing`]: lines past the budget of the part being built are only measured.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Item {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    #[serde(default, rename = "n", skip_serializing_if = "is_zero")]
    pub extra_lines: usize,
    #[serde(default, rename = "b", skip_serializing_if = "is_zero")]
    pub extra_bytes: usize,
    /// Whether a line of the item was cut to the maximum line length.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Builds the items of a part, with one text budget across all of them.
#[derive(Default)]
pub(crate) struct Items {
    done: Vec<Item>,
    current: Option<Item>,
    kept_bytes: usize,
}

impl Items {
    /// Starts the next item.
    pub(crate) fn start(&mut self) {
        if let Some(item) = self.current.replace(Item::default()) {
            self.done.push(item);
        }
    }

    /// Takes the items built so far; the text budget keeps counting what they used.
    pub(crate) fn take(&mut self) -> Vec<Item> {
        self.done.extend(self.current.take());
        std::mem::take(&mut self.done)
    }

    /// Whether the next line is still stored (the rule of [`Listing::wants_text`]).
    pub(crate) fn wants_text(&self) -> bool {
        self.kept_bytes <= DEFAULT_MAX_BYTES
    }

    pub(crate) fn push(&mut self, line: String, cut: bool) {
        if self.wants_text() {
            self.kept_bytes += line.len() + 1;
            let item = self.current.get_or_insert_default();
            item.lines.push(line);
            item.cut |= cut;
        } else {
            self.count(line.len(), cut);
        }
    }

    /// Records a line of `len` bytes that will not be shown.
    pub(crate) fn count(&mut self, len: usize, cut: bool) {
        let item = self.current.get_or_insert_default();
        item.extra_lines += 1;
        item.extra_bytes += len + 1;
        item.cut |= cut;
    }
}

impl From<Vec<String>> for Listing {
    fn from(lines: Vec<String>) -> Self {
        let mut listing = Listing::default();
        for line in lines {
            listing.push(line);
        }
        listing
    }
}

/// The line limit of search results ("none"), reported as `maxLines`: the same number on
/// every platform (`usize::MAX` of a 32-bit component differs from a 64-bit host's), so a
/// result merged by the host equals the one a component formats.
const NO_LINE_LIMIT: usize = u32::MAX as usize;

/// Joins result lines, cuts them to 50 KB (no line limit: the item limit already applies) and
/// appends pi's notices as `\n\n[a. b. c]`. `extra` notices come after the byte-limit one.
pub(crate) fn finish_listing(
    listing: Listing,
    limit_notice: Option<(String, &str, usize)>,
    extra: Option<(String, &str, Value)>,
) -> (String, Value) {
    let raw = listing.lines.join("\n");
    let mut truncation = truncate_head(&raw, NO_LINE_LIMIT, DEFAULT_MAX_BYTES);
    if listing.extra_lines > 0 {
        truncation.truncated = true;
        truncation.truncated_by = Some(TruncatedBy::Bytes);
        truncation.total_lines += listing.extra_lines;
        truncation.total_bytes += listing.extra_bytes;
    }
    let mut text = truncation.content.clone();
    let mut details = no_details();
    let mut notices = Vec::new();
    let mut map = details.as_object_mut();
    let mut put = |key: &str, value: Value| {
        if let Some(map) = map.as_deref_mut() {
            map.insert(key.to_string(), value);
        }
    };
    if let Some((notice, key, limit)) = limit_notice {
        notices.push(notice);
        put(key, json!(limit));
    }
    if truncation.truncated {
        notices.push(format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)));
        put("truncation", json!(truncation));
    }
    if let Some((notice, key, value)) = extra {
        notices.push(notice);
        put(key, value);
    }
    if !notices.is_empty() {
        text.push_str(&format!("\n\n[{}]", notices.join(". ")));
    }
    (text, details)
}
