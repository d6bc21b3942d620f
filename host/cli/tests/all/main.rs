//! pi-cli integration tests: the `pi` binary end to end: one binary, modules per area.

// Test helpers fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_auth;
mod cli_auth_requests;
mod cli_compaction;
mod cli_docs;
mod cli_example_checksum;
mod cli_example_compactor;
mod cli_example_fetch_url;
mod cli_example_json_query;
mod cli_example_md_table;
mod cli_example_renderer;
mod cli_export;
mod cli_ext_new;
mod cli_extension_examples;
mod cli_extension_models;
mod cli_extension_sources;
mod cli_extensions;
mod cli_faults;
mod cli_json;
mod cli_local_servers;
mod cli_model_ids;
mod cli_packages;
mod cli_paths;
mod cli_print;
mod cli_project_code;
mod cli_protected;
mod cli_providers;
mod cli_proxy;
mod cli_rpc;
mod cli_rpc_messages;
mod cli_sandbox;
mod cli_sessions;
mod cli_settings_session;
mod cli_settings_tools;
mod cli_settings_tui;
mod cli_support;
mod cli_terminal_escapes;
mod cli_tools;
mod cli_tui;
mod cli_tui_commands;
mod cli_tui_support;
mod cli_watchdog;
mod cli_wit_versions;
