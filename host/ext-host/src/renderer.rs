//! Renderer components as [`MessageRenderer`]s: custom messages and tool results drawn as
//! styled lines. The UI asks synchronously, so each call runs under a watchdog
//! (`watchdog.rs`) that the UI thread waits on: a renderer that never answers costs the UI its
//! deadline once per question, never a hang.

use crate::bindings::types as wit;
use crate::component::{LoadedComponent, Pre};
use crate::error::{Cause, ExtensionError};
use crate::state::CallContext;
use crate::watchdog::{self, Watch};
use pi_ext_api::{ExtensionFailure, MessageRenderer, RenderTarget, Span, Style, StyledLine};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A renderer component and what it draws.
pub struct ComponentRenderer {
    component: Arc<LoadedComponent>,
    custom_types: Vec<String>,
    tool_names: Vec<String>,
}

fn subject(target: &RenderTarget<'_>) -> wit::RenderSubject {
    match target {
        RenderTarget::CustomMessage {
            custom_type,
            payload,
        } => wit::RenderSubject::CustomMessage(wit::CustomMessage {
            custom_type: (*custom_type).to_owned(),
            payload: payload.to_string(),
        }),
        RenderTarget::ToolResult {
            tool_name,
            arguments,
            content,
            details,
            is_error,
            expanded,
        } => wit::RenderSubject::ToolResult(wit::RenderedToolResult {
            tool_name: (*tool_name).to_owned(),
            arguments: arguments.to_string(),
            result: wit::ToolResult {
                content: content.iter().map(crate::convert::content_block).collect(),
                details: Some(details.to_string()),
                is_error: *is_error,
            },
            expanded: *expanded,
        }),
    }
}

fn line(spans: wit::StyledLine) -> StyledLine {
    spans
        .into_iter()
        .map(|s| Span {
            text: s.text.replace(['\n', '\r'], " "),
            style: Style {
                fg: s.style.fg,
                bg: s.style.bg,
                bold: s.style.bold,
                italic: s.style.italic,
                dim: s.style.dim,
                underline: s.style.underline,
            },
        })
        .collect()
}

/// The context of one renderer call.
fn context(component: &LoadedComponent, watch: Watch) -> CallContext {
    let mut context = CallContext::new(component.grant.limits.timeout);
    context.watch = watch;
    context
}

/// Runs `call` on its own thread and waits for it, at most until its deadline.
fn bounded<T, F>(component: &Arc<LoadedComponent>, call: F) -> Result<T, ExtensionError>
where
    T: Send + 'static,
    F: FnOnce(&LoadedComponent, Watch) -> Result<T, ExtensionError> + Send + 'static,
{
    let loaded = component.clone();
    watchdog::spawn(
        &component.extension,
        CancellationToken::new(),
        move |watch| call(&loaded, watch),
    )?
    .wait_blocking()
}

impl ComponentRenderer {
    /// Asks the component what it draws.
    pub fn load(component: Arc<LoadedComponent>) -> Result<Self, ExtensionError> {
        let (custom_types, tool_names) = bounded(&component, |component, watch| {
            let Pre::Renderer(pre) = &component.pre else {
                return Err(component.error(Cause::Runtime("not a renderer component".into())));
            };
            let mut store = component.store(context(component, watch))?;
            pre.subjects(&mut store)
                .map_err(|e| component.classify(&e, &store))
        })?;
        Ok(ComponentRenderer {
            component,
            custom_types,
            tool_names,
        })
    }

    pub fn custom_types(&self) -> &[String] {
        &self.custom_types
    }

    pub fn tool_names(&self) -> &[String] {
        &self.tool_names
    }

    /// Whether this renderer draws `target`.
    fn handles_target(&self, target: &RenderTarget<'_>) -> bool {
        match target {
            RenderTarget::CustomMessage { custom_type, .. } => {
                self.custom_types.iter().any(|t| t == custom_type)
            }
            RenderTarget::ToolResult { tool_name, .. } => {
                self.tool_names.iter().any(|t| t == tool_name)
            }
        }
    }

    /// Renders `target` at most `width` cells wide; `Ok(None)` lets pi draw it.
    pub fn render_target(
        &self,
        target: &RenderTarget<'_>,
        width: u32,
    ) -> Result<Option<Vec<StyledLine>>, ExtensionError> {
        let subject = subject(target);
        let lines = bounded(&self.component, move |component, watch| {
            let Pre::Renderer(pre) = &component.pre else {
                return Err(component.error(Cause::Runtime("not a renderer component".into())));
            };
            let mut store = component.store(context(component, watch))?;
            pre.render(&mut store, &subject, width)
                .map_err(|e| component.classify(&e, &store))
        })?;
        Ok(lines.map(|lines| lines.into_iter().map(line).collect()))
    }
}

impl MessageRenderer for ComponentRenderer {
    fn handles(&self, target: &RenderTarget<'_>) -> bool {
        self.handles_target(target)
    }

    fn render(
        &self,
        target: &RenderTarget<'_>,
        width: u32,
    ) -> Result<Option<Vec<StyledLine>>, ExtensionFailure> {
        self.render_target(target, width)
            .map_err(|e| ExtensionFailure(e.to_string()))
    }
}
