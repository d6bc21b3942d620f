//! Deterministic random inputs for the parsers' property tests.
//!
//! The property tests of pi-ai, pi-agent, pi-session and pi-ext-host share this generator
//! instead of a property-testing framework: none is in the offline registry cache the builds
//! use, and a seeded `fastrand` generator is enough to say "never panics on this input family"
//! and "agrees with the one-shot parse". Every case has its own seed, so a failure is replayed
//! exactly with `PI_FUZZ_SEED` (the base seed) and the reported case number; `PI_FUZZ_CASES`
//! multiplies the case counts for a longer local run. Inputs are small on purpose: the whole
//! set has to run in seconds in a debug build.

use serde_json::{Map, Value};

/// The base seed when `PI_FUZZ_SEED` is not set: runs are the same on every machine.
const DEFAULT_SEED: u64 = 0x5eed_0019_0004;

/// Runs `body` for `cases` seeded cases (times `PI_FUZZ_CASES` when set) and returns how many
/// ran. A panicking case prints the target, case number and seed before the test fails.
pub fn run(target: &str, cases: u64, mut body: impl FnMut(&mut Gen)) -> u64 {
    let base = env_u64("PI_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let total = cases.saturating_mul(env_u64("PI_FUZZ_CASES").unwrap_or(1).max(1));
    for case in 0..total {
        let seed = base ^ case.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let guard = Reporter { target, case, base };
        body(&mut Gen {
            rng: fastrand::Rng::with_seed(seed),
        });
        std::mem::forget(guard);
    }
    eprintln!("fuzz {target}: {total} cases");
    total
}

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Dropped only when a case panics (a passing case forgets it): says how to replay it.
struct Reporter<'a> {
    target: &'a str,
    case: u64,
    base: u64,
}

impl Drop for Reporter<'_> {
    fn drop(&mut self) {
        eprintln!(
            "fuzz {}: case {} failed (PI_FUZZ_SEED={:#x})",
            self.target, self.case, self.base
        );
    }
}

/// Pieces that make random text likely to hit parser states: JSON and YAML punctuation,
/// escapes, line endings, template references, glob syntax, multi-byte characters.
const TOKENS: &[&str] = &[
    "{", "}", "[", "]", "\"", "\\", ":", ",", " ", "\n", "\r", "\r\n", "\t", "-", "+", ".", "e",
    "E", "0", "1", "9", "true", "false", "null", "tr", "\\u", "\\ud83d", "\\ude00", "\\n", "#",
    "'", "|", ">", "---", "data:", "event:", "$", "${", "@:", "*", "**", "?", "/", "!", "é", "😀",
    "\u{0}", "\u{7f}", "\u{feff}", "\u{2028}",
];

/// The random source of one case.
pub struct Gen {
    rng: fastrand::Rng,
}

impl Gen {
    /// A number in `0..=max`.
    pub fn below(&mut self, max: usize) -> usize {
        self.rng.usize(0..=max)
    }

    /// True with probability `1/n` (`n` ≥ 1).
    pub fn one_in(&mut self, n: usize) -> bool {
        self.rng.usize(0..n.max(1)) == 0
    }

    pub fn bool(&mut self) -> bool {
        self.rng.bool()
    }

    pub fn u64(&mut self) -> u64 {
        self.rng.u64(..)
    }

    pub fn f64(&mut self) -> f64 {
        self.rng.f64()
    }

    /// One item of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.usize(0..items.len())]
    }

    /// Up to `max` arbitrary bytes.
    pub fn bytes(&mut self, max: usize) -> Vec<u8> {
        let mut out = vec![0; self.below(max)];
        self.rng.fill(&mut out);
        out
    }

    /// Up to `max` characters: a mix of tokens, ASCII and any code point.
    pub fn string(&mut self, max: usize) -> String {
        let count = self.below(max);
        let mut out = String::new();
        for _ in 0..count {
            self.push_piece(&mut out, &[]);
        }
        out
    }

    /// Like [`Gen::string`], with `extra` tokens (a format's own keywords) in the mix.
    pub fn string_with(&mut self, max: usize, extra: &[&str]) -> String {
        let count = self.below(max);
        let mut out = String::new();
        for _ in 0..count {
            self.push_piece(&mut out, extra);
        }
        out
    }

    fn push_piece(&mut self, out: &mut String, extra: &[&str]) {
        match self.below(9) {
            0..=3 => out.push_str(self.pick::<&str>(TOKENS)),
            4 | 5 if !extra.is_empty() => out.push_str(self.pick::<&str>(extra)),
            4..=6 => out.push(self.rng.char(' '..='~')),
            7 => out.push(self.rng.char(..)),
            _ => out.push(self.rng.alphanumeric()),
        }
    }

    /// A near-valid variant of `seed`: a few deletions, insertions of tokens or random text,
    /// duplicated or swapped spans, truncation; cuts stay on character boundaries.
    pub fn mutate(&mut self, seed: &str, extra: &[&str]) -> String {
        let mut text = seed.to_owned();
        for _ in 0..=self.below(3) {
            let at = self.boundary(&text);
            let to = self.boundary_from(&text, at);
            match self.below(6) {
                0 => text.replace_range(at..to, ""),
                1 => {
                    let piece = self.string_with(4, extra);
                    text.insert_str(at, &piece);
                }
                2 => {
                    let span = text[at..to].to_owned();
                    text.insert_str(to, &span);
                }
                3 => text.truncate(at),
                4 => {
                    let piece = self.string_with(2, extra);
                    text.replace_range(at..to, &piece);
                }
                _ => {
                    let other = self.boundary(&text);
                    let (a, b) = (at.min(other), at.max(other));
                    let span = text[a..b].to_owned();
                    text.replace_range(a..b, "");
                    let into = self.boundary(&text);
                    text.insert_str(into, &span);
                }
            }
        }
        text
    }

    /// A near-valid variant of `seed` bytes: bit flips, deletions, insertions, truncation.
    pub fn mutate_bytes(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut bytes = seed.to_vec();
        for _ in 0..=self.below(3) {
            let at = self.below(bytes.len());
            match self.below(4) {
                0 if at < bytes.len() => bytes[at] ^= 1 << self.below(7),
                1 => {
                    let to = (at + self.below(8)).min(bytes.len());
                    bytes.drain(at..to);
                }
                2 => {
                    let piece = self.bytes(6);
                    bytes.splice(at..at, piece);
                }
                _ => bytes.truncate(at),
            }
        }
        bytes
    }

    /// A random character boundary of `text`.
    pub fn boundary(&mut self, text: &str) -> usize {
        self.boundary_from(text, 0)
    }

    fn boundary_from(&mut self, text: &str, from: usize) -> usize {
        let mut at = from + self.below(text.len() - from);
        while !text.is_char_boundary(at) {
            at += 1;
        }
        at
    }

    /// `bytes` cut into random pieces (some empty, mostly short, now and then all at once).
    pub fn chunks<'a>(&mut self, bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        let mut rest = bytes;
        let whole = self.one_in(8);
        while !rest.is_empty() {
            let size = if whole {
                rest.len()
            } else {
                self.chunk_size().min(rest.len())
            };
            let (head, tail) = rest.split_at(size);
            out.push(head);
            rest = tail;
        }
        out
    }

    /// `text` cut into random pieces on character boundaries.
    pub fn str_chunks<'a>(&mut self, text: &'a str) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut rest = text;
        let whole = self.one_in(8);
        while !rest.is_empty() {
            let mut size = if whole {
                rest.len()
            } else {
                self.chunk_size().min(rest.len())
            };
            while !rest.is_char_boundary(size) {
                size += 1;
            }
            let (head, tail) = rest.split_at(size);
            out.push(head);
            rest = tail;
        }
        out
    }

    fn chunk_size(&mut self) -> usize {
        match self.below(4) {
            0 => 0,
            1 => 1,
            2 => self.below(8),
            _ => self.below(64),
        }
    }

    /// A random JSON value, nested at most `depth` levels.
    pub fn json(&mut self, depth: usize) -> Value {
        let kinds = if depth == 0 { 5 } else { 7 };
        match self.below(kinds - 1) {
            0 => Value::Null,
            1 => Value::Bool(self.bool()),
            2 => self.json_number(),
            3 | 4 => Value::String(self.string(8)),
            5 => Value::Array((0..self.below(4)).map(|_| self.json(depth - 1)).collect()),
            _ => Value::Object(self.json_object(depth - 1)),
        }
    }

    /// A random JSON object whose values nest at most `depth` levels.
    pub fn json_object(&mut self, depth: usize) -> Map<String, Value> {
        (0..self.below(4))
            .map(|_| (self.string(4), self.json(depth)))
            .collect()
    }

    fn json_number(&mut self) -> Value {
        match self.below(3) {
            0 => Value::from(self.rng.i64(..)),
            1 => Value::from(self.rng.u64(..)),
            _ => {
                serde_json::Number::from_f64((self.f64() - 0.5) * 10f64.powi(self.rng.i32(-30..30)))
                    .map_or(Value::Null, Value::Number)
            }
        }
    }
}
