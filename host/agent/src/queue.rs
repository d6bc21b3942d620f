//! The steering and follow-up queues of an [`crate::Agent`].
//!
//! Both queues sit behind one lock so every change can report what is left in both, taken in
//! the same critical section as the change: that snapshot is what the agent publishes as
//! [`AgentEvent::QueueChanged`](crate::AgentEvent::QueueChanged), so the layers above keep no
//! copy of their own.

use crate::message::AgentMessage;
use pi_ai::lock;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Queued messages the loop polls: steering after each turn, follow-ups when it would stop.
pub trait MessageQueue: Send + Sync {
    fn steering(&self) -> Vec<AgentMessage>;
    fn follow_ups(&self) -> Vec<AgentMessage>;
    /// What is still queued. The loop publishes it ([`crate::AgentEvent::QueueChanged`]) when
    /// it delivers polled messages, just before their `message_start`.
    fn queued(&self) -> QueuedMessages;
}

/// How many queued messages one poll delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueMode {
    /// The oldest message only (pi's default).
    #[default]
    OneAtATime,
    /// Everything queued.
    All,
}

/// What both queues hold, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueuedMessages {
    pub steering: Vec<AgentMessage>,
    pub follow_up: Vec<AgentMessage>,
}

impl QueuedMessages {
    pub fn is_empty(&self) -> bool {
        self.steering.is_empty() && self.follow_up.is_empty()
    }

    pub fn len(&self) -> usize {
        self.steering.len() + self.follow_up.len()
    }
}

#[derive(Debug, Default)]
struct Queue {
    messages: VecDeque<AgentMessage>,
    mode: QueueMode,
}

impl Queue {
    fn drain(&mut self) -> Vec<AgentMessage> {
        match self.mode {
            QueueMode::All => self.messages.drain(..).collect(),
            QueueMode::OneAtATime => self.messages.pop_front().into_iter().collect(),
        }
    }
}

#[derive(Debug, Default)]
struct Both {
    steering: Queue,
    follow_up: Queue,
}

impl Both {
    fn snapshot(&self) -> QueuedMessages {
        QueuedMessages {
            steering: self.steering.messages.iter().cloned().collect(),
            follow_up: self.follow_up.messages.iter().cloned().collect(),
        }
    }
}

/// Steering messages are delivered after the current turn's tool calls finish, before the next
/// model request; follow-ups when the agent would otherwise stop. Every change returns the
/// queues' contents after it.
#[derive(Debug, Default)]
pub struct Queues {
    both: Mutex<Both>,
}

impl Queues {
    pub fn set_modes(&self, steering: QueueMode, follow_up: QueueMode) {
        let mut both = lock(&self.both);
        both.steering.mode = steering;
        both.follow_up.mode = follow_up;
    }

    pub fn steer(&self, message: AgentMessage) -> QueuedMessages {
        let mut both = lock(&self.both);
        both.steering.messages.push_back(message);
        both.snapshot()
    }

    pub fn follow_up(&self, message: AgentMessage) -> QueuedMessages {
        let mut both = lock(&self.both);
        both.follow_up.messages.push_back(message);
        both.snapshot()
    }

    pub fn drain_steering(&self) -> Vec<AgentMessage> {
        lock(&self.both).steering.drain()
    }

    pub fn drain_follow_ups(&self) -> Vec<AgentMessage> {
        lock(&self.both).follow_up.drain()
    }

    /// Empties the chosen queues; returns what they held (the other queue's field stays empty)
    /// and what is left.
    pub fn clear(&self, steering: bool, follow_up: bool) -> (QueuedMessages, QueuedMessages) {
        let mut both = lock(&self.both);
        let mut removed = QueuedMessages::default();
        if steering {
            removed.steering = both.steering.messages.drain(..).collect();
        }
        if follow_up {
            removed.follow_up = both.follow_up.messages.drain(..).collect();
        }
        (removed, both.snapshot())
    }

    /// What both queues hold now.
    pub fn snapshot(&self) -> QueuedMessages {
        lock(&self.both).snapshot()
    }

    pub fn has_messages(&self) -> bool {
        let both = lock(&self.both);
        !both.steering.messages.is_empty() || !both.follow_up.messages.is_empty()
    }
}

impl MessageQueue for Queues {
    fn steering(&self) -> Vec<AgentMessage> {
        self.drain_steering()
    }

    fn follow_ups(&self) -> Vec<AgentMessage> {
        self.drain_follow_ups()
    }

    fn queued(&self) -> QueuedMessages {
        self.snapshot()
    }
}
