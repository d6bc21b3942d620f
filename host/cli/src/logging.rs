//! Where `tracing` output goes: `<agentDir>/pi.log` (appended, opened only when something is
//! logged, moved to `pi.log.1` past 5 MB), and stderr too with `--verbose` outside the
//! interactive UI. Extension logs, their captured stdout/stderr and every refusal the
//! extension host logs end up there, so an author can see why a package did not load.
//! `PI_LOG` (`error`, `warn`, `info`, `debug`, `trace`) sets the level; the default is `info`.
//! What goes to stderr quotes extensions and servers, so each event passes
//! `pi_ai::terminal_text` first ([`SafeStderr`]); the file keeps the text as it was.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::prelude::*;

/// The log file's name in the agent directory.
const LOG_FILE: &str = "pi.log";
/// Past this size the log is moved aside before the next write.
const ROTATE_BYTES: u64 = 5 * 1024 * 1024;

/// Installs the process's subscriber (once; later calls do nothing).
pub fn init(agent_dir: &Path, stderr: bool) {
    let level = std::env::var("PI_LOG")
        .ok()
        .and_then(|l| l.parse::<tracing_subscriber::filter::LevelFilter>().ok())
        .unwrap_or(tracing_subscriber::filter::LevelFilter::INFO);
    let file = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(LogFile(agent_dir.join(LOG_FILE)));
    let console = stderr.then(|| {
        tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .without_time()
            .with_writer(SafeStderr)
    });
    let subscriber = tracing_subscriber::registry()
        .with(level)
        .with(file)
        .with(console);
    // Fails only when a subscriber is already set (a second run in one process).
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// stderr for log events: each event is collected and written made safe for the terminal.
struct SafeStderr;

impl<'a> MakeWriter<'a> for SafeStderr {
    type Writer = SafeEvent;

    fn make_writer(&'a self) -> Self::Writer {
        SafeEvent(Vec::new())
    }
}

/// One event's text, written to stderr when it is complete (dropped).
struct SafeEvent(Vec<u8>);

impl Write for SafeEvent {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for SafeEvent {
    fn drop(&mut self) {
        use pi_ai::terminal_text::{Keep, terminal_safe};
        let text = String::from_utf8_lossy(&self.0);
        let _ = io::stderr().write_all(terminal_safe(&text, Keep::Lines).as_bytes());
    }
}

/// Opens the log file for each event: events are rare, and a run that logs nothing creates
/// no file.
struct LogFile(PathBuf);

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = Box<dyn Write + 'a>;

    fn make_writer(&'a self) -> Self::Writer {
        match open(&self.0) {
            Ok(file) => Box::new(file),
            Err(_) => Box::new(io::sink()),
        }
    }
}

fn open(path: &Path) -> io::Result<File> {
    if std::fs::metadata(path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
        let _ = std::fs::rename(path, path.with_extension("log.1"));
    }
    OpenOptions::new().create(true).append(true).open(path)
}
