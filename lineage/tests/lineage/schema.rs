//! Generated schemas: snapshotted, valid draft 2020-12, strict about
//! unknown arguments, and in agreement with the validator.

use serde_json::{Value, json};

use crate::{Workspace, build};
use jig_lineage::{CommandSpec, DenyList, SlotSpec, Tool, builtin_tools};

fn every_kind() -> CommandSpec {
    CommandSpec::new(
        "every_kind",
        "Every kind of slot",
        "probe {text} {count} {file} {mode} {range}p {level}",
    )
    .slot("text", SlotSpec::string("Text").required())
    .slot("count", SlotSpec::number("How many").with_default("10"))
    .slot("file", SlotSpec::path("").with_default("."))
    .slot(
        "mode",
        SlotSpec::string("Speed")
            .with_enum(["fast", "slow"])
            .with_default("fast"),
    )
    .slot(
        "range",
        SlotSpec::string("Range").with_pattern("[0-9]+").required(),
    )
    .slot(
        "level",
        SlotSpec::number("Level")
            .with_enum([1, 2, 3])
            .with_default(2),
    )
}

fn schemas() -> Vec<(String, Value)> {
    let mut tools = builtin_tools(&DenyList::default());
    tools.push(build(every_kind()));
    tools.push(build(CommandSpec::new(
        "status",
        "Git status",
        "git status",
    )));
    tools
        .iter()
        .map(|tool| (tool.name().to_owned(), tool.input_schema().clone()))
        .collect()
}

#[test]
fn schemas_are_snapshotted() {
    for (name, schema) in schemas() {
        insta::assert_json_snapshot!(format!("schema_{name}"), schema);
    }
}

#[test]
fn schemas_are_valid_draft_2020_12() {
    for (name, schema) in schemas() {
        jsonschema::draft202012::meta::validate(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        assert_eq!(schema["additionalProperties"], json!(false), "{name}");
        assert!(
            !validator.is_valid(&json!({"unknown_argument": 1})),
            "{name}"
        );
    }
}

#[test]
fn schema_and_validator_agree_on_well_typed_calls() {
    let ws = Workspace::new();
    let tool = build(every_kind());
    let validator = jsonschema::draft202012::new(tool.input_schema()).unwrap();
    let cases = [
        (json!({"text": "x", "range": "5"}), true),
        (
            json!({"text": "x", "range": "5", "mode": "slow", "level": 3, "count": 4}),
            true,
        ),
        (json!({"text": "x"}), false),
        (json!({"text": "x", "range": "5x"}), false),
        (json!({"text": "x", "range": "5", "mode": "medium"}), false),
        (json!({"text": "x", "range": "5", "level": 4}), false),
        (json!({"text": "x", "range": "5", "extra": 1}), false),
    ];
    for (arguments, valid) in cases {
        assert_eq!(validator.is_valid(&arguments), valid, "schema: {arguments}");
        assert_eq!(
            tool.check_in(&arguments, &ws.root).is_ok(),
            valid,
            "check: {arguments}"
        );
    }
}
