//! What must hold for every reply, per shape reader. The fuzz targets
//! (`toolcall/fuzz/fuzz_targets/read_*.rs`) include this very file, and the
//! proptests below run the same check on stable.
//!
//! Each shape has its markers: a target puts one of them (chosen by the
//! first byte of the input) before the rest of the input, so that the text
//! reaches that shape's reader.

use jig_toolcall::{Reading, ToolSpec, read_calls, read_calls_with};

/// The shapes, by name, with the markers that send a reply to each reader.
pub(crate) const SHAPES: [(&str, &[&str]); 5] = [
    (
        "json",
        &[
            "<tool_call>",
            "<|python_tag|>",
            "[TOOL_CALLS]",
            "<|tool_call|>",
            "functools",
            "```json\n",
            "",
        ],
    ),
    (
        "named",
        &[
            "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>",
            "<|tool_calls_section_begin|><|tool_call_begin|>",
            "<|tool_call_argument_begin|>",
            "[TOOL_CALLS]",
            "<|channel|>commentary to=functions.",
            "\u{273f}FUNCTION\u{273f}: a\n\u{273f}ARGS\u{273f}: ",
        ],
    ),
    (
        "xml",
        &[
            "<tool_call>\n<function=",
            "<minimax:tool_call>\n<invoke name=",
            "<tool_call>",
            "<function name=",
        ],
    ),
    (
        "pythonic",
        &[
            "[",
            "<|tool_call_start|>[",
            "<function_calls>",
            "<|python_start|>",
            "",
        ],
    ),
    (
        "gemma",
        &["<start_function_call>call:", "<|tool_call>call:"],
    ),
];

/// The reply a target reads: `data` after the marker of `shape` that its
/// first byte selects.
pub(crate) fn reply(shape: &str, data: &[u8]) -> Option<String> {
    let markers = SHAPES.iter().find(|(name, _)| *name == shape)?.1;
    let (first, rest) = data.split_first()?;
    let marker = markers.get(usize::from(*first) % markers.len())?;
    let rest = std::str::from_utf8(rest).ok()?;
    Some(format!("{marker}{rest}"))
}

/// Checks every invariant of reading `text`; panics with the offending
/// input.
///
/// - without a tool list: calls are a non-empty list of calls whose names
///   are non-empty and trimmed; a call that cannot be read has a reason;
/// - with a tool list: every call names a listed tool (an unlisted name is
///   an error, never a call), and reading twice gives the same answer.
pub(crate) fn check(text: &str) {
    match read_calls(text) {
        Reading::Calls(calls) => {
            assert!(!calls.is_empty(), "an empty list of calls from {text:?}");
            for call in &calls {
                assert!(!call.name().is_empty(), "empty name from {text:?}");
                assert_eq!(
                    call.name(),
                    call.name().trim(),
                    "untrimmed name from {text:?}"
                );
            }
        }
        Reading::Unreadable { reason } => {
            assert!(!reason.to_string().is_empty(), "empty reason for {text:?}");
        }
        _ => {}
    }
    let tools = [
        ToolSpec::new(
            "get_weather",
            serde_json::json!({"type": "object", "properties": {
                "city": {"type": "string"}, "days": {"type": "integer"}, "hot": {"type": "boolean"}
            }}),
        ),
        ToolSpec::new("ls", serde_json::json!({"type": "object"})),
    ];
    let first = read_calls_with(text, &tools);
    if let Reading::Calls(calls) = &first {
        for call in calls {
            assert!(
                tools.iter().any(|tool| tool.name() == call.name()),
                "an unlisted name `{}` read as a call from {text:?}",
                call.name()
            );
        }
    }
    let again = read_calls_with(text, &tools);
    assert_eq!(format!("{first:?}"), format!("{again:?}"), "{text:?}");
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{SHAPES, check, reply};

    /// Text made of the pieces the shape readers look for.
    fn call_text() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("get_weather".to_owned()),
            Just("ls".to_owned()),
            Just("(".to_owned()),
            Just(")".to_owned()),
            Just("=".to_owned()),
            Just("{".to_owned()),
            Just("}".to_owned()),
            Just("[".to_owned()),
            Just("]".to_owned()),
            Just(",".to_owned()),
            Just(":".to_owned()),
            Just("\"".to_owned()),
            Just("'".to_owned()),
            Just("<escape>".to_owned()),
            Just(">".to_owned()),
            Just("<parameter=".to_owned()),
            Just("</parameter>".to_owned()),
            Just("</function>".to_owned()),
            Just("</tool_call>".to_owned()),
            Just("<think>".to_owned()),
            Just("</think>".to_owned()),
            Just("[ARGS]".to_owned()),
            Just("<![CDATA[".to_owned()),
            Just("]]>".to_owned()),
            "[a-z0-9 ]{1,4}",
            "\\PC{1,2}",
        ];
        prop::collection::vec(token, 0..32).prop_map(|tokens| tokens.concat())
    }

    proptest! {
        #[test]
        fn every_shape_keeps_the_invariants(shape in 0usize..SHAPES.len(), marker in any::<u8>(), text in call_text()) {
            let mut data = vec![marker];
            data.extend_from_slice(text.as_bytes());
            if let Some(text) = reply(SHAPES[shape].0, &data) {
                check(&text);
            }
        }
    }
}
