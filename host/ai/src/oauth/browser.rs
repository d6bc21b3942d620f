//! Opening the user's browser on a sign-in URL.

/// Starts the browser on `url` without waiting for it; a failure only means the user opens
/// the printed URL themselves. `PI_OAUTH_BROWSER` chooses the browser: unset, the platform's
/// opener (`xdg-open`, `open`, `start`); `none`, never open one (tests, remote shells);
/// anything else, a command run with the URL as its argument.
pub fn open_browser(url: &str) {
    let choice = std::env::var("PI_OAUTH_BROWSER").ok();
    let (program, args): (String, Vec<String>) = match choice.as_deref().map(str::trim) {
        Some("none") => return,
        Some(command) if !command.is_empty() => (command.to_owned(), vec![url.to_owned()]),
        _ if cfg!(target_os = "macos") => ("open".to_owned(), vec![url.to_owned()]),
        _ if cfg!(windows) => (
            "cmd".to_owned(),
            vec!["/C".into(), "start".into(), String::new(), url.to_owned()],
        ),
        _ => ("xdg-open".to_owned(), vec![url.to_owned()]),
    };
    let spawned = std::process::Command::new(&program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(error) = spawned {
        tracing::debug!(%error, program, "no browser opened");
    }
}
