//! `pi rewind --list` and `pi rewind <entry-id> [--files-only|--conversation-only]`: `/rewind`
//! on the latest session of the working directory, without a model. Dispatched before the
//! normal flag parsing.

use clap::Parser;
use pi_app::rewind::{RewindOutcome, RewindPointKind, RewindPreview};
use pi_app::startup::StartupEnv;
use pi_app::{ChangeKind, RewindMode};
use pi_session::checkpoints::Recorder;
use pi_session::session::SessionManager;
use pi_session::settings::SettingsManager;
use std::ffi::OsString;
use std::io::IsTerminal;

/// Whether the arguments start a `pi rewind` command.
pub fn is_rewind_command(first: &OsString) -> bool {
    first == "rewind"
}

#[derive(Debug, Parser)]
#[command(
    name = "pi rewind",
    bin_name = "pi rewind",
    about = "Put the files and the conversation of this directory's latest session back as \
             they were before one of its prompts",
    max_term_width = 100
)]
struct RewindArgs {
    /// List the prompts (and earlier rewinds) of the current branch, with their entry ids
    #[arg(long, conflicts_with = "entry_id")]
    list: bool,
    /// The entry to go back to (a prompt's or a rewind's id, from --list)
    #[arg(required_unless_present = "list")]
    entry_id: Option<String>,
    /// Put back the files only; the conversation stays where it is
    #[arg(long, conflicts_with = "conversation_only")]
    files_only: bool,
    /// Move the conversation only (as /tree does); the files stay as they are
    #[arg(long)]
    conversation_only: bool,
    /// Overwrite files changed outside pi since pi last saw them, without asking
    #[arg(long, conflicts_with = "keep_changed")]
    yes: bool,
    /// Leave files changed outside pi as they are, without asking
    #[arg(long)]
    keep_changed: bool,
}

/// Runs `pi rewind` with `argv` (program name first) and returns the exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    let (args, env) = match crate::subcommand::start::<RewindArgs>(argv) {
        Ok(started) => started,
        Err(code) => return code,
    };
    match run(&args, &env) {
        Ok(()) => 0,
        Err(message) => {
            tell!("Error: {message}");
            1
        }
    }
}

fn run(args: &RewindArgs, env: &StartupEnv) -> Result<(), String> {
    let settings =
        SettingsManager::load(&env.agent_dir, &env.cwd, crate::hooks::project_trusted(env));
    let dir = pi_session::paths::session_dir_for(
        None,
        settings.session_dir().as_deref(),
        &env.agent_dir,
        &env.cwd,
    );
    let mut session = SessionManager::continue_recent(&env.cwd, &dir).map_err(|e| e.to_string())?;
    let Some(file) = session
        .session_file()
        .filter(|f| f.exists())
        .map(|f| f.to_path_buf())
    else {
        return Err(format!("no session of {} to rewind", env.cwd.display()));
    };
    let recorder = settings.checkpoints().then(|| {
        let recorder = Recorder::new(&env.cwd, Vec::new());
        recorder.set_session(Some(&file));
        recorder
    });
    if args.list {
        list(&session, recorder.is_some());
        return Ok(());
    }
    let entry_id = args.entry_id.as_deref().unwrap_or_default();
    let mode = if args.files_only {
        RewindMode::Files
    } else if args.conversation_only {
        RewindMode::Conversation
    } else {
        RewindMode::All
    };
    let mut overwrite = args.yes;
    if mode.restores_files() {
        let recorder = recorder.as_ref().ok_or(
            "this session keeps no checkpoints (the setting checkpoints is false); \
             use --conversation-only",
        )?;
        let preview =
            pi_app::rewind::preview(&session, recorder, entry_id).map_err(|e| e.to_string())?;
        show_preview(&preview);
        if preview.changes.iter().any(|c| c.changed_outside) && !args.yes && !args.keep_changed {
            overwrite = ask_overwrite();
        }
    }
    let outcome =
        pi_app::rewind::rewind(&mut session, recorder.as_ref(), entry_id, (mode, overwrite))
            .map_err(|e| e.to_string())?;
    show_outcome(&outcome);
    Ok(())
}

fn list(session: &SessionManager, files: bool) {
    let points = pi_app::rewind::points(session, files);
    if points.is_empty() {
        say!("No prompts in this session yet.");
        return;
    }
    for point in points {
        let text = point.text.lines().next().unwrap_or_default();
        match point.kind {
            RewindPointKind::Prompt => say!("{}  {}  {text}", point.entry_id, point.timestamp),
            RewindPointKind::Rewind => {
                say!(
                    "{}  {}  (rewind to: {text})",
                    point.entry_id,
                    point.timestamp
                )
            }
        }
    }
}

fn show_preview(preview: &RewindPreview) {
    if preview.changes.is_empty() {
        say!("No file changes recorded since then.");
    }
    for change in &preview.changes {
        let mark = if change.changed_outside {
            "  (changed outside pi since)"
        } else {
            ""
        };
        say!(
            "{} {}{mark}",
            describe(change.change),
            change.path.display()
        );
    }
    for line in &preview.not_covered {
        say!("Not covered: {line}");
    }
}

fn describe(change: ChangeKind) -> &'static str {
    match change {
        ChangeKind::Modified => "modified since:",
        ChangeKind::Created => "created since: ",
        ChangeKind::Deleted => "deleted since: ",
    }
}

/// Asks on the terminal whether to overwrite files changed outside pi; no terminal: no.
fn ask_overwrite() -> bool {
    if !std::io::stdin().is_terminal() {
        tell!("Files changed outside pi are kept (pass --yes to overwrite them).");
        return false;
    }
    eprint!("Overwrite the files changed outside pi? [y/N] ");
    let mut answer = String::new();
    let _ = std::io::stdin().read_line(&mut answer);
    matches!(answer.trim(), "y" | "Y" | "yes")
}

fn show_outcome(outcome: &RewindOutcome) {
    if outcome.mode.restores_files() {
        say!("Restored {} path(s).", outcome.restored.len());
    }
    for path in &outcome.kept {
        say!("Kept (changed outside pi): {}", path.display());
    }
    for failure in &outcome.failed {
        say!(
            "Not restored: {}: {}",
            failure.path.display(),
            failure.error
        );
    }
    if outcome.mode.moves_conversation() {
        say!("The conversation continues from before that prompt.");
    }
    if let Some(id) = &outcome.rewind_entry_id {
        say!("To undo: pi rewind {id}");
    }
}
