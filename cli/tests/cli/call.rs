//! `jig call`: the model-facing string, exit statuses, `--json`, `--dry-run`.

use serde_json::Value;

use crate::snapshot;
use crate::support::{
    NAP, example_root, jig, run_example, run_jig, run_stdin, run_with, tools_dir,
};

/// A descriptor that creates a file, to prove a dry run runs nothing.
const TOUCH: &str = r#"{
  "name": "touch_file",
  "description": "Create an empty file",
  "command": "touch {path}",
  "arguments": {"path": {"type": "path", "description": "The file", "required": true}}
}"#;

#[test]
fn the_readme_main_job_command_finds_the_todos() {
    let run = run_example(&["call", "search_text", r#"{"pattern":"TODO","path":"."}"#]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with("exit: 0\noutput: "),
        "{}",
        run.stdout
    );
    for file in ["README.md", "src/main.rs", "src/count.rs"] {
        assert!(
            run.stdout.contains(file),
            "{file} missing from:\n{}",
            run.stdout
        );
    }
}

#[test]
fn a_call_prints_the_model_facing_string() {
    let run = run_example(&[
        "call",
        "search_text",
        r#"{"pattern":"TODO","path":"src/count.rs"}"#,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    snapshot!("ran_text", run.stdout);
}

#[test]
fn json_of_a_call_that_ran() {
    let run = run_example(&[
        "call",
        "search_text",
        r#"{"pattern":"TODO","path":"src/count.rs"}"#,
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let json = run.json();
    assert!(json["duration_ms"].as_f64().unwrap() > 0.0);
    snapshot!("ran_json", run.stdout);
}

#[test]
fn the_json_object_has_exactly_the_documented_fields() {
    let expected = [
        "status",
        "code",
        "error_type",
        "message",
        "argv",
        "exit_code",
        "signal",
        "timed_out",
        "output",
        "dropped_bytes",
        "duration_ms",
    ];
    let runs = [
        run_example(&["call", "search_text", r#"{"pattern":"TODO"}"#, "--json"]),
        run_example(&["call", "search_text", r#"{"pattern":"a;b"}"#, "--json"]),
        run_example(&[
            "call",
            "search_text",
            r#"{"pattern":"TODO"}"#,
            "--json",
            "--dry-run",
        ]),
        run_jig(&["--root", "/nonexistent/jig-test", "call", "grep", "--json"]),
    ];
    for (run, status) in runs.iter().zip(["ran", "refused", "allowed", "error"]) {
        let json = run.json();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, expected, "{status}");
        assert_eq!(json["status"], status);
    }
}

#[test]
fn a_command_that_fails_still_ran() {
    let run = run_example(&[
        "call",
        "search_text",
        r#"{"pattern":"NoSuchTextAnywhere"}"#,
        "--json",
    ]);
    assert_eq!(
        run.code, 0,
        "the tool ran: exit 0 whatever the command's own code"
    );
    assert_eq!(run.json()["status"], "ran");
    assert_eq!(run.json()["exit_code"], 1);
}

#[test]
fn a_slot_refusal_exits_2_with_guidance() {
    let run = run_example(&["call", "search_text", r#"{"pattern":"a;b"}"#]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stdout.starts_with("error 614 (slot_invalid):"),
        "{}",
        run.stdout
    );
    let run = run_example(&["call", "search_text", r#"{"pattern":"a;b"}"#, "--json"]);
    assert_eq!(run.code, 2);
    snapshot!("refused_slot_json", run.stdout);
}

#[test]
fn refusals_from_every_layer_exit_2() {
    let cases: [(&[&str], &str, u64); 5] = [
        (
            &[
                "--deny",
                "search_text",
                "call",
                "search_text",
                r#"{"pattern":"x"}"#,
            ],
            "tool_policy_denied",
            616,
        ),
        (
            &[
                "--allow",
                "grep",
                "call",
                "search_text",
                r#"{"pattern":"x"}"#,
            ],
            "tool_policy_denied",
            616,
        ),
        (&["call", "no_such_tool", "{}"], "unknown_tool", 619),
        (
            &["call", "search_text", "{not json"],
            "invalid_arguments",
            620,
        ),
        (
            &["call", "search_text", r#"{"path":"."}"#],
            "slot_invalid",
            614,
        ),
    ];
    for (args, error_type, code) in cases {
        let mut args = args.to_vec();
        args.push("--json");
        let run = run_example(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        let json = run.json();
        assert_eq!(json["status"], "refused", "{args:?}");
        assert_eq!(json["error_type"], error_type, "{args:?}");
        assert_eq!(json["code"], code, "{args:?}");
    }
}

#[test]
fn the_policy_variables_of_the_environment_apply() {
    let root = example_root();
    let tools = crate::support::example_tools();
    let run = run_with(
        jig()
            .env("JIG_TOOL_DENYLIST", "search_text")
            .args([
                "--root",
                root.to_str().unwrap(),
                "--tools",
                tools.to_str().unwrap(),
            ])
            .args(["call", "search_text", r#"{"pattern":"TODO"}"#]),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.contains("tool_policy_denied"), "{}", run.stdout);
    assert!(run.stdout.contains("denylist"), "{}", run.stdout);
}

#[test]
fn a_policy_naming_an_unknown_tool_is_a_configuration_error() {
    let run = run_example(&["--deny", "no_such_tool", "call", "search_text", "{}"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("no_such_tool"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn a_missing_root_is_a_configuration_error() {
    let run = run_jig(&[
        "--root",
        "/nonexistent/jig-test",
        "call",
        "grep",
        r#"{"pattern":"x"}"#,
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.starts_with("jig: error: "), "{}", run.stderr);
    assert!(
        run.stderr.contains("/nonexistent/jig-test"),
        "{}",
        run.stderr
    );
    let run = run_jig(&["--root", "/nonexistent/jig-test", "call", "grep", "--json"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["status"], "error");
}

#[test]
fn arguments_can_come_from_stdin() {
    let root = example_root();
    let tools = crate::support::example_tools();
    let run = run_stdin(
        &[
            "--root",
            root.to_str().unwrap(),
            "--tools",
            tools.to_str().unwrap(),
            "call",
            "search_text",
            "-",
        ],
        r#"{"pattern": "FIXME", "path": "notes"}"#,
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("notes/plan.txt:5:"), "{}", run.stdout);
}

#[test]
fn a_dry_run_validates_and_runs_nothing() {
    let tools = tools_dir(&[("touch.tool.json", TOUCH)]);
    let root = tempfile::tempdir().unwrap();
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "--root".to_owned(),
            root.path().display().to_string(),
            "--tools".to_owned(),
            tools.path().display().to_string(),
            "call".to_owned(),
            "touch_file".to_owned(),
            r#"{"path": "made.txt"}"#.to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let run = run_with(jig().args(args(&["--dry-run"])));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with("allowed: would run touch "),
        "{}",
        run.stdout
    );
    assert!(
        !root.path().join("made.txt").exists(),
        "a dry run ran the command"
    );

    let run = run_with(jig().args(args(&["--dry-run", "--json"])));
    let json = run.json();
    assert_eq!(json["status"], "allowed");
    assert_eq!(json["argv"][0], "touch");
    assert_eq!(json["exit_code"], Value::Null);
    assert!(!root.path().join("made.txt").exists());

    let run = run_with(jig().args(args(&[])));
    assert_eq!(run.code, 0, "{run:?}");
    assert!(root.path().join("made.txt").exists(), "the real call ran");
}

#[test]
fn a_refused_dry_run_exits_2() {
    let run = run_example(&["call", "search_text", r#"{"pattern":"$(id)"}"#, "--dry-run"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.starts_with("error 614"), "{}", run.stdout);
}

#[test]
fn timeout_and_output_budget_come_from_the_command_line() {
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let root = example_root();
    let run = run_with(jig().args([
        "--root",
        root.to_str().unwrap(),
        "--tools",
        tools.path().to_str().unwrap(),
        "--timeout",
        "0.3",
        "call",
        "nap",
        r#"{"seconds": 10}"#,
        "--json",
    ]));
    assert_eq!(run.code, 0, "a timed-out command ran: {run:?}");
    let json = run.json();
    assert_eq!(json["timed_out"], true);
    assert!(json["duration_ms"].as_f64().unwrap() < 5_000.0);

    let run = run_example(&[
        "--max-output",
        "64",
        "call",
        "search_text",
        r#"{"pattern":"e"}"#,
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let json = run.json();
    assert!(json["dropped_bytes"].as_u64().unwrap() > 0, "{json}");
}

#[test]
fn the_exec_tool_is_off_unless_granted() {
    let command = r#"{"command": "wc -l README.md"}"#;
    let run = run_example(&["call", "exec", command, "--json"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.json()["error_type"], "unknown_tool");

    let run = run_example(&["--exec", "call", "exec", command]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with("exit: 0\noutput: 6 README.md"),
        "{}",
        run.stdout
    );
}

#[test]
fn exec_allow_is_the_whole_allow_list() {
    let run = run_example(&[
        "--exec-allow",
        "wc,head",
        "call",
        "exec",
        r#"{"command": "head -n 1 README.md"}"#,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("# tally"), "{}", run.stdout);

    let run = run_example(&[
        "--exec-allow",
        "wc",
        "call",
        "exec",
        r#"{"command": "cat README.md"}"#,
        "--json",
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    let json = run.json();
    assert_eq!(json["code"], 615);
    assert_eq!(json["error_type"], "exec_refused");

    let run = run_example(&[
        "--exec-allow",
        "wc",
        "call",
        "exec",
        r#"{"command": "wc -l README.md; id"}"#,
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.starts_with("error 615"), "{}", run.stdout);
}

#[test]
fn an_exec_allow_list_with_a_path_is_a_configuration_error() {
    let run = run_example(&["--exec-allow", "/bin/cat", "tools"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("--exec-allow"), "{}", run.stderr);
}

#[test]
fn json_of_a_dry_run() {
    let run = run_example(&[
        "call",
        "search_text",
        r#"{"pattern":"TODO"}"#,
        "--dry-run",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    snapshot!("allowed_json", run.stdout);
    let run = run_example(&["call", "search_text", r#"{"pattern":"TODO"}"#, "--dry-run"]);
    snapshot!("allowed_text", run.stdout);
}

#[test]
fn a_program_without_a_table_is_granted_only_by_the_dangerous_flag() {
    // Refused at start, with the flag to use named.
    let run = run_example(&[
        "--exec-allow",
        "strings,cat",
        "call",
        "exec",
        r#"{"command":"strings README.md"}"#,
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("--dangerous-exec-untabled strings"),
        "{}",
        run.stderr
    );
    // Granted knowingly: it runs, its operands still confined.
    let granted = [
        "--exec-allow",
        "strings,cat",
        "--dangerous-exec-untabled",
        "strings",
        "call",
        "exec",
    ];
    let mut args = granted.to_vec();
    args.push(r#"{"command":"strings README.md"}"#);
    let run = run_example(&args);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("exit: 0"), "{}", run.stdout);
    let mut args = granted.to_vec();
    args.push(r#"{"command":"strings /etc/passwd"}"#);
    let run = run_example(&args);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn a_deny_entry_is_lifted_only_by_the_dangerous_flag_and_never_for_exec() {
    const PYTHON: &str = r#"{"name": "count_bytes", "description": "Count a file's bytes with Python",
        "command": "python3 count.py {path}",
        "arguments": {"path": {"type": "path", "description": "The file", "required": true}}}"#;
    let tools = tools_dir(&[("count.tool.json", PYTHON)]);
    // A workspace with the script the integrator's tool runs.
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("README.md"), "hello\n").unwrap();
    std::fs::write(
        workspace.path().join("count.py"),
        "import sys\nprint(len(open(sys.argv[1], 'rb').read()))\n",
    )
    .unwrap();
    let root = workspace.path().to_path_buf();
    let base = [
        "--root",
        root.to_str().unwrap(),
        "--tools",
        tools.path().to_str().unwrap(),
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| (*s).to_owned()).collect()
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_jig(&args)
    };
    // Without the flag the descriptor is skipped (python3 is denied).
    let call = r#"{"path": "README.md"}"#;
    let refused = run(with(&["call", "count_bytes", call]));
    assert_ne!(refused.code, 0, "{refused:?}");
    // With it, the descriptor tool runs python3.
    let lifted = run(with(&[
        "--dangerous-allow-program",
        "python3",
        "call",
        "count_bytes",
        call,
    ]));
    assert_eq!(lifted.code, 0, "{lifted:?}");
    assert!(
        lifted.stdout.starts_with("exit: 0\noutput: "),
        "{}",
        lifted.stdout
    );
    // The exec tool keeps the whole deny list.
    let exec = run(with(&[
        "--dangerous-allow-program",
        "python3",
        "--dangerous-exec-untabled",
        "python3",
        "call",
        "exec",
        r#"{"command":"python3 -c 1"}"#,
    ]));
    assert_eq!(exec.code, 2, "{exec:?}");
    assert!(exec.stdout.contains("deny list"), "{}", exec.stdout);
    // jig audit names the lifted entry.
    let audit = run(with(&["--dangerous-allow-program", "python3", "audit"]));
    assert!(
        audit.stdout.contains("lifted deny-list entries: python3"),
        "{}",
        audit.stdout
    );
    // A program that runs the workspace's own code needs containment.
    let make = run(with(&["--dangerous-allow-program", "make", "tools"]));
    assert_ne!(make.code, 0, "{make:?}");
    assert!(
        make.stderr.contains("--require-containment"),
        "{}",
        make.stderr
    );
    let contained = run(with(&[
        "--dangerous-allow-program",
        "make",
        "--require-containment",
        "tools",
    ]));
    assert_eq!(contained.code, 0, "{contained:?}");
}
