use crate::common::Ws;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use pi_builtin_tools::Block;
use serde_json::json;
use std::io::Cursor;

fn encoded(width: u32, height: u32, format: ImageFormat) -> Vec<u8> {
    let img = RgbImage::from_fn(width, height, |x, y| {
        Rgb([(x % 251) as u8, (y % 241) as u8, ((x ^ y) % 239) as u8])
    });
    let mut out = Vec::new();
    DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut out), format)
        .unwrap();
    out
}

fn image_block(blocks: &[Block]) -> (String, String) {
    match &blocks[1] {
        Block::Image { data, mime_type } => (data.clone(), mime_type.clone()),
        other => panic!("expected an image, got {other:?}"),
    }
}

#[test]
fn small_png_and_jpeg_pass_through() {
    let ws = Ws::new();
    for (name, format, mime) in [
        ("a.png", ImageFormat::Png, "image/png"),
        ("b.jpg", ImageFormat::Jpeg, "image/jpeg"),
    ] {
        let bytes = encoded(40, 30, format);
        ws.write(name, &bytes);
        let out = ws.run("read", json!({"path": name})).unwrap();
        assert_eq!(
            out.content[0].as_text(),
            Some(format!("Read image file [{mime}]").as_str())
        );
        let (data, got_mime) = image_block(&out.content);
        assert_eq!(got_mime, mime);
        assert_eq!(
            STANDARD.decode(data).unwrap(),
            bytes,
            "unchanged when small"
        );
    }
}

#[test]
fn format_is_sniffed_from_content_not_name() {
    let ws = Ws::new();
    ws.write("actually-png.txt", encoded(8, 8, ImageFormat::Png));
    let out = ws.run("read", json!({"path": "actually-png.txt"})).unwrap();
    assert_eq!(image_block(&out.content).1, "image/png");
    ws.write("fake.png", "just text");
    assert_eq!(ws.ok("read", json!({"path": "fake.png"})), "just text");
}

#[test]
fn large_image_is_resized_within_2000px() {
    let ws = Ws::new();
    ws.write("wide.png", encoded(3000, 1000, ImageFormat::Png));
    let out = ws.run("read", json!({"path": "wide.png"})).unwrap();
    let (data, mime) = image_block(&out.content);
    let img = image::load_from_memory(&STANDARD.decode(data).unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (2000, 667));
    assert!(mime == "image/png" || mime == "image/jpeg");
    let note = out.content[0].as_text().unwrap();
    assert!(
        note.contains("3000x1000") && note.contains("2000x667"),
        "{note}"
    );
}

#[test]
fn at_2000px_no_resize() {
    let ws = Ws::new();
    let bytes = encoded(2000, 10, ImageFormat::Png);
    ws.write("edge.png", &bytes);
    let out = ws.run("read", json!({"path": "edge.png"})).unwrap();
    assert_eq!(STANDARD.decode(image_block(&out.content).0).unwrap(), bytes);
}

#[test]
fn bmp_gif_webp_are_images() {
    let ws = Ws::new();
    ws.write("p.bmp", encoded(16, 16, ImageFormat::Bmp));
    let out = ws.run("read", json!({"path": "p.bmp"})).unwrap();
    let (_, mime) = image_block(&out.content);
    assert_ne!(mime, "image/bmp", "BMP is converted");
    ws.write("g.gif", encoded(16, 16, ImageFormat::Gif));
    assert_eq!(
        image_block(&ws.run("read", json!({"path": "g.gif"})).unwrap().content).1,
        "image/gif"
    );
    ws.write("w.webp", encoded(16, 16, ImageFormat::WebP));
    assert_eq!(
        image_block(&ws.run("read", json!({"path": "w.webp"})).unwrap().content).1,
        "image/webp"
    );
}

#[test]
fn non_vision_model_gets_a_note() {
    let mut ws = Ws::new();
    ws.env.model_supports_images = false;
    ws.write("a.png", encoded(4, 4, ImageFormat::Png));
    let out = ws.run("read", json!({"path": "a.png"})).unwrap();
    assert!(
        out.content[0]
            .as_text()
            .unwrap()
            .contains("[Current model does not support images.")
    );
}
