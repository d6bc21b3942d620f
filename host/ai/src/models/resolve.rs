//! Turning what a user typed (`--model sonnet:high`) into a model, and fitting thinking levels
//! to what a model supports.

use crate::types::{Model, ThinkingLevel};
use std::cmp::Ordering;

/// Finds a model for `pattern` (pi's `parseModelPattern`):
/// 1. an exact `provider/id`, or a bare id that only one provider has (case-insensitive);
/// 2. otherwise models whose id or name contains the pattern, preferring aliases (ids without a
///    `-YYYYMMDD` date, or ending in `-latest`), highest id first;
/// 3. otherwise, if the text after the last `:` is a thinking level, the part before it
///    (ids may contain colons themselves, e.g. OpenRouter's `…:free`, so the whole pattern is
///    tried first).
pub fn find_by_pattern<'a>(
    models: &'a [Model],
    pattern: &str,
) -> Option<(&'a Model, Option<ThinkingLevel>)> {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return None;
    }
    if let Some(model) = match_model(models, pattern) {
        return Some((model, None));
    }
    let (prefix, suffix) = pattern.rsplit_once(':')?;
    let level = ThinkingLevel::parse(&suffix.trim().to_ascii_lowercase())?;
    let (model, _) = find_by_pattern(models, prefix)?;
    Some((model, Some(level)))
}

fn match_model<'a>(models: &'a [Model], pattern: &str) -> Option<&'a Model> {
    exact_match(models, pattern).or_else(|| partial_match(models, pattern))
}

/// An exact reference; `None` when nothing or more than one model matches.
pub fn exact_match<'a>(models: &'a [Model], reference: &str) -> Option<&'a Model> {
    let wanted = reference.trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let unique = |found: Vec<&'a Model>| (found.len() == 1).then(|| found[0]);
    let canonical: Vec<&Model> = models
        .iter()
        .filter(|m| format!("{}/{}", m.provider, m.id).to_lowercase() == wanted)
        .collect();
    if !canonical.is_empty() {
        return unique(canonical);
    }
    let by_id: Vec<&Model> = models
        .iter()
        .filter(|m| m.id.to_lowercase() == wanted)
        .collect();
    unique(by_id)
}

fn partial_match<'a>(models: &'a [Model], pattern: &str) -> Option<&'a Model> {
    let needle = pattern.to_lowercase();
    let matches: Vec<&Model> = models
        .iter()
        .filter(|m| {
            m.id.to_lowercase().contains(&needle) || m.name.to_lowercase().contains(&needle)
        })
        .collect();
    let (aliases, dated): (Vec<&Model>, Vec<&Model>) =
        matches.into_iter().partition(|m| is_alias(&m.id));
    let pool = if aliases.is_empty() { dated } else { aliases };
    pool.into_iter().max_by(|a, b| compare_ids(&a.id, &b.id))
}

/// An alias is an id without a trailing `-YYYYMMDD` date, or one ending in `-latest`.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let bytes = id.as_bytes();
    let dated = bytes.len() > 9
        && bytes[bytes.len() - 9] == b'-'
        && bytes[bytes.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// Close to JavaScript's `localeCompare` for ids: case-insensitive first, then by case.
fn compare_ids(a: &str, b: &str) -> Ordering {
    a.to_lowercase()
        .cmp(&b.to_lowercase())
        .then_with(|| b.cmp(a))
}

/// The thinking levels `model` accepts. Non-reasoning models only `off`; reasoning models up to
/// `high` (xhigh/max need a per-model mapping, which the catalog does not carry yet).
pub fn supported_thinking_levels(model: &Model) -> Vec<ThinkingLevel> {
    if !model.reasoning {
        return vec![ThinkingLevel::Off];
    }
    vec![
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
    ]
}

/// `level` if `model` supports it, else the nearest supported level above it, else below.
pub fn clamp_thinking_level(model: &Model, level: ThinkingLevel) -> ThinkingLevel {
    let supported = supported_thinking_levels(model);
    if supported.contains(&level) {
        return level;
    }
    supported
        .iter()
        .copied()
        .filter(|l| *l > level)
        .min()
        .or_else(|| supported.iter().copied().filter(|l| *l < level).max())
        .unwrap_or(ThinkingLevel::Off)
}
