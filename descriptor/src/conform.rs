//! The descriptor schema's rules, checked by hand, for the files that follow
//! it.
//!
//! Compiling the schema (and, before that, checking it against the draft
//! 2020-12 meta-schema) costs a `jig call` more than everything else it does
//! before running the command. Most files follow the schema, and for them
//! [`surely_conforms`] answers without compiling anything. It is never more
//! lenient than the schema: anything it does not accept goes to the compiled
//! validator, which decides and, for a bad file, says why, as it always did.
//! The tests hold it to that over the examples, the built-ins, the error
//! corpus and generated documents.

use serde_json::{Map, Value};

/// The slot types (`enum` of `type`).
const SLOT_TYPES: [&str; 4] = ["string", "number", "path", "text"];

/// Whether `value` follows the descriptor schema, by the same rules and
/// never more leniently. `false` means "ask the compiled validator", not
/// "bad": a rule is allowed to be stricter here than in the schema.
pub(crate) fn surely_conforms(value: &Value) -> bool {
    let Some(top) = value.as_object() else {
        return false;
    };
    let has = |key| top.contains_key(key);
    if !(has("name") && has("description") && has("command")) {
        return false;
    }
    top.iter().all(|(key, value)| match key.as_str() {
        "$schema" => value.is_string(),
        "name" => value.as_str().is_some_and(tool_name),
        "description" | "command" => value.as_str().is_some_and(|s| !s.is_empty()),
        "arguments" => value.as_object().is_some_and(slots),
        "read_only" => value.is_boolean(),
        // `additionalProperties: false`
        _ => false,
    })
}

/// `^[A-Za-z0-9_-]{1,64}$`
fn tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `^[A-Za-z_][A-Za-z0-9_]{0,63}$`
fn slot_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    let first = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    first && name.len() <= 64 && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn slots(arguments: &Map<String, Value>) -> bool {
    arguments
        .iter()
        .all(|(name, slot)| slot_name(name) && slot.as_object().is_some_and(one_slot))
}

fn one_slot(slot: &Map<String, Value>) -> bool {
    let string_or_number = |value: &Value| value.is_string() || value.is_number();
    slot.contains_key("type")
        && slot.iter().all(|(key, value)| match key.as_str() {
            "type" => value.as_str().is_some_and(|t| SLOT_TYPES.contains(&t)),
            "description" => value.is_string(),
            "required" | "allow_leading_dash" => value.is_boolean(),
            "default" => string_or_number(value),
            "enum" => value
                .as_array()
                .is_some_and(|items| !items.is_empty() && items.iter().all(string_or_number)),
            // `format: regex`, checked as the validator checks it.
            "pattern" => value
                .as_str()
                .is_some_and(jsonschema_regex::is_valid_ecma_regex),
            // `additionalProperties: false`
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use serde_json::json;

    /// Whether the compiled validator accepts `value`.
    fn schema_accepts(value: &Value) -> bool {
        crate::format::validator().unwrap().is_valid(value)
    }

    /// Any small JSON value.
    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            Just(json!(1.5)),
            "[a-z ]{0,3}".prop_map(Value::from),
            Just(json!([])),
            Just(json!({})),
        ]
    }

    /// Strings near the schema's rules: names valid and not, patterns valid
    /// in ECMA-262 and not, empty text.
    fn word() -> impl Strategy<Value = Value> {
        prop::sample::select(vec![
            "",
            "a",
            "A_b-9",
            "_x",
            "9",
            "-",
            "a b",
            "é",
            "a\n",
            "a\u{0}",
            "string",
            "number",
            "path",
            "text",
            "bool",
            "[a-z]+",
            "^[0-9]+(,[0-9]+)?$",
            "(?i)a",
            "(",
            r"\a",
            r"\d+",
            "a{2,1}",
            r"\p{L}",
        ])
        .prop_map(Value::from)
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![3 => word(), 1 => scalar()]
    }

    /// Mostly what the schema asks for at `key`, sometimes anything.
    fn or_any(good: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
        prop_oneof![6 => good, 1 => leaf()].boxed()
    }

    /// An object of the members that came out present.
    fn members(members: Vec<(&'static str, Option<Value>)>) -> Value {
        Value::Object(
            members
                .into_iter()
                .filter_map(|(key, value)| Some((key.to_owned(), value?)))
                .collect(),
        )
    }

    fn slot() -> impl Strategy<Value = Value> {
        let maybe = |p, s: BoxedStrategy<Value>| proptest::option::weighted(p, s);
        let bool_ = || or_any(any::<bool>().prop_map(Value::from));
        let text_or_number = prop_oneof![
            "[a-z.]{0,3}".prop_map(Value::from),
            any::<i8>().prop_map(Value::from)
        ];
        (
            maybe(
                0.95,
                or_any(prop::sample::select(SLOT_TYPES.to_vec()).prop_map(Value::from)),
            ),
            maybe(0.5, or_any("[a-z ]{0,5}".prop_map(Value::from))),
            maybe(0.5, bool_()),
            maybe(0.3, or_any(text_or_number.clone())),
            maybe(
                0.2,
                or_any(prop::collection::vec(text_or_number, 0..3).prop_map(Value::from)),
            ),
            maybe(0.3, word().boxed()),
            maybe(0.1, bool_()),
            maybe(0.05, leaf().boxed()),
        )
            .prop_map(
                |(kind, description, required, default, choices, pattern, dash, stray)| {
                    members(vec![
                        ("type", kind),
                        ("description", description),
                        ("required", required),
                        ("default", default),
                        ("enum", choices),
                        ("pattern", pattern),
                        ("allow_leading_dash", dash),
                        ("stray", stray),
                    ])
                },
            )
    }

    fn descriptor() -> impl Strategy<Value = Value> {
        let maybe = |p, s: BoxedStrategy<Value>| proptest::option::weighted(p, s);
        let name =
            || or_any(prop::sample::select(vec!["a", "A_b-9", "_x", "9"]).prop_map(Value::from));
        let text = || or_any("[a-z {}]{1,8}".prop_map(Value::from));
        let slot_name = prop_oneof![4 => "[a-z_][a-z0-9_]{0,3}", 1 => "[a-z9 -]{0,3}"];
        let slots = or_any(
            prop::collection::vec((slot_name, slot()), 0..3)
                .prop_map(|slots| Value::Object(slots.into_iter().collect())),
        );
        (
            maybe(0.1, or_any("[a-z./]{0,8}".prop_map(Value::from))),
            maybe(0.95, name()),
            maybe(0.95, text()),
            maybe(0.95, text()),
            maybe(0.7, slots),
            maybe(0.3, or_any(any::<bool>().prop_map(Value::from))),
            maybe(0.05, leaf().boxed()),
        )
            .prop_map(
                |(schema, name, description, command, arguments, read_only, stray)| {
                    members(vec![
                        ("$schema", schema),
                        ("name", name),
                        ("description", description),
                        ("command", command),
                        ("arguments", arguments),
                        ("read_only", read_only),
                        ("stray", stray),
                    ])
                },
            )
            .boxed()
            .prop_union(scalar().boxed())
    }

    /// The hand check and the compiled schema give the same answer on
    /// generated documents (the hand check may only ever be stricter; here
    /// it is equal), and enough of them follow the schema for the
    /// comparison to mean something.
    #[test]
    fn the_hand_check_agrees_with_the_schema() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = descriptor();
        let (mut accepted, cases) = (0, 4096);
        for _ in 0..cases {
            let value = strategy.new_tree(&mut runner).unwrap().current();
            let schema = schema_accepts(&value);
            assert_eq!(surely_conforms(&value), schema, "{value}");
            accepted += usize::from(schema);
        }
        assert!(
            accepted * 10 > cases,
            "only {accepted} of {cases} follow the schema"
        );
    }

    #[test]
    fn the_examples_and_the_builtins_conform() {
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/tools");
        let mut seen = 0;
        for entry in std::fs::read_dir(examples).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            assert!(surely_conforms(&value), "{text}");
            seen += 1;
        }
        assert!(seen >= 3);
        for spec in jig_lineage::builtin_specs() {
            let value = serde_json::to_value(&spec).unwrap();
            assert!(surely_conforms(&value), "{value}");
        }
    }

    #[test]
    fn the_names_follow_the_schema_patterns() {
        for (name, tool, slot) in [
            ("a", true, true),
            ("_", true, true),
            ("-", true, false),
            ("9a", true, false),
            ("a-b", true, false),
            ("", false, false),
            ("é", false, false),
            ("a b", false, false),
            ("a\n", false, false),
        ] {
            assert_eq!(tool_name(name), tool, "{name:?}");
            assert_eq!(slot_name(name), slot, "{name:?}");
        }
        assert!(tool_name(&"a".repeat(64)) && !tool_name(&"a".repeat(65)));
        assert!(slot_name(&"a".repeat(64)) && !slot_name(&"a".repeat(65)));
    }

    #[test]
    fn a_plain_descriptor_conforms() {
        let value = json!({
            "name": "search_text", "description": "d", "command": "grep -rn {p} {path}",
            "arguments": {
                "p": {"type": "text", "required": true, "pattern": "^[a-z]+$"},
                "path": {"type": "path", "default": ".", "enum": [".", 1]}
            },
            "read_only": true
        });
        assert!(surely_conforms(&value));
    }
}
