//! The published format: the schema file is valid draft 2020-12, accepts
//! the examples and is what the loader checks against.

use serde_json::{Value, json};

use crate::{SEARCH_TEXT, Tools};
use jig_descriptor::{DESCRIPTOR_SCHEMA, descriptor_schema, load_dir, parse_str};
use jig_lineage::{BUILTIN_NAMES, DenyList, builtin_specs};

#[test]
fn schema_file_is_valid_draft_2020_12() {
    let on_disk = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/descriptor.schema.json"
    ))
    .unwrap();
    assert_eq!(on_disk, DESCRIPTOR_SCHEMA);
    let schema: Value = serde_json::from_str(DESCRIPTOR_SCHEMA).unwrap();
    assert_eq!(&schema, descriptor_schema());
    jsonschema::draft202012::meta::validate(&schema).unwrap();
}

#[test]
fn examples_follow_the_schema() {
    let validator = jsonschema::draft202012::new(descriptor_schema()).unwrap();
    let spec_example: Value = serde_json::from_str(SEARCH_TEXT).unwrap();
    assert!(validator.is_valid(&spec_example));
    // The built-ins, written as descriptors, follow it too.
    for spec in builtin_specs() {
        let value = serde_json::to_value(&spec).unwrap();
        assert!(validator.is_valid(&value), "{value}");
    }
    let with_schema_key = json!({
        "$schema": "../descriptor/descriptor.schema.json",
        "name": "status", "description": "Git status", "command": "git status"
    });
    assert!(validator.is_valid(&with_schema_key));
    assert!(!validator.is_valid(&json!({"name": "t", "description": "d"})));
}

#[test]
fn schema_key_is_ignored_by_the_loader() {
    let text = r#"{"$schema": "https://example.invalid/x.json", "name": "status", "description": "Git status", "command": "git status"}"#;
    let tool = parse_str(text, "status.tool.json".as_ref(), &DenyList::default()).unwrap();
    assert_eq!(tool.spec().name, "status");
}

#[test]
fn builtins_round_trip_as_descriptors() {
    let tools = Tools::new();
    for spec in builtin_specs() {
        let renamed = format!("my_{}", spec.name);
        let mut value = serde_json::to_value(&spec).unwrap();
        value["name"] = json!(renamed);
        tools.write(
            &format!("{renamed}.tool.json"),
            serde_json::to_string_pretty(&value).unwrap(),
        );
    }
    let report = load_dir(tools.path(), &DenyList::default(), BUILTIN_NAMES);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.tools.len(), 3);
    for spec in builtin_specs() {
        let renamed = format!("my_{}", spec.name);
        let tool = report
            .tools
            .iter()
            .find(|t| t.spec().name == renamed)
            .unwrap();
        assert_eq!(tool.template().as_str(), spec.template);
        assert_eq!(tool.spec().slots, spec.slots);
    }
}
