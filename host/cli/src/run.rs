//! The top-level flow of the `pi` binary: parse, handle the exit-early flags (`--version`,
//! `--help`, `--export`, `--list-models`), resolve the mode, start up, run the mode.
//!
//! Start-up warnings (an extension refused, a setting ignored) go to stderr before anything
//! that could end start-up, in every mode but the interactive one (whose header shows them);
//! when start-up fails even there, they come before the error, since they may say why. Each
//! goes through `pi_ai::terminal_text`: they quote extension ids, files and servers.

use crate::args::Args;
use crate::file_args::{build_prompts, read_file_args};
use crate::modes::json::JsonLines;
use crate::modes::{print, rpc};
use pi_app::App;
use pi_app::startup::{Base, StartupEnv, StartupError, prepare};
use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use tokio_util::sync::CancellationToken;

/// The version `pi --version` prints.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How the run talks to its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Interactive,
    Print,
    Json,
    Rpc,
}

/// pi's `resolveAppMode`: `--mode rpc|json` win; `-p`, `--mode text`, or a non-terminal stdin
/// or stdout mean print; otherwise interactive.
pub fn resolve_mode(args: &Args, stdin_tty: bool, stdout_tty: bool) -> Mode {
    use crate::args::ModeArg;
    match args.mode {
        Some(ModeArg::Rpc) => Mode::Rpc,
        Some(ModeArg::Json) => Mode::Json,
        Some(ModeArg::Text) => Mode::Print,
        None if args.print || !stdin_tty || !stdout_tty => Mode::Print,
        None => Mode::Interactive,
    }
}

/// Runs pi with `argv` (program name first) and returns the process exit code.
pub fn main(argv: Vec<OsString>) -> i32 {
    if argv.get(1).is_some_and(crate::ext::is_package_command) {
        return crate::ext::main(argv);
    }
    if argv.get(1).is_some_and(crate::auth::is_auth_command) {
        return crate::auth::main(argv);
    }
    if argv.get(1).is_some_and(crate::hooks::is_hooks_command) {
        return crate::hooks::main(argv);
    }
    if argv.get(1).is_some_and(crate::grants::is_grants_command) {
        return crate::grants::main(argv);
    }
    if argv.get(1).is_some_and(crate::rewind::is_rewind_command) {
        return crate::rewind::main(argv);
    }
    if crate::mcp_serve::is_mcp_serve_command(&argv) {
        return crate::mcp_serve::main(argv);
    }
    if argv.get(1).is_some_and(crate::mcp::is_mcp_command) {
        return crate::mcp::main(argv);
    }
    let args = match Args::try_parse_argv(argv) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return error.exit_code();
        }
    };
    if args.version {
        println!("{VERSION}");
        return 0;
    }
    if let Some(input) = &args.export {
        return export(input, args.messages.first().map(String::as_str));
    }
    match run(args) {
        Ok(code) => code,
        Err(error) => {
            let error = error.to_string();
            let error =
                pi_ai::terminal_text::terminal_safe(&error, pi_ai::terminal_text::Keep::Lines);
            eprintln!("Error: {error}");
            1
        }
    }
}

fn export(input: &str, output: Option<&str>) -> i32 {
    match pi_session::export_html::export_file(
        std::path::Path::new(input),
        output.map(std::path::Path::new),
    ) {
        Ok(path) => {
            println!("Session exported to: {}", path.display());
            0
        }
        Err(error) => {
            eprintln!("Error: {error}");
            1
        }
    }
}

/// Why a run stopped before its mode started. Every variant is a user-facing message; the exit
/// code is 1.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Startup(#[from] StartupError),
    #[error(transparent)]
    FileArg(#[from] crate::file_args::FileArgError),
    #[error("Cannot read the working directory: {0}")]
    Cwd(std::io::Error),
    #[error("Cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

fn run(args: Args) -> Result<i32, RunError> {
    let env = StartupEnv::from_process().map_err(RunError::Cwd)?;
    let stdin_tty = std::io::stdin().is_terminal();
    let mode = resolve_mode(&args, stdin_tty, std::io::stdout().is_terminal());
    // The interactive UI owns the terminal: its log goes to the file only.
    crate::logging::init(&env.agent_dir, args.verbose && mode != Mode::Interactive);
    let mut options = args.startup_options();
    // `-e npm:…`/`-e git:…` are fetched for this run; their directories live as long as this.
    let (cli_dirs, _fetched) = crate::ext::fetch_cli_sources(&options.extensions);
    options.extensions = cli_dirs;
    let base = match Base::load(&options, env) {
        Ok(base) => base,
        Err(error) => {
            print_warnings(error.warnings());
            return Err(error.into());
        }
    };
    if let Some(search) = &args.list_models {
        let listed = crate::list_models::render(
            &base.registry,
            &base.auth,
            search,
            base.local_probe.summary(),
        );
        print!(
            "{}",
            pi_ai::terminal_text::terminal_safe(&listed, pi_ai::terminal_text::Keep::Lines)
        );
        return Ok(0);
    }
    // How many of the warnings stderr already shows.
    let shown = if mode == Mode::Interactive {
        0
    } else {
        print_warnings(&base.warnings);
        base.warnings.len()
    };
    let files = args.file_args();
    if mode == Mode::Rpc && !files.is_empty() {
        eprintln!("Error: @file arguments are not supported in RPC mode");
        return Ok(1);
    }
    let stdin = if mode != Mode::Rpc && !stdin_tty {
        read_stdin()
    } else {
        None
    };
    let attachments = match read_file_args(&files, &base.env.cwd) {
        Ok(attachments) => attachments,
        Err(error) => {
            print_warnings(base.warnings.get(shown..).unwrap_or_default());
            return Err(error.into());
        }
    };
    let messages = args.text_messages();
    let prompts = build_prompts(stdin.as_deref(), &attachments, &messages);
    if matches!(mode, Mode::Print | Mode::Json) && prompts.is_empty() {
        eprintln!("Error: nothing to do. Pass a message (pi -p \"...\"), an @file, or pipe input.");
        return Ok(1);
    }
    options.resume_picker = mode == Mode::Interactive;
    // RPC asks through its extension UI (`extension_ui_request`), as the terminal UI asks.
    options.command_hooks_can_ask = matches!(mode, Mode::Interactive | Mode::Rpc);
    let prepared = match prepare(&options, base) {
        Ok(prepared) => prepared,
        Err(error) => {
            print_warnings(error.warnings().get(shown..).unwrap_or_default());
            return Err(error.into());
        }
    };
    let ui = (mode == Mode::Interactive).then(|| tui_options(&prepared, &args));
    // The UI shows them in its header, unless it cannot start.
    let ui_warnings = prepared.base.warnings.clone();
    if ui.is_none() {
        print_warnings(prepared.base.warnings.get(shown..).unwrap_or_default());
    }
    if args.verbose {
        print_startup(&prepared);
    }
    let tools = pi_app::startup::session_tools(&prepared);
    let protocol = args.rpc_protocol;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let mut images = Some(attachments.images);
    let prompts: Vec<print::Prompt> = prompts
        .into_iter()
        .map(|text| (text, images.take().unwrap_or_default()))
        .collect();
    let (code, app) = runtime.block_on(async move {
        let session = Arc::new(App::new(prepared, tools));
        if mode != Mode::Interactive {
            print_warnings(&session.startup_warnings());
        }
        let signalled = Arc::new(AtomicI32::new(0));
        let shutdown = CancellationToken::new();
        watch_signals(
            Arc::clone(&session),
            Arc::clone(&signalled),
            shutdown.clone(),
        );
        let code = match mode {
            Mode::Print => print::run(&session, prompts, None).await,
            Mode::Json => print::run(&session, prompts, Some(JsonLines::stdout(protocol))).await,
            Mode::Rpc => {
                let out = JsonLines::stdout(protocol);
                rpc::run(Arc::clone(&session), out, shutdown).await
            }
            Mode::Interactive => {
                let mut options = ui.unwrap_or_default();
                options.header.extend(session.startup_warnings());
                // The command line's messages, the first with the @file images.
                options.initial_prompts = prompts;
                match pi_tui::run(Arc::clone(&session), options, shutdown).await {
                    Ok(code) => code,
                    Err(error) => {
                        print_warnings(&ui_warnings);
                        eprintln!("Error: {error}");
                        1
                    }
                }
            }
        };
        // Hooks hear the session close (bounded by their deadlines).
        session.shutdown().await;
        let code = match signalled.load(Ordering::SeqCst) {
            0 => code,
            signal_code => signal_code,
        };
        (code, session)
    });
    // Dropping a runtime waits for its blocking tasks without limit; nothing left at this
    // point may hold the exit (extension calls run on threads of their own, which the
    // process exit ends).
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    // Everything the app wrote is on disk (session entries are appended as they happen);
    // freeing its models, tools and extensions one by one would only delay the exit.
    std::mem::forget(app);
    Ok(code)
}

/// Start-up warnings on stderr, made safe for the terminal. A warning's later lines (a
/// manifest's parse error) are indented, so none can pass for a line of its own.
fn print_warnings(warnings: &[String]) {
    use pi_ai::terminal_text::{Keep, terminal_safe};
    for warning in warnings {
        let text = terminal_safe(warning.trim_end(), Keep::Lines);
        eprintln!("{}", text.replace('\n', "\n  "));
    }
}

/// How long the runtime may take to wind down once the mode has returned.
const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// How the interactive UI starts: the command line's messages as its first prompts, and the
/// start-up warnings in its header (stderr is hidden behind the UI).
fn tui_options(prepared: &pi_app::startup::Prepared, args: &Args) -> pi_tui::TuiOptions {
    let settings = &prepared.base.settings;
    let mut header = prepared.base.warnings.clone();
    if args.verbose || !settings.quiet_startup() {
        let loaded = &prepared.base.extensions.loaded;
        let env = &prepared.base.env;
        let context: Vec<String> = if prepared.prompt_options.no_context_files {
            Vec::new()
        } else {
            pi_session::context_files::load_context_files(&env.agent_dir, &env.cwd)
                .iter()
                .map(|f| shorten(&f.path, &env.cwd))
                .collect()
        };
        let list = |items: &[String]| {
            if items.is_empty() {
                "none".to_owned()
            } else {
                items.join(", ")
            }
        };
        header.insert(
            0,
            format!(
                "pi {VERSION} · context: {} · {} skills · {} prompt templates · extensions: {}",
                list(&context),
                prepared.skills.skills.len(),
                prepared.templates.templates.len(),
                list(loaded),
            ),
        );
    }
    let env = &prepared.base.env;
    let mode = args
        .tui_mode
        .clone()
        .or_else(|| settings.tui_mode().map(|m| m.as_str().to_owned()));
    pi_tui::TuiOptions {
        initial_prompts: Vec::new(),
        show_thinking: !settings.hide_thinking_block(),
        colors: pi_tui::ColorLevel::detect(|name| std::env::var(name).ok()),
        header,
        draft_path: Some(
            env.agent_dir
                .join("drafts")
                .join(format!("{}.md", pi_session::paths::encode_cwd(&env.cwd))),
        ),
        fullscreen: mode.as_deref() != Some("regular"),
        double_escape_action: settings.double_escape_action().as_str().to_owned(),
        external_editor: settings
            .external_editor()
            .or_else(|| std::env::var("VISUAL").ok())
            .or_else(|| std::env::var("EDITOR").ok())
            .filter(|e| !e.trim().is_empty()),
        keybindings: Some(env.agent_dir.join("keybindings.json")),
        max_completions: settings.autocomplete_max_visible(),
        cwd: env.cwd.clone(),
        sessions_dir: (!args.no_session).then(|| {
            pi_session::paths::session_dir_for(
                args.session_dir.as_deref(),
                settings.session_dir().as_deref(),
                &env.agent_dir,
                &env.cwd,
            )
            .path
        }),
        resume: args.resume,
        agent_dir: env.agent_dir.clone(),
        theme: args.use_theme.clone().unwrap_or_else(|| settings.theme()),
        detect_theme: args.use_theme.is_none() && settings.theme.is_none(),
        theme_dirs: if args.no_themes {
            Vec::new()
        } else {
            let mut dirs = vec![env.agent_dir.join("themes")];
            if prepared.base.trusted {
                dirs.push(env.cwd.join(".pi").join("themes"));
            }
            dirs
        },
        package_themes: !args.no_themes,
        theme_files: if args.no_themes {
            Vec::new()
        } else {
            args.themes
                .iter()
                .map(|p| env.cwd.join(p))
                .chain(settings.resource_paths("themes"))
                .collect()
        },
        images: if settings.terminal_show_images() {
            pi_tui::ImageProtocol::detect(|name| std::env::var(name).ok())
        } else {
            pi_tui::ImageProtocol::None
        },
    }
}

/// `path` relative to `cwd` when under it, else with `~` for the home directory.
fn shorten(path: &std::path::Path, cwd: &std::path::Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rest) => rest.display().to_string(),
        Err(_) => pi_session::paths::tilde(path),
    }
}

/// `--verbose`: what start-up chose, on stderr.
fn print_startup(prepared: &pi_app::startup::Prepared) {
    let session = prepared
        .session
        .session_file()
        .map_or_else(|| "(in memory)".to_owned(), |p| p.display().to_string());
    let text = format!(
        "model: {}/{} (thinking {})\nsession: {session}\ntools: {}\nextensions: {}\n\
         skills: {}, prompt templates: {}",
        prepared.model.provider,
        prepared.model.id,
        prepared.thinking.as_str(),
        prepared.tool_names.join(", "),
        if prepared.base.extensions.loaded.is_empty() {
            "(none)".to_owned()
        } else {
            prepared.base.extensions.loaded.join(", ")
        },
        prepared.skills.skills.len(),
        prepared.templates.templates.len(),
    );
    let text = pi_ai::terminal_text::terminal_safe(&text, pi_ai::terminal_text::Keep::Lines);
    eprintln!("{text}");
}

/// Reads piped stdin fully; trimmed, `None` when empty.
fn read_stdin() -> Option<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).ok()?;
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// SIGINT / SIGTERM / SIGHUP abort the run (the session file keeps everything finished so far)
/// and set the exit code (130 / 143 / 129). A second signal exits at once.
fn watch_signals(session: Arc<App>, code: Arc<AtomicI32>, shutdown: CancellationToken) {
    #[cfg(unix)]
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            return;
        };
        loop {
            let received = tokio::select! {
                _ = int.recv() => 130,
                _ = term.recv() => 143,
                _ = hup.recv() => 129,
            };
            if code.swap(received, Ordering::SeqCst) != 0 {
                std::process::exit(received);
            }
            session.abort();
            shutdown.cancel();
        }
    });
    #[cfg(not(unix))]
    {
        let _ = (session, code, shutdown);
    }
}
