//! `matcher`: which tools a hook runs for. A tool name or a regex over tool names, matched
//! whole; unset, empty or `*` matches every tool. pi's built-in tools also answer to Claude
//! Code's names, so a matcher written for either agent works.

use regex::Regex;

/// pi's built-in tools and Claude Code's names for them.
pub const CLAUDE_CODE_NAMES: [(&str, &str); 7] = [
    ("bash", "Bash"),
    ("read", "Read"),
    ("edit", "Edit"),
    ("write", "Write"),
    ("grep", "Grep"),
    ("find", "Glob"),
    ("ls", "LS"),
];

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher(Option<Regex>);

impl Matcher {
    /// Compiles `text`; a pattern that is not a valid regex is an error for the caller to
    /// report.
    pub fn new(text: Option<&str>) -> Result<Self, regex::Error> {
        match text.map(str::trim) {
            None | Some("") | Some("*") => Ok(Matcher(None)),
            Some(pattern) => Regex::new(&format!("^(?:{pattern})$")).map(|re| Matcher(Some(re))),
        }
    }

    /// Whether `tool` (pi's name) is one the matcher names, by pi's or Claude Code's name.
    pub fn matches(&self, tool: &str) -> bool {
        let Some(re) = &self.0 else { return true };
        let other = CLAUDE_CODE_NAMES
            .iter()
            .find(|(pi, _)| *pi == tool)
            .map(|(_, claude)| *claude);
        re.is_match(tool) || other.is_some_and(|name| re.is_match(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> Matcher {
        Matcher::new(Some(text)).unwrap()
    }

    #[test]
    fn claude_code_and_pi_names_both_match_and_the_match_is_whole() {
        assert!(m("Bash").matches("bash"));
        assert!(m("bash").matches("bash"));
        assert!(m("Edit|Write").matches("write"));
        assert!(m("Glob").matches("find"));
        assert!(m("LS").matches("ls"));
        assert!(!m("Bash").matches("read"));
        // Whole names only: `Read` does not match `readme_tool`.
        assert!(!m("Read").matches("readme_tool"));
        assert!(m("mcp__.*").matches("mcp__github__search"));
        for all in ["", "*", "  "] {
            assert!(m(all).matches("anything"));
        }
        assert!(Matcher::new(None).unwrap().matches("bash"));
        assert!(Matcher::new(Some("(")).is_err());
    }
}
