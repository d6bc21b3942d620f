//! The steering and follow-up queues of an [`crate::Agent`].

use crate::config::MessageQueue;
use crate::message::AgentMessage;
use pi_ai::lock;
use std::collections::VecDeque;
use std::sync::Mutex;

/// How many queued messages one poll delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueMode {
    /// The oldest message only (pi's default).
    #[default]
    OneAtATime,
    /// Everything queued.
    All,
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

/// Steering messages are delivered after the current turn's tool calls finish, before the next
/// model request; follow-ups when the agent would otherwise stop.
#[derive(Debug, Default)]
pub struct Queues {
    steering: Mutex<Queue>,
    follow_up: Mutex<Queue>,
}

impl Queues {
    pub fn set_modes(&self, steering: QueueMode, follow_up: QueueMode) {
        lock(&self.steering).mode = steering;
        lock(&self.follow_up).mode = follow_up;
    }

    pub fn steer(&self, message: AgentMessage) {
        lock(&self.steering).messages.push_back(message);
    }

    pub fn follow_up(&self, message: AgentMessage) {
        lock(&self.follow_up).messages.push_back(message);
    }

    pub fn drain_steering(&self) -> Vec<AgentMessage> {
        lock(&self.steering).drain()
    }

    pub fn drain_follow_ups(&self) -> Vec<AgentMessage> {
        lock(&self.follow_up).drain()
    }

    pub fn clear_steering(&self) {
        lock(&self.steering).messages.clear();
    }

    pub fn clear_follow_ups(&self) {
        lock(&self.follow_up).messages.clear();
    }

    pub fn has_messages(&self) -> bool {
        !lock(&self.steering).messages.is_empty() || !lock(&self.follow_up).messages.is_empty()
    }
}

impl MessageQueue for Queues {
    fn steering(&self) -> Vec<AgentMessage> {
        self.drain_steering()
    }

    fn follow_ups(&self) -> Vec<AgentMessage> {
        self.drain_follow_ups()
    }
}
