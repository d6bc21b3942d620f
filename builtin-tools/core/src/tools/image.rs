//! Image handling for `read`: format sniffing and pi's resize policy (fit into 2000×2000 and a
//! 4.5 MiB base64 payload, trying PNG and JPEG, shrinking further when neither fits).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader};
use std::io::Cursor;

pub const MAX_DIMENSION: u32 = 2000;
/// Base64 payload ceiling; below Anthropic's 5 MB image limit.
pub const MAX_BASE64_BYTES: usize = 4_718_592;
const JPEG_FALLBACK_QUALITIES: [u8; 3] = [70, 55, 40];
const JPEG_DEFAULT_QUALITY: u8 = 80;

/// The image formats `read` recognises, by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Png,
    Jpeg,
    Gif,
    Webp,
    Bmp,
}

impl ImageKind {
    /// Identifies an image from its magic bytes (the file name is never consulted).
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageKind::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageKind::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageKind::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageKind::Webp)
        } else if bytes.len() >= 14 && bytes.starts_with(b"BM") {
            Some(ImageKind::Bmp)
        } else {
            None
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            ImageKind::Png => "image/png",
            ImageKind::Jpeg => "image/jpeg",
            ImageKind::Gif => "image/gif",
            ImageKind::Webp => "image/webp",
            ImageKind::Bmp => "image/bmp",
        }
    }

    fn format(self) -> ImageFormat {
        match self {
            ImageKind::Png => ImageFormat::Png,
            ImageKind::Jpeg => ImageFormat::Jpeg,
            ImageKind::Gif => ImageFormat::Gif,
            ImageKind::Webp => ImageFormat::WebP,
            ImageKind::Bmp => ImageFormat::Bmp,
        }
    }
}

/// The image as it will be sent, plus notes for the model.
#[derive(Debug, Clone)]
pub struct LoadedImage {
    /// Base64 payload; `None` when the image could not be made to fit.
    pub data: Option<String>,
    pub mime_type: String,
    pub hints: Vec<String>,
}

/// Prepares an image for the model, resizing or re-encoding when pi's limits require it.
pub fn load_image(bytes: &[u8], kind: ImageKind, auto_resize: bool) -> LoadedImage {
    let original = LoadedImage {
        data: Some(STANDARD.encode(bytes)),
        mime_type: kind.mime().to_string(),
        hints: Vec::new(),
    };
    if !auto_resize {
        return original;
    }
    let (img, oriented) = match decode(bytes, kind) {
        Ok(decoded) => decoded,
        Err(err) => return undecodable(original, kind, &err),
    };
    let fits = img.width() <= MAX_DIMENSION
        && img.height() <= MAX_DIMENSION
        && base64_len(bytes.len()) <= MAX_BASE64_BYTES;
    if fits && !oriented && kind != ImageKind::Bmp {
        return original;
    }
    let mut loaded = shrink_to_fit(&img);
    if kind == ImageKind::Bmp {
        let target = loaded.mime_type.trim_start_matches("image/").to_uppercase();
        loaded
            .hints
            .push(format!("[Converted from BMP to {target} for sending.]"));
    }
    loaded
}

fn undecodable(original: LoadedImage, kind: ImageKind, err: &str) -> LoadedImage {
    let small = original
        .data
        .as_ref()
        .is_some_and(|d| d.len() <= MAX_BASE64_BYTES);
    if small && kind != ImageKind::Bmp {
        return original;
    }
    LoadedImage {
        data: None,
        mime_type: original.mime_type,
        hints: vec![format!(
            "[The image could not be processed and was not attached: {err}]"
        )],
    }
}

/// Decodes and applies the EXIF orientation; the flag says whether pixels were re-oriented.
fn decode(bytes: &[u8], kind: ImageKind) -> Result<(DynamicImage, bool), String> {
    let reader = ImageReader::with_format(Cursor::new(bytes), kind.format());
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    let oriented = orientation != Orientation::NoTransforms;
    img.apply_orientation(orientation);
    Ok((img, oriented))
}

fn base64_len(raw: usize) -> usize {
    raw.div_ceil(3) * 4
}

/// Largest size with the same aspect ratio inside `max_w`×`max_h` (never upscales).
fn fit(width: u32, height: u32, max_w: u32, max_h: u32) -> (u32, u32) {
    if width <= max_w && height <= max_h {
        return (width.max(1), height.max(1));
    }
    let scale = (f64::from(max_w) / f64::from(width)).min(f64::from(max_h) / f64::from(height));
    let w = (f64::from(width) * scale).round().max(1.0) as u32;
    let h = (f64::from(height) * scale).round().max(1.0) as u32;
    (w, h)
}

fn shrink_to_fit(img: &DynamicImage) -> LoadedImage {
    let (orig_w, orig_h) = (img.width(), img.height());
    let (mut w, mut h) = fit(orig_w, orig_h, MAX_DIMENSION, MAX_DIMENSION);
    loop {
        let resized = if (w, h) == (orig_w, orig_h) {
            img.clone()
        } else {
            img.resize_exact(w, h, FilterType::Triangle)
        };
        if let Some((data, mime)) = encode_within_limit(&resized) {
            let mut hints = Vec::new();
            if (w, h) != (orig_w, orig_h) {
                hints.push(dimension_note(orig_w, orig_h, w, h));
            }
            return LoadedImage {
                data: Some(data),
                mime_type: mime.to_string(),
                hints,
            };
        }
        if w == 1 && h == 1 {
            return LoadedImage {
                data: None,
                mime_type: "image/png".into(),
                hints: vec!["[The image is too large to attach even after resizing.]".into()],
            };
        }
        w = ((f64::from(w) * 0.75).floor() as u32).max(1);
        h = ((f64::from(h) * 0.75).floor() as u32).max(1);
    }
}

fn dimension_note(orig_w: u32, orig_h: u32, w: u32, h: u32) -> String {
    let scale = f64::from(orig_w) / f64::from(w);
    format!(
        "[Image resized from {orig_w}x{orig_h} to {w}x{h}. Multiply coordinates in the image by \
         {scale:.2} to get positions in the original.]"
    )
}

/// Smallest of PNG and JPEG (quality 80) under the payload limit, else lower JPEG qualities.
fn encode_within_limit(img: &DynamicImage) -> Option<(String, &'static str)> {
    let mut best: Option<(String, &'static str)> = None;
    let candidates = [
        encode_png(img).map(|d| (d, "image/png")),
        encode_jpeg(img, JPEG_DEFAULT_QUALITY).map(|d| (d, "image/jpeg")),
    ];
    for (data, mime) in candidates.into_iter().flatten() {
        if data.len() <= MAX_BASE64_BYTES && best.as_ref().is_none_or(|(b, _)| data.len() < b.len())
        {
            best = Some((data, mime));
        }
    }
    if best.is_some() {
        return best;
    }
    JPEG_FALLBACK_QUALITIES.iter().find_map(|&q| {
        encode_jpeg(img, q)
            .filter(|d| d.len() <= MAX_BASE64_BYTES)
            .map(|d| (d, "image/jpeg"))
    })
}

fn encode_png(img: &DynamicImage) -> Option<String> {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
        .ok()?;
    Some(STANDARD.encode(out))
}

fn encode_jpeg(img: &DynamicImage, quality: u8) -> Option<String> {
    let rgb = img.to_rgb8();
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(&rgb)
        .ok()?;
    Some(STANDARD.encode(out))
}
