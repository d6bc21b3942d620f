//! Reading and appending session files.
//!
//! Loading streams the file line by line (memory stays proportional to the entries, not to
//! the file twice). Appends write one whole line per entry to a file opened in append mode, so
//! their cost does not depend on the file size. A last line cut short by a crash is reported
//! and repaired before the next append.

use super::SessionError;
use super::entry::{CURRENT_SESSION_VERSION, SessionEntry, SessionHeader};
use super::migrate::migrate;
use crate::paths::write_atomic;
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// A line that could not be read; the rest of the file still loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// 1-based line number in the file.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// What must be fixed before the next append so the file stays valid JSONL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repair {
    /// The last line is complete JSON but lacks its newline.
    AddNewline,
    /// The last line is a fragment: cut the file at this byte offset.
    TruncateTo(u64),
}

/// A session file as read from disk.
#[derive(Debug)]
pub struct LoadedFile {
    pub header: SessionHeader,
    pub entries: Vec<SessionEntry>,
    pub warnings: Vec<LoadWarning>,
    pub repair: Option<Repair>,
    /// The file was empty (it gets a header on first write).
    pub empty: bool,
}

struct RawLine {
    number: usize,
    value: Value,
}

/// Loads `path`, migrating (and atomically rewriting) a v1/v2 file.
pub fn load(path: &Path) -> Result<LoadedFile, SessionError> {
    let io_err = |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_err)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut offset: u64 = 0;
    let mut number = 0usize;
    let mut header: Option<SessionHeader> = None;
    let mut entries = Vec::new();
    let mut old_lines: Vec<RawLine> = Vec::new();
    let mut warnings = Vec::new();
    let mut repair = None;
    let mut saw_content = false;
    loop {
        buf.clear();
        let read = reader.read_until(b'\n', &mut buf).map_err(io_err)?;
        if read == 0 {
            break;
        }
        number += 1;
        let start = offset;
        offset += read as u64;
        let complete = buf.last() == Some(&b'\n');
        let text = trim_line(&buf);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        saw_content = true;
        let parsed: Result<Value, String> = std::str::from_utf8(text)
            .map_err(|e| format!("invalid UTF-8: {e}"))
            .and_then(|s| serde_json::from_str(s).map_err(|e| e.to_string()));
        let value = match parsed {
            Ok(value) => {
                if !complete {
                    repair = Some(Repair::AddNewline);
                }
                value
            }
            Err(message) => {
                if !complete {
                    repair = Some(Repair::TruncateTo(start));
                    warnings.push(LoadWarning {
                        line: number,
                        message: format!("incomplete last line (interrupted write?): {message}"),
                    });
                } else {
                    warnings.push(LoadWarning {
                        line: number,
                        message,
                    });
                }
                continue;
            }
        };
        let Some(head) = &header else {
            header = Some(
                SessionHeader::from_json(value).ok_or_else(|| SessionError::NotASession {
                    path: path.to_path_buf(),
                })?,
            );
            continue;
        };
        if head.version.unwrap_or(1) >= CURRENT_SESSION_VERSION {
            push_entry(&mut entries, &mut warnings, number, value);
        } else {
            old_lines.push(RawLine { number, value });
        }
    }
    for w in &warnings {
        tracing::warn!(file = %path.display(), "{w}");
    }
    let Some(mut header) = header else {
        // A file whose only content is a cut first line was interrupted while being created:
        // treat it as empty (the fragment is cut on the first write).
        let cut_at_start = repair == Some(Repair::TruncateTo(0)) && warnings.len() == 1;
        if saw_content && !cut_at_start {
            return Err(SessionError::NotASession {
                path: path.to_path_buf(),
            });
        }
        return Ok(LoadedFile {
            header: SessionHeader {
                version: Some(CURRENT_SESSION_VERSION),
                id: String::new(),
                timestamp: String::new(),
                cwd: String::new(),
                parent_session: None,
                extra: Default::default(),
            },
            entries,
            warnings,
            repair,
            empty: true,
        });
    };
    if header.version.unwrap_or(1) < CURRENT_SESSION_VERSION {
        let rewritten = migrate_file(path, &mut header, old_lines, &mut entries, &mut warnings)?;
        if rewritten {
            repair = None;
        }
    }
    Ok(LoadedFile {
        header,
        entries,
        warnings,
        repair,
        empty: false,
    })
}

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && matches!(buf[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &buf[..end]
}

fn push_entry(
    entries: &mut Vec<SessionEntry>,
    warnings: &mut Vec<LoadWarning>,
    number: usize,
    value: Value,
) {
    match SessionEntry::from_json(value) {
        Ok(entry) => entries.push(entry),
        Err(err) => warnings.push(LoadWarning {
            line: number,
            message: err.to_string(),
        }),
    }
}

fn migrate_file(
    path: &Path,
    header: &mut SessionHeader,
    mut lines: Vec<RawLine>,
    entries: &mut Vec<SessionEntry>,
    warnings: &mut Vec<LoadWarning>,
) -> Result<bool, SessionError> {
    let mut header_json = match header.to_json() {
        Value::Object(map) => map,
        _ => Default::default(),
    };
    let version = header.version.unwrap_or(1);
    let mut values: Vec<Value> = lines.iter_mut().map(|l| l.value.take()).collect();
    if !migrate(version, &mut header_json, &mut values) {
        return Ok(false);
    }
    let mut text = Value::Object(header_json.clone()).to_string();
    text.push('\n');
    for value in &values {
        text.push_str(&value.to_string());
        text.push('\n');
    }
    if let Some(new_header) = SessionHeader::from_json(Value::Object(header_json)) {
        *header = new_header;
    }
    for (line, value) in lines.iter().zip(values) {
        push_entry(entries, warnings, line.number, value);
    }
    write_atomic(path, text.as_bytes()).map_err(|source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    tracing::info!(file = %path.display(), from = version, "migrated session file to v3");
    Ok(true)
}

/// Appends whole lines to a session file.
#[derive(Debug)]
pub struct SessionWriter {
    path: PathBuf,
    file: Option<File>,
    repair: Option<Repair>,
}

impl SessionWriter {
    pub fn new(path: PathBuf, repair: Option<Repair>) -> Self {
        SessionWriter {
            path,
            file: None,
            repair,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io_err(&self, source: std::io::Error) -> SessionError {
        SessionError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Creates the file (it must not exist: pi's `wx`) with `lines`, in one write.
    pub fn create(&mut self, lines: &[String]) -> Result<(), SessionError> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.io_err(e))?;
        }
        let mut file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&self.path)
            .map_err(|e| self.io_err(e))?;
        let text = join_lines(lines);
        file.write_all(text.as_bytes())
            .map_err(|e| self.io_err(e))?;
        self.file = Some(file);
        self.repair = None;
        Ok(())
    }

    /// Appends `lines` (each a whole entry) in one write, after repairing a cut last line.
    pub fn append(&mut self, lines: &[String]) -> Result<(), SessionError> {
        if self.file.is_none() {
            let file = OpenOptions::new()
                .append(true)
                .create(true)
                .open(&self.path)
                .map_err(|e| self.io_err(e))?;
            self.file = Some(file);
        }
        let mut text = String::new();
        match self.repair.take() {
            Some(Repair::AddNewline) => text.push('\n'),
            Some(Repair::TruncateTo(len)) => {
                if let Some(file) = &self.file {
                    file.set_len(len).map_err(|e| self.io_err(e))?;
                }
                tracing::warn!(file = %self.path.display(), "cut an incomplete last line");
            }
            None => {}
        }
        text.push_str(&join_lines(lines));
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let result = file.write_all(text.as_bytes()).and_then(|_| file.flush());
        result.map_err(|e| self.io_err(e))
    }
}

fn join_lines(lines: &[String]) -> String {
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Reads only the header of a session file (for listing and id lookup).
pub fn read_header(path: &Path) -> Option<SessionHeader> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if !line.trim().is_empty() {
            let value: Value = serde_json::from_str(line.trim()).ok()?;
            return SessionHeader::from_json(value);
        }
    }
}
