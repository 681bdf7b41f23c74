//! Neutralizing git's configuration: a repository whose own `.git/config`
//! would run programs on read-only commands runs none of them through the
//! exec tool (while plain git, as a control, does).

use jig_exec_tool::ExecTool;
use jig_programs::{GIT_CONFIG, GIT_ENV};
use serde_json::json;

use crate::support::Workspace;

/// Runs git directly through the kernel (no exec tool: no hardening).
fn raw_git(ws: &Workspace, args: &[&str]) {
    let mut argv = vec![
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
    ];
    argv.extend_from_slice(args);
    let outcome = ws.kernel.run(&argv).unwrap();
    assert_eq!(
        outcome.exit_code(),
        Some(0),
        "{argv:?}: {}",
        outcome.render()
    );
}

/// A repository with one commit and `config` appended to `.git/config`,
/// on a kernel without containment: these tests show what the exec tool's
/// git hardening alone prevents.
fn hostile_repo(config: &str) -> Workspace {
    let ws = Workspace::bare();
    raw_git(&ws, &["init", "-q"]);
    raw_git(&ws, &["add", "README.md", "src/main.rs", "data.csv"]);
    raw_git(&ws, &["commit", "-qm", "init"]);
    let git_config = ws.dir.path().join(".git/config");
    let mut text = std::fs::read_to_string(&git_config).unwrap();
    text.push_str(config);
    std::fs::write(&git_config, text).unwrap();
    ws
}

fn run(ws: &Workspace, command: &str) -> String {
    let tool = ExecTool::builder().build();
    let result = crate::support::run_tool(&tool, &ws.kernel, &json!({ "command": command }));
    let outcome = result
        .outcome()
        .unwrap_or_else(|| panic!("{command}: {}", result.text()));
    assert_eq!(
        outcome.exit_code(),
        Some(0),
        "{command}: {}",
        outcome.render()
    );
    outcome.render()
}

fn marker(ws: &Workspace, name: &str) -> bool {
    ws.dir.path().join(name).exists()
}

#[test]
fn fsmonitor_in_repository_config_does_not_run() {
    let ws = hostile_repo("[core]\n\tfsmonitor = touch fsmonitor-ran; false\n");
    run(&ws, "git status");
    run(&ws, "git status --short");
    run(&ws, "git diff");
    assert!(
        !marker(&ws, "fsmonitor-ran"),
        "core.fsmonitor ran through the exec tool"
    );
    // Control: plain git runs it, so the repository really is hostile.
    raw_git(&ws, &["status"]);
    assert!(
        marker(&ws, "fsmonitor-ran"),
        "the control did not run core.fsmonitor"
    );
}

#[test]
fn drivers_filters_and_pagers_do_not_run() {
    let config = "[filter \"x\"]\n\tclean = touch clean-ran; cat\n\tprocess = touch process-ran\n\
                  [diff \"y\"]\n\ttextconv = touch textconv-ran; cat\n\
                  [core]\n\tpager = touch pager-ran; cat\n\
                  [log]\n\tshowSignature = true\n[gpg]\n\tprogram = touch gpg-ran\n\
                  [include]\n\tpath = ../included.cfg\n";
    let ws = hostile_repo(config);
    std::fs::write(
        ws.dir.path().join("included.cfg"),
        "[diff \"z\"]\n\ttextconv = touch included-ran; cat\n",
    )
    .unwrap();
    std::fs::write(
        ws.dir.path().join(".gitattributes"),
        "*.md filter=x diff=y\n*.rs diff=z\n",
    )
    .unwrap();
    raw_git(
        &ws,
        &[
            "-c",
            "filter.x.clean=cat",
            "-c",
            "filter.x.process=",
            "add",
            ".gitattributes",
        ],
    );
    raw_git(
        &ws,
        &[
            "-c",
            "filter.x.clean=cat",
            "-c",
            "filter.x.process=",
            "commit",
            "-qm",
            "attributes",
        ],
    );
    std::fs::write(ws.dir.path().join("README.md"), "# changed\n").unwrap();
    std::fs::write(ws.dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    for command in [
        "git status",
        "git diff",
        "git log -p -2",
        "git show HEAD~1",
        "git blame README.md",
        "git grep -n main",
        "git diff HEAD -- src",
    ] {
        let output = run(&ws, command);
        if command == "git diff" {
            assert!(output.contains("+# changed"), "{output}");
        }
    }
    for name in [
        "clean-ran",
        "process-ran",
        "textconv-ran",
        "pager-ran",
        "gpg-ran",
        "included-ran",
    ] {
        assert!(!marker(&ws, name), "{name}");
    }
    // Control: plain git runs the drivers.
    let _ = ws.kernel.run(&["git", "diff"]);
    assert!(marker(&ws, "textconv-ran") || marker(&ws, "process-ran"));
}

#[test]
fn repositories_outside_the_workspace_are_refused() {
    let ws = Workspace::new();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.dir.path().join(".git"),
        format!("gitdir: {}\n", elsewhere.path().display()),
    )
    .unwrap();
    let refusal = ws
        .check(&ExecTool::builder().build(), "git log")
        .unwrap_err();
    assert_eq!(refusal.layer.as_str(), "exec.path");
    assert!(
        refusal.message.contains("outside the workspace"),
        "{}",
        refusal.message
    );
}

#[test]
fn git_environment_is_complete() {
    let ws = hostile_repo(
        "[diff \"y\"]\n\ttextconv = x\n\tcommand = y\n[filter \"lfs\"]\n\tclean = z\n[diff]\n\texternal = w\n",
    );
    let invocation = ws
        .check(&ExecTool::builder().build(), "git -C src log")
        .unwrap();
    assert_eq!(invocation.argv, ["git", "-C", "src", "log"]);
    let root = ws.kernel.root().to_string_lossy().into_owned();
    let parent = ws
        .kernel
        .root()
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let rendered: String = invocation
        .env
        .iter()
        .map(|(k, v)| {
            format!(
                "{k}={}\n",
                v.replace(&root, "[ROOT]").replace(&parent, "[PARENT]")
            )
        })
        .collect();
    insta::assert_snapshot!("git_environment", rendered);
    for (key, _) in GIT_ENV {
        assert!(invocation.env.iter().any(|(k, _)| k == key), "{key}");
    }
    let count = GIT_CONFIG.len() + 1 + 4; // fixed, core.worktree, 4 driver keys
    assert!(
        invocation
            .env
            .contains(&("GIT_CONFIG_COUNT".to_owned(), count.to_string()))
    );
    // Non-git programs get none of it.
    let invocation = ws.check(&ExecTool::builder().build(), "ls").unwrap();
    assert!(invocation.env.is_empty());
}
