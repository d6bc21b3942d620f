//! A small blocking HTTP client over `wasi:http` for provider components (GET and POST). Requests only reach
//! the hosts the extension was granted; others fail with `HTTP-request-denied`.

use crate::bindings::provider::wasi::http::outgoing_handler;
use crate::bindings::provider::wasi::http::types::{
    ErrorCode, Fields, IncomingBody, IncomingResponse, Method, OutgoingBody, OutgoingRequest,
    Scheme,
};
use crate::bindings::provider::wasi::io::streams::{InputStream, StreamError};

/// A response whose body is read incrementally.
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    // Field order matters: the stream must drop before its body, the body before the response.
    stream: InputStream,
    _body: IncomingBody,
    _response: IncomingResponse,
}

impl Response {
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
    let body = response
        .consume()
        .map_err(|()| "response body taken".to_owned())?;
    let stream = body
        .stream()
        .map_err(|()| "response stream taken".to_owned())?;
    Ok(Response {
        status,
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

fn describe(error: ErrorCode) -> String {
    match error {
        ErrorCode::HttpRequestDenied => "HTTP request denied: host not granted".to_owned(),
        // What pi answers when the package was granted no network at all.
        ErrorCode::InternalError(Some(message)) => message,
        other => format!("HTTP error: {other:?}"),
    }
}
