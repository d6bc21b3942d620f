//! The pinned facts: read back from the previous summary's `## Pinned facts` section, added
//! from the lines the user marked, and written at the top of the new summary. The section is
//! plain Markdown in the summary itself (not only in the entry's details) so that the model
//! reading the compacted session sees the facts, and so that the next compaction finds them
//! whichever component or version wrote the summary.

/// The heading of the facts section.
pub const FACTS_HEADING: &str = "## Pinned facts";
/// The heading of the model's summary.
pub const SUMMARY_HEADING: &str = "## Summary";
/// At most this many facts are kept; past it the oldest go (and the log says so), so that a
/// summary cannot grow without end.
pub const MAX_FACTS: usize = 100;
/// A fact longer than this is cut: facts are one-liners, not documents.
const MAX_FACT_CHARS: usize = 500;

/// What a line the user wrote asks for.
enum Mark<'a> {
    /// `FACT: …` or `remember: …`: pin this.
    Pin(&'a str),
    /// `forget: …`: unpin the facts that contain this.
    Forget(&'a str),
}

/// The marker a line starts with (any case, after leading spaces), and the rest of the line.
fn mark(line: &str) -> Option<Mark<'_>> {
    let line = line.trim_start();
    let (head, rest) = line.split_once(':')?;
    let rest = rest.trim();
    if rest.is_empty() {
        return None;
    }
    match head.to_ascii_lowercase().as_str() {
        "fact" | "remember" => Some(Mark::Pin(rest)),
        "forget" => Some(Mark::Forget(rest)),
        _ => None,
    }
}

/// A summary this component wrote earlier (or any other), split into its pinned facts and
/// the rest, which the model folds into the new summary.
pub struct Previous {
    pub facts: Vec<String>,
    pub summary: String,
}

/// Reads `summary`: the `- ` items under [`FACTS_HEADING`] up to the next `## ` heading are the
/// facts; the text under [`SUMMARY_HEADING`], or when there is none everything outside the
/// facts section, is the summary.
pub fn previous(summary: &str) -> Previous {
    let mut facts = Vec::new();
    let mut rest = Vec::new();
    let mut in_facts = false;
    for line in summary.lines() {
        if line.trim_end() == FACTS_HEADING {
            in_facts = true;
            continue;
        }
        if line.starts_with("## ") {
            in_facts = false;
            if line.trim_end() == SUMMARY_HEADING {
                continue;
            }
        }
        if in_facts {
            if let Some(fact) = line.trim_start().strip_prefix("- ") {
                facts.push(fact.trim().to_owned());
            }
        } else {
            rest.push(line);
        }
    }
    Previous {
        facts,
        summary: rest.join("\n").trim().to_owned(),
    }
}

/// The facts after reading `texts` (the user's messages, in order) line by line: a pin adds
/// a fact not yet pinned (any case), a forget removes every fact containing its words (any
/// case). Returns the facts that fell off past [`MAX_FACTS`] too.
pub fn update<'a>(
    mut facts: Vec<String>,
    texts: impl IntoIterator<Item = &'a str>,
) -> (Vec<String>, Vec<String>) {
    for line in texts.into_iter().flat_map(str::lines) {
        match mark(line) {
            Some(Mark::Pin(fact)) => {
                let fact: String = fact.chars().take(MAX_FACT_CHARS).collect();
                if !facts.iter().any(|f| f.eq_ignore_ascii_case(&fact)) {
                    facts.push(fact);
                }
            }
            Some(Mark::Forget(words)) => {
                let words = words.to_lowercase();
                facts.retain(|f| !f.to_lowercase().contains(&words));
            }
            None => {}
        }
    }
    let dropped = facts.len().saturating_sub(MAX_FACTS);
    let gone = facts.drain(..dropped).collect();
    (facts, gone)
}

/// The lines of `text` that are not marks: what the user's `/compact` instructions ask of the
/// summary, once the facts in them are taken out.
pub fn unmarked(text: &str) -> String {
    text.lines()
        .filter(|l| mark(l).is_none())
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// The new summary: the facts section (when there are facts), then the model's summary.
pub fn summary(facts: &[String], text: &str) -> String {
    let mut out = String::new();
    if !facts.is_empty() {
        out.push_str(FACTS_HEADING);
        out.push('\n');
        for fact in facts {
            out.push_str("- ");
            out.push_str(fact);
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(SUMMARY_HEADING);
    out.push('\n');
    out.push_str(text.trim());
    out
}
