//! The few URL operations the tool needs, without a URL crate: parsing an `http(s)` URL into
//! scheme, authority and path (the fragment dropped: it never reaches the server), and
//! resolving a reference against it (a redirect's `Location`, a link's `href`) as RFC 3986 §5.2
//! does for the forms pages use.

use std::fmt;

/// An absolute `http` or `https` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    scheme: &'static str,
    authority: String,
    /// The path and query, starting with `/`.
    path: String,
}

impl Url {
    /// Parses `text`; anything but an absolute `http://` or `https://` URL with a host is an
    /// error saying so.
    pub fn parse(text: &str) -> Result<Url, String> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        let (scheme, rest) = if lower.starts_with("https://") {
            ("https", &text[8..])
        } else if lower.starts_with("http://") {
            ("http", &text[7..])
        } else {
            return Err(format!(
                "`{text}` is not an http:// or https:// URL (other schemes are not fetched)"
            ));
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        if authority.is_empty() || authority.contains(['@', ' ']) {
            return Err(format!("`{text}` has no valid host"));
        }
        let path = match path {
            "" => "/".to_owned(),
            p if p.starts_with('?') => format!("/{p}"),
            p => p.to_owned(),
        };
        Ok(Url {
            scheme,
            authority: authority.to_ascii_lowercase(),
            path,
        })
    }

    /// `reference` resolved against this URL: absolute URLs and other schemes (`mailto:`) as
    /// they are, `//host/…`, `/path`, `?query` and relative paths (with `.` and `..`) against
    /// this one.
    pub fn resolve(&self, reference: &str) -> String {
        let reference = reference.trim();
        if let Some(rest) = reference.strip_prefix("//") {
            return format!("{}://{rest}", self.scheme);
        }
        if reference.starts_with('/') {
            return format!("{}://{}{}", self.scheme, self.authority, dots(reference));
        }
        let scheme_end = reference.find(':');
        let first_break = reference.find(['/', '?', '#']).unwrap_or(reference.len());
        if scheme_end.is_some_and(|i| i < first_break) {
            return reference.to_owned();
        }
        let (path, _query) = self.path.split_once('?').unwrap_or((&self.path, ""));
        let joined = if reference.is_empty() || reference.starts_with('#') {
            return format!("{self}{reference}");
        } else if reference.starts_with('?') {
            format!("{path}{reference}")
        } else {
            let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{reference}")
        };
        format!("{}://{}{}", self.scheme, self.authority, dots(&joined))
    }
}

/// `path` (with its query) without `.` and `..` segments.
fn dots(path: &str) -> String {
    let (path, query) = match path.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path, None),
    };
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *segment {
            "." if last => out.push(""),
            "." => {}
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let mut joined = format!("/{}", out.join("/"));
    if let Some(q) = query {
        joined.push('?');
        joined.push_str(q);
    }
    joined
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}{}", self.scheme, self.authority, self.path)
    }
}
