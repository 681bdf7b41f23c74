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
    hostile_repo_bytes(config.as_bytes())
}

/// [`hostile_repo`] with configuration bytes that need not be UTF-8.
fn hostile_repo_bytes(config: &[u8]) -> Workspace {
    let ws = Workspace::bare();
    raw_git(&ws, &["init", "-q"]);
    raw_git(&ws, &["add", "README.md", "src/main.rs", "data.csv"]);
    raw_git(&ws, &["commit", "-qm", "init"]);
    let git_config = ws.dir.path().join(".git/config");
    let mut text = std::fs::read(&git_config).unwrap();
    text.extend_from_slice(config);
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
    let ws = Workspace::bare();
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = jig_kernel::Kernel::builder(elsewhere.path())
        .dangerous_no_containment()
        .build()
        .unwrap();
    let options = jig_kernel::RunOptions::new(outside.limits())
        .with_access(jig_kernel::Access::WriteWorkspace);
    let made = outside
        .run_with(&["git", "init", "-q", "--bare", "."], &options)
        .unwrap();
    assert_eq!(made.exit_code(), Some(0), "{}", made.render());
    std::fs::write(
        ws.dir.path().join(".git"),
        format!("gitdir: {}\n", elsewhere.path().display()),
    )
    .unwrap();
    // Found when git is asked, right before the run (judging opens no file
    // of the repository).
    let result = crate::support::run_tool(
        &ExecTool::builder().build(),
        &ws.kernel,
        &json!({ "command": "git log" }),
    );
    let refusal = result
        .refusal()
        .unwrap_or_else(|| panic!("{}", result.text()));
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
    // The dry run shows the fixed part: the fixed keys and core.worktree.
    let count = GIT_CONFIG.len() + 1;
    assert!(
        invocation
            .env
            .contains(&("GIT_CONFIG_COUNT".to_owned(), count.to_string()))
    );
    // Right before the run, git names the repository's 4 driver keys.
    let ran = crate::support::harden_git(&ws.kernel, invocation).unwrap();
    assert!(
        ran.env
            .contains(&("GIT_CONFIG_COUNT".to_owned(), (count + 4).to_string())),
        "{:?}",
        ran.env
    );
    for key in [
        "diff.y.textconv",
        "diff.y.command",
        "filter.lfs.clean",
        "diff.external",
    ] {
        assert!(ran.env.iter().any(|(_, v)| v == key), "{key}");
    }
    // Non-git programs get none of it.
    let invocation = ws.check(&ExecTool::builder().build(), "ls").unwrap();
    assert!(invocation.env.is_empty());
}

/// Drivers that leave a marker when git runs them.
const DRIVERS: &[u8] = b"[diff \"y\"]\n\ttextconv = touch textconv-ran; cat\n\
[filter \"x\"]\n\tclean = touch clean-ran; cat\n";

/// Selects the drivers for every file and makes the work tree differ from
/// the index (stat and content), so that `git status` and `git diff` would
/// run them.
fn select_drivers(root: &std::path::Path) {
    std::fs::write(root.join(".gitattributes"), "* diff=y filter=x\n").unwrap();
    std::fs::write(root.join("README.md"), "# changed\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
}

/// Runs `git status` and `git diff` through the exec tool (and the
/// run-time query), each within `limit`; returns the refusal texts.
fn run_both(ws: &Workspace, limit: std::time::Duration) -> Vec<String> {
    let mut refused = Vec::new();
    for command in ["git status --short", "git diff"] {
        let start = std::time::Instant::now();
        let tool = ExecTool::builder().build();
        let result = crate::support::run_tool(&tool, &ws.kernel, &json!({ "command": command }));
        assert!(
            start.elapsed() < limit,
            "{command} took {:?}",
            start.elapsed()
        );
        if let Some(refusal) = result.refusal() {
            refused.push(refusal.message.clone());
        }
    }
    refused
}

fn no_marker(ws: &Workspace, case: &str) {
    for name in ["textconv-ran", "clean-ran"] {
        assert!(!marker(ws, name), "{case}: {name} exists");
    }
}

/// Configuration that git reads one way and an imitation of its parser
/// another: git is the only reader, so every driver it sees is neutralized.
#[test]
fn configuration_tricks_never_run_a_driver() {
    let big = {
        let mut text = b"[x]\n\tbig = ".to_vec();
        text.extend(std::iter::repeat_n(b'a', (1 << 20) + 10));
        text.push(b'\n');
        text
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a byte that is not UTF-8", b"# \xff\xfe\n".to_vec()),
        ("a value past 1 MiB", big),
        ("comment continuation", b"# note \\\n".to_vec()),
        ("escaped backslashes", b"[x]\n\tv = a\\\\\n".to_vec()),
    ];
    for (case, prefix) in cases {
        let mut config = prefix;
        config.extend_from_slice(DRIVERS);
        check_case(case, &config, |_| {});
    }
    check_case(
        "two sections on one line",
        b"[core] [diff \"y\"] textconv = touch textconv-ran; cat\n\
          [core][filter \"x\"] clean = touch clean-ran; cat\n",
        |_| {},
    );
    check_case(
        "lone carriage returns",
        b"[x]\r[diff \"y\"]\n\ttextconv = touch textconv-ran; cat\n\
          [x]\r[filter \"x\"]\n\tclean = touch clean-ran; cat\n",
        |_| {},
    );
    check_case(
        "a byte-order mark",
        b"[include]\n\tpath = ../bom.cfg\n",
        |root| {
            let mut text = b"\xef\xbb\xbf".to_vec();
            text.extend_from_slice(DRIVERS);
            std::fs::write(root.join("bom.cfg"), text).unwrap();
        },
    );
    let mut includes = Vec::new();
    for n in 0..70 {
        includes.extend_from_slice(format!("[include]\n\tpath = ../inc/{n}.cfg\n").as_bytes());
    }
    check_case("more than 64 includes", &includes, |root| {
        std::fs::create_dir(root.join("inc")).unwrap();
        for n in 0..70 {
            let mut text = format!("[x]\n\tn = {n}\n").into_bytes();
            if n == 69 {
                text.extend_from_slice(DRIVERS);
            }
            std::fs::write(root.join(format!("inc/{n}.cfg")), text).unwrap();
        }
    });
}

/// One case: the repository gets `config` (and `setup`), every driver is
/// selected; through the exec tool no driver runs, with plain git (the
/// control) one does.
fn check_case(case: &str, config: &[u8], setup: impl FnOnce(&std::path::Path)) {
    let ws = hostile_repo_bytes(config);
    let root = ws.dir.path();
    setup(root);
    select_drivers(root);
    let refused = run_both(&ws, std::time::Duration::from_secs(30));
    assert!(refused.is_empty(), "{case}: {refused:?}");
    no_marker(&ws, case);
    let _ = ws.kernel.run(&["git", "diff"]);
    let _ = ws.kernel.run(&["git", "status"]);
    assert!(
        marker(&ws, "textconv-ran") || marker(&ws, "clean-ran"),
        "{case}: the control ran no driver"
    );
}

/// A `.git` file whose path holds a NUL: git reads the path up to the NUL,
/// so its configuration is the one git uses.
#[test]
fn a_git_file_with_a_nul_in_its_path_runs_no_driver() {
    let ws = hostile_repo_bytes(DRIVERS);
    let root = ws.dir.path();
    std::fs::rename(root.join(".git"), root.join("realgit")).unwrap();
    std::fs::write(root.join(".git"), b"gitdir: realgit\0junk\n").unwrap();
    select_drivers(root);
    let refused = run_both(&ws, std::time::Duration::from_secs(30));
    assert!(refused.is_empty(), "{refused:?}");
    no_marker(&ws, "NUL in the .git file");
    let _ = ws.kernel.run(&["git", "diff"]);
    assert!(marker(&ws, "textconv-ran") || marker(&ws, "clean-ran"));
}

/// An include naming a FIFO blocks git, not jig: the contained query ends
/// at its timeout and the run is refused; nothing runs.
#[test]
fn a_fifo_include_never_blocks_jig() {
    let mut config = b"[include]\n\tpath = ../fifo\n".to_vec();
    config.extend_from_slice(DRIVERS);
    let ws = hostile_repo_bytes(&config);
    select_drivers(ws.dir.path());
    let (send, receive) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let refused = run_both(&ws, std::time::Duration::from_secs(60));
        let _ = send.send(refused);
        ws
    });
    let refused = receive
        .recv_timeout(std::time::Duration::from_secs(90))
        .expect("jig blocked on a FIFO named by the configuration");
    let ws = handle.join().unwrap();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused[0].contains("did not say"), "{}", refused[0]);
    no_marker(&ws, "FIFO include");
}
