//! How the subcommands dispatched before the normal flag parsing (`pi hooks`, `pi grants`)
//! start: their arguments parsed (help and errors printed by clap), and where they run.

use pi_app::startup::StartupEnv;
use std::ffi::OsString;

/// The parsed arguments of `argv` (program name first) and the run's directories, or the exit
/// code to leave with.
pub(crate) fn start<T: clap::Parser>(argv: Vec<OsString>) -> Result<(T, StartupEnv), i32> {
    let parsed = match T::try_parse_from(argv.into_iter().skip(1)) {
        Ok(parsed) => parsed,
        Err(error) => {
            let _ = error.print();
            return Err(error.exit_code());
        }
    };
    match StartupEnv::from_process() {
        Ok(env) => Ok((parsed, env)),
        Err(error) => {
            tell!("Error: cannot read the working directory: {error}");
            Err(1)
        }
    }
}
