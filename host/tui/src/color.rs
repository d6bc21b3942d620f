//! How many colours the terminal shows, and fitting a colour to that. Read from the environment
//! the way terminals announce it: `NO_COLOR` (any non-empty value) turns colour off,
//! `COLORTERM=truecolor|24bit` means 24-bit colour, a `TERM` naming `256color` means the
//! 256-colour palette, `TERM=dumb` means none, anything else the 16 basic colours.

use ratatui::style::Color;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorLevel {
    None,
    Basic,
    Ansi256,
    #[default]
    TrueColor,
}

impl ColorLevel {
    /// The level the environment announces; `var` reads one variable.
    pub fn detect(var: impl Fn(&str) -> Option<String>) -> ColorLevel {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        if set("NO_COLOR").is_some() {
            return ColorLevel::None;
        }
        let colorterm = set("COLORTERM").unwrap_or_default().to_ascii_lowercase();
        if colorterm == "truecolor" || colorterm == "24bit" {
            return ColorLevel::TrueColor;
        }
        let term = set("TERM").unwrap_or_default().to_ascii_lowercase();
        match term.as_str() {
            "dumb" => ColorLevel::None,
            t if t.contains("256color") || t.contains("direct") => ColorLevel::Ansi256,
            _ => ColorLevel::Basic,
        }
    }

    /// `color` as this terminal can show it (`None` when colour is off).
    pub fn fit(self, color: Color) -> Option<Color> {
        match (self, color) {
            (ColorLevel::None, _) => None,
            (ColorLevel::TrueColor, c) => Some(c),
            (ColorLevel::Ansi256, Color::Rgb(r, g, b)) => Some(Color::Indexed(cube(r, g, b))),
            (ColorLevel::Basic, Color::Rgb(r, g, b)) => Some(basic(r, g, b)),
            (ColorLevel::Basic, Color::Indexed(i)) if i >= 16 => {
                let (r, g, b) = indexed_rgb(i);
                Some(basic(r, g, b))
            }
            (_, c) => Some(c),
        }
    }
}

/// The nearest entry of the 6×6×6 colour cube (indices 16–231) or the grey ramp (232–255).
fn cube(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| -> u8 {
        match v {
            0..48 => 0,
            48..115 => 1,
            _ => (v - 35) / 40,
        }
    };
    let (cr, cg, cb) = (level(r), level(g), level(b));
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    // Near-greys look better on the 24-step grey ramp than on the cube's six greys.
    if max - min < 10 && (8..=238).contains(&max) {
        return 232 + (max - 8) / 10;
    }
    16 + 36 * cr + 6 * cg + cb
}

/// The RGB of a 256-palette entry at or above 16.
fn indexed_rgb(i: u8) -> (u8, u8, u8) {
    if i >= 232 {
        let v = 8 + (i - 232) * 10;
        return (v, v, v);
    }
    let i = i - 16;
    let step = |n: u8| if n == 0 { 0 } else { 55 + n * 40 };
    (step(i / 36), step((i / 6) % 6), step(i % 6))
}

/// The basic colour whose hue is nearest.
fn basic(r: u8, g: u8, b: u8) -> Color {
    let bright = r.max(g).max(b) > 170;
    let on = |v: u8| v > 96;
    match (on(r), on(g), on(b), bright) {
        (false, false, false, _) => Color::DarkGray,
        (true, false, false, false) => Color::Red,
        (true, false, false, true) => Color::LightRed,
        (false, true, false, false) => Color::Green,
        (false, true, false, true) => Color::LightGreen,
        (false, false, true, false) => Color::Blue,
        (false, false, true, true) => Color::LightBlue,
        (true, true, false, false) => Color::Yellow,
        (true, true, false, true) => Color::LightYellow,
        (true, false, true, false) => Color::Magenta,
        (true, false, true, true) => Color::LightMagenta,
        (false, true, true, false) => Color::Cyan,
        (false, true, true, true) => Color::LightCyan,
        (true, true, true, false) => Color::Gray,
        (true, true, true, true) => Color::White,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn detects_what_the_environment_announces() {
        assert_eq!(
            ColorLevel::detect(env(&[("NO_COLOR", "1"), ("COLORTERM", "truecolor")])),
            ColorLevel::None
        );
        assert_eq!(
            ColorLevel::detect(env(&[("NO_COLOR", ""), ("COLORTERM", "24bit")])),
            ColorLevel::TrueColor
        );
        assert_eq!(
            ColorLevel::detect(env(&[("TERM", "tmux-256color")])),
            ColorLevel::Ansi256
        );
        assert_eq!(
            ColorLevel::detect(env(&[("TERM", "xterm")])),
            ColorLevel::Basic
        );
        assert_eq!(
            ColorLevel::detect(env(&[("TERM", "dumb")])),
            ColorLevel::None
        );
    }

    #[test]
    fn fits_colours_to_the_level() {
        let orange = Color::Rgb(255, 135, 0);
        assert_eq!(ColorLevel::TrueColor.fit(orange), Some(orange));
        assert_eq!(ColorLevel::Ansi256.fit(orange), Some(Color::Indexed(208)));
        assert_eq!(
            ColorLevel::Ansi256.fit(Color::Rgb(128, 128, 128)),
            Some(Color::Indexed(244))
        );
        assert_eq!(
            ColorLevel::Basic.fit(Color::Rgb(200, 40, 40)),
            Some(Color::LightRed)
        );
        assert_eq!(ColorLevel::Basic.fit(Color::Cyan), Some(Color::Cyan));
        assert_eq!(ColorLevel::None.fit(Color::Cyan), None);
    }
}
