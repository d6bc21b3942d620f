//! The interactive UI's commands and selectors in a real terminal (tmux) against the mock
//! LLM: shell commands, compaction, the model, session, tree, scoped-model and settings
//! selectors, login, themes, import, reload.

use super::cli_rpc::RpcClient;
use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::time::Duration;

#[test]
fn tui_shell_commands_join_the_context_unless_doubled_and_unknown_commands_send_nothing() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("Noted the output."));
    pi.mock.push(Turn::text("A path, then."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("!echo shown-and-sent");
    tmux.wait_text("$ echo shown-and-sent");
    tmux.wait_for("the command's output", |s| {
        s.matches("shown-and-sent").count() >= 2
    });
    tmux.submit("!!echo shown-not-sent");
    tmux.wait_text("(not in the context)");
    tmux.wait_for("its output", |s| s.matches("shown-not-sent").count() >= 2);
    tmux.submit("/nosuchcommand please");
    tmux.wait_text("Unknown command: /nosuchcommand");
    tmux.submit("/session");
    tmux.wait_text("Messages: 0 user");
    assert!(
        pi.mock.requests().is_empty(),
        "nothing went to the model yet"
    );

    tmux.submit("What did it print?");
    tmux.wait_text("Noted the output.");
    let first = pi.mock.requests()[0].body.to_string();
    assert!(first.contains("shown-and-sent"), "{first}");
    assert!(!first.contains("shown-not-sent"), "{first}");
    // A first word holding another `/` is a path, not a command.
    tmux.submit("/etc/hosts is a file");
    tmux.wait_text("A path, then.");
    assert!(
        pi.mock.requests()[1]
            .body
            .to_string()
            .contains("/etc/hosts is a file")
    );
    tmux.exit();
}

#[test]
fn tui_new_starts_a_session_file_and_compact_writes_a_summary_the_next_request_starts_with() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("SUMMARY-OF-THE-TALK"));
    pi.mock.push(Turn::text("After the compaction."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("Hello there");
    tmux.wait_text("First answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));
    tmux.submit("/compact keep the greeting");
    tmux.wait_text("Compacted:");
    let lines = pi.session_lines();
    assert!(
        lines.iter().any(|l| l["type"] == "compaction"),
        "{lines:#?}"
    );
    tmux.submit("And now?");
    tmux.wait_text("After the compaction.");
    let third = pi.mock.requests()[2].body.to_string();
    assert!(third.contains("SUMMARY-OF-THE-TALK"), "{third}");

    assert_eq!(pi.session_files().len(), 1);
    tmux.submit("/new");
    let screen = tmux.wait_text("Started a new session.");
    assert!(!screen.contains("First answer."), "{screen}");
    tmux.exit();
}

#[test]
fn tui_model_selector_switches_and_ctrl_s_saves_the_default() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions", "apiKey": "mock-key",
        "models": [{"id": "mock-model", "name": "Mock model"},
                   {"id": "mock-other", "name": "Other mock"}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    pi.mock.push(Turn::text("From the other one."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.keys(&["C-l"]);
    tmux.wait_text("Model (Enter: switch");
    tmux.type_text("other");
    tmux.wait_text("(1 of 2)");
    tmux.keys(&["C-s"]);
    tmux.wait_text("saved as the default");
    tmux.submit("Who answers?");
    tmux.wait_text("From the other one.");
    assert_eq!(pi.mock.requests()[0].body["model"], "mock-other");
    let settings: serde_json::Value = settings_json(&pi);
    assert_eq!(settings["defaultProvider"], "mock");
    assert_eq!(settings["defaultModel"], "mock-other");
    tmux.exit();
    // A fresh start, with no --model, uses the saved default.
    pi.mock.push(Turn::text("Still the other one."));
    let out = pi.run(&["-p", "And now?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(pi.mock.requests()[1].body["model"], "mock-other");
}

#[test]
fn tui_resume_picker_continues_the_chosen_session() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("I will remember."));
    let out = pi.run(&[
        "--model",
        "mock/mock-model",
        "-p",
        "Remember the word zebra",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    pi.mock.push(Turn::text("The word was zebra."));
    let tmux = Tmux::start(&pi, &["--model", "mock/mock-model", "-r"]);
    tmux.wait_text("Resume (type to search");
    tmux.type_text("zebra");
    tmux.wait_text("Remember the word zebra");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Resumed");
    tmux.wait_text("I will remember.");
    tmux.submit("Which word?");
    tmux.wait_text("The word was zebra.");
    let second = pi.mock.requests()[1].body.to_string();
    assert!(second.contains("Remember the word zebra"), "{second}");
    tmux.exit();
    drop(tmux);

    // The same list from /resume in a running UI, with a second session in it.
    pi.mock.push(Turn::text("Noted."));
    let out = pi.run(&["--model", "mock/mock-model", "-p", "Another session"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("/resume");
    let screen = tmux.wait_text("Resume (type to search");
    tmux.wait_for("the session in the list", |s| {
        s.lines()
            .any(|l| l.trim_start().starts_with("Remember the word zebra"))
    });
    assert!(!screen.contains("[pi exited"), "{screen}");
    // Rename it, see the name in the list, then delete it (recoverably).
    tmux.keys(&["C-r"]);
    tmux.wait_text("New name for the session:");
    tmux.submit("zebra talk");
    tmux.wait_text("Renamed the session to \"zebra talk\".");
    tmux.submit("/resume");
    tmux.wait_for("the new name", |s| {
        s.lines().any(|l| l.trim_start().starts_with("zebra talk"))
    });
    tmux.keys(&["C-n"]);
    let named = tmux.wait_text(", named only");
    assert!(
        named
            .lines()
            .any(|l| l.trim_start().starts_with("zebra talk")),
        "{named}"
    );
    tmux.keys(&["C-s"]);
    tmux.wait_text(", by name, named only");
    tmux.keys(&["C-n"]);
    tmux.wait_for("all sessions again", |s| !s.contains("named only ("));
    let before = pi.session_files().len();
    tmux.keys(&["C-d"]);
    tmux.wait_text("Moved the session to");
    assert_eq!(pi.session_files().len(), before - 1);
    // Ctrl+Backspace (^H in tmux) deletes only with an empty search: with text it leaves the
    // search as it was, so typing goes on where it stopped.
    tmux.type_text("another");
    tmux.keys(&["C-h"]);
    tmux.type_text(" session");
    tmux.wait_text("› another session");
    assert_eq!(pi.session_files().len(), before - 1);
    for _ in 0.."another session".len() {
        tmux.keys(&["BSpace"]);
    }
    tmux.wait_for("an empty search", |s| s.contains("›   ("));
    tmux.keys(&["C-h"]);
    tmux.wait_for("the second deletion", |s| {
        s.matches("Moved the session to").count() == 2
    });
    assert_eq!(pi.session_files().len(), before - 2);
    tmux.keys(&["Escape"]);
    tmux.wait_for("the list closed", |s| !s.contains("Resume (type to search"));
    tmux.exit();
}

#[test]
fn tui_login_stores_a_hidden_api_key_with_mode_0600_logout_removes_it_and_trust_is_saved() {
    use std::os::unix::fs::PermissionsExt;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("/login");
    tmux.wait_text("Log in to");
    tmux.submit("mock");
    tmux.wait_text("API key for mock:");
    tmux.type_text("sk-secret-123");
    let screen = tmux.wait_text("•••••••••••••");
    assert!(
        !screen.contains("sk-secret-123"),
        "the key is never shown:\n{screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_text("Stored the API key for mock");
    let auth = pi.agent_dir().join("auth.json");
    let mode = std::fs::metadata(&auth).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&auth).unwrap()).unwrap();
    assert_eq!(
        stored["mock"],
        json!({"type": "api_key", "key": "sk-secret-123"})
    );

    tmux.submit("/logout mock");
    tmux.wait_text("Removed the credential of mock.");
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&auth).unwrap()).unwrap();
    assert!(stored.get("mock").is_none(), "{stored}");

    tmux.submit("/trust");
    tmux.wait_text("trusted from the next start");
    let trust: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(pi.agent_dir().join("trust.json")).unwrap())
            .unwrap();
    let cwd = std::fs::canonicalize(pi.cwd()).unwrap();
    assert_eq!(trust[cwd.to_str().unwrap()], true, "{trust}");
    tmux.exit();
}

#[test]
fn tui_uses_a_json_theme_and_reloads_it_when_the_file_changes() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let themes = pi.agent_dir().join("themes");
    std::fs::create_dir_all(&themes).unwrap();
    let theme = |accent: &str| {
        format!(
            r#"{{"name": "sunset", "vars": {{"sun": "{accent}"}}, "colors": {{"accent": "sun", "nosuchtoken": 1}}}}"#
        )
    };
    std::fs::write(themes.join("sunset.json"), theme("#ff8800")).unwrap();
    pi.settings(json!({"theme": "sunset"}));
    pi.mock.push(Turn::text("Coloured."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.wait_text("unknown colour token \"nosuchtoken\"");
    tmux.submit("Hello");
    tmux.wait_text("Coloured.");
    // The pane is a 256-colour terminal: colours come fitted to its palette; the prompt's `›`
    // is drawn in the accent colour.
    let coloured = |index: &str| tmux.wait_styled(&format!("38;5;{index}m› "));
    coloured("208"); // #ff8800
    // Edited while pi runs: the new colours show without a restart.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(themes.join("sunset.json"), theme("#00ff88")).unwrap();
    coloured("48"); // #00ff88
    tmux.exit();
}

#[test]
fn tui_uses_a_theme_a_package_installed_while_it_runs_ships() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = super::cli_extensions::install(&pi.root.path().join("src"), "themed");
    super::cli_extensions::extend_manifest(&dir, "[resources]\nthemes = \"themes\"");
    std::fs::create_dir_all(dir.join("themes")).unwrap();
    std::fs::write(
        dir.join("themes/ocean.json"),
        r##"{"name": "ocean", "colors": {"accent": "#0087ff"}}"##,
    )
    .unwrap();
    pi.settings(json!({"theme": "ocean"}));
    pi.mock.push(Turn::text("In blue."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    // Installed while pi runs: `/reload` finds the package's theme.
    tmux.wait_text("ocean");
    let out = pi.run(&["ext", "install", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    tmux.submit("/reload");
    tmux.wait_text("Reloaded extensions (themed");
    tmux.submit("Hello");
    tmux.wait_text("In blue.");
    // The prompt's `›` is drawn in the accent colour (#0087ff is 33 in the 256-colour palette).
    tmux.wait_styled("38;5;33m› ");
    tmux.exit();
}

#[test]
fn tui_settings_editor_saves_each_change_at_once() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("/settings");
    tmux.wait_text("theme: dark");
    tmux.keys(&["Enter"]);
    tmux.wait_text("theme: light");
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    tmux.wait_text("hideThinkingBlock: true");
    let settings: serde_json::Value = settings_json(&pi);
    assert_eq!(settings["theme"], "light");
    assert_eq!(settings["hideThinkingBlock"], true);
    tmux.keys(&["Escape"]);
    tmux.wait_for("closed", |s| !s.contains("Settings (Enter"));
    tmux.exit();
}

#[test]
fn tui_tree_navigator_branches_with_a_summary_of_the_branch_left() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("Second answer."));
    pi.mock
        .push(Turn::text("BRANCH-SUMMARY of the second exchange"));
    pi.mock.push(Turn::text("A new direction."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("first question");
    tmux.wait_text("First answer.");
    tmux.submit("second question");
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));

    tmux.submit("/tree");
    let screen = tmux.wait_text("Tree, default");
    assert!(screen.contains("you: second question"), "{screen}");
    // Fold the first prompt: everything after it is under it.
    tmux.type_text("first question");
    tmux.wait_text("(1 of");
    tmux.keys(&["C-Left"]);
    let folded = tmux.wait_text("▸ you: first question");
    assert!(!folded.contains("pi: Second answer."), "{folded}");
    tmux.keys(&["C-Right"]);
    tmux.wait_text("pi: Second answer.");
    tmux.keys(&["C-u"]);
    tmux.wait_text("Tree, user only");
    // Label the selected entry (the last prompt).
    tmux.keys(&["L"]);
    tmux.wait_text("Label (empty clears it):");
    tmux.submit("checkpoint");
    tmux.wait_text("Labelled \"checkpoint\".");
    assert!(
        pi.session_lines()
            .iter()
            .any(|l| l["type"] == "label" && l["label"] == "checkpoint")
    );
    tmux.submit("/tree");
    tmux.wait_text("[checkpoint]");
    tmux.keys(&["C-u"]);
    tmux.wait_text("Tree, user only");
    tmux.type_text("first");
    tmux.wait_text("(1 of 2)");
    tmux.keys(&["M-Enter"]);
    tmux.wait_text("│first question");
    tmux.keys(&["C-u"]);
    tmux.submit("another way");
    tmux.wait_text("A new direction.");

    let lines = pi.session_lines();
    assert!(
        lines.iter().any(|l| l["type"] == "branch_summary"),
        "{lines:#?}"
    );
    let parents: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["parentId"].as_str())
        .collect();
    let shared = parents
        .iter()
        .any(|p| parents.iter().filter(|q| *q == p).count() == 2);
    assert!(shared, "one entry has two children: {lines:#?}");
    tmux.exit();
}

#[test]
fn tui_tree_asks_summarize_branch_and_sends_a_custom_focus() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("Second answer."));
    pi.mock.push(Turn::text("FOCUSED-SUMMARY of the branch"));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("first question");
    tmux.wait_text("First answer.");
    tmux.submit("second question");
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));
    tmux.submit("/tree");
    tmux.wait_text("Tree, default");
    tmux.type_text("first question");
    tmux.wait_text("(1 of");
    tmux.keys(&["Enter"]);
    let asked = tmux.wait_text("Summarize branch?");
    for choice in ["No summary", "Summarize", "Summarize with custom prompt"] {
        assert!(asked.contains(choice), "{choice}: {asked}");
    }
    tmux.keys(&["Down", "Down", "Enter"]);
    tmux.wait_text("Focus of the summary");
    tmux.submit("the failing test");
    tmux.wait_text("│first question");
    let request = pi.mock.requests().last().unwrap().body.to_string();
    assert!(
        request.contains("Additional focus: the failing test"),
        "{request}"
    );
    let lines = pi.session_lines();
    assert!(
        lines.iter().any(|l| l["type"] == "branch_summary"
            && l["summary"]
                .as_str()
                .unwrap_or("")
                .contains("FOCUSED-SUMMARY")),
        "{lines:#?}"
    );
    tmux.keys(&["C-u"]);
    tmux.exit();
}

#[test]
fn tui_login_signs_in_with_a_subscription_through_a_device_code() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let oauth = pi_mock_llm::oauth::MockOAuth::start();
    let command = format!(
        "PI_OAUTH_BASE_URL_XAI='{}' PI_OAUTH_BROWSER=none '{PI}' --model mock/mock-model \
         --tui-mode fullscreen; echo \"[pi exited $?]\"; sleep 600",
        oauth.base_url()
    );
    let tmux = Tmux::spawn(&pi, &command);
    tmux.wait_text("0%");
    tmux.submit("/login");
    let listed = tmux.wait_text("Log in to");
    assert!(listed.contains("anthropic: sign in"), "{listed}");
    tmux.submit("xai: sign in");
    let shown = tmux.wait_text("ABCD-1234");
    assert!(shown.contains("Sign in to xai: open"), "{shown}");
    tmux.wait_text("Signed in to xai");
    let auth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(pi.agent_dir().join("auth.json")).unwrap())
            .unwrap();
    assert_eq!(auth["xai"]["type"], "oauth", "{auth}");
    assert_eq!(auth["xai"]["refresh"], "device-refresh", "{auth}");
    tmux.exit();
}

#[test]
fn tui_login_takes_a_pasted_redirect_when_the_browser_cannot_call_back() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let oauth = pi_mock_llm::oauth::MockOAuth::start();
    let command = format!(
        "PI_OAUTH_BASE_URL_OPENROUTER='{}' PI_OAUTH_BROWSER=none PI_OAUTH_CALLBACK_PORT=0 \
         '{PI}' --model mock/mock-model --tui-mode fullscreen; echo \"[pi exited $?]\"; \
         sleep 600",
        oauth.base_url()
    );
    let tmux = Tmux::spawn(&pi, &command);
    tmux.wait_text("0%");
    tmux.submit("/login");
    tmux.wait_text("Log in to");
    tmux.submit("openrouter: sign in");
    tmux.wait_text("paste where it ended");
    // The URL as the notice shows it, wrapped: its pieces joined.
    let screen = tmux.wait_text("in your browser:");
    let url: String = screen
        .lines()
        .skip_while(|l| !l.contains("in your browser:"))
        .skip(1)
        .map(str::trim)
        .take_while(|l| !l.is_empty() && !l.contains(' '))
        .collect();
    // The browser ran elsewhere: where it ended is pasted, not visited.
    let redirect = pi_mock_llm::oauth::authorize_redirect(&url).unwrap();
    tmux.type_text(&redirect);
    tmux.keys(&["Enter"]);
    tmux.wait_text("Signed in to openrouter");
    let auth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(pi.agent_dir().join("auth.json")).unwrap())
            .unwrap();
    assert_eq!(
        auth["openrouter"],
        json!({"type": "api_key", "key": "sk-or-v1-minted"})
    );
    tmux.exit();
}

#[test]
fn tui_import_continues_a_session_from_a_file() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::text("Noted: the password is swordfish."));
    let out = pi.run(&["--model", "mock/mock-model", "-p", "Remember swordfish"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let original = pi.session_files().remove(0);
    let exported = pi.cwd().join("exported.jsonl");
    std::fs::rename(&original, &exported).unwrap();
    pi.mock.push(Turn::text("It was swordfish."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("/import exported.jsonl");
    tmux.wait_text("Noted: the password is swordfish.");
    tmux.submit("What was it?");
    tmux.wait_text("It was swordfish.");
    assert!(
        pi.mock.requests()[1]
            .body
            .to_string()
            .contains("Remember swordfish")
    );
    tmux.submit("/import nothing-here.jsonl");
    tmux.wait_text("Cannot import");
    tmux.exit();
}

/// A global skill `greet` whose text says GREETINGS-FROM-THE-SKILL.
fn greet_skill(pi: &PiEnv) {
    let skill = pi.agent_dir().join("skills").join("greet");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: greet\ndescription: Greets warmly.\n---\nSay GREETINGS-FROM-THE-SKILL first.\n",
    )
    .unwrap();
}

#[test]
fn tui_skill_commands_expand_and_enable_skill_commands_turns_them_off() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    greet_skill(&pi);
    pi.mock.push(Turn::text("Greeted."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("/skill:greet the team");
    tmux.wait_text("Greeted.");
    let body = pi.mock.requests()[0].body.to_string();
    assert!(body.contains("GREETINGS-FROM-THE-SKILL"), "{body}");
    tmux.exit();
    drop(tmux);

    pi.settings(json!({"enableSkillCommands": false}));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("/skill:greet the team");
    tmux.wait_text("skill commands are off");
    assert_eq!(pi.mock.requests().len(), 1, "nothing more was sent");
    tmux.exit();
}

#[test]
fn tui_scoped_models_editor_sets_what_ctrl_p_cycles_through() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions", "apiKey": "mock-key",
        "models": [{"id": "mock-a"}, {"id": "mock-b"}, {"id": "mock-c"}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    pi.mock.push(Turn::text("C answers."));
    let tmux = Tmux::start(&pi, &["--model", "mock/mock-a"]);
    tmux.wait_text("0%");
    tmux.submit("/scoped-models");
    tmux.wait_text("[ ] mock/mock-a");
    tmux.keys(&["Enter"]);
    tmux.wait_text("[x] mock/mock-a");
    tmux.keys(&["Down"]);
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    tmux.wait_text("[x] mock/mock-c");
    tmux.keys(&["C-s"]);
    tmux.wait_text("Saved the models Ctrl+P cycles through");
    let settings: serde_json::Value = settings_json(&pi);
    assert_eq!(
        settings["enabledModels"],
        json!(["mock/mock-a", "mock/mock-c"])
    );
    tmux.keys(&["C-p"]);
    tmux.wait_text("Model: mock/mock-c");
    tmux.submit("Who?");
    tmux.wait_text("C answers.");
    assert_eq!(pi.mock.requests()[0].body["model"], "mock-c");
    tmux.exit();
}

#[test]
fn tui_fork_starts_a_new_session_file_from_an_earlier_prompt() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("Second answer."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("first question");
    tmux.wait_text("First answer.");
    tmux.submit("second question");
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));
    assert_eq!(pi.session_files().len(), 1);
    tmux.submit("/fork");
    tmux.wait_text("Fork from which prompt?");
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("│first question");
    assert!(!screen.contains("First answer."), "{screen}");
    tmux.keys(&["C-u"]);
    pi.mock.push(Turn::text("Forked answer."));
    tmux.submit("first question, again");
    tmux.wait_text("Forked answer.");
    assert_eq!(pi.session_files().len(), 2, "the fork is a file of its own");
    tmux.exit();
}

#[test]
fn tui_reload_picks_up_a_skill_and_an_extension_added_while_running() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("Used the new skill."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    let skill = pi.agent_dir().join("skills").join("fresh");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: fresh\ndescription: Added later.\n---\nSay FRESH-SKILL-BODY.\n",
    )
    .unwrap();
    tmux.submit("/skill:fresh now");
    tmux.wait_text("Unknown command: /skill:fresh");
    // An extension package placed meanwhile: its tool is offered after the reload.
    super::cli_extensions::install(&pi.agent_dir().join("extensions"), "lateext");
    tmux.submit("/reload");
    tmux.wait_text("Reloaded extensions (lateext@0.1.0), skills (1)");
    tmux.submit("/skill:fresh now");
    tmux.wait_text("Used the new skill.");
    let body = pi.mock.requests()[0].body.to_string();
    assert!(body.contains("FRESH-SKILL-BODY"), "{body}");
    // The system prompt lists it too.
    assert!(body.contains("fresh"), "{body}");
    let tools = super::cli_extensions::offered(&pi, 0);
    assert!(tools.contains(&"echo".to_owned()), "{tools:?}");
    // And once it is gone, a reload takes its tool away.
    std::fs::remove_dir_all(pi.agent_dir().join("extensions/lateext")).unwrap();
    tmux.submit("/reload");
    tmux.wait_text("Reloaded extensions (none)");
    pi.mock.push(Turn::text("Without it."));
    tmux.submit("again");
    tmux.wait_text("Without it.");
    let tools = super::cli_extensions::offered(&pi, 1);
    assert!(!tools.contains(&"echo".to_owned()), "{tools:?}");
    tmux.exit();
}

#[test]
fn tui_first_run_picks_the_light_theme_on_a_light_terminal_and_remembers_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = Tmux::start_shell(&pi);
    // tmux answers the background query with the pane's colour.
    tmux.run(&["set", "-g", "window-style", "bg=#ffffff"]);
    tmux.submit(&format!("'{PI}' --model mock/mock-model"));
    tmux.wait_text("0%");
    let settings: serde_json::Value = settings_json(&pi);
    assert_eq!(settings["theme"], "light");
    tmux.keys(&["C-d"]);
    tmux.wait_for("the shell's prompt again", |s| s.trim_end().ends_with('$'));
}

/// Outside the UI too: print and RPC modes expand `/skill:name` while `enableSkillCommands` is
/// on, and send the text as it is when it is off (as pi does).
#[test]
fn print_and_rpc_modes_expand_skill_commands_only_while_enable_skill_commands_is_on() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    greet_skill(&pi);
    let last_user_text = |pi: &PiEnv| {
        let body = pi.mock.requests().last().unwrap().body.clone();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .unwrap()["content"]
            .to_string()
    };
    for (enabled, expanded) in [(None, true), (Some(true), true), (Some(false), false)] {
        match enabled {
            Some(on) => pi.settings(json!({"enableSkillCommands": on})),
            None => pi.settings(json!({})),
        }
        pi.mock.push(Turn::text("ok"));
        let out = pi.run(&["--no-session", "-p", "/skill:greet the team"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let sent = last_user_text(&pi);
        assert_eq!(
            sent.contains("GREETINGS-FROM-THE-SKILL"),
            expanded,
            "{enabled:?}: {sent}"
        );
        assert_eq!(
            sent.contains("/skill:greet the team"),
            !expanded,
            "{enabled:?}: {sent}"
        );

        pi.mock.push(Turn::text("ok"));
        let mut rpc = RpcClient::start(&pi);
        let response =
            rpc.call(json!({"id": "p", "type": "prompt", "message": "/skill:greet the team"}));
        assert_eq!(response["success"], true, "{response}");
        rpc.wait_event("agent_end");
        let sent = last_user_text(&pi);
        assert_eq!(
            sent.contains("GREETINGS-FROM-THE-SKILL"),
            expanded,
            "rpc {enabled:?}: {sent}"
        );
    }
}

/// Skills that cannot load, or load with a problem, are named with their file and the reason:
/// on stderr in print, JSON and RPC modes, and in the UI's start-up header.
#[test]
fn skill_warnings_reach_the_user_in_every_mode() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let skills = pi.agent_dir().join("skills");
    let write = |dir: &str, text: &str| {
        std::fs::create_dir_all(skills.join(dir)).unwrap();
        std::fs::write(skills.join(dir).join("SKILL.md"), text).unwrap();
    };
    write("nodesc", "---\nname: nodesc\n---\nNo description.\n");
    write(
        "first",
        "---\nname: twin\ndescription: The first.\n---\nOne.\n",
    );
    write(
        "second",
        "---\nname: twin\ndescription: The second.\n---\nTwo.\n",
    );
    let nodesc = skills.join("nodesc/SKILL.md");
    let check = |err: &str, mode: &str| {
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("Warning (skills): {}", nodesc.display())))
            .unwrap_or_else(|| panic!("{mode}: {err}"));
        assert!(line.contains("description"), "{mode}: {line}");
        assert_eq!(
            err.matches("nodesc/SKILL.md").count(),
            1,
            "{mode}: said once: {err}"
        );
        assert!(
            err.lines().any(|l| l.starts_with("Warning (skills): ")
                && l.contains("not loaded: the name \"twin\" is taken by")),
            "{mode}: {err}"
        );
    };
    for mode in [&["-p"][..], &["--mode", "json"][..]] {
        pi.mock.push(Turn::text("ok"));
        let mut args = vec!["--no-session"];
        args.extend_from_slice(mode);
        args.push("hi");
        let out = pi.run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        check(&stderr(&out), mode[0]);
    }
    let mut rpc = RpcClient::start(&pi);
    let state = rpc.call(json!({"id": "s", "type": "get_state"}));
    assert_eq!(state["success"], true, "{state}");
    drop(rpc.stdin.take());
    let out = rpc.child.wait_with_output().unwrap();
    check(&String::from_utf8_lossy(&out.stderr), "rpc");

    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.wait_text("Warning (skills)");
    tmux.wait_text("taken by");
    tmux.exit();
}
