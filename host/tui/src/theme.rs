//! Themes in pi's JSON format: `{"name", "vars": {name: colour}, "colors": {token: colour}}`,
//! where a colour is `#rrggbb`, a 256-palette index, the name of a var, or `""` for the
//! terminal's own colour. The built-in `dark` and `light` themes give every token; a theme file
//! overrides the tokens it names on top of `dark` (or `light` when its name says so). A bad
//! value is skipped with a warning naming the file and the key.

use ratatui::style::Color;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

macro_rules! tokens {
    ($($variant:ident => $name:literal, $dark:expr, $light:expr;)*) => {
        /// A colour role, by pi's token name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(usize)]
        pub enum Token { $($variant,)* }

        /// Every token with its name and its colour in the dark and the light theme.
        const TOKENS: &[(Token, &str, Option<Color>, Option<Color>)] =
            &[$((Token::$variant, $name, $dark, $light),)*];
    };
}

const fn rgb(r: u8, g: u8, b: u8) -> Option<Color> {
    Some(Color::Rgb(r, g, b))
}

tokens! {
    Accent => "accent", rgb(102, 204, 255), rgb(0, 110, 180);
    Border => "border", rgb(95, 95, 110), rgb(170, 170, 180);
    BorderAccent => "borderAccent", rgb(102, 204, 255), rgb(0, 110, 180);
    BorderMuted => "borderMuted", rgb(70, 70, 80), rgb(200, 200, 205);
    Success => "success", rgb(120, 200, 120), rgb(30, 130, 60);
    Error => "error", rgb(235, 100, 100), rgb(190, 30, 40);
    Warning => "warning", rgb(230, 190, 90), rgb(170, 110, 0);
    Muted => "muted", rgb(140, 140, 150), rgb(110, 110, 120);
    Dim => "dim", rgb(110, 110, 120), rgb(150, 150, 160);
    Text => "text", None, None;
    ThinkingText => "thinkingText", rgb(130, 130, 145), rgb(120, 120, 135);
    UserMessageText => "userMessageText", None, None;
    CustomMessageText => "customMessageText", None, None;
    CustomMessageLabel => "customMessageLabel", rgb(200, 140, 230), rgb(130, 60, 170);
    ToolTitle => "toolTitle", rgb(235, 235, 240), rgb(30, 30, 40);
    ToolOutput => "toolOutput", rgb(150, 150, 160), rgb(90, 90, 100);
    MdHeading => "mdHeading", rgb(130, 220, 255), rgb(0, 100, 160);
    MdLink => "mdLink", rgb(102, 204, 255), rgb(0, 110, 180);
    MdCode => "mdCode", rgb(240, 220, 130), rgb(150, 90, 0);
    MdCodeBlock => "mdCodeBlock", rgb(220, 220, 200), rgb(60, 60, 50);
    MdCodeBlockBorder => "mdCodeBlockBorder", rgb(100, 100, 110), rgb(170, 170, 180);
    MdQuote => "mdQuote", rgb(175, 175, 185), rgb(100, 100, 110);
    ToolDiffAdded => "toolDiffAdded", rgb(120, 200, 120), rgb(30, 130, 60);
    ToolDiffRemoved => "toolDiffRemoved", rgb(235, 100, 100), rgb(190, 30, 40);
    SyntaxComment => "syntaxComment", rgb(127, 132, 142), rgb(120, 125, 135);
    SyntaxKeyword => "syntaxKeyword", rgb(198, 120, 221), rgb(150, 40, 170);
    SyntaxFunction => "syntaxFunction", rgb(97, 175, 239), rgb(30, 90, 190);
    SyntaxString => "syntaxString", rgb(152, 195, 121), rgb(50, 130, 40);
    SyntaxNumber => "syntaxNumber", rgb(209, 154, 102), rgb(170, 90, 20);
    SyntaxType => "syntaxType", rgb(229, 192, 123), rgb(150, 100, 0);
    SyntaxOperator => "syntaxOperator", rgb(86, 182, 194), rgb(0, 120, 130);
    SyntaxPunctuation => "syntaxPunctuation", None, None;
    ScrollbarThumb => "scrollbarThumb", rgb(100, 100, 110), rgb(170, 170, 180);
    BashMode => "bashMode", rgb(200, 140, 230), rgb(130, 60, 170);
    ThinkingOff => "thinkingOff", rgb(95, 95, 110), rgb(170, 170, 180);
    ThinkingMinimal => "thinkingMinimal", rgb(110, 130, 150), rgb(140, 160, 180);
    ThinkingLow => "thinkingLow", rgb(100, 160, 200), rgb(80, 140, 190);
    ThinkingMedium => "thinkingMedium", rgb(102, 204, 255), rgb(0, 110, 180);
    ThinkingHigh => "thinkingHigh", rgb(200, 140, 230), rgb(130, 60, 170);
    ThinkingXhigh => "thinkingXhigh", rgb(235, 120, 180), rgb(180, 40, 110);
    ThinkingMax => "thinkingMax", rgb(235, 100, 100), rgb(190, 30, 40);
}

/// Tokens of pi's format this UI has no use for yet: accepted without a warning.
const KNOWN_UNUSED: &[&str] = &[
    "selectedBg",
    "userMessageBg",
    "customMessageBg",
    "toolPendingBg",
    "toolSuccessBg",
    "toolErrorBg",
    "mdLinkUrl",
    "mdQuoteBorder",
    "mdHr",
    "mdListBullet",
    "toolDiffContext",
    "syntaxVariable",
];

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The colour of every token.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    colors: Vec<Option<Color>>,
    /// Different for every theme made, so drawn lines know when the colours changed.
    pub id: u64,
}

impl Theme {
    /// The built-in dark theme, shared (what a screen without a chosen theme uses).
    pub fn default_dark() -> &'static Theme {
        static DARK: std::sync::OnceLock<Theme> = std::sync::OnceLock::new();
        DARK.get_or_init(Theme::dark)
    }

    pub fn dark() -> Theme {
        Theme::built_in("dark", |(_, _, dark, _)| *dark)
    }

    pub fn light() -> Theme {
        Theme::built_in("light", |(_, _, _, light)| *light)
    }

    fn built_in(
        name: &str,
        pick: impl Fn(&(Token, &str, Option<Color>, Option<Color>)) -> Option<Color>,
    ) -> Theme {
        Theme {
            name: name.to_owned(),
            colors: TOKENS.iter().map(pick).collect(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The colour of `token`; `None` is the terminal's own.
    pub fn get(&self, token: Token) -> Option<Color> {
        // `TOKENS` lists the tokens in declaration order, so a token's number is its row (this
        // runs for every styled span drawn).
        self.colors.get(token as usize).copied().flatten()
    }

    /// The colour of a token given by its name (what renderer components use); `None` when
    /// the name is no token.
    pub fn by_name(&self, name: &str) -> Option<Option<Color>> {
        let index = TOKENS.iter().position(|(_, n, ..)| *n == name)?;
        self.colors.get(index).copied()
    }

    /// A theme file's text; `source` names it in warnings.
    pub fn from_json(text: &str, source: &str) -> Result<(Theme, Vec<String>), String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("{source}: not a theme ({e})"))?;
        let name = value
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("custom")
            .to_owned();
        let mut theme = if name.contains("light") {
            Theme::light()
        } else {
            Theme::dark()
        };
        theme.name = name;
        let vars = value.get("vars").and_then(Value::as_object);
        let mut warnings = Vec::new();
        let colors = value.get("colors").and_then(Value::as_object);
        for (key, raw) in colors.into_iter().flatten() {
            let Some(index) = TOKENS.iter().position(|(_, n, ..)| n == key) else {
                if !KNOWN_UNUSED.contains(&key.as_str()) {
                    warnings.push(format!("{source}: unknown colour token \"{key}\""));
                }
                continue;
            };
            match color(raw, vars) {
                Some(color) => theme.colors[index] = color,
                None => warnings.push(format!(
                    "{source}: \"{key}\" is not a colour ({raw}); the default is used"
                )),
            }
        }
        Ok((theme, warnings))
    }
}

/// `#rrggbb`, a 256-palette index, a var's name, or `""` (the terminal's colour, `Some(None)`).
fn color(raw: &Value, vars: Option<&serde_json::Map<String, Value>>) -> Option<Option<Color>> {
    match raw {
        Value::Number(n) => {
            let index = u8::try_from(n.as_u64()?).ok()?;
            Some(Some(Color::Indexed(index)))
        }
        Value::String(s) if s.is_empty() => Some(None),
        Value::String(s) if s.starts_with('#') => hex(s).map(Some),
        // A var may not name another var: one level, as pi resolves them.
        Value::String(s) => color(vars?.get(s)?, None),
        _ => None,
    }
}

/// `#rrggbb` as a colour.
pub fn hex(text: &str) -> Option<Color> {
    let hex = text.strip_prefix('#').filter(|h| h.len() == 6)?;
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some(Color::Rgb(byte(0)?, byte(2)?, byte(4)?))
}

/// Where a theme is looked for, and what was chosen.
pub struct ThemeChoice {
    pub theme: Theme,
    /// The file it came from (watched for changes), if not built in.
    pub path: Option<PathBuf>,
    pub warnings: Vec<String>,
}

/// The theme `wanted` names: a path to a file, a built-in name, or the `name` of a theme in
/// one of `dirs` (`~/.pi/agent/themes`, `.pi/themes`) or `extra` files (`--theme`). A missing
/// or broken theme falls back to `dark` with a warning.
pub fn choose(wanted: &str, dirs: &[PathBuf], extra: &[PathBuf]) -> ThemeChoice {
    let built_in = |theme| ThemeChoice {
        theme,
        path: None,
        warnings: Vec::new(),
    };
    match wanted {
        "dark" | "" => return built_in(Theme::dark()),
        "light" => return built_in(Theme::light()),
        _ => {}
    }
    let candidates = extra.iter().cloned().chain(
        dirs.iter()
            .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
            .map(|entry| entry.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json")),
    );
    let direct = Path::new(wanted);
    let mut found = None;
    if direct.extension().is_some_and(|e| e == "json") && direct.is_file() {
        found = Some(direct.to_path_buf());
    }
    for path in candidates {
        if found.is_some() {
            break;
        }
        let stem_matches = path.file_stem().is_some_and(|s| s == wanted);
        if stem_matches || theme_name(&path).as_deref() == Some(wanted) {
            found = Some(path);
        }
    }
    match found {
        Some(path) => load(&path),
        None => ThemeChoice {
            theme: Theme::dark(),
            path: None,
            warnings: vec![format!("Theme \"{wanted}\" not found; using dark")],
        },
    }
}

fn theme_name(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value.get("name")?.as_str().map(str::to_owned)
}

/// The theme in `path`, or `dark` with a warning when it cannot be read.
pub fn load(path: &Path) -> ThemeChoice {
    let source = path.display().to_string();
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| format!("{source}: {e}"))
        .and_then(|text| Theme::from_json(&text, &source));
    match parsed {
        Ok((theme, warnings)) => ThemeChoice {
            theme,
            path: Some(path.to_path_buf()),
            warnings,
        },
        Err(error) => ThemeChoice {
            theme: Theme::dark(),
            path: Some(path.to_path_buf()),
            warnings: vec![format!("{error}; using dark")],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theme_file_overrides_tokens_with_hex_indices_vars_and_the_default() {
        let text = r##"{"name": "sunset", "vars": {"orange": "#ff8800"},
            "colors": {"accent": "orange", "error": 196, "text": "", "success": "#00ff00",
                       "mdHr": "#111111", "nosuch": "#000000", "warning": "#12"}}"##;
        let (theme, warnings) =
            Theme::from_json(text, "sunset.json").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(theme.name, "sunset");
        assert_eq!(theme.get(Token::Accent), Some(Color::Rgb(255, 136, 0)));
        assert_eq!(theme.get(Token::Error), Some(Color::Indexed(196)));
        assert_eq!(theme.get(Token::Text), None);
        assert_eq!(theme.get(Token::Success), Some(Color::Rgb(0, 255, 0)));
        assert_eq!(theme.get(Token::Warning), Theme::dark().get(Token::Warning));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("sunset.json") && warnings[0].contains("nosuch"));
        assert!(warnings[1].contains("\"warning\""));
        assert_eq!(theme.by_name("accent"), Some(Some(Color::Rgb(255, 136, 0))));
        assert_eq!(theme.by_name("nope"), None);
    }

    #[test]
    fn every_token_is_its_own_row() {
        for (i, (token, ..)) in TOKENS.iter().enumerate() {
            assert_eq!(*token as usize, i);
        }
    }

    #[test]
    fn broken_or_missing_themes_fall_back_to_dark_with_a_warning() {
        let dir = std::env::temp_dir().join(format!("pi-theme-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("broken.json"), "{not json");
        let _ = std::fs::write(
            dir.join("mine.json"),
            r##"{"name": "my theme", "colors": {}}"##,
        );
        let broken = choose("broken", std::slice::from_ref(&dir), &[]);
        assert_eq!(broken.theme.name, "dark");
        assert!(
            broken.warnings[0].contains("broken.json"),
            "{:?}",
            broken.warnings
        );
        let by_name = choose("my theme", std::slice::from_ref(&dir), &[]);
        assert_eq!(by_name.theme.name, "my theme");
        assert!(by_name.warnings.is_empty());
        let missing = choose("nowhere", std::slice::from_ref(&dir), &[]);
        assert!(missing.warnings[0].contains("not found"));
        assert_eq!(choose("light", &[], &[]).theme.name, "light");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
