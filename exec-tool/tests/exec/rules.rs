//! Permission rules.

use jig_exec_tool::{ExecTool, PermissionRule, RuleEffect, RuleError};

use crate::support::Workspace;

#[test]
fn rules_match_the_parsed_argv() {
    let cases: &[(&str, &str, bool)] = &[
        ("git log *", "git log", true),
        ("git log *", "git log --oneline -3", true),
        ("git log *", "git  'log'  -3", true),
        ("git log *", "GIT_PAGER=x git log", true),
        ("git log *", "git show", false),
        ("git log *", "git", false),
        ("cargo test *", "cargo test -p x", true),
        ("cargo test *", "cargo build", false),
        ("git *", "git push", true),
        ("git push", "git push origin", false),
        ("rm *.txt", "rm a.txt", true),
        ("rm *.txt", "rm a.rs", false),
        // Unparsable commands match every rule.
        ("cargo test *", "ls; rm -rf /", true),
        ("cargo test *", "echo $(id)", true),
        ("cargo test *", "echo 'unclosed", true),
        ("cargo test *", "", true),
    ];
    for (rule, command, expected) in cases {
        let parsed_rule = PermissionRule::parse(rule).unwrap();
        assert_eq!(
            parsed_rule.matches(*command),
            *expected,
            "{rule} vs {command:?}"
        );
        if let Ok(parsed) = ExecTool::parse(command) {
            assert_eq!(
                parsed_rule.matches(&parsed),
                *expected,
                "{rule} vs parsed {command:?}"
            );
        }
    }
}

#[test]
fn rule_errors() {
    assert_eq!(PermissionRule::parse(""), Err(RuleError::Empty));
    let messages: Vec<String> = ["", "*", "git log | x", "git 'log"]
        .iter()
        .map(|text| PermissionRule::parse(text).unwrap_err().to_string())
        .collect();
    insta::assert_snapshot!("rule_errors", messages.join("\n"));
}

#[test]
fn ask_and_deny_rules_in_check() {
    let ws = Workspace::new();
    let tool = ExecTool::builder()
        .rule(PermissionRule::ask("git *").unwrap())
        .rule(PermissionRule::deny("git log --all *").unwrap())
        .build();
    let invocation = ws.check(&tool, "git log -3").unwrap();
    assert_eq!(invocation.needs_approval.as_deref(), Some("git *"));
    let refusal = ws.check(&tool, "git log --all --oneline").unwrap_err();
    assert_eq!(refusal.layer.as_str(), "exec.rule");
    insta::assert_snapshot!("rule_denied", refusal.render());
    let invocation = ws.check(&tool, "ls").unwrap();
    assert_eq!(invocation.needs_approval, None);
    assert!(RuleEffect::Deny < RuleEffect::Ask);
    assert_eq!(tool.rules().len(), 2);
}

#[test]
fn rules_match_past_global_options_and_check_their_examples() {
    let rule = PermissionRule::deny("git log --all *").unwrap();
    for command in [
        "git log --all",
        "git -C . log --all",
        "git --no-pager log --all --oneline",
        "git -c color.ui=never -C sub log --all",
        "git --git-dir=.git log --all",
    ] {
        assert!(rule.matches(command), "{command}");
    }
    for command in ["git log", "git -C . log --oneline", "git status --all"] {
        assert!(!rule.matches(command), "{command}");
    }
    // Examples are checked when the rule is built.
    let checked = PermissionRule::deny("git push *")
        .unwrap()
        .with_examples(&["git push origin main", "git -C sub push"], &["git pull"]);
    assert!(checked.is_ok());
    let error = PermissionRule::deny("git push")
        .unwrap()
        .with_examples(&["git push --force"], &[])
        .unwrap_err();
    assert!(error.to_string().contains("does not match"), "{error}");
    let error = PermissionRule::ask("git *")
        .unwrap()
        .with_examples(&[], &["git status"])
        .unwrap_err();
    assert!(error.to_string().contains("should not"), "{error}");
}
