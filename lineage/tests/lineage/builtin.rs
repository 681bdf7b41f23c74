//! The built-in tools, run for real in a temporary workspace.

use serde_json::{Value, json};

use crate::Workspace;
use jig_lineage::{
    BUILTIN_NAMES, DenyList, Tool, builtin_tools, find_tool, grep_tool, sed_print_tool,
};

fn run(tool: &dyn Tool, ws: &Workspace, arguments: Value) -> (Option<i32>, String) {
    let result = crate::run_tool(tool, &ws.kernel, &arguments);
    let outcome = result
        .outcome()
        .unwrap_or_else(|| panic!("{}", result.text()));
    (outcome.exit_code(), outcome.output.text())
}

#[test]
fn builtins_are_read_only_and_named() {
    let tools = builtin_tools(&DenyList::default());
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, BUILTIN_NAMES);
    assert!(tools.iter().all(|t| t.read_only()));
    let without_grep = builtin_tools(&DenyList::default().deny(["grep"]));
    assert_eq!(without_grep.len(), 2);
    assert!(grep_tool(&DenyList::default().deny(["grep"])).is_err());
}

#[test]
fn grep_searches() {
    let ws = Workspace::new();
    let grep = grep_tool(&DenyList::default()).unwrap();
    let (code, text) = run(&grep, &ws, json!({"pattern": "TODO", "path": "src"}));
    assert_eq!(code, Some(0));
    assert!(text.contains("src/main.rs:2:    // TODO: greet"), "{text}");
    let (code, text) = run(&grep, &ws, json!({"pattern": "answer"}));
    assert_eq!(code, Some(0));
    assert!(text.contains("./src/lib.rs:1:pub fn answer"), "{text}");
    let (code, _) = run(&grep, &ws, json!({"pattern": "no-such-text-here"}));
    assert_eq!(code, Some(1));
    // A look-alike semicolon is searched for, literally.
    let (code, _) = run(&grep, &ws, json!({"pattern": "\u{fe54}id"}));
    assert_eq!(code, Some(1));
}

#[test]
fn find_lists() {
    let ws = Workspace::new();
    let find = find_tool(&DenyList::default()).unwrap();
    let (code, text) = run(&find, &ws, json!({"pattern": "*.rs"}));
    assert_eq!(code, Some(0));
    for name in ["./src/main.rs", "./src/lib.rs", "./src/shadow.rs"] {
        assert!(text.contains(name), "{text}");
    }
    let (code, text) = run(&find, &ws, json!({"path": "docs", "pattern": "*.md"}));
    assert_eq!((code, text.trim_end()), (Some(0), "docs/guide.md"));
}

#[test]
fn sed_print_prints_lines() {
    let ws = Workspace::new();
    let sed = sed_print_tool(&DenyList::default()).unwrap();
    let (code, text) = run(&sed, &ws, json!({"range": "2", "path": "README.md"}));
    assert_eq!((code, text.as_str()), (Some(0), "line two\n"));
    let (code, text) = run(&sed, &ws, json!({"range": "2,3", "path": "README.md"}));
    assert_eq!((code, text.as_str()), (Some(0), "line two\nline three\n"));
    let (code, _) = run(&sed, &ws, json!({"range": "1", "path": "missing.txt"}));
    assert_eq!(code, Some(2));
}

#[test]
fn builtin_attacks_are_refused_before_running() {
    let ws = Workspace::new();
    let deny = DenyList::default();
    let cases: Vec<(Box<dyn Tool>, Value)> = vec![
        (
            Box::new(find_tool(&deny).unwrap()),
            json!({"path": "-delete", "pattern": "x"}),
        ),
        (
            Box::new(find_tool(&deny).unwrap()),
            json!({"path": ".", "pattern": "x -delete"}),
        ),
        // find's expression in the folder's place: `!` negates the search
        // of `.`, `(` opens a group
        (
            Box::new(find_tool(&deny).unwrap()),
            json!({"path": "!", "pattern": "x"}),
        ),
        (
            Box::new(find_tool(&deny).unwrap()),
            json!({"path": "(", "pattern": "x"}),
        ),
        (
            Box::new(grep_tool(&deny).unwrap()),
            json!({"pattern": "--pre=sh"}),
        ),
        (
            Box::new(grep_tool(&deny).unwrap()),
            json!({"pattern": "-f/dev/stdin"}),
        ),
        (
            Box::new(grep_tool(&deny).unwrap()),
            json!({"pattern": "x", "path": "fifo"}),
        ),
        (
            Box::new(sed_print_tool(&deny).unwrap()),
            json!({"range": "1p;w/tmp/x", "path": "README.md"}),
        ),
        (
            Box::new(sed_print_tool(&deny).unwrap()),
            json!({"range": "-ew", "path": "README.md"}),
        ),
        (
            Box::new(sed_print_tool(&deny).unwrap()),
            json!({"range": "1", "path": "/dev/zero"}),
        ),
    ];
    for (tool, arguments) in cases {
        let result = crate::run_tool(tool.as_ref(), &ws.kernel, &arguments);
        let refusal = result
            .refusal()
            .unwrap_or_else(|| panic!("ran: {arguments}"));
        assert_eq!(refusal.code.code(), 614, "{arguments}");
    }
    assert!(ws.root.join("README.md").exists());
}
