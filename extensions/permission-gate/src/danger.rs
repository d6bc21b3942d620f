//! Which shell commands are dangerous: the command line is cut into simple commands at `;`,
//! `&`, `|`, newlines and parentheses, each into words, and each is checked on its own, so
//! `cd x && rm -rf y` is caught and `echo "rm -rf"` is not (quoted words are one word). This
//! is a guard against accidents, not a shell parser: `eval`, `$(…)` and aliases get past it.

/// What makes `command` dangerous, as the end of "It …", or none.
pub fn find(command: &str) -> Option<&'static str> {
    simple_commands(command)
        .iter()
        .find_map(|words| check(words))
}

fn check(words: &[String]) -> Option<&'static str> {
    let (program, args) = words.split_first()?;
    match program.rsplit('/').next().unwrap_or(program) {
        "sudo" | "doas" => Some("runs a command as root"),
        // `sudo` after env or nice is still sudo.
        "env" | "nice" | "nohup" | "time" | "command" | "exec" => {
            let rest: Vec<String> = args
                .iter()
                .skip_while(|a| a.starts_with('-') || a.contains('='))
                .cloned()
                .collect();
            check(&rest)
        }
        "rm" if recursive_force(args) => Some("deletes recursively without asking (rm -rf)"),
        "git" if force_push(args) => Some("overwrites the remote branch (git push --force)"),
        "chmod" if args.iter().any(|a| a == "777" || a == "a+rwx") => {
            Some("makes files writable by everyone (chmod 777)")
        }
        _ => None,
    }
}

/// `rm` with both `-r`/`-R`/`--recursive` and `-f`/`--force`, in any spelling.
fn recursive_force(args: &[String]) -> bool {
    let mut recursive = false;
    let mut force = false;
    for arg in args.iter().take_while(|a| *a != "--") {
        match arg.as_str() {
            "--recursive" => recursive = true,
            "--force" => force = true,
            short if short.starts_with('-') && !short.starts_with("--") => {
                recursive |= short.contains(['r', 'R']);
                force |= short.contains('f');
            }
            _ => {}
        }
    }
    recursive && force
}

/// `git … push` with `--force`, `--force-with-lease`, `-f` (alone or among short flags) or a
/// `+refspec`.
fn force_push(args: &[String]) -> bool {
    let Some(push) = args.iter().position(|a| a == "push") else {
        return false;
    };
    args[push + 1..].iter().any(|arg| {
        arg.starts_with("--force")
            || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('f'))
            || (arg.starts_with('+') && arg.len() > 1)
    })
}

/// The simple commands of a command line, each as its words (quotes removed).
fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == c {
                        break;
                    }
                    word.push(q);
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

fn end_word(words: &mut Vec<String>, word: &mut String, in_word: &mut bool) {
    if *in_word {
        words.push(std::mem::take(word));
        *in_word = false;
    }
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn dangerous_commands_are_found_wherever_they_stand() {
        for command in [
            "rm -rf build",
            "rm -fr /",
            "rm -r -f x",
            "rm --recursive --force x",
            "cd x && rm -Rf y",
            "sudo apt-get install x",
            "/usr/bin/sudo ls",
            "env FOO=1 sudo ls",
            "git push --force origin main",
            "git push -f",
            "git -C repo push origin +main",
            "git push --force-with-lease",
            "chmod 777 file",
            "chmod -R 777 dir",
            "ls; sudo reboot",
            "echo x | sudo tee /etc/x",
        ] {
            assert!(find(command).is_some(), "{command}");
        }
    }

    #[test]
    fn ordinary_commands_pass() {
        for command in [
            "rm file",
            "rm -r dir",
            "rm -f file",
            "echo 'rm -rf /'",
            "git push origin main",
            "git commit -m 'push -f later'",
            "chmod 755 script",
            "ls -la",
            "grep -rf patterns .",
            "pseudo-sudo",
        ] {
            assert!(find(command).is_none(), "{command}");
        }
    }
}
