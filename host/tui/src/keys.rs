//! The user's keybindings: defaults, `~/.pi/agent/keybindings.json` overrides, and lookup.
//!
//! Everything is driven by one table (`TABLE`, generated together with [`Binding`]) so an id,
//! its default keys and its pre-namespace id can never drift apart. Key strings and key events
//! are both brought into one canonical [`Chord`] form, so a lookup is a single hash probe and
//! "what the user wrote" and "what the terminal sent" meet in the middle.
//!
//! A bad keybindings file must never stop the agent from starting: every problem becomes a
//! warning and the affected entry keeps its default.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

// crossterm comes through ratatui, so the two always agree on the key types.
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One row of the table: binding, namespaced id, old un-namespaced id ("" if none), default keys.
type Row = (Binding, &'static str, &'static str, &'static [&'static str]);

/// Declares [`Binding`] and `TABLE` from one list, so adding a binding is a one-line change.
macro_rules! bindings {
    ($($(#[$group:meta])* $variant:ident => $id:literal, $legacy:literal, [$($key:literal),*];)*) => {
        /// Everything a key can be bound to. Each variant's doc is its id in keybindings.json.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Binding {
            $($(#[$group])* #[doc = $id] $variant,)*
        }

        /// The single source of truth: ids, migration of old ids, and defaults all come from here.
        const TABLE: &[Row] = &[$((Binding::$variant, $id, $legacy, &[$($key),*]),)*];
    };
}

bindings! {
    Interrupt => "app.interrupt", "interrupt", ["escape"];
    Clear => "app.clear", "clear", ["ctrl+c"];
    Exit => "app.exit", "exit", ["ctrl+d"];
    Suspend => "app.suspend", "suspend", ["ctrl+z"];
    ExternalEditor => "app.editor.external", "externalEditor", ["ctrl+g"];
    SelectModel => "app.model.select", "selectModel", ["ctrl+l"];
    CycleModelForward => "app.model.cycleForward", "cycleModelForward", ["ctrl+p"];
    CycleModelBackward => "app.model.cycleBackward", "cycleModelBackward", ["shift+ctrl+p"];
    CycleThinking => "app.thinking.cycle", "cycleThinkingLevel", ["shift+tab"];
    ToggleThinking => "app.thinking.toggle", "toggleThinking", ["ctrl+t"];
    ExpandTools => "app.tools.expand", "expandTools", ["ctrl+o"];
    CopyMessage => "app.message.copy", "", ["ctrl+x"];
    FollowUp => "app.message.followUp", "followUp", ["alt+enter"];
    Dequeue => "app.message.dequeue", "dequeue", ["alt+up"];
    /// Our addition (pi has no permission modes): alt+m, free in pi's defaults.
    CyclePermissionMode => "app.permissionMode.cycle", "", ["alt+m"];
    CursorUp => "tui.editor.cursorUp", "cursorUp", ["up"];
    CursorDown => "tui.editor.cursorDown", "cursorDown", ["down"];
    CursorLeft => "tui.editor.cursorLeft", "cursorLeft", ["left", "ctrl+b"];
    CursorRight => "tui.editor.cursorRight", "cursorRight", ["right", "ctrl+f"];
    CursorWordLeft => "tui.editor.cursorWordLeft", "cursorWordLeft",
        ["alt+left", "ctrl+left", "alt+b"];
    CursorWordRight => "tui.editor.cursorWordRight", "cursorWordRight",
        ["alt+right", "ctrl+right", "alt+f"];
    CursorLineStart => "tui.editor.cursorLineStart", "cursorLineStart",
        ["home", "ctrl+home", "ctrl+a"];
    CursorLineEnd => "tui.editor.cursorLineEnd", "cursorLineEnd", ["end", "ctrl+end", "ctrl+e"];
    JumpForward => "tui.editor.jumpForward", "jumpForward", ["ctrl+]"];
    JumpBackward => "tui.editor.jumpBackward", "jumpBackward", ["ctrl+alt+]"];
    DeleteCharBackward => "tui.editor.deleteCharBackward", "deleteCharBackward", ["backspace"];
    DeleteCharForward => "tui.editor.deleteCharForward", "deleteCharForward",
        ["delete", "ctrl+d"];
    DeleteWordBackward => "tui.editor.deleteWordBackward", "deleteWordBackward",
        ["ctrl+w", "alt+backspace"];
    DeleteWordForward => "tui.editor.deleteWordForward", "deleteWordForward",
        ["alt+d", "alt+delete"];
    DeleteToLineStart => "tui.editor.deleteToLineStart", "deleteToLineStart", ["ctrl+u"];
    DeleteToLineEnd => "tui.editor.deleteToLineEnd", "deleteToLineEnd", ["ctrl+k"];
    Yank => "tui.editor.yank", "yank", ["ctrl+y"];
    YankPop => "tui.editor.yankPop", "yankPop", ["alt+y"];
    Undo => "tui.editor.undo", "undo", ["ctrl+-"];
    NewLine => "tui.input.newLine", "newLine", ["shift+enter", "ctrl+j"];
    Submit => "tui.input.submit", "submit", ["enter"];
    Tab => "tui.input.tab", "tab", ["tab"];
    PageUp => "tui.altScreen.pageUp", "", ["pageup"];
    PageDown => "tui.altScreen.pageDown", "", ["pagedown"];
    HalfPageUp => "tui.altScreen.halfPageUp", "", ["shift+pageup"];
    HalfPageDown => "tui.altScreen.halfPageDown", "", ["shift+pagedown"];
    PreviousPrompt => "tui.altScreen.previousPrompt", "", ["ctrl+shift+up"];
    NextPrompt => "tui.altScreen.nextPrompt", "", ["ctrl+shift+down"];
    Top => "tui.altScreen.top", "", ["ctrl+home"];
    Bottom => "tui.altScreen.bottom", "", ["ctrl+end"];
    /// Our addition (not in pi): alt+s, because ctrl+f is already cursorRight.
    Search => "tui.altScreen.search", "", ["alt+s"];
    SelectUp => "tui.select.up", "", ["up"];
    SelectDown => "tui.select.down", "", ["down"];
    SelectPageUp => "tui.select.pageUp", "", ["pageup"];
    SelectPageDown => "tui.select.pageDown", "", ["pagedown"];
    SelectConfirm => "tui.select.confirm", "", ["enter"];
    SelectCancel => "tui.select.cancel", "", ["escape"];
    ModelsSave => "app.models.save", "", ["ctrl+s"];
    ModelsEnableAll => "app.models.enableAll", "", ["ctrl+a"];
    ModelsClearAll => "app.models.clearAll", "", ["ctrl+x"];
    ModelsToggleProvider => "app.models.toggleProvider", "", ["ctrl+p"];
    ModelsReorderUp => "app.models.reorderUp", "", ["alt+up"];
    ModelsReorderDown => "app.models.reorderDown", "", ["alt+down"];
    SessionTogglePath => "app.session.togglePath", "", ["ctrl+p"];
    SessionToggleSort => "app.session.toggleSort", "", ["ctrl+s"];
    SessionToggleNamedFilter => "app.session.toggleNamedFilter", "", ["ctrl+n"];
    SessionRename => "app.session.rename", "", ["ctrl+r"];
    SessionDelete => "app.session.delete", "", ["ctrl+d"];
    // Terminals without the kitty keyboard protocol send Ctrl+Backspace as ^H (Ctrl+H).
    SessionDeleteNoninvasive => "app.session.deleteNoninvasive", "", ["ctrl+backspace", "ctrl+h"];
    TreeFoldOrUp => "app.tree.foldOrUp", "", ["ctrl+left", "alt+left"];
    TreeUnfoldOrDown => "app.tree.unfoldOrDown", "", ["ctrl+right", "alt+right"];
    TreeEditLabel => "app.tree.editLabel", "", ["shift+l"];
    TreeToggleLabelTimestamp => "app.tree.toggleLabelTimestamp", "", ["shift+t"];
    TreeFilterDefault => "app.tree.filter.default", "", ["ctrl+d"];
    TreeFilterNoTools => "app.tree.filter.noTools", "", ["ctrl+t"];
    TreeFilterUserOnly => "app.tree.filter.userOnly", "", ["ctrl+u"];
    TreeFilterLabeledOnly => "app.tree.filter.labeledOnly", "", ["ctrl+l"];
    TreeFilterAll => "app.tree.filter.all", "", ["ctrl+a"];
    TreeFilterCycleForward => "app.tree.filter.cycleForward", "", ["ctrl+o"];
    TreeFilterCycleBackward => "app.tree.filter.cycleBackward", "", ["shift+ctrl+o"];
}

/// `Binding::ALL`, built from `TABLE` at compile time so the two cannot disagree.
const ALL_BINDINGS: [Binding; TABLE.len()] = {
    let mut out = [Binding::Interrupt; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        out[i] = TABLE[i].0;
        i += 1;
    }
    out
};

impl Binding {
    /// Every binding, in table order (which is also the order `Keymap::lookup` reports them).
    pub const ALL: &'static [Binding] = &ALL_BINDINGS;

    /// The namespaced id, e.g. "app.interrupt".
    pub fn id(self) -> &'static str {
        TABLE
            .iter()
            .find(|row| row.0 == self)
            .map_or("", |row| row.1)
    }

    /// The binding for a file key: a current id, or an old un-namespaced one (`true` = old).
    fn resolve(id: &str) -> Option<(Binding, bool)> {
        let current = TABLE
            .iter()
            .find(|row| row.1 == id)
            .map(|row| (row.0, false));
        current.or_else(|| {
            let old = TABLE.iter().find(|row| !row.2.is_empty() && row.2 == id);
            old.map(|row| (row.0, true))
        })
    }
}

/// A key string that could not be understood.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeyError {
    #[error("empty key string")]
    Empty,
    #[error("no key after the modifiers in {text:?}")]
    MissingKey { text: String },
    #[error("unknown modifier {modifier:?} in {text:?} (expected ctrl, shift, alt or super)")]
    UnknownModifier { modifier: String, text: String },
    #[error("unknown key {key:?} in {text:?}")]
    UnknownKey { key: String, text: String },
}

/// One key with its modifiers, as the terminal reports it, in canonical form.
///
/// Canonical form is what makes parsing and events comparable (see [`Chord::from_event`]):
/// letters are lowercase (an uppercase letter becomes lowercase + SHIFT), other printable
/// characters carry no SHIFT, BackTab is shift+tab, and legacy control codes are mapped back to
/// the key the user pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chord {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

/// Modifier names in display order; `hyper`/`meta` only ever come from events.
const MODIFIER_NAMES: [(KeyModifiers, &str); 6] = [
    (KeyModifiers::CONTROL, "ctrl"),
    (KeyModifiers::SHIFT, "shift"),
    (KeyModifiers::ALT, "alt"),
    (KeyModifiers::SUPER, "super"),
    (KeyModifiers::HYPER, "hyper"),
    (KeyModifiers::META, "meta"),
];

/// Named keys (lowercase) for parsing; the first name of each key is the one displayed.
#[rustfmt::skip]
const KEY_NAMES: &[(&str, KeyCode)] = &[
    ("escape", KeyCode::Esc), ("esc", KeyCode::Esc), ("enter", KeyCode::Enter),
    ("return", KeyCode::Enter), ("tab", KeyCode::Tab), ("backtab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace), ("delete", KeyCode::Delete), ("del", KeyCode::Delete),
    ("insert", KeyCode::Insert), ("ins", KeyCode::Insert), ("space", KeyCode::Char(' ')),
    ("up", KeyCode::Up), ("down", KeyCode::Down), ("left", KeyCode::Left),
    ("right", KeyCode::Right), ("home", KeyCode::Home), ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp), ("pgup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown), ("pgdn", KeyCode::PageDown),
];

impl Chord {
    /// Builds a chord in canonical form. All equivalences live here, so `parse` and
    /// `from_event` cannot normalise differently:
    ///
    /// - uppercase letter ≡ lowercase letter + SHIFT (terminals send `A` with or without SHIFT);
    /// - a non-letter printable char drops SHIFT: the char already is the shifted symbol
    ///   (`!` arrives for shift+1), so `shift+!` ≡ `!`; space keeps SHIFT (kitty reports it);
    /// - BackTab ≡ shift+tab;
    /// - with CONTROL: `_` ≡ `-` (ctrl+shift+- / ctrl+_ on US layouts), and the legacy codes
    ///   0x1C..0x1F, which crossterm reports as ctrl+4..ctrl+7, become the keys that produce
    ///   them: ctrl+4 ≡ ctrl+\, ctrl+5 ≡ ctrl+], ctrl+6 ≡ ctrl+^, ctrl+7 ≡ ctrl+-.
    fn canonical(code: KeyCode, mut modifiers: KeyModifiers) -> Chord {
        let code = match code {
            KeyCode::BackTab => {
                modifiers.insert(KeyModifiers::SHIFT);
                KeyCode::Tab
            }
            KeyCode::Char(mut c) => {
                if c.is_uppercase() {
                    let mut lower = c.to_lowercase();
                    if let (Some(l), None) = (lower.next(), lower.next()) {
                        c = l;
                        modifiers.insert(KeyModifiers::SHIFT);
                    }
                } else if !c.is_alphabetic() && !c.is_whitespace() {
                    modifiers.remove(KeyModifiers::SHIFT);
                }
                if modifiers.contains(KeyModifiers::CONTROL) {
                    c = match c {
                        '_' | '7' => '-',
                        '4' => '\\',
                        '5' => ']',
                        '6' => '^',
                        other => other,
                    };
                }
                KeyCode::Char(c)
            }
            other => other,
        };
        Chord { code, modifiers }
    }

    /// Parses `ctrl|shift|alt|super + key`, e.g. "ctrl+shift+up", "ctrl+]", "ctrl++", "f5".
    ///
    /// Modifiers and named keys are case-insensitive; a single character is taken literally,
    /// so "A" means shift+a (as the terminal would report it).
    pub fn parse(text: &str) -> Result<Chord, KeyError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(KeyError::Empty);
        }
        // `+` is both the separator and a key: "+" and "ctrl++" end in the key `+`.
        let (mods, key) = if trimmed == "+" {
            (None, "+")
        } else if let Some(head) = trimmed.strip_suffix("++") {
            (Some(head).filter(|h| !h.is_empty()), "+")
        } else {
            match trimmed.rsplit_once('+') {
                Some((head, key)) => (Some(head), key.trim()),
                None => (None, trimmed),
            }
        };
        if key.is_empty() {
            return Err(KeyError::MissingKey { text: text.into() });
        }
        let mut modifiers = KeyModifiers::NONE;
        for name in mods.into_iter().flat_map(|m| m.split('+')) {
            modifiers |= match name.trim().to_ascii_lowercase().as_str() {
                "ctrl" | "control" => KeyModifiers::CONTROL,
                "shift" => KeyModifiers::SHIFT,
                "alt" | "option" | "opt" => KeyModifiers::ALT,
                "super" | "cmd" | "command" | "win" => KeyModifiers::SUPER,
                _ => {
                    return Err(KeyError::UnknownModifier {
                        modifier: name.trim().into(),
                        text: text.into(),
                    });
                }
            };
        }
        let code = key_code(key).ok_or_else(|| KeyError::UnknownKey {
            key: key.into(),
            text: text.into(),
        })?;
        Ok(Chord::canonical(code, modifiers))
    }

    /// The chord a key event stands for, normalised as described on `canonical` (the
    /// equivalence list). The event's kind (press/repeat/release) is ignored: callers filter
    /// releases before looking keys up.
    pub fn from_event(event: &KeyEvent) -> Chord {
        Chord::canonical(event.code, event.modifiers)
    }

    /// "ctrl+shift+up" style, for help text; parses back to the same chord.
    pub fn display(&self) -> String {
        let mut out = String::new();
        for (flag, name) in MODIFIER_NAMES {
            if self.modifiers.contains(flag) {
                out.push_str(name);
                out.push('+');
            }
        }
        let named = KEY_NAMES.iter().find(|(_, code)| *code == self.code);
        match (named, self.code) {
            (Some((name, _)), _) => out.push_str(name),
            (None, KeyCode::F(n)) => out.push_str(&format!("f{n}")),
            (None, KeyCode::Char(c)) => out.push(c),
            (None, other) => out.push_str(&format!("{other:?}").to_lowercase()),
        }
        out
    }
}

/// The key part of a key string: one literal character, a named key, or f1..f24.
fn key_code(key: &str) -> Option<KeyCode> {
    let mut chars = key.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(KeyCode::Char(c));
    }
    let lower = key.to_ascii_lowercase();
    if let Some((_, code)) = KEY_NAMES.iter().find(|(name, _)| *name == lower) {
        return Some(*code);
    }
    let n: u8 = lower.strip_prefix('f')?.parse().ok()?;
    (1..=24).contains(&n).then_some(KeyCode::F(n))
}

/// The active bindings: the defaults with the user's file applied.
///
/// A chord may serve several bindings (ctrl+d is Exit on an empty editor and DeleteCharForward
/// otherwise); the caller decides by context, so all are kept, in table order.
#[derive(Debug, Clone)]
pub struct Keymap {
    by_chord: HashMap<Chord, Vec<Binding>>,
    by_binding: HashMap<Binding, Vec<Chord>>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap::defaults()
    }
}

impl Keymap {
    /// The built-in bindings from the table.
    pub fn defaults() -> Keymap {
        Keymap::build(default_chords())
    }

    /// Defaults overlaid with the JSON text of keybindings.json.
    ///
    /// An entry replaces its binding's default chords entirely (pi semantics); `[]` or `""`
    /// unbinds. Any bad entry (unknown id, bad key string, wrong value type) is skipped with a
    /// warning and keeps its default, so a typo never unbinds a key. Old un-namespaced ids are
    /// accepted, unless the file also sets the new id, which then wins. Malformed JSON yields
    /// the defaults plus one warning with the parse error's line and column. An empty file is
    /// treated as `{}`.
    pub fn from_json(text: &str) -> (Keymap, Vec<String>) {
        let mut warnings = Vec::new();
        let mut chords = default_chords();
        if text.trim().is_empty() {
            return (Keymap::build(chords), warnings);
        }
        let map = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                warnings.push(format!(
                    "keybindings must be a JSON object, found {}; using defaults",
                    json_kind(&other)
                ));
                return (Keymap::build(chords), warnings);
            }
            Err(err) => {
                warnings.push(format!("invalid keybindings JSON: {err}; using defaults"));
                return (Keymap::build(chords), warnings);
            }
        };
        for (id, value) in &map {
            let Some((binding, old)) = Binding::resolve(id) else {
                warnings.push(format!("unknown keybinding id {id:?}; ignored"));
                continue;
            };
            if old && map.contains_key(binding.id()) {
                warnings.push(format!(
                    "old keybinding id {id:?} ignored: {:?} is also set",
                    binding.id()
                ));
                continue;
            }
            match parse_value(value) {
                Ok(list) => {
                    chords.insert(binding, list);
                }
                Err(msg) => warnings.push(format!("{id:?}: {msg}; keeping the default")),
            }
        }
        (Keymap::build(chords), warnings)
    }

    /// Reads the file at `path`. A missing file is the normal case (no overrides), so it gives
    /// the defaults silently; any other read error gives the defaults plus a warning.
    pub fn load(path: &Path) -> (Keymap, Vec<String>) {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (map, warnings) = Keymap::from_json(&text);
                let prefixed = warnings
                    .into_iter()
                    .map(|w| format!("{}: {w}", path.display()))
                    .collect();
                (map, prefixed)
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => (Keymap::defaults(), vec![]),
            Err(err) => {
                let warning = format!("{}: cannot read ({err}); using defaults", path.display());
                (Keymap::defaults(), vec![warning])
            }
        }
    }

    /// The bindings of the key, in table order (empty when unbound).
    pub fn lookup(&self, event: &KeyEvent) -> &[Binding] {
        let chord = Chord::from_event(event);
        self.by_chord.get(&chord).map_or(&[], Vec::as_slice)
    }

    /// Whether `event` is bound to `binding`.
    pub fn is(&self, event: &KeyEvent, binding: Binding) -> bool {
        self.lookup(event).contains(&binding)
    }

    /// The chords of a binding, in the order written (for hints like "Esc to interrupt").
    pub fn chords(&self, binding: Binding) -> &[Chord] {
        self.by_binding.get(&binding).map_or(&[], Vec::as_slice)
    }

    /// `/hotkeys`: every bound id with its keys, one per line.
    pub fn describe(&self) -> String {
        let lines: Vec<String> = Binding::ALL
            .iter()
            .filter_map(|&binding| {
                let chords = self.chords(binding);
                (!chords.is_empty()).then(|| {
                    let keys: Vec<String> = chords.iter().map(Chord::display).collect();
                    format!("{:<32} {}", binding.id(), keys.join(", "))
                })
            })
            .collect();
        lines.join("\n")
    }

    /// Indexes chord → bindings, walking bindings in table order so `lookup` order is stable.
    fn build(mut by_binding: HashMap<Binding, Vec<Chord>>) -> Keymap {
        let mut by_chord: HashMap<Chord, Vec<Binding>> = HashMap::new();
        for &binding in Binding::ALL {
            let Some(chords) = by_binding.get_mut(&binding) else {
                continue;
            };
            let mut seen = Vec::with_capacity(chords.len());
            chords.retain(|c| {
                let fresh = !seen.contains(c);
                seen.push(*c);
                fresh
            });
            for chord in chords.iter() {
                let entry = by_chord.entry(*chord).or_default();
                if !entry.contains(&binding) {
                    entry.push(binding);
                }
            }
        }
        Keymap {
            by_chord,
            by_binding,
        }
    }
}

/// Default chords per binding. Defaults are tested to parse; a bad one would only be dropped.
fn default_chords() -> HashMap<Binding, Vec<Chord>> {
    TABLE
        .iter()
        .map(|(binding, _, _, keys)| {
            let chords = keys.iter().filter_map(|k| Chord::parse(k).ok()).collect();
            (*binding, chords)
        })
        .collect()
}

/// One keybindings.json value: a key string or an array of them; blank strings are no keys.
fn parse_value(value: &Value) -> Result<Vec<Chord>, String> {
    let texts: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let kind = json_kind(item);
                item.as_str()
                    .ok_or_else(|| format!("expected an array of key strings, found {kind} in it"))
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err(format!(
                "expected a key string or an array of key strings, found {}",
                json_kind(other)
            ));
        }
    };
    texts
        .into_iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| Chord::parse(t).map_err(|e| format!("bad key: {e}")))
        .collect()
}

/// A JSON value's type, for warnings.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn chord(text: &str) -> Chord {
        Chord::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn event(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    fn ev(text: &str) -> KeyEvent {
        let c = chord(text);
        event(c.code, c.modifiers)
    }

    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
    const NONE: KeyModifiers = KeyModifiers::NONE;

    #[test]
    fn every_default_parses_and_displays_back() {
        for (binding, _, _, keys) in TABLE {
            assert!(!keys.is_empty(), "{binding:?} has no default");
            for key in *keys {
                let c = chord(key);
                assert_eq!(Chord::parse(&c.display()), Ok(c), "{key}");
            }
        }
        let map = Keymap::defaults();
        for &b in Binding::ALL {
            let row = TABLE.iter().find(|r| r.0 == b).unwrap();
            assert_eq!(map.chords(b).len(), row.3.len(), "{b:?}");
        }
    }

    #[test]
    fn ids_round_trip_and_are_unique() {
        assert_eq!(Binding::ALL.len(), TABLE.len());
        for (i, &b) in Binding::ALL.iter().enumerate() {
            assert_eq!(Binding::resolve(b.id()), Some((b, false)));
            assert!(Binding::ALL[i + 1..].iter().all(|o| o.id() != b.id()));
            let legacy = TABLE[i].2;
            if !legacy.is_empty() {
                assert_eq!(Binding::resolve(legacy), Some((b, true)), "{legacy}");
                assert!(TABLE.iter().filter(|r| r.2 == legacy).count() == 1);
            }
        }
        assert_eq!(Binding::Interrupt.id(), "app.interrupt");
        assert_eq!(Binding::Search.id(), "tui.altScreen.search");
    }

    #[test]
    fn parses_many_formats() {
        let c = |code, modifiers| Chord { code, modifiers };
        #[rustfmt::skip]
        let cases = [
            ("ctrl+c", c(KeyCode::Char('c'), CTRL)), ("CTRL+c", c(KeyCode::Char('c'), CTRL)),
            (" Control + c ", c(KeyCode::Char('c'), CTRL)),
            ("Ctrl+Shift+Up", c(KeyCode::Up, CTRL | SHIFT)),
            ("shift+ctrl+up", c(KeyCode::Up, CTRL | SHIFT)),
            ("shift+enter", c(KeyCode::Enter, SHIFT)), ("Return", c(KeyCode::Enter, NONE)),
            ("alt+up", c(KeyCode::Up, KeyModifiers::ALT)),
            ("ctrl+]", c(KeyCode::Char(']'), CTRL)),
            ("ctrl+alt+]", c(KeyCode::Char(']'), CTRL | KeyModifiers::ALT)),
            ("ctrl+-", c(KeyCode::Char('-'), CTRL)), ("ctrl++", c(KeyCode::Char('+'), CTRL)),
            ("+", c(KeyCode::Char('+'), NONE)), ("shift+tab", c(KeyCode::Tab, SHIFT)),
            ("backtab", c(KeyCode::Tab, SHIFT)), ("f5", c(KeyCode::F(5), NONE)),
            ("F12", c(KeyCode::F(12), NONE)), ("space", c(KeyCode::Char(' '), NONE)),
            ("ESC", c(KeyCode::Esc, NONE)), ("escape", c(KeyCode::Esc, NONE)),
            ("PageUp", c(KeyCode::PageUp, NONE)),
            ("super+k", c(KeyCode::Char('k'), KeyModifiers::SUPER)),
            ("A", c(KeyCode::Char('a'), SHIFT)), ("shift+a", c(KeyCode::Char('a'), SHIFT)),
            ("shift+!", c(KeyCode::Char('!'), NONE)),
        ];
        for (text, want) in cases {
            assert_eq!(Chord::parse(text), Ok(want), "{text}");
        }
        assert_eq!(chord("ctrl+shift+up").display(), "ctrl+shift+up");
        assert_eq!(chord("esc").display(), "escape");
        assert_eq!(chord("ctrl++").display(), "ctrl++");
    }

    #[test]
    fn parse_errors() {
        assert_eq!(Chord::parse(""), Err(KeyError::Empty));
        assert_eq!(Chord::parse("  "), Err(KeyError::Empty));
        assert!(matches!(
            Chord::parse("ctrl+"),
            Err(KeyError::MissingKey { .. })
        ));
        assert!(matches!(
            Chord::parse("hyper+x"),
            Err(KeyError::UnknownModifier { modifier, .. }) if modifier == "hyper"
        ));
        assert!(matches!(
            Chord::parse("+x"),
            Err(KeyError::UnknownModifier { .. })
        ));
        for bad in ["nosuchkey", "ctrl+nosuchkey", "f0", "f25", "fx"] {
            assert!(
                matches!(Chord::parse(bad), Err(KeyError::UnknownKey { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn from_event_normalises() {
        let alt = KeyModifiers::ALT;
        #[rustfmt::skip]
        let cases = [
            (KeyCode::Char('A'), NONE, "shift+a"), (KeyCode::Char('A'), SHIFT, "shift+a"),
            (KeyCode::Char('a'), SHIFT, "shift+a"), (KeyCode::Char('P'), CTRL, "ctrl+shift+p"),
            (KeyCode::BackTab, NONE, "shift+tab"), (KeyCode::BackTab, SHIFT, "shift+tab"),
            (KeyCode::Char('!'), SHIFT, "!"), (KeyCode::Char(' '), SHIFT, "shift+space"),
            (KeyCode::Char('_'), CTRL, "ctrl+-"), (KeyCode::Char('_'), CTRL | SHIFT, "ctrl+-"),
            (KeyCode::Char('7'), CTRL, "ctrl+-"), (KeyCode::Char('5'), CTRL | alt, "ctrl+alt+]"),
            (KeyCode::Char('4'), CTRL, "ctrl+\\"),
        ];
        for (code, modifiers, want) in cases {
            let got = Chord::from_event(&event(code, modifiers));
            assert_eq!(got, chord(want), "{code:?} {modifiers:?}");
        }

        let map = Keymap::defaults();
        assert_eq!(
            map.lookup(&event(KeyCode::BackTab, NONE)),
            [Binding::CycleThinking]
        );
        assert!(map.is(&event(KeyCode::Char('7'), CTRL), Binding::Undo));
        assert!(map.is(
            &event(KeyCode::Char('P'), CTRL | SHIFT),
            Binding::CycleModelBackward
        ));
    }

    #[test]
    fn shared_chords_keep_all_bindings_in_order() {
        let map = Keymap::defaults();
        // The editor's meanings first, then the selectors' (which only a selector asks for).
        assert_eq!(
            map.lookup(&ev("ctrl+d")),
            [
                Binding::Exit,
                Binding::DeleteCharForward,
                Binding::SessionDelete,
                Binding::TreeFilterDefault
            ]
        );
        let top = [Binding::CursorLineStart, Binding::Top];
        assert_eq!(map.lookup(&ev("ctrl+home")), top);
        assert!(map.lookup(&ev("ctrl+q")).is_empty());
        assert!(map.lookup(&ev("f7")).is_empty());
        assert_eq!(map.chords(Binding::Interrupt), [chord("escape")]);
    }

    #[test]
    fn user_file_overrides_and_unbinds() {
        let json = r#"{"app.clear": "ctrl+q", "app.suspend": [], "app.exit": "",
            "tui.editor.cursorLeft": ["ctrl+h", "left", "LEFT"]}"#;
        let (map, warnings) = Keymap::from_json(json);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(map.lookup(&ev("ctrl+q")), [Binding::Clear]);
        assert!(
            map.lookup(&ev("ctrl+c")).is_empty(),
            "override replaces defaults"
        );
        assert!(map.chords(Binding::Suspend).is_empty());
        assert!(map.lookup(&ev("ctrl+z")).is_empty());
        assert!(map.chords(Binding::Exit).is_empty());
        assert_eq!(
            map.lookup(&ev("ctrl+d")),
            [
                Binding::DeleteCharForward,
                Binding::SessionDelete,
                Binding::TreeFilterDefault
            ]
        );
        assert_eq!(
            map.chords(Binding::CursorLeft),
            [chord("ctrl+h"), chord("left")]
        );
        assert!(map.lookup(&ev("ctrl+b")).is_empty());
    }

    #[test]
    fn old_ids_are_migrated_unless_new_id_is_set() {
        let json = r#"{"interrupt": "ctrl+q", "cursorUp": ["ctrl+k"], "newLine": "alt+enter",
            "cycleThinkingLevel": "f2", "clear": "f3", "app.clear": "f4"}"#;
        let (map, warnings) = Keymap::from_json(json);
        assert_eq!(map.chords(Binding::Interrupt), [chord("ctrl+q")]);
        assert_eq!(
            map.lookup(&ev("ctrl+k")),
            [Binding::CursorUp, Binding::DeleteToLineEnd]
        );
        assert_eq!(map.chords(Binding::NewLine), [chord("alt+enter")]);
        assert_eq!(map.chords(Binding::CycleThinking), [chord("f2")]);
        assert_eq!(map.chords(Binding::Clear), [chord("f4")]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("\"clear\""), "{warnings:?}");
    }

    #[test]
    fn bad_entries_warn_and_keep_defaults() {
        let json = r#"{"app.nope": "ctrl+q", "app.clear": "hyper+x", "app.exit": 5,
            "app.suspend": ["ctrl+q", 1], "app.interrupt": ["ctrl+q", "nosuchkey"],
            "app.model.select": "f9"}"#;
        let (map, warnings) = Keymap::from_json(json);
        assert_eq!(warnings.len(), 5, "{warnings:?}");
        let all = warnings.join("\n");
        for needle in ["app.nope", "hyper", "a number", "nosuchkey", "app.suspend"] {
            assert!(all.contains(needle), "{needle} missing in {all}");
        }
        let defaults = Keymap::defaults();
        for b in [
            Binding::Clear,
            Binding::Exit,
            Binding::Suspend,
            Binding::Interrupt,
        ] {
            assert_eq!(map.chords(b), defaults.chords(b), "{b:?}");
        }
        assert_eq!(map.chords(Binding::SelectModel), [chord("f9")]);
    }

    #[test]
    fn malformed_json_warns_with_position_and_yields_defaults() {
        let (map, warnings) = Keymap::from_json("{\n  \"app.clear\": \"ctrl+q\",\n  oops\n}");
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("line 3 column 3"), "{warnings:?}");
        assert_eq!(map.lookup(&ev("ctrl+c")), [Binding::Clear]);
        let (_, warnings) = Keymap::from_json("[1, 2]");
        assert!(warnings[0].contains("JSON object"), "{warnings:?}");
        let (_, warnings) = Keymap::from_json(" \n");
        assert!(warnings.is_empty());
    }

    #[test]
    fn load_handles_missing_unreadable_and_real_files() {
        let dir = std::env::temp_dir().join(format!("keys-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (map, warnings) = Keymap::load(&dir.join("missing.json"));
        assert!(warnings.is_empty());
        assert_eq!(map.lookup(&ev("ctrl+c")), [Binding::Clear]);
        let (_, warnings) = Keymap::load(&dir);
        assert_eq!(warnings.len(), 1, "a directory cannot be read as a file");
        let file = dir.join("keybindings.json");
        std::fs::write(&file, r#"{"app.clear": "ctrl+q", "bogus": "x"}"#).unwrap();
        let (map, warnings) = Keymap::load(&file);
        assert_eq!(map.lookup(&ev("ctrl+q")), [Binding::Clear]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with(&file.display().to_string()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
