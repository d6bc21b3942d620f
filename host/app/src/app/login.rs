//! Signing in from a session (`/login` in the terminal UI, `/mcp login`): what the sign-in
//! shows goes out as notices, the browser opens when the face asks for it, and the browser's
//! loopback callback (or the device code typed on the provider's page) finishes it.

use super::{App, AppError};
use pi_ai::oauth::{LoginOptions, LoginUi, SignIn};
use pi_ext_api::hooks::{NotifyLevel, UserInterface};
use std::time::Duration;

/// How long a sign-in waits for the browser or the device code before it gives up.
pub(super) const LOGIN_WAIT: Duration = Duration::from_secs(300);

/// The sign-in's side in a session: the URL or the device code as notices; the browser's
/// loopback callback (or the provider's page) finishes it, or a line the face passes on
/// (a pasted redirect, for a browser on another machine).
pub(super) struct NoticeLogin {
    pub(super) ui: std::sync::Arc<crate::hooks::UiBridge>,
    /// What is signed in to, as the notices name it.
    pub(super) what: String,
    /// Whether to open the browser too (the terminal UI; an RPC client shows the URL itself).
    pub(super) browser: bool,
    /// Where a pasted line comes from, if the face takes one.
    pub(super) pasted: Option<tokio::sync::Mutex<Pasted>>,
}

/// The lines a face passes on to a sign-in (`/login`'s paste prompt).
pub type Pasted = tokio::sync::mpsc::UnboundedReceiver<String>;

impl LoginUi for NoticeLogin {
    fn show_url(&self, url: &str) {
        let what = &self.what;
        let text = format!("Sign in to {what} in your browser:\n{url}");
        self.ui.notify("login", &text, NotifyLevel::Info);
        if self.browser {
            pi_ai::oauth::open_browser(url);
        }
    }

    fn show_device_code(&self, verification_uri: &str, user_code: &str) {
        let what = &self.what;
        let text =
            format!("Sign in to {what}: open {verification_uri} and enter the code {user_code}");
        self.ui.notify("login", &text, NotifyLevel::Info);
        if self.browser {
            pi_ai::oauth::open_browser(verification_uri);
        }
    }

    fn progress(&self, message: &str) {
        self.ui.notify("login", message, NotifyLevel::Info);
    }

    fn read_line(&self) -> pi_agent::BoxFuture<'_, Option<String>> {
        Box::pin(async {
            match &self.pasted {
                Some(lines) => lines.lock().await.recv().await,
                None => None,
            }
        })
    }
}

impl App {
    /// The providers `/login` can sign in to with a subscription, with what one signs in with.
    pub fn subscription_logins(&self) -> Vec<(&'static str, &'static str)> {
        SignIn::ALL
            .iter()
            .map(|s| (s.provider(), s.description()))
            .collect()
    }

    /// `/login`'s subscription sign-in to `provider` (as `pi auth login` does it), the
    /// credential stored in `auth.json`; what to say. `pasted` brings the line the user pastes
    /// instead (the redirect their browser ended on), for the flows that take one.
    pub async fn login_subscription(
        &self,
        provider: &str,
        browser: bool,
        pasted: Option<Pasted>,
    ) -> (String, NotifyLevel) {
        let Some(sign_in) = SignIn::for_provider(provider) else {
            return (
                format!(
                    "{provider} has no subscription sign-in; /login {provider} stores an API key."
                ),
                NotifyLevel::Error,
            );
        };
        let ui = NoticeLogin {
            ui: self.ui.clone(),
            what: provider.to_owned(),
            browser,
            pasted: pasted.map(tokio::sync::Mutex::new),
        };
        let options = LoginOptions::default();
        let login = sign_in.login(&ui, &options);
        let stored = match tokio::time::timeout(LOGIN_WAIT, login).await {
            Ok(Ok(credential)) => self.auth.set(provider, &credential).map_err(AppError::from),
            Ok(Err(error)) => return (format!("Sign-in failed: {error}"), NotifyLevel::Error),
            Err(_) => {
                let minutes = LOGIN_WAIT.as_secs() / 60;
                return (
                    format!("Sign-in to {provider} timed out after {minutes} minutes."),
                    NotifyLevel::Error,
                );
            }
        };
        match stored {
            Ok(()) => (
                format!(
                    "Signed in to {provider} ({}); saved in auth.json.",
                    sign_in.description()
                ),
                NotifyLevel::Info,
            ),
            Err(error) => (error.to_string(), NotifyLevel::Error),
        }
    }
}
