//! Properties: descriptor specifications round-trip (spec → JSON → load →
//! the same tool), and no text, however broken, makes the loader panic.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::{SEARCH_TEXT, Tools};
use jig_descriptor::{load_file, parse_str};
use jig_lineage::{CommandSpec, CommandTool, DenyList, SlotSpec, SlotType, Tool, ToolForm};

/// One slot: its kind, whether required, its description, and whether it
/// has an enum or a pattern.
fn slot() -> impl Strategy<Value = SlotSpec> {
    let kind = prop_oneof![
        Just(SlotType::String),
        Just(SlotType::Number),
        Just(SlotType::Path)
    ];
    (kind, any::<bool>(), any::<String>(), 0..3u8, any::<bool>()).prop_map(
        |(kind, required, description, extra, dash)| {
            let mut slot = SlotSpec::new(kind, description);
            let (default, choices): (Value, Vec<Value>) = match kind {
                SlotType::Number => (json!(5), vec![json!(5), json!(10)]),
                SlotType::Path => (json!("."), vec![json!("."), json!("src")]),
                _ => (json!("main"), vec![json!("main"), json!("dev")]),
            };
            slot = if required {
                slot.required()
            } else {
                slot.with_default(default)
            };
            match extra {
                1 => slot = slot.with_enum(choices),
                2 if kind == SlotType::String => slot = slot.with_pattern("[a-z]+"),
                _ => {}
            }
            if dash && kind == SlotType::String {
                slot = slot.dangerous_allow_leading_dash();
            }
            slot
        },
    )
}

fn spec() -> impl Strategy<Value = CommandSpec> {
    (
        "[a-z][a-z0-9_-]{0,15}",
        "[A-Za-z][A-Za-z ,.]{0,30}",
        prop::sample::select(vec!["ls", "wc", "head", "git", "cargo"]),
        proptest::collection::vec(("[a-z]{1,6}", slot(), "[a-z=-]{0,3}"), 0..5),
        any::<bool>(),
    )
        .prop_map(|(name, description, program, slots, read_only)| {
            let mut template = program.to_owned();
            let mut spec_slots = Vec::new();
            for (i, (base, slot, prefix)) in slots.into_iter().enumerate() {
                let slot_name = format!("{base}{i}");
                template.push_str(&format!(" {prefix}{{{slot_name}}}"));
                spec_slots.push((slot_name, slot));
            }
            let mut spec = CommandSpec::new(name, description, template).with_read_only(read_only);
            for (name, slot) in spec_slots {
                spec = spec.slot(name, slot);
            }
            spec
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn specs_round_trip_through_files(spec in spec()) {
        let code = CommandTool::build(spec.clone(), &DenyList::default(), ToolForm::Command).unwrap();
        let tools = Tools::new();
        let path = tools.write("t.tool.json", serde_json::to_string_pretty(&spec).unwrap());
        let loaded = load_file(&path, &DenyList::default()).unwrap();
        prop_assert_eq!(loaded.spec(), &spec);
        prop_assert_eq!(loaded.form(), ToolForm::Descriptor);
        prop_assert_eq!(loaded.input_schema(), code.input_schema());
        prop_assert!(jsonschema::draft202012::meta::is_valid(loaded.input_schema()));
        prop_assert!(jsonschema::draft202012::new(loaded.input_schema()).is_ok());
        prop_assert_eq!(loaded.audit().slots, code.audit().slots);
        // The same calls get the same answers.
        let root = tools.path().canonicalize().unwrap();
        let mut arguments = serde_json::Map::new();
        for (name, slot) in &spec.slots {
            arguments.insert(name.clone(), match slot.kind {
                SlotType::Number => json!("10"),
                SlotType::Path => json!("src"),
                _ => json!("dev"),
            });
        }
        let arguments = Value::Object(arguments);
        prop_assert_eq!(loaded.check_in(&arguments, &root), code.check_in(&arguments, &root));
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check_never_panics(&text);
    }

    #[test]
    fn damaged_descriptors_never_panic(
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<char>(), any::<bool>()), 1..6)
    ) {
        let mut chars: Vec<char> = SEARCH_TEXT.chars().collect();
        for (at, c, insert) in cuts {
            let i = at.index(chars.len());
            if insert { chars.insert(i, c) } else { chars[i] = c }
        }
        check_never_panics(&chars.into_iter().collect::<String>());
    }
}

fn check_never_panics(text: &str) {
    match parse_str(text, Path::new("x.tool.json"), &DenyList::default()) {
        Ok(tool) => assert!(!tool.name().is_empty()),
        Err(error) => {
            assert_eq!(error.code().code(), 613);
            if let Some(location) = &error.location {
                assert!(location.line >= 1 && location.column >= 1);
                assert!(
                    location.span.start <= location.span.end && location.span.end <= text.len()
                );
                assert!(text.is_char_boundary(location.span.start));
            }
            let _ = error.snippet(text);
            let _ = error.to_string();
        }
    }
}
