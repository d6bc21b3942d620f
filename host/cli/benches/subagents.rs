//! What a subagent costs, the real `pi -p` against the in-process mock LLM, runs interleaved:
//! - a child's overhead: from the end of the parent's reply that calls `subagent` to the
//!   child's first request reaching the mock, against the same gap for a built-in tool (`ls`)
//!   to the parent's next request; and back, from the end of the child's answer to the
//!   parent's next request;
//! - four children, each running ten turns (nine calling `ls` or `read` on a small file, then
//!   a text answer), in one call's `tasks` (parallel) against a `chain` of the same four: the
//!   wall time of the whole run; once with the mock answering at once (pi's own work), once
//!   with each reply waiting [`LATENCY`] first (a model's latency, which parallel children
//!   overlap).
//!
//! The times are the mock's own: when a request had been read in full (`received`) and when
//! its reply had been played to its end (`answered_at`), so the gap holds pi's work only.
//!
//! `cargo bench -p pi-cli --bench subagents`. Goal: a child's overhead ≤ 2 ms over a tool
//! call's. `PI_BENCH_RUNS` sets the runs (default 20).

// A measuring program: failing loudly on a broken setup is what we want.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use pi_mock_llm::{LoggedRequest, MockLlm, Reply, Turn};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::Dirs;

const PI: &str = env!("CARGO_BIN_EXE_pi");
/// The children of the parallel / chain comparison.
const CHILDREN: usize = 4;
/// Runs before the measured ones (caches, the first session directory).
const WARM_UP: usize = 2;
/// The wait before each child's reply in the second comparison.
const LATENCY: Duration = Duration::from_millis(20);
/// The key of the one-child runs' agent; only its system prompt holds it.
const SCOUT_KEY: &str = "BENCH-SCOUT-PROMPT";

fn worker_key(i: usize) -> String {
    format!("BENCH-WORKER-{i}-PROMPT")
}

/// An agent definition in the agent dir; `key` is in its prompt only, for the mock's keyed
/// replies.
fn write_agent(dirs: &Dirs, name: &str, key: &str) {
    let agents = dirs.agent.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    let text = format!("---\nname: {name}\ndescription: The {name} agent\n---\n\nYou are {key}.\n");
    std::fs::write(agents.join(format!("{name}.md")), text).unwrap();
}

fn setup(mock: &MockLlm) -> Dirs {
    let dirs = Dirs::new(mock);
    write_agent(&dirs, "scout", SCOUT_KEY);
    for i in 0..CHILDREN {
        write_agent(&dirs, &format!("worker-{i}"), &worker_key(i));
    }
    std::fs::write(dirs.cwd.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    dirs
}

/// One `pi -p` run to its exit; the requests it made, and its wall time.
fn run(dirs: &Dirs, mock: &MockLlm) -> (Vec<LoggedRequest>, Duration) {
    let before = mock.requests().len();
    let mut cmd = std::process::Command::new(PI);
    dirs.apply(&mut cmd)
        .args(["--model", "mock/mock-model", "-p", "Go"]);
    let started = Instant::now();
    let out = cmd.spawn().unwrap().wait_with_output().unwrap();
    let wall = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mock.pending(), 0, "every scripted reply was used");
    (mock.requests().split_off(before), wall)
}

/// From the end of request `from`'s reply to the arrival of request `to`.
fn gap(log: &[LoggedRequest], from: usize, to: usize) -> Duration {
    let ended = log[from]
        .answered_at
        .expect("the reply was played to its end");
    log[to].received.saturating_duration_since(ended)
}

fn system_prompt(request: &LoggedRequest) -> &str {
    request.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
}

/// The parent calls `ls`, then answers: the gap from the call to the next request.
fn tool_gap(dirs: &Dirs, mock: &MockLlm) -> Duration {
    mock.push(Turn::new().tool_call("l1", "ls", json!({"path": "."})));
    mock.push(Turn::text("ok"));
    let (log, _) = run(dirs, mock);
    assert_eq!(log.len(), 2);
    gap(&log, 0, 1)
}

/// The parent calls `subagent` with one text-only child, then answers: the gaps from the call
/// to the child's first request, and from the child's answer to the parent's next request.
fn child_gaps(dirs: &Dirs, mock: &MockLlm) -> (Duration, Duration) {
    let call = json!({"agent": "scout", "task": "say hi"});
    mock.push(Turn::new().tool_call("s1", "subagent", call));
    mock.push_keyed(SCOUT_KEY, Turn::text("hi"));
    mock.push(Turn::text("ok"));
    let (log, _) = run(dirs, mock);
    assert_eq!(log.len(), 3);
    assert!(system_prompt(&log[1]).contains(SCOUT_KEY), "not the child");
    (gap(&log, 0, 1), gap(&log, 1, 2))
}

/// A child's ten turns: nine tool calls alternating `ls` and `read`, then its answer.
fn ten_turns(key: &str) -> Vec<Turn> {
    let mut turns: Vec<Turn> = (0..9)
        .map(|n| {
            let id = format!("t{n}");
            match n % 2 {
                0 => Turn::new().tool_call(&id, "ls", json!({"path": "."})),
                _ => Turn::new().tool_call(&id, "read", json!({"path": "notes.txt"})),
            }
        })
        .collect();
    turns.push(Turn::text(format!("{key} is done")));
    turns
}

/// The parent hands the four workers to one `subagent` call in `form` (`tasks` or `chain`),
/// their replies each waiting `latency`: the run's wall time.
fn four_children(dirs: &Dirs, mock: &MockLlm, form: &str, latency: Duration) -> Duration {
    let steps: Vec<Value> = (0..CHILDREN)
        .map(|i| json!({"agent": format!("worker-{i}"), "task": "look around"}))
        .collect();
    mock.push(Turn::new().tool_call("f1", "subagent", json!({ form: steps })));
    for i in 0..CHILDREN {
        let key = worker_key(i);
        for turn in ten_turns(&key) {
            mock.push_keyed(&key, Reply::from(turn).delay(latency));
        }
    }
    mock.push(Turn::text("all done"));
    let (log, wall) = run(dirs, mock);
    assert_eq!(log.len(), 2 + CHILDREN * 10);
    for i in 0..CHILDREN {
        let key = worker_key(i);
        let asked = log.iter().filter(|r| system_prompt(r).contains(&key));
        assert_eq!(asked.count(), 10, "{key}");
    }
    // The result carries the answers (a chain's, its last step's).
    let last = log.last().unwrap().body.to_string();
    let done = format!("{} is done", worker_key(CHILDREN - 1));
    assert!(last.contains(&done), "{last}");
    wall
}

fn main() {
    let runs = support::runs(20);
    let mock = MockLlm::start();
    let dirs = setup(&mock);
    let (mut tools, mut children, mut returns) = (vec![], vec![], vec![]);
    // [instant, with latency] × [parallel, chain]
    let mut walls: [[Vec<Duration>; 2]; 2] = Default::default();
    for round in 0..runs + WARM_UP {
        let tool = tool_gap(&dirs, &mock);
        let (child, back) = child_gaps(&dirs, &mock);
        let mut wall = [[Duration::ZERO; 2]; 2];
        for (i, latency) in [Duration::ZERO, LATENCY].into_iter().enumerate() {
            for (j, form) in ["tasks", "chain"].into_iter().enumerate() {
                wall[i][j] = four_children(&dirs, &mock, form, latency);
            }
        }
        if round >= WARM_UP {
            tools.push(tool);
            children.push(child);
            returns.push(back);
            for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                walls[i][j].push(wall[i][j]);
            }
        }
    }
    let (tool, child, back) = (
        support::median_ms(tools),
        support::median_ms(children),
        support::median_ms(returns),
    );
    println!("| measure ({runs} runs, interleaved, medians) | time |");
    println!("|---|---|");
    println!("| end of the reply calling `ls` → the parent's next request | {tool:.2} ms |");
    println!("| end of the reply calling `subagent` → the child's first request | {child:.2} ms |");
    println!(
        "| a child's overhead (the difference; goal ≤ 2 ms) | {:.2} ms |",
        child - tool
    );
    println!("| end of the child's answer → the parent's next request | {back:.2} ms |");
    println!(
        "\n| {CHILDREN} children × 10 turns, `pi -p` spawn to exit ({runs} runs, medians) \
         | parallel (`tasks`) | one after another (`chain`) | ratio |"
    );
    println!("|---|---|---|---|");
    let names = [
        "mock answering at once".to_owned(),
        format!("each reply after {} ms", LATENCY.as_millis()),
    ];
    for (name, [parallel, chained]) in names.iter().zip(walls) {
        let (parallel, chained) = (support::median_ms(parallel), support::median_ms(chained));
        println!(
            "| {name} | {parallel:.1} ms | {chained:.1} ms | {:.2}× |",
            chained / parallel
        );
    }
}
