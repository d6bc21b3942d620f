//! `pi` in a real pseudo-terminal for the benches: `script` from util-linux gives it one and
//! hands back everything it writes.

use crate::support::Dirs;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// `pi` in a pseudo-terminal of 100×30; what it writes arrives on `output`.
pub struct Session {
    child: Child,
    stdin: ChildStdin,
    output: Receiver<Vec<u8>>,
    seen: Vec<u8>,
}

impl Session {
    pub fn start(bin: &str, dirs: &Dirs, args: &[&str]) -> Session {
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let inner = format!("stty rows 30 cols 100; exec '{bin}' {}", quoted.join(" "));
        let mut child = Command::new("script")
            .args(["-qfec", &inner, "/dev/null"])
            .current_dir(&dirs.cwd)
            .env_clear()
            .env("PATH", &dirs.path)
            .env("HOME", &dirs.home)
            .env("TERM", "xterm-256color")
            .env("PI_CODING_AGENT_DIR", &dirs.agent)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("`script` runs (Debian package bsdutils)");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, output) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin,
            output,
            seen: Vec::new(),
        }
    }

    /// Waits until the terminal output holds `marker` (counted from the last call).
    pub fn wait_for(&mut self, marker: &str) {
        // Long enough for the reference pi to open a 200 MB session.
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            if let Some(at) = find(&self.seen, marker.as_bytes()) {
                self.seen.drain(..at + marker.len());
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.seen.extend(bytes),
                Err(_) => panic!(
                    "no {marker:?} from pi; it wrote:\n{}",
                    String::from_utf8_lossy(&self.seen)
                ),
            }
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The pid of pi itself (script's child).
    pub fn pi_pid(&self) -> u32 {
        let script = self.child.id();
        let children =
            std::fs::read_to_string(format!("/proc/{script}/task/{script}/children")).unwrap();
        children.split_whitespace().next().unwrap().parse().unwrap()
    }

    pub fn exit(mut self) {
        self.send(b"\x04");
        let _ = self.child.wait();
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The peak RSS of `pid` so far, in KB (`VmHWM`).
pub fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
