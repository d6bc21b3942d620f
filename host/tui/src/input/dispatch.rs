//! The slash commands the UI runs itself, and what `/reload` and a theme change read again.

use super::tree::TreeFilter;
use super::{Action, Ui};
use crate::complete::Completer;
use crate::keys::Keymap;
use pi_app::App;
use std::time::{Duration, Instant};

impl Ui {
    /// Switches to the theme called `name`.
    pub fn use_theme(&mut self, name: &str) {
        self.theme_spec.0 = name.to_owned();
        self.load_theme();
    }

    /// The theme the options name (warnings go to the transcript); its file is watched.
    pub(super) fn load_theme(&mut self) {
        let (name, dirs, files) = &self.theme_spec;
        let choice = match &self.package_themes {
            Some(package) => {
                let dirs = [dirs.as_slice(), &package.dirs].concat();
                let files = [files.as_slice(), &package.files].concat();
                crate::theme::choose(name, &dirs, &files)
            }
            None => crate::theme::choose(name, dirs, files),
        };
        for warning in choice.warnings {
            self.transcript.notice(warning, true);
        }
        self.theme = choice.theme;
        self.theme_file = choice.path.map(|p| {
            let modified = modified(&p);
            (p, modified)
        });
    }

    /// `/reload`: extensions, skills, prompt templates and context files (through the App),
    /// then the keybindings, the theme and the commands offered after `/`.
    pub(super) fn reload(&mut self, app: &App) {
        let reloaded = app.reload();
        self.renderers = app.renderers();
        if self.package_themes.is_some() {
            self.package_themes = Some(app.package_themes());
        }
        if let Some(path) = &self.keybindings_path {
            let (keymap, warnings) = Keymap::load(path);
            self.keymap = keymap;
            for warning in warnings {
                self.transcript.notice(warning, true);
            }
        }
        self.load_theme();
        self.completer = Completer::new(&self.cwd, commands_of(app), self.max_completions);
        let what = match reloaded {
            Some(found) => {
                for warning in &found.warnings {
                    self.transcript.notice(warning.clone(), true);
                }
                let extensions = if found.extensions.is_empty() {
                    "none".to_owned()
                } else {
                    found.extensions.join(", ")
                };
                format!(
                    "extensions ({extensions}), skills ({}), prompt templates ({}), context files",
                    found.skills, found.templates
                )
            }
            None => "nothing from disk".to_owned(),
        };
        self.transcript.notice(
            format!("Reloaded {what}, keybindings and the theme."),
            false,
        );
    }

    /// Loads the theme again when its file changed (checked once a second); whether it did.
    pub fn reload_theme(&mut self) -> bool {
        if self
            .theme_checked
            .is_some_and(|at| at.elapsed() < Duration::from_secs(1))
        {
            return false;
        }
        self.theme_checked = Some(Instant::now());
        let Some((path, seen)) = &mut self.theme_file else {
            return false;
        };
        let now = modified(path);
        if now == *seen {
            return false;
        }
        *seen = now;
        let choice = crate::theme::load(path);
        for warning in choice.warnings {
            self.transcript.notice(warning, true);
        }
        self.theme = choice.theme;
        true
    }

    /// The commands this UI runs itself; `None` for text to send.
    pub(super) fn command(&mut self, text: &str, app: &App) -> Option<Action> {
        use crate::commands::Command;
        Some(match crate::commands::parse(text, app) {
            Command::NotMine => return None,
            Command::Say(text, error) => {
                self.transcript.notice(text, error);
                Action::None
            }
            Command::Quit => Action::Exit,
            Command::Compact(focus) => Action::Compact(focus),
            Command::Reloaded(done) => Action::Reload(done),
            Command::PickPrompt(fork) => {
                self.open_back_to(app, fork);
                Action::None
            }
            Command::Bash { command, exclude } => Action::Bash { command, exclude },
            Command::CopyLastAnswer => {
                self.copy_last_answer(app);
                Action::None
            }
            Command::PickModel => {
                self.open_model_picker(app);
                Action::None
            }
            Command::Import(file) => return Some(self.import(&file)),
            Command::Reload => {
                self.reload(app);
                Action::None
            }
            Command::ScopedModels => {
                self.open_scoped_models(app, None);
                Action::None
            }
            Command::Tree => {
                self.open_tree(app, TreeFilter::Default);
                Action::None
            }
            Command::Rewind => {
                self.open_rewind(app);
                Action::None
            }
            Command::Settings => {
                self.open_settings(app, 0);
                Action::None
            }
            Command::Trust(trusted) => {
                self.save_trust(trusted);
                Action::None
            }
            Command::Login(provider) => {
                self.login(provider, app);
                Action::None
            }
            Command::Logout(provider) => {
                self.logout(provider, app);
                Action::None
            }
            Command::PickSession => {
                self.open_session_picker(app);
                Action::None
            }
            Command::PickMode => {
                self.open_mode_picker(app);
                Action::None
            }
            Command::Mcp(args) => self.mcp_command(&args, app),
            Command::Hotkeys => {
                self.transcript.notice(self.keymap.describe(), false);
                Action::None
            }
        })
    }
}

/// The session's commands offered after `/` (skills only while `enableSkillCommands`).
/// An extension's command says which package serves it.
pub(super) fn commands_of(app: &App) -> Vec<(String, String)> {
    let skills = crate::commands::skill_commands(app);
    let mut commands: Vec<(String, String)> = app
        .extension_commands()
        .into_iter()
        .map(|c| {
            let described = format!("{} ({})", c.info.description, c.source);
            (c.info.name, described)
        })
        .collect();
    commands.extend(
        app.commands()
            .into_iter()
            .filter(|c| c.source != pi_app::app::CommandSource::Extension)
            .filter(|c| skills || !c.name.starts_with("skill:"))
            .map(|c| (c.name, c.description)),
    );
    commands
}

fn modified(path: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}
