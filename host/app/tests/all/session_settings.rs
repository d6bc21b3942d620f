//! Settings the session applies that no face shows on its own: `branchSummary.reserveTokens`
//! (how much of the branch left in the tree the summary request may carry).

use crate::session_support::*;
use pi_app::NavigateOptions;
use pi_mock_llm::{Api, Turn};
use serde_json::{Value, json};

/// Leaves the seeded second exchange (a 40-token question, a 40-token answer) for the first
/// answer with a summary, and returns the summary request's text.
async fn summary_request(settings: Value) -> String {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .seed(seed_history)
        .settings(settings)
        .build();
    let ids: Vec<String> = rig
        .app
        .with_session(|s| s.entries().iter().map(|e| e.id.clone()).collect());
    rig.mock.push(Turn::text("## Goal\nBRANCH WORK"));
    let options = NavigateOptions {
        summarize: true,
        ..NavigateOptions::default()
    };
    let result = rig.app.navigate_tree(&ids[1], options).await.unwrap();
    assert!(result.summary_entry_id.is_some());
    rig.mock.requests()[0].body.to_string()
}

#[tokio::test]
async fn branch_summary_reserve_tokens_bounds_what_the_summary_is_made_of() {
    let both = summary_request(json!({})).await;
    assert!(both.contains("[User]: "), "{both}");
    assert!(both.contains("[Assistant]: "), "{both}");
    // The mock model's window is 200000 tokens: 50 are left, room for the newest message only.
    let newest = summary_request(json!({"branchSummary": {"reserveTokens": 199_950}})).await;
    assert!(!newest.contains("[User]: "), "{newest}");
    assert!(newest.contains("[Assistant]: "), "{newest}");
}
