//! Pictures in the transcript. Where the terminal speaks a graphics protocol (kitty's,
//! iTerm2's inline images, which WezTerm also reads, or sixel), an image a tool returned is
//! drawn in rows
//! the transcript keeps blank for it; elsewhere (and inside tmux, which does not pass the
//! protocols on) the placeholder line naming it is all there is. Pictures are placed after a
//! frame is drawn, and placed again only when the ones in view move.

use base64::Engine as _;
use pi_ai::ImageContent;
use std::io::Write;
use std::sync::Arc;

/// Cells are about twice as tall as wide; a picture is sized from this many pixels a column.
const PIXELS_PER_COLUMN: u32 = 8;
/// A picture takes at most this many rows.
const MAX_ROWS: u32 = 20;
/// Kitty takes its payload in pieces of at most this many bytes.
const KITTY_CHUNK: usize = 4096;
/// A cell's size in pixels, for sixel pictures (which are sized in pixels).
const CELL_WIDTH: u32 = 8;
const CELL_HEIGHT: u32 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageProtocol {
    #[default]
    None,
    Kitty,
    Iterm2,
    Sixel,
}

impl ImageProtocol {
    /// The protocol the terminal announces through the environment; `var` reads one variable.
    pub fn detect(var: impl Fn(&str) -> Option<String>) -> ImageProtocol {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        if set("TMUX").is_some() {
            return ImageProtocol::None;
        }
        let program = set("TERM_PROGRAM").unwrap_or_default();
        let term = set("TERM").unwrap_or_default();
        if term == "xterm-kitty" || set("KITTY_WINDOW_ID").is_some() || program == "ghostty" {
            ImageProtocol::Kitty
        } else if program == "iTerm.app" || program == "WezTerm" {
            ImageProtocol::Iterm2
        } else if ["foot", "mlterm", "contour", "xterm-sixel"]
            .iter()
            .any(|t| term.starts_with(t))
        {
            ImageProtocol::Sixel
        } else {
            ImageProtocol::None
        }
    }
}

/// An image ready to place: its payload for the protocol and the cells it covers.
#[derive(Debug, PartialEq)]
pub struct Picture {
    pub cols: u16,
    pub rows: u16,
    /// What the protocol takes: base64 of a PNG for kitty, of the file as it is for iTerm2;
    /// the sixel data itself for sixel.
    payload: String,
}

impl Picture {
    /// Sizes `image` to at most `max_cols` columns; `None` when it does not decode (the
    /// placeholder stays alone).
    pub fn new(image: &ImageContent, max_cols: usize, protocol: ImageProtocol) -> Option<Picture> {
        let engine = base64::engine::general_purpose::STANDARD;
        let bytes = engine.decode(image.data.as_bytes()).ok()?;
        let reader = image::ImageReader::new(std::io::Cursor::new(&bytes))
            .with_guessed_format()
            .ok()?;
        let (width, height) = reader.into_dimensions().ok()?;
        if width == 0 || height == 0 {
            return None;
        }
        let max_cols = u32::try_from(max_cols).unwrap_or(u32::MAX).max(1);
        let mut cols = (width / PIXELS_PER_COLUMN).clamp(1, max_cols);
        let mut rows = (cols * height).div_ceil(width * 2).max(1);
        if rows > MAX_ROWS {
            rows = MAX_ROWS;
            cols = (rows * 2 * width / height).clamp(1, max_cols);
        }
        let payload = match protocol {
            ImageProtocol::Kitty if image.mime_type != "image/png" => {
                let decoded = image::load_from_memory(&bytes).ok()?;
                let mut png = Vec::new();
                decoded
                    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                    .ok()?;
                engine.encode(png)
            }
            ImageProtocol::Sixel => {
                let decoded = image::load_from_memory(&bytes).ok()?.to_rgb8();
                let resized = image::imageops::resize(
                    &decoded,
                    cols * CELL_WIDTH,
                    rows * CELL_HEIGHT,
                    image::imageops::FilterType::Triangle,
                );
                sixel(&resized)
            }
            _ => image.data.clone(),
        };
        Some(Picture {
            cols: u16::try_from(cols).unwrap_or(u16::MAX),
            rows: u16::try_from(rows).unwrap_or(u16::MAX),
            payload,
        })
    }

    /// The bytes that draw this picture with its top left corner at the cursor.
    fn escape(&self, protocol: ImageProtocol) -> String {
        match protocol {
            ImageProtocol::None => String::new(),
            ImageProtocol::Kitty => {
                // Quiet (q=2): the terminal's replies would arrive as keys otherwise. C=1
                // leaves the cursor where it is.
                let chunks: Vec<&[u8]> = self.payload.as_bytes().chunks(KITTY_CHUNK).collect();
                let mut out = String::new();
                for (i, chunk) in chunks.iter().enumerate() {
                    let more = u8::from(i + 1 < chunks.len());
                    let chunk = String::from_utf8_lossy(chunk);
                    if i == 0 {
                        out.push_str(&format!(
                            "\x1b_Ga=T,f=100,q=2,C=1,c={},r={},m={more};{chunk}\x1b\\",
                            self.cols, self.rows
                        ));
                    } else {
                        out.push_str(&format!("\x1b_Gm={more};{chunk}\x1b\\"));
                    }
                }
                out
            }
            ImageProtocol::Iterm2 => format!(
                "\x1b]1337;File=inline=1;width={};height={};preserveAspectRatio=1:{}\x07",
                self.cols, self.rows, self.payload
            ),
            ImageProtocol::Sixel => self.payload.clone(),
        }
    }
}

/// The 6×6×6 colour cube entry nearest `v` (0–255) on one axis.
fn level(v: u8) -> usize {
    (usize::from(v) * 5 + 127) / 255
}

/// `image` as a sixel sequence over the 216 colours of a 6×6×6 cube: a band of six pixel rows
/// at a time, one pass per colour the band uses, runs of the same six-pixel column
/// run-length coded.
fn sixel(image: &image::RgbImage) -> String {
    let (width, height) = image.dimensions();
    let index = |x: u32, y: u32| {
        let p = image.get_pixel(x, y);
        level(p[0]) * 36 + level(p[1]) * 6 + level(p[2])
    };
    let mut out = format!("\x1bP0;1;0q\"1;1;{width};{height}");
    let mut used = [false; 216];
    for y in 0..height {
        for x in 0..width {
            used[index(x, y)] = true;
        }
    }
    for (i, _) in used.iter().enumerate().filter(|(_, u)| **u) {
        let percent = |n: usize| n * 100 / 5;
        out.push_str(&format!(
            "#{i};2;{};{};{}",
            percent(i / 36),
            percent(i / 6 % 6),
            percent(i % 6)
        ));
    }
    for band in (0..height).step_by(6) {
        let rows = (height - band).min(6);
        let mut colours: Vec<usize> = (0..width)
            .flat_map(|x| (0..rows).map(move |r| (x, r)))
            .map(|(x, r)| index(x, band + r))
            .collect();
        colours.sort_unstable();
        colours.dedup();
        for (n, colour) in colours.iter().enumerate() {
            if n > 0 {
                out.push('$');
            }
            out.push_str(&format!("#{colour}"));
            let columns = (0..width).map(|x| {
                let bits = (0..rows)
                    .filter(|r| index(x, band + r) == *colour)
                    .fold(0u8, |b, r| b | (1 << r));
                char::from(63 + bits)
            });
            push_runs(&mut out, columns);
        }
        out.push('-');
    }
    out.push_str("\x1b\\");
    out
}

/// Appends `chars`, a run of four or more of one character as `!<count><char>`.
fn push_runs(out: &mut String, chars: impl Iterator<Item = char>) {
    let mut run: Option<(char, usize)> = None;
    let flush = |out: &mut String, (ch, count): (char, usize)| {
        if count >= 4 {
            out.push_str(&format!("!{count}{ch}"));
        } else {
            out.extend(std::iter::repeat_n(ch, count));
        }
    };
    for ch in chars {
        run = match run {
            Some((c, n)) if c == ch => Some((c, n + 1)),
            Some(done) => {
                flush(out, done);
                Some((ch, 1))
            }
            None => Some((ch, 1)),
        };
    }
    if let Some(done) = run {
        flush(out, done);
    }
}

/// A picture in view: its top left cell.
#[derive(Debug, Clone)]
pub struct Placed {
    pub x: u16,
    pub y: u16,
    pub picture: Arc<Picture>,
}

/// The same picture at the same cell: an item drawn again (its result confirmed, say) makes a
/// new `Picture` of the same image, which must not count as a move.
impl PartialEq for Placed {
    fn eq(&self, other: &Self) -> bool {
        (self.x, self.y) == (other.x, other.y)
            && (Arc::ptr_eq(&self.picture, &other.picture) || self.picture == other.picture)
    }
}

/// Draws `placed` (kitty: after removing every picture drawn before).
pub fn place(
    out: &mut impl Write,
    protocol: ImageProtocol,
    placed: &[Placed],
) -> std::io::Result<()> {
    if protocol == ImageProtocol::Kitty {
        write!(out, "\x1b_Ga=d,d=A,q=2\x1b\\")?;
    }
    for p in placed {
        write!(
            out,
            "\x1b7\x1b[{};{}H{}\x1b8",
            p.y + 1,
            p.x + 1,
            p.picture.escape(protocol)
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16×8 PNG, made here so the test needs no file.
    fn png(width: u32, height: u32) -> ImageContent {
        let image = image::RgbImage::new(width, height);
        let mut bytes = Vec::new();
        image
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .unwrap_or_default();
        ImageContent {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: "image/png".into(),
        }
    }

    #[test]
    fn detects_the_protocol_and_not_inside_tmux() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(
            ImageProtocol::detect(env(&[("TERM", "xterm-kitty")])),
            ImageProtocol::Kitty
        );
        assert_eq!(
            ImageProtocol::detect(env(&[("TERM_PROGRAM", "iTerm.app")])),
            ImageProtocol::Iterm2
        );
        assert_eq!(
            ImageProtocol::detect(env(&[("TERM", "xterm-kitty"), ("TMUX", "/tmp/t,1,0")])),
            ImageProtocol::None
        );
        assert_eq!(
            ImageProtocol::detect(env(&[("TERM", "xterm-256color")])),
            ImageProtocol::None
        );
    }

    #[test]
    fn sizes_pictures_to_cells_and_the_width() {
        let wide = Picture::new(&png(160, 80), 100, ImageProtocol::Kitty);
        assert_eq!(wide.as_ref().map(|p| (p.cols, p.rows)), Some((20, 5)));
        let narrow = Picture::new(&png(160, 80), 10, ImageProtocol::Kitty);
        assert_eq!(narrow.as_ref().map(|p| (p.cols, p.rows)), Some((10, 3)));
        let tall = Picture::new(&png(80, 800), 100, ImageProtocol::Iterm2);
        assert_eq!(tall.as_ref().map(|p| (p.cols, p.rows)), Some((4, 20)));
        let broken = ImageContent {
            data: "bm90IGFuIGltYWdl".into(),
            mime_type: "image/png".into(),
        };
        assert!(Picture::new(&broken, 100, ImageProtocol::Kitty).is_none());
    }

    #[test]
    fn encodes_sixel_bands_colours_and_runs() {
        // 5×7: red on top, a blue bottom row in the second band.
        let mut image = image::RgbImage::from_pixel(5, 7, image::Rgb([255, 0, 0]));
        for x in 0..5 {
            image.put_pixel(x, 6, image::Rgb([0, 0, 255]));
        }
        assert_eq!(
            sixel(&image),
            "\x1bP0;1;0q\"1;1;5;7#5;2;0;0;100#180;2;100;0;0#180!5~-#5!5@-\x1b\\"
        );
    }

    #[test]
    fn writes_each_protocols_escape_at_the_cell() {
        let Some(picture) = Picture::new(&png(16, 8), 100, ImageProtocol::Kitty) else {
            panic!("the test image decodes");
        };
        let placed = [Placed {
            x: 4,
            y: 2,
            picture: Arc::new(picture),
        }];
        let mut out = Vec::new();
        assert!(place(&mut out, ImageProtocol::Kitty, &placed).is_ok());
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.starts_with(
                "\x1b_Ga=d,d=A,q=2\x1b\\\x1b7\x1b[3;5H\x1b_Ga=T,f=100,q=2,C=1,c=2,r=1,m=0;"
            ),
            "{text:?}"
        );
        let mut out = Vec::new();
        assert!(place(&mut out, ImageProtocol::Iterm2, &placed).is_ok());
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.contains("\x1b]1337;File=inline=1;width=2;height=1;"),
            "{text:?}"
        );
    }
}
