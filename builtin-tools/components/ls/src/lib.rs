//! pi's `ls` tool as a component (grant: workspace read-only).
pi_builtin_component::export_builtin!(pi_builtin_tools::tools::ls::LsTool);
