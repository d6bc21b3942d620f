//! Just enough HTTP/1.1 to read one request and write one response byte by byte, so faults can
//! be placed exactly. Every connection serves one request (`connection: close`).

use std::collections::BTreeMap;
use std::io;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::watch;

const MAX_HEAD: usize = 256 * 1024;
// Large enough for the sessions bench's 200 MB context in one request.
const MAX_BODY: usize = 512 * 1024 * 1024;

/// A parsed request.
#[derive(Debug, Clone)]
pub struct RawRequest {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// Reads one request (head and body; `content-length` or chunked).
pub async fn read_request(rd: &mut OwnedReadHalf) -> io::Result<RawRequest> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(pos) = find(&buf, b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > MAX_HEAD {
            return Err(invalid("request head too large"));
        }
        read_more(rd, &mut buf).await?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut rest = buf.split_off(head_end + 4);
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let target = first.next().unwrap_or_default();
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_owned(), q.to_owned()),
        None => (target.to_owned(), String::new()),
    };
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .get("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        read_chunked(rd, rest).await?
    } else {
        let len: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if len > MAX_BODY {
            return Err(invalid("request body too large"));
        }
        while rest.len() < len {
            read_more(rd, &mut rest).await?;
        }
        rest.truncate(len);
        rest
    };
    Ok(RawRequest {
        method,
        path,
        query,
        headers,
        body,
    })
}

async fn read_more(rd: &mut OwnedReadHalf, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 16 * 1024];
    let n = rd.read(&mut chunk).await?;
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "client closed mid-request",
        ));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

async fn read_chunked(rd: &mut OwnedReadHalf, mut buf: Vec<u8>) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(pos) = find(&buf, b"\r\n") {
                break pos;
            }
            read_more(rd, &mut buf).await?;
        };
        let size_text = String::from_utf8_lossy(&buf[..line_end]).into_owned();
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| invalid("bad chunk size"))?;
        if body.len() + size > MAX_BODY {
            return Err(invalid("request body too large"));
        }
        while buf.len() < line_end + 2 + size + 2 {
            read_more(rd, &mut buf).await?;
        }
        body.extend_from_slice(&buf[line_end + 2..line_end + 2 + size]);
        buf.drain(..line_end + 2 + size + 2);
        if size == 0 {
            return Ok(body);
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Watches the read half after the request: EOF or an error means the client went away.
pub fn watch_client(mut rd: OwnedReadHalf) -> (watch::Receiver<bool>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = watch::channel(false);
    let task = tokio::spawn(async move {
        let mut sink = [0u8; 4096];
        loop {
            match rd.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let _ = tx.send(true);
    });
    (rx, task)
}

pub fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Site Overloaded",
        _ => "Status",
    }
}

/// The response head: status line, the defaults, then `extra` (which replace defaults of the
/// same name).
pub fn head(code: u16, defaults: &[(&str, String)], extra: &[(String, String)]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {code} {}\r\n", reason(code));
    for (name, value) in defaults {
        if !extra.iter().any(|(n, _)| n == name) {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    for (name, value) in extra {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// One chunk of a chunked body.
pub fn chunk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

/// Writes and flushes; an error means the client is gone.
pub async fn send(wr: &mut OwnedWriteHalf, bytes: &[u8]) -> io::Result<()> {
    wr.write_all(bytes).await?;
    wr.flush().await
}
