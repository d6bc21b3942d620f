//! The `todo` tool of the todo package (the `tool` world of WIT 0.3.0, which may import
//! `session` and `ui`): `add` an item, mark one `done`, or `list` them. Each change stores
//! the whole list in the session (`pi-ext-todo-list`) and updates the footer status.

use pi_ext_todo_list::List;
use pi_guest_sdk::{ExecutionMode, Tool, ToolCall, ToolDefinition, ToolResult, text, ui};
use serde_json::{Value, json};

struct Todo;

fn schema() -> String {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "done", "list"],
                "description": "add an item, mark one done, or list them"},
            "text": {"type": "string", "description": "The item to add (action add)."},
            "id": {"type": "integer", "minimum": 1, "description": "The item's number (action done)."}
        },
        "required": ["action"],
        "additionalProperties": false
    })
    .to_string()
}

impl Tool for Todo {
    fn describe() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "todo".into(),
            label: "Todo".into(),
            description: "Keeps a todo list for this session: add an item, mark one done by its \
                          number, or list them. The user sees the open count in the footer."
                .into(),
            parameters_schema: schema(),
            prompt_snippet: Some("Keep a todo list of the steps of a longer task".into()),
            prompt_guidelines: vec![
                "For a task of several steps, add them with the todo tool first and mark each \
                 done when it is."
                    .into(),
            ],
            // Every call reads the list and stores a new one: two at once would lose a change.
            execution_mode: ExecutionMode::Sequential,
        }]
    }

    fn execute(call: ToolCall) -> Result<ToolResult, String> {
        let args: Value =
            serde_json::from_str(&call.arguments).map_err(|e| format!("bad arguments: {e}"))?;
        let mut list = List::load()?;
        let said = match args["action"].as_str() {
            Some("add") => {
                let item = args["text"].as_str().map(str::trim).unwrap_or_default();
                if item.is_empty() {
                    return Err("`text` is required to add an item".into());
                }
                format!("Added {}.", list.add(item))
            }
            Some("done") => {
                let id = args["id"]
                    .as_u64()
                    .ok_or("`id` is required to mark an item done")?;
                if !list.done(id) {
                    return Err(format!("there is no item {id}"));
                }
                format!("Done {id}.")
            }
            Some("list") => return Ok(text(&list.render())),
            _ => return Err("`action` must be add, done or list".into()),
        };
        list.save()?;
        ui::set_status("todo", list.status().as_deref());
        Ok(text(&format!("{said}\n{}", list.render())))
    }
}

pi_guest_sdk::export_tool!(Todo);
