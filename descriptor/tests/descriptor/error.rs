//! Every 613 case, table-driven: the error names the file, the line and
//! column, the JSON pointer, and the snippet points at the fault.

use crate::Tools;
use jig_descriptor::{DescriptorError, load_dir};
use jig_lineage::{BUILTIN_NAMES, DenyList};

/// (file stem, text): each file is bad in exactly one way.
const CASES: &[(&str, &str)] = &[
    (
        "json_trailing_comma",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n}\n",
    ),
    (
        "json_unclosed",
        "{\n  \"name\": \"t\",\n  \"command\": \"ls\"\n",
    ),
    ("json_empty", ""),
    ("not_an_object", "[1, 2]\n"),
    (
        "duplicate_key",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls\",\n  \"name\": \"u\"\n}\n",
    ),
    (
        "unknown_key",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls\",\n  \"colour\": \"red\"\n}\n",
    ),
    (
        "unknown_slot_key",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\n    \"p\": {\"type\": \"path\", \"requird\": true}\n  }\n}\n",
    ),
    (
        "missing_command",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\"\n}\n",
    ),
    (
        "missing_slot_type",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"required\": true}}\n}\n",
    ),
    (
        "wrong_type",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\", \"required\": \"yes\"}}\n}\n",
    ),
    (
        "wrong_default_type",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\", \"default\": [\".\"]}}\n}\n",
    ),
    (
        "unknown_slot_type",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"boolean\", \"required\": true}}\n}\n",
    ),
    (
        "bad_name",
        "{\n  \"name\": \"my tool\",\n  \"description\": \"d\",\n  \"command\": \"ls\"\n}\n",
    ),
    (
        "bad_slot_name",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls\",\n  \"arguments\": {\"a-b\": {\"type\": \"path\", \"required\": true}}\n}\n",
    ),
    (
        "empty_description",
        "{\n  \"name\": \"t\",\n  \"description\": \"\",\n  \"command\": \"ls\"\n}\n",
    ),
    (
        "blank_description",
        "{\n  \"name\": \"t\",\n  \"description\": \"   \",\n  \"command\": \"ls\"\n}\n",
    ),
    (
        "empty_enum",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"string\", \"required\": true, \"enum\": []}}\n}\n",
    ),
    (
        "slot_in_program",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"{prog} -x\",\n  \"arguments\": {\"prog\": {\"type\": \"string\", \"required\": true}}\n}\n",
    ),
    (
        "metacharacter",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep -rn {pattern} . | head\",\n  \"arguments\": {\"pattern\": {\"type\": \"string\", \"required\": true}}\n}\n",
    ),
    (
        "metacharacter_escaped",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep\\t-rn {pattern} . ; id\",\n  \"arguments\": {\"pattern\": {\"type\": \"string\", \"required\": true}}\n}\n",
    ),
    (
        "quoted_slot",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep -rn '{pattern}' .\",\n  \"arguments\": {\"pattern\": {\"type\": \"string\", \"required\": true}}\n}\n",
    ),
    (
        "denied_program",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"rm -rf {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\", \"required\": true}}\n}\n",
    ),
    (
        "denied_program_path",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"/usr/bin/sudo ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\", \"required\": true}}\n}\n",
    ),
    (
        "denied_launcher",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"xargs ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\", \"required\": true}}\n}\n",
    ),
    (
        "undeclared_slot",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep -rn {pattern} {path}\",\n  \"arguments\": {\"pattern\": {\"type\": \"string\", \"required\": true}}\n}\n",
    ),
    (
        "unused_slot",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep -rn {pattern} .\",\n  \"arguments\": {\n    \"pattern\": {\"type\": \"string\", \"required\": true},\n    \"path\": {\"type\": \"path\", \"default\": \".\"}\n  }\n}\n",
    ),
    (
        "no_default",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\"}}\n}\n",
    ),
    (
        "bad_regex",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"sed -n {range}p x\",\n  \"arguments\": {\"range\": {\"type\": \"string\", \"required\": true, \"pattern\": \"^[0-9+$\"}}\n}\n",
    ),
    (
        "pattern_not_ecma",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep {p} .\",\n  \"arguments\": {\"p\": {\"type\": \"string\", \"required\": true, \"pattern\": \"(?i)todo\"}}\n}\n",
    ),
    (
        "pattern_not_rust",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"grep {p} .\",\n  \"arguments\": {\"p\": {\"type\": \"string\", \"required\": true, \"pattern\": \"a(?=b)\"}}\n}\n",
    ),
    (
        "bad_default",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"string\", \"default\": \"$HOME\"}}\n}\n",
    ),
    (
        "dash_on_path",
        "{\n  \"name\": \"t\",\n  \"description\": \"d\",\n  \"command\": \"ls {p}\",\n  \"arguments\": {\"p\": {\"type\": \"path\", \"required\": true, \"allow_leading_dash\": true}}\n}\n",
    ),
    (
        "name_of_builtin",
        "{\n  \"name\": \"grep\",\n  \"description\": \"d\",\n  \"command\": \"ls\"\n}\n",
    ),
    (
        "name_taken_a",
        "{\n  \"name\": \"twice\",\n  \"description\": \"d\",\n  \"command\": \"ls\"\n}\n",
    ),
    (
        "name_taken_b",
        "{\n  \"name\": \"twice\",\n  \"description\": \"d\",\n  \"command\": \"wc\"\n}\n",
    ),
];

#[test]
fn every_613_message() {
    let tools = Tools::new();
    for (stem, text) in CASES {
        tools.write(&format!("{stem}.tool.json"), text.as_bytes());
    }
    tools.write("json_not_utf8.tool.json", b"{\"name\": \"t\xff\"}");
    let report = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    let loaded: Vec<&str> = report.tools.iter().map(jig_lineage::Tool::name).collect();
    assert!(
        loaded.is_empty(),
        "neither file of the clashing pair loads: {loaded:?}"
    );
    assert_eq!(report.errors.len(), CASES.len() + 1);
    let mut text = String::new();
    for error in &report.errors {
        assert_eq!(error.code().code(), 613);
        text.push_str(&render(error, tools.path()));
    }
    let (pattern, replacement) = tools.filter();
    insta::with_settings!({ filters => vec![(pattern.as_str(), replacement)] }, {
        insta::assert_snapshot!("descriptor_errors", text);
    });
}

/// The error as `jig check` would print it: the message, the pointer, the
/// line and a caret under the fault.
fn render(error: &DescriptorError, dir: &std::path::Path) -> String {
    let source = std::fs::read(&error.path).unwrap_or_default();
    let source = String::from_utf8_lossy(&source);
    let snippet = error
        .snippet(&source)
        .map(|s| {
            s.to_string()
                .lines()
                .map(|l| format!("    | {l}\n"))
                .collect::<String>()
        })
        .unwrap_or_default();
    let pointer = error
        .pointer
        .as_deref()
        .map(|p| format!("  pointer: {p:?}\n"))
        .unwrap_or_default();
    let _ = dir;
    format!("{error}\n{pointer}{snippet}")
}
