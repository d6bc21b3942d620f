//! Reads the text pi's `grep` tool returns: `path:N: text` for a match, `path-N- text` for a
//! context line, and the notices it appends as a last paragraph in brackets (`[100 matches
//! limit reached. …]`). Only this text is parsed: grep's `details` carry the limits, not the
//! matches.

/// One line of grep's output.
#[derive(Debug)]
pub struct Line {
    pub number: u64,
    pub text: String,
    /// A context line (`-C`), not a match.
    pub context: bool,
}

/// The lines of one file, in grep's order.
#[derive(Debug)]
pub struct File {
    pub path: String,
    pub lines: Vec<Line>,
}

impl File {
    pub fn matches(&self) -> usize {
        self.lines.iter().filter(|l| !l.context).count()
    }
}

/// All of a result: the files, most matches first, and its notice.
#[derive(Debug)]
pub struct Hits {
    pub files: Vec<File>,
    pub notice: Option<String>,
}

impl Hits {
    pub fn matches(&self) -> usize {
        self.files.iter().map(File::matches).sum()
    }
}

/// The result's files, or `None` when the text is not a list of matches (no matches, an
/// error, or a format this renderer does not know): pi draws it then.
pub fn hits(text: &str) -> Option<Hits> {
    let (body, notice) = split_notice(text);
    let mut files: Vec<File> = Vec::new();
    for raw in body.lines().filter(|l| !l.is_empty()) {
        let (path, line) = match_line(raw).or_else(|| context_line(raw, &files))?;
        match files.iter_mut().find(|f| f.path == path) {
            Some(file) => file.lines.push(line),
            None => files.push(File {
                path: path.to_owned(),
                lines: vec![line],
            }),
        }
    }
    // The busiest files first (ties in grep's path order): the chart is read top down.
    files.sort_by_key(|f| std::cmp::Reverse(f.matches()));
    (!files.is_empty()).then_some(Hits { files, notice })
}

/// The text before grep's closing `[…]` paragraph, and that paragraph's words.
fn split_notice(text: &str) -> (&str, Option<String>) {
    let text = text.trim_end();
    if let Some((body, last)) = text.rsplit_once("\n\n")
        && let Some(notice) = last.strip_prefix('[').and_then(|l| l.strip_suffix(']'))
    {
        return (body, Some(notice.to_owned()));
    }
    (text, None)
}

/// `path:N: text`: the first `:digits: ` in the line ends the path (a path holding one is
/// read wrong, which only misplaces that line).
fn match_line(raw: &str) -> Option<(&str, Line)> {
    let (path, number, text) = numbered(raw, ':', 0)?;
    Some((
        path,
        Line {
            number,
            text: text.to_owned(),
            context: false,
        },
    ))
}

/// `path-N- text`, where `path` is a file that already had a match (grep prints a match's
/// context around it, so its path is known by then; `-` is common in paths).
fn context_line<'a>(raw: &'a str, files: &[File]) -> Option<(&'a str, Line)> {
    let file = files.iter().rev().find(|f| {
        raw.strip_prefix(f.path.as_str())
            .is_some_and(|rest| rest.starts_with('-'))
    })?;
    let (path, number, text) = numbered(raw, '-', file.path.len())?;
    Some((
        path,
        Line {
            number,
            text: text.to_owned(),
            context: true,
        },
    ))
}

/// Splits `raw` at the first `<sep>digits<sep> ` found from byte `from` on.
fn numbered(raw: &str, sep: char, from: usize) -> Option<(&str, u64, &str)> {
    let mut start = from;
    while let Some(offset) = raw.get(start..)?.find(sep) {
        let at = start + offset;
        let rest = &raw[at + 1..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && at > 0 {
            let after = &rest[digits..];
            if let Some(text) = after
                .strip_prefix(sep)
                .map(|t| t.strip_prefix(' ').unwrap_or(t))
                && let Ok(number) = rest[..digits].parse()
            {
                return Some((&raw[..at], number, text));
            }
        }
        start = at + 1;
    }
    None
}
