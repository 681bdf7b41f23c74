//! The run point: every form, and any integrator's `Tool`, is vetted on its
//! final argv before the kernel sees it. Every case goes through
//! `Registry::dispatch`.

use std::path::Path;
use std::sync::Arc;

use jig_exec_tool::{AllowList, ExecConfig};
use jig_lineage::{
    CheckContext, CommandSpec, CommandTool, DenyList, ErrorCode, Invocation, Refusal, Tool,
    ToolAudit, ToolForm, ToolResult,
};
use jig_presets::FullPreset;
use serde_json::{Value, json};

use crate::Fixture;

/// A descriptor tool that writes: it copies a file to a path slot.
const COPY_TOOL: &str = r#"{
  "name": "copy",
  "description": "Copy a file",
  "command": "cp {from} {to}",
  "arguments": {
    "from": {"type": "path", "description": "Source", "required": true},
    "to": {"type": "path", "description": "Destination", "required": true}
  }
}"#;

fn refusal(result: &ToolResult) -> &Refusal {
    result
        .refusal()
        .unwrap_or_else(|| panic!("expected a refusal, got {}", result.text()))
}

fn code_tool(name: &str, template: &str, deny: &DenyList) -> CommandTool {
    CommandTool::build(
        CommandSpec::new(name, "A test tool", template),
        deny,
        ToolForm::Command,
    )
    .unwrap()
}

#[test]
fn a_code_tool_built_with_a_looser_deny_list_is_refused_at_the_run_point() {
    let fixture = Fixture::new();
    let looser = DenyList::default().dangerous_allow(["env"]);
    let registry = FullPreset::new(fixture.root())
        .with_command_tools([code_tool("show_env", "env", &looser)])
        .build()
        .unwrap()
        .registry;
    let result = registry.dispatch("show_env", &json!({}));
    let refusal = refusal(&result);
    assert_eq!(refusal.code, ErrorCode::RunRefused);
    assert!(refusal.message.contains("env"), "{}", refusal.message);
    assert!(registry.dry_run("show_env", &json!({})).is_err());
    assert!(!registry.is_concurrency_safe("show_env", &json!({})));
}

/// An integrator's own `Tool`, which could return anything from `check`.
struct Integrators {
    invocation: Invocation,
    schema: Value,
}

impl Tool for Integrators {
    fn name(&self) -> &str {
        "integrators"
    }
    fn description(&self) -> &str {
        "an integrator's tool"
    }
    fn form(&self) -> ToolForm {
        // Claiming the exec form does not skip the tables.
        ToolForm::Exec
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn check(&self, _: &Value, _: &CheckContext<'_>) -> Result<Invocation, Refusal> {
        Ok(self.invocation.clone())
    }
    fn audit(&self) -> ToolAudit {
        ToolAudit::new(ToolForm::Exec, vec![], "", vec![], "")
    }
}

fn integrator_registry(root: &Path, invocation: Invocation) -> jig_presets::Registry {
    FullPreset::new(root)
        .with_tool(Arc::new(Integrators {
            invocation,
            schema: json!({"type": "object"}),
        }))
        .build()
        .unwrap()
        .registry
}

#[test]
fn an_integrators_tool_cannot_set_ld_preload_or_run_a_denied_program() {
    let fixture = Fixture::new();
    for (invocation, layer) in [
        (
            Invocation::new(vec!["ls".into()]).with_env("LD_PRELOAD", "/tmp/x.so"),
            "run.env",
        ),
        (
            Invocation::new(vec!["ls".into()]).with_env("PAGER", "sh"),
            "run.env",
        ),
        (
            Invocation::new(vec!["cat".into(), "notes.txt".into()])
                .with_env("GIT_CONFIG_COUNT", "0"),
            "run.env",
        ),
        (Invocation::new(vec!["/bin/bash".into()]), "run.program"),
        (
            Invocation::new(vec!["python3.11".into(), "-V".into()]),
            "run.program",
        ),
        (
            Invocation::new(vec!["sed".into(), "-n".into(), "1w /tmp/x".into()]),
            "run.flags",
        ),
        // A locale where a script's delimiter byte can be half a character.
        (
            Invocation::new(vec![
                "sed".into(),
                "-n".into(),
                "1p".into(),
                "notes.txt".into(),
            ])
            .with_env("LC_ALL", "ja_JP.SJIS"),
            "run.env",
        ),
    ] {
        let registry = integrator_registry(fixture.root(), invocation.clone());
        let result = registry.dispatch("integrators", &json!({}));
        let refusal = refusal(&result);
        assert_eq!(refusal.code, ErrorCode::RunRefused, "{invocation:?}");
        assert_eq!(
            refusal.layer.as_str(),
            layer,
            "{invocation:?}: {}",
            refusal.message
        );
    }
    // A neutral variable is fine.
    let registry = integrator_registry(
        fixture.root(),
        Invocation::new(vec!["ls".into()])
            .with_env("LC_ALL", "C")
            .with_env("LANG", "en_US.UTF-8"),
    );
    let result = registry.dispatch("integrators", &json!({}));
    assert_eq!(
        result.outcome().unwrap().exit_code(),
        Some(0),
        "{}",
        result.text()
    );
}

#[test]
fn denied_families_targets_and_launchers_for_every_form() {
    let fixture = Fixture::new();
    let deny = DenyList::default();
    // Code form and descriptor form: refused when built or loaded.
    let tools = tempfile::tempdir().unwrap();
    for template in [
        "rbash -c x",
        "python3.11 -V",
        "dc -e 1",
        "lua5.4 -v",
        "rustup run stable cargo",
        "npm exec x",
    ] {
        let built = CommandTool::build(
            CommandSpec::new("t", "A test tool", template),
            &deny,
            ToolForm::Command,
        );
        assert!(built.is_err(), "{template} was built");
        let file = tools.path().join("t.tool.json");
        std::fs::write(
            &file,
            format!(r#"{{"name": "t", "description": "d", "command": "{template}"}}"#),
        )
        .unwrap();
        let loaded = jig_descriptor::load_file(&file, &deny);
        assert!(loaded.is_err(), "{template} was loaded");
    }
    // A link named like a harmless program to an interpreter: refused by
    // its target, at the run point, for the exec form too.
    let bin = tempfile::tempdir().unwrap();
    let python = std::fs::canonicalize("/usr/bin/python3").unwrap();
    std::os::unix::fs::symlink(&python, bin.path().join("pyrun")).unwrap();
    let registry = FullPreset::new(fixture.root())
        .with_search_path([bin.path(), Path::new("/usr/bin"), Path::new("/bin")])
        .with_command_tools([code_tool("pyrun", "pyrun -V", &deny)])
        .with_exec(
            ExecConfig::default().allow(
                AllowList::new(Vec::<String>::new())
                    .unwrap()
                    .dangerous_allow_untabled(["pyrun", "rustup"])
                    .unwrap(),
            ),
        )
        .build()
        .unwrap()
        .registry;
    for (tool, arguments) in [
        ("pyrun", json!({})),
        ("exec", json!({"command": "pyrun -V"})),
        ("exec", json!({"command": "rustup run stable sh"})),
    ] {
        let result = registry.dispatch(tool, &arguments);
        let refusal = refusal(&result);
        assert!(
            matches!(refusal.code, ErrorCode::RunRefused | ErrorCode::ExecRefused),
            "{tool} {arguments}: {}",
            refusal.message
        );
    }
}

/// Waits (up to five seconds) until no process holds `path` open: a file
/// this process just wrote can still be open in a process another test
/// thread forked meanwhile, until that process closes its descriptors or
/// calls `execve`, and running the file before then fails (`Text file
/// busy`).
fn settle(path: &Path) {
    let start = std::time::Instant::now();
    let held = || {
        std::fs::read_dir("/proc").is_ok_and(|processes| {
            processes.flatten().any(|process| {
                std::fs::read_dir(process.path().join("fd")).is_ok_and(|fds| {
                    fds.flatten()
                        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|to| to == path))
                })
            })
        })
    };
    while held() && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn workspace_programs_and_their_interpreters() {
    let fixture = Fixture::new();
    let script = fixture.root().join("build.sh");
    std::fs::write(&script, "#!/bin/sh\necho built\n").unwrap();
    let binary = fixture.root().join("tool");
    std::fs::copy("/bin/echo", &binary).unwrap();
    use std::os::unix::fs::PermissionsExt;
    for path in [&script, &binary] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        settle(path);
    }
    let deny = DenyList::default();
    let tools = || {
        [
            code_tool("build", "./build.sh", &deny),
            code_tool("tool", "./tool hi", &deny),
        ]
    };
    let registry = FullPreset::new(fixture.root())
        .with_command_tools(tools())
        .build()
        .unwrap()
        .registry;
    let result = registry.dispatch("build", &json!({}));
    assert!(
        refusal(&result).message.contains("interpreter"),
        "{}",
        result.text()
    );
    let result = registry.dispatch("tool", &json!({}));
    assert!(
        refusal(&result).message.contains("inside the workspace"),
        "{}",
        result.text()
    );
    // Deliberately allowed: the binary runs; the script's `sh` stays denied.
    let registry = FullPreset::new(fixture.root())
        .with_command_tools(tools())
        .dangerous_allow_workspace_programs()
        .dangerous_no_containment()
        .build()
        .unwrap()
        .registry;
    let result = registry.dispatch("tool", &json!({}));
    assert_eq!(result.text(), "exit: 0\noutput: hi\n");
    assert!(registry.dispatch("build", &json!({})).refusal().is_some());
}

#[test]
fn a_readme_style_sed_descriptor_without_a_pattern_is_judged_by_seds_grammar() {
    let fixture = Fixture::new();
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(
        tools.path().join("print_lines.tool.json"),
        r#"{
  "name": "print_lines",
  "description": "Print lines of a file",
  "command": "sed -n {range}p {path}",
  "arguments": {
    "range": {"type": "string", "description": "Line range", "required": true},
    "path": {"type": "path", "description": "File", "required": true}
  }
}"#,
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("written");
    let registry = FullPreset::new(fixture.root())
        .with_descriptor_dir(tools.path())
        .dangerous_no_containment()
        .build()
        .unwrap()
        .registry;
    let ok = registry.dispatch("print_lines", &json!({"range": "2", "path": "notes.txt"}));
    assert_eq!(ok.text(), "exit: 0\noutput: TODO: write tests\n");
    let range = format!("1w{}", target.display());
    let result = registry.dispatch("print_lines", &json!({"range": range, "path": "notes.txt"}));
    assert_eq!(
        refusal(&result).code,
        ErrorCode::RunRefused,
        "{}",
        result.text()
    );
    assert!(!target.exists());
}

#[test]
fn a_descriptor_git_tool_never_runs_the_repositorys_programs() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let git = |args: &[&str]| {
        let kernel = jig_kernel::Kernel::builder(root)
            .dangerous_no_containment()
            .build()
            .unwrap();
        let mut argv = vec![
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
        ];
        argv.extend_from_slice(args);
        kernel
            .run_with(
                &argv,
                &jig_kernel::RunOptions::new(kernel.limits())
                    .with_access(jig_kernel::Access::WriteWorkspace),
            )
            .unwrap()
    };
    git(&["init", "-q"]);
    git(&["add", "notes.txt"]);
    git(&["commit", "-qm", "init"]);
    std::fs::write(root.join("notes.txt"), "changed\n").unwrap();
    std::fs::write(root.join(".gitattributes"), "*.txt diff=y filter=x\n").unwrap();
    let config = root.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(
        "[core]\n\tfsmonitor = touch fsmonitor-ran; false\n\
         [diff \"y\"]\n\ttextconv = touch textconv-ran; cat\n\
         [filter \"x\"]\n\tclean = touch clean-ran; cat\n",
    );
    std::fs::write(&config, text).unwrap();
    let tools = tempfile::tempdir().unwrap();
    for (name, command) in [
        ("git_status", "git status --short"),
        ("git_diff", "git diff"),
    ] {
        std::fs::write(
            tools.path().join(format!("{name}.tool.json")),
            format!(
                r#"{{"name": "{name}", "description": "git", "command": "{command}", "arguments": {{}}, "read_only": true}}"#
            ),
        )
        .unwrap();
    }
    // Without containment, so that only the run point's hardening stands
    // between the repository's configuration and a program.
    let registry = FullPreset::new(root)
        .with_descriptor_dir(tools.path())
        .dangerous_no_containment()
        .build()
        .unwrap()
        .registry;
    for tool in ["git_status", "git_diff"] {
        let result = registry.dispatch(tool, &json!({}));
        assert!(result.outcome().is_some(), "{tool}: {}", result.text());
    }
    for marker in ["fsmonitor-ran", "textconv-ran", "clean-ran"] {
        assert!(!root.join(marker).exists(), "{marker}");
    }
    // Control: plain git runs them, so the repository really is hostile.
    git(&["status"]);
    git(&["diff"]);
    assert!(
        ["fsmonitor-ran", "textconv-ran", "clean-ran"]
            .iter()
            .any(|m| root.join(m).exists())
    );
}

#[test]
fn protected_paths_are_never_written_and_secrets_never_read() {
    let fixture = Fixture::new();
    let root = fixture.root();
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::write(root.join(".env"), "API_KEY=secret\n").unwrap();
    std::fs::write(root.join(".env.example"), "API_KEY=\n").unwrap();
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(tools.path().join("copy.tool.json"), COPY_TOOL).unwrap();
    let build = |secrets: bool| {
        let preset = FullPreset::new(root)
            .with_descriptor_dir(tools.path())
            .with_exec(ExecConfig::default().allow(AllowList::new(["cp", "cat"]).unwrap()));
        let preset = if secrets {
            preset.dangerous_allow_secret_reads()
        } else {
            preset
        };
        preset.build().unwrap().registry
    };
    let registry = build(false);
    for (tool, arguments) in [
        (
            "copy",
            json!({"from": "notes.txt", "to": ".git/hooks/pre-commit"}),
        ),
        (
            "copy",
            json!({"from": "notes.txt", "to": ".jig/tools/evil.tool.json"}),
        ),
        (
            "exec",
            json!({"command": "cp notes.txt .git/hooks/pre-commit"}),
        ),
        ("exec", json!({"command": "cp notes.txt .git/config"})),
    ] {
        let result = registry.dispatch(tool, &arguments);
        let refusal = refusal(&result);
        assert_eq!(
            refusal.layer.as_str(),
            "run.path",
            "{arguments}: {}",
            refusal.message
        );
        assert!(
            refusal.message.contains("controls what runs"),
            "{}",
            refusal.message
        );
    }
    assert!(!root.join(".git/hooks/pre-commit").exists());
    assert!(!root.join(".jig/tools/evil.tool.json").exists());
    // Secrets: refused with guidance, for a slot and an operand alike.
    for (tool, arguments) in [
        ("grep", json!({"pattern": "KEY", "path": ".env"})),
        ("exec", json!({"command": "cat .env"})),
        ("copy", json!({"from": ".env", "to": "leak.txt"})),
    ] {
        let result = registry.dispatch(tool, &arguments);
        let refusal = refusal(&result);
        assert!(
            refusal.message.contains("holds secrets"),
            "{}",
            refusal.message
        );
    }
    // A recursive search cannot name the file; the kernel hides it.
    let result = registry.dispatch("grep", &json!({"pattern": "API_KEY", "path": "."}));
    assert!(!result.text().contains("secret"), "{}", result.text());
    assert!(result.text().contains(".env.example"), "{}", result.text());
    // The documented example stays readable, other files writable.
    let result = registry.dispatch("exec", &json!({"command": "cat .env.example"}));
    assert_eq!(result.text(), "exit: 0\noutput: API_KEY=\n");
    let result = registry.dispatch("copy", &json!({"from": "notes.txt", "to": "copy.txt"}));
    assert_eq!(
        result.outcome().unwrap().exit_code(),
        Some(0),
        "{}",
        result.text()
    );
    // Configured: secrets are readable.
    let registry = build(true);
    let result = registry.dispatch("exec", &json!({"command": "cat .env"}));
    assert_eq!(result.text(), "exit: 0\noutput: API_KEY=secret\n");
}

#[test]
fn a_tools_folder_inside_the_workspace_is_never_written() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let tools = root.join("agent-tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(tools.join("copy.tool.json"), COPY_TOOL).unwrap();
    let registry = FullPreset::new(root)
        .with_descriptor_dir(&tools)
        .with_exec(ExecConfig::default().allow(AllowList::new(["cp", "tee"]).unwrap()))
        .build()
        .unwrap()
        .registry;
    for (tool, arguments) in [
        (
            "copy",
            json!({"from": "notes.txt", "to": "agent-tools/evil.tool.json"}),
        ),
        (
            "copy",
            json!({"from": "notes.txt", "to": "agent-tools/copy.tool.json"}),
        ),
        (
            "exec",
            json!({"command": "cp notes.txt agent-tools/evil.tool.json"}),
        ),
        (
            "exec",
            json!({"command": "tee agent-tools/evil.tool.json .git/hooks/pre-commit"}),
        ),
    ] {
        let result = registry.dispatch(tool, &arguments);
        assert!(result.refusal().is_some(), "{arguments}: {}", result.text());
    }
    assert!(!tools.join("evil.tool.json").exists());
    assert!(
        std::fs::read_to_string(tools.join("copy.tool.json"))
            .unwrap()
            .contains("Copy a file")
    );
}

#[test]
fn sed_runs_sandboxed_for_every_form() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let deny = DenyList::default();
    let registry = FullPreset::new(root)
        .with_command_tools([code_tool("first_line", "sed -n 1p notes.txt", &deny)])
        .with_exec(ExecConfig::default().allow(AllowList::new(["sed"]).unwrap()))
        .build()
        .unwrap()
        .registry;
    for (tool, arguments) in [
        ("first_line", json!({})),
        ("exec", json!({"command": "sed -n 1p notes.txt"})),
    ] {
        // The dry run shows the added option, right after the program...
        let invocation = registry.dry_run(tool, &arguments).unwrap();
        assert_eq!(invocation.argv[..2], ["sed", "--sandbox"], "{tool}");
        assert_eq!(invocation.argv[2..], ["-n", "1p", "notes.txt"], "{tool}");
        // ...and sed honours it: the run reads as before.
        let result = registry.dispatch(tool, &arguments);
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{}", result.text()));
        assert_eq!(outcome.output.text(), "first line\n", "{tool}");
    }
    // What the option buys: GNU sed itself refuses `w`, `r` and `e`, so a
    // script the table misread still cannot write, read or run.
    let kernel = jig_kernel::Kernel::builder(root).build().unwrap();
    for script in ["1w written.txt", "1r /etc/hostname", "1e id"] {
        let outcome = kernel
            .run(&["sed", "--sandbox", "-n", script, "notes.txt"])
            .unwrap();
        assert_ne!(outcome.exit_code(), Some(0), "{script}");
        assert!(
            outcome.output.text().contains("sandbox"),
            "{script}: {}",
            outcome.output.text()
        );
    }
    assert!(!root.join("written.txt").exists());
}

#[test]
fn a_hooks_folder_named_by_the_repositorys_configuration_is_protected() {
    let fixture = Fixture::new();
    let root = fixture.root();
    repository_with_hooks_folder(root);
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(tools.path().join("copy.tool.json"), COPY_TOOL).unwrap();
    let registry = FullPreset::new(root)
        .with_descriptor_dir(tools.path())
        .with_exec(ExecConfig::default().allow(AllowList::new(["cp"]).unwrap()))
        .build()
        .unwrap()
        .registry;
    for (tool, arguments) in [
        (
            "copy",
            json!({"from": "notes.txt", "to": ".githooks/pre-commit"}),
        ),
        (
            "exec",
            json!({"command": "cp notes.txt .githooks/post-checkout"}),
        ),
    ] {
        let result = registry.dispatch(tool, &arguments);
        let refusal = refusal(&result);
        assert_eq!(refusal.layer.as_str(), "run.path", "{}", refusal.message);
    }
    assert!(
        std::fs::read_dir(root.join(".githooks"))
            .unwrap()
            .next()
            .is_none()
    );
    // A copy elsewhere still works: the check is about the hooks folder.
    let result = registry.dispatch("copy", &json!({"from": "notes.txt", "to": "copy.txt"}));
    assert!(result.outcome().is_some(), "{}", result.text());
}

/// A descriptor tool that copies a folder's contents into another: what
/// it writes is named by no argument.
const COPY_TREE_TOOL: &str = r#"{
  "name": "copy_tree",
  "description": "Copy a folder's contents into another folder",
  "command": "cp -r {from} {to}",
  "arguments": {
    "from": {"type": "path", "description": "Source folder", "required": true},
    "to": {"type": "path", "description": "Destination folder", "required": true}
  }
}"#;

/// The default preset at `root` with the `copy_tree` descriptor tool, and
/// the tool's folder (kept while the registry is used).
fn with_copy_tree(root: &Path) -> (jig_presets::Registry, tempfile::TempDir) {
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(tools.path().join("copy_tree.tool.json"), COPY_TREE_TOOL).unwrap();
    let registry = FullPreset::new(root)
        .with_descriptor_dir(tools.path())
        .build()
        .unwrap()
        .registry;
    (registry, tools)
}

/// Sets `root` up as a repository whose hooks folder is `.githooks`,
/// named through an include, so only git's own reading finds it.
fn repository_with_hooks_folder(root: &Path) {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test sets the repository up with git itself"
    )]
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", root)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(root.join("extra.cfg"), "[core]\n\thooksPath = .githooks\n").unwrap();
    git(&["config", "include.path", "../extra.cfg"]);
    std::fs::create_dir(root.join(".githooks")).unwrap();
}

#[test]
fn a_hooks_folder_is_read_only_to_a_program_that_writes_it_unnamed() {
    let fixture = Fixture::new();
    let root = fixture.root();
    repository_with_hooks_folder(root);
    // A folder to copy whose contents land in the hooks folder and beside it.
    std::fs::create_dir_all(root.join("pkg/.githooks")).unwrap();
    std::fs::create_dir_all(root.join("pkg/other")).unwrap();
    std::fs::write(root.join("pkg/.githooks/pre-commit"), "#!/bin/sh\n").unwrap();
    std::fs::write(root.join("pkg/other/file"), "x\n").unwrap();
    let (registry, _tools) = with_copy_tree(root);
    // A mount namespace keeps it read-only (this fails loudly where there
    // is none, as the contain suite does).
    assert!(
        registry.kernel().confinement().protected_paths,
        "{}",
        registry.kernel().confinement()
    );
    // A read-only call first: it needs no hooks folder.
    let read = registry.dispatch("grep", &json!({"pattern": "TODO"}));
    assert!(read.outcome().is_some(), "{}", read.text());
    let result = registry.dispatch("copy_tree", &json!({"from": "pkg/.", "to": "."}));
    assert!(result.outcome().is_some(), "{}", result.text());
    assert!(
        root.join("other/file").exists(),
        "the copy ran: {}",
        result.text()
    );
    assert!(
        !root.join(".githooks/pre-commit").exists(),
        "a hook was written: {}",
        result.text()
    );
    assert!(
        registry
            .protected_paths()
            .is_ok_and(|paths| paths.iter().any(|p| p.ends_with(".githooks")))
    );
}

/// What the call of `result` made at the protected path `path` (under
/// `root`), where nothing was, is set aside, and the result says so.
fn assert_set_aside(root: &Path, result: &ToolResult, path: &str) {
    assert!(!root.join(path).exists(), "{}", result.text());
    let said = format!("{path} was moved to {path}.jig-set-aside-1");
    assert!(result.text().contains(&said), "{}", result.text());
}

/// A repository whose index has three gitlinks: `sub`, in `.gitmodules`
/// and checked out (its `.git` a file naming its git folder, whose own
/// index has a gitlink `inner`, checked out too); `sub2`, in
/// `.gitmodules`, not checked out (no `.git` yet); `emb`, an embedded
/// repository named by no `.gitmodules` (its `.git` a folder).
fn repository_with_submodules(root: &Path) {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test sets the repository up with git itself"
    )]
    let git = |at: &Path, args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(at)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", root)
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    git(root, &["init", "-q"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", "first"]);
    let head = git(root, &["rev-parse", "HEAD"]);
    let gitlink = |at: &Path, path: &str| {
        let info = format!("160000,{},{path}", head.trim());
        git(at, &["update-index", "--add", "--cacheinfo", &info]);
    };
    std::fs::write(
        root.join(".gitmodules"),
        "[submodule \"sub\"]\n\tpath = sub\n\turl = ./a\n\
         [submodule \"sub2\"]\n\tpath = sub2\n\turl = ./b\n",
    )
    .unwrap();
    for path in ["sub", "sub2", "emb"] {
        std::fs::create_dir(root.join(path)).unwrap();
        gitlink(root, path);
    }
    git(root, &["add", ".gitmodules"]);
    git(root, &["commit", "-q", "-m", "submodules"]);
    // `sub`: a repository whose git folder is in the top's `.git/modules`.
    git(&root.join("sub"), &["init", "-q"]);
    std::fs::create_dir_all(root.join(".git/modules")).unwrap();
    std::fs::rename(root.join("sub/.git"), root.join(".git/modules/sub")).unwrap();
    std::fs::write(root.join("sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
    git(
        &root.join("sub"),
        &["config", "core.worktree", "../../../sub"],
    );
    std::fs::create_dir(root.join("sub/inner")).unwrap();
    gitlink(&root.join("sub"), "inner");
    std::fs::write(root.join("sub/inner/.git"), "gitdir: ../../somewhere\n").unwrap();
    git(&root.join("emb"), &["init", "-q"]);
}

#[test]
fn a_submodules_git_file_is_read_only_to_a_program_that_writes_it_unnamed() {
    let fixture = Fixture::new();
    let root = fixture.root();
    repository_with_submodules(root);
    // A folder to copy whose contents point every submodule elsewhere.
    for (path, text) in [
        ("pkg/sub", "gitdir: ../notes\n"),
        ("pkg/sub2", "gitdir: ../notes\n"),
        ("pkg/sub/inner", "gitdir: ../../notes\n"),
    ] {
        std::fs::create_dir_all(root.join(path)).unwrap();
        std::fs::write(root.join(path).join(".git"), text).unwrap();
    }
    std::fs::create_dir_all(root.join("pkg/emb/.git")).unwrap();
    std::fs::write(root.join("pkg/emb/.git/config"), "[core]\n").unwrap();
    std::fs::write(root.join("pkg/other.txt"), "x\n").unwrap();
    let emb_config = std::fs::read_to_string(root.join("emb/.git/config")).unwrap();
    let (registry, _tools) = with_copy_tree(root);
    let result = registry.dispatch("copy_tree", &json!({"from": "pkg/.", "to": "."}));
    assert!(
        root.join("other.txt").exists(),
        "the copy ran: {}",
        result.text()
    );
    for (path, text) in [
        ("sub/.git", "gitdir: ../.git/modules/sub\n"),
        ("sub/inner/.git", "gitdir: ../../somewhere\n"),
        ("emb/.git/config", emb_config.as_str()),
    ] {
        assert_eq!(
            std::fs::read_to_string(root.join(path)).unwrap(),
            text,
            "{path}: {}",
            result.text()
        );
    }
    // `sub2/.git` did not exist: what the call made there is set aside.
    assert_set_aside(root, &result, "sub2/.git");
    // Named, they are refused to a call that may write.
    for named in ["sub/.git", "sub/inner/.git", "emb/.git/config"] {
        let result = registry.dispatch("copy_tree", &json!({"from": "pkg/sub2", "to": named}));
        assert_eq!(
            refusal(&result).layer.as_str(),
            "run.path",
            "{named}: {}",
            result.text()
        );
    }
}

/// A workspace without `.git` is made a bare repository by a call that may
/// write (`HEAD`, `objects/`, `refs/` and a `config` naming a program at
/// its root): git, run there afterwards (a shell prompt does on entering
/// the folder), would run the program. `HEAD` is protected: what the call
/// made there is set aside, and git finds no repository.
#[test]
fn a_bare_repository_made_at_the_root_is_not_honoured() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("fsmonitor-ran");
    std::fs::create_dir_all(root.join("pkg/objects")).unwrap();
    std::fs::create_dir_all(root.join("pkg/refs/heads")).unwrap();
    std::fs::write(root.join("pkg/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        root.join("pkg/config"),
        format!(
            "[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch {}; false\"\n",
            marker.display()
        ),
    )
    .unwrap();
    let (registry, _tools) = with_copy_tree(root);
    let result = registry.dispatch("copy_tree", &json!({"from": "pkg/.", "to": "."}));
    assert!(
        root.join("refs").exists(),
        "the copy ran: {}",
        result.text()
    );
    assert_set_aside(root, &result, "HEAD");
    #[expect(
        clippy::disallowed_methods,
        reason = "the host's own git, as a user would run it"
    )]
    let status = std::process::Command::new("git")
        .arg("status")
        .current_dir(root)
        .env("GIT_CEILING_DIRECTORIES", root.parent().unwrap())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", outside.path())
        .output()
        .unwrap();
    assert!(!status.status.success(), "git found a repository");
    assert!(!marker.exists(), "git ran the call's program");
}

/// More checked-out submodules than jig looks into: the paths git follows
/// are unknown, so every call that may write is refused, saying why; a
/// call that only reads still runs.
#[test]
fn more_submodules_than_jig_looks_into_refuse_every_call_that_may_write() {
    let fixture = Fixture::new();
    let root = fixture.root();
    plain_git(root, &["init", "-q"]);
    for n in 0..65 {
        let path = format!("m{n}");
        std::fs::create_dir(root.join(&path)).unwrap();
        plain_git(&root.join(&path), &["init", "-q"]);
        let info = format!("160000,{},{path}", "1".repeat(40));
        plain_git(root, &["update-index", "--add", "--cacheinfo", &info]);
    }
    std::fs::create_dir(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/other.txt"), "x\n").unwrap();
    let (registry, _tools) = with_copy_tree(root);
    let result = registry.dispatch("copy_tree", &json!({"from": "pkg/.", "to": "."}));
    assert_eq!(
        refusal(&result).layer.as_str(),
        "run.path",
        "{}",
        result.text()
    );
    assert!(
        result
            .text()
            .contains("more than 64 checked-out submodules"),
        "{}",
        result.text()
    );
    assert!(!root.join("other.txt").exists(), "the copy ran");
    let read = registry.dispatch("grep", &json!({"pattern": "x"}));
    assert!(read.outcome().is_some(), "{}", read.text());
    assert!(registry.protected_paths().is_err());
}

#[test]
fn the_hooks_folder_is_asked_of_git_only_for_a_call_that_may_write() {
    let fixture = Fixture::new();
    let root = fixture.root();
    repository_with_hooks_folder(root);
    // A git that logs its arguments, then runs the real one.
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("git.log");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nexec /usr/bin/git \"$@\"\n",
        log.display()
    );
    let fake = bin.path().join("git");
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    settle(&fake);
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(tools.path().join("copy.tool.json"), COPY_TOOL).unwrap();
    // Without containment, so that the logging git may write its log.
    let registry = FullPreset::new(root)
        .dangerous_no_containment()
        .with_search_path([bin.path(), Path::new("/usr/bin"), Path::new("/bin")])
        .with_descriptor_dir(tools.path())
        .build()
        .unwrap()
        .registry;
    let asked = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("core.hooksPath")
            .count()
    };
    let read = registry.dispatch("grep", &json!({"pattern": "TODO"}));
    assert!(read.outcome().is_some(), "{}", read.text());
    assert_eq!(asked(), 0, "a read-only call asked git");
    for _ in 0..2 {
        let result = registry.dispatch(
            "copy",
            &json!({"from": "notes.txt", "to": ".githooks/pre-commit"}),
        );
        assert_eq!(refusal(&result).layer.as_str(), "run.path");
    }
    assert_eq!(
        asked(),
        1,
        "git is asked once, by the first call that may write"
    );
    assert!(!root.join(".githooks/pre-commit").exists());
}

/// A repository in `root` with one commit, set up by plain git (no
/// hardening), and a preset without containment around it: only the run
/// point's and the registry's git handling stand between the repository
/// and a program.
fn git_repo(root: &Path) -> jig_presets::Registry {
    let kernel = jig_kernel::Kernel::builder(root)
        .dangerous_no_containment()
        .build()
        .unwrap();
    let options = jig_kernel::RunOptions::new(kernel.limits())
        .with_access(jig_kernel::Access::WriteWorkspace);
    for args in [
        &["init", "-q"][..],
        &["add", "notes.txt", "src/main.rs"],
        &["commit", "-qm", "init"],
    ] {
        let mut argv = vec![
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
        ];
        argv.extend_from_slice(args);
        let outcome = kernel.run_with(&argv, &options).unwrap();
        assert_eq!(outcome.exit_code(), Some(0), "{}", outcome.render());
    }
    FullPreset::new(root)
        .with_exec(ExecConfig::default())
        .dangerous_no_containment()
        .build()
        .unwrap()
        .registry
}

fn exec(registry: &jig_presets::Registry, command: &str) -> ToolResult {
    registry.dispatch("exec", &json!({ "command": command }))
}

#[test]
fn git_verbs_are_resolved_as_git_resolves_them() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let registry = git_repo(root);
    std::fs::write(root.join("notes.txt"), "changed\n").unwrap();
    // `git stash -m list` is `git stash push -m list` to git: it would
    // revert the change. Refused, whatever follows the option.
    for command in [
        "git stash -m list",
        "git stash -q list",
        "git stash -- list",
        "git stash",
        "git describe --always --dirty",
        "git describe --always --broken",
    ] {
        let result = exec(&registry, command);
        refusal(&result);
    }
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "changed\n"
    );
    let result = exec(&registry, "git stash list");
    assert!(result.outcome().is_some(), "{}", result.text());
}

#[test]
fn git_dash_c_is_the_base_of_every_path() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let registry = git_repo(root);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "canary-outside\n").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), root.join("sub/link")).unwrap();
    std::fs::write(root.join("sub/other"), "x\n").unwrap();
    for command in [
        "git -C sub diff --no-index link other",
        "git -C sub diff --no-index other link",
        "git -C src -C ../sub diff --no-index link other",
        "git -C sub log -O link",
    ] {
        let result = exec(&registry, command);
        let refusal = refusal(&result);
        assert!(
            !refusal.message.contains("canary-outside"),
            "{command}: {}",
            refusal.message
        );
    }
    // Inside the -C folder, paths work as git reads them.
    let result = exec(&registry, "git -C sub diff --no-index other ../notes.txt");
    let outcome = result
        .outcome()
        .unwrap_or_else(|| panic!("{}", result.text()));
    assert!(outcome.render().contains("TODO"), "{}", outcome.render());
}

#[test]
fn git_asks_git_for_the_drivers_right_before_the_run() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let registry = git_repo(root);
    // A driver named through a `.git` file whose path holds a NUL and an
    // attribute of `.git/info/attributes`: only git's own reading finds it.
    std::fs::rename(root.join(".git"), root.join("realgit")).unwrap();
    std::fs::write(root.join(".git"), b"gitdir: realgit\0junk\n").unwrap();
    let config = root.join("realgit/config");
    let mut text = std::fs::read(&config).unwrap();
    text.extend_from_slice(
        b"[diff \"Any Name\"]\n\ttextconv = touch textconv-ran; cat\n\
          [filter \"f\"]\n\tclean = touch clean-ran; cat\n",
    );
    std::fs::write(&config, text).unwrap();
    std::fs::create_dir_all(root.join("realgit/info")).unwrap();
    std::fs::write(
        root.join("realgit/info/attributes"),
        "* diff=Any\\ Name filter=f\n",
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), "changed\n").unwrap();
    for command in ["git status --short", "git diff", "git log -p -1"] {
        let result = exec(&registry, command);
        assert!(result.outcome().is_some(), "{command}: {}", result.text());
    }
    // The dry run shows the fixed part only.
    let dry = registry
        .dry_run("exec", &json!({"command": "git diff"}))
        .unwrap();
    assert!(!dry.env.iter().any(|(_, v)| v.contains("Any Name")));
    for marker in ["textconv-ran", "clean-ran"] {
        assert!(!root.join(marker).exists(), "{marker}");
    }
}

#[test]
fn a_fifo_in_the_configuration_never_blocks_jig() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let registry = git_repo(root);
    let kernel = registry.kernel();
    let made = kernel
        .run_with(
            &["mkfifo", "pipe"],
            &jig_kernel::RunOptions::new(kernel.limits())
                .with_access(jig_kernel::Access::WriteWorkspace),
        )
        .unwrap();
    assert_eq!(made.exit_code(), Some(0));
    let config = root.join(".git/config");
    let mut text = std::fs::read(&config).unwrap();
    text.extend_from_slice(
        b"[include]\n\tpath = ../pipe\n[diff \"y\"]\n\ttextconv = touch textconv-ran; cat\n",
    );
    std::fs::write(&config, text).unwrap();
    std::fs::write(root.join(".gitattributes"), "* diff=y\n").unwrap();
    std::fs::write(root.join("notes.txt"), "changed\n").unwrap();
    let start = std::time::Instant::now();
    let result = exec(&registry, "git diff");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    let refusal = refusal(&result);
    assert_eq!(refusal.layer.as_str(), "run.path", "{}", refusal.message);
    assert!(!root.join("textconv-ran").exists());
}

#[test]
fn a_text_slot_carries_a_phrase_as_one_argument() {
    let fixture = Fixture::new();
    let root = fixture.root();
    std::fs::write(
        root.join("quotes.txt"),
        "don't panic\nfn main() {}\n$HOME; rm -rf x\n",
    )
    .unwrap();
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(
        tools.path().join("phrase.tool.json"),
        r#"{"name": "find_phrase", "description": "Lines holding a phrase",
            "command": "grep -rnF -e {phrase} -- {path}",
            "arguments": {"phrase": {"type": "text", "description": "The phrase", "required": true},
                          "path": {"type": "path", "default": "quotes.txt"}}}"#,
    )
    .unwrap();
    let registry = FullPreset::new(root)
        .with_descriptor_dir(tools.path())
        .build()
        .unwrap()
        .registry;
    let schema = registry.tool("find_phrase").unwrap().input_schema().clone();
    assert!(
        schema["properties"]["phrase"]["description"]
            .as_str()
            .unwrap()
            .contains("a phrase, passed as one argument"),
        "{schema}"
    );
    for (phrase, line) in [
        ("don't", "1:don't panic"),
        ("fn main", "2:fn main() {}"),
        ("$HOME; rm", "3:$HOME; rm -rf x"),
    ] {
        let result = registry.dispatch("find_phrase", &json!({ "phrase": phrase }));
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{}", result.text()));
        assert_eq!(outcome.output.text().trim(), line, "{phrase}");
    }
    for phrase in ["-e x", "a\nb", "a\u{202e}b", "tab\there"] {
        let result = registry.dispatch("find_phrase", &json!({ "phrase": phrase }));
        assert_eq!(refusal(&result).code, ErrorCode::SlotInvalid, "{phrase:?}");
    }
    assert!(root.join("quotes.txt").exists());
}

/// Runs plain git in `dir` (no hardening, no containment), with an
/// identity, and checks it succeeded.
fn plain_git(dir: &Path, args: &[&str]) {
    let kernel = jig_kernel::Kernel::builder(dir)
        .dangerous_no_containment()
        .build()
        .unwrap();
    let options = jig_kernel::RunOptions::new(kernel.limits())
        .with_access(jig_kernel::Access::WriteWorkspace);
    let mut argv = vec![
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "protocol.file.allow=always",
    ];
    argv.extend_from_slice(args);
    let outcome = kernel.run_with(&argv, &options).unwrap();
    assert_eq!(
        outcome.exit_code(),
        Some(0),
        "{argv:?}: {}",
        outcome.render()
    );
}

/// A repository whose submodule's own configuration defines a filter and
/// a text conversion that leave a marker: git would run them if it looked
/// into the submodule (`git status` runs `git status` there). The
/// repository turns the looking back on for that submodule, through
/// `.gitmodules` or through `.git/config`; the run point's
/// `--ignore-submodules=all` (after the subcommand) wins over both, so no
/// driver of the submodule runs. Plain git, the control, runs one.
#[test]
fn git_never_enters_a_submodule_whatever_the_repository_configures() {
    for (case, ignore_in) in [
        ("ignore=none in .gitmodules", ".gitmodules"),
        ("ignore=none in .git/config", ".git/config"),
    ] {
        let fixture = Fixture::new();
        let root = fixture.root();
        let registry = git_repo(root);
        let inner = tempfile::tempdir().unwrap();
        std::fs::write(inner.path().join("f.txt"), "hi\n").unwrap();
        plain_git(inner.path(), &["init", "-q"]);
        plain_git(inner.path(), &["add", "f.txt"]);
        plain_git(inner.path(), &["commit", "-qm", "inner"]);
        let url = inner.path().to_str().unwrap();
        plain_git(root, &["submodule", "add", "-q", url, "sub"]);
        plain_git(root, &["commit", "-qm", "submodule"]);
        let marker = |name: &str| root.join(name);
        let modules = root.join(".git/modules/sub");
        let mut config = std::fs::read_to_string(modules.join("config")).unwrap();
        config.push_str(&format!(
            "[filter \"x\"]\n\tclean = touch {}; cat\n[diff \"y\"]\n\ttextconv = touch {}; cat\n",
            marker("clean-ran").display(),
            marker("textconv-ran").display()
        ));
        std::fs::write(modules.join("config"), config).unwrap();
        std::fs::create_dir_all(modules.join("info")).unwrap();
        std::fs::write(modules.join("info/attributes"), "* filter=x diff=y\n").unwrap();
        let file = root.join(ignore_in);
        let mut text = std::fs::read_to_string(&file).unwrap();
        if ignore_in == ".gitmodules" {
            text.push_str("\tignore = none\n");
        } else {
            text.push_str(
                "[submodule \"sub\"]\n\tignore = none\n[diff]\n\tignoreSubmodules = none\n",
            );
        }
        std::fs::write(&file, text).unwrap();
        // Same size, new time: git must read the file, through the filter.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        std::fs::write(root.join("sub/f.txt"), "hj\n").unwrap();
        for command in [
            "git status",
            "git status --short",
            "git -C src status --porcelain",
            "git diff",
            "git diff HEAD",
            "git diff-files",
            "git diff-index HEAD",
        ] {
            let result = exec(&registry, command);
            let outcome = result
                .outcome()
                .unwrap_or_else(|| panic!("{case}: {command}: {}", result.text()));
            assert!(
                outcome.exit_code().is_some(),
                "{case}: {command}: {}",
                outcome.render()
            );
            for name in ["clean-ran", "textconv-ran"] {
                assert!(!marker(name).exists(), "{case}: {command} ran {name}");
            }
        }
        // The dry run shows what the run point adds.
        let dry = registry.dry_run("exec", &json!({"command": "git -C src status --short"}));
        let argv = dry.unwrap().argv;
        assert_eq!(
            argv,
            [
                "git",
                "-C",
                "src",
                "status",
                "--ignore-submodules=all",
                "--short"
            ],
            "{case}"
        );
        // Control: plain git enters the submodule and runs its filter.
        plain_git(root, &["status", "--short"]);
        assert!(
            marker("clean-ran").exists(),
            "{case}: the control ran no driver"
        );
    }
}

/// Gives the repository at `root` (made by [`git_repo`]) the
/// configuration `config`, sends every file to its diff driver `x`
/// (`.git/info/attributes`) and changes `notes.txt`.
fn with_diff_driver(root: &Path, config: &str) {
    let mut text = std::fs::read_to_string(root.join(".git/config")).unwrap();
    text.push_str(config);
    std::fs::write(root.join(".git/config"), text).unwrap();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    std::fs::write(root.join(".git/info/attributes"), "* diff=x\n").unwrap();
    std::fs::write(root.join("notes.txt"), "changed\n").unwrap();
}

/// Runs each `(command, shown)` through the exec tool of `registry`: it
/// exits 0, prints `shown`, and `marker` was not made.
fn diffs_and_runs_nothing(registry: &jig_presets::Registry, cases: &[(&str, &str)], marker: &Path) {
    for (command, shown) in cases {
        let result = exec(registry, command);
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{command}: {}", result.text()));
        let text = outcome.render();
        assert_eq!(outcome.exit_code(), Some(0), "{command}: {text}");
        assert!(text.contains(shown), "{command}: {text}");
        assert!(!marker.exists(), "{command} ran the repository's program");
    }
}

/// A repository that names an external diff (`diff.external`) and sends
/// every file to a diff driver with a command: the run point empties both
/// and adds `--no-ext-diff` after the subcommands that print patches, so
/// each prints git's own diff (with the commands emptied alone, git failed:
/// "external diff died") and none of the repository's commands runs.
/// Plain git, the control, runs one.
#[test]
fn a_repositorys_external_diff_never_runs_and_git_diffs_itself() {
    let fixture = Fixture::new();
    let root = fixture.root();
    let registry = git_repo(root);
    let marker = root.join("external-diff-ran");
    with_diff_driver(
        root,
        &format!(
            "[diff]\n\texternal = touch {0}\n[diff \"x\"]\n\tcommand = touch {0}\n",
            marker.display()
        ),
    );
    diffs_and_runs_nothing(
        &registry,
        &[
            ("git diff", "+changed"),
            ("git diff HEAD", "+changed"),
            ("git diff-files -p", "+changed"),
            ("git diff-index -p HEAD", "+changed"),
            ("git log -p", "diff --git a/notes.txt"),
            ("git show", "diff --git a/notes.txt"),
            ("git whatchanged -p -1", "diff --git a/notes.txt"),
            ("git diff-tree -p --root HEAD", "diff --git a/notes.txt"),
        ],
        &marker,
    );
    let dry = registry.dry_run("exec", &json!({"command": "git log -p"}));
    assert_eq!(
        dry.unwrap().argv,
        ["git", "log", "--no-ext-diff", "--no-textconv", "-p"]
    );
    // Control: plain git runs the repository's external diff.
    plain_git(root, &["diff"]);
    assert!(marker.exists(), "the control ran no external diff");
}

/// A repository whose attributes give every file a text conversion: jig
/// sets it to `cat`, which a contained git may not start (only git may),
/// so git failed on every diff ("cannot exec 'cat'"). The run point adds
/// `--no-textconv` where git prints patches and to `blame`: each prints
/// the stored content, contained, and the repository's program never runs.
#[test]
fn a_repositorys_text_conversion_never_runs_and_contained_git_diffs() {
    let fixture = Fixture::new();
    let root = fixture.root();
    git_repo(root);
    let marker = root.join("textconv-ran");
    with_diff_driver(
        root,
        &format!(
            "[diff \"x\"]\n\ttextconv = touch {}; cat\n",
            marker.display()
        ),
    );
    let registry = FullPreset::new(root)
        .with_exec(ExecConfig::default())
        .with_containment(jig_kernel::Containment::required())
        .build()
        .unwrap()
        .registry;
    diffs_and_runs_nothing(
        &registry,
        &[
            ("git diff", "+changed"),
            ("git log -p", "diff --git a/notes.txt"),
            ("git show", "diff --git a/notes.txt"),
            ("git diff-index -p HEAD", "+changed"),
            ("git blame notes.txt", "changed"),
        ],
        &marker,
    );
}

/// A table may pin `HOME` to the kernel's folder that does not exist (jq
/// does): the run point lets that one value through, runs jq, and still
/// refuses any other `HOME`.
#[test]
fn jq_runs_with_its_home_pinned_and_no_other_home_passes() {
    let fixture = Fixture::new();
    let root = fixture.root();
    std::fs::write(root.join("d.json"), r#"{"a": 41}"#).unwrap();
    let registry = FullPreset::new(root)
        .with_exec(ExecConfig::default().allow(AllowList::new(["jq"]).unwrap()))
        .build()
        .unwrap()
        .registry;
    for command in ["jq .a d.json", "jq -n env.HOME"] {
        let result = exec(&registry, command);
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{command}: {}", result.text()));
        assert_eq!(outcome.exit_code(), Some(0), "{}", result.text());
    }
    assert!(exec(&registry, "jq .a d.json").text().contains("41"));
    assert!(
        exec(&registry, "jq -n env.HOME")
            .text()
            .contains(jig_kernel::DEFAULT_HOME)
    );
    // Any other HOME, from any tool, is refused.
    let invocation = Invocation::new(vec!["jq".into(), ".a".into(), "d.json".into()])
        .with_env("HOME", root.display().to_string());
    let result = integrator_registry(root, invocation).dispatch("integrators", &json!({}));
    assert_eq!(
        refusal(&result).layer.as_str(),
        "run.env",
        "{}",
        result.text()
    );
}
