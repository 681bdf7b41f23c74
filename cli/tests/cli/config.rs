//! The configuration file and `jig config`: real files, real processes.

use std::path::Path;

use crate::snapshot;
use crate::support::{example_root, example_tools, jig, run_with};

/// A configuration that sets a key of every section.
fn full_config(tools: &Path) -> String {
    format!(
        r#"# jig's configuration
tools = "{}"
containment = "best-effort"
protected_paths = ["notes"]
budgets = {{ search_text = 4096 }}

[limits]
timeout = 5
max_output = 1000

[policy]
deny = ["find"]

[exec]
allow = ["ls", "wc"]
deny_rules = ["ls -R *"]
budget = 512

[mcp]
max_in_flight = 4
eof_grace_ms = 100
"#,
        tools.display()
    )
}

/// A folder outside the workspace holding `config.toml`.
fn config_dir(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), text).unwrap();
    dir
}

#[test]
fn jig_config_prints_each_value_and_where_it_comes_from() {
    let dir = config_dir(&full_config(&example_tools()));
    let file = dir.path().join("config.toml");
    let root = example_root();
    let run = run_with(
        jig()
            .args(["--config", file.to_str().unwrap()])
            .args(["--root", root.to_str().unwrap(), "config", "--timeout", "7"])
            .env("JIG_TOOL_DENYLIST", "count_lines"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let text = run
        .stdout
        .replace(&dir.path().display().to_string(), "[CONFIG_DIR]");
    for line in [
        "timeout = 7 ",
        "# command line (--timeout)",
        "max_output = 1000 ",
        "deny = [\"find\", \"count_lines\"]",
        "file + environment (JIG_TOOL_DENYLIST)",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
    // The machine's CPUs size the default; the file sets it here.
    snapshot!("effective", text);
}

#[test]
fn the_files_values_apply_and_the_command_line_wins() {
    let dir = config_dir(&full_config(&example_tools()));
    let file = dir.path().join("config.toml");
    let root = example_root();
    let base = [
        "--config",
        file.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
    ];
    // The tools folder comes from the file: search_text loads.
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "search_text", r#"{"pattern":"TODO"}"#]),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("TODO"), "{}", run.stdout);
    // The file's policy denies find.
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "find", r#"{"pattern":"*.rs"}"#]),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.contains("tool_policy_denied"), "{}", run.stdout);
    // The file grants the exec tool with its allow list and rules.
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "exec", r#"{"command":"ls -R src"}"#]),
    );
    assert_eq!(run.code, 2, "the file's deny rule: {run:?}");
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "exec", r#"{"command":"wc -l README.md"}"#]),
    );
    assert_eq!(run.code, 0, "{run:?}");
    // The command line wins: another tools folder, where the file's budget
    // for search_text names no tool.
    let empty = tempfile::tempdir().unwrap();
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "--tools", empty.path().to_str().unwrap()])
            .args(["search_text", r#"{"pattern":"TODO"}"#]),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .contains("budget names unknown tool `search_text`"),
        "{}",
        run.stderr
    );
}

/// `[[exec.rules]]`: rules with `match` / `not_match` examples. Rules
/// that keep their examples apply; one that disagrees with an example
/// stops jig at start, naming the file, the rule and the example.
#[test]
fn rules_with_examples_are_checked_at_start() {
    let root = example_root();
    let good = config_dir(
        r#"[exec]
allow = ["ls", "wc"]

[[exec.rules]]
pattern = "ls -R *"
decision = "deny"
match = ["ls -R src", "ls -R"]
not_match = ["ls -la", "wc -l README.md"]
"#,
    );
    let file = good.path().join("config.toml");
    let base = [
        "--config",
        file.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
    ];
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "exec", r#"{"command":"ls -R src"}"#]),
    );
    assert_eq!(run.code, 2, "the file's rule refuses: {run:?}");
    let run = run_with(
        jig()
            .args(base)
            .args(["call", "exec", r#"{"command":"wc -l README.md"}"#]),
    );
    assert_eq!(run.code, 0, "{run:?}");
    for (wrong, example) in [
        (r#"match = ["ls -la"]"#, "ls -la"),
        (r#"not_match = ["ls -R docs"]"#, "ls -R docs"),
    ] {
        let bad = config_dir(&format!(
            "[exec]\nallow = [\"ls\"]\n\n[[exec.rules]]\npattern = \"ls -R *\"\ndecision = \"ask\"\n{wrong}\n"
        ));
        let file = bad.path().join("config.toml");
        let run = run_with(
            jig()
                .args(["--config", file.to_str().unwrap()])
                .args(["--root", root.to_str().unwrap()])
                .args(["call", "exec", r#"{"command":"wc -l README.md"}"#]),
        );
        assert_ne!(run.code, 0, "{run:?}");
        for part in [file.to_str().unwrap(), "\"ls -R *\"", example] {
            assert!(run.stderr.contains(part), "{part}: {}", run.stderr);
        }
    }
    // A misspelt key of a rule is an error too.
    let typo = config_dir(
        "[exec]\nallow = [\"ls\"]\n[[exec.rules]]\npattern = \"ls\"\ndecision = \"deny\"\nmatches = [\"ls\"]\n",
    );
    let file = typo.path().join("config.toml");
    let run = run_with(jig().args(["--config", file.to_str().unwrap()]).args([
        "--root",
        root.to_str().unwrap(),
        "config",
    ]));
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("unknown field"), "{}", run.stderr);
}

#[test]
fn the_default_file_is_found_through_xdg_config_home() {
    let xdg = tempfile::tempdir().unwrap();
    std::fs::create_dir(xdg.path().join("jig")).unwrap();
    std::fs::write(
        xdg.path().join("jig/config.toml"),
        "[policy]\ndeny = [\"grep\"]\n",
    )
    .unwrap();
    let root = example_root();
    let run = run_with(jig().env("XDG_CONFIG_HOME", xdg.path()).args([
        "--root",
        root.to_str().unwrap(),
        "config",
    ]));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("jig/config.toml"), "{}", run.stdout);
    assert!(run.stdout.contains("deny = [\"grep\"]"), "{}", run.stdout);
    // Without XDG_CONFIG_HOME, ~/.config/jig/config.toml.
    let run = run_with(
        jig()
            .env_remove("XDG_CONFIG_HOME")
            .env("HOME", xdg.path().join("nowhere"))
            .args(["--root", root.to_str().unwrap(), "config"]),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("configuration file: none"),
        "{}",
        run.stdout
    );
}

#[test]
fn unknown_keys_are_errors_naming_the_key_and_the_file() {
    for (text, key) in [
        ("rooot = \".\"\n", "rooot"),
        ("[limits]\ntimeout_secs = 3\n", "timeout_secs"),
        ("[exec]\nallow_list = []\n", "allow_list"),
    ] {
        let dir = config_dir(text);
        let file = dir.path().join("config.toml");
        let run = run_with(jig().args(["--config", file.to_str().unwrap(), "tools"]));
        assert_eq!(run.code, 1, "{run:?}");
        assert!(run.stderr.contains(key), "{key}: {}", run.stderr);
        assert!(
            run.stderr.contains(&file.display().to_string()),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty());
    }
}

#[test]
fn a_file_inside_the_workspace_is_refused_even_through_a_link() {
    let workspace = tempfile::tempdir().unwrap();
    let inside = workspace.path().join("config.toml");
    std::fs::write(&inside, "[policy]\nallow = [\"grep\"]\n").unwrap();
    let root = workspace.path().to_str().unwrap();
    let run = run_with(jig().args([
        "--root",
        root,
        "--config",
        inside.to_str().unwrap(),
        "tools",
    ]));
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("inside the workspace"),
        "{}",
        run.stderr
    );
    // A link outside the workspace to the file inside: still refused.
    let outside = tempfile::tempdir().unwrap();
    let link = outside.path().join("config.toml");
    std::os::unix::fs::symlink(&inside, &link).unwrap();
    let run = run_with(jig().args(["--root", root, "--config", link.to_str().unwrap(), "tools"]));
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("inside the workspace"),
        "{}",
        run.stderr
    );
    // The root named by the file counts as well.
    let dir = config_dir(&format!("root = \"{}\"\n", outside.path().display()));
    let run = run_with(jig().args([
        "--config",
        dir.path().join("config.toml").to_str().unwrap(),
        "tools",
    ]));
    assert_eq!(
        run.code, 0,
        "outside the workspace the file is fine: {run:?}"
    );
    let run = run_with(jig().args([
        "--config",
        link.to_str().unwrap(),
        "--root",
        outside.path().to_str().unwrap(),
        "tools",
    ]));
    assert_eq!(run.code, 1, "the link itself lies in the root: {run:?}");
}

#[test]
fn a_missing_file_given_with_config_is_an_error() {
    let run = run_with(jig().args(["--config", "/nonexistent/jig.toml", "tools"]));
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("/nonexistent/jig.toml"),
        "{}",
        run.stderr
    );
}
