//! File lookup for the editor: `@` fuzzy completion over a background listing of the
//! project, and Tab completion of a path being typed.
//!
//! The listing runs on its own thread so that opening the editor in a huge tree never
//! waits for the disk; `search` works on whatever has been listed so far.

use pi_ai::lock;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Acquire, Ordering::Release};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Entries the walker gathers before publishing them, so the lock is taken rarely.
const CHUNK: usize = 4096;
/// Publish earlier than `CHUNK` if the disk is slow, so the first results show up quickly.
const FLUSH_EVERY: Duration = Duration::from_millis(30);

// Score weights. Every candidate matches every query char, so what separates them is
// where the chars land: bonuses for meaningful places, penalties for gaps and length.
const MATCH: i32 = 16;
const GAP_START: i32 = 3;
const GAP_EXT: i32 = 1;
const BONUS_SLASH: i32 = 10; // start of the path or of a path component
const BONUS_WORD: i32 = 8; // after `_`, `-`, `.` or a space
const BONUS_CAMEL: i32 = 7; // lower→upper change
const BONUS_CONSEC: i32 = 4; // least reward for continuing a run
const BONUS_NAME: i32 = 6; // each matched char inside the file name
const BONUS_PREFIX: i32 = 12; // the query starts at the start of the file name
const LEN_DIV: i64 = 4; // one point off per this many chars of path
/// Above this many DP cells (a huge path and a huge query) a greedy match is used
/// instead, so a pathological input cannot make one search allocate a lot of memory.
const MAX_CELLS: usize = 1 << 20;
const NONE: usize = usize::MAX;
const NEG: i32 = i32::MIN / 2;

/// The files under a directory, listed once in the background, for `@` completion.
pub struct FileIndex {
    shared: Arc<Shared>,
}

/// What the walker thread and the searches share. Entries are published as immutable
/// chunks behind `Arc`s, so a search only copies a short list of pointers under the lock
/// and then scores without holding up the walker.
#[derive(Default)]
struct Shared {
    chunks: Mutex<Vec<Arc<Vec<String>>>>,
    len: AtomicUsize,
    ready: AtomicBool,
    stop: AtomicBool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMatch {
    pub path: String, // relative, `/`-separated, directories end with `/`
    pub score: i64,
    pub positions: Vec<usize>, // byte offsets in `path` of the matched chars, for highlighting
}

impl FileIndex {
    /// Starts listing `root` on a background thread (the `ignore` crate's walker: respects
    /// .gitignore, .ignore, git exclude, skips hidden files and the `.git` dir, does not
    /// follow symlinks), keeping paths relative to root with `/` separators, directories
    /// too (with a trailing `/`). Stops at `limit` entries. Returns at once.
    pub fn start(root: PathBuf, limit: usize) -> FileIndex {
        let shared = Arc::new(Shared::default());
        let worker = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("file-index".into())
            .spawn(move || walk(&root, limit, &worker));
        if spawned.is_err() {
            // No thread, no listing: say so rather than leave callers waiting forever.
            shared.ready.store(true, Release);
        }
        FileIndex { shared }
    }

    /// A ready index over given paths, so ranking can be tested without a disk.
    #[cfg(test)]
    fn from_paths(paths: Vec<String>) -> FileIndex {
        let shared = Arc::new(Shared::default());
        shared.len.store(paths.len(), Release);
        lock(&shared.chunks).push(Arc::new(paths));
        shared.ready.store(true, Release);
        FileIndex { shared }
    }

    /// Whether the listing has finished.
    pub fn is_ready(&self) -> bool {
        self.shared.ready.load(Acquire)
    }

    /// How many entries are listed so far.
    pub fn len(&self) -> usize {
        self.shared.len.load(Acquire)
    }

    /// The best `limit` matches for `query` among what is listed so far, best first.
    /// Empty query: shallowest entries first, then alphabetical. Otherwise fuzzy with
    /// smart case; `Scorer` says what scores well. Ties: shorter path, then alphabetical.
    pub fn search(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        if limit == 0 {
            return Vec::new();
        }
        // Copy only the chunk pointers, so the walker is never held up by scoring.
        let chunks = lock(&self.shared.chunks).clone();
        let mut scorer = (!query.is_empty()).then(|| Scorer::new(query));
        let mut heap = BinaryHeap::with_capacity(limit.min(4096) + 1);
        for path in chunks.iter().flat_map(|chunk| chunk.iter()) {
            let path = path.as_str();
            let ranked = match &mut scorer {
                Some(scorer) => scorer.score(path).map(|s| (s, path.len())),
                None => Some((-depth(path), 0)),
            };
            let Some((score, len)) = ranked else { continue };
            let cand = Ranked(score, Reverse(len), Reverse(path));
            // The heap's top is the worst kept candidate, replaced when a better one
            // comes, so memory stays at `limit` entries.
            if heap.len() < limit {
                heap.push(Reverse(cand));
            } else if let Some(mut worst) = heap.peek_mut()
                && cand > worst.0
            {
                *worst = Reverse(cand);
            }
        }
        // Ascending `Reverse` order is best first. Only the kept few pay for allocating
        // and for recovering the matched positions.
        let kept = heap.into_sorted_vec().into_iter().map(|Reverse(r)| r);
        kept.map(|Ranked(score, _, Reverse(path))| {
            let positions = scorer
                .as_mut()
                .and_then(|s| s.score(path).map(|_| s.positions()));
            FileMatch {
                path: path.to_string(),
                score,
                positions: positions.unwrap_or_default(),
            }
        })
        .collect()
    }
}

impl Drop for FileIndex {
    /// Nobody can search a dropped index, so the walker may as well stop early.
    fn drop(&mut self) {
        self.shared.stop.store(true, Release);
    }
}

/// A candidate in the top-N heap: score, then length, then path, where greater is
/// better, so shorter and alphabetically first are wrapped in `Reverse`.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Ranked<'a>(i64, Reverse<usize>, Reverse<&'a str>);

/// How many directories deep `path` is, for ordering the empty query.
fn depth(path: &str) -> i64 {
    path.trim_end_matches('/').matches('/').count() as i64
}

/// The walker thread: lists `root` and publishes entries in chunks. The walker's
/// defaults already honour ignore files, skip hidden entries and not follow links.
fn walk(root: &Path, limit: usize, shared: &Shared) {
    let walker = ignore::WalkBuilder::new(root)
        .require_git(false) // a plain folder's .gitignore still means "not my files"
        .build();
    let (mut buf, mut total, mut last_flush) = (Vec::new(), 0, Instant::now());
    let publish = |buf: &mut Vec<String>, total: usize| {
        if !buf.is_empty() {
            lock(&shared.chunks).push(Arc::new(std::mem::take(buf)));
            shared.len.store(total, Release);
        }
    };
    for entry in walker {
        if total >= limit || shared.stop.load(Acquire) {
            break;
        }
        // Unreadable entries are skipped: a partial listing beats none.
        let Ok(entry) = entry else { continue };
        let rel = entry.path().strip_prefix(root).ok().and_then(slash_path);
        let Some(mut rel) = rel.filter(|_| entry.depth() > 0) else {
            continue;
        };
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            rel.push('/');
        }
        buf.push(rel);
        total += 1;
        if buf.len() >= CHUNK || last_flush.elapsed() >= FLUSH_EVERY {
            publish(&mut buf, total);
            last_flush = Instant::now();
        }
    }
    publish(&mut buf, total);
    shared.ready.store(true, Release);
}

/// A relative path as `a/b/c`. Names that are not UTF-8 are left out: they could not be
/// put back into the editor's text faithfully anyway.
fn slash_path(rel: &Path) -> Option<String> {
    Some(rel.to_str()?.replace(std::path::MAIN_SEPARATOR, "/"))
}

/// Lowercases one char for case-insensitive comparison. Chars whose lowercase is several
/// chars keep the first, which is what a user typing the lowercase letter means.
fn fold(c: char) -> char {
    if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        c.to_lowercase().next().unwrap_or(c)
    }
}

/// The reward for matching at char `i` given what comes before it: word starts are what
/// people type when they abbreviate a name.
fn boundary_bonus(orig: &[char], i: usize) -> i32 {
    let Some(&prev) = i.checked_sub(1).and_then(|p| orig.get(p)) else {
        return BONUS_SLASH;
    };
    match prev {
        '/' => BONUS_SLASH,
        '_' | '-' | '.' | ' ' => BONUS_WORD,
        p if p.is_lowercase() && orig.get(i).is_some_and(|c| c.is_uppercase()) => BONUS_CAMEL,
        _ => 0,
    }
}

/// One DP cell: the best score of the query so far with its current char matched here.
#[derive(Clone, Copy)]
struct Cell {
    score: i32,
    carry: i32,  // the bonus of the run this match continues, passed on along the run
    prev: usize, // window index of the previous query char's match, for positions
}

const EMPTY: Cell = Cell {
    score: NEG,
    carry: 0,
    prev: NONE,
};

/// Scores one query against many paths, reusing its buffers so no candidate allocates.
///
/// The score is a small dynamic program (like fzf's): for each query char and path char,
/// the best score of a match ending there, either continuing a consecutive run or jumping
/// a gap (an opening penalty plus a smaller one per char). Matches at word starts and
/// inside the file name earn bonuses; a run carries its opening bonus along, so typing the
/// start of a name scores well all the way. Cost: query length × matching window.
#[derive(Default)]
struct Scorer {
    query: Vec<char>,
    ascii: Option<Vec<u8>>, // the query as bytes when it is ASCII, for the fast pre-filter
    sensitive: bool,
    whole_path: bool, // a `/` in the query: the whole path plays the file name's part
    orig: Vec<char>,
    cmp: Vec<char>,
    offs: Vec<usize>,
    cells: Vec<Cell>,
    last: (usize, usize, usize, bool), // window start, width, best end, greedy fallback
}

impl Scorer {
    fn new(query: &str) -> Scorer {
        // Smart case: an uppercase letter means the user cares about case.
        let sensitive = query.chars().any(char::is_uppercase);
        let query: Vec<char> = query
            .chars()
            .map(|c| if sensitive { c } else { fold(c) })
            .collect();
        let ascii = query.iter().all(char::is_ascii);
        let ascii = ascii.then(|| query.iter().map(|&c| c as u8).collect());
        let whole_path = query.contains(&'/');
        Scorer {
            query,
            ascii,
            sensitive,
            whole_path,
            ..Scorer::default()
        }
    }

    /// Whether the query chars appear in order in `path`: a quick scan that rejects most
    /// paths before the costlier scoring.
    fn prefilter(&self, path: &str) -> bool {
        let mut qi = 0;
        if let Some(q) = &self.ascii {
            // Non-ASCII bytes of the path never equal an ASCII query byte, so a byte scan
            // is exact here.
            for b in path.bytes() {
                let b = if self.sensitive {
                    b
                } else {
                    b.to_ascii_lowercase()
                };
                qi += usize::from(q.get(qi) == Some(&b));
            }
            return qi >= q.len();
        }
        for c in path.chars() {
            let c = if self.sensitive { c } else { fold(c) };
            qi += usize::from(self.query.get(qi) == Some(&c));
        }
        qi >= self.query.len()
    }

    /// The score of `path`, or `None` if the query does not match. Leaves the DP table
    /// in place for `positions`.
    fn score(&mut self, path: &str) -> Option<i64> {
        let m = self.query.len();
        let (first, last_q) = (*self.query.first()?, *self.query.last()?);
        if !self.prefilter(path) {
            return None;
        }
        self.orig.clear();
        self.cmp.clear();
        self.offs.clear();
        for (off, c) in path.char_indices() {
            self.offs.push(off);
            self.orig.push(c);
            self.cmp.push(if self.sensitive { c } else { fold(c) });
        }
        let name_byte = match self.whole_path {
            true => 0,
            false => path.trim_end_matches('/').rfind('/').map_or(0, |i| i + 1),
        };
        let name_start = self.offs.partition_point(|&o| o < name_byte);
        // Only the span from the first possible first char to the last possible last
        // char can hold a match.
        let lo = self.cmp.iter().position(|&c| c == first)?;
        let w = (self.cmp.iter().rposition(|&c| c == last_q)? + 1).checked_sub(lo)?;
        let len_penalty = self.orig.len() as i64 / LEN_DIV;
        if w < m {
            return None;
        } else if m * w > MAX_CELLS {
            self.last = (lo, w, 0, true);
            return Some(i64::from(MATCH) * m as i64 - len_penalty);
        }
        self.cells.clear();
        self.cells.resize(m * w, EMPTY);
        for (j, &qc) in self.query.iter().enumerate() {
            let (mut gap_best, mut gap_from) = (NEG, NONE);
            for x in 0..w {
                let i = lo + x;
                if j > 0 {
                    // Every earlier match is one char further away now; the match two
                    // chars back becomes reachable with a gap of one.
                    gap_best = gap_best.saturating_sub(GAP_EXT).max(NEG);
                    let h = x
                        .checked_sub(2)
                        .map_or(NEG, |k| self.cells[(j - 1) * w + k].score);
                    if h > NEG && h - GAP_START > gap_best {
                        (gap_best, gap_from) = (h - GAP_START, x - 2);
                    }
                }
                if self.cmp[i] != qc {
                    continue;
                }
                let bonus = boundary_bonus(&self.orig, i);
                let name = if i >= name_start { BONUS_NAME } else { 0 };
                let cell = if j == 0 {
                    let prefix = if i == name_start { BONUS_PREFIX } else { 0 };
                    Some(Cell {
                        score: MATCH + bonus + prefix + name,
                        carry: bonus + prefix,
                        prev: NONE,
                    })
                } else {
                    let diag = x
                        .checked_sub(1)
                        .map_or(EMPTY, |k| self.cells[(j - 1) * w + k]);
                    let run_bonus = bonus.max(diag.carry).max(BONUS_CONSEC);
                    let run = (diag.score > NEG).then(|| Cell {
                        score: diag.score + MATCH + name + run_bonus,
                        carry: diag.carry.max(bonus),
                        prev: x - 1,
                    });
                    let jump = (gap_best > NEG).then_some(Cell {
                        score: gap_best + MATCH + name + bonus,
                        carry: bonus,
                        prev: gap_from,
                    });
                    // On a tie the run wins: `max_by_key` keeps the last maximum.
                    jump.into_iter().chain(run).max_by_key(|c| c.score)
                };
                self.cells[j * w + x] = cell.unwrap_or(EMPTY);
            }
        }
        let row = self.cells.get((m - 1) * w..)?.iter().enumerate();
        let (best_x, best) = row.max_by_key(|(x, c)| (c.score, Reverse(*x)))?;
        if best.score <= NEG {
            return None;
        }
        let score = i64::from(best.score) - len_penalty;
        self.last = (lo, w, best_x, false);
        Some(score)
    }

    /// Byte offsets of the matched chars for the path last passed to `score`.
    fn positions(&self) -> Vec<usize> {
        let (lo, w, mut x, greedy) = self.last;
        let mut out = Vec::with_capacity(self.query.len());
        if greedy {
            let mut q = self.query.iter().peekable();
            for (i, c) in self.cmp.iter().enumerate().skip(lo) {
                if q.next_if_eq(&c).is_some() {
                    out.push(self.offs[i]);
                }
            }
            return out;
        }
        for j in (0..self.query.len()).rev() {
            let Some(cell) = self.cells.get(j * w + x) else {
                break;
            };
            out.push(self.offs[lo + x]);
            if cell.prev == NONE {
                break;
            }
            x = cell.prev;
        }
        out.reverse();
        out
    }
}

/// Tab completion of a path being typed: the entries of the directory part of `partial`
/// (relative to `cwd`, or absolute, or starting with `~/` expanded with $HOME) whose names
/// start with the rest, sorted, directories with a trailing `/`; hidden entries only when
/// the typed name starts with `.`. Errors (missing dir, permission) → empty.
pub fn complete_path(cwd: &Path, partial: &str) -> Vec<String> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    complete_path_in(cwd, partial, home.as_deref())
}

/// `complete_path` with the home directory passed in, so tests need not change $HOME.
fn complete_path_in(cwd: &Path, partial: &str, home: Option<&Path>) -> Vec<String> {
    if partial == "~" {
        return home.map(|_| vec!["~/".to_string()]).unwrap_or_default();
    }
    // Each completion replaces `partial` whole, so the directory part is kept as typed.
    let (dir_part, typed) = partial.split_at(partial.rfind('/').map_or(0, |i| i + 1));
    let dir = match (dir_part.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        (Some(_), None) => return Vec::new(),
        (None, _) => cwd.join(dir_part), // an absolute `dir_part` replaces `cwd`
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let show_hidden = typed.starts_with('.');
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if !name.starts_with(typed) || (name.starts_with('.') && !show_hidden) {
                return None;
            }
            let kind = entry.file_type().ok()?;
            // A link to a directory completes like one, since the user will go inside.
            let is_dir = kind.is_dir()
                || (kind.is_symlink() && std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()));
            Some(format!("{dir_part}{name}{}", if is_dir { "/" } else { "" }))
        })
        .collect();
    out.sort();
    out
}

/// The longest common prefix of the completions (char-boundary safe), to insert on Tab
/// when several match.
pub fn common_prefix(items: &[String]) -> String {
    let Some((first, rest)) = items.split_first() else {
        return String::new();
    };
    let mut end = first.len();
    for item in rest {
        let same = first[..end]
            .char_indices()
            .zip(item.chars())
            .take_while(|((_, a), b)| a == b);
        end = same.last().map_or(0, |((i, a), _)| i + a.len_utf8());
    }
    first[..end].to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::fs;

    /// An in-memory index over space-separated paths.
    fn index(paths: &str) -> FileIndex {
        FileIndex::from_paths(paths.split_whitespace().map(String::from).collect())
    }

    /// The top `n` results for `query`, space-separated, for short assertions.
    fn top(idx: &FileIndex, query: &str, n: usize) -> String {
        let got: Vec<_> = idx.search(query, n).into_iter().map(|m| m.path).collect();
        got.join(" ")
    }

    fn positions(paths: &str, query: &str) -> Vec<usize> {
        index(paths).search(query, 1).remove(0).positions
    }

    /// A temp tree; names ending in `/` are empty directories. The root's name has no
    /// leading dot, so it is not itself hidden.
    fn tree(files: &str) -> tempfile::TempDir {
        let dir = tempfile::Builder::new().prefix("files").tempdir().unwrap();
        for f in files.split_whitespace() {
            let path = dir.path().join(f.trim_end_matches('/'));
            let parent = if f.ends_with('/') {
                &path
            } else {
                path.parent().unwrap()
            };
            fs::create_dir_all(parent).unwrap();
            if !f.ends_with('/') {
                fs::write(&path, "x").unwrap();
            }
        }
        dir
    }

    fn listed(root: &Path, limit: usize) -> FileIndex {
        let idx = FileIndex::start(root.to_path_buf(), limit);
        let start = Instant::now();
        while !idx.is_ready() {
            assert!(start.elapsed() < Duration::from_secs(10), "walker hung");
            std::thread::sleep(Duration::from_millis(5));
        }
        idx
    }

    #[test]
    fn walker_respects_ignores_and_hidden() {
        let files = "src/main.rs src/lib.rs docs/readme.md ignored.txt build/out.o secret.txt";
        let dir = tree(&format!("{files} .hidden .git/HEAD empty/"));
        fs::write(dir.path().join(".gitignore"), "ignored.txt\nbuild/\n").unwrap();
        fs::write(dir.path().join(".ignore"), "secret.txt\n").unwrap();
        let idx = listed(dir.path(), 200_000);
        let mut all: Vec<_> = idx.search("", 100).into_iter().map(|m| m.path).collect();
        all.sort();
        let want = "docs/ docs/readme.md empty/ src/ src/lib.rs src/main.rs";
        assert_eq!((all.join(" ").as_str(), idx.len()), (want, 6));
        let limited = listed(dir.path(), 2);
        assert_eq!((limited.len(), limited.search("", 10).len()), (2, 2));
    }

    #[test]
    fn ranking() {
        let paths = "src/domain/mod.rs main_test/lib.rs tests/mainly_long.rs src/bin/main.rs";
        let idx = index(&format!("{paths} src/main.rs src/main/mod.rs"));
        assert_eq!(top(&idx, "main", 1), "src/main.rs");
        // The file name beats a directory of the same name, even in a longer path.
        let idx = index("src/util/mod.rs src/helpers/util.rs");
        assert_eq!(top(&idx, "util", 2), "src/helpers/util.rs src/util/mod.rs");
        // Word starts and camelCase humps beat letters inside words.
        let idx = index("src/magic.rs src/get_config.rs src/fab.rs src/FooBar.rs");
        assert_eq!(top(&idx, "gc", 1), "src/get_config.rs");
        assert_eq!(top(&idx, "fb", 1), "src/FooBar.rs");
        assert_eq!(positions("src/fab.rs src/FooBar.rs", "fb"), [4, 7]);
        // Smart case.
        let idx = index("src/main.rs src/Main.java");
        assert_eq!(top(&idx, "Main", 5), "src/Main.java");
        assert_eq!(idx.search("main", 5).len(), 2);
    }

    #[test]
    fn slash_queries_and_positions() {
        let idx = index("src/main.rs tests/main.rs src/ui/mod.rs lib/src_ma.rs");
        assert_eq!(top(&idx, "src/ma", 5), "src/main.rs");
        assert_eq!(positions("src/main.rs", "src/ma"), [0, 1, 2, 3, 4, 5]);
        assert_eq!(positions("src/main.rs", "mrs"), [4, 9, 10]);
        // Byte offsets, not char indices, so highlighting works on multibyte names.
        let path = "dösseldorf/größe.txt";
        let got = positions(path, "grö");
        assert_eq!(got, [12, 13, 14]);
        assert!(
            got.iter()
                .zip("grö".chars())
                .all(|(&p, c)| path[p..].starts_with(c))
        );
    }

    #[test]
    fn empty_query_limits_and_odd_input() {
        let idx = index("b/c/d.rs z.rs a/b.rs m/ a/");
        assert_eq!(top(&idx, "", 10), "a/ m/ z.rs a/b.rs b/c/d.rs");
        assert_eq!((idx.search("", 2).len(), idx.search("rs", 1).len()), (2, 1));
        assert!(idx.search("rs", 0).is_empty());
        let idx = index("a.rs dösseldorf/größe.txt 🦀/x İstanbul");
        for q in [
            "a_query_longer_than_any_path",
            "🦀",
            "/",
            "//",
            "ÄÖ",
            "ß",
            " ",
            "İ",
            "i",
        ] {
            let _ = idx.search(q, 10);
        }
        assert_eq!(top(&idx, "🦀", 10), "🦀/x");
    }

    #[test]
    fn complete_path_cases() {
        let dir = tree("main.rs manifest/ lib.rs .hidden .hdir/ src/mod.rs");
        let cwd = dir.path();
        let c = |p: &str| complete_path_in(cwd, p, Some(cwd)).join(" ");
        assert_eq!(c("ma"), "main.rs manifest/");
        assert_eq!(c("src/"), "src/mod.rs");
        assert_eq!(c(""), "lib.rs main.rs manifest/ src/");
        assert_eq!(c("."), ".hdir/ .hidden");
        assert_eq!(c("~/ma"), "~/main.rs ~/manifest/");
        assert_eq!((c("~").as_str(), c("nope/x").as_str()), ("~/", ""));
        assert!(complete_path_in(cwd, "~/ma", None).is_empty());
        let abs = format!("{}/li", cwd.display());
        let want = format!("{}/lib.rs", cwd.display());
        assert_eq!(complete_path(Path::new("/"), &abs), [want]);
    }

    #[test]
    fn common_prefix_is_char_safe() {
        let p =
            |v: &str| common_prefix(&v.split_whitespace().map(String::from).collect::<Vec<_>>());
        assert_eq!(p("größe.txt größer.rs"), "größe");
        assert_eq!(p("é è"), ""); // same first byte, different chars
        assert_eq!(p("src/main.rs src/manifest/"), "src/ma");
        assert_eq!((p("only"), p("")), ("only".to_string(), String::new()));
    }

    #[test]
    fn fifty_thousand_paths() {
        let words = [
            "src", "lib", "tests", "core", "ui", "net", "util", "model", "view", "cfg",
        ];
        let name = |i: usize| {
            let (a, b, c) = (words[i % 10], words[i / 10 % 10], words[i / 100 % 10]);
            format!(
                "{a}/{b}/{c}_{i}.{}",
                ["rs", "toml", "md", "txt"][i / 1000 % 4]
            )
        };
        let mut paths: Vec<String> = (0..50_000).map(name).collect();
        paths.insert(25_000, "src/render/renderPipeline.rs".to_string());
        paths.insert(30_000, "net/cfg.rs".to_string());
        let idx = FileIndex::from_paths(paths);
        assert_eq!(top(&idx, "rndpipe", 10), "src/render/renderPipeline.rs");
        assert!(top(&idx, "netcfg", 10).starts_with("net/cfg.rs "));
        for query in ["s", "rs", "src", "netcfg", "core/ui", "rndpipe", ""] {
            let start = Instant::now();
            let n = idx.search(query, 50).len();
            eprintln!(
                "search {query:?} in 50,000 paths: {:?}, {n} hits",
                start.elapsed()
            );
        }
    }
}
