//! The loopback callback of an authorization-code login: a one-shot HTTP server on 127.0.0.1
//! that waits for the browser's redirect, racing a pasted redirect URL (or code) for machines
//! where the browser runs elsewhere.

use super::{LoginUi, OAuthError};
use std::collections::BTreeMap;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A bound callback listener and the redirect URI that reaches it.
pub struct Callback {
    listener: TcpListener,
    path: String,
    pub redirect_uri: String,
}

/// What the redirect (or the paste) carried.
pub struct Answer {
    pub code: String,
    pub state: Option<String>,
    /// The authorization server's `iss` (RFC 9207), when it sent one.
    pub iss: Option<String>,
}

impl Callback {
    /// Binds `127.0.0.1:port` (0: any free port); the redirect URI names `localhost`, as the
    /// providers have it registered.
    pub async fn bind(provider: &str, port: u16, path: &'static str) -> Result<Self, OAuthError> {
        Self::bind_at(provider, "127.0.0.1", "localhost", port, path).await
    }

    /// Binds `host:port` (0: any free port) and names `redirect_host` in the redirect URI
    /// (MCP servers get `127.0.0.1`, or the host of a configured callback URL).
    pub async fn bind_at(
        provider: &str,
        host: &str,
        redirect_host: &str,
        port: u16,
        path: &str,
    ) -> Result<Self, OAuthError> {
        let address = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let listener =
            TcpListener::bind(&address)
                .await
                .map_err(|source| OAuthError::Callback {
                    provider: provider.to_owned(),
                    address: address.clone(),
                    source,
                })?;
        let port = listener
            .local_addr()
            .map_err(|source| OAuthError::Callback {
                provider: provider.to_owned(),
                address,
                source,
            })?
            .port();
        let redirect_host = if redirect_host.contains(':') {
            format!("[{redirect_host}]")
        } else {
            redirect_host.to_owned()
        };
        Ok(Callback {
            listener,
            path: path.to_owned(),
            redirect_uri: format!("http://{redirect_host}:{port}{path}"),
        })
    }

    /// The first answer: a redirect reaching the listener, or a line the user pasted.
    pub async fn wait(self, provider: &str, ui: &dyn LoginUi) -> Result<Answer, OAuthError> {
        let pasted = async {
            match ui.read_line().await {
                Some(line) if !line.trim().is_empty() => line,
                // No input to read: only the browser can finish.
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            answer = self.serve() => Ok(answer),
            line = pasted => parse_pasted(provider, &line),
        }
    }

    /// Answers requests until one to the callback path carries a `code` (or an `error`).
    async fn serve(&self) -> Answer {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else {
                continue;
            };
            if let Some(answer) = self.answer(stream).await {
                return answer;
            }
        }
    }

    async fn answer(&self, mut stream: TcpStream) -> Option<Answer> {
        let target = read_target(&mut stream).await?;
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        let params = query_params(query);
        let code = params.get("code").cloned();
        let on_path = path == self.path;
        let (status, page) = match (&code, on_path) {
            (Some(_), true) => (
                "200 OK",
                "Signed in. You can close this tab and return to pi.",
            ),
            _ if !on_path => ("404 Not Found", "Not found."),
            _ => ("400 Bad Request", "Sign-in failed: no code. Return to pi."),
        };
        let body = format!("<!doctype html><html><body><p>{page}</p></body></html>");
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
        Some(Answer {
            code: code.filter(|_| on_path)?,
            state: params.get("state").cloned(),
            iss: params.get("iss").cloned(),
        })
    }
}

/// The request target of one HTTP request (`/callback?code=…`).
async fn read_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let first = head.lines().next()?;
    first.split(' ').nth(1).map(str::to_owned)
}

/// A query string's parameters, percent-decoded.
pub fn query_params(query: &str) -> BTreeMap<String, String> {
    url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect()
}

/// A pasted answer: the whole redirect URL, `code#state`, or the bare code.
pub fn parse_pasted(provider: &str, line: &str) -> Result<Answer, OAuthError> {
    let line = line.trim();
    if let Some((_, query)) = line.split_once('?') {
        let query = query.split('#').next().unwrap_or_default();
        let params = query_params(query);
        return match params.get("code") {
            Some(code) => Ok(Answer {
                code: code.clone(),
                state: params.get("state").cloned(),
                iss: params.get("iss").cloned(),
            }),
            None => Err(OAuthError::NoCode {
                provider: provider.to_owned(),
                input: line.to_owned(),
            }),
        };
    }
    let (code, state) = match line.split_once('#') {
        Some((code, state)) => (code, Some(state.to_owned())),
        None => (line, None),
    };
    if code.is_empty() || code.contains(char::is_whitespace) {
        return Err(OAuthError::NoCode {
            provider: provider.to_owned(),
            input: line.to_owned(),
        });
    }
    Ok(Answer {
        code: code.to_owned(),
        state,
        iss: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_answers_in_each_form() {
        let url = parse_pasted(
            "p",
            "http://localhost:1455/auth/callback?code=a%2Bb&state=s1",
        )
        .unwrap();
        assert_eq!(
            (url.code.as_str(), url.state.as_deref()),
            ("a+b", Some("s1"))
        );
        let hash = parse_pasted("p", " c0de#st8 \n").unwrap();
        assert_eq!(
            (hash.code.as_str(), hash.state.as_deref()),
            ("c0de", Some("st8"))
        );
        let bare = parse_pasted("p", "c0de").unwrap();
        assert_eq!((bare.code.as_str(), bare.state), ("c0de", None));
        assert!(parse_pasted("p", "http://localhost/cb?error=denied").is_err());
        assert!(parse_pasted("p", "two words").is_err());
    }
}
