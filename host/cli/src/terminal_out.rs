//! The two macros the subcommands print human-readable lines with (`say!` on stdout, `tell!`
//! on stderr): every line passes `pi_ai::terminal_text`, since what they print quotes
//! manifests, registries, git, settings files and servers.

/// `println!` for a line of output, made safe for the terminal (it quotes manifests,
/// registries, settings files and servers).
macro_rules! say {
    ($($arg:tt)*) => {
        println!("{}", pi_ai::terminal_text::terminal_safe(
            &format!($($arg)*),
            pi_ai::terminal_text::Keep::Lines,
        ))
    };
}

/// `eprintln!`, made safe for the terminal.
macro_rules! tell {
    ($($arg:tt)*) => {
        eprintln!("{}", pi_ai::terminal_text::terminal_safe(
            &format!($($arg)*),
            pi_ai::terminal_text::Keep::Lines,
        ))
    };
}
