//! pi's `write` tool as a component (grant: workspace read-write).
pi_builtin_component::export_builtin!(pi_builtin_tools::tools::write::WriteTool);
