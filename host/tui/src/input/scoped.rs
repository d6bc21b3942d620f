//! `/scoped-models`: the models Ctrl+P cycles through, edited in place. The enabled models come
//! first, in cycle order, each with its thinking level when it has one (`provider/id:high`, as
//! `enabledModels` writes it); the other models with credentials follow.

use super::{Action, Ui};
use crate::keys::Binding;
use crate::picker::{Entry, Picker, Purpose};
use pi_ai::{Model, ThinkingLevel, supported_thinking_levels};
use pi_app::App;
use pi_app::model_select::ScopedModel;
use ratatui::crossterm::event::KeyEvent;

/// A change to the cycle list, at the selected model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edit {
    /// In or out of the cycle (Enter).
    Toggle,
    /// Every model of its provider in, or all of them out when all are in.
    ToggleProvider,
    /// One place earlier or later in the cycle.
    MoveUp,
    MoveDown,
    /// Its thinking level: none (the session's), then each level the model supports.
    CycleThinking,
    EnableAll,
    ClearAll,
}

impl Ui {
    /// Opens the editor with the cursor on `select` (a `provider/id`), else the first row.
    pub(super) fn open_scoped_models(&mut self, app: &App, select: Option<&str>) {
        let scoped = app.scoped_models();
        let rest = app
            .all_available_models()
            .into_iter()
            .filter(|m| !scoped.iter().any(|s| same(&s.model, m)));
        let enabled = scoped.iter().map(|s| (s.model.clone(), true, s.thinking));
        let entries: Vec<Entry> = enabled
            .chain(rest.map(|m| (m, false, None)))
            .map(|(model, on, thinking)| {
                let id = model_id(&model);
                let suffix = thinking.map(|l| format!(":{}", l.as_str()));
                Entry {
                    label: format!(
                        "[{}] {id}{}",
                        if on { "x" } else { " " },
                        suffix.unwrap_or_default()
                    ),
                    detail: model.name.clone(),
                    search_text: String::new(),
                    value: id,
                }
            })
            .collect();
        let mut picker = Picker::new(
            Purpose::ScopedModels,
            "Scoped models (Enter: toggle, Ctrl+P: the provider's, Alt+Up/Down: order, \
             Shift+Tab: thinking, Ctrl+S: save as enabledModels, Esc: close; none marked: all)",
            entries,
        );
        if let Some(id) = select {
            picker.select_value(id);
        }
        self.open_picker(picker);
    }

    /// The editing keys of the open editor; `None` when `key` is not one of them.
    pub(super) fn scoped_models_key(
        &mut self,
        key: &KeyEvent,
        app: &App,
        selected: Option<Entry>,
    ) -> Option<Action> {
        let is = |binding| self.keymap.is(key, binding);
        if is(Binding::ModelsSave) {
            self.close_picker();
            match app.set_scoped_models(app.scoped_models(), true) {
                Ok(()) => self.transcript.notice(
                    "Saved the models Ctrl+P cycles through (enabledModels).".into(),
                    false,
                ),
                Err(error) => self.notice(error.to_string()),
            }
            return Some(Action::None);
        }
        let edit = [
            (Binding::ModelsEnableAll, Edit::EnableAll),
            (Binding::ModelsClearAll, Edit::ClearAll),
            (Binding::ModelsToggleProvider, Edit::ToggleProvider),
            (Binding::ModelsReorderUp, Edit::MoveUp),
            (Binding::ModelsReorderDown, Edit::MoveDown),
            (Binding::CycleThinking, Edit::CycleThinking),
        ]
        .into_iter()
        .find(|(binding, _)| is(*binding))
        .map(|(_, edit)| edit)?;
        let id = selected.map(|e| e.value).unwrap_or_default();
        self.edit_scoped(app, &id, edit);
        Some(Action::None)
    }

    /// Applies `edit` at model `id` (in memory: Ctrl+S saves) and reopens the editor on it.
    pub(super) fn edit_scoped(&mut self, app: &App, id: &str, edit: Edit) {
        let mut scoped = app.scoped_models();
        apply(&mut scoped, &app.all_available_models(), id, edit);
        if let Err(error) = app.set_scoped_models(scoped, false) {
            self.notice(error.to_string());
        }
        self.close_picker();
        self.open_scoped_models(app, Some(id));
    }
}

fn model_id(model: &Model) -> String {
    format!("{}/{}", model.provider, model.id)
}

fn same(a: &Model, b: &Model) -> bool {
    a.provider == b.provider && a.id == b.id
}

/// `edit` applied at model `id` to the cycle list `scoped`; `all` are the models with
/// credentials.
fn apply(scoped: &mut Vec<ScopedModel>, all: &[Model], id: &str, edit: Edit) {
    let at = scoped.iter().position(|s| model_id(&s.model) == id);
    let model = all.iter().find(|m| model_id(m) == id);
    let enable = |scoped: &mut Vec<ScopedModel>, model: &Model| {
        if !scoped.iter().any(|s| same(&s.model, model)) {
            scoped.push(ScopedModel {
                model: model.clone(),
                thinking: None,
            });
        }
    };
    match edit {
        Edit::Toggle => match (at, model) {
            (Some(i), _) => {
                scoped.remove(i);
            }
            (None, Some(model)) => enable(scoped, model),
            (None, None) => {}
        },
        Edit::ToggleProvider => {
            let Some(provider) = model
                .map(|m| m.provider.clone())
                .or_else(|| at.map(|i| scoped[i].model.provider.clone()))
            else {
                return;
            };
            let of_provider: Vec<&Model> = all.iter().filter(|m| m.provider == provider).collect();
            let all_in = of_provider
                .iter()
                .all(|m| scoped.iter().any(|s| same(&s.model, m)));
            if all_in {
                scoped.retain(|s| s.model.provider != provider);
            } else {
                for model in of_provider {
                    enable(scoped, model);
                }
            }
        }
        Edit::MoveUp => {
            if let Some(i) = at.filter(|&i| i > 0) {
                scoped.swap(i, i - 1);
            }
        }
        Edit::MoveDown => {
            if let Some(i) = at.filter(|&i| i + 1 < scoped.len()) {
                scoped.swap(i, i + 1);
            }
        }
        Edit::CycleThinking => {
            if let Some(i) = at {
                let entry = &mut scoped[i];
                entry.thinking = next_level(&entry.model, entry.thinking);
            }
        }
        Edit::EnableAll => {
            for model in all {
                enable(scoped, model);
            }
        }
        Edit::ClearAll => scoped.clear(),
    }
}

/// None (the session's level) → each level `model` supports → None.
fn next_level(model: &Model, current: Option<ThinkingLevel>) -> Option<ThinkingLevel> {
    let levels = supported_thinking_levels(model);
    match current {
        None => levels.first().copied(),
        Some(level) => levels
            .iter()
            .position(|l| *l == level)
            .and_then(|i| levels.get(i + 1))
            .copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: &str, id: &str, reasoning: bool) -> Model {
        Model {
            id: id.into(),
            provider: provider.into(),
            reasoning,
            ..super::super::tests::model(id, id, 1000)
        }
    }

    fn ids(scoped: &[ScopedModel]) -> Vec<String> {
        scoped
            .iter()
            .map(|s| match s.thinking {
                Some(level) => format!("{}:{}", model_id(&s.model), level.as_str()),
                None => model_id(&s.model),
            })
            .collect()
    }

    #[test]
    fn edits_keep_the_cycle_order_and_each_models_level() {
        let all = [
            model("a", "one", true),
            model("a", "two", false),
            model("b", "three", false),
        ];
        let mut scoped = Vec::new();
        apply(&mut scoped, &all, "b/three", Edit::Toggle);
        apply(&mut scoped, &all, "a/one", Edit::ToggleProvider);
        assert_eq!(ids(&scoped), ["b/three", "a/one", "a/two"]);
        apply(&mut scoped, &all, "a/one", Edit::MoveUp);
        apply(&mut scoped, &all, "a/one", Edit::MoveUp);
        // Already first: stays.
        apply(&mut scoped, &all, "a/one", Edit::MoveUp);
        apply(&mut scoped, &all, "b/three", Edit::MoveDown);
        assert_eq!(ids(&scoped), ["a/one", "a/two", "b/three"]);
        for _ in 0..4 {
            apply(&mut scoped, &all, "a/one", Edit::CycleThinking);
        }
        assert_eq!(ids(&scoped)[0], "a/one:medium");
        apply(&mut scoped, &all, "a/one", Edit::CycleThinking);
        apply(&mut scoped, &all, "a/one", Edit::CycleThinking);
        // Past `high`: back to the session's level.
        assert_eq!(ids(&scoped)[0], "a/one");
        // A model without reasoning has one level to pin: off.
        apply(&mut scoped, &all, "a/two", Edit::CycleThinking);
        assert_eq!(ids(&scoped)[1], "a/two:off");
        // All of a provider in: the provider key takes them all out.
        apply(&mut scoped, &all, "a/two", Edit::ToggleProvider);
        assert_eq!(ids(&scoped), ["b/three"]);
        apply(&mut scoped, &all, "b/three", Edit::EnableAll);
        assert_eq!(ids(&scoped), ["b/three", "a/one", "a/two"]);
        apply(&mut scoped, &all, "", Edit::ClearAll);
        assert!(scoped.is_empty());
    }
}
