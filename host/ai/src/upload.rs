//! Sending a request body. A kept body goes as its bytes; a large one is written from the
//! context on a blocking thread into a few chunks in flight, which the connection takes as it
//! sends them, so the whole body never sits in memory. Its length is known beforehand, so the
//! request carries a `Content-Length` as a body of bytes would.

use crate::protocol::RequestBody;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// Size of one chunk handed to the connection.
const CHUNK: usize = 64 << 10;
/// Chunks written ahead of the connection.
const IN_FLIGHT: usize = 4;

/// The body of one attempt at sending `body`.
pub(crate) fn send_body(body: &RequestBody) -> reqwest::Body {
    let write = match body.kept() {
        Ok(bytes) => return reqwest::Body::from(bytes.clone()),
        Err(write) => write.clone(),
    };
    let (tx, rx) = mpsc::channel(IN_FLIGHT);
    tokio::task::spawn_blocking(move || {
        let mut out = Chunks {
            tx,
            buf: Vec::with_capacity(CHUNK),
        };
        if let Err(err) = write(&mut out).and_then(|()| out.send()) {
            // Gone when the connection stopped taking the body (it failed or was cancelled).
            let _ = out.tx.blocking_send(Err(err));
        }
    });
    reqwest::Body::wrap(Streamed {
        rx,
        remaining: body.len(),
    })
}

/// The writer on the blocking thread: fills a chunk, then waits for room to hand it over.
struct Chunks {
    tx: mpsc::Sender<io::Result<Bytes>>,
    buf: Vec<u8>,
}

impl Chunks {
    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx
            .blocking_send(Ok(chunk.into()))
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl Write for Chunks {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The connection's side: the chunks as they come, with the body's exact length.
struct Streamed {
    rx: mpsc::Receiver<io::Result<Bytes>>,
    remaining: u64,
}

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                self.remaining = self.remaining.saturating_sub(chunk.len() as u64);
                Poll::Ready(Some(Ok(Frame::data(chunk))))
            }
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(err))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Model;
    use http_body_util::BodyExt;

    fn model() -> Model {
        Model {
            id: "m".into(),
            name: "m".into(),
            api: "openai-completions".into(),
            provider: "p".into(),
            base_url: "http://127.0.0.1:9".into(),
            reasoning: false,
            input: Vec::new(),
            cost: Default::default(),
            context_window: 1000,
            max_tokens: 100,
            headers: None,
            compat: None,
        }
    }

    #[tokio::test]
    async fn a_written_body_arrives_whole_in_chunks_with_its_length() {
        let text: String = (0..200_000).map(|i| format!("{i},")).collect();
        let model = model();
        let context = crate::types::Context::default();
        let options = crate::options::StreamOptions::default();
        let expected = serde_json::to_vec(&text).unwrap();
        let body = crate::providers::body(&model, &context, &options, move |_, _, _, out| {
            serde_json::to_writer(out, &text)
        })
        .unwrap();
        assert!(body.kept().is_err(), "a body past the limit is not kept");
        assert_eq!(body.len(), expected.len() as u64);
        let sent = send_body(&body);
        assert_eq!(
            http_body::Body::size_hint(&sent).exact(),
            Some(expected.len() as u64)
        );
        let got = sent.collect().await.unwrap().to_bytes();
        assert_eq!(got, expected);
        assert_eq!(body.to_bytes().unwrap(), expected);
    }

    #[tokio::test]
    async fn a_small_body_is_kept_as_its_bytes() {
        let model = model();
        let context = crate::types::Context::default();
        let options = crate::options::StreamOptions::default();
        let body = crate::providers::body(&model, &context, &options, |_, _, _, out| {
            serde_json::to_writer(out, &[1, 2, 3])
        })
        .unwrap();
        assert_eq!(
            body.kept().ok().map(|b| b.to_vec()),
            Some(b"[1,2,3]".to_vec())
        );
    }
}
