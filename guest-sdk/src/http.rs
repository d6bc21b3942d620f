//! A small blocking HTTP client over `wasi:http` (GET and POST) for provider and tool
//! components (a tool needs WIT 0.2.0). Requests only reach the hosts the package was granted
//! in `network`; others fail with "HTTP request to <host> denied: host not granted", and with no
//! host granted at all every request fails with "capability `network` was not granted to …".
//!
//! The bindings are the `tool` world's: the imports are the same `wasi:http` interfaces in
//! both worlds, so one client serves both.

use crate::bindings::tool::wasi::http::outgoing_handler;
use crate::bindings::tool::wasi::http::types::{
    ErrorCode, Fields, IncomingBody, IncomingResponse, Method, OutgoingBody, OutgoingRequest,
    Scheme,
};
use crate::bindings::tool::wasi::io::streams::{InputStream, StreamError};

/// A response whose body is read incrementally.
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The response headers, names in lowercase, in the order received.
    pub headers: Vec<(String, String)>,
    // Field order matters: the stream must drop before its body, the body before the response.
    stream: InputStream,
    _body: IncomingBody,
    _response: IncomingResponse,
}

impl Response {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The next piece of the body; `Ok(None)` at its end.
    pub fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        match self.stream.blocking_read(64 * 1024) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(StreamError::Closed) => Ok(None),
            Err(StreamError::LastOperationFailed(e)) => Err(e.to_debug_string()),
        }
    }

    /// The rest of the body.
    pub fn read_all(&mut self) -> Result<Vec<u8>, String> {
        let mut all = Vec::new();
        while let Some(chunk) = self.read_chunk()? {
            all.extend_from_slice(&chunk);
        }
        Ok(all)
    }
}

/// Sends a POST with `body` to `url` (`http://` or `https://`).
pub fn post(url: &str, headers: &[(String, String)], body: &[u8]) -> Result<Response, String> {
    send(Method::Post, url, headers, body)
}

/// Sends a GET to `url` (`http://` or `https://`).
pub fn get(url: &str, headers: &[(String, String)]) -> Result<Response, String> {
    send(Method::Get, url, headers, &[])
}

fn send(
    method: Method,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<Response, String> {
    let (scheme, rest) = if let Some(rest) = url.strip_prefix("https://") {
        (Scheme::Https, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (Scheme::Http, rest)
    } else {
        return Err(format!("unsupported URL: {url}"));
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let fields: Vec<(String, Vec<u8>)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.as_bytes().to_vec()))
        .collect();
    let fields = Fields::from_list(&fields).map_err(|e| format!("bad header: {e:?}"))?;
    let request = OutgoingRequest::new(fields);
    let set = |ok: Result<(), ()>, what: &str| ok.map_err(|()| format!("invalid {what} in {url}"));
    set(request.set_method(&method), "method")?;
    set(request.set_scheme(Some(&scheme)), "scheme")?;
    set(request.set_authority(Some(authority)), "authority")?;
    set(request.set_path_with_query(Some(path)), "path")?;
    let outgoing = request
        .body()
        .map_err(|()| "request body taken".to_owned())?;
    write_body(&outgoing, body)?;
    let describe = |error| describe(error, authority);
    let pending = outgoing_handler::handle(request, None).map_err(describe)?;
    OutgoingBody::finish(outgoing, None).map_err(describe)?;
    let response = loop {
        match pending.get() {
            Some(Ok(Ok(response))) => break response,
            Some(Ok(Err(e))) => return Err(describe(e)),
            Some(Err(())) => return Err("response already taken".to_owned()),
            None => pending.subscribe().block(),
        }
    };
    let status = response.status();
    let headers = response
        .headers()
        .entries()
        .into_iter()
        .map(|(name, value)| {
            (
                name.to_ascii_lowercase(),
                String::from_utf8_lossy(&value).into_owned(),
            )
        })
        .collect();
    let body = response
        .consume()
        .map_err(|()| "response body taken".to_owned())?;
    let stream = body
        .stream()
        .map_err(|()| "response stream taken".to_owned())?;
    Ok(Response {
        status,
        headers,
        stream,
        _body: body,
        _response: response,
    })
}

fn write_body(outgoing: &OutgoingBody, mut body: &[u8]) -> Result<(), String> {
    let stream = outgoing
        .write()
        .map_err(|()| "request stream taken".to_owned())?;
    let pollable = stream.subscribe();
    while !body.is_empty() {
        pollable.block();
        let permit = stream.check_write().map_err(|e| format!("{e:?}"))?;
        let n = body
            .len()
            .min(usize::try_from(permit).unwrap_or(usize::MAX));
        stream.write(&body[..n]).map_err(|e| format!("{e:?}"))?;
        body = &body[n..];
    }
    stream.flush().map_err(|e| format!("{e:?}"))?;
    pollable.block();
    drop(pollable);
    drop(stream);
    Ok(())
}

fn describe(error: ErrorCode, authority: &str) -> String {
    match error {
        ErrorCode::HttpRequestDenied => {
            format!("HTTP request to {authority} denied: host not granted")
        }
        // What pi answers when the package was granted no network at all.
        ErrorCode::InternalError(Some(message)) => message,
        other => format!("HTTP error: {other:?}"),
    }
}
