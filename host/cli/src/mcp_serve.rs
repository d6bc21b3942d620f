//! `pi mcp serve [--builtin] [--cwd <dir>]`: pi's tools offered to any MCP client (Claude
//! Code, codex, …) as an MCP server over stdio, through the official SDK (`rmcp`). The tools
//! are the installed extension packages' (global, and a trusted project's), each call run by
//! the extension host exactly as in a session: the package's approved grant, preopens,
//! sandbox and deadline (a package not approved runs with no capabilities); with `--builtin`
//! also the built-in tools under the run's path policy and `tools.sandbox`. Dispatched before
//! the normal flag parsing. stdout carries only the protocol; warnings go to stderr (clients
//! keep it as the server's log) and `tracing` to `<agentDir>/pi.log`. The server ends with 0
//! when the client closes stdin.

mod handler;

use clap::Parser;
use pi_app::startup::{Base, StartupEnv, StartupOptions};
use std::ffi::OsString;
use std::path::PathBuf;

/// Whether the arguments start `pi mcp serve`.
pub fn is_mcp_serve_command(argv: &[OsString]) -> bool {
    argv.get(1).is_some_and(|a| a == "mcp") && argv.get(2).is_some_and(|a| a == "serve")
}

#[derive(Debug, Parser)]
#[command(
    name = "pi mcp serve",
    bin_name = "pi mcp serve",
    about = "Serve the installed extension packages' tools (and with --builtin pi's built-in \
             tools) to an MCP client over stdio, each call in its sandbox under the package's grant",
    max_term_width = 100
)]
struct ServeArgs {
    /// Also serve the built-in tools (read, bash, edit, write, grep, find, ls) under the path
    /// policy and tools.sandbox
    #[arg(long)]
    builtin: bool,
    /// The working directory the tools work in (default: the current one)
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

/// Runs `pi mcp serve` with `argv` (program name first) and returns the exit code: 0 when the
/// client closed stdin, 1 on bad arguments or a start-up failure.
pub fn main(argv: Vec<OsString>) -> i32 {
    // `pi mcp serve …` parsed as `serve …`.
    let parsed = match ServeArgs::try_parse_from(argv.into_iter().skip(2)) {
        Ok(parsed) => parsed,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { 1 } else { 0 };
        }
    };
    let env = match serve_env(parsed.cwd.as_deref()) {
        Ok(env) => env,
        Err(message) => {
            tell!("Error: {message}");
            return 1;
        }
    };
    crate::logging::init(&env.agent_dir, false);
    match serve(parsed.builtin, env) {
        Ok(()) => 0,
        Err(message) => {
            tell!("Error: {message}");
            1
        }
    }
}

/// The run's directories, the working directory from `--cwd` when given.
fn serve_env(cwd: Option<&std::path::Path>) -> Result<StartupEnv, String> {
    let mut env = StartupEnv::from_process()
        .map_err(|error| format!("cannot read the working directory: {error}"))?;
    if let Some(dir) = cwd {
        let dir = env.cwd.join(dir);
        if !dir.is_dir() {
            return Err(format!("--cwd {}: not a directory", dir.display()));
        }
        env.cwd = std::fs::canonicalize(&dir)
            .map_err(|error| format!("--cwd {}: {error}", dir.display()))?;
    }
    Ok(env)
}

/// Loads the packages and serves their tools until the client goes away.
fn serve(builtin: bool, env: StartupEnv) -> Result<(), String> {
    // Serving tools probes no local model server.
    let options = StartupOptions {
        offline: true,
        ..StartupOptions::default()
    };
    let base = Base::load(&options, env).map_err(|error| {
        warn_all(error.warnings());
        error.to_string()
    })?;
    warn_all(&base.warnings);
    let session_id = format!("mcp-serve-{}", std::process::id());
    let mut warnings = Vec::new();
    let tools =
        pi_app::served_tools::served_tools(&options, &base, builtin, &session_id, &mut warnings)
            .map_err(|error| error.to_string())?;
    warn_all(&warnings);
    tracing::info!(
        "pi mcp serve: {} tool(s) in {}",
        tools.len(),
        base.env.cwd.display()
    );
    let server = handler::ToolServer::new(tools, handler::instructions(builtin, &base.env.cwd));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    let result = runtime.block_on(server.run());
    // A call still running in a blocking thread must not hold the exit.
    runtime.shutdown_background();
    result
}

/// Start-up warnings go to stderr, never stdout (the protocol's), and to the log.
fn warn_all(warnings: &[String]) {
    for warning in warnings {
        tracing::warn!("{warning}");
        tell!("{warning}");
    }
}
