//! pi's config-value syntax for keys and headers (`!command`, `$VAR`, `${VAR}`), shared by
//! models.json values and stored API keys.

use crate::auth_error::AuthError;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a `!command` value may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Resolves a config value (models.json `apiKey`/`headers`, stored keys) the way pi does:
/// - `!command` runs the command in a shell and yields its trimmed standard output;
/// - `$VAR` and `${VAR}` are replaced by environment variables (an unset one leaves the whole
///   value unresolved: `Ok(None)`);
/// - `$$` stands for `$` and `$!` for `!`;
/// - anything else is literal.
///
/// An empty result is `Ok(None)`. A failing command is an error carrying its stderr.
pub fn resolve_config_value(raw: &str) -> Result<Option<String>, AuthError> {
    let value = match raw.strip_prefix('!') {
        Some(command) => Some(run_command(command.trim())?),
        None => interpolate(raw, &|name| std::env::var(name).ok()),
    };
    Ok(value.filter(|v| !v.is_empty()))
}

/// The environment variables a value names (`$VAR`, `${VAR}`), in order, each once; none for a
/// `!command` value.
pub fn config_value_env_names(raw: &str) -> Vec<String> {
    if raw.starts_with('!') {
        return Vec::new();
    }
    let names = std::cell::RefCell::new(Vec::<String>::new());
    interpolate(raw, &|name| {
        let mut names = names.borrow_mut();
        if !names.iter().any(|known| known == name) {
            names.push(name.to_owned());
        }
        Some(String::new())
    });
    names.into_inner()
}

/// `$VAR` / `${VAR}` / `$$` / `$!` expansion; `None` when a variable is unset.
fn interpolate(raw: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (replacement, consumed) = expand_dollar(after, lookup)?;
        out.push_str(&replacement);
        rest = &after[consumed..];
    }
    out.push_str(rest);
    Some(out)
}

/// Expands what follows one `$`: returns the text and how many bytes after the `$` it used.
fn expand_dollar(after: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<(String, usize)> {
    let is_name_start = |c: char| c == '_' || c.is_ascii_alphabetic();
    let name_len = |s: &str| {
        s.char_indices()
            .find(|&(_, c)| !(c == '_' || c.is_ascii_alphanumeric()))
            .map_or(s.len(), |(i, _)| i)
    };
    match after.chars().next() {
        Some('$') => Some(("$".to_owned(), 1)),
        Some('!') => Some(("!".to_owned(), 1)),
        Some('{') => {
            let inner = &after[1..];
            match inner.find('}') {
                Some(end) if end > 0 && name_len(&inner[..end]) == end => {
                    Some((lookup(&inner[..end])?, end + 2))
                }
                // Not a well-formed `${NAME}`: keep the `$` literally.
                _ => Some(("$".to_owned(), 0)),
            }
        }
        Some(c) if is_name_start(c) => {
            let len = name_len(after);
            Some((lookup(&after[..len])?, len))
        }
        _ => Some(("$".to_owned(), 0)),
    }
}

fn shell(command: &str) -> Command {
    #[cfg(windows)]
    {
        let mut cmd = Command::new("cmd");
        cmd.args(["/C", command]);
        cmd
    }
    #[cfg(not(windows))]
    {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", command]);
        cmd
    }
}

/// Runs `command` in a shell and returns its trimmed stdout.
fn run_command(command: &str) -> Result<String, AuthError> {
    let mut child = shell(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| AuthError::CommandSpawn {
            command: command.to_owned(),
            source,
        })?;
    // Pipes are drained on threads so a chatty command cannot block on a full pipe.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(AuthError::CommandTimeout {
                    command: command.to_owned(),
                    timeout: COMMAND_TIMEOUT,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(source) => {
                return Err(AuthError::CommandSpawn {
                    command: command.to_owned(),
                    source,
                });
            }
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        return Err(AuthError::CommandFailed {
            command: command.to_owned(),
            status: status.to_string(),
            stderr,
        });
    }
    Ok(stdout.trim().to_owned())
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME_KEY" => Some("abc".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn interpolation_rules() {
        let cases: &[(&str, Option<&str>)] = &[
            ("plain-key", Some("plain-key")),
            ("$HOME_KEY", Some("abc")),
            ("${HOME_KEY}", Some("abc")),
            ("pre-${HOME_KEY}-post", Some("pre-abc-post")),
            ("$HOME_KEY.x", Some("abc.x")),
            ("$$HOME_KEY", Some("$HOME_KEY")),
            ("$!cmd", Some("!cmd")),
            ("cost $5", Some("cost $5")),
            ("${not closed", Some("${not closed")),
            ("trailing $", Some("trailing $")),
            ("$EMPTY", Some("")),
            ("$MISSING_VAR", None),
            ("a ${MISSING_VAR} b", None),
        ];
        for (raw, expected) in cases {
            assert_eq!(interpolate(raw, &env).as_deref(), *expected, "{raw}");
        }
    }

    #[test]
    fn the_variables_a_value_names() {
        assert_eq!(
            config_value_env_names("a $ONE ${TWO} $$THREE $ONE"),
            ["ONE", "TWO"]
        );
        assert!(config_value_env_names("!echo $ONE").is_empty());
    }
}
