//! The server: a thread with its own tokio runtime, an accept loop, one task per connection
//! playing one scripted [`Reply`].

use crate::http::{self, RawRequest};
use crate::render::{self, SseEvent};
use crate::reply::{Reply, ReplyKind};
use crate::{Api, LoggedRequest};
use pi_ai::lock;
use serde_json::json;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::watch;

/// Longest a stalled or hanging connection is kept open, so nothing waits forever.
const MAX_IDLE: Duration = Duration::from_secs(600);
/// Longest wait for a client to finish sending its request.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// State shared by the test thread and the server thread.
#[derive(Default)]
pub(crate) struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    /// Replies for requests whose system prompt or first user message holds the key.
    keyed: Mutex<Vec<(String, VecDeque<Reply>)>>,
    log: Mutex<Vec<LoggedRequest>>,
    logged: Condvar,
}

impl Shared {
    pub fn push(&self, reply: Reply) {
        lock(&self.queue).push_back(reply);
    }

    pub fn push_keyed(&self, key: &str, reply: Reply) {
        let mut keyed = lock(&self.keyed);
        match keyed.iter_mut().find(|(k, _)| k == key) {
            Some((_, queue)) => queue.push_back(reply),
            None => keyed.push((key.to_owned(), VecDeque::from([reply]))),
        }
    }

    pub fn pending(&self) -> usize {
        lock(&self.queue).len()
            + lock(&self.keyed)
                .iter()
                .map(|(_, q)| q.len())
                .sum::<usize>()
    }

    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.log).clone()
    }

    /// Blocks until `n` requests are logged or `timeout` passes.
    pub fn wait_blocking(&self, n: usize, timeout: Duration) -> Vec<LoggedRequest> {
        let guard = lock(&self.log);
        let (guard, _) = self
            .logged
            .wait_timeout_while(guard, timeout, |log| log.len() < n)
            .unwrap_or_else(|e| e.into_inner());
        guard.clone()
    }

    /// Blocks until the client of request `index` went away or `timeout` passes.
    pub fn wait_gone_blocking(&self, index: usize, timeout: Duration) -> bool {
        let guard = lock(&self.log);
        let (guard, _) = self
            .logged
            .wait_timeout_while(guard, timeout, |log| {
                !log.get(index).is_some_and(|r| r.client_went_away)
            })
            .unwrap_or_else(|e| e.into_inner());
        guard.get(index).is_some_and(|r| r.client_went_away)
    }

    fn log(&self, request: &RawRequest, api: Option<Api>) -> usize {
        let body = if request.body.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&request.body).unwrap_or_else(|_| {
                serde_json::Value::String(String::from_utf8_lossy(&request.body).into_owned())
            })
        };
        let mut log = lock(&self.log);
        log.push(LoggedRequest {
            method: request.method.clone(),
            path: request.path.clone(),
            query: request.query.clone(),
            headers: request.headers.clone(),
            body,
            api,
            client_went_away: false,
            answered: false,
            received: Instant::now(),
            answered_at: None,
        });
        self.logged.notify_all();
        log.len() - 1
    }

    fn mark_answered(&self, index: usize) {
        if let Some(entry) = lock(&self.log).get_mut(index) {
            entry.answered = true;
            entry.answered_at = Some(Instant::now());
        }
        self.logged.notify_all();
    }

    fn mark_gone(&self, index: usize) {
        if let Some(entry) = lock(&self.log).get_mut(index) {
            entry.client_went_away = true;
        }
        self.logged.notify_all();
    }

    /// The reply for a request: the first keyed queue whose key the request's head holds and
    /// that still has one, else the next of the main queue.
    fn pop(&self, body: &[u8]) -> Option<Reply> {
        {
            let mut keyed = lock(&self.keyed);
            if !keyed.is_empty() {
                let head = serde_json::from_slice(body)
                    .map(|body| crate::head::head_text(&body))
                    .unwrap_or_default();
                let hit = keyed
                    .iter_mut()
                    .find(|(key, queue)| !queue.is_empty() && head.contains(key.as_str()));
                if let Some((_, queue)) = hit {
                    return queue.pop_front();
                }
            }
        }
        lock(&self.queue).pop_front()
    }
}

/// Accepts connections until `shutdown` turns true.
pub(crate) async fn accept_loop(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    let for_connections = shutdown.clone();
    loop {
        tokio::select! {
            _ = shutdown.wait_for(|stop| *stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve(stream, shared.clone(), for_connections.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
        }
    }
}

/// Why playing a reply stopped early.
enum Interrupted {
    ClientGone,
    Shutdown,
}

/// The writing side of one connection, aware of the client leaving and of shutdown.
struct Conn {
    wr: OwnedWriteHalf,
    gone: watch::Receiver<bool>,
    shutdown: watch::Receiver<bool>,
}

impl Conn {
    async fn send(&mut self, bytes: &[u8]) -> Result<(), Interrupted> {
        http::send(&mut self.wr, bytes)
            .await
            .map_err(|_| Interrupted::ClientGone)
    }

    /// Sleeps `duration`, returning early if the client leaves or the mock stops.
    async fn pause(&mut self, duration: Duration) -> Result<(), Interrupted> {
        if duration.is_zero() {
            return Ok(());
        }
        let mut gone = self.gone.clone();
        let mut shutdown = self.shutdown.clone();
        tokio::select! {
            _ = tokio::time::sleep(duration) => Ok(()),
            _ = gone.wait_for(|g| *g) => Err(Interrupted::ClientGone),
            _ = shutdown.wait_for(|s| *s) => Err(Interrupted::Shutdown),
        }
    }

    /// Says nothing until the client leaves or the mock stops (bounded by [`MAX_IDLE`]).
    async fn idle(&mut self) -> Result<(), Interrupted> {
        self.pause(MAX_IDLE).await
    }

    async fn respond(
        &mut self,
        code: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<(), Interrupted> {
        let defaults = [
            ("content-type", "application/json".to_owned()),
            ("content-length", body.len().to_string()),
            ("connection", "close".to_owned()),
        ];
        let mut bytes = http::head(code, &defaults, headers);
        bytes.extend_from_slice(body);
        self.send(&bytes).await
    }

    async fn start_stream(&mut self, headers: &[(String, String)]) -> Result<(), Interrupted> {
        let defaults = [
            ("content-type", "text/event-stream".to_owned()),
            ("cache-control", "no-cache".to_owned()),
            ("transfer-encoding", "chunked".to_owned()),
            ("connection", "close".to_owned()),
        ];
        self.send(&http::head(200, &defaults, headers)).await
    }

    /// Writes `events` as chunks, pausing `gap` between them.
    async fn events(&mut self, events: &[SseEvent], gap: Duration) -> Result<(), Interrupted> {
        for (i, event) in events.iter().enumerate() {
            if i > 0 {
                self.pause(gap).await?;
            }
            self.send(&http::chunk(event)).await?;
        }
        Ok(())
    }

    async fn end_stream(&mut self) -> Result<(), Interrupted> {
        if *self.gone.borrow() {
            return Err(Interrupted::ClientGone);
        }
        self.send(b"0\r\n\r\n").await
    }
}

async fn serve(stream: TcpStream, shared: Arc<Shared>, shutdown: watch::Receiver<bool>) {
    let (mut rd, wr) = stream.into_split();
    let request = match tokio::time::timeout(READ_TIMEOUT, http::read_request(&mut rd)).await {
        Ok(Ok(request)) => request,
        _ => return,
    };
    let api = Api::from_path(&request.path);
    let index = shared.log(&request, api);
    let reply = shared.pop(&request.body);
    let (gone, watcher) = http::watch_client(rd);
    let mut conn = Conn { wr, gone, shutdown };
    let outcome = match reply {
        Some(reply) => play(&mut conn, reply, api).await,
        None => {
            let body =
                json!({"error": {"type": "mock_error", "message": "mock: no scripted reply"}});
            conn.respond(500, &[], body.to_string().as_bytes()).await
        }
    };
    if matches!(outcome, Err(Interrupted::ClientGone)) {
        shared.mark_gone(index);
    }
    shared.mark_answered(index);
    let _ = tokio::io::AsyncWriteExt::shutdown(&mut conn.wr).await;
    // Give the client a moment to read the close before the read half goes away too.
    tokio::time::sleep(Duration::from_millis(20)).await;
    watcher.abort();
}

async fn play(conn: &mut Conn, reply: Reply, api: Option<Api>) -> Result<(), Interrupted> {
    conn.pause(reply.delay).await?;
    let headers = &reply.headers;
    let rendered = |turn: &crate::Turn| api.map(|api| render::render(api, turn));
    match &reply.kind {
        ReplyKind::Status { code, body } => conn.respond(*code, headers, body).await,
        ReplyKind::Turn(turn) => match rendered(turn) {
            Some(events) => {
                conn.start_stream(headers).await?;
                conn.events(&events, turn.delay).await?;
                conn.end_stream().await
            }
            None => unknown_route(conn).await,
        },
        ReplyKind::Events(events) => {
            conn.start_stream(headers).await?;
            conn.events(events, Duration::ZERO).await?;
            conn.end_stream().await
        }
        ReplyKind::Bytes { bytes, piece } => {
            let size = if *piece == 0 {
                bytes.len().max(1)
            } else {
                *piece
            };
            let pieces: Vec<SseEvent> = bytes.chunks(size).map(<[u8]>::to_vec).collect();
            conn.start_stream(headers).await?;
            conn.events(&pieces, Duration::ZERO).await?;
            conn.end_stream().await
        }
        ReplyKind::DropMidStream { turn, after } | ReplyKind::HangAfterHeaders { turn, after } => {
            let Some(events) = rendered(turn) else {
                return unknown_route(conn).await;
            };
            conn.start_stream(headers).await?;
            let sent = &events[..(*after).min(events.len())];
            conn.events(sent, turn.delay).await?;
            if matches!(reply.kind, ReplyKind::HangAfterHeaders { .. }) {
                conn.idle().await?;
            }
            // Dropping: return without the chunked terminator; the caller closes the socket.
            Ok(())
        }
        ReplyKind::StallBeforeHeaders => conn.idle().await,
    }
}

async fn unknown_route(conn: &mut Conn) -> Result<(), Interrupted> {
    let body = json!({"error": {
        "type": "mock_error",
        "message": "mock: a scripted turn needs a known protocol route"
    }});
    conn.respond(404, &[], body.to_string().as_bytes()).await
}
