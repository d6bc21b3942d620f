# {{name}}

A pi extension package: a tool component (`src/lib.rs`) serving the tool `{{ident}}`, which
counts the lines, words and characters of a text.

## Build

    ./build.sh

It runs `cargo build --release --target wasm32-wasip2` (the first time, `rustup target add
wasm32-wasip2`) and copies the component to `{{name}}.wasm`. The bindings are generated at
compile time from the WIT package in `wit/` (`pi:extension@{{wit_version}}`), which `pi ext new`
copied from pi.

## Install

    pi ext install .

pi shows what the package asks for (`pi-extension.toml`'s `[capabilities]`; nothing yet) and
asks before installing. `pi ext info {{name}}` shows what was installed. The folder is loaded
in place: after a change, `./build.sh` again is all it takes (`pi ext update {{name}}` when the
manifest asks for more).

## Use

    pi -p "How many words are in 'the quick brown fox'? Use {{ident}}."

The model sees the tool in its tool list (name, description, JSON schema from `describe`);
each call runs `execute` in a fresh sandbox with only the package's capabilities.

## Debug

    pi --verbose ...

prints pi's log on stderr, with what the component logs (`pi::extension::host::log`) tagged
`{{name}}@0.1.0`; the log is also in `~/.pi/agent/pi.log`. A trap, a deadline or an error
result names the package.
