//! A tool component whose `describe` sleeps ten minutes: loading it must cost its deadline,
//! not the start-up of pi.

use pi_guest_sdk::{Tool, ToolCall, ToolDefinition, ToolResult, text};

struct SlowDescribe;

impl Tool for SlowDescribe {
    fn describe() -> Vec<ToolDefinition> {
        std::thread::sleep(std::time::Duration::from_secs(600));
        Vec::new()
    }

    fn execute(_call: ToolCall) -> Result<ToolResult, String> {
        Ok(text("never described, never called"))
    }
}

pi_guest_sdk::export_tool!(SlowDescribe);
