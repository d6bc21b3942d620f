//! `/reload`: the extensions (tools, compactors, renderers, the skills, prompt templates,
//! themes and agent definitions they ship), then skills, prompt templates, agent definitions,
//! context files and the system prompt, all found again the way start-up found them; the tools
//! get the path policy of the settings as they are now.

use super::App;
use crate::agent_session::AgentSession;
use crate::extensions::{ExtensionCompactor, Extensions};
use crate::startup::{enabled_tools, load_extensions, load_trusted_settings, policy_flags};
use crate::tool_policy::tool_policy;
use crate::tools::ToolSource;
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
        let mut found = None;
        let mut hooks = None;
        if let Some(host) = &self.host {
            let (opts, env, trusted) = search.startup();
            let (settings, code_approved) = if trusted {
                load_trusted_settings(opts, env, &mut report.warnings)
            } else {
                (SettingsManager::load(&env.agent_dir, &env.cwd, false), true)
            };
            let project_code = trusted && code_approved;
            let mut extensions = load_extensions(opts, env, &settings, project_code, host);
            let (names, tool_warnings) = enabled_tools(opts, &extensions.tool_names());
            report.warnings.append(&mut extensions.warnings);
            report.warnings.extend(tool_warnings);
            report
                .warnings
                .extend(self.providers_needing_restart(&extensions));
            search.set_extensions(&extensions, &names);
            let resources = search.load();
            let (opts, env, _) = search.startup();
            let readable = search.readable_roots(&resources.skills);
            let flags = policy_flags(opts, env);
            match tool_policy(flags, &settings, readable, &mut report.warnings) {
                Ok(policy) => {
                    // The session's checkpoints go on recording what the new tools change.
                    let recorder = self.session.checkpoints().cloned();
                    let source = ToolSource::new(
                        &names,
                        (&env.cwd, &env.agent_dir),
                        &extensions,
                        &settings,
                        &policy,
                    )
                    .with_checkpoints(recorder);
                    let tools = self.tools_from(&source, host, self.permission_mode());
                    self.session.set_tools(tools);
                    lock(&self.rebuild).tools = Some(source);
                }
                Err(error) => report.warnings.push(format!(
                    "Warning: the tools were not reloaded and keep their start-up policy: {error}"
                )),
            }
            self.session
                .set_compactors(compactors(&extensions, &self.session));
            self.session
                .set_writing_tools(crate::extensions::writing_tools(&extensions));
            lock(&self.package_grants).clone_from(&extensions.granted);
            *lock(&self.renderers) = extensions.renderers.clone();
            let mut all = extensions.hooks.clone();
            all.extend(lock(&self.command_hooks).iter().cloned());
            hooks = Some(all);
            *lock(&self.themes) = extensions.themes.clone();
            report.extensions = extensions.loaded.clone();
            found = Some(resources);
        }
        let found = found.unwrap_or_else(|| search.load());
        report.skills = found.skills.skills.len();
        report.templates = found.templates.templates.len();
        *lock(&self.skills) = found.skills;
        *lock(&self.templates) = found.templates;
        self.session
            .set_system_prompt(crate::permissions::plan::prompt_sections(
                &found.prompt_options,
                &found.prompt_sources,
                self.permission_mode(),
            ));
        lock(&self.rebuild).prompt = Some((found.prompt_options, found.prompt_sources));
        let agents = search.agents();
        report.warnings.extend(agents.warnings.iter().cloned());
        *lock(&self.agents) = agents;
        self.offer_subagents();
        drop(search_slot);
        if let Some(hooks) = hooks {
            report.warnings.extend(self.set_hooks(hooks));
            self.announce_session(pi_ext_api::hooks::SessionStartReason::Reload);
        }
        Some(report)
    }

    /// Provider packages serve models the registry learnt at start-up; one that is new
    /// since then is used after a restart.
    fn providers_needing_restart(&self, extensions: &Extensions) -> Vec<String> {
        extensions
            .providers
            .iter()
            .flat_map(|p| p.models())
            .filter(|m| !self.registry.contains(&m.provider, &m.id))
            .map(|m| {
                format!(
                    "The model {}/{} of a new provider extension is available after a restart.",
                    m.provider, m.id
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::App;
    use crate::startup::{Base, StartupEnv, StartupOptions, prepare};

    fn agent(name: &str) -> String {
        format!("---\nname: {name}\ndescription: The {name} agent\n---\nYou are {name}.\n")
    }

    /// An app started the way `pi` starts, with its agent dir and project in `root`.
    fn started(root: &std::path::Path) -> App {
        let opts = StartupOptions {
            provider: Some("anthropic".into()),
            model: Some("claude-sonnet-4-5".into()),
            api_key: Some("test-key".into()),
            no_session: true,
            offline: true,
            approve: Some(false),
            ..StartupOptions::default()
        };
        let env = StartupEnv {
            cwd: root.join("project"),
            agent_dir: root.join("agent"),
            home_dir: None,
        };
        let base = Base::load(&opts, env).unwrap();
        App::new(prepare(&opts, base).unwrap(), Vec::new())
    }

    #[tokio::test]
    async fn reload_looks_for_agent_definitions_again() {
        let root = tempfile::tempdir().unwrap();
        let agents = root.path().join("agent").join("agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::create_dir_all(root.path().join("project")).unwrap();
        std::fs::write(agents.join("scout.md"), agent("scout")).unwrap();
        let app = started(root.path());
        let names = |app: &App| -> Vec<String> {
            let found = app.agent_definitions();
            found.agents.iter().map(|a| a.name.clone()).collect()
        };
        assert_eq!(names(&app), ["scout"]);

        std::fs::write(agents.join("worker.md"), agent("worker")).unwrap();
        std::fs::write(agents.join("broken.md"), "---\nname: broken\n---\n").unwrap();
        let report = app.reload().unwrap();
        assert_eq!(names(&app), ["scout", "worker"]);
        let warning = format!(
            "Warning (agents): {}: not loaded: description is required",
            agents.join("broken.md").display()
        );
        assert!(report.warnings.contains(&warning), "{:#?}", report.warnings);
        assert_eq!(app.agent_definitions().warnings, [warning]);
    }
}
