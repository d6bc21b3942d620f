//! Turning what a user typed (`--model sonnet:high`) into a model, and fitting thinking levels
//! to what a model supports.
//!
//! pi's own rules ([`find_by_pattern`]) look at one list of models. With extensions that list
//! holds models the user never configured, so [`resolve`] applies the same rules to the
//! user's own models (the built-in catalog, models.json, local servers pi found) first, and
//! reaches an extension's model only when the pattern names it as `provider/id` or when none of
//! the user's models matches: an extension cannot take a bare id, or part of a name, away from
//! the user's model by offering a model of that id (and with it receive the conversation and
//! the `--api-key`).

use crate::types::{Model, ThinkingLevel};
use std::cmp::Ordering;

/// Finds a model for `pattern` (pi's `parseModelPattern`):
/// 1. an exact `provider/id`, or a bare id that only one provider has (case-insensitive);
/// 2. otherwise models whose id or name contains the pattern, preferring aliases (ids without a
///    `-YYYYMMDD` date, or ending in `-latest`), highest id first, the first listed among equal
///    ids;
/// 3. otherwise, if the text after the last `:` is a thinking level, the part before it
///    (ids may contain colons themselves, e.g. OpenRouter's `…:free`, so the whole pattern is
///    tried first).
pub fn find_by_pattern<'a>(
    models: &'a [Model],
    pattern: &str,
) -> Option<(&'a Model, Option<ThinkingLevel>)> {
    let all: Vec<&Model> = models.iter().collect();
    with_thinking_suffix(pattern, &|whole| match_model(&all, whole))
}

/// How a pattern is read when several of the user's models share a bare id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternUse {
    /// `--model` (pi's `resolveCliModel`): the first model listed with exactly that id.
    Cli,
    /// `--models`, `enabledModels` (pi's `resolveModelScope`): no exact match, so matching by
    /// part of the id or name decides.
    Scope,
}

/// How [`resolve`] reached a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// One of the user's own models.
    Own,
    /// An extension's model the pattern named as `provider/id`.
    ExtensionNamed,
    /// An extension's model reached by a bare id or part of a name, because none of the user's
    /// own models matched it.
    ExtensionUnnamed,
}

/// A model [`resolve`] found, with the thinking level the pattern asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolved<'a> {
    pub model: &'a Model,
    pub thinking: Option<ThinkingLevel>,
    pub reached: Reached,
}

/// Finds a model for `pattern` by pi's rules, the user's own models first; `is_extension` says
/// which models an extension's provider offers. In order:
/// 1. an exact match among the user's models (`provider/id`, or a bare id: the first listed
///    with it for [`PatternUse::Cli`], the only one for [`PatternUse::Scope`]);
/// 2. an extension's model named exactly as `provider/id`;
/// 3. part of an id or name among the user's models;
/// 4. an exact id, or part of an id or name, among the extensions' models;
/// 5. as pi, the part before a trailing `:<thinking level>`, by the same steps.
pub fn resolve<'a>(
    models: &'a [Model],
    is_extension: &dyn Fn(&Model) -> bool,
    pattern: &str,
    usage: PatternUse,
) -> Option<Resolved<'a>> {
    let (own, theirs): (Vec<&Model>, Vec<&Model>) = models.iter().partition(|m| !is_extension(m));
    let whole = |text: &str| -> Option<(&'a Model, Reached)> {
        let own_exact = match usage {
            PatternUse::Cli => first_exact(&own, text),
            PatternUse::Scope => exact_match(&own, text),
        };
        own_exact
            .map(|m| (m, Reached::Own))
            .or_else(|| canonical_match(&theirs, text).map(|m| (m, Reached::ExtensionNamed)))
            .or_else(|| partial_match(&own, text).map(|m| (m, Reached::Own)))
            .or_else(|| match_model(&theirs, text).map(|m| (m, Reached::ExtensionUnnamed)))
    };
    let ((model, reached), thinking) = with_thinking_suffix(pattern, &whole)?;
    Some(Resolved {
        model,
        thinking,
        reached,
    })
}

/// `whole` for the trimmed pattern, else for the part before a trailing `:<thinking level>`.
fn with_thinking_suffix<T>(
    pattern: &str,
    whole: &dyn Fn(&str) -> Option<T>,
) -> Option<(T, Option<ThinkingLevel>)> {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return None;
    }
    if let Some(found) = whole(pattern) {
        return Some((found, None));
    }
    let (prefix, suffix) = pattern.rsplit_once(':')?;
    let level = ThinkingLevel::parse(&suffix.trim().to_ascii_lowercase())?;
    let (found, _) = with_thinking_suffix(prefix, whole)?;
    Some((found, Some(level)))
}

fn match_model<'a>(models: &[&'a Model], pattern: &str) -> Option<&'a Model> {
    exact_match(models, pattern).or_else(|| partial_match(models, pattern))
}

/// `provider/id` of `model`, lower-cased, for comparing with what a user typed.
fn canonical(model: &Model) -> String {
    format!("{}/{}", model.provider, model.id).to_lowercase()
}

/// An exact reference (pi's `findExactModelReferenceMatch`): the one `provider/id`, else the
/// one model with that id; `None` when nothing or more than one model matches.
fn exact_match<'a>(models: &[&'a Model], reference: &str) -> Option<&'a Model> {
    let wanted = reference.trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let unique = |found: Vec<&'a Model>| (found.len() == 1).then(|| found[0]);
    let named: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| canonical(m) == wanted)
        .collect();
    if !named.is_empty() {
        return unique(named);
    }
    unique(
        models
            .iter()
            .copied()
            .filter(|m| m.id.to_lowercase() == wanted)
            .collect(),
    )
}

/// The one model named exactly as `provider/id`.
fn canonical_match<'a>(models: &[&'a Model], reference: &str) -> Option<&'a Model> {
    let wanted = reference.trim().to_lowercase();
    let mut named = models.iter().copied().filter(|m| canonical(m) == wanted);
    match (named.next(), named.next()) {
        (Some(model), None) => Some(model),
        _ => None,
    }
}

/// The first model whose `provider/id` or id is exactly `reference` (what pi's `--model`
/// takes before matching by part of a name).
fn first_exact<'a>(models: &[&'a Model], reference: &str) -> Option<&'a Model> {
    let wanted = reference.trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    models
        .iter()
        .copied()
        .find(|m| m.id.to_lowercase() == wanted || canonical(m) == wanted)
}

/// Models whose id or name contains `pattern`: aliases before dated ids, the highest id, and
/// among equal ids the first listed (pi sorts with a stable sort and takes the first).
fn partial_match<'a>(models: &[&'a Model], pattern: &str) -> Option<&'a Model> {
    let needle = pattern.to_lowercase();
    if needle.is_empty() {
        return None;
    }
    let matches: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| {
            m.id.to_lowercase().contains(&needle) || m.name.to_lowercase().contains(&needle)
        })
        .collect();
    let (aliases, dated): (Vec<&Model>, Vec<&Model>) =
        matches.into_iter().partition(|m| is_alias(&m.id));
    let pool = if aliases.is_empty() { dated } else { aliases };
    pool.into_iter()
        .fold(None, |best: Option<&Model>, model| match best {
            Some(best) if compare_ids(&model.id, &best.id) != Ordering::Greater => Some(best),
            _ => Some(model),
        })
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
