//! pi-cli: the `pi` binary's library part — arguments, the top-level flow and the print, JSON
//! and RPC modes, each a thin face over pi-app's typed API. JSON is produced only here.

#[macro_use]
mod terminal_out;

pub mod args;
pub mod auth;
pub mod ext;
pub mod file_args;
pub mod grants;
pub mod hooks;
pub mod list_models;
mod logging;
pub mod mcp;
pub mod mcp_serve;
pub mod modes;
pub mod rewind;
pub mod run;
mod subcommand;
