//! The terminal face of a login: URLs and device codes on stderr, the browser opened when
//! allowed ([`pi_ai::oauth::open_browser`], `PI_OAUTH_BROWSER`), pasted answers and API keys
//! read from stdin.

use super::AuthCliError;
use futures::future::BoxFuture;
use pi_ai::oauth::{LoginUi, SignIn};
use std::io::{BufRead, IsTerminal};

pub struct CliLoginUi {
    sign_in: SignIn,
    open_browser: bool,
}

impl CliLoginUi {
    pub fn new(sign_in: SignIn, open_browser: bool) -> Self {
        CliLoginUi {
            sign_in,
            open_browser,
        }
    }
}

impl LoginUi for CliLoginUi {
    fn show_url(&self, url: &str) {
        eprintln!(
            "Sign in to {} — {}.\nOpen this URL in a browser:\n\n{url}\n",
            self.sign_in.provider(),
            self.sign_in.description()
        );
        if self.open_browser {
            pi_ai::oauth::open_browser(url);
        }
    }

    fn show_device_code(&self, verification_uri: &str, user_code: &str) {
        eprintln!(
            "Sign in to {}: open {verification_uri} and enter the code {user_code}\n",
            self.sign_in.provider()
        );
        if self.open_browser {
            pi_ai::oauth::open_browser(verification_uri);
        }
    }

    fn progress(&self, message: &str) {
        eprintln!("{message}");
    }

    /// Reads on a plain thread, not the runtime's blocking pool: when the browser's callback
    /// wins, the read is still waiting on the terminal, and the runtime's shutdown would wait
    /// for it; the process exit ends a plain thread.
    fn read_line(&self) -> BoxFuture<'_, Option<String>> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let read = match std::io::stdin().lock().read_line(&mut line) {
                Ok(n) if n > 0 => Some(line),
                _ => None,
            };
            let _ = tx.send(read);
        });
        Box::pin(async move { rx.await.ok().flatten() })
    }
}

/// An API key from stdin (prompted for on a terminal).
pub fn read_api_key(provider: &str) -> Result<String, AuthCliError> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprint!("API key for {provider}: ");
    }
    let mut line = String::new();
    stdin
        .lock()
        .read_line(&mut line)
        .map_err(|e| AuthCliError::Message(format!("cannot read the API key from stdin: {e}")))?;
    let key = line.trim();
    if key.is_empty() {
        return Err(AuthCliError::Message(format!(
            "no API key given for {provider}: pass it on stdin, e.g. `printf %s \"$KEY\" | pi auth login {provider} --api-key`"
        )));
    }
    Ok(key.to_owned())
}
