//! pi's `bash` tool as a component (grant: workspace read-write, `process`, the temp dir its
//! saved outputs go to). Commands run through the host's `process` interface.
pi_builtin_component::export_builtin!(
    pi_builtin_tools::tools::bash::BashTool,
    Some(::std::sync::Arc::new(pi_builtin_component::HostRunner))
);
