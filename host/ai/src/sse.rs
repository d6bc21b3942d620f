//! Incremental Server-Sent Events parser (the WHATWG event-stream rules).
//!
//! Bytes may be split anywhere, including inside a UTF-8 sequence or between `\r` and `\n`:
//! only complete lines are decoded, so chunking never changes the result.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; empty when the server sent none (the spec's "message").
    pub event: String,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the current, not yet terminated line.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`; a leading `\n` in the next chunk belongs to it.
    after_cr: bool,
    /// The event being read. Its buffers are reused from one event to the next.
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; `on_event` is called for each event completed by them.
    pub fn feed(&mut self, chunk: &[u8], on_event: &mut impl FnMut(SseEvent)) {
        self.feed_ref(chunk, &mut |event| on_event(event.clone()));
    }

    /// Ends the stream. A last line without its terminator is still read, and an event whose
    /// blank line never came is dispatched (some servers omit the final blank line).
    pub fn finish(&mut self, on_event: &mut impl FnMut(SseEvent)) {
        self.finish_ref(&mut |event| on_event(event.clone()));
    }

    /// Like [`Self::feed`], but lends each event instead of giving it away, so the parser can
    /// reuse its buffers: no allocation per event once they have grown.
    pub fn feed_ref(&mut self, mut chunk: &[u8], on_event: &mut impl FnMut(&SseEvent)) {
        if self.after_cr {
            self.after_cr = false;
            if chunk.first() == Some(&b'\n') {
                chunk = &chunk[1..];
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) {
            let (head, rest) = chunk.split_at(end);
            let terminator = rest[0];
            let mut skip = 1;
            if terminator == b'\r' {
                match rest.get(1) {
                    Some(b'\n') => skip = 2,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            if self.line.is_empty() {
                self.process_line(head, on_event);
            } else {
                self.line.extend_from_slice(head);
                let line = std::mem::take(&mut self.line);
                self.process_line(&line, on_event);
                // Keep the buffer's capacity for the next split line.
                self.line = line;
                self.line.clear();
            }
            chunk = &rest[skip..];
        }
        self.line.extend_from_slice(chunk);
    }

    /// Like [`Self::finish`], lending the events.
    pub fn finish_ref(&mut self, on_event: &mut impl FnMut(&SseEvent)) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, on_event);
        }
        self.dispatch(on_event);
    }

    fn process_line(&mut self, line: &[u8], on_event: &mut impl FnMut(&SseEvent)) {
        if line.is_empty() {
            self.dispatch(on_event);
            return;
        }
        if line[0] == b':' {
            return; // comment, e.g. keep-alive or ": OPENROUTER PROCESSING"
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                push_lossy(&mut self.current.data, value);
                self.has_data = true;
            }
            b"event" => {
                self.current.event.clear();
                push_lossy(&mut self.current.event, value);
            }
            _ => {} // id, retry and unknown fields do not matter here
        }
    }

    fn dispatch(&mut self, on_event: &mut impl FnMut(&SseEvent)) {
        if self.has_data {
            self.has_data = false;
            on_event(&self.current);
            self.current.data.clear();
        }
        self.current.event.clear();
    }
}

/// Appends bytes as text, replacing invalid UTF-8 as `String::from_utf8_lossy` does. Valid
/// input (nearly all of it) takes the fast whole-slice check.
fn push_lossy(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(input: &[u8], size: usize) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for piece in input.chunks(size) {
            parser.feed(piece, &mut |e| out.push(e));
        }
        parser.finish(&mut |e| out.push(e));
        out
    }

    #[test]
    fn line_endings_comments_and_chunking_agree() {
        let input = "event: a\r\ndata: é1\r\n\r\n: comment\n\ndata: x\rdata:y\r\rdata: last";
        let whole = parse_in_pieces(input.as_bytes(), input.len());
        assert_eq!(
            whole,
            vec![
                SseEvent {
                    event: "a".into(),
                    data: "é1".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "x\ny".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "last".into()
                },
            ]
        );
        for size in 1..8 {
            assert_eq!(
                parse_in_pieces(input.as_bytes(), size),
                whole,
                "size {size}"
            );
        }
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        assert!(parse_in_pieces(b"event: ping\n\n", 3).is_empty());
    }
}
