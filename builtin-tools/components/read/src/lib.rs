//! pi's `read` tool as a component (grant: workspace read-only).
pi_builtin_component::export_builtin!(pi_builtin_tools::tools::read::ReadTool);
