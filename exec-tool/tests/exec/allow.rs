//! Layers 1 and 2: the allow list and the deny list.

use jig_exec_tool::{AllowList, DEFAULT_READ_ONLY, ExecTool};
use jig_lineage::DenyList;

use crate::support::{Workspace, allowing, render};

#[test]
fn default_list_is_read_only_inspection() {
    let list = AllowList::default_read_only();
    assert_eq!(list.names().count(), DEFAULT_READ_ONLY.len());
    for program in [
        "ls", "cat", "head", "tail", "wc", "grep", "find", "sed", "sort", "uniq", "cut", "diff",
        "stat", "file", "du", "pwd", "echo", "git",
    ] {
        assert!(list.allows(program), "{program}");
    }
    for program in [
        "python3", "node", "bash", "rm", "curl", "make", "cargo", "xargs", "env",
    ] {
        assert!(!list.allows(program), "{program}");
    }
    assert_eq!(AllowList::default(), list);
}

#[test]
fn allow_and_deny_layers() {
    let ws = Workspace::new();
    let default = ExecTool::builder().build();
    // An allow list naming denied and launcher programs: the deny list and
    // the launcher table still win.
    let permissive = allowing(&[
        "bash",
        "rm",
        "env",
        "git",
        "python3",
        "timeout",
        "SH",
        "run-parts",
    ]);
    let cases: &[(&ExecTool, &str, &str)] = &[
        (&default, "python3 -c 'print(1)'", "exec.denylist"),
        (&default, "make", "exec.allowlist"),
        (&default, "./cat README.md", "exec.allowlist"),
        (&default, "/bin/cat README.md", "exec.allowlist"),
        (&default, "../bin/ls", "exec.allowlist"),
        (&default, "rm -rf /", "exec.denylist"),
        (&default, "/bin/rm x", "exec.denylist"),
        (&default, "bash -c id", "exec.denylist"),
        (&permissive, "bash -c id", "exec.denylist"),
        (&permissive, "rm README.md", "exec.denylist"),
        (&permissive, "SH -c id", "exec.denylist"),
        (&permissive, "env sh", "exec.denylist"),
        (&permissive, "timeout 5 sh", "exec.denylist"),
        (
            &permissive,
            "run-parts --regex '^sh$' /bin",
            "exec.denylist",
        ),
        (
            &permissive,
            "/usr/bin/python3 -c 'print(1)'",
            "exec.denylist",
        ),
    ];
    let mut rendered = Vec::new();
    for (tool, command, layer) in cases {
        let result = ws.check(tool, command);
        let refusal = result
            .as_ref()
            .err()
            .unwrap_or_else(|| panic!("accepted: {command}"));
        assert_eq!(refusal.layer.as_str(), *layer, "{command}");
        rendered.push((*command, result));
    }
    insta::assert_snapshot!("allow_and_deny_refusals", render(&rendered));
}

#[test]
fn deny_list_is_configurable() {
    let ws = Workspace::new();
    let tool = ExecTool::builder()
        .deny(DenyList::default().deny(["git"]))
        .build();
    let refusal = ws.check(&tool, "git status").unwrap_err();
    assert_eq!(refusal.layer.as_str(), "exec.denylist");
    // A denied program is not advertised either.
    assert!(!tool.description().contains("git"));
    use jig_lineage::Tool;
    assert!(!tool.audit().binaries.contains(&"git".to_owned()));
}

#[test]
fn a_program_without_a_table_is_granted_only_the_dangerous_way() {
    for name in ["strings", "objdump", "xxd", "openssl", "zstd"] {
        let error = AllowList::new([name]).unwrap_err();
        assert!(
            error.to_string().contains("dangerous_allow_untabled"),
            "{error}"
        );
        let granted = AllowList::new(Vec::<String>::new())
            .unwrap()
            .dangerous_allow_untabled([name])
            .unwrap();
        assert!(granted.allows(name));
    }
    // Granted the dangerous way, operands are still confined, response
    // files (`@FILE`, read by binutils) included.
    let ws = Workspace::new();
    let tool = ExecTool::builder()
        .allow(
            AllowList::new(Vec::<String>::new())
                .unwrap()
                .dangerous_allow_untabled(["strings"])
                .unwrap(),
        )
        .build();
    for command in [
        "strings /etc/passwd",
        "strings @/etc/passwd",
        "strings -f @../x",
    ] {
        let refusal = ws.check(&tool, command).unwrap_err();
        assert_eq!(refusal.layer.as_str(), "exec.path", "{command}");
    }
    ws.check(&tool, "strings README.md").unwrap();
    // Every program of the default list, and the writing ones integrators
    // plausibly grant, have tables.
    for name in jig_exec_tool::DEFAULT_READ_ONLY
        .iter()
        .chain(&["cp", "mv", "mkdir", "touch", "tee", "base64"])
    {
        AllowList::new([*name]).unwrap_or_else(|e| panic!("{e}"));
    }
}
