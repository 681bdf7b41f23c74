//! `jig mcp` driven by the official Python MCP SDK (`mcp`), as a real client
//! would. The SDK lives in `<workspace>/.venv`, which `.ci/run` creates and
//! fills from `.ci/requirements.txt` (and which the first run of these
//! tests creates the same way when it is missing).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::{JIG, example_root, example_tools};

/// The virtual environment's interpreter, with the SDK installed.
///
/// CI creates `<workspace>/.venv` before the tests; on a fresh machine the
/// first run creates it the same way (`python3 -m venv`, then
/// `pip install -r .ci/requirements.txt` from PyPI), under a lock file so
/// that concurrent test processes do not race.
fn python() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join(".venv/bin/python3");
    let ready = |python: &PathBuf| {
        python.exists()
            && std::process::Command::new(python)
                .args(["-c", "import mcp"])
                .output()
                .is_ok_and(|o| o.status.success())
    };
    if ready(&python) {
        return python;
    }
    let lock_file = std::fs::File::create(root.join(".venv.lock")).unwrap();
    let _lock = nix::fcntl::Flock::lock(lock_file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, errno)| errno)
        .unwrap();
    if !ready(&python) {
        let run = |program: &std::path::Path, args: &[&str]| {
            let output = std::process::Command::new(program)
                .args(args)
                .current_dir(&root)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "`{} {}` failed while creating the Python environment this test needs \
                 (the MCP SDK from PyPI):\n{}",
                program.display(),
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
        };
        run("python3".as_ref(), &["-m", "venv", ".venv"]);
        run(
            &python,
            &[
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
                ".ci/requirements.txt",
            ],
        );
    }
    python
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_client.py")
}

/// The client in `calls` mode making `calls` (with `client_options`)
/// against `jig` on the example workspace, `jig_options` before `mcp` and
/// `mcp_options` after it.
fn client(
    calls: &Value,
    client_options: &[&str],
    jig_options: &[&str],
    mcp_options: &[&str],
) -> std::process::Command {
    let mut command = std::process::Command::new(python());
    command
        .arg(script())
        .arg("calls")
        .arg(calls.to_string())
        .args(client_options)
        .arg("--")
        .arg(JIG)
        .arg("--root")
        .arg(example_root())
        .arg("--tools")
        .arg(example_tools())
        .args(jig_options)
        .arg("mcp")
        .args(mcp_options);
    command
}

#[test]
fn the_python_sdk_lists_calls_and_gets_refusals() {
    let calls = json!([
        ["search_text", {"pattern": "TODO", "path": "src/count.rs"}],
        ["count_lines", {"path": "notes/plan.txt"}],
        ["search_text", {"pattern": "a|b"}],
        ["search_text", {"pattern": "x", "path": "/etc/passwd"}],
        ["grep", {"pattern": "FIXME", "path": "notes"}],
    ]);
    let output = client(&calls, &[], &["--deny", "grep"], &[])
        .env_remove("JIG_TOOL_ALLOWLIST")
        .env_remove("JIG_TOOL_DENYLIST")
        .env_remove("JIG_ENABLED_TOOLS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the client failed:\n{stderr}\n{stdout}"
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();

    assert_eq!(report["server"]["name"], "jig");
    let instructions = report["server"]["instructions"]
        .as_str()
        .unwrap_or_default();
    assert!(instructions.contains("typed slots"), "{report}");
    assert_eq!(report["server"]["version"], env!("CARGO_PKG_VERSION"));
    let tools = report["tools"].as_array().unwrap();
    let search = tools.iter().find(|t| t["name"] == "search_text").unwrap();
    assert_eq!(search["input_schema"]["required"], json!(["pattern"]));

    let results = report["results"].as_array().unwrap();
    let expect = [
        (false, "exit: 0\noutput: 5:"),
        (false, "exit: 0\noutput: 5 notes/plan.txt"),
        (true, "error 614 (slot_invalid)"),
        (true, "error 614 (slot_invalid)"),
        (true, "error 616 (tool_policy_denied)"),
    ];
    assert_eq!(results.len(), expect.len());
    for (result, (is_error, start)) in results.iter().zip(expect) {
        assert_eq!(result["is_error"], is_error, "{result}");
        let text = result["text"].as_str().unwrap();
        assert!(text.starts_with(start), "expected {start:?}, got {text:?}");
    }
}

/// A request over the server's line limit is refused under its id, so the
/// SDK's call fails at once with the server's reason instead of waiting
/// for an answer it could not match (an error under `id: null`).
#[test]
fn the_python_sdk_gets_a_line_over_the_limit_refused_under_its_call() {
    let calls = json!([["count_lines", {"path": "x".repeat(10_000)}]]);
    let mut child = client(
        &calls,
        &["--quiet-server"],
        &[],
        &["--max-line-bytes", "4096"],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the SDK client still waits for an answer to its call after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("over the limit of 4096 bytes"),
        "the call failed otherwise: {stderr}"
    );
}
