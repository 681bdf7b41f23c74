//! `jig mcp` driven by the official Rust SDK's client over a real stdio
//! pipe: listing, calls, refusals, policy, concurrency, cancellation, and
//! the JSON-RPC channel kept away from command children.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::{JIG, NAP, example_root, example_tools};

/// Shows where the child's stdin and stdout lead.
const FDS: &str = r#"{
  "name": "fds",
  "description": "Where the standard streams of a command lead",
  "command": "readlink /proc/self/fd/0 /proc/self/fd/1",
  "arguments": {}
}"#;

/// A running `jig mcp` and the client connected to it.
struct Server {
    client: RunningService<RoleClient, ()>,
    pid: u32,
    _tools: tempfile::TempDir,
}

impl Server {
    /// Starts `jig --root examples/workspace --tools <examples + test tools>
    /// ARGS mcp` with the variables `env`.
    async fn start(args: &[&str], env: &[(&str, &str)]) -> Self {
        let tools = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(example_tools()).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), tools.path().join(entry.file_name())).unwrap();
        }
        std::fs::write(tools.path().join("nap.tool.json"), NAP).unwrap();
        std::fs::write(tools.path().join("fds.tool.json"), FDS).unwrap();
        let root = example_root();
        let command = tokio::process::Command::new(JIG).configure(|command| {
            for var in [
                "JIG_TOOL_ALLOWLIST",
                "JIG_TOOL_DENYLIST",
                "JIG_ENABLED_TOOLS",
            ] {
                command.env_remove(var);
            }
            command.envs(env.iter().copied());
            command.arg("--root").arg(&root);
            command.arg("--tools").arg(tools.path());
            command.args(args).arg("mcp");
        });
        let transport = TokioChildProcess::new(command).unwrap();
        let pid = transport.id().unwrap();
        let client = ().serve(transport).await.unwrap();
        Self {
            client,
            pid,
            _tools: tools,
        }
    }

    async fn call(&self, name: &str, arguments: Value) -> CallToolResult {
        self.client
            .call_tool(params(name, arguments))
            .await
            .unwrap()
    }

    /// Closes the client, which ends the server, and checks it is gone.
    async fn stop(self) {
        let pid = self.pid;
        self.client.cancel().await.unwrap();
        assert!(
            wait_gone(pid, Duration::from_secs(10)).await,
            "the server {pid} outlived its client"
        );
    }
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    params
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect()
}

fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_registry_tools_with_their_schemas() {
    let server = Server::start(&[], &[]).await;
    let info = server.client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "jig");
    let instructions = info.instructions.as_deref().unwrap_or_default();
    for phrase in ["typed slots", "without a shell", "what to do"] {
        assert!(instructions.contains(phrase), "{instructions}");
    }
    assert_eq!(
        info.server_info.as_ref().unwrap().version,
        env!("CARGO_PKG_VERSION")
    );
    let tools = server.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for name in [
        "grep",
        "find",
        "search_text",
        "count_lines",
        "list_rust_files",
        "nap",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }
    let search = tools.iter().find(|t| t.name == "search_text").unwrap();
    assert_eq!(search.input_schema["type"], "object");
    assert_eq!(search.input_schema["required"], json!(["pattern"]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_runs_through_the_registry() {
    let server = Server::start(&[], &[]).await;
    let result = server
        .call(
            "search_text",
            json!({"pattern": "TODO", "path": "src/count.rs"}),
        )
        .await;
    assert!(!is_error(&result), "{}", text(&result));
    let text = text(&result);
    assert!(text.starts_with("exit: 0\noutput: "), "{text}");
    assert!(text.contains("count hyphenated words"), "{text}");

    // A command that ran and failed is a result, not an error.
    let result = server
        .call("search_text", json!({"pattern": "NoSuchTextAnywhere"}))
        .await;
    assert!(!is_error(&result));
    assert!(crate::mcp::text(&result).starts_with("exit: 1"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_an_error_result_with_guidance() {
    let server = Server::start(&[], &[]).await;
    for (name, arguments, code) in [
        (
            "search_text",
            json!({"pattern": "a;b"}),
            "error 614 (slot_invalid)",
        ),
        (
            "search_text",
            json!({"pattern": "x", "path": "../.."}),
            "error 614",
        ),
        ("search_text", json!({}), "error 614"),
        ("no_such_tool", json!({}), "error 619 (unknown_tool)"),
    ] {
        let result = server.call(name, arguments.clone()).await;
        assert!(is_error(&result), "{name} {arguments}: {}", text(&result));
        assert!(text(&result).starts_with(code), "{}", text(&result));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_policy_refuses_denied_tools() {
    for (args, env) in [
        (&["--deny", "search_text"][..], &[][..]),
        (&[][..], &[("JIG_TOOL_DENYLIST", "search_text")][..]),
        (&["--allow", "count_lines"][..], &[][..]),
    ] {
        let server = Server::start(args, env).await;
        let result = server.call("search_text", json!({"pattern": "TODO"})).await;
        assert!(is_error(&result), "{args:?} {env:?}");
        assert!(
            text(&result).starts_with("error 616 (tool_policy_denied)"),
            "{}",
            text(&result)
        );
        // The tool stays visible: the policy decides what runs, not what is seen.
        let tools = server.client.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "search_text"));
        server.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exec_tool_is_served_only_when_granted() {
    let server = Server::start(&[], &[]).await;
    let tools = server.client.list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "exec"));
    server.stop().await;

    let server = Server::start(&["--exec-allow", "wc"], &[]).await;
    let tools = server.client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "exec"));
    let result = server
        .call("exec", json!({"command": "wc -l README.md"}))
        .await;
    assert!(!is_error(&result), "{}", text(&result));
    assert!(
        text(&result).starts_with("exit: 0\noutput: 6 README.md"),
        "{}",
        text(&result)
    );
    let result = server
        .call("exec", json!({"command": "wc -l README.md | head"}))
        .await;
    assert!(is_error(&result));
    assert!(
        text(&result).starts_with("error 615 (exec_refused)"),
        "{}",
        text(&result)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_calls_run_concurrently_and_keep_their_results() {
    let server = Server::start(&[], &[]).await;
    let peer = server.client.peer().clone();
    let files = ["README.md", "src/main.rs", "src/count.rs", "notes/plan.txt"];
    let start = Instant::now();
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..20 {
        let peer = peer.clone();
        calls.spawn(async move {
            let (name, arguments) = if i % 2 == 0 {
                ("nap", json!({"seconds": 1}))
            } else {
                ("count_lines", json!({"path": files[i % files.len()]}))
            };
            let result = peer.call_tool(params(name, arguments)).await.unwrap();
            (i, result)
        });
    }
    let mut done = 0;
    while let Some(joined) = calls.join_next().await {
        let (i, result) = joined.unwrap();
        assert!(!is_error(&result), "call {i}: {}", text(&result));
        let text = text(&result);
        assert!(text.starts_with("exit: 0"), "call {i}: {text}");
        if i % 2 == 1 {
            let file = files[i % files.len()];
            assert!(
                text.contains(file),
                "call {i} got another call's result: {text}"
            );
        }
        done += 1;
    }
    assert_eq!(done, 20);
    let elapsed = start.elapsed();
    // Ten one-second naps in a row would take ten seconds.
    assert!(
        elapsed < Duration::from_secs(5),
        "calls ran one at a time: {elapsed:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_ends_its_command() {
    let server = Server::start(&[], &[]).await;
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(params("nap", json!({"seconds": 60}))));
    let handle = server
        .client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let sleeper = wait_for_child(server.pid, "sleep", Duration::from_secs(10))
        .await
        .expect("the nap command started");
    let group = process_group(sleeper);
    let cancelled = Instant::now();
    handle.cancel(Some("test".to_owned())).await.unwrap();
    assert!(
        wait_gone(sleeper, Duration::from_secs(5)).await,
        "the command {sleeper} outlived its cancelled request"
    );
    assert!(cancelled.elapsed() < Duration::from_secs(5));
    // The call's init leads the group and exits right after its program
    // (on a loaded machine, a moment later): the group must be empty
    // within the same bound.
    let mut members = group_members(group);
    while !members.is_empty() && cancelled.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        members = group_members(group);
    }
    assert!(
        members.is_empty(),
        "members of the command's process group survived: {members:?}"
    );
    // The server goes on serving.
    let result = server
        .call("count_lines", json!({"path": "README.md"}))
        .await;
    assert!(!is_error(&result), "{}", text(&result));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminated_server_ends_its_commands_first() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let server = Server::start(&[], &[]).await;
    let peer = server.client.peer().clone();
    let call =
        tokio::spawn(async move { peer.call_tool(params("nap", json!({"seconds": 60}))).await });
    let sleeper = wait_for_child(server.pid, "sleep", Duration::from_secs(10))
        .await
        .expect("the nap command started");
    kill(
        Pid::from_raw(i32::try_from(server.pid).unwrap()),
        Signal::SIGTERM,
    )
    .unwrap();
    assert!(
        wait_gone(sleeper, Duration::from_secs(5)).await,
        "the command {sleeper} outlived its terminated server"
    );
    assert!(
        wait_gone(server.pid, Duration::from_secs(10)).await,
        "the server did not stop on SIGTERM"
    );
    call.abort();
    server.client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_going_away_ends_the_commands_in_flight() {
    use std::io::Write;
    use std::process::Stdio;

    // A raw client, so that closing stdin is the only thing that happens
    // (the SDK's client would signal the server after 3 s).
    let tools = tempfile::tempdir().unwrap();
    std::fs::write(tools.path().join("nap.tool.json"), NAP).unwrap();
    let mut server = std::process::Command::new(JIG)
        .arg("--root")
        .arg(example_root())
        .arg("--tools")
        .arg(tools.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = server.id();
    let mut stdin = server.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "nap", "arguments": {"seconds": 60}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let sleeper = wait_for_child(pid, "sleep", Duration::from_secs(10)).await;
    drop(stdin);
    let ended = match sleeper {
        // Calls get 250 ms after the end of input, then are cancelled.
        Some(sleeper) => wait_gone(sleeper, Duration::from_secs(3)).await,
        None => false,
    };
    let server_ended = wait_gone(pid, Duration::from_secs(10)).await;
    if !server_ended {
        server.kill().unwrap();
    }
    server.wait().unwrap();
    assert!(sleeper.is_some(), "the nap command never started");
    assert!(ended, "the command outlived its client");
    assert!(server_ended, "the server outlived its client");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_never_inherit_the_json_rpc_channel() {
    let server = Server::start(&[], &[]).await;
    let stdin = link(server.pid, 0);
    let stdout = link(server.pid, 1);
    assert!(stdin.starts_with("pipe:"), "{stdin}");
    let result = server.call("fds", json!({})).await;
    assert!(!is_error(&result), "{}", text(&result));
    let text = text(&result);
    let output = text
        .strip_prefix("exit: 0\noutput: ")
        .unwrap_or_else(|| panic!("{text}"));
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.first(), Some(&"/dev/null"), "{text}");
    let child_stdout = lines.get(1).copied().unwrap_or_default();
    assert!(child_stdout.starts_with("pipe:"), "{text}");
    assert_ne!(child_stdout, stdin);
    assert_ne!(
        child_stdout, stdout,
        "a command wrote into the JSON-RPC channel"
    );
    server.stop().await;
}

#[test]
fn a_bad_configuration_stops_the_server_before_it_speaks() {
    let root = example_root();
    let run = crate::support::run_jig(&[
        "--root",
        root.to_str().unwrap(),
        "--deny",
        "no_such_tool",
        "mcp",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout.is_empty(),
        "stdout is the JSON-RPC channel: {}",
        run.stdout
    );
    assert!(run.stderr.contains("no_such_tool"), "{}", run.stderr);
}

/// Where `/proc/PID/fd/FD` leads.
fn link(pid: u32, fd: u32) -> String {
    std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
        .unwrap()
        .display()
        .to_string()
}

/// Waits for a child of `parent` whose command name is `comm`.
async fn wait_for_child(parent: u32, comm: &str, timeout: Duration) -> Option<u32> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        // A contained command is a grandchild: the server's child is the
        // call's init, in its own PID namespace.
        let all = processes();
        let descends = |mut pid: u32| {
            for _ in 0..8 {
                match all.iter().find(|p| p.pid == pid) {
                    Some(p) if p.ppid == parent => return true,
                    Some(p) => pid = p.ppid,
                    None => return false,
                }
            }
            false
        };
        let found = all.iter().find(|p| p.comm == comm && descends(p.pid));
        if let Some(process) = found {
            return Some(process.pid);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

/// Waits until `pid` is gone (or a zombie nobody will reap).
async fn wait_gone(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => parse_stat(pid, &stat).is_some_and(|p| p.state != 'Z'),
        Err(_) => false,
    }
}

/// Live processes in the process group `pgid`.
fn process_group(pid: u32) -> u32 {
    processes()
        .into_iter()
        .find(|p| p.pid == pid)
        .map_or(pid, |p| p.pgrp)
}

fn group_members(pgid: u32) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|p| p.pgrp == pgid && p.state != 'Z')
        .map(|p| p.pid)
        .collect()
}

struct Process {
    pid: u32,
    comm: String,
    state: char,
    ppid: u32,
    pgrp: u32,
}

fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat =
                std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))
                    .ok()?;
            parse_stat(pid, &stat)
        })
        .collect()
}

/// `pid (comm) state ppid pgrp ...`; the name may hold spaces and parens.
fn parse_stat(pid: u32, stat: &str) -> Option<Process> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat[open + 1..close].to_owned();
    let mut rest = stat[close + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgrp = rest.next()?.parse().ok()?;
    Some(Process {
        pid,
        comm,
        state,
        ppid,
        pgrp,
    })
}
