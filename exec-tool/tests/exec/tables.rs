//! Layer 4: every table's own examples (must allow, must refuse), run with
//! the program on the allow list, plus the launchers.

use jig_exec_tool::ExecTool;
use jig_lineage::DenyList;
use jig_programs::table_examples;

use crate::support::{Workspace, allowing_program_of, render};

#[test]
fn every_table_keeps_its_examples() {
    let ws = Workspace::new();
    let examples = table_examples();
    assert!(examples.len() > 300, "{} examples", examples.len());
    let mut refusals = Vec::new();
    let mut failures = Vec::new();
    for example in &examples {
        let tool = allowing_program_of(example.command);
        let result = ws.check(&tool, example.command);
        match (&result, example.allowed) {
            (Ok(_), true) => {}
            (Err(refusal), false)
                if matches!(refusal.layer.as_str(), "exec.flags" | "exec.path") =>
            {
                refusals.push((example.command, result.clone()));
            }
            _ => failures.push(format!(
                "{}: {}: {:?}",
                example.program, example.command, result
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "examples not kept:\n{}",
        failures.join("\n")
    );
    insta::assert_snapshot!("table_refusals", render(&refusals));
}

#[test]
fn launchers_are_refused_whatever_the_allow_list() {
    let ws = Workspace::new();
    for command in [
        "run-parts --regex '^sh$' .",
        "start-stop-daemon -S -x x",
        "systemd-run --user -t x",
        "npx -c id",
        "ip netns exec x id",
        "tmux new x",
    ] {
        // On the default deny list (the lineage's one launcher list)...
        let refusal = ws
            .check(&allowing_program_of(command), command)
            .unwrap_err();
        assert_eq!(refusal.layer.as_str(), "exec.denylist", "{command}");
        // ...and still refused by layer 4 when an integrator lifts the deny.
        let program = command.split_whitespace().next().unwrap_or_default();
        let lifted = ExecTool::builder()
            .allow(crate::support::any_allow([program]))
            .deny(DenyList::default().dangerous_allow([program]))
            .build();
        let refusal = ws.check(&lifted, command).unwrap_err();
        assert_eq!(refusal.layer.as_str(), "exec.flags", "{command}");
    }
}

#[test]
fn unknown_programs_get_the_generic_rules() {
    let ws = Workspace::new();
    let cases: &[(&str, Option<&str>)] = &[
        ("jq .name package.json", None),
        ("whoami", None),
        ("cp README.md copy.md", None),
        ("cp /etc/shadow ./shadow.txt", Some("exec.path")),
        ("jq -Rr . /etc/shadow", Some("exec.path")),
        ("jq --rawfile a /etc/shadow .", Some("exec.path")),
        ("cp README.md symlink_to_root/tmp/x", Some("exec.path")),
        ("xxd --out=/tmp/x README.md", Some("exec.path")),
        ("xxd -o/tmp/x README.md", Some("exec.path")),
        ("xfer --files-from=host:/etc/x a", Some("exec.path")),
        ("cp fifo x", Some("exec.path")),
    ];
    for (command, layer) in cases {
        let result = ws.check(&allowing_program_of(command), command);
        assert_eq!(
            result.as_ref().err().map(|r| r.layer.as_str()),
            *layer,
            "{command}: {result:?}"
        );
    }
}
