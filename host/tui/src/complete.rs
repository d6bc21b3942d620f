//! Completion in the editor: `/` at the start of the prompt offers commands (built-in ones,
//! skills, prompt templates), `@` offers files of the project (fuzzy, respecting
//! .gitignore), and Tab completes the path before the cursor. What is offered shows above
//! the editor; Up/Down choose, Tab or Enter take it, Esc closes the list.

use crate::files::{FileIndex, common_prefix, complete_path};
use std::path::{Path, PathBuf};

/// The project's files are listed up to this many entries.
const FILE_LIMIT: usize = 200_000;

/// One thing offered.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub label: String,
    pub detail: String,
    /// What replaces the text being completed.
    pub replacement: String,
}

/// The list shown above the editor.
#[derive(Debug, Clone, PartialEq)]
pub struct Popup {
    pub candidates: Vec<Candidate>,
    pub selected: usize,
    /// How many bytes before the cursor the chosen candidate replaces.
    pub replaces: usize,
}

impl Popup {
    pub fn step(&mut self, up: bool) {
        let n = self.candidates.len();
        if n > 0 {
            self.selected = if up {
                (self.selected + n - 1) % n
            } else {
                (self.selected + 1) % n
            };
        }
    }

    pub fn chosen(&self) -> Option<&Candidate> {
        self.candidates.get(self.selected)
    }

    /// (label, detail) rows for the view.
    pub fn rows(&self) -> Vec<(String, String)> {
        self.candidates
            .iter()
            .map(|c| (c.label.clone(), c.detail.clone()))
            .collect()
    }
}

/// Completion state: the file index (listed on the first `@`) and the commands.
pub struct Completer {
    cwd: PathBuf,
    files: Option<FileIndex>,
    /// `(name, description)` of the commands after `/`.
    commands: Vec<(String, String)>,
    max: usize,
    /// The last `@` offer searched an unfinished listing.
    stale: bool,
    /// `/mcp`'s servers: name, state, whether enabled (`None`: MCP is off).
    mcp_servers: Option<Vec<(String, String, bool)>>,
}

impl Completer {
    /// Whether the last `@` offer came while files were still being listed: asked again, it
    /// may find more.
    pub fn listing(&self) -> bool {
        self.stale
    }
}

impl Completer {
    pub fn new(cwd: &Path, commands: Vec<(String, String)>, max: usize) -> Self {
        let mut all: Vec<(String, String)> = crate::commands::BUILTIN
            .iter()
            .map(|(n, d)| ((*n).to_owned(), (*d).to_owned()))
            .collect();
        all.extend(commands);
        Completer {
            cwd: cwd.to_owned(),
            files: None,
            commands: all,
            max: max.max(1),
            stale: false,
            mcp_servers: None,
        }
    }

    /// The servers `/mcp reconnect ` offers (the UI keeps them current).
    pub fn set_mcp_servers(&mut self, servers: Vec<(String, String, bool)>) {
        self.mcp_servers = Some(servers);
    }

    /// What to offer for `line` (the cursor's line up to the cursor; `first_line` when it is the
    /// prompt's first line), or `None`.
    pub fn offer(&mut self, line: &str, first_line: bool) -> Option<Popup> {
        self.stale = false;
        if first_line && line.starts_with('/') && !line.contains(char::is_whitespace) {
            return self.commands(&line[1..], line.len());
        }
        if first_line && let Some(args) = line.strip_prefix("/mcp ") {
            return self.mcp_arguments(args);
        }
        let word = last_word(line);
        let query = word.strip_prefix('@')?;
        let files = self
            .files
            .get_or_insert_with(|| FileIndex::start(self.cwd.clone(), FILE_LIMIT));
        self.stale = !files.is_ready();
        let mut candidates: Vec<Candidate> = files
            .search(query, self.max * 4)
            .into_iter()
            .map(|m| Candidate {
                replacement: format!("@{} ", m.path),
                label: m.path,
                detail: String::new(),
            })
            .collect();
        if let (Some(first), false) = (candidates.first_mut(), files.is_ready()) {
            first.detail = format!("(still listing files: {} so far)", files.len());
        }
        (!candidates.is_empty()).then_some(Popup {
            candidates,
            selected: 0,
            replaces: word.len(),
        })
    }

    /// `/mcp`'s arguments as pi 1.6 completes them: the action, then (for `reconnect` and
    /// `login`) an enabled server with its state.
    fn mcp_arguments(&self, args: &str) -> Option<Popup> {
        let servers = self.mcp_servers.as_ref()?;
        let words: Vec<&str> = args.trim_start().split(char::is_whitespace).collect();
        let candidates: Vec<Candidate> = match words[..] {
            [action] => ["login", "logout", "reconnect"]
                .iter()
                .filter(|item| item.starts_with(action))
                .map(|item| Candidate {
                    label: (*item).to_owned(),
                    detail: String::new(),
                    replacement: format!("{item} "),
                })
                .collect(),
            [action @ ("reconnect" | "login"), server] => servers
                .iter()
                .filter(|(name, _, enabled)| *enabled && name.starts_with(server))
                .map(|(name, state, _)| Candidate {
                    label: name.clone(),
                    detail: state.clone(),
                    replacement: format!("{action} {name}"),
                })
                .collect(),
            _ => Vec::new(),
        };
        (!candidates.is_empty()).then_some(Popup {
            candidates,
            selected: 0,
            replaces: args.len(),
        })
    }

    fn commands(&self, typed: &str, replaces: usize) -> Option<Popup> {
        let typed = typed.to_lowercase();
        let mut candidates: Vec<Candidate> = self
            .commands
            .iter()
            .filter(|(name, _)| name.to_lowercase().starts_with(&typed))
            .map(|(name, description)| Candidate {
                label: format!("/{name}"),
                detail: description.clone(),
                replacement: format!("/{name} "),
            })
            .collect();
        candidates.dedup_by(|a, b| a.label == b.label);
        // A name typed out in full comes first (`/mode` before `/model`), so Enter runs it.
        candidates.sort_by_key(|c| c.label[1..].to_lowercase() != typed);
        (!candidates.is_empty()).then_some(Popup {
            candidates,
            selected: 0,
            replaces,
        })
    }

    /// Tab: the completions of the path before the cursor. One completion is taken at once
    /// (the list has one entry); several insert what they share and are offered.
    pub fn paths(&self, line: &str) -> Option<Popup> {
        let word = last_word(line);
        let (at, partial) = match word.strip_prefix('@') {
            Some(rest) => ("@", rest),
            None => ("", word),
        };
        let found = complete_path(&self.cwd, partial);
        if found.is_empty() {
            return None;
        }
        let shared = common_prefix(&found);
        let candidates = found
            .iter()
            .map(|path| Candidate {
                label: path.clone(),
                detail: String::new(),
                replacement: format!("{at}{path}"),
            })
            .collect::<Vec<_>>();
        let mut popup = Popup {
            candidates,
            selected: 0,
            replaces: word.len(),
        };
        if popup.candidates.len() > 1 && shared.len() > partial.len() {
            // Insert the shared part first; the list stays open to choose the rest.
            popup.candidates.insert(
                0,
                Candidate {
                    label: format!("{shared}…"),
                    detail: format!("{} matches", found.len()),
                    replacement: format!("{at}{shared}"),
                },
            );
        }
        Some(popup)
    }
}

/// The text after the last whitespace.
fn last_word(line: &str) -> &str {
    line.rsplit(char::is_whitespace).next().unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_after_a_slash_at_the_start_only() {
        let mut c = Completer::new(
            Path::new("/"),
            vec![("skill:review".into(), "Review code".into())],
            5,
        );
        let popup = c.offer("/sk", true).map(|p| p.rows());
        assert_eq!(
            popup,
            Some(vec![("/skill:review".into(), "Review code".into())])
        );
        assert!(c.offer("/sk", false).is_none());
        assert!(c.offer("/quit now", true).is_none());
        let quit = c.offer("/q", true);
        assert_eq!(
            quit.and_then(|p| p.chosen().map(|c| c.replacement.clone())),
            Some("/quit ".into())
        );
    }

    #[test]
    fn mcp_arguments_are_actions_then_enabled_servers() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Completer::new(dir.path(), vec![], 10);
        assert_eq!(c.offer("/mcp re", true), None, "MCP off: nothing");
        c.set_mcp_servers(vec![
            ("docs".into(), "connected · 2 tools".into(), true),
            ("dead".into(), "failed: gone".into(), true),
            ("off".into(), "disabled".into(), false),
        ]);
        let popup = c.offer("/mcp re", true).unwrap();
        assert_eq!(popup.candidates[0].replacement, "reconnect ");
        assert_eq!(popup.replaces, 2);
        let popup = c.offer("/mcp reconnect d", true).unwrap();
        let rows: Vec<_> = popup.rows();
        assert_eq!(
            rows,
            [
                ("docs".to_owned(), "connected · 2 tools".to_owned()),
                ("dead".to_owned(), "failed: gone".to_owned())
            ]
        );
        assert_eq!(popup.candidates[1].replacement, "reconnect dead");
        assert_eq!(popup.replaces, "reconnect d".len());
        assert_eq!(c.offer("/mcp reconnect o", true), None, "disabled ones");
        assert_eq!(c.offer("/mcp reconnect docs x", true), None);
        let actions: Vec<String> = c
            .offer("/mcp lo", true)
            .unwrap()
            .candidates
            .iter()
            .map(|candidate| candidate.replacement.clone())
            .collect();
        assert_eq!(actions, ["login ", "logout "]);
        let popup = c.offer("/mcp login do", true).unwrap();
        assert_eq!(popup.candidates[0].replacement, "login docs");
    }

    #[test]
    fn a_name_typed_out_in_full_is_offered_first() {
        let mut c = Completer::new(Path::new("/"), Vec::new(), 5);
        let first = |c: &mut Completer, typed: &str| {
            let popup = c.offer(typed, true);
            popup.and_then(|p| p.chosen().map(|c| c.label.clone()))
        };
        assert_eq!(first(&mut c, "/mod").as_deref(), Some("/model"));
        assert_eq!(first(&mut c, "/mode").as_deref(), Some("/mode"));
        assert_eq!(first(&mut c, "/model").as_deref(), Some("/model"));
    }

    #[test]
    fn the_last_word_is_what_is_completed() {
        assert_eq!(last_word("see @src/ma"), "@src/ma");
        assert_eq!(last_word("日本 @x"), "@x");
        assert_eq!(last_word("alone"), "alone");
        assert_eq!(last_word("trailing "), "");
    }
}
