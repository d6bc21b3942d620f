//! `@file` arguments and piped stdin: the initial message pi builds from them
//! (`[stdin, @file text, first message]` joined, the other messages sent one by one).

use pi_ai::ImageContent;
use std::path::{Path, PathBuf};

/// A file that could not be attached.
#[derive(Debug, thiserror::Error)]
#[error("Cannot read @{arg}: {source}")]
pub struct FileArgError {
    pub arg: String,
    #[source]
    pub source: std::io::Error,
}

/// The text and images that `@file` arguments contribute.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Attachments {
    pub text: String,
    pub images: Vec<ImageContent>,
}

/// Reads every `@file` (`~` expanded, relative to `cwd`). Empty files are skipped; images
/// (recognised by their first bytes) are attached, text is wrapped in `<file name="…">`.
pub fn read_file_args(args: &[&str], cwd: &Path) -> Result<Attachments, FileArgError> {
    let mut out = Attachments::default();
    for arg in args {
        let path = resolve(arg, cwd);
        let bytes = std::fs::read(&path).map_err(|source| FileArgError {
            arg: (*arg).to_owned(),
            source,
        })?;
        if bytes.is_empty() {
            continue;
        }
        let name = path.to_string_lossy();
        match sniff_image(&bytes) {
            Some(mime) => {
                out.text
                    .push_str(&format!("<file name=\"{name}\"></file>\n"));
                out.images.push(ImageContent {
                    data: base64(&bytes),
                    mime_type: mime.to_owned(),
                });
            }
            None => {
                let content = String::from_utf8_lossy(&bytes);
                out.text
                    .push_str(&format!("<file name=\"{name}\">\n{content}\n</file>\n"));
            }
        }
    }
    Ok(out)
}

fn resolve(arg: &str, cwd: &Path) -> PathBuf {
    let path = pi_session::paths::expand_tilde(arg);
    if path.is_absolute() {
        path
    } else {
        cwd.join(path)
    }
}

/// The image MIME type of `bytes`, from their signature.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The prompts of a run: the first joins stdin, the attachments' text and the first message;
/// the rest are the remaining messages. Empty when there is nothing to send.
pub fn build_prompts(
    stdin: Option<&str>,
    attachments: &Attachments,
    messages: &[&str],
) -> Vec<String> {
    let mut first = String::new();
    if let Some(stdin) = stdin {
        first.push_str(stdin);
    }
    first.push_str(&attachments.text);
    let mut rest = messages.iter();
    if let Some(message) = rest.next() {
        first.push_str(message);
    }
    let mut prompts = Vec::new();
    if !first.is_empty() || !attachments.images.is_empty() {
        prompts.push(first);
    }
    prompts.extend(rest.map(|m| (*m).to_owned()));
    prompts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn prompts_join_stdin_files_and_first_message() {
        let att = Attachments {
            text: "<file name=\"/a\">\nx\n</file>\n".into(),
            images: vec![],
        };
        let prompts = build_prompts(Some("piped\n"), &att, &["first", "second"]);
        assert_eq!(
            prompts,
            ["piped\n<file name=\"/a\">\nx\n</file>\nfirst", "second"]
        );
        assert!(build_prompts(None, &Attachments::default(), &[]).is_empty());
    }
}
