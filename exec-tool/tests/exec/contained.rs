//! Compatibility: every program of the default allow list still works
//! when the kernel contains it (every mechanism required), in a real git
//! repository.

use jig_exec_tool::ExecTool;
use jig_kernel::{Containment, Kernel};
use serde_json::json;

use crate::support::Workspace;

#[test]
fn the_default_allow_list_works_contained() {
    // The repository is made without containment (git commit writes
    // `.git`), then every command runs contained.
    let ws = Workspace::bare();
    for args in [
        &["init", "-q"][..],
        &["add", "README.md", "src/main.rs", "data.csv"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-qm",
            "init",
        ],
    ] {
        let mut argv = vec!["git"];
        argv.extend_from_slice(args);
        let outcome = ws
            .kernel
            .run_with(
                &argv,
                &jig_kernel::RunOptions::new(ws.kernel.limits())
                    .with_access(jig_kernel::Access::WriteWorkspace),
            )
            .unwrap();
        assert_eq!(outcome.exit_code(), Some(0), "{}", outcome.render());
    }
    std::fs::write(
        ws.dir.path().join("README.md"),
        "# demo\nTODO: docs\nmore\n",
    )
    .unwrap();
    let kernel = Kernel::builder(ws.dir.path())
        .containment(Containment::required())
        .build()
        .unwrap();
    let tool = ExecTool::builder().build();
    for (command, expected) in [
        ("git log --oneline", "init"),
        ("git show --stat HEAD", "README.md"),
        ("git diff", "+more"),
        ("git status --short", "README.md"),
        ("git grep -n TODO", "README.md:2"),
        ("git blame README.md", "TODO"),
        ("rg -n TODO", "README.md"),
        ("find . -name main.rs", "./src/main.rs"),
        ("sed -n 2p README.md", "TODO: docs"),
        ("tree src", "main.rs"),
        ("file README.md", "text"),
        ("du -s src", "src"),
        ("ls", "Cargo.toml"),
        ("cat data.csv", "a,b"),
        ("head -n 1 README.md", "# demo"),
        ("wc -l data.csv", "3"),
        ("grep -rn hello src", "src/main.rs:2"),
    ] {
        let result = crate::support::run_tool(&tool, &kernel, &json!({ "command": command }));
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{command}: {}", result.text()));
        let text = outcome.render();
        assert_eq!(outcome.exit_code(), Some(0), "{command}: {text}");
        assert!(text.contains(expected), "{command}: {text}");
        assert!(outcome.confinement.is_complete());
    }
}
