//! A small hand-written syntax highlighter for code blocks in the terminal UI.
//!
//! This is deliberately not a parser. Each language is a static table (keywords, built-in type
//! names, comment and string delimiters, a few behaviour flags) and one shared scanner walks each
//! line once, left to right, so the cost is linear in the line length and nothing is allocated per
//! character. The only thing remembered between lines is whether we are inside a block comment, a
//! multi-line string or an HTML tag: that is what lets the UI feed a block line by line and still
//! colour constructs that span lines.
//!
//! Token boundaries are only ever placed next to ASCII bytes or at the end of the line, and every
//! non-ASCII byte counts as an identifier character, so all ranges land on char boundaries.

use std::ops::Range;
use tables::NAMES;

/// What a piece of code is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Keyword,
    Type,
    Function,
    String,
    Number,
    Comment,
    Operator,
    Punctuation,
    Added,
    Removed,
}

type Spans = Vec<(Kind, Range<usize>)>;

/// One way of quoting a string. `close` is matched literally, so triple quotes and Lua's `[[ ]]`
/// fit the same shape as a plain `"`. A string that is not `multiline` still continues onto the
/// next line when the line ends in a backslash, as C and Python allow.
#[derive(Debug)]
struct Quote {
    open: &'static str,
    close: &'static str,
    multiline: bool,
    escapes: bool,
}

/// Everything the scanner needs to know about one language.
#[derive(Debug)]
struct Lang {
    keywords: &'static [&'static str],
    types: &'static [&'static str],
    line_comments: &'static [&'static str],
    block_comments: &'static [(&'static str, &'static str)],
    /// Tried in order, so triple quotes come before single ones.
    quotes: &'static [Quote],
    /// Letters glued in front of a quote that belong to the string (`b"…"`, `f'…'`, `@"…"`).
    /// A prefix with `@` makes the string raw (C# verbatim strings).
    prefixes: &'static [&'static str],
    flags: u32,
}

// Behaviour flags, for the few things that do not fit in a table of delimiters.
const RUST: u32 = 1; // `'a` lifetimes vs `'x'` chars, `r#"raw"#` strings, `name!` macros
const UPPER: u32 = 1 << 1; // Capitalised names are types by convention.
const NESTED: u32 = 1 << 2; // Block comments nest.
const HASH_WORD: u32 = 1 << 3; // A line comment only starts a word: `a#b` is not a comment.
const SHELL: u32 = 1 << 4; // `$VAR`, `NAME=value`, command names, `-./` inside words.
const DOLLAR: u32 = 1 << 5; // `$` is part of identifiers (JS, PHP).
const DASH: u32 = 1 << 6; // `-` is part of identifiers (CSS, TOML, YAML).
const DOT: u32 = 1 << 7; // `.` is part of identifiers (TOML dotted keys).
const NOCASE: u32 = 1 << 8; // Keywords are case-insensitive.
const QUOTE_WORD: u32 = 1 << 9; // A quote after a letter is an apostrophe (YAML `don't`).
const PREPROC: u32 = 1 << 10; // `#include`-style directives are keywords.
const SECTIONS: u32 = 1 << 11; // `[section]` header lines are keywords (TOML).
const CSS: u32 = 1 << 12; // Selectors outside braces, properties inside, `#fff`, `@media`.
const CONSOLE: u32 = 1 << 13; // A terminal session: only text after a prompt is shell.
const DIFF: u32 = 1 << 14; // Whole-line colouring of a unified diff.
const MARKUP: u32 = 1 << 15; // HTML/XML tags, attributes, strings and comments.
const KEY_COLON: u32 = 1 << 16; // A string followed by `:` is a key (JSON).
const KEY_YAML: u32 = 1 << 17; // `key: ` or a line-ending `key:` (keeps `http://x` a value).
const KEY_EQ: u32 = 1 << 18; // A word or string followed by `=` is a key (TOML).
const KEYS: u32 = KEY_COLON | KEY_YAML | KEY_EQ | CSS;

/// Keywords after which the next name is being defined as a function…
const DEF_WORDS: &[&str] = &["def", "fn", "fun", "func", "function"];
/// …or as a type.
#[rustfmt::skip]
const TYPE_WORDS: &[&str] = &["class", "enum", "extension", "interface", "module", "protocol", "record", "struct",
    "trait", "type", "union"];
/// Shell keywords that are followed by another command.
const SHELL_CMD_WORDS: &[&str] = &["if", "then", "else", "elif", "do", "while", "until", "time"];

/// The language tables: plain data, kept out of rustfmt so each stays a few dense lines.
#[rustfmt::skip]
mod tables {
use super::*;

const fn quote(open: &'static str, close: &'static str, multiline: bool, escapes: bool) -> Quote {
    Quote { open, close, multiline, escapes }
}
pub(super) const DQ: Quote = quote("\"", "\"", false, true);
const DQ_ML: Quote = quote("\"", "\"", true, true);
const SQ: Quote = quote("'", "'", false, true);
const SQ_ML: Quote = quote("'", "'", true, true);
const SQ_RAW: Quote = quote("'", "'", false, false);
const SQ_RAW_ML: Quote = quote("'", "'", true, false);
const BACKTICK: Quote = quote("`", "`", true, true);
const BACKTICK_RAW: Quote = quote("`", "`", true, false);
const TRIPLE_DQ: Quote = quote("\"\"\"", "\"\"\"", true, true);
const TRIPLE_SQ: Quote = quote("'''", "'''", true, true);
const TRIPLE_SQ_RAW: Quote = quote("'''", "'''", true, false);
const LUA_LONG: Quote = quote("[[", "]]", true, false);

const BASE: Lang = Lang {
    keywords: &[], types: &[], line_comments: &[], block_comments: &[], quotes: &[], prefixes: &[], flags: 0,
};
const SLASH: &[&str] = &["//"];
const HASH: &[&str] = &["#"];
const C_BLOCK: &[(&str, &str)] = &[("/*", "*/")];
const C_QUOTES: &[Quote] = &[DQ, SQ];

static RUST_LANG: Lang = Lang {
    keywords: &["as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "union", "unsafe", "use",
        "where", "while", "yield"],
    types: &["bool", "char", "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "str", "u8", "u16", "u32",
        "u64", "u128", "usize"],
    line_comments: SLASH, block_comments: C_BLOCK, quotes: &[DQ_ML], prefixes: &["b", "c"],
    flags: RUST | UPPER | NESTED,
};
static PYTHON: Lang = Lang {
    keywords: &["False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
        "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return", "self", "try", "while",
        "with", "yield"],
    types: &["bool", "bytearray", "bytes", "complex", "dict", "float", "frozenset", "int", "list", "object", "set",
        "str", "tuple", "type"],
    line_comments: HASH, quotes: &[TRIPLE_DQ, TRIPLE_SQ, DQ, SQ],
    prefixes: &["r", "b", "f", "u", "rb", "br", "fr", "rf"], ..BASE
};
const JS_KEYWORDS: &[&str] = &[
    "async", "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
    "do", "else", "export", "extends", "false", "finally", "for", "from", "function", "if", "import", "in",
    "instanceof", "let", "new", "null", "of", "return", "static", "super", "switch", "this", "throw", "true",
    "try", "typeof", "undefined", "var", "void", "while", "with", "yield"
];
static JS: Lang = Lang {
    keywords: JS_KEYWORDS, line_comments: SLASH, block_comments: C_BLOCK, quotes: &[DQ, SQ, BACKTICK],
    flags: UPPER | DOLLAR, ..BASE
};
static TS: Lang = Lang {
    keywords: &["abstract", "as", "async", "await", "break", "case", "catch", "class", "const", "continue",
        "debugger", "declare", "default", "delete", "do", "else", "enum", "export", "extends", "false", "finally",
        "for", "from", "function", "if", "implements", "import", "in", "infer", "instanceof", "interface", "is",
        "keyof", "let", "namespace", "new", "null", "of", "private", "protected", "public", "readonly", "return",
        "satisfies", "static", "super", "switch", "this", "throw", "true", "try", "type", "typeof", "undefined",
        "var", "void", "while", "with", "yield"],
    types: &["any", "bigint", "boolean", "never", "number", "object", "string", "symbol", "unknown"],
    ..JS
};
static GO: Lang = Lang {
    keywords: &["break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "false",
        "for", "func", "go", "goto", "if", "import", "interface", "iota", "map", "nil", "package", "range",
        "return", "select", "struct", "switch", "true", "type", "var"],
    types: &["any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64", "int",
        "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64",
        "uintptr"],
    line_comments: SLASH, block_comments: C_BLOCK, quotes: &[DQ, SQ, BACKTICK_RAW], ..BASE
};
const C_TYPES: &[&str] = &["bool", "char", "double", "float", "int", "long", "short", "signed", "unsigned", "void",
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "wchar_t", "char8_t", "char16_t", "char32_t", "FILE"];
static C: Lang = Lang {
    keywords: &["auto", "break", "case", "const", "continue", "default", "do", "else", "enum", "extern", "false",
        "for", "goto", "if", "inline", "NULL", "register", "restrict", "return", "sizeof", "static", "struct",
        "switch", "true", "typedef", "union", "volatile", "while"],
    types: C_TYPES, line_comments: SLASH, block_comments: C_BLOCK, quotes: C_QUOTES,
    prefixes: &["L", "u8", "u", "U"], flags: PREPROC
};
static CPP: Lang = Lang {
    keywords: &["alignas", "alignof", "auto", "break", "case", "catch", "class", "concept", "const", "consteval",
        "constexpr", "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype",
        "default", "delete", "do", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "final",
        "for", "friend", "goto", "if", "inline", "mutable", "namespace", "new", "noexcept", "nullptr", "NULL",
        "operator", "override", "private", "protected", "public", "register", "reinterpret_cast", "requires",
        "return", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
        "throw", "true", "try", "typedef", "typeid", "typename", "union", "using", "virtual", "volatile", "while"],
    ..C
};
static JAVA: Lang = Lang {
    keywords: &["abstract", "assert", "break", "case", "catch", "class", "const", "continue", "default", "do",
        "else", "enum", "extends", "false", "final", "finally", "for", "goto", "if", "implements", "import",
        "instanceof", "interface", "native", "new", "null", "package", "permits", "private", "protected", "public",
        "record", "return", "sealed", "static", "strictfp", "super", "switch", "synchronized", "this", "throw",
        "throws", "transient", "true", "try", "var", "volatile", "while", "yield"],
    types: &["boolean", "byte", "char", "double", "float", "int", "long", "short", "void"],
    line_comments: SLASH, block_comments: C_BLOCK, quotes: &[TRIPLE_DQ, DQ, SQ], flags: UPPER, ..BASE
};
static KOTLIN: Lang = Lang {
    keywords: &["abstract", "as", "break", "by", "catch", "class", "companion", "const", "constructor", "continue",
        "data", "do", "else", "enum", "false", "final", "finally", "for", "fun", "get", "if", "import", "in",
        "init", "inline", "interface", "internal", "is", "lateinit", "null", "object", "open", "operator", "out",
        "override", "package", "private", "protected", "public", "return", "sealed", "set", "super", "suspend",
        "this", "throw", "true", "try", "typealias", "val", "var", "vararg", "when", "where", "while"],
    flags: UPPER | NESTED, ..JAVA
};
static SWIFT: Lang = Lang {
    keywords: &["actor", "any", "as", "associatedtype", "async", "await", "break", "case", "catch", "class",
        "continue", "convenience", "default", "defer", "deinit", "do", "else", "enum", "extension", "fallthrough",
        "false", "fileprivate", "final", "for", "func", "guard", "if", "import", "in", "init", "inout", "internal",
        "is", "lazy", "let", "mutating", "nil", "open", "operator", "override", "private", "protocol", "public",
        "repeat", "required", "rethrows", "return", "self", "Self", "some", "static", "struct", "subscript",
        "super", "switch", "throw", "throws", "true", "try", "typealias", "var", "weak", "where", "while"],
    line_comments: SLASH, block_comments: C_BLOCK, quotes: &[TRIPLE_DQ, DQ], flags: UPPER | NESTED, ..BASE
};
static CSHARP: Lang = Lang {
    keywords: &["abstract", "as", "async", "await", "base", "break", "case", "catch", "checked", "class", "const",
        "continue", "default", "delegate", "do", "else", "enum", "event", "explicit", "extern", "false", "finally",
        "fixed", "for", "foreach", "get", "goto", "if", "implicit", "in", "init", "interface", "internal", "is",
        "lock", "nameof", "namespace", "new", "null", "operator", "out", "override", "params", "private",
        "protected", "public", "readonly", "record", "ref", "return", "sealed", "set", "sizeof", "stackalloc",
        "static", "struct", "switch", "this", "throw", "true", "try", "typeof", "unchecked", "unsafe", "using",
        "var", "virtual", "volatile", "when", "where", "while", "yield"],
    types: &["bool", "byte", "char", "decimal", "double", "dynamic", "float", "int", "long", "nint", "nuint",
        "object", "sbyte", "short", "string", "uint", "ulong", "ushort", "void"],
    line_comments: SLASH, block_comments: C_BLOCK, quotes: &[TRIPLE_DQ, DQ, SQ],
    prefixes: &["@", "$", "$@", "@$"], flags: UPPER | PREPROC
};
static SHELL_LANG: Lang = Lang {
    keywords: &["alias", "break", "case", "continue", "declare", "do", "done", "elif", "else", "esac", "eval",
        "exec", "exit", "export", "fi", "for", "function", "if", "in", "local", "readonly", "return", "select",
        "shift", "source", "then", "time", "trap", "unset", "until", "while"],
    line_comments: HASH, quotes: &[DQ_ML, SQ_RAW_ML], flags: SHELL | HASH_WORD, ..BASE
};
static CONSOLE_LANG: Lang = Lang { flags: SHELL | HASH_WORD | CONSOLE, ..SHELL_LANG };
static JSON: Lang = Lang { keywords: &["true", "false", "null"], quotes: &[DQ], flags: KEY_COLON, ..BASE };
static JSONC: Lang = Lang { line_comments: SLASH, block_comments: C_BLOCK, ..JSON };
static TOML: Lang = Lang {
    keywords: &["true", "false", "inf", "nan"], line_comments: HASH, quotes: &[TRIPLE_DQ, TRIPLE_SQ_RAW, DQ, SQ_RAW],
    flags: KEY_EQ | DASH | DOT | SECTIONS, ..BASE
};
static YAML: Lang = Lang {
    keywords: &["true", "false", "null", "yes", "no", "on", "off"], line_comments: HASH, quotes: &[DQ, SQ_RAW],
    flags: KEY_YAML | DASH | HASH_WORD | QUOTE_WORD | NOCASE, ..BASE
};
static DIFF_LANG: Lang = Lang { flags: DIFF, ..BASE };
static MARKUP_LANG: Lang = Lang { block_comments: &[("<!--", "-->")], flags: MARKUP, ..BASE };
static CSS_LANG: Lang = Lang {
    keywords: &["absolute", "auto", "block", "bold", "fixed", "flex", "grid", "hidden", "important", "inherit",
        "initial", "inline", "none", "normal", "relative", "solid", "sticky", "transparent", "unset"],
    block_comments: C_BLOCK, quotes: C_QUOTES, flags: CSS | DASH, ..BASE
};
static SQL: Lang = Lang {
    keywords: &["add", "all", "alter", "and", "as", "asc", "begin", "between", "by", "cascade", "case", "check",
        "column", "commit", "constraint", "create", "cross", "database", "default", "delete", "desc", "distinct",
        "drop", "else", "end", "exists", "false", "foreign", "from", "full", "grant", "group", "having", "if", "in",
        "index", "inner", "insert", "into", "is", "join", "key", "left", "like", "limit", "natural", "not", "null",
        "offset", "on", "or", "order", "outer", "primary", "references", "replace", "returning", "revoke", "right",
        "rollback", "schema", "select", "set", "table", "then", "transaction", "true", "union", "unique", "update",
        "using", "values", "view", "when", "where", "with"],
    types: &["bigint", "blob", "bool", "boolean", "bytea", "char", "date", "decimal", "double", "float", "int",
        "integer", "json", "jsonb", "numeric", "real", "serial", "smallint", "text", "time", "timestamp", "tinyint",
        "uuid", "varchar"],
    line_comments: &["--"], block_comments: C_BLOCK, quotes: &[SQ_RAW, DQ], flags: NOCASE, ..BASE
};
static RUBY: Lang = Lang {
    keywords: &["BEGIN", "END", "alias", "and", "attr_accessor", "attr_reader", "attr_writer", "begin", "break",
        "case", "class", "def", "defined", "do", "else", "elsif", "end", "ensure", "extend", "false", "for", "if",
        "in", "include", "lambda", "module", "next", "nil", "not", "or", "private", "proc", "protected", "public",
        "raise", "redo", "require", "require_relative", "rescue", "retry", "return", "self", "super", "then",
        "true", "undef", "unless", "until", "when", "while", "yield"],
    line_comments: HASH, quotes: &[DQ_ML, SQ_ML], ..BASE
};
static LUA: Lang = Lang {
    keywords: &["and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "self", "then", "true", "until", "while"],
    line_comments: &["--"], block_comments: &[("--[[", "]]")], quotes: &[LUA_LONG, DQ, SQ], ..BASE
};
static PHP: Lang = Lang {
    keywords: &["abstract", "and", "array", "as", "break", "case", "catch", "class", "clone", "const", "continue",
        "declare", "default", "do", "echo", "else", "elseif", "empty", "enum", "extends", "false", "final",
        "finally", "fn", "for", "foreach", "function", "global", "goto", "if", "implements", "include",
        "include_once", "instanceof", "interface", "isset", "list", "match", "namespace", "new", "null", "or",
        "parent", "php", "print", "private", "protected", "public", "readonly", "require", "require_once",
        "return", "self", "static", "switch", "throw", "trait", "true", "try", "unset", "use", "var", "while",
        "xor", "yield"],
    types: &["bool", "float", "int", "iterable", "mixed", "never", "object", "string", "void"],
    line_comments: &["//", "#"], block_comments: C_BLOCK, quotes: &[DQ_ML, SQ_ML], flags: DOLLAR | NOCASE, ..BASE
};

/// Fence info strings we recognise, compared case-insensitively.
pub(super) static NAMES: &[(&str, &Lang)] = &[
    ("rust", &RUST_LANG), ("rs", &RUST_LANG), ("py", &PYTHON), ("python", &PYTHON), ("python3", &PYTHON),
    ("js", &JS), ("javascript", &JS), ("jsx", &JS), ("mjs", &JS), ("cjs", &JS), ("ts", &TS),
    ("typescript", &TS), ("tsx", &TS), ("go", &GO), ("golang", &GO), ("c", &C), ("h", &C), ("cpp", &CPP),
    ("c++", &CPP), ("cc", &CPP), ("cxx", &CPP), ("hpp", &CPP), ("hh", &CPP), ("java", &JAVA),
    ("kotlin", &KOTLIN), ("kt", &KOTLIN), ("kts", &KOTLIN), ("swift", &SWIFT), ("cs", &CSHARP),
    ("csharp", &CSHARP), ("c#", &CSHARP), ("sh", &SHELL_LANG), ("bash", &SHELL_LANG), ("zsh", &SHELL_LANG),
    ("shell", &SHELL_LANG), ("console", &CONSOLE_LANG), ("shell-session", &CONSOLE_LANG), ("json", &JSON),
    ("jsonc", &JSONC), ("json5", &JSONC), ("toml", &TOML), ("yaml", &YAML), ("yml", &YAML), ("diff", &DIFF_LANG),
    ("patch", &DIFF_LANG), ("html", &MARKUP_LANG), ("htm", &MARKUP_LANG), ("xml", &MARKUP_LANG),
    ("svg", &MARKUP_LANG), ("css", &CSS_LANG), ("sql", &SQL), ("ruby", &RUBY), ("rb", &RUBY), ("lua", &LUA),
    ("php", &PHP),
];

}

/// What is still open at the end of a line and must be continued on the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Normal,
    Comment { idx: usize, depth: u32 },
    Str { idx: usize, raw: bool },
    RawStr { hashes: usize },
    Tag,
    TagStr { quote: u8 },
}

/// A highlighter for one code block; keeps the state that spans lines (block comments, multi-line strings).
#[derive(Debug, Clone)]
pub struct Highlighter {
    lang: &'static Lang,
    state: State,
    /// Brace depth, which tells a CSS selector from a property.
    depth: u32,
    /// Per-line scratch: the spans so far, the kind forced on the next word (after `fn`, `class`,
    /// …) and, for shell, whether the next word is a command name.
    out: Spans,
    hint: Option<Kind>,
    cmd: bool,
}

fn pick(cond: bool, yes: Kind, no: Kind) -> Kind {
    if cond { yes } else { no }
}

/// The first index at or after `j` whose byte does not satisfy `keep`.
fn run_end(b: &[u8], mut j: usize, keep: impl Fn(u8) -> bool) -> usize {
    while j < b.len() && keep(b[j]) {
        j += 1;
    }
    j
}

/// The index and length of the first delimiter in `list` that `rest` starts with.
fn starts<'a>(rest: &[u8], list: impl Iterator<Item = &'a str>) -> Option<(usize, usize)> {
    let mut list = list.enumerate();
    list.find(|(_, d)| rest.starts_with(d.as_bytes()))
        .map(|(i, d)| (i, d.len()))
}

/// Identifier characters; every non-ASCII byte counts, so multibyte text stays in one piece.
fn is_word(c: u8, f: u32) -> bool {
    let extra = (c == b'$' && f & DOLLAR != 0) || (c == b'-' && f & (DASH | SHELL) != 0);
    let path = (c == b'.' && f & (DOT | SHELL) != 0) || (c == b'/' && f & SHELL != 0);
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || extra || path
}

fn is_word_start(c: u8, next: Option<u8>, f: u32) -> bool {
    let dash_word = next.is_some_and(|d| d.is_ascii_alphabetic() || d == b'-');
    let css_dash = c == b'-' && f & CSS != 0 && dash_word;
    let extra = (c == b'$' && f & DOLLAR != 0) || (matches!(c, b'.' | b'/') && f & SHELL != 0);
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 || extra || css_dash
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c >= 0x80 || matches!(c, b'-' | b'_' | b':' | b'.')
}

fn is_space_or_end(c: Option<u8>) -> bool {
    c.is_none_or(|c| c.is_ascii_whitespace())
}

fn has(list: &[&str], w: &str, nocase: bool) -> bool {
    list.iter()
        .any(|k| *k == w || (nocase && k.eq_ignore_ascii_case(w)))
}

/// `Foo`, `T` and `HashMap` look like types; `MAX_LEN` looks like a constant.
fn looks_like_type(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_uppercase) && (w.len() == 1 || chars.any(char::is_lowercase))
}

/// Decimal, hex/octal/binary, floats with exponents, `_` separators and suffixes like `10u32`;
/// with `quote_sep`, also C++'s `1'000` (otherwise the `'` would open a char literal).
fn number_end(b: &[u8], mut j: usize, quote_sep: bool) -> usize {
    let radix = b.get(j) == Some(&b'0') && b.get(j + 1).is_some_and(|c| b"xXbBoO".contains(c));
    let mut seen_dot = false;
    while j < b.len() {
        let c = b[j];
        let digit_at = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_alphanumeric() || c == b'_' {
            j += 1;
            let sign = matches!(b.get(j), Some(b'+' | b'-'));
            if !radix && matches!(c, b'e' | b'E') && sign && digit_at(j + 1) {
                j += 2;
            }
        } else if c == b'.' && !seen_dot && !radix && digit_at(j + 1) {
            seen_dot = true;
            j += 1;
        } else if c == b'\'' && quote_sep && b.get(j + 1).is_some_and(u8::is_ascii_hexdigit) {
            j += 1;
        } else {
            break;
        }
    }
    j
}

/// Rust's `'`: a char literal (`'x'`, `'\n'`, `'é'`), a lifetime or label (`'a`), or a stray quote.
fn rust_quote(line: &str, i: usize) -> (Kind, usize) {
    let b = line.as_bytes();
    if b.get(i + 1) == Some(&b'\\') {
        // Skip the escaped character itself so `'\''` works; `'\u{1F600}'` is the longest form.
        let tail = b.get(i + 3..b.len().min(i + 16));
        let found = tail.and_then(|r| r.iter().position(|&c| c == b'\''));
        return (Kind::String, found.map_or(i + 2, |p| i + 4 + p));
    }
    if let Some(ch) = line.get(i + 1..).and_then(|s| s.chars().next()) {
        let after = i + 1 + ch.len_utf8();
        if b.get(after) == Some(&b'\'') {
            return (Kind::String, after + 1);
        }
        if ch.is_alphabetic() || ch == '_' {
            return (Kind::Type, run_end(b, i + 1, |c| is_word(c, 0)));
        }
    }
    (Kind::Punctuation, i + 1)
}

/// `r"…"`, `r#"…"#`, `br"…"`, `cr"…"`: the number of `#` and the offset of the contents.
fn raw_start(rest: &[u8]) -> Option<(usize, usize)> {
    let p = match rest {
        [b'r', ..] => 1,
        [b'b' | b'c', b'r', ..] => 2,
        _ => return None,
    };
    let hashes = run_end(rest, p, |c| c == b'#') - p;
    (rest.get(p + hashes) == Some(&b'"')).then_some((hashes, p + hashes + 1))
}

/// The end of a shell expansion starting with `$` at `i` (`$HOME`, `${x:-y}`, `$?`, `$1`).
fn shell_var(b: &[u8], i: usize) -> usize {
    match b.get(i + 1) {
        Some(b'{') => (run_end(b, i + 2, |c| c != b'}') + 1).min(b.len()),
        Some(&c) if c.is_ascii_alphabetic() || c == b'_' => {
            run_end(b, i + 1, |c| c.is_ascii_alphanumeric() || c == b'_')
        }
        Some(&c) if c.is_ascii_digit() || b"?#@*!$-".contains(&c) => i + 2,
        _ => i + 1,
    }
}

impl Highlighter {
    /// The highlighter for a fence's info string (`rust`, `rs`, `py`, `python`, `js`, `javascript`,
    /// `ts`, `typescript`, `tsx`, `jsx`, `go`, `c`, `h`, `cpp`, `c++`, `cc`, `hpp`, `java`,
    /// `kotlin`/`kt`, `swift`, `cs`/`csharp`, `sh`, `bash`, `zsh`, `shell`, `console`, `json`,
    /// `jsonc`, `toml`, `yaml`, `yml`, `diff`, `patch`, `html`/`xml`, `css`, `sql`, `ruby`/`rb`,
    /// `lua`, `php`), case-insensitive, ignoring anything after the first space or comma
    /// (e.g. "rust,ignore" → rust). None when the language is unknown or empty.
    pub fn for_language(info: &str) -> Option<Highlighter> {
        let name = info.trim_start().split([' ', '\t', ',']).next()?;
        let &(_, lang) = NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))?;
        let (state, out) = (State::Normal, Vec::new());
        Some(Highlighter {
            lang,
            state,
            depth: 0,
            out,
            hint: None,
            cmd: false,
        })
    }

    /// The spans of one line (without its newline): consecutive (Kind, byte range) that cover the
    /// whole line exactly, in order, on char boundaries, adjacent spans of the same kind merged.
    /// Never panics on any input (any UTF-8, any length).
    pub fn line(&mut self, line: &str) -> Vec<(Kind, Range<usize>)> {
        let (f, len) = (self.lang.flags, line.len());
        let prompt = ["$ ", "% ", "> "].into_iter().find(|p| line.starts_with(p));
        if f & DIFF != 0 {
            // `+++`/`---` are file headers, not changed lines.
            let head = line.starts_with("+++") || line.starts_with("---");
            let kind = match line.as_bytes().first() {
                _ if line.starts_with("@@") => Kind::Keyword,
                Some(b'+') if !head => Kind::Added,
                Some(b'-') if !head => Kind::Removed,
                _ => Kind::Plain,
            };
            self.push(kind, 0, len);
        } else if f & MARKUP != 0 {
            self.markup(line.as_bytes());
        } else if f & CONSOLE == 0 || self.state != State::Normal {
            self.code(line, 0);
        } else if let Some(p) = prompt {
            // Output lines are left alone; only what follows a prompt is a command.
            self.push(Kind::Punctuation, 0, p.len());
            self.code(line, p.len());
        } else {
            self.push(Kind::Plain, 0, len);
        }
        std::mem::take(&mut self.out)
    }

    /// Appends a span, merging it into the previous one when the kind is the same.
    fn push(&mut self, kind: Kind, start: usize, end: usize) {
        match self.out.last_mut() {
            _ if start >= end => {}
            Some(last) if last.0 == kind && last.1.end == start => last.1.end = end,
            _ => self.out.push((kind, start..end)),
        }
    }

    /// Continues the comment or string in `self.state` from `j`, pushing one span from `start`.
    /// Returns where it ends: after its closing delimiter, or at the end of the line if still open.
    fn cont(&mut self, b: &[u8], mut j: usize, start: usize) -> usize {
        let (lang, len) = (self.lang, b.len());
        let mut kind = Kind::String;
        let closed = match self.state {
            State::Normal | State::Tag => return j,
            State::Comment { idx, mut depth } => {
                kind = Kind::Comment;
                let Some(&(open, close)) = lang.block_comments.get(idx) else {
                    return j;
                };
                let nested = lang.flags & NESTED != 0;
                while j < len && depth > 0 {
                    if b[j..].starts_with(close.as_bytes()) {
                        (j, depth) = (j + close.len(), depth - 1);
                    } else if nested && b[j..].starts_with(open.as_bytes()) {
                        (j, depth) = (j + open.len(), depth + 1);
                    } else {
                        j += 1;
                    }
                }
                self.state = State::Comment { idx, depth };
                depth == 0
            }
            State::Str { idx, raw } => {
                let q = lang.quotes.get(idx).unwrap_or(&tables::DQ);
                let escapes = q.escapes && !raw;
                while j < len && !b[j..].starts_with(q.close.as_bytes()) {
                    j += if escapes && b[j] == b'\\' { 2 } else { 1 };
                }
                let closed = j < len;
                if closed {
                    j += q.close.len();
                    kind = pick(self.is_key(b, j), Kind::Type, Kind::String);
                } else if !q.multiline && j == len {
                    // A single-line string ends with its line unless the line ends in `\`.
                    self.state = State::Normal;
                }
                closed
            }
            State::RawStr { hashes } => {
                let hashes_at = |k: usize| {
                    b.get(k..k + hashes)
                        .is_some_and(|t| t.iter().all(|&c| c == b'#'))
                };
                while j < len && !(b[j] == b'"' && hashes_at(j + 1)) {
                    j += 1;
                }
                j += 1 + hashes;
                j <= len
            }
            State::TagStr { quote } => {
                j = run_end(b, j, |c| c != quote) + 1;
                j <= len
            }
        };
        let end = if closed { j } else { len };
        if closed {
            let tag = matches!(self.state, State::TagStr { .. });
            self.state = if tag { State::Tag } else { State::Normal };
        }
        self.push(kind, start, end);
        end
    }

    /// Whether a token ending at `j` is a key or property (`"a":`, `a:`, `a =`, `color:`).
    fn is_key(&self, b: &[u8], j: usize) -> bool {
        let f = self.lang.flags;
        let k = run_end(b, j, |c| c == b' ' || c == b'\t');
        match (f & KEYS != 0, b.get(k), b.get(k + 1).copied()) {
            (false, ..) => false,
            (_, Some(b':'), _) if f & KEY_COLON != 0 => true,
            (_, Some(b':'), after) if f & KEY_YAML != 0 => is_space_or_end(after),
            (_, Some(b':'), after) if f & CSS != 0 => self.depth > 0 || is_space_or_end(after),
            (_, Some(b'='), _) => f & KEY_EQ != 0,
            _ => false,
        }
    }

    /// If a string starts at `i`: the state inside it and the offset of its contents.
    fn string_start(&self, b: &[u8], i: usize) -> Option<(State, usize)> {
        let (lang, rest) = (self.lang, b.get(i..)?);
        let quote_at = |off: usize, raw: bool| {
            let (idx, n) = starts(rest.get(off..)?, lang.quotes.iter().map(|q| q.open))?;
            Some((State::Str { idx, raw }, off + n))
        };
        for p in lang.prefixes {
            let hit = rest
                .get(..p.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(p.as_bytes()));
            if hit && let Some(found) = quote_at(p.len(), p.contains('@')) {
                return Some(found);
            }
        }
        if lang.flags & RUST != 0
            && let Some((hashes, skip)) = raw_start(rest)
        {
            return Some((State::RawStr { hashes }, skip));
        }
        let after_word = i > 0 && b.get(i - 1).is_some_and(|&c| is_word(c, lang.flags));
        if lang.flags & QUOTE_WORD != 0 && after_word {
            return None;
        }
        quote_at(0, false)
    }

    /// Highlights code from byte `from`, first finishing whatever the previous line left open.
    fn code(&mut self, line: &str, from: usize) {
        let (b, lang) = (line.as_bytes(), self.lang);
        let f = lang.flags;
        if matches!(self.state, State::Tag | State::TagStr { .. }) {
            self.state = State::Normal;
        }
        let mut i = self.cont(b, from, from);
        (self.hint, self.cmd) = (None, f & SHELL != 0);
        let t = run_end(b, i, |c| c.is_ascii_whitespace());
        if f & SECTIONS != 0 && i == from && b.get(t) == Some(&b'[') {
            let stop = run_end(b, t, |c| c != b'#');
            let close = b[t..stop].iter().rposition(|&c| c == b']');
            let end = close.map_or(stop, |p| t + p + 1);
            self.push(Kind::Plain, i, t);
            self.push(Kind::Keyword, t, end);
            i = end;
        }
        let mut first = true;
        while i < b.len() {
            let (start, c, rest, next) = (i, b[i], &b[i..], b.get(i + 1).copied());
            if c.is_ascii_whitespace() {
                i = run_end(b, i, |c| c.is_ascii_whitespace());
                self.push(Kind::Plain, start, i);
                continue;
            }
            let (hint, was_cmd) = (self.hint.take(), std::mem::take(&mut self.cmd));
            let at_start = std::mem::take(&mut first);
            let prev = b.get(i.wrapping_sub(1)).copied().filter(|_| i > from);
            let at_word = prev.is_none_or(|p| p.is_ascii_whitespace() || b";|&(".contains(&p));
            if let Some((idx, n)) = starts(rest, lang.block_comments.iter().map(|d| d.0)) {
                self.state = State::Comment { idx, depth: 1 };
                i = self.cont(b, i + n, start);
                continue;
            }
            let line_comment = starts(rest, lang.line_comments.iter().copied()).is_some();
            if line_comment && (f & HASH_WORD == 0 || at_word) {
                self.push(Kind::Comment, start, b.len());
                return;
            }
            if let Some((state, skip)) = self.string_start(b, i) {
                self.state = state;
                i = self.cont(b, i + skip, start);
                continue;
            }
            let number_dot = c == b'.' && !prev.is_some_and(|p| p == b'.' || is_word(p, f));
            let css_sigil = f & CSS != 0 && b"@#.".contains(&c);
            let (kind, end) = if f & RUST != 0 && c == b'\'' {
                rust_quote(line, i)
            } else if f & SHELL != 0 && c == b'$' {
                let end = shell_var(b, i);
                (pick(end > i + 1, Kind::Type, Kind::Operator), end)
            } else if f & PREPROC != 0 && c == b'#' && at_start {
                let j = run_end(b, i + 1, |c| c == b' ' || c == b'\t');
                let end = run_end(b, j, |c| c.is_ascii_alphanumeric() || c == b'_');
                (Kind::Keyword, end)
            } else if css_sigil
                && next.is_some_and(|d| is_word(d, f) && !(c == b'.' && d.is_ascii_digit()))
            {
                // `@media`, `.class` and `#id` selectors, or a `#c0ffee` colour inside a block.
                let end = run_end(b, i + 1, |d| is_word(d, f));
                let colour = self.depth > 0 && b[i + 1..end].iter().all(u8::is_ascii_hexdigit);
                let kind = match c {
                    b'@' => Kind::Keyword,
                    b'#' if colour => Kind::Number,
                    _ => Kind::Type,
                };
                (kind, end)
            } else if c.is_ascii_digit() || (number_dot && next.is_some_and(|d| d.is_ascii_digit()))
            {
                (Kind::Number, number_end(b, i, f & PREPROC != 0))
            } else if is_word_start(c, next, f) {
                let end = run_end(b, i + 1, |d| is_word(d, f));
                let word = line.get(start..end).unwrap_or("");
                (self.classify(word, b, end, hint, was_cmd), end)
            } else {
                self.depth = match c {
                    b'{' => self.depth.saturating_add(1),
                    b'}' => self.depth.saturating_sub(1),
                    _ => self.depth,
                };
                self.cmd = f & SHELL != 0 && b"|;&({`!".contains(&c);
                let op = b"+-*/%=<>!&|^~?".contains(&c);
                (pick(op, Kind::Operator, Kind::Punctuation), i + 1)
            };
            self.push(kind, start, end);
            i = end;
        }
    }

    /// The kind of the word `w` ending at `j`, given what came before it on the line.
    fn classify(&mut self, w: &str, b: &[u8], j: usize, hint: Option<Kind>, was_cmd: bool) -> Kind {
        let (lang, next) = (self.lang, b.get(j).copied());
        let (f, nocase) = (lang.flags, lang.flags & NOCASE != 0);
        let call = next == Some(b'(');
        if self.is_key(b, j) {
            return Kind::Type;
        }
        if f & CSS != 0 && !call {
            // Outside a block every word is part of a selector.
            let selector = self.depth == 0 || has(lang.keywords, w, false);
            return pick(selector, Kind::Keyword, Kind::Plain);
        }
        if has(lang.keywords, w, nocase) {
            let def = DEF_WORDS.contains(&w).then_some(Kind::Function);
            self.hint = def.or(TYPE_WORDS.contains(&w).then_some(Kind::Type));
            self.cmd = f & SHELL != 0 && SHELL_CMD_WORDS.contains(&w);
            return Kind::Keyword;
        }
        let macro_call = f & RUST != 0 && next == Some(b'!') && b.get(j + 1) != Some(&b'=');
        if has(lang.types, w, nocase) {
            Kind::Type
        } else if let Some(kind) = hint {
            kind
        } else if call || macro_call {
            Kind::Function
        } else if f & SHELL != 0 && next == Some(b'=') {
            Kind::Type
        } else if f & SHELL != 0 && was_cmd {
            Kind::Function
        } else if f & UPPER != 0 && looks_like_type(w) {
            Kind::Type
        } else {
            Kind::Plain
        }
    }

    /// HTML/XML: text, `<tag attr="value">` (which may span lines) and `<!-- comments -->`.
    fn markup(&mut self, b: &[u8]) {
        let mut i = self.cont(b, 0, 0);
        while i < b.len() {
            let (start, c, next) = (i, b[i], b.get(i + 1).copied());
            let opens_tag =
                c == b'<' && next.is_some_and(|d| d.is_ascii_alphabetic() || b"/!?".contains(&d));
            let (kind, end) = if self.state == State::Tag {
                match c {
                    b'"' | b'\'' => {
                        self.state = State::TagStr { quote: c };
                        i = self.cont(b, i + 1, start);
                        continue;
                    }
                    b'>' => (Kind::Punctuation, i + 1),
                    b'/' | b'?' if next == Some(b'>') => (Kind::Punctuation, i + 2),
                    b'=' => (Kind::Operator, i + 1),
                    _ if c.is_ascii_whitespace() => {
                        (Kind::Plain, run_end(b, i, |c| c.is_ascii_whitespace()))
                    }
                    _ if is_name(c) => (Kind::Type, run_end(b, i, is_name)),
                    _ => (Kind::Punctuation, i + 1),
                }
            } else if b[i..].starts_with(b"<!--") {
                self.state = State::Comment { idx: 0, depth: 1 };
                i = self.cont(b, i + 4, start);
                continue;
            } else if opens_tag {
                let j = i + 1 + usize::from(next.is_some_and(|d| b"/!?".contains(&d)));
                self.push(Kind::Punctuation, start, j);
                self.state = State::Tag;
                i = run_end(b, j, is_name);
                self.push(Kind::Keyword, j, i);
                continue;
            } else if c == b'&' {
                // `&amp;` and `&#38;` entities.
                let end = run_end(b, i + 1, |d| d.is_ascii_alphanumeric() || d == b'#');
                let entity = end > i + 1 && b.get(end) == Some(&b';');
                let end = if entity { end + 1 } else { i + 1 };
                (pick(entity, Kind::Number, Kind::Plain), end)
            } else {
                (Kind::Plain, run_end(b, i + 1, |d| d != b'<' && d != b'&'))
            };
            if self.state == State::Tag && b.get(end - 1) == Some(&b'>') {
                self.state = State::Normal;
            }
            self.push(kind, start, end);
            i = end;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
