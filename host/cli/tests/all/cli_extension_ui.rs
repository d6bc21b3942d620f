//! Extensions talking to the user, through the faces of the real binary: RPC mode's
//! `extension_ui_request` / `extension_ui_response` sub-protocol.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_rpc::{RpcClient, ok};
use super::cli_support::*;
use pi_mock_llm::Api;
use serde_json::json;

#[test]
fn rpc_a_ui_response_for_no_open_dialog_is_ignored_and_gets_no_response() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let mut rpc = RpcClient::start(&pi);
    for line in [
        json!({"type": "extension_ui_response", "id": "ui-99", "confirmed": true}),
        json!({"type": "extension_ui_response", "id": "ui-98", "cancelled": true}),
        json!({"type": "extension_ui_response", "value": "no id"}),
    ] {
        rpc.send_raw(&line.to_string());
    }
    // The next command is answered, and nothing was written for the three lines before it.
    let state = rpc.call(json!({"id": "s", "type": "get_state"}));
    ok(&state);
    assert_eq!(rpc.seen, vec![state], "only the get_state response");
    drop(rpc.stdin.take());
    assert_eq!(rpc.child.wait().unwrap().code(), Some(0));
}
