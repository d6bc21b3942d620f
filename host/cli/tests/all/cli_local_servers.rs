//! A local model with zero set-up: with no credentials, `pi` probes loopback ports for an
//! OpenAI-compatible server and uses the models it lists; `--offline`, `PI_OFFLINE` and the
//! setting `probeLocalServers: false` turn that off; with nothing listening the message names
//! the ports it tried. The port list comes from `PI_LOCAL_SERVER_PORTS` here (the well-known
//! ports may be taken on the test machine); the default list is checked as data in pi-app.

use crate::cli_support::{PiEnv, stderr, stdout};
use pi_app::local_servers::PORTS_ENV;
use pi_mock_llm::{Reply, Turn};
use serde_json::json;

/// A loopback port nothing listens on (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn model_list() -> Reply {
    Reply::json(
        200,
        &json!({"object": "list", "data": [{"id": "qwen-local:7b", "object": "model"}]}),
    )
}

#[test]
fn with_no_credentials_a_local_server_answering_v1_models_is_used() {
    let pi = PiEnv::empty();
    pi.mock.push(model_list());
    pi.mock.push(Turn::text("local answer"));
    let ports = format!("vLLM={},Ollama={}", free_port(), pi.mock.port());
    let mut cmd = pi.command(&["--no-session", "-p", "hello"]);
    cmd.env(PORTS_ENV, &ports);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "local answer");
    let err = stderr(&out);
    let url = format!("http://127.0.0.1:{}/v1", pi.mock.port());
    assert!(err.contains("Ollama") && err.contains(&url), "{err}");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(requests[1].path, "/v1/chat/completions");
    assert_eq!(requests[1].body["model"], "qwen-local:7b");
}

#[test]
fn list_models_offers_the_local_servers_models() {
    let pi = PiEnv::empty();
    pi.mock.push(model_list());
    let mut cmd = pi.command(&["--list-models"]);
    cmd.env(PORTS_ENV, format!("llama.cpp={}", pi.mock.port()));
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(
        rows[0].starts_with("llama-cpp") && rows[0].contains("qwen-local:7b"),
        "{text}"
    );
}

/// Flags, an environment variable and the reason the message gives.
type Off = (
    &'static [&'static str],
    Option<(&'static str, &'static str)>,
    &'static str,
);

#[test]
fn offline_and_the_setting_turn_the_probe_off() {
    let pi = PiEnv::empty();
    let ports = format!("Ollama={}", pi.mock.port());
    let runs: [Off; 3] = [
        (&["--offline"], None, "--offline"),
        (&[], Some(("PI_OFFLINE", "1")), "--offline"),
        (&[], None, "probeLocalServers"),
    ];
    for (flags, env, why) in runs {
        if why == "probeLocalServers" {
            pi.settings(json!({"probeLocalServers": false}));
        }
        let mut args = flags.to_vec();
        args.extend(["--no-session", "-p", "hello"]);
        let mut cmd = pi.command(&args);
        cmd.env(PORTS_ENV, &ports);
        if let Some((name, value)) = env {
            cmd.env(name, value);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{why}");
        let err = stderr(&out);
        assert!(err.contains("No models available"), "{err}");
        assert!(err.contains("not probed") && err.contains(why), "{err}");
    }
    assert!(pi.mock.requests().is_empty());
}

#[test]
fn with_nothing_listening_the_message_names_the_probed_ports() {
    let pi = PiEnv::empty();
    let ports = [free_port(), free_port(), free_port(), free_port()];
    let knob = format!(
        "Ollama={},llama.cpp={},LM Studio={},vLLM={}",
        ports[0], ports[1], ports[2], ports[3]
    );
    let mut cmd = pi.command(&["-p", "hello"]);
    cmd.env(PORTS_ENV, &knob);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.contains("No local server answered"), "{err}");
    for (name, port) in ["Ollama", "llama.cpp", "LM Studio", "vLLM"]
        .iter()
        .zip(ports)
    {
        assert!(
            err.contains(&format!("{name} (127.0.0.1:{port})")),
            "{name}: {err}"
        );
    }
    let mut cmd = pi.command(&["--list-models"]);
    cmd.env(PORTS_ENV, &knob);
    let text = stdout(&cmd.output().unwrap());
    assert!(
        text.starts_with("No models available") && text.contains("No local server answered"),
        "{text}"
    );
}
