//! `pi mcp`'s option parsing, as pi 1.6 parses it (its messages, `-l` for `--local`): `--`
//! ends the options, and so does reaching the command's number of positional arguments, so
//! `pi mcp add <server> <command> --its-flag` passes the command's own options through.

use std::collections::HashMap;

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Flag,
    Value,
    /// Repeatable.
    List,
}

/// The arguments of one command.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub positional: Vec<String>,
    values: HashMap<String, String>,
    flags: Vec<String>,
    lists: HashMap<String, Vec<String>>,
}

impl Parsed {
    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|flag| flag == name)
    }
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
    pub fn list(&self, name: &str) -> &[String] {
        self.lists.get(name).map_or(&[], Vec::as_slice)
    }
    /// Whether the option was given at all.
    pub fn has(&self, name: &str) -> bool {
        self.flag(name) || self.values.contains_key(name) || self.lists.contains_key(name)
    }
}

/// Parses `args` against `known` options; pi's message for an unknown option or a missing value.
pub(super) fn parse(
    args: &[String],
    known: &[(&str, Kind)],
    max_positionals: usize,
) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut index = 0;
    while index < args.len() {
        let typed = args[index].as_str();
        let arg = if typed == "-l" { "--local" } else { typed };
        if arg == "--" || parsed.positional.len() >= max_positionals {
            let from = if arg == "--" { index + 1 } else { index };
            parsed.positional.extend(args[from..].iter().cloned());
            break;
        }
        index += 1;
        let Some(name) = arg.strip_prefix("--") else {
            parsed.positional.push(arg.to_owned());
            continue;
        };
        let Some((_, kind)) = known.iter().find(|(known, _)| *known == name) else {
            return Err(format!("Unknown option {typed}.\n{}", super::HELP_HINT));
        };
        if *kind == Kind::Flag {
            parsed.flags.push(name.to_owned());
            continue;
        }
        let Some(value) = args.get(index) else {
            return Err(format!("{arg} needs a value."));
        };
        index += 1;
        match kind {
            Kind::List => parsed
                .lists
                .entry(name.to_owned())
                .or_default()
                .push(value.clone()),
            _ => {
                parsed.values.insert(name.to_owned(), value.clone());
            }
        }
    }
    Ok(parsed)
}

/// `KEY=VALUE` pairs of a repeatable option, in order; pi's message for one without a key.
pub(super) fn pairs(option: &str, values: &[String]) -> Result<Vec<(String, String)>, String> {
    values
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
            _ => Err(format!(r#"--{option} expects KEY=VALUE, got "{pair}"."#)),
        })
        .collect()
}

/// Levenshtein distance, to suggest a configured name for a mistyped one.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push((previous[j + 1] + 1).min(current[j] + 1).min(substitution));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn options_end_at_double_dash_or_after_the_positionals() {
        let known = [
            ("local", Kind::Flag),
            ("env", Kind::List),
            ("cwd", Kind::Value),
        ];
        let parsed = parse(
            &args(&[
                "a", "-l", "--env", "A=1", "--env", "B=2", "--", "x", "--cwd",
            ]),
            &known,
            2,
        )
        .unwrap_or_default();
        assert_eq!(parsed.positional, ["a", "x", "--cwd"]);
        assert!(parsed.flag("local"));
        assert_eq!(parsed.list("env"), ["A=1", "B=2"]);
        let parsed = parse(&args(&["a", "node", "--cwd", "d"]), &known, 2).unwrap_or_default();
        assert_eq!(parsed.positional, ["a", "node", "--cwd", "d"]);
        assert!(!parsed.has("cwd"));
        assert_eq!(
            parse(&args(&["--cwd"]), &known, 2).unwrap_err(),
            "--cwd needs a value."
        );
        assert!(
            parse(&args(&["--x"]), &known, 2)
                .unwrap_err()
                .starts_with("Unknown option --x.\n")
        );
    }

    #[test]
    fn pairs_and_distances() {
        assert_eq!(
            pairs("env", &args(&["A=b=c"])),
            Ok(vec![("A".into(), "b=c".into())])
        );
        assert_eq!(
            pairs("env", &args(&["=x"])),
            Err(r#"--env expects KEY=VALUE, got "=x"."#.into())
        );
        assert_eq!(edit_distance("docs", "dcos"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
