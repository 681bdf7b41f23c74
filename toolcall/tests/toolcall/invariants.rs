//! What must hold for every input text. The fuzz target
//! (`toolcall/fuzz/fuzz_targets/repair.rs`) includes this very file, and
//! the proptests below run the same check on stable.

use jig_toolcall::{CallOutcome, RepairError, extract_call, repair, repair_value};
use serde_json::Value;

/// Checks every invariant on `text`; panics with the offending input.
///
/// - `repair` yields JSON that `serde_json` reads, or a typed error that is
///   not [`RepairError::Invalid`] (which would be a bug);
/// - `repair_value` agrees with `repair`;
/// - valid JSON comes back with the same value;
/// - `extract_call` yields a well-formed call, or no call only when the
///   text holds no `{`.
pub(crate) fn check(text: &str) {
    let repaired = repair(text);
    let value = repair_value(text);
    match (&repaired, &value) {
        (Ok(json), Ok(value)) => {
            let parsed: Value = serde_json::from_str(json)
                .unwrap_or_else(|error| panic!("invalid JSON {json:?} from {text:?}: {error}"));
            assert_eq!(&parsed, value, "repair and repair_value differ on {text:?}");
        }
        (Err(error @ RepairError::Invalid { .. }), _)
        | (_, Err(error @ RepairError::Invalid { .. })) => {
            panic!("invalid repair of {text:?}: {error}")
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
        _ => panic!("repair and repair_value differ on {text:?}: {repaired:?}, {value:?}"),
    }
    if let Ok(original) = serde_json::from_str::<Value>(text) {
        assert_eq!(
            value.ok().as_ref(),
            Some(&original),
            "valid JSON changed: {text:?}"
        );
    }
    match extract_call(text) {
        CallOutcome::Call(call) => {
            assert!(!call.name().is_empty(), "empty name from {text:?}");
            assert_eq!(
                call.name(),
                call.name().trim(),
                "untrimmed name from {text:?}"
            );
        }
        CallOutcome::NoCall => assert!(!text.contains('{'), "a `{{` but no call in {text:?}"),
        CallOutcome::Unrepairable { reason } => {
            assert!(!reason.to_string().is_empty(), "empty reason for {text:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::check;

    /// Text that looks like what a weak model sends: JSON punctuation,
    /// quotes of every kind, comments, fences, literals and words.
    fn model_text() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("{".to_owned()),
            Just("}".to_owned()),
            Just("[".to_owned()),
            Just("]".to_owned()),
            Just("\"".to_owned()),
            Just("'".to_owned()),
            Just(",".to_owned()),
            Just(":".to_owned()),
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("\\".to_owned()),
            Just("```json\n".to_owned()),
            Just("// c\n".to_owned()),
            Just("/*".to_owned()),
            Just("#".to_owned()),
            Just("\"name\"".to_owned()),
            Just("\"arguments\"".to_owned()),
            Just("True".to_owned()),
            Just("None".to_owned()),
            Just("-1.5e3".to_owned()),
            Just("“".to_owned()),
            "[a-z]{1,6}",
            "\\PC{1,3}",
        ];
        prop::collection::vec(token, 0..48).prop_map(|tokens| tokens.concat())
    }

    proptest! {
        #[test]
        fn any_text_keeps_the_invariants(text in any::<String>()) {
            check(&text);
        }

        #[test]
        fn model_like_text_keeps_the_invariants(text in model_text()) {
            check(&text);
        }

        #[test]
        fn truncated_calls_keep_the_invariants(cut in 0usize..200) {
            let call = r#"Sure: ```json
{"name": "write_file", "arguments": {"path": "src/it's.rs", "content": "fn main() {\n    println!(\"hi\");\n}", "mode": 0o644, "force": True}}
```"#;
            let cut = (0..=cut.min(call.len())).rev().find(|&i| call.is_char_boundary(i)).unwrap_or(0);
            check(&call[..cut]);
        }
    }

    /// Inputs the fuzz target or proptest once found, kept as regressions.
    #[test]
    fn known_hard_inputs_keep_the_invariants() {
        for text in [
            "",
            "\"{\"",
            "[1e999]",
            "[\"\\ud800\"]",
            "{\"a\": \"\\ud800\"}",
            "\"\\",
            "{\"",
            "{'",
            "[\"\\u12",
            "{\"a\": 1}, \"b\"",
            "{```",
            "f(",
            "[1_]",
            "-",
            ".",
            "\u{feff}{}",
            "\u{f}\0{\u{784}\u{728}\0{undefined{\0",
        ] {
            check(text);
        }
    }
}
