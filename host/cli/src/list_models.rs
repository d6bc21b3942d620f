//! `pi --list-models [search]`: the models you have credentials for, as a table.

use pi_ai::{AuthStorage, Model, ModelRegistry};

/// The table for `search` (empty: all). Models are those with credentials, sorted by provider
/// then id; the search keeps models whose `provider/id` or name contains every word of it.
/// `probed` says what start-up found of local servers, for the message when there is nothing.
pub fn render(
    registry: &ModelRegistry,
    auth: &AuthStorage,
    search: &str,
    probed: Option<String>,
) -> String {
    let mut models: Vec<Model> = registry
        .available(auth)
        .into_iter()
        .filter(|m| matches_search(m, search))
        .collect();
    if models.is_empty() {
        return if search.trim().is_empty() {
            let probed = probed.map(|p| format!(" {p}")).unwrap_or_default();
            format!(
                "No models available. Set an API key environment variable (e.g. \
                 ANTHROPIC_API_KEY), run `pi auth login <provider>`, or add a provider to \
                 models.json.{probed}\n"
            )
        } else {
            format!("No models match \"{}\".\n", search.trim())
        };
    }
    models.sort_by(|a, b| a.provider.cmp(&b.provider).then_with(|| a.id.cmp(&b.id)));
    let header = [
        "provider", "model", "context", "max-out", "thinking", "images",
    ];
    let rows: Vec<[String; 6]> = models
        .iter()
        .map(|m| {
            [
                m.provider.clone(),
                m.id.clone(),
                tokens(m.context_window),
                tokens(m.max_tokens),
                yes_no(m.reasoning),
                yes_no(m.supports_images()),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    push_row(&mut out, &header.map(str::to_owned), &widths);
    for row in &rows {
        push_row(&mut out, row, &widths);
    }
    out
}

fn push_row(out: &mut String, cells: &[String; 6], widths: &[usize; 6]) {
    let line: Vec<String> = cells
        .iter()
        .zip(widths)
        .map(|(cell, w)| format!("{cell:<w$}"))
        .collect();
    out.push_str(line.join("  ").trim_end());
    out.push('\n');
}

fn matches_search(model: &Model, search: &str) -> bool {
    let hay = format!("{}/{} {}", model.provider, model.id, model.name).to_lowercase();
    search
        .to_lowercase()
        .split_whitespace()
        .all(|word| hay.contains(word))
}

/// `200000` → `200K`, `1048576` → `1M`, with one decimal where it matters.
pub fn tokens(n: u64) -> String {
    if n >= 1_000_000 {
        trim_decimal(n as f64 / 1_000_000.0, "M")
    } else if n >= 1_000 {
        trim_decimal(n as f64 / 1_000.0, "K")
    } else {
        n.to_string()
    }
}

fn trim_decimal(value: f64, unit: &str) -> String {
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text}{unit}")
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts() {
        assert_eq!(tokens(200_000), "200K");
        assert_eq!(tokens(1_048_576), "1M");
        assert_eq!(tokens(128_500), "128.5K");
        assert_eq!(tokens(512), "512");
    }
}
