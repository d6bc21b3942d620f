//! The hook pipeline: every [`Hook`] is asked in load order (extension packages first, then the
//! user's command hooks), and their answers combine by fixed rules:
//!
//! - a tool call: the first `block` wins and later hooks are not asked; rewrites chain (each
//!   hook sees the arguments as the earlier ones left them); `ask` goes to the approval rules,
//!   then to the user, and a "no" (or no one to ask) blocks; then the permission mode's gate
//!   (`approval`) has its say on the call as the hooks left it;
//! - a prompt: transforms chain, the first `handled` ends it;
//! - a tool result: replacements chain;
//! - the system prompt of a run: changes chain; the added messages are all kept;
//! - the context of a request: each hook sees the previous hook's list;
//! - a compaction: the first `cancel` wins.
//!
//! A hook that fails (a trap, its deadline, an answer that does not fit) is reported once per
//! hook and event kind (a notice, the log) and counts as allowing, unless it fails closed: then
//! a tool call it was asked about is blocked with a message naming it.

use super::approval::{Approvals, Asking};
use pi_ai::UserBlock;
use pi_ai::{ImageContent, Message, lock};
use pi_ext_api::ExtensionFailure;
use pi_ext_api::hooks::{
    BeforeCompactAnswer, CommandInfo, Hook, HookAnswer, HookEvent, HookEventKind, InputAnswer,
    InputSource, NotifyLevel, OutgoingMessage, SystemPromptChange, ToolCallAnswer,
    ToolResultAnswer, UserInterface,
};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};
use tokio_util::sync::CancellationToken;

/// What becomes of a prompt after the `input` hooks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum InputOutcome {
    Continue {
        text: String,
        images: Vec<ImageContent>,
    },
    Handled,
}

/// What the `before_agent_start` hooks add to a run.
#[derive(Debug, Default)]
pub(crate) struct RunAdditions {
    /// The system prompt for this run, when a hook changed it.
    pub system_prompt: Option<String>,
    pub messages: Vec<OutgoingMessage>,
}

/// A command a hook serves, with who serves it.
#[derive(Clone)]
pub struct HookCommand {
    pub info: CommandInfo,
    pub hook: Arc<dyn Hook>,
}

/// The hooks of a session, in load order.
pub(crate) struct HookPipeline {
    hooks: RwLock<Vec<Arc<dyn Hook>>>,
    /// The same hooks as plan mode runs them: each that could change something replaced by
    /// its read-only copy ([`Hook::read_only`]), in the same order.
    plan_hooks: RwLock<Vec<Arc<dyn Hook>>>,
    /// The commands that were not refused, in load order.
    commands: RwLock<Vec<HookCommand>>,
    ui: Arc<dyn UserInterface>,
    /// (hook source, event kind) failures already reported.
    reported: Mutex<HashSet<(String, HookEventKind)>>,
    /// The permission mode's gate and the approval rules.
    pub(crate) approvals: Approvals,
}

impl HookPipeline {
    pub(crate) fn new(ui: Arc<dyn UserInterface>, mode: crate::permissions::ModeCell) -> Self {
        HookPipeline {
            hooks: RwLock::default(),
            plan_hooks: RwLock::default(),
            commands: RwLock::default(),
            approvals: Approvals::new(mode, Arc::clone(&ui)),
            ui,
            reported: Mutex::default(),
        }
    }

    /// A pipeline for a child run: the same hooks, user interface and approval rules, its calls
    /// gated by the child's own mode. The hooks' commands stay the parent's.
    pub(crate) fn child(&self, mode: crate::permissions::ModeCell) -> HookPipeline {
        HookPipeline {
            hooks: RwLock::new(read(&self.hooks).clone()),
            plan_hooks: RwLock::new(read(&self.plan_hooks).clone()),
            commands: RwLock::default(),
            approvals: self.approvals.child(mode),
            ui: Arc::clone(&self.ui),
            reported: Mutex::default(),
        }
    }

    /// Installs `hooks` (in load order). A command named like one in `taken` (name, owner) or
    /// like an earlier hook's is refused; the warnings say which.
    pub(crate) fn set_hooks(
        &self,
        hooks: Vec<Arc<dyn Hook>>,
        taken: Vec<(String, String)>,
    ) -> Vec<String> {
        let mut taken = taken;
        let mut commands = Vec::new();
        let mut warnings = Vec::new();
        for hook in &hooks {
            for info in hook.commands() {
                if let Some((_, owner)) = taken.iter().find(|(name, _)| *name == info.name) {
                    warnings.push(format!(
                        "{}: command /{} is refused: {owner} already has it",
                        hook.source(),
                        info.name
                    ));
                    continue;
                }
                taken.push((info.name.clone(), hook.source().to_owned()));
                commands.push(HookCommand {
                    info: info.clone(),
                    hook: Arc::clone(hook),
                });
            }
        }
        let plan = hooks
            .iter()
            .map(|hook| hook.read_only().unwrap_or_else(|| Arc::clone(hook)))
            .collect();
        *self.plan_hooks.write().unwrap_or_else(|e| e.into_inner()) = plan;
        *self.hooks.write().unwrap_or_else(|e| e.into_inner()) = hooks;
        *self.commands.write().unwrap_or_else(|e| e.into_inner()) = commands;
        warnings
    }

    /// The hooks as the current mode runs them (read-only copies in plan mode).
    fn current(&self) -> &RwLock<Vec<Arc<dyn Hook>>> {
        if self.approvals.mode() == crate::permissions::PermissionMode::Plan {
            &self.plan_hooks
        } else {
            &self.hooks
        }
    }

    /// The hooks that want `kind`, in order.
    fn wanting(&self, kind: HookEventKind) -> Vec<Arc<dyn Hook>> {
        read(self.current())
            .iter()
            .filter(|hook| hook.wants(kind))
            .cloned()
            .collect()
    }

    pub(crate) fn wants(&self, kind: HookEventKind) -> bool {
        !self.wanting(kind).is_empty()
    }

    /// Asks one hook; `None` after a failure (reported).
    async fn ask(
        &self,
        hook: &Arc<dyn Hook>,
        event: &Arc<HookEvent>,
        cancel: &CancellationToken,
    ) -> Option<HookAnswer> {
        match hook.handle(Arc::clone(event), cancel.clone()).await {
            Ok(answer) => Some(answer),
            Err(failure) => {
                self.report(hook.as_ref(), event.kind(), &failure);
                None
            }
        }
    }

    fn report(&self, hook: &dyn Hook, kind: HookEventKind, failure: &ExtensionFailure) {
        tracing::warn!(hook = hook.source(), ?kind, %failure, "hook failed");
        let first = lock(&self.reported).insert((hook.source().to_owned(), kind));
        if first {
            let what = if hook.fails_closed() && kind == HookEventKind::ToolCall {
                "the tool call was blocked"
            } else {
                "ignored"
            };
            let text = format!("hook failed ({what}): {failure}");
            self.ui.notify(hook.source(), &text, NotifyLevel::Warning);
        }
    }

    /// A hook answered something that does not fit the event.
    fn misfit(&self, hook: &dyn Hook, kind: HookEventKind) {
        let failure = ExtensionFailure(format!(
            "{}: its answer does not fit the {kind:?} event",
            hook.source()
        ));
        self.report(hook, kind, &failure);
    }

    /// Informs every hook that wants it, in order; answers are ignored.
    pub(crate) async fn observe(&self, event: HookEvent) {
        let kind = event.kind();
        let event = Arc::new(event);
        let cancel = CancellationToken::new();
        for hook in self.wanting(kind) {
            self.ask(&hook, &event, &cancel).await;
        }
    }

    /// `input`: transforms chain; the first `handled` ends the prompt.
    pub(crate) async fn input(
        &self,
        text: String,
        images: Vec<ImageContent>,
        source: InputSource,
    ) -> InputOutcome {
        let (mut text, mut images) = (text, images);
        let cancel = CancellationToken::new();
        for hook in self.wanting(HookEventKind::Input) {
            let event = Arc::new(HookEvent::Input {
                text: text.clone(),
                images: images.clone(),
                source,
            });
            match self.ask(&hook, &event, &cancel).await {
                Some(HookAnswer::Input(InputAnswer::Handled)) => return InputOutcome::Handled,
                Some(HookAnswer::Input(InputAnswer::Transform {
                    text: new_text,
                    images: new_images,
                })) => {
                    text = new_text;
                    images = new_images;
                }
                Some(HookAnswer::Input(InputAnswer::Continue)) | None => {}
                Some(_) => self.misfit(hook.as_ref(), HookEventKind::Input),
            }
        }
        InputOutcome::Continue { text, images }
    }

    /// `before_agent_start`: system prompt changes chain, every added message is kept.
    pub(crate) async fn before_agent_start(
        &self,
        prompt: &str,
        system_prompt: &str,
    ) -> RunAdditions {
        let mut additions = RunAdditions::default();
        let mut current = system_prompt.to_owned();
        let cancel = CancellationToken::new();
        for hook in self.wanting(HookEventKind::BeforeAgentStart) {
            let event = Arc::new(HookEvent::BeforeAgentStart {
                prompt: prompt.to_owned(),
                system_prompt: current.clone(),
            });
            match self.ask(&hook, &event, &cancel).await {
                Some(HookAnswer::BeforeAgentStart {
                    system_prompt,
                    message,
                }) => {
                    match system_prompt {
                        Some(SystemPromptChange::Append(text)) => {
                            current = format!("{current}\n\n{text}");
                            additions.system_prompt = Some(current.clone());
                        }
                        Some(SystemPromptChange::Replace(text)) => {
                            current = text;
                            additions.system_prompt = Some(current.clone());
                        }
                        None => {}
                    }
                    additions.messages.extend(message);
                }
                None => {}
                Some(_) => self.misfit(hook.as_ref(), HookEventKind::BeforeAgentStart),
            }
        }
        additions
    }

    /// `context`: each hook sees the list the previous one left; `None` when none changed it.
    pub(crate) async fn context(
        &self,
        messages: Vec<Arc<Message>>,
        cancel: &CancellationToken,
    ) -> Option<Vec<Arc<Message>>> {
        let mut current = messages;
        let mut changed = false;
        for hook in self.wanting(HookEventKind::Context) {
            let event = Arc::new(HookEvent::Context {
                messages: current.clone(),
            });
            match self.ask(&hook, &event, cancel).await {
                Some(HookAnswer::Context(Some(new))) => {
                    current = keep_unchanged(&current, new);
                    changed = true;
                }
                Some(HookAnswer::Context(None)) | None => {}
                Some(_) => self.misfit(hook.as_ref(), HookEventKind::Context),
            }
        }
        changed.then_some(current)
    }

    /// `tool_call`: the first block wins, rewrites chain, `ask` asks the user. `Ok` carries the
    /// arguments to run with, `Err` the reason the call is blocked.
    pub(crate) async fn tool_call(
        &self,
        call_id: &str,
        tool: &str,
        args: Value,
        cancel: &CancellationToken,
    ) -> Result<Value, String> {
        let mut args = args;
        // The user answered for this call already (a hook asked): the mode does not ask again.
        let mut approved = false;
        for hook in self.wanting(HookEventKind::ToolCall) {
            let event = Arc::new(HookEvent::ToolCall {
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                input: args.clone(),
            });
            let answer = match hook.handle(Arc::clone(&event), cancel.clone()).await {
                Ok(answer) => answer,
                Err(failure) => {
                    self.report(hook.as_ref(), HookEventKind::ToolCall, &failure);
                    if hook.fails_closed() {
                        return Err(format!(
                            "Blocked: the hook of {} failed and it fails closed ({failure})",
                            hook.source()
                        ));
                    }
                    continue;
                }
            };
            match answer {
                HookAnswer::ToolCall(ToolCallAnswer::Allow) => {}
                HookAnswer::ToolCall(ToolCallAnswer::Block(reason)) => {
                    return Err(format!("Blocked by {}: {reason}", hook.source()));
                }
                HookAnswer::ToolCall(ToolCallAnswer::Rewrite(new)) => args = new,
                HookAnswer::ToolCall(ToolCallAnswer::Ask(question)) => {
                    let source = hook.source();
                    let why = Asking::Hook {
                        source,
                        question: &question,
                    };
                    self.approvals.approve(tool, &args, why).await?;
                    approved = true;
                }
                _ => {
                    self.misfit(hook.as_ref(), HookEventKind::ToolCall);
                    if hook.fails_closed() {
                        return Err(format!(
                            "Blocked: the hook of {} answered something that does not fit a tool call",
                            hook.source()
                        ));
                    }
                }
            }
        }
        if let Some(mode) = self.approvals.must_ask(tool).filter(|_| !approved) {
            self.approvals
                .approve(tool, &args, Asking::Mode(mode))
                .await?;
        }
        Ok(args)
    }

    /// `tool_result`: replacements chain.
    pub(crate) async fn tool_result(
        &self,
        call_id: &str,
        tool: &str,
        args: &Value,
        content: Vec<UserBlock>,
        is_error: bool,
        cancel: &CancellationToken,
    ) -> Option<(Vec<UserBlock>, bool)> {
        let (mut content, mut is_error) = (content, is_error);
        let mut changed = false;
        for hook in self.wanting(HookEventKind::ToolResult) {
            let event = Arc::new(HookEvent::ToolResult {
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                input: args.clone(),
                content: content.clone(),
                is_error,
            });
            match self.ask(&hook, &event, cancel).await {
                Some(HookAnswer::ToolResult(ToolResultAnswer::Replace {
                    content: new,
                    is_error: error,
                })) => {
                    (content, is_error) = (new, error);
                    changed = true;
                }
                Some(HookAnswer::ToolResult(ToolResultAnswer::Keep)) | None => {}
                Some(_) => self.misfit(hook.as_ref(), HookEventKind::ToolResult),
            }
        }
        changed.then_some((content, is_error))
    }

    /// `before_compact`: the first cancel wins; its reason, naming the hook.
    pub(crate) async fn before_compact(
        &self,
        reason: pi_ext_api::CompactionReason,
        tokens_before: u64,
    ) -> Option<String> {
        let event = Arc::new(HookEvent::BeforeCompact {
            reason,
            tokens_before,
        });
        let cancel = CancellationToken::new();
        for hook in self.wanting(HookEventKind::BeforeCompact) {
            match self.ask(&hook, &event, &cancel).await {
                Some(HookAnswer::BeforeCompact(BeforeCompactAnswer::Cancel(why))) => {
                    return Some(format!("Compaction cancelled by {}: {why}", hook.source()));
                }
                Some(HookAnswer::BeforeCompact(BeforeCompactAnswer::Continue)) | None => {}
                Some(_) => self.misfit(hook.as_ref(), HookEventKind::BeforeCompact),
            }
        }
        None
    }

    /// The hooks' commands that were not refused, in load order.
    pub(crate) fn commands(&self) -> Vec<HookCommand> {
        self.commands
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn command(&self, name: &str) -> Option<HookCommand> {
        self.commands().into_iter().find(|c| c.info.name == name)
    }

    /// Runs a command (in plan mode, by the hook's read-only copy); a failure is shown to the
    /// user as an error notice.
    pub(crate) async fn run_command(&self, command: &HookCommand, args: &str) {
        let index = read(&self.hooks)
            .iter()
            .position(|hook| Arc::ptr_eq(hook, &command.hook));
        let hook = index
            .and_then(|i| read(self.current()).get(i).cloned())
            .unwrap_or_else(|| Arc::clone(&command.hook));
        let result = hook
            .run_command(&command.info.name, args, CancellationToken::new())
            .await;
        if let Err(failure) = result {
            tracing::warn!(command = %command.info.name, %failure, "hook command failed");
            let text = format!("/{} failed: {failure}", command.info.name);
            self.ui
                .notify(command.hook.source(), &text, NotifyLevel::Error);
        }
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

/// A hook's new message list, sharing the messages it left as they were (the hook's side
/// hands those back as the originals: `pi_ext_host`'s `hook_convert::keep_unchanged`).
fn keep_unchanged(before: &[Arc<Message>], after: Vec<Message>) -> Vec<Arc<Message>> {
    after
        .into_iter()
        .enumerate()
        .map(|(index, message)| match before.get(index) {
            Some(original) if **original == message => Arc::clone(original),
            _ => Arc::new(message),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_agent::BoxFuture;
    use pi_ext_api::hooks::{Dialog, DialogAnswer, HookServices};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A hook answering every tool call with one fixed answer (or failing), counting calls.
    struct Fixed {
        name: String,
        answer: Result<ToolCallAnswer, String>,
        closed: bool,
        calls: AtomicUsize,
    }

    fn fixed(name: &str, answer: Result<ToolCallAnswer, String>, closed: bool) -> Arc<Fixed> {
        Arc::new(Fixed {
            name: name.into(),
            answer,
            closed,
            calls: AtomicUsize::new(0),
        })
    }

    impl Hook for Fixed {
        fn source(&self) -> &str {
            &self.name
        }
        fn wants(&self, kind: HookEventKind) -> bool {
            kind == HookEventKind::ToolCall
        }
        fn commands(&self) -> &[CommandInfo] {
            &[]
        }
        fn fails_closed(&self) -> bool {
            self.closed
        }
        fn handle(
            &self,
            event: Arc<HookEvent>,
            _: CancellationToken,
        ) -> BoxFuture<'static, Result<HookAnswer, ExtensionFailure>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let answer = match (&self.answer, event.as_ref()) {
                (Ok(ToolCallAnswer::Rewrite(suffix)), HookEvent::ToolCall { input, .. }) => {
                    let text = format!(
                        "{}{}",
                        input["x"].as_str().unwrap_or(""),
                        suffix.as_str().unwrap_or("")
                    );
                    Ok(HookAnswer::ToolCall(ToolCallAnswer::Rewrite(
                        json!({"x": text}),
                    )))
                }
                (Ok(answer), _) => Ok(HookAnswer::ToolCall(answer.clone())),
                (Err(e), _) => Err(ExtensionFailure(format!("{}: {e}", self.name))),
            };
            Box::pin(async move { answer })
        }
        fn run_command(
            &self,
            _: &str,
            _: &str,
            _: CancellationToken,
        ) -> BoxFuture<'static, Result<(), ExtensionFailure>> {
            Box::pin(async { Ok(()) })
        }
    }

    fn pipeline(hooks: Vec<Arc<Fixed>>) -> HookPipeline {
        let pipeline = HookPipeline::new(HookServices::none().ui, Default::default());
        let hooks = hooks.into_iter().map(|h| h as Arc<dyn Hook>).collect();
        pipeline.set_hooks(hooks, Vec::new());
        pipeline
    }

    async fn call(pipeline: &HookPipeline) -> Result<Value, String> {
        let cancel = CancellationToken::new();
        pipeline
            .tool_call("c1", "bash", json!({"x": "a"}), &cancel)
            .await
    }

    #[tokio::test]
    async fn the_first_block_wins_and_later_hooks_are_not_asked() {
        let first = fixed("first@1", Ok(ToolCallAnswer::Block("no".into())), false);
        let second = fixed("second@1", Ok(ToolCallAnswer::Allow), false);
        let result = call(&pipeline(vec![first.clone(), second.clone()])).await;
        assert_eq!(result, Err("Blocked by first@1: no".to_owned()));
        assert_eq!(second.calls.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn rewrites_chain_in_load_order() {
        let first = fixed("first@1", Ok(ToolCallAnswer::Rewrite(json!("b"))), false);
        let second = fixed("second@1", Ok(ToolCallAnswer::Rewrite(json!("c"))), false);
        let result = call(&pipeline(vec![first, second])).await;
        assert_eq!(result, Ok(json!({"x": "abc"})));
    }

    #[tokio::test]
    async fn a_failure_allows_unless_the_hook_fails_closed() {
        let open = fixed("open@1", Err("trapped".into()), false);
        assert_eq!(call(&pipeline(vec![open])).await, Ok(json!({"x": "a"})));
        let closed = fixed("closed@1", Err("trapped".into()), true);
        let blocked = call(&pipeline(vec![closed])).await.unwrap_err();
        assert!(
            blocked.contains("closed@1") && blocked.contains("fails closed"),
            "{blocked}"
        );
    }

    /// A hook whose plan-mode copy is another hook.
    struct WithCopy {
        own: Arc<Fixed>,
        copy: Arc<Fixed>,
    }

    impl Hook for WithCopy {
        fn source(&self) -> &str {
            self.own.source()
        }
        fn wants(&self, kind: HookEventKind) -> bool {
            self.own.wants(kind)
        }
        fn commands(&self) -> &[CommandInfo] {
            &[]
        }
        fn fails_closed(&self) -> bool {
            false
        }
        fn read_only(&self) -> Option<Arc<dyn Hook>> {
            Some(self.copy.clone())
        }
        fn handle(
            &self,
            event: Arc<HookEvent>,
            cancel: CancellationToken,
        ) -> BoxFuture<'static, Result<HookAnswer, ExtensionFailure>> {
            self.own.handle(event, cancel)
        }
        fn run_command(
            &self,
            name: &str,
            args: &str,
            cancel: CancellationToken,
        ) -> BoxFuture<'static, Result<(), ExtensionFailure>> {
            self.own.run_command(name, args, cancel)
        }
    }

    #[tokio::test]
    async fn plan_mode_asks_the_read_only_copies_and_so_do_plan_children() {
        use crate::permissions::{ModeCell, PermissionMode};
        let own = fixed("own@1", Ok(ToolCallAnswer::Allow), false);
        let copy = fixed("own@1", Ok(ToolCallAnswer::Allow), false);
        let mode = ModeCell::new(PermissionMode::Auto);
        let pipeline = HookPipeline::new(HookServices::none().ui, mode.clone());
        let hook = Arc::new(WithCopy {
            own: own.clone(),
            copy: copy.clone(),
        });
        pipeline.set_hooks(vec![hook as Arc<dyn Hook>], Vec::new());
        let calls = |h: &Arc<Fixed>| h.calls.load(Ordering::SeqCst);
        call(&pipeline).await.unwrap();
        assert_eq!((calls(&own), calls(&copy)), (1, 0));
        mode.set(PermissionMode::Plan);
        call(&pipeline).await.unwrap();
        assert_eq!((calls(&own), calls(&copy)), (1, 1));
        // A child in plan mode under a parent in auto mode gets the copies too.
        mode.set(PermissionMode::Auto);
        let child = pipeline.child(ModeCell::new(PermissionMode::Plan));
        call(&child).await.unwrap();
        call(&pipeline).await.unwrap();
        assert_eq!((calls(&own), calls(&copy)), (2, 2));
    }

    /// A user who gives scripted answers and records what they were asked.
    struct Scripted {
        answers: Mutex<Vec<Option<DialogAnswer>>>,
        asked: Mutex<Vec<Dialog>>,
    }

    impl UserInterface for Scripted {
        fn notify(&self, _: &str, _: &str, _: NotifyLevel) {}
        fn set_status(&self, _: &str, _: &str, _: Option<&str>) {}
        fn attention(&self, _: &str, _: &str, _: &str) {}
        fn ask(
            &self,
            _: &str,
            dialog: Dialog,
            _: Option<std::time::Duration>,
        ) -> Option<DialogAnswer> {
            lock(&self.asked).push(dialog);
            let mut answers = lock(&self.answers);
            if answers.is_empty() {
                None
            } else {
                answers.remove(0)
            }
        }
    }

    fn gated(
        mode: crate::permissions::PermissionMode,
        hooks: Vec<Arc<Fixed>>,
        answers: Vec<Option<DialogAnswer>>,
    ) -> (HookPipeline, Arc<Scripted>) {
        let user = Arc::new(Scripted {
            answers: Mutex::new(answers),
            asked: Mutex::default(),
        });
        let mode = crate::permissions::ModeCell::new(mode);
        let pipeline = HookPipeline::new(user.clone(), mode);
        let hooks = hooks.into_iter().map(|h| h as Arc<dyn Hook>).collect();
        pipeline.set_hooks(hooks, Vec::new());
        (pipeline, user)
    }

    #[tokio::test]
    async fn ask_writes_puts_bash_to_the_user_who_allows_or_denies_with_a_reason() {
        use crate::permissions::PermissionMode::AskWrites;
        let (pipeline, user) = gated(AskWrites, vec![], vec![Some(DialogAnswer::Selected(0))]);
        assert_eq!(call(&pipeline).await, Ok(json!({"x": "a"})));
        let asked = lock(&user.asked).clone();
        assert!(
            matches!(&asked[..], [Dialog::Approval { tool, options, .. }] if tool == "bash" && options.len() == 4),
            "{asked:?}"
        );
        let deny = vec![
            Some(DialogAnswer::Selected(3)),
            Some(DialogAnswer::Text("use cargo check".into())),
        ];
        let (pipeline, _) = gated(AskWrites, vec![], deny);
        assert_eq!(
            call(&pipeline).await,
            Err("Denied by the user: use cargo check".to_owned())
        );
        // Esc (no answer) denies too, without asking for a reason.
        let (pipeline, user) = gated(AskWrites, vec![], vec![None]);
        assert_eq!(call(&pipeline).await, Err("Denied by the user".to_owned()));
        assert_eq!(lock(&user.asked).len(), 1);
    }

    #[tokio::test]
    async fn a_hook_ask_uses_the_approval_dialog_and_the_mode_does_not_ask_again() {
        use crate::permissions::PermissionMode::AskWrites;
        let asks = fixed("asks@1", Ok(ToolCallAnswer::Ask("sure?".into())), false);
        let (pipeline, user) = gated(AskWrites, vec![asks], vec![Some(DialogAnswer::Selected(0))]);
        assert_eq!(call(&pipeline).await, Ok(json!({"x": "a"})));
        let asked = lock(&user.asked).clone();
        assert!(
            matches!(&asked[..], [Dialog::Approval { title, .. }] if title == "asks@1 asks: sure?"),
            "{asked:?}"
        );
        // A block wins over everything: nobody is asked.
        let blocks = fixed("blocks@1", Ok(ToolCallAnswer::Block("no".into())), false);
        let (pipeline, user) = gated(AskWrites, vec![blocks], vec![]);
        assert_eq!(
            call(&pipeline).await,
            Err("Blocked by blocks@1: no".to_owned())
        );
        assert!(lock(&user.asked).is_empty());
    }

    #[tokio::test]
    async fn an_ask_with_no_one_to_answer_blocks() {
        let asks = fixed("asks@1", Ok(ToolCallAnswer::Ask("sure?".into())), false);
        let blocked = call(&pipeline(vec![asks])).await.unwrap_err();
        assert!(blocked.contains("no one answered yes"), "{blocked}");
    }
}
