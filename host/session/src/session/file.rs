//! Reading and appending session files.
//!
//! Loading streams the file line by line (memory stays proportional to the entries, not to
//! the file twice). Appends write one whole line per entry to a file opened in append mode, so
//! their cost does not depend on the file size. A last line cut short by a crash is reported
//! and repaired before the next append.

use super::SessionError;
use super::entry::{CURRENT_SESSION_VERSION, EntryError, SessionEntry, SessionHeader};
use super::migrate::migrate;
use crate::paths::write_atomic;
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, mpsc};

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

/// Reads a file line by line, tracking line numbers and byte offsets.
pub(super) struct LineReader {
    reader: BufReader<File>,
    buf: Vec<u8>,
    offset: u64,
    number: usize,
}

/// Where the line in `LineReader::buf` is.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineInfo {
    pub number: usize,
    pub start: u64,
    /// Ends with a newline (only the last line of a file may not).
    pub complete: bool,
}

impl LineReader {
    fn next(&mut self) -> std::io::Result<Option<LineInfo>> {
        self.buf.clear();
        let read = self.reader.read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        let start = self.offset;
        self.offset += read as u64;
        Ok(Some(LineInfo {
            number: self.number,
            start,
            complete: self.buf.last() == Some(&b'\n'),
        }))
    }

    fn text(&self) -> &[u8] {
        trim_line(&self.buf)
    }
}

pub(super) fn is_blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

/// What one line gave.
#[derive(Debug, Default)]
pub(super) struct LineOutcome {
    pub entry: Option<SessionEntry>,
    pub warning: Option<LoadWarning>,
    pub repair: Option<Repair>,
}

/// Parses a line as JSON, deciding the repair an incomplete last line needs.
fn parse_value_line(text: &[u8], line: LineInfo) -> (Option<Value>, LineOutcome) {
    let parsed: Result<Value, String> = std::str::from_utf8(text)
        .map_err(|e| format!("invalid UTF-8: {e}"))
        .and_then(|s| serde_json::from_str(s).map_err(|e| e.to_string()));
    let mut outcome = LineOutcome::default();
    match parsed {
        Ok(value) => {
            if !line.complete {
                outcome.repair = Some(Repair::AddNewline);
            }
            (Some(value), outcome)
        }
        Err(message) => {
            let message = if line.complete {
                message
            } else {
                outcome.repair = Some(Repair::TruncateTo(line.start));
                format!("incomplete last line (interrupted write?): {message}")
            };
            outcome.warning = Some(LoadWarning {
                line: line.number,
                message,
            });
            (None, outcome)
        }
    }
}

/// Parses a v3 entry line.
pub(super) fn parse_entry_line(text: &[u8], line: LineInfo) -> LineOutcome {
    let (value, mut outcome) = parse_value_line(text, line);
    let Some(value) = value else {
        return outcome;
    };
    let parsed = match SessionEntry::from_json_owned(value) {
        // Rare: a message whose fields do not parse; read it again, keeping it verbatim.
        Err(EntryError::Retry) => {
            SessionEntry::from_json(serde_json::from_slice(text).unwrap_or(Value::Null))
        }
        other => other,
    };
    match parsed {
        Ok(entry) => outcome.entry = Some(entry),
        Err(err) => {
            outcome.warning = Some(LoadWarning {
                line: line.number,
                message: err.to_string(),
            })
        }
    }
    outcome
}

/// Lines handed to a parsing thread.
#[derive(Default)]
struct Batch {
    data: Vec<u8>,
    lines: Vec<(std::ops::Range<usize>, LineInfo)>,
}

impl Batch {
    fn parse<T>(&self, parse: fn(&[u8], LineInfo) -> T) -> Vec<T> {
        self.lines
            .iter()
            .map(|(range, line)| parse(&self.data[range.clone()], *line))
            .collect()
    }
}

const BATCH_BYTES: usize = 1 << 20;

/// Parses the entry lines after the header on worker threads with `parse` (JSON parsing
/// dominates loading; reading is cheap), keeping file order.
pub(super) fn parse_lines_parallel<T: Send>(
    lines: &mut LineReader,
    parse: fn(&[u8], LineInfo) -> T,
) -> std::io::Result<Vec<T>> {
    let workers = std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .clamp(1, 4);
    let mut results: Vec<(usize, Vec<T>)> = Vec::new();
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, Batch)>(workers * 2);
    let work_rx = Mutex::new(work_rx);
    let (result_tx, result_rx) = mpsc::channel();
    std::thread::scope(|scope| -> std::io::Result<()> {
        for _ in 0..workers {
            let result_tx = result_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                loop {
                    let next = match work_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => break,
                    };
                    let Ok((seq, batch)) = next else { break };
                    if result_tx.send((seq, batch.parse(parse))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        let read = (|| -> std::io::Result<()> {
            let mut seq = 0;
            let mut batch = Batch::default();
            while let Some(line) = lines.next()? {
                let text = lines.text();
                if is_blank(text) {
                    continue;
                }
                let at = batch.data.len();
                batch.data.extend_from_slice(text);
                batch.lines.push((at..batch.data.len(), line));
                if batch.data.len() >= BATCH_BYTES {
                    if work_tx.send((seq, std::mem::take(&mut batch))).is_err() {
                        return Ok(());
                    }
                    seq += 1;
                }
            }
            if !batch.lines.is_empty() {
                let _ = work_tx.send((seq, batch));
            }
            Ok(())
        })();
        drop(work_tx);
        results = result_rx.iter().collect();
        read
    })?;
    results.sort_by_key(|(seq, _)| *seq);
    Ok(results.into_iter().flat_map(|(_, batch)| batch).collect())
}

/// The start of a session file: its header and the reader after it, or nothing (an empty
/// file, or one whose only content is a first line cut while it was being created).
pub(super) struct Start {
    pub lines: LineReader,
    pub header: Option<SessionHeader>,
    pub warnings: Vec<LoadWarning>,
    pub repair: Option<Repair>,
}

pub(super) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> SessionError + '_ {
    move |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Opens `path` and reads up to its header.
pub(super) fn read_start(path: &Path) -> Result<Start, SessionError> {
    let io_err = io_error(path);
    let file = File::open(path).map_err(&io_err)?;
    let mut lines = LineReader {
        reader: BufReader::with_capacity(1 << 20, file),
        buf: Vec::with_capacity(64 * 1024),
        offset: 0,
        number: 0,
    };
    let mut warnings = Vec::new();
    let mut repair = None;
    let mut saw_content = false;
    let mut header = None;
    while let Some(line) = lines.next().map_err(&io_err)? {
        if is_blank(lines.text()) {
            continue;
        }
        saw_content = true;
        let (value, outcome) = parse_value_line(lines.text(), line);
        warnings.extend(outcome.warning);
        repair = outcome.repair.or(repair);
        if let Some(value) = value {
            header =
                Some(
                    SessionHeader::from_json(value).ok_or_else(|| SessionError::NotASession {
                        path: path.to_path_buf(),
                    })?,
                );
            break;
        }
    }
    // A file whose only content is a cut first line was interrupted while being created:
    // treat it as empty (the fragment is cut on the first write).
    let cut_at_start = repair == Some(Repair::TruncateTo(0)) && warnings.len() == 1;
    if header.is_none() && saw_content && !cut_at_start {
        return Err(SessionError::NotASession {
            path: path.to_path_buf(),
        });
    }
    Ok(Start {
        lines,
        header,
        warnings,
        repair,
    })
}

/// The header an empty file gets (its id is filled in when the file is first written).
pub(super) fn empty_header() -> SessionHeader {
    SessionHeader {
        version: Some(CURRENT_SESSION_VERSION),
        id: String::new(),
        timestamp: String::new(),
        cwd: String::new(),
        parent_session: None,
        extra: Default::default(),
    }
}

/// Loads `path` whole, migrating (and atomically rewriting) a v1/v2 file.
pub fn load(path: &Path) -> Result<LoadedFile, SessionError> {
    let io_err = io_error(path);
    let Start {
        mut lines,
        header,
        mut warnings,
        mut repair,
    } = read_start(path)?;
    let Some(mut header) = header else {
        return Ok(LoadedFile {
            header: empty_header(),
            entries: Vec::new(),
            warnings,
            repair,
            empty: true,
        });
    };
    let mut entries = Vec::new();
    if header.version.unwrap_or(1) >= CURRENT_SESSION_VERSION {
        let outcomes = parse_lines_parallel(&mut lines, parse_entry_line).map_err(&io_err)?;
        entries.reserve_exact(outcomes.len());
        for outcome in outcomes {
            entries.extend(outcome.entry);
            warnings.extend(outcome.warning);
            repair = outcome.repair.or(repair);
        }
    } else {
        let mut old_lines = Vec::new();
        while let Some(line) = lines.next().map_err(&io_err)? {
            if is_blank(lines.text()) {
                continue;
            }
            let (value, outcome) = parse_value_line(lines.text(), line);
            warnings.extend(outcome.warning);
            repair = outcome.repair.or(repair);
            if let Some(value) = value {
                old_lines.push(RawLine {
                    number: line.number,
                    value,
                });
            }
        }
        if migrate_file(path, &mut header, old_lines, &mut entries, &mut warnings)? {
            repair = None;
        }
    }
    for w in &warnings {
        tracing::warn!(file = %path.display(), "{w}");
    }
    Ok(LoadedFile {
        header,
        entries,
        warnings,
        repair,
        empty: false,
    })
}

pub(super) fn trim_line(buf: &[u8]) -> &[u8] {
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
