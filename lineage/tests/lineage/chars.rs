//! The character rules, seen through a tool: every class refused, every
//! look-alike kept literal.

use serde_json::json;

use crate::{Workspace, build};
use jig_lineage::{CommandSpec, SlotSpec};

#[test]
fn each_refused_character_names_itself() {
    let ws = Workspace::new();
    let tool = build(
        CommandSpec::new("echo_tool", "Echo", "echo {text}")
            .slot("text", SlotSpec::string("Text").required()),
    );
    let mut refused: Vec<char> = jig_lineage::REFUSED_CHARACTERS.to_vec();
    refused.extend([
        '\0',
        '\t',
        '\r',
        '\u{b}',
        '\u{c}',
        '\u{1b}',
        '\u{7f}',
        '\u{85}',
        '\u{a0}',
        '\u{1680}',
        '\u{2000}',
        '\u{2007}',
        '\u{200a}',
        '\u{2028}',
        '\u{2029}',
        '\u{202f}',
        '\u{205f}',
        '\u{3000}',
        '\u{200b}',
        '\u{200e}',
        '\u{202e}',
        '\u{2066}',
        '\u{feff}',
        '\u{e0041}',
    ]);
    for c in refused {
        let value = format!("a{c}b");
        let refusal = tool
            .check_in(&json!({ "text": value }), &ws.root)
            .unwrap_err();
        assert_eq!(refusal.code.code(), 614, "{c:?}");
        assert_eq!(refusal.slot.as_deref(), Some("text"));
    }
    // Look-alikes and other non-ASCII text stay literal: never normalized.
    for value in [
        "\u{fe54}id",
        "\u{ff1b}id",
        "\u{2013}\u{2013}pre=sh",
        "\u{2212}f",
        "caf\u{e9}",
        "cafe\u{301}",
        "\u{ff04}\u{ff08}id\u{ff09}",
        "\u{1f600}",
    ] {
        let invocation = tool.check_in(&json!({ "text": value }), &ws.root).unwrap();
        assert_eq!(invocation.argv, ["echo", value]);
    }
}
