//! pi's `grep` tool as a component (grant: workspace read-only).
pi_builtin_component::export_builtin!(pi_builtin_tools::tools::grep::GrepTool);
