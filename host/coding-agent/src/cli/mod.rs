//! The `pi` command line: arguments, start-up and the top-level flow of the binary.

pub mod args;
pub mod file_args;
pub mod model_select;
pub mod run;
pub mod startup;
