//! The `pi` binary. `--version` is answered before anything else is set up, so it costs only
//! the process start.

fn main() {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.len() == 2 && (argv[1] == "--version" || argv[1] == "-v") {
        println!("{}", pi_cli::run::VERSION);
        return;
    }
    std::process::exit(pi_cli::run::main(argv));
}
