//! `/reload`: the extensions (tools, compactors, renderers, the skills, prompt templates and
//! themes they ship), then skills, prompt templates, context files and the system prompt, all found
//! again the way start-up found them.

use super::App;
use crate::agent_session::AgentSession;
use crate::extensions::{ExtensionCompactor, Extensions};
use crate::startup::{enabled_tools, load_extensions};
use pi_ai::lock;
use pi_ext_api::CompactionOverride;
use pi_session::settings::SettingsManager;
use std::sync::Arc;

/// What a reload found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reloaded {
    pub skills: usize,
    pub templates: usize,
    /// `name@version` of each extension package loaded now.
    pub extensions: Vec<String>,
    /// Packages that could not be loaded, and providers that need a restart.
    pub warnings: Vec<String>,
}

/// The session's compactors for `extensions`' compactor components.
pub(super) fn compactors(
    extensions: &Extensions,
    session: &AgentSession,
) -> Vec<Arc<dyn CompactionOverride>> {
    extensions
        .compactors
        .iter()
        .map(|component| {
            Arc::new(ExtensionCompactor::new(
                Arc::clone(component),
                session.downgrade(),
            )) as Arc<dyn CompactionOverride>
        })
        .collect()
}

impl App {
    /// `/reload`. `None` for an App not built by start-up (nothing to look again with).
    pub fn reload(&self) -> Option<Reloaded> {
        let mut search_slot = lock(&self.resource_search);
        let search = search_slot.as_mut()?;
        let mut report = Reloaded::default();
        if let Some(host) = &self.host {
            let (opts, env, trusted) = search.startup();
            let settings = SettingsManager::load(&env.agent_dir, &env.cwd, trusted);
            let mut extensions = load_extensions(opts, env, &settings, trusted, host);
            let (names, tool_warnings) = enabled_tools(opts, &extensions.tool_names());
            report.warnings.append(&mut extensions.warnings);
            report.warnings.extend(tool_warnings);
            report
                .warnings
                .extend(self.providers_needing_restart(&extensions));
            let command_env = self.session.with_session(|session| {
                crate::tools::command_env(session, &self.model(), self.thinking_level())
            });
            let session_id = self.session.with_session(|s| s.session_id().to_owned());
            let model_images = self.session.model_images();
            let tools = crate::tools::tools(
                &names,
                &env.cwd,
                host,
                &extensions,
                crate::tools::SessionFacts {
                    session_id: &session_id,
                    command_env,
                    model_images: &model_images,
                },
                &settings,
            );
            self.session.agent().set_tools(tools);
            self.session
                .set_compactors(compactors(&extensions, &self.session));
            *lock(&self.renderers) = extensions.renderers.clone();
            *lock(&self.themes) = extensions.themes.clone();
            search.set_extensions(&extensions, &names);
            report.extensions = extensions.loaded.clone();
        }
        let found = search.load();
        report.skills = found.skills.skills.len();
        report.templates = found.templates.templates.len();
        *lock(&self.skills) = found.skills;
        *lock(&self.templates) = found.templates;
        self.session.agent().set_system_prompt(found.system_prompt);
        Some(report)
    }

    /// Provider packages serve models the registry learnt at start-up; one that is new
    /// since then is used after a restart.
    fn providers_needing_restart(&self, extensions: &Extensions) -> Vec<String> {
        extensions
            .providers
            .iter()
            .flat_map(|p| p.models())
            .filter(|m| self.registry.find(&m.provider, &m.id).is_none())
            .map(|m| {
                format!(
                    "The model {}/{} of a new provider extension is available after a restart.",
                    m.provider, m.id
                )
            })
            .collect()
    }
}
