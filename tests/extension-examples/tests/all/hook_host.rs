//! A host for hook components that records what they do: the `ui` calls as lines, the session's
//! `custom` entries in memory, `NOTIFY_AFTER_SECONDS` and the like as WASI environment.

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable, TypedFunc};
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

wasmtime::component::bindgen!({
    path: "../../wit",
    world: "pi:extension/hook",
});

pub use pi::extension::hook_types::*;
use pi::extension::{host, session, types, ui};

/// What the component did through its imports.
pub struct Recorder {
    wasi: WasiCtx,
    table: ResourceTable,
    /// `ui` calls, one line each: `notify: …`, `status todo: …`, `attention: title: text`.
    pub ui: Vec<String>,
    /// The session's `custom` entries: (custom type, data).
    pub entries: Vec<(String, String)>,
}

impl WasiView for Recorder {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

// The type-only interfaces.
impl types::Host for Recorder {}
impl pi::extension::hook_types::Host for Recorder {}

impl host::Host for Recorder {
    fn log(&mut self, _level: host::LogLevel, _message: String) {}
    fn progress(&mut self, _update: types::ToolResult) {}
    fn cwd(&mut self) -> String {
        "/work".into()
    }
    fn session_id(&mut self) -> Option<String> {
        Some("test-session".into())
    }
    fn aborted(&mut self) -> bool {
        false
    }
}

impl ui::Host for Recorder {
    fn notify(&mut self, text: String, _level: ui::NotifyLevel) {
        self.ui.push(format!("notify: {text}"));
    }
    fn confirm(&mut self, _title: String, _text: String, _timeout: Option<u32>) -> Option<bool> {
        None
    }
    fn select(&mut self, _title: String, _options: Vec<String>, _t: Option<u32>) -> Option<u32> {
        None
    }
    fn input(&mut self, _title: String, _p: Option<String>, _t: Option<u32>) -> Option<String> {
        None
    }
    fn set_status(&mut self, key: String, text: Option<String>) {
        self.ui
            .push(format!("status {key}: {}", text.unwrap_or_default()));
    }
    fn attention(&mut self, title: String, text: String) {
        self.ui.push(format!("attention: {title}: {text}"));
    }
}

impl session::Host for Recorder {
    fn send_message(
        &mut self,
        _message: OutgoingMessage,
        _deliver_as: session::DeliverAs,
    ) -> Result<(), String> {
        Err("not in these tests".into())
    }
    fn append_entry(&mut self, custom_type: String, data: String) -> Result<(), String> {
        self.entries.push((custom_type, data));
        Ok(())
    }
    fn entries(&mut self, custom_type: String) -> Result<Vec<String>, String> {
        Ok(self
            .entries
            .iter()
            .filter(|(t, _)| *t == custom_type)
            .map(|(_, data)| data.clone())
            .collect())
    }
    fn set_session_name(&mut self, _name: String) -> Result<(), String> {
        Ok(())
    }
    fn set_label(&mut self, _id: Option<String>, _label: Option<String>) -> Result<(), String> {
        Ok(())
    }
}

/// An engine, a linker with WASI and the `hook` world's imports, and a fresh recorder with
/// these environment variables.
fn setup(env: &[(&str, &str)]) -> (Linker<Recorder>, Store<Recorder>) {
    let engine = Engine::default();
    let mut linker = Linker::<Recorder>::new(&engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
    Hook::add_to_linker::<_, HasSelf<_>>(&mut linker, |r| r).unwrap();
    let mut wasi = WasiCtx::builder();
    for (name, value) in env {
        wasi.env(name, value);
    }
    let recorder = Recorder {
        wasi: wasi.build(),
        table: ResourceTable::new(),
        ui: Vec::new(),
        entries: Vec::new(),
    };
    (linker, Store::new(&engine, recorder))
}

/// One instance of a hook component.
pub struct Running {
    pub store: Store<Recorder>,
    pub hook: Hook,
}

impl Running {
    /// Instantiates the component at `path` with these environment variables.
    pub fn new(path: &str, env: &[(&str, &str)]) -> Running {
        let (linker, mut store) = setup(env);
        let component = Component::from_file(store.engine(), path).unwrap();
        let hook = Hook::instantiate(&mut store, &component, &linker).unwrap();
        Running { store, hook }
    }

    /// What `describe` answers.
    pub fn describe(&mut self) -> HookInfo {
        let hook = self.hook.pi_extension_hook_guest();
        hook.call_describe(&mut self.store).unwrap()
    }

    /// What `tool` called with these arguments gets.
    pub fn tool_call(&mut self, tool: &str, input: serde_json::Value) -> ToolCallAnswer {
        let event = ToolCallEvent {
            call_id: "call-1".into(),
            tool: tool.into(),
            input_json: input.to_string(),
        };
        let hook = self.hook.pi_extension_hook_guest();
        hook.call_on_tool_call(&mut self.store, &event).unwrap()
    }
}

/// `tool-guest.execute`'s type.
type Execute = TypedFunc<(types::ToolCall,), (Result<types::ToolResult, String>,)>;

/// One instance of a `tool` component that imports no more than a hook may (`ui`, `session`,
/// `host`, WASI's cli): its `execute`, called by its typed export.
pub struct RunningTool {
    pub store: Store<Recorder>,
    execute: Execute,
}

impl RunningTool {
    pub fn new(path: &str) -> RunningTool {
        let (linker, mut store) = setup(&[]);
        let component = Component::from_file(store.engine(), path).unwrap();
        let guest = component
            .get_export_index(None, "pi:extension/tool-guest@0.3.0")
            .unwrap();
        let execute = component.get_export_index(Some(&guest), "execute").unwrap();
        let instance = linker.instantiate(&mut store, &component).unwrap();
        let execute = instance.get_typed_func(&mut store, execute).unwrap();
        RunningTool { store, execute }
    }

    /// Runs one call of `name` with these arguments: the result's text, or the error.
    pub fn call(&mut self, name: &str, arguments: serde_json::Value) -> Result<String, String> {
        let call = types::ToolCall {
            id: "call-1".into(),
            name: name.into(),
            arguments: arguments.to_string(),
        };
        let (result,) = self.execute.call(&mut self.store, (call,)).unwrap();
        result.map(|r| {
            r.content
                .iter()
                .filter_map(|block| match block {
                    types::ContentBlock::Text(text) => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        })
    }
}
