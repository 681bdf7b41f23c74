//! Loading folders: suffix, order, clashes, skipping bad files, and the
//! loaded tools run for real.

use serde_json::json;

use crate::{SEARCH_TEXT, Tools};
use jig_descriptor::{MAX_DESCRIPTOR_BYTES, Problem, load_dir, load_file};
use jig_kernel::Kernel;
use jig_lineage::{BUILTIN_NAMES, DenyList, Tool, ToolForm};

fn named(name: &str, program: &str) -> String {
    format!(
        r#"{{"name": "{name}", "description": "d", "command": "{program} {{path}}",
            "arguments": {{"path": {{"type": "path", "default": "."}}}}}}"#
    )
}

#[test]
fn only_tool_json_files_in_name_order() {
    let tools = Tools::new();
    tools.write("b.tool.json", named("b_tool", "ls"));
    tools.write("a.tool.json", named("a_tool", "ls"));
    tools.write("c.tool.json.bak", named("c_tool", "ls"));
    tools.write("d.json", named("d_tool", "ls"));
    tools.write("README.md", "not a tool");
    std::fs::create_dir(tools.path().join("sub.tool.json")).unwrap();
    std::fs::create_dir(tools.path().join("nested")).unwrap();
    std::fs::write(
        tools.path().join("nested/e.tool.json"),
        named("e_tool", "ls"),
    )
    .unwrap();
    let report = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    let names: Vec<&str> = report.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["a_tool", "b_tool"]);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(
        report
            .tools
            .iter()
            .all(|t| t.form() == ToolForm::Descriptor)
    );
}

#[test]
fn missing_folder_holds_no_tools() {
    let tools = Tools::new();
    let report = load_dir(
        &tools.path().join("absent"),
        &DenyList::default(),
        BUILTIN_NAMES,
    );
    assert!(report.tools.is_empty() && report.errors.is_empty());
}

#[test]
fn bad_files_are_skipped_and_the_rest_load() {
    let tools = Tools::new();
    tools.write("1.tool.json", named("first", "ls"));
    tools.write("2.tool.json", "{ not json");
    tools.write("3.tool.json", named("wipe", "rm"));
    tools.write("4.tool.json", named("grep", "ls"));
    tools.write("5.tool.json", named("first", "wc"));
    tools.write("6.tool.json", named("last", "wc"));
    let report = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    let names: Vec<&str> = report.tools.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        ["last"],
        "both files that define `first` are skipped"
    );
    let files: Vec<String> = report
        .errors
        .iter()
        .map(|e| e.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        [
            "1.tool.json",
            "2.tool.json",
            "3.tool.json",
            "4.tool.json",
            "5.tool.json"
        ]
    );
    assert!(report.errors.iter().all(|e| e.code().code() == 613));
    for (error, other) in [(&report.errors[0], "5"), (&report.errors[4], "1")] {
        match &*error.problem {
            Problem::NameTaken { name, others } => {
                assert_eq!(name, "first");
                assert_eq!(others, &[tools.path().join(format!("{other}.tool.json"))]);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_name_defined_by_three_files_is_refused_in_each_naming_the_others() {
    let tools = Tools::new();
    for file in ["a", "b", "c"] {
        tools.write(&format!("{file}.tool.json"), named("same", "ls"));
    }
    tools.write("d.tool.json", named("other", "wc"));
    let report = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    let names: Vec<&str> = report.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["other"]);
    assert_eq!(report.errors.len(), 3);
    let b = report.errors[1].to_string();
    assert!(
        b.contains("b.tool.json:1:")
            && b.contains("also defined by ")
            && b.contains("a.tool.json and ")
            && b.contains("c.tool.json; none of these files is loaded"),
        "{b}"
    );
}

#[test]
fn adding_a_file_cannot_take_over_a_name() {
    // The first version let the first file in name order win: a new
    // `0.tool.json` would then have replaced what `search_text` runs.
    let tools = Tools::new();
    tools.write("search.tool.json", named("search_text", "ls"));
    let before = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    assert_eq!(before.tools.len(), 1);
    tools.write("0.tool.json", named("search_text", "wc"));
    let after = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    assert!(after.tools.is_empty(), "neither file may define the tool");
    assert_eq!(after.errors.len(), 2);
}

#[test]
fn deny_list_and_reserved_names_are_the_callers() {
    let tools = Tools::new();
    tools.write("a.tool.json", named("lister", "ls"));
    let report = load_dir(tools.path(), &DenyList::default().deny(["ls"]), &[]);
    assert!(report.tools.is_empty());
    assert!(matches!(*report.errors[0].problem, Problem::Spec(_)));
    let report = load_dir(tools.path(), &DenyList::default(), &["lister"]);
    assert!(matches!(
        *report.errors[0].problem,
        Problem::Reserved { .. }
    ));
}

#[test]
fn oversized_files_are_refused_unread() {
    let tools = Tools::new();
    let big = format!(
        "{{\"name\": \"x\", \"description\": \"{}\"}}",
        "a".repeat(MAX_DESCRIPTOR_BYTES as usize)
    );
    let path = tools.write("big.tool.json", big);
    let error = load_file(&path, &DenyList::default()).unwrap_err();
    assert!(
        matches!(*error.problem, Problem::TooLarge { .. }),
        "{error}"
    );
}

#[test]
fn loaded_tools_run_for_real() {
    let tools = Tools::new();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("src")).unwrap();
    std::fs::write(
        workspace.path().join("src/a.rs"),
        "// TODO: one\nfn a() {}\n",
    )
    .unwrap();
    tools.write("search.tool.json", SEARCH_TEXT);
    tools.write(
        "lines.tool.json",
        r#"{"name": "head_lines", "description": "First lines of a file",
            "command": "head -n {count} {file}",
            "arguments": {"count": {"type": "number", "default": 1},
                          "file": {"type": "path", "required": true}}}"#,
    );
    let report = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let kernel = Kernel::builder(workspace.path()).build().unwrap();
    let search = report
        .tools
        .iter()
        .find(|t| t.name() == "search_text")
        .unwrap();
    let result = crate::run_tool(search, &kernel, &json!({"pattern": "TODO"}));
    assert!(
        result.text().contains("./src/a.rs:1:// TODO: one"),
        "{}",
        result.text()
    );
    assert!(
        search
            .check(
                &json!({"pattern": "x"}),
                &jig_lineage::CheckContext::new(kernel.root(), kernel.search_path())
            )
            .unwrap()
            .read_only
    );
    let head = report
        .tools
        .iter()
        .find(|t| t.name() == "head_lines")
        .unwrap();
    let result = crate::run_tool(head, &kernel, &json!({"file": "src/a.rs", "count": "2"}));
    assert_eq!(
        result.outcome().unwrap().output.text(),
        "// TODO: one\nfn a() {}\n"
    );
    let refused = crate::run_tool(search, &kernel, &json!({"pattern": "x", "path": "../.."}));
    assert!(
        refused
            .text()
            .starts_with("error 614 (slot_invalid): slot \"path\""),
        "{}",
        refused.text()
    );
    let refused = crate::run_tool(
        head,
        &kernel,
        &json!({"file": "src/a.rs", "count": "1; id"}),
    );
    assert!(
        refused.text().starts_with("error 614"),
        "{}",
        refused.text()
    );
}
