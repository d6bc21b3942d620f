//! What an approval dialog shows of the call it asks about: the tool and a preview of what the
//! call would do (a command, an edit's diff, a file's content, or the arguments), cleaned of
//! escape sequences and control characters when the dialog is made, and a command split into
//! the pieces its highlighting tells apart (command words, operators, the rest).

use pi_ai::terminal_text::{Keep, terminal_safe};
use pi_app::hooks::{ApprovalPreview, ApprovalView};

/// The call an approval dialog is about, every string cleaned, multi-line text split in lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    pub tool: String,
    pub preview: Preview,
}

/// What the call would do, as lines to show.
#[derive(Debug, Clone, PartialEq)]
pub enum Preview {
    /// A shell command, one entry per line of it.
    Command(Vec<String>),
    /// `-` and `+` lines of an edit of `path`.
    Edit { path: String, diff: Vec<String> },
    /// A file written whole.
    Write { path: String, content: Vec<String> },
    /// The arguments as pretty JSON.
    Arguments(Vec<String>),
}

impl Approval {
    pub fn from_view(view: &ApprovalView) -> Self {
        let preview = match &view.preview {
            ApprovalPreview::Command { command } => Preview::Command(lines(command)),
            ApprovalPreview::Edit { path, diff } => Preview::Edit {
                path: one_line(path),
                diff: lines(diff),
            },
            ApprovalPreview::Write { path, content } => Preview::Write {
                path: one_line(path),
                content: lines(content),
            },
            ApprovalPreview::Arguments { json } => Preview::Arguments(lines(json)),
        };
        Approval {
            tool: one_line(&view.tool),
            preview,
        }
    }
}

fn one_line(text: &str) -> String {
    terminal_safe(text, Keep::Line).replace('\t', " ")
}

/// The lines of `text`, cleaned, tabs as four spaces (as code is shown), no trailing blanks.
fn lines(text: &str) -> Vec<String> {
    let clean = terminal_safe(text, Keep::Lines).replace('\t', "    ");
    let mut out: Vec<String> = clean
        .split('\n')
        .map(|l| l.trim_end_matches('\r').to_owned())
        .collect();
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

/// What a piece of a command line is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The program a simple command runs.
    Program,
    /// `&&`, `||`, `|`, `;`, `&`, redirections.
    Operator,
    /// Arguments, assignments, file names, spaces.
    Plain,
}

/// `line` cut into pieces by what they are: the first word of each simple command is the
/// program (after `VAR=value` assignments), operators stand out. Quotes keep their contents in
/// one word. A rough reading for colour, never for deciding anything.
pub fn command_parts(line: &str) -> Vec<(String, Part)> {
    let mut parts: Vec<(String, Part)> = Vec::new();
    let mut expect_program = true;
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            let mut space = String::new();
            while let Some(&s) = chars.peek().filter(|s| s.is_whitespace()) {
                space.push(s);
                chars.next();
            }
            parts.push((space, Part::Plain));
        } else if is_operator(c) {
            let mut op = String::new();
            while let Some(&o) = chars.peek().filter(|o| is_operator(**o)) {
                op.push(o);
                chars.next();
            }
            // After a control operator a new command starts; after a redirection a file name.
            expect_program = !op.contains(['<', '>']);
            parts.push((op, Part::Operator));
        } else {
            let word = take_word(&mut chars);
            let assignment = expect_program && is_assignment(&word);
            let part = if expect_program && !assignment {
                expect_program = false;
                Part::Program
            } else {
                Part::Plain
            };
            parts.push((word, part));
        }
    }
    parts
}

fn is_operator(c: char) -> bool {
    matches!(c, '&' | '|' | ';' | '<' | '>')
}

/// `NAME=value` before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// One word: up to whitespace or an operator outside quotes.
fn take_word(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut word = String::new();
    let mut quote: Option<char> = None;
    while let Some(&c) = chars.peek() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c.is_whitespace() || is_operator(c) => break,
            None => {}
        }
        word.push(c);
        chars.next();
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs_and_operators(line: &str) -> (Vec<String>, Vec<String>) {
        let parts = command_parts(line);
        let of = |kind| {
            parts
                .iter()
                .filter(|(_, p)| *p == kind)
                .map(|(t, _)| t.clone())
                .collect()
        };
        (of(Part::Program), of(Part::Operator))
    }

    #[test]
    fn programs_follow_control_operators_not_redirections() {
        let (programs, operators) =
            programs_and_operators("FOO=1 cargo test && grep x<in | sort > 'a b.txt'; ls&");
        assert_eq!(programs, ["cargo", "grep", "sort", "ls"]);
        assert_eq!(operators, ["&&", "<", "|", ">", ";", "&"]);
        let rebuilt: String = command_parts("echo \"a && b\" >>log")
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(rebuilt, "echo \"a && b\" >>log");
        let (programs, operators) = programs_and_operators("echo \"a && b\" >>log");
        assert_eq!(
            (programs, operators),
            (vec!["echo".into()], vec![">>".into()])
        );
    }

    #[test]
    fn every_string_of_the_call_is_cleaned() {
        let view = ApprovalView {
            tool: "ba\x1b[31msh".into(),
            preview: ApprovalPreview::Write {
                path: "a\nb.txt".into(),
                content: "one\x1b]0;title\x07\n\ttwo\n\n".into(),
            },
        };
        let approval = Approval::from_view(&view);
        assert_eq!(approval.tool, "bash");
        let Preview::Write { path, content } = approval.preview else {
            panic!("a write preview");
        };
        assert!(!path.contains('\n'), "{path:?}");
        assert_eq!(content, ["one", "    two"]);
    }
}
