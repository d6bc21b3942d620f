//! The hook of the todo package (the `hook` world of WIT 0.3.0): `/todos` shows the list, and
//! the footer status ("3 open") is set when a session starts (so a resumed session shows its
//! list again: it is in the session file) and after every turn.

use pi_ext_todo_list::List;
use pi_guest_sdk::{CommandInfo, Hook, SessionStart, TurnEndEvent, host, ui};

struct Todos;

/// Sets the footer status from the stored list.
fn show_status() {
    match List::load() {
        Ok(list) => ui::set_status("todo", list.status().as_deref()),
        Err(error) => host::log(
            host::LogLevel::Warn,
            &format!("cannot read the todo list: {error}"),
        ),
    }
}

impl Hook for Todos {
    fn commands() -> Vec<CommandInfo> {
        vec![CommandInfo {
            name: "todos".into(),
            description: "Show the todo list of this session".into(),
            argument_hint: None,
        }]
    }

    fn run_command(name: String, _args: String) -> Result<(), String> {
        if name != "todos" {
            return Err(format!("no command `{name}`"));
        }
        let list = List::load()?;
        ui::notify(&list.render(), ui::NotifyLevel::Info);
        ui::set_status("todo", list.status().as_deref());
        Ok(())
    }

    fn on_session_start(_event: SessionStart) {
        show_status();
    }

    fn on_turn_end(_event: TurnEndEvent) {
        show_status();
    }
}

pi_guest_sdk::export_hook!(Todos: on_session_start, on_turn_end);
