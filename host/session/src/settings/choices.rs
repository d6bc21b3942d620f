//! The settings whose value is one of a few choices, with pi's spellings.

use serde::{Deserialize, Serialize};

/// Declares a choice enum with its JSON names, `as_str` and `ALL` (in the order given).
macro_rules! choice {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name pi writes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The choice named `text`.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|choice| choice.as_str() == text)
            }
        }
    };
}

choice!(
    /// `defaultProjectTrust` (global only): what to do with a project not yet decided on.
    DefaultProjectTrust { Ask = "ask", Always = "always", Never = "never" }
);
choice!(
    /// `doubleEscapeAction`: what Esc twice on an empty editor does.
    DoubleEscapeAction { Tree = "tree", Fork = "fork", Rewind = "rewind", None = "none" }
);
choice!(
    /// `tuiMode`.
    TuiMode { Fullscreen = "fullscreen", Regular = "regular" }
);
choice!(
    /// `transport` (this pi speaks SSE only and does not read it).
    Transport { Auto = "auto", Sse = "sse", Websocket = "websocket", WebsocketCached = "websocket-cached" }
);
choice!(
    /// `sessionShareDestination`.
    SessionShareDestination { Auto = "auto", Gist = "gist", Radius = "radius" }
);
choice!(
    /// `treeFilterMode`: the tree navigator's first filter.
    TreeFilterMode {
        Default = "default",
        NoTools = "no-tools",
        UserOnly = "user-only",
        LabeledOnly = "labeled-only",
        All = "all",
    }
);
choice!(
    /// `cacheWarming`.
    CacheWarming { Off = "off", Streaming = "streaming", Idle = "idle" }
);
choice!(
    /// `fullscreenExitOutput`.
    FullscreenExitOutput { Transcript = "transcript", ResumeHint = "resume-hint" }
);
choice!(
    /// `fullscreenScrollbar`.
    FullscreenScrollbar { Auto = "auto", Always = "always", Hidden = "hidden" }
);
choice!(
    /// `markdown.mermaid`.
    Mermaid { Off = "off", Final = "final", Streaming = "streaming" }
);
choice!(
    /// `codemode.mode`.
    CodemodeMode { On = "on", Only = "only" }
);
choice!(
    /// `terminal.images` protocols (`false` is [`TerminalImages::Off`]).
    ImageProtocol { Kitty = "kitty", Iterm2 = "iterm2", Auto = "auto" }
);
choice!(
    /// The word `"auto"` where a key also takes a number or a boolean.
    AutoWord { Auto = "auto" }
);
choice!(
    /// The word `"disabled"` where a key also takes a number.
    DisabledWord { Disabled = "disabled" }
);
choice!(
    /// The word `"header"` of `quietStartup`.
    HeaderWord { Header = "header" }
);

/// `quietStartup`: `true`, `false`, or (pi 1.x) `"header"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QuietStartup {
    Flag(bool),
    Header(HeaderWord),
}

/// `httpIdleTimeoutMs`, `websocketConnectTimeoutMs`: milliseconds (0 disables) or `"disabled"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IdleTimeout {
    Ms(u64),
    Disabled(DisabledWord),
}

/// `terminal.hyperlinks`, `terminal.trueColor`: on, off or `"auto"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Switch {
    Flag(bool),
    Auto(AutoWord),
}

/// `terminal.images`: a protocol, `"auto"`, or `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TerminalImages {
    Off(bool),
    Protocol(ImageProtocol),
}

/// `fullscreenWheelScrollLines`: 1–100 or `"auto"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WheelScrollLines {
    Lines(u64),
    Auto(AutoWord),
}

/// `outputPad`: 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct OutputPad(pub bool);

impl TryFrom<u64> for OutputPad {
    type Error = &'static str;

    fn try_from(n: u64) -> Result<Self, Self::Error> {
        match n {
            0 | 1 => Ok(OutputPad(n == 1)),
            _ => Err("expected 0 or 1"),
        }
    }
}

impl From<OutputPad> for u64 {
    fn from(pad: OutputPad) -> u64 {
        u64::from(pad.0)
    }
}

/// `steeringMode`, `followUpMode` as the agent's [`QueueMode`](pi_agent::QueueMode):
/// `"all"` or `"one-at-a-time"`.
pub(super) mod queue_mode {
    use pi_agent::QueueMode;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn name(mode: QueueMode) -> &'static str {
        match mode {
            QueueMode::All => "all",
            QueueMode::OneAtATime => "one-at-a-time",
        }
    }

    pub fn serialize<S: Serializer>(mode: &Option<QueueMode>, s: S) -> Result<S::Ok, S::Error> {
        match mode {
            Some(mode) => s.serialize_str(name(*mode)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<QueueMode>, D::Error> {
        match Option::<String>::deserialize(d)?.as_deref() {
            None => Ok(None),
            Some("all") => Ok(Some(QueueMode::All)),
            Some("one-at-a-time") => Ok(Some(QueueMode::OneAtATime)),
            Some(other) => Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(other),
                &"\"all\" or \"one-at-a-time\"",
            )),
        }
    }
}
