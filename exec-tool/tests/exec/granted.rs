//! Programs integrators grant with `--exec-allow` that now have fail-closed
//! tables (`zip`, `jq`, `patch`), and `git var`: granted the ordinary way
//! (no `dangerous_allow_untabled`), run for real in a temporary workspace
//! under containment; the attacks of issue 16 are refused and leave no
//! file behind.

use jig_exec_tool::{AllowList, ExecTool};
use serde_json::json;

use crate::support::{Workspace, run_tool};

fn tool() -> ExecTool {
    let allow = AllowList::new(["zip", "unzip", "jq", "patch", "git"]).unwrap();
    ExecTool::builder().allow(allow).build()
}

/// Runs `command` through the exec tool: its output, or `Err` with the
/// refusal's layer.
fn run(ws: &Workspace, command: &str) -> Result<String, String> {
    let result = run_tool(&tool(), &ws.kernel, &json!({ "command": command }));
    match result.refusal() {
        Some(refusal) => Err(refusal.layer.as_str().to_owned()),
        None => Ok(result
            .outcome()
            .unwrap_or_else(|| panic!("{command}: {}", result.text()))
            .render()),
    }
}

#[test]
fn zip_jq_and_patch_run_and_their_attacks_are_refused() {
    let ws = Workspace::new();
    let root = ws.dir.path();
    let outside = tempfile::tempdir().unwrap();
    let out = outside.path().display();
    // zip writes an archive inside the workspace; -O, -b, -TT, @ are refused.
    let made = run(&ws, "zip -ry -q bundle.zip src README.md").unwrap();
    assert!(made.starts_with("exit: 0"), "{made}");
    assert!(root.join("bundle.zip").is_file());
    let listed = run(&ws, "unzip -l bundle.zip").unwrap();
    assert!(listed.contains("src/main.rs"), "{listed}");
    for attack in [
        format!("zip -O {out}/copy.zip bundle.zip README.md"),
        "zip -O copy.zip bundle.zip README.md".to_owned(),
        format!("zip -b {out} new.zip README.md"),
        "zip -TT 'touch marker #' -T new.zip README.md".to_owned(),
        "zip --unzip-command='touch marker #' -T new.zip README.md".to_owned(),
        "zip -@ new.zip".to_owned(),
        "zip new.zip @names.txt".to_owned(),
    ] {
        assert_eq!(run(&ws, &attack), Err("exec.flags".to_owned()), "{attack}");
    }
    assert!(!root.join("copy.zip").exists() && !root.join("new.zip").exists());
    assert!(!root.join("marker").exists());
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);

    // jq reads workspace files; -L, imports, -f and outside files are refused.
    std::fs::write(root.join("data.json"), r#"{"name":"demo","n":[1,2]}"#).unwrap();
    std::fs::write(outside.path().join("secret.json"), r#""SECRET-CANARY""#).unwrap();
    let read = run(&ws, "jq -r .name data.json").unwrap();
    assert_eq!(read, "exit: 0\noutput: demo\n");
    let args = run(
        &ws,
        "jq -n --arg a x --rawfile r README.md '$a + ($r | length | tostring)'",
    )
    .unwrap();
    assert!(args.contains("x18"), "{args}");
    for attack in [
        format!("jq -L {out} -n 'import \"secret\" as $s; $s'"),
        format!("jq -n 'import \"secret\" as $s {{search: \"{out}\"}}; $s'"),
        format!("jq --rawfile s {out}/secret.json -n '$s'"),
        format!("jq --slurpfile s {out}/secret.json -n '$s'"),
        "jq -f prog.jq data.json".to_owned(),
    ] {
        let refused = run(&ws, &attack);
        assert!(refused.is_err(), "{attack}: {refused:?}");
    }

    // patch applies a diff in the workspace; outside places are refused.
    std::fs::write(root.join("notes.txt"), "old\n").unwrap();
    std::fs::write(
        root.join("fix.diff"),
        "--- notes.txt\n+++ notes.txt\n@@ -1 +1 @@\n-old\n+new\n",
    )
    .unwrap();
    let patched = run(&ws, "patch -p0 -i fix.diff").unwrap();
    assert!(patched.starts_with("exit: 0"), "{patched}");
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "new\n"
    );
    for attack in [
        format!("patch -R -o {out}/notes.txt -i fix.diff notes.txt"),
        format!("patch -R -b -B {out}/ -i fix.diff"),
        format!("patch -R -d {out} -i fix.diff"),
        format!("patch -R -r {out}/rej -i fix.diff"),
        "patch -R -p0".to_owned(),
    ] {
        let refused = run(&ws, &attack);
        assert!(refused.is_err(), "{attack}: {refused:?}");
    }
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "new\n"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[test]
fn git_var_prints_one_variable_never_the_list() {
    let ws = Workspace::new();
    let init = ws.kernel.run_with(
        &["git", "init", "-q"],
        &jig_kernel::RunOptions::new(ws.kernel.limits())
            .with_access(jig_kernel::Access::WriteWorkspace),
    );
    assert_eq!(init.unwrap().exit_code(), Some(0));
    let config = ws.dir.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[secret]\n\ttoken = TOKEN-CANARY\n");
    std::fs::write(&config, text).unwrap();
    let branch = run(&ws, "git var GIT_DEFAULT_BRANCH").unwrap();
    assert!(branch.starts_with("exit: 0"), "{branch}");
    for attack in ["git var -l", "git var", "git var secret.token"] {
        assert_eq!(run(&ws, attack), Err("exec.flags".to_owned()), "{attack}");
    }
    // Control: git itself lists the secret.
    let listed = ws.kernel.run(&["git", "var", "-l"]).unwrap().render();
    assert!(listed.contains("TOKEN-CANARY"), "{listed}");
}
