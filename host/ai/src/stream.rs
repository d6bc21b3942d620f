//! The event stream of one model response, and the trait of whatever produces one.
//!
//! A stream always ends with exactly one `done` or `error` event, never panics and never
//! hangs: when the producer goes away without a terminal event, the stream ends with an error
//! of its own. Adapters, extension providers and tests all produce streams through
//! [`AssistantMessageEventStream::channel`].

use crate::event::AssistantMessageEvent;
use crate::options::StreamOptions;
use crate::types::{AssistantMessage, Context, Model, StopReason};
use futures::Stream;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use tokio::sync::mpsc;

/// The events of one response. Ends after the terminal `done`/`error` event.
pub struct AssistantMessageEventStream {
    rx: mpsc::UnboundedReceiver<AssistantMessageEvent>,
    /// Model identity, to build an error message if the producer vanished.
    fallback: AssistantMessage,
    finished: bool,
}

/// The sending half, for code that produces a stream (adapters, extension providers, tests).
#[derive(Clone)]
pub struct EventSender {
    tx: mpsc::UnboundedSender<AssistantMessageEvent>,
}

impl EventSender {
    /// Sends an event; a dropped receiver is not an error (nobody is listening any more).
    pub fn send(&self, event: AssistantMessageEvent) {
        let _ = self.tx.send(event);
    }

    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

impl AssistantMessageEventStream {
    /// A connected sender/stream pair for `model`.
    pub fn channel(model: &Model) -> (EventSender, Self) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            EventSender { tx },
            AssistantMessageEventStream {
                rx,
                fallback: AssistantMessage::empty_for(model),
                finished: false,
            },
        )
    }

    /// A stream holding only an error event (failure before the request was sent).
    pub fn failed(model: &Model, message: impl Into<String>) -> Self {
        let (tx, stream) = Self::channel(model);
        let mut error = AssistantMessage::empty_for(model);
        error.stop_reason = StopReason::Error;
        error.error_message = Some(message.into());
        tx.send(AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error,
        });
        stream
    }

    /// The next event, or `None` after the terminal one.
    pub async fn next_event(&mut self) -> Option<AssistantMessageEvent> {
        if self.finished {
            return None;
        }
        match self.rx.recv().await {
            Some(event) => {
                self.finished = event.is_terminal();
                Some(event)
            }
            None => {
                self.finished = true;
                Some(self.vanished())
            }
        }
    }

    /// Drains the stream and returns the final message (success or error).
    pub async fn result(mut self) -> AssistantMessage {
        while let Some(event) = self.next_event().await {
            match event {
                AssistantMessageEvent::Done { message, .. } => return message,
                AssistantMessageEvent::Error { error, .. } => return error,
                _ => {}
            }
        }
        match self.vanished() {
            AssistantMessageEvent::Error { error, .. } => error,
            _ => AssistantMessage::default(),
        }
    }

    fn vanished(&self) -> AssistantMessageEvent {
        let mut error = self.fallback.clone();
        error.stop_reason = StopReason::Error;
        error.error_message = Some("the response stream ended without a result".to_owned());
        AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error,
        }
    }
}

impl Stream for AssistantMessageEventStream {
    type Item = AssistantMessageEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        if self.finished {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(event)) => {
                self.finished = event.is_terminal();
                Poll::Ready(Some(event))
            }
            Poll::Ready(None) => {
                self.finished = true;
                Poll::Ready(Some(self.vanished()))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Something that can answer model requests for one `api` value.
pub trait ApiProvider: Send + Sync {
    /// Starts a request. Must be called inside a tokio runtime.
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream;
}
