//! Builds the example packages of `extensions/`, in the guest target dir the other guest builds
//! share, and writes the path of each package's component as a constant: the Rust ones for
//! wasm32-wasip2 (release), the others with their own `build.sh` (one module per language), never into the source tree.

#[path = "build/c.rs"]
mod c;
#[path = "build/js.rs"]
mod js;
#[path = "build/python.rs"]
mod python;

use std::fmt::Write as _;
use std::path::Path;

use pi_guest_build::{
    GUESTS_TARGET_DIR, Options, build_guests, env_dir, rerun_if_changed, shared_target_dir,
};

/// The constant's name, the package directory under `extensions/` and the crate whose component
/// it ships (a package of two components, as `todo`, has a constant for each).
const PACKAGES: [(&str, &str, &str); 8] = [
    ("fetch-url", "fetch-url", "pi_ext_fetch_url"),
    ("grep-chart", "grep-chart", "pi_ext_grep_chart"),
    ("notify", "notify", "pi_ext_notify"),
    ("ollama", "ollama", "pi_ext_ollama"),
    (
        "permission-gate",
        "permission-gate",
        "pi_ext_permission_gate",
    ),
    ("pinned-facts", "pinned-facts", "pi_ext_pinned_facts"),
    ("todo-hook", "todo", "pi_ext_todo_hook"),
    ("todo-tool", "todo", "pi_ext_todo_tool"),
];

fn main() {
    if let Err(e) = run() {
        panic!("building the example extensions failed: {e}");
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir = env_dir("CARGO_MANIFEST_DIR")?;
    let out_dir = env_dir("OUT_DIR")?;
    let root = manifest_dir.join("../..");
    let examples = root.join("extensions");
    rerun_if_changed([examples.clone(), root.join("guest-sdk"), root.join("wit")]);
    let guests_dir = shared_target_dir(&out_dir, GUESTS_TARGET_DIR);
    let wasm_dir = build_guests(&examples, &guests_dir, &Options::default())?;
    let mut consts = String::new();
    for (name, package, krate) in PACKAGES {
        let component = wasm_dir.join(format!("{krate}.wasm"));
        write_example(&mut consts, &examples, name, package, &component)?;
    }
    for (package, component) in js::build(&root, &guests_dir)? {
        write_example(&mut consts, &examples, &package, &package, &component)?;
    }
    for (package, component) in c::build(&root, &out_dir)? {
        write_example(&mut consts, &examples, &package, &package, &component)?;
    }
    for (package, component) in python::build(&root, &out_dir)? {
        write_example(&mut consts, &examples, &package, &package, &component)?;
    }
    std::fs::write(out_dir.join("examples.rs"), consts)
        .map_err(|e| format!("cannot write examples.rs: {e}"))?;
    Ok(())
}

/// The constant of one example, named after `name`: `ollama` → `OLLAMA`, `md-table` →
/// `MD_TABLE`.
fn write_example(
    consts: &mut String,
    examples: &Path,
    name: &str,
    package: &str,
    component: &Path,
) -> std::fmt::Result {
    writeln!(
        consts,
        "/// The `{name}` example: its package directory and its built component.\n\
         pub const {}: Example = Example {{ dir: {:?}, component: {:?} }};",
        name.to_uppercase().replace('-', "_"),
        examples.join(package).display().to_string(),
        component.display().to_string()
    )
}
