//! `jig agent` against a scripted chat-completions server on 127.0.0.1:
//! rounds printed as they go, the global options applied, exit statuses.

use serde_json::json;

use crate::chat_server::{Reply, Server};
use crate::snapshot;
use crate::support::{Run, jig, run_with};

/// A workspace with one file that has a TODO.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        "first line\nTODO: write tests\nlast line\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_prompt_mode_run_prints_each_round() {
    let dir = workspace();
    let root = dir.path().to_str().unwrap();
    let server = Server::start(vec![
        Reply::text(
            "Let me search. {'name': 'grep', 'arguments': {'pattern': 'TODO', 'path': 'notes.txt'}}",
        ),
        Reply::text("{\"name\": \"find\", \"arguments\": {\"pattern\": \"*.txt\"}}"),
        Reply::text(
            "{\"name\": \"sed_print\", \"arguments\": {\"path\": \"notes.txt\", \"range\": \"2; ls\"}}",
        ),
        Reply::text("{\"thought\": \"hmm\"}"),
        Reply::text("{\"name\": \"seq\"}"),
        Reply::text("{\"name\": \"done\", \"arguments\": {\"answer\": \"line 2 of notes.txt\"}}"),
    ]);
    let url = server.url();
    let run = run_with(jig().args([
        "--root",
        root,
        "--deny",
        "find",
        "agent",
        "--endpoint",
        &url,
        "--model",
        "tiny",
        "Where is the TODO?",
    ]));
    let requests = server.finish();
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(requests.len(), 6);
    assert_eq!(requests[0].line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(requests[0].body["model"], "tiny");
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "Where is the TODO?"
    );
    assert!(requests[0].body.get("tools").is_none());
    assert_eq!(requests[0].header("authorization"), None);
    snapshot!("prompt_mode", run.stdout);
}

#[test]
fn a_native_run_sends_the_tools_and_the_key() {
    let dir = workspace();
    let root = dir.path().to_str().unwrap();
    let server = Server::start(vec![
        Reply::tool_calls(&[(
            "call_1",
            "grep",
            "{\"pattern\": \"TODO\", \"path\": \"notes.txt\"}",
        )]),
        Reply::text("The TODO is on line 2 of notes.txt."),
    ]);
    let url = server.url();
    let run = run_with(
        jig()
            .args([
                "--root",
                root,
                "agent",
                "--native",
                "--endpoint",
                &url,
                "--model",
                "m",
                "--api-key-env",
                "JIG_TEST_KEY",
                "Where is the TODO?",
            ])
            .env("JIG_TEST_KEY", "sk-cli-secret"),
    );
    let requests = server.finish();
    assert_eq!(run.code, 0, "{run:?}");
    for request in &requests {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer sk-cli-secret")
        );
        assert_eq!(request.body["tools"][0]["function"]["name"], json!("grep"));
    }
    assert_eq!(requests[1].body["messages"][3]["role"], "tool");
    assert_eq!(requests[1].body["messages"][3]["tool_call_id"], "call_1");
    assert!(!run.stdout.contains("sk-cli-secret") && !run.stderr.contains("sk-cli-secret"));
    snapshot!("native_mode", run.stdout);
}

/// `jig agent` on `root` against an endpoint that answers `reply`.
fn agent_answered(root: &str, reply: Reply) -> Run {
    let server = Server::start(vec![reply]);
    let url = server.url();
    let run = run_with(jig().args([
        "--root",
        root,
        "agent",
        "--endpoint",
        &url,
        "--model",
        "m",
        "task",
    ]));
    drop(server);
    run
}

#[test]
fn unfinished_runs_and_failures_have_their_exit_status() {
    let dir = workspace();
    let root = dir.path().to_str().unwrap();
    let call =
        "{\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\", \"path\": \"notes.txt\"}}";
    let server = Server::start(vec![Reply::text(call), Reply::text(call)]);
    let url = server.url();
    let run = run_with(jig().args([
        "--root",
        root,
        "agent",
        "--endpoint",
        &url,
        "--model",
        "m",
        "--max-rounds",
        "2",
        "task",
    ]));
    drop(server);
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stderr.contains("maximum of 2 rounds"), "{}", run.stderr);

    let run = agent_answered(
        root,
        Reply::raw(404, "{\"error\": {\"message\": \"model 'm' not found\"}}"),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("404") && run.stderr.contains("not found"),
        "{}",
        run.stderr
    );

    // a redirect is said, with where it points, and not followed
    let run = agent_answered(
        root,
        Reply::redirect(302, "http://127.0.0.1:9/v1/chat/completions"),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("302")
            && run
                .stderr
                .contains("redirect to http://127.0.0.1:9/v1/chat/completions, not followed"),
        "{}",
        run.stderr
    );

    let run = run_with(
        jig()
            .args([
                "--root",
                root,
                "agent",
                "--endpoint",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
            ])
            .args(["--api-key-env", "JIG_TEST_UNSET_KEY", "task"])
            .env_remove("JIG_TEST_UNSET_KEY"),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("JIG_TEST_UNSET_KEY"), "{}", run.stderr);
}
