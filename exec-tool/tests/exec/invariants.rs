//! The invariants of the tokenizer and the scanner, shared by the property
//! tests and the fuzz target (`exec-tool/fuzz`, which includes this file).
//! Plain functions of the public API: they panic when an invariant breaks.

use jig_exec_tool::{CommandClass, ExecTool, PermissionRule, classify, tokenize};

/// For any text: nothing panics; an accepted command's argv is exactly its
/// tokenized words (no word added, split or merged) and holds no operator;
/// a rule matches an unparsable command; classification agrees.
pub(crate) fn check_text(text: &str) {
    let words = tokenize(text);
    let parsed = ExecTool::parse(text);
    let class = ExecTool::classify(text);
    match &parsed {
        Ok(parsed) => {
            let words = words.unwrap_or_else(|r| panic!("parsed but not tokenized: {text:?}: {r}"));
            assert_eq!(
                parsed.argv(),
                words.as_slice(),
                "argv differs from the words of {text:?}"
            );
            assert!(!parsed.argv().is_empty(), "empty argv accepted: {text:?}");
            assert!(parsed.assignments().is_empty(), "{text:?}");
            assert_eq!(class, classify(parsed.argv()), "{text:?}");
        }
        Err(refusal) => {
            assert_eq!(refusal.code.code(), 615, "{text:?}");
            assert_eq!(class, CommandClass::Other, "{text:?}");
        }
    }
    // (Texts with `=` may be refused only for a leading assignment, which
    // rules strip; they are left out of this check.)
    if parsed.is_err() && !text.contains('=') {
        let rule = PermissionRule::parse("zz-never-a-program *").unwrap();
        assert!(
            rule.matches(text),
            "an unparsable command escaped a rule: {text:?}"
        );
    }
    if let Ok(rule) = PermissionRule::parse(text) {
        let _ = rule.matches(text);
    }
}
