//! notify: a pi hook (the `hook` world of WIT 0.3.0) that, when a run ends after more than
//! `NOTIFY_AFTER_SECONDS` seconds (10 unless set), asks pi to draw the user's attention with
//! `ui.attention`. pi turns that into the terminal's notification sequence; the component never
//! writes escape sequences itself.

use pi_guest_sdk::{AgentEndEvent, Hook, ui};

/// The threshold when `NOTIFY_AFTER_SECONDS` is unset or not a number of seconds.
const DEFAULT_AFTER_MS: u64 = 10_000;

struct Notify;

/// The threshold in milliseconds, from the variable's value (`"30"`, `"2.5"`).
fn threshold_ms(value: Option<&str>) -> u64 {
    value
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        // At most a year: the cast saturates anyway, the bound keeps it readable.
        .map(|seconds| (seconds.min(31_536_000.0) * 1000.0) as u64)
        .unwrap_or(DEFAULT_AFTER_MS)
}

impl Hook for Notify {
    fn on_agent_end(event: AgentEndEvent) {
        let after = threshold_ms(std::env::var("NOTIFY_AFTER_SECONDS").ok().as_deref());
        if event.duration_ms > after {
            let seconds = event.duration_ms / 1000;
            ui::attention("pi", &format!("The agent finished ({seconds} s)"));
        }
    }
}

pi_guest_sdk::export_hook!(Notify: on_agent_end);

#[cfg(test)]
mod tests {
    use super::threshold_ms;

    #[test]
    fn the_threshold_is_read_in_seconds_with_a_default() {
        assert_eq!(threshold_ms(None), 10_000);
        assert_eq!(threshold_ms(Some("30")), 30_000);
        assert_eq!(threshold_ms(Some(" 2.5 ")), 2_500);
        assert_eq!(threshold_ms(Some("0")), 0);
        assert_eq!(threshold_ms(Some("soon")), 10_000);
        assert_eq!(threshold_ms(Some("-1")), 10_000);
    }
}
