use pi_builtin_tools::{DEFAULT_ACTIVE_TOOLS, builtin_tools};

#[test]
fn seven_tools_with_pi_parameters() {
    let defs: Vec<_> = builtin_tools().iter().map(|t| t.definition()).collect();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["read", "bash", "edit", "write", "grep", "find", "ls"]
    );
    let expect: [(&str, &[&str], &[&str]); 7] = [
        ("read", &["path", "offset", "limit"], &["path"]),
        ("bash", &["command", "timeout"], &["command"]),
        ("edit", &["path", "edits"], &["path", "edits"]),
        ("write", &["path", "content"], &["path", "content"]),
        (
            "grep",
            &[
                "pattern",
                "path",
                "glob",
                "ignoreCase",
                "literal",
                "context",
                "limit",
            ],
            &["pattern"],
        ),
        ("find", &["pattern", "path", "limit"], &["pattern"]),
        ("ls", &["path", "limit"], &[]),
    ];
    for (def, (name, props, required)) in defs.iter().zip(expect) {
        assert_eq!(def.name, name);
        let keys: Vec<&String> = def.parameters["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, props.to_vec(), "{name}");
        assert_eq!(
            def.parameters["required"],
            serde_json::json!(required),
            "{name}"
        );
        assert!(!def.description.is_empty() && !def.prompt_snippet.is_empty());
    }
    let json = serde_json::to_value(&defs[0]).unwrap();
    assert!(json.get("promptSnippet").is_some() && json.get("executionMode").is_some());
    assert_eq!(DEFAULT_ACTIVE_TOOLS, ["read", "bash", "edit", "write"]);
}
