//! `jig mcp`, `jig call` and `jig agent` under faults, back-pressure and bad
//! input: one test per defect of issue 14, each driving the real binary over
//! stdio with a raw JSON-lines client, bounded in time, and asserting what a
//! client or an operator observes (processes are identified by pid *and*
//! start time, so a reused pid cannot pass for a live or a dead one).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::chat_server::{Reply, Server};
use crate::support::{JIG, NAP, example_root, tools_dir};

/// Prints about 20 MB: `seq 1 3000000`.
const SEQ: &str = r#"{
  "name": "many_lines",
  "description": "Print many lines",
  "command": "seq 1 {count}",
  "arguments": {"count": {"type": "number", "description": "How many", "required": true}}
}"#;

/// A process, named by pid and start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: u32,
    start: u64,
}

struct Stat {
    comm: String,
    state: char,
    ppid: u32,
    start: u64,
}

fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let fields: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // Fields after the name: state (3), ppid (4) ... starttime (22).
    Some(Stat {
        comm: text[open + 1..close].to_owned(),
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

impl Proc {
    fn of(pid: u32) -> Self {
        let start = stat(pid).map_or(0, |s| s.start);
        Self { pid, start }
    }

    /// Gone: no such pid, another process under it, or a zombie.
    fn gone(self) -> bool {
        stat(self.pid).is_none_or(|s| s.start != self.start || s.state == 'Z')
    }

    fn wait_gone(self, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        while Instant::now() < deadline {
            if self.gone() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.gone()
    }
}

/// Live descendants of `root` named `comm`.
fn descendants(root: u32, comm: &str) -> Vec<Proc> {
    let all: Vec<(u32, Stat)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect();
    let descends = |mut pid: u32| {
        for _ in 0..8 {
            match all.iter().find(|(p, _)| *p == pid) {
                Some((_, s)) if s.ppid == root => return true,
                Some((_, s)) => pid = s.ppid,
                None => return false,
            }
        }
        false
    };
    all.iter()
        .filter(|(pid, s)| s.comm == comm && s.state != 'Z' && descends(*pid))
        .map(|(pid, s)| Proc {
            pid: *pid,
            start: s.start,
        })
        .collect()
}

fn wait_for(root: u32, comm: &str, count: usize, bound: Duration) -> Vec<Proc> {
    let deadline = Instant::now() + bound;
    loop {
        let found = descendants(root, comm);
        if found.len() >= count || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A kibibyte figure of `/proc/PID/status`, in MiB.
fn status_mib(pid: u32, key: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(key)).unwrap();
    let kib: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024.0
}

/// A `jig mcp` driven by raw JSON lines.
struct Raw {
    child: Child,
    proc: Proc,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<String>>,
    /// While true, the client reads no more of stdout.
    held: Arc<(Mutex<bool>, Condvar)>,
    _tools: tempfile::TempDir,
}

impl Raw {
    /// Starts `jig ... ARGS mcp` with nap and many_lines tools; initialized.
    fn start(args: &[&str], env: &[(&str, &str)], stderr: Stdio) -> Self {
        Self::start_with(args, &[], env, stderr)
    }

    /// [`start`](Self::start) with `jig ... ARGS mcp MCP_ARGS`.
    fn start_with(args: &[&str], mcp_args: &[&str], env: &[(&str, &str)], stderr: Stdio) -> Self {
        let mut raw = Self::spawn(args, mcp_args, env, stderr);
        raw.initialize();
        raw
    }

    /// The server started, not yet initialized.
    fn spawn(args: &[&str], mcp_args: &[&str], env: &[(&str, &str)], stderr: Stdio) -> Self {
        let tools = tools_dir(&[("nap.tool.json", NAP), ("many_lines.tool.json", SEQ)]);
        let mut child = jig_on(tools.path())
            .args(args)
            .arg("mcp")
            .args(mcp_args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let proc = Proc::of(child.id());
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        let held = Arc::new((Mutex::new(false), Condvar::new()));
        let gate = Arc::clone(&held);
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            loop {
                let (hold, released) = &*gate;
                drop(
                    released
                        .wait_while(hold.lock().unwrap(), |held| *held)
                        .unwrap(),
                );
                let Some(Ok(line)) = lines.next() else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            proc,
            lines: Some(rx),
            held,
            _tools: tools,
        }
    }

    /// `initialize`, answered, then `notifications/initialized`.
    fn initialize(&mut self) {
        self.send(&initialize_request("raw"));
        assert_eq!(self.recv(Duration::from_secs(20))["id"], 0);
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    fn send_bytes(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_bytes(message.to_string().as_bytes());
    }

    fn call(&mut self, id: u64, name: &str, arguments: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
    }

    /// Stops reading stdout (after the line being read), or reads again.
    fn hold_answers(&self, hold: bool) {
        let (held, released) = &*self.held;
        *held.lock().unwrap() = hold;
        released.notify_all();
    }

    fn recv(&self, bound: Duration) -> Value {
        let line = self.recv_line(bound);
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next answer, if one comes within `bound` (and stdout is open).
    fn try_recv(&self, bound: Duration) -> Option<Value> {
        let line = self.lines.as_ref().unwrap().recv_timeout(bound).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")))
    }

    /// The next line the server wrote, as written.
    fn recv_line(&self, bound: Duration) -> String {
        match self.lines.as_ref().unwrap().recv_timeout(bound) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {bound:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout"),
        }
    }

    /// Waits for the server to exit, and its status; kills it past `bound`.
    fn exit_status(&mut self, bound: Duration) -> Option<i32> {
        exit_code_within(&mut self.child, self.proc, bound)
    }

    /// What the server wrote on stderr (started with it piped), once it
    /// has exited.
    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            stderr.read_to_string(&mut text).unwrap();
        }
        text
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        if !self.proc.gone() {
            self.child.kill().ok();
        }
        self.child.wait().ok();
    }
}

/// The exit code of `child` (`proc`, named when it started), once it has
/// exited within `bound`; `None` when it had to be killed.
fn exit_code_within(child: &mut Child, proc: Proc, bound: Duration) -> Option<i32> {
    let exited = proc.wait_gone(bound);
    if !exited {
        child.kill().ok();
    }
    let status = child.wait().unwrap();
    exited.then(|| status.code()).flatten()
}

/// An `initialize` request of id 0 from client `name`.
fn initialize_request(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": name, "version": "0"}}})
}

/// `jig --root EXAMPLE --tools TOOLS mcp MCP_ARGS`, to be given its stdio.
fn jig_mcp(tools: &std::path::Path, mcp_args: &[&str]) -> Command {
    let mut command = jig_on(tools);
    command.arg("mcp").args(mcp_args);
    command
}

/// `jig --root EXAMPLE --tools TOOLS`, a subcommand to be added.
fn jig_on(tools: &std::path::Path) -> Command {
    let mut command = Command::new(JIG);
    command
        .arg("--root")
        .arg(example_root())
        .arg("--tools")
        .arg(tools);
    command
}

/// `jig mcp` on `tools` answering into `stdout`, its stdin ours to write
/// (its stderr piped, unread).
fn mcp_writing_into(tools: &std::path::Path, stdout: Stdio) -> (Child, ChildStdin) {
    let mut child = jig_mcp(tools, &[])
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    (child, stdin)
}

fn text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn closing_stdin_cancels_the_calls_still_running_after_the_grace() {
    let mut server = Raw::start(&[], &[], Stdio::piped());
    server.call(1, "nap", json!({"seconds": 1}));
    let sleeper = wait_for(server.proc.pid, "sleep", 1, Duration::from_secs(10));
    assert_eq!(sleeper.len(), 1, "the nap command never started");
    let closed = Instant::now();
    drop(server.stdin.take());
    // The grace is 250 ms: the one-second nap is cancelled, and answered so.
    let answer = server.recv(Duration::from_secs(3));
    assert_eq!(answer["id"], 1);
    assert!(text(&answer).contains("cancelled"), "{answer}");
    assert!(sleeper[0].wait_gone(Duration::from_secs(2)));
    assert!(
        closed.elapsed() < Duration::from_millis(900),
        "{:?}",
        closed.elapsed()
    );
    assert_eq!(server.exit_status(Duration::from_secs(5)), Some(0));
    // Said at the default level: work of the client's was stopped.
    let stderr = server.stderr();
    assert!(
        stderr.contains("WARN")
            && stderr.contains("the client closed its input")
            && stderr.contains("cancelled the calls in flight cancelled=1"),
        "{stderr}"
    );
}

/// A termination signal cancels the calls in flight, each answered so
/// under its id while stdout is read, and the server exits 0 at once.
#[test]
fn a_termination_signal_answers_the_cancelled_calls() {
    use nix::sys::signal::Signal;
    for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let mut server = Raw::start(&[], &[], Stdio::piped());
        server.call(1, "nap", json!({"seconds": 60}));
        server.call(2, "nap", json!({"seconds": 60}));
        let sleepers = wait_for(server.proc.pid, "sleep", 2, Duration::from_secs(10));
        assert_eq!(sleepers.len(), 2, "{signal}: the naps never started");
        let pid = nix::unistd::Pid::from_raw(i32::try_from(server.proc.pid).unwrap());
        nix::sys::signal::kill(pid, signal).unwrap();
        let mut ids: Vec<u64> = (0..2)
            .map(|_| {
                let answer = server.recv(Duration::from_secs(3));
                assert!(text(&answer).contains("cancelled"), "{signal}: {answer}");
                answer["id"].as_u64().unwrap()
            })
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, [1, 2], "{signal}");
        for sleeper in sleepers {
            assert!(sleeper.wait_gone(Duration::from_secs(2)), "{signal}");
        }
        assert_eq!(
            server.exit_status(Duration::from_secs(3)),
            Some(0),
            "{signal}"
        );
        let stderr = server.stderr();
        assert!(
            stderr.contains(&format!(
                "stopping on {signal}: cancelled the calls in flight cancelled=2"
            )),
            "{signal}: {stderr}"
        );
    }
}

#[test]
fn a_broken_stdout_cancels_every_call_at_once() {
    let mut server = Raw::start(&[], &[], Stdio::piped());
    server.call(1, "nap", json!({"seconds": 60}));
    server.call(2, "nap", json!({"seconds": 60}));
    let sleepers = wait_for(server.proc.pid, "sleep", 2, Duration::from_secs(10));
    assert_eq!(sleepers.len(), 2);
    // Close our end of stdout; stdin stays open. The next answer breaks.
    // The reader thread lets go of the pipe at the next answer; the one
    // after it meets EPIPE.
    drop(server.lines.take());
    for id in 10..2000 {
        if server.stdin.as_mut().is_none() {
            break;
        }
        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        let stdin = server.stdin.as_mut().unwrap();
        if stdin.write_all(format!("{ping}\n").as_bytes()).is_err() {
            break;
        }
        if sleepers.iter().all(|s| s.gone()) {
            break;
        }
    }
    for sleeper in sleepers {
        assert!(
            sleeper.wait_gone(Duration::from_secs(3)),
            "a call outlived stdout"
        );
    }
    assert_eq!(server.exit_status(Duration::from_secs(5)), Some(0));
    let stderr = server.stderr();
    assert!(
        stderr.contains(
            "the client closed the server's output: cancelled the calls in flight cancelled=2"
        ),
        "{stderr}"
    );
}

/// The client closes stdout's other end while a call runs and writes
/// nothing more: no answer is due to fail, yet the call is cancelled at
/// once (it ran to its end before) and the server ends.
#[test]
fn closing_stdout_while_a_call_runs_cancels_it_at_once() {
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let mut child = jig_mcp(tools.path(), &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let proc = Proc::of(child.id());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for message in [
        initialize_request("raw"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": 60}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""id":0"#), "{line}");
    let sleepers = wait_for(proc.pid, "sleep", 1, Duration::from_secs(10));
    assert_eq!(sleepers.len(), 1);
    drop(stdout);
    assert!(
        sleepers[0].wait_gone(Duration::from_secs(3)),
        "the call outlived stdout"
    );
    let code = exit_code_within(&mut child, proc, Duration::from_secs(5));
    drop(stdin);
    assert_eq!(code, Some(0), "the server outlived stdout");
}

/// A stdout that fails otherwise than by the client closing it (a full
/// disk, `/dev/full`) is a failure: said on stderr, exit status 1 (it was
/// taken for a client that left: status 0, nothing said).
#[test]
fn a_stdout_that_cannot_be_written_is_an_error() {
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let (child, mut stdin) = mcp_writing_into(tools.path(), Stdio::from(full));
    writeln!(stdin, "{}", initialize_request("raw")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write the answers to stdout: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn an_unread_stderr_never_stops_the_server() {
    // Trace logging writes several lines per message; stderr is a pipe
    // nobody reads (64 KiB fill it).
    let mut server = Raw::start(&[], &[("JIG_LOG", "trace")], Stdio::piped());
    for id in 1..=3000 {
        server.send_bytes(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","x":NaN}}"#).as_bytes(),
        );
        server.send(&json!({"jsonrpc": "2.0", "id": format!("p{id}"), "method": "ping"}));
    }
    for _ in 0..6000 {
        server.recv(Duration::from_secs(10));
    }
    let stderr = server.child.stderr.take();
    assert!(stderr.is_some());
}

#[test]
fn calls_beyond_the_bound_wait_and_pings_are_answered_at_once() {
    let mut server = Raw::start_with(&[], &["--max-in-flight", "2"], &[], Stdio::null());
    let start = Instant::now();
    for id in 1..=6 {
        server.call(id, "nap", json!({"seconds": 1}));
    }
    server.send(&json!({"jsonrpc": "2.0", "id": 100, "method": "ping"}));
    let pong = server.recv(Duration::from_secs(5));
    assert_eq!(pong["id"], 100, "{pong}");
    assert!(
        start.elapsed() < Duration::from_millis(800),
        "{:?}",
        start.elapsed()
    );
    let mut most = 0;
    let mut answered = 0;
    while answered < 6 {
        most = most.max(descendants(server.proc.pid, "sleep").len());
        if let Some(answer) = server.try_recv(Duration::from_millis(20)) {
            assert!(text(&answer).starts_with("exit: 0"), "{answer}");
            answered += 1;
        }
        assert!(start.elapsed() < Duration::from_secs(15));
    }
    assert!(most <= 2, "{most} commands ran at once");
    assert!(
        start.elapsed() >= Duration::from_millis(2900),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn unread_answers_pause_reading_with_bounded_memory() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    let baseline = status_mib(server.proc.pid, "VmRSS");
    let mut stdin = server.stdin.take().unwrap();
    // Nobody reads the answers while 60,000 pings go in.
    let writer = std::thread::spawn(move || {
        for id in 0..60_000 {
            let ping = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            if writeln!(stdin, "{ping}").is_err() {
                return None;
            }
        }
        Some(stdin)
    });
    std::thread::sleep(Duration::from_secs(2));
    let held = status_mib(server.proc.pid, "VmRSS");
    assert!(
        held < baseline + 16.0,
        "{baseline:.1} MiB grew to {held:.1} MiB"
    );
    for id in 0..60_000 {
        assert_eq!(server.recv(Duration::from_secs(10))["id"], id);
    }
    server.stdin = writer.join().unwrap();
}

#[test]
fn no_answer_is_as_large_as_the_request_it_answers() {
    // An answer quotes what the client sent (an id, a method, a tool name,
    // a cursor): bounded, the answers waiting for a client that does not
    // read hold little whatever the requests held.
    let mut server = Raw::start(&[], &[], Stdio::null());
    let big = "A".repeat(3 << 20);
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": big, "method": "ping"}),
            Value::Null,
            Some(-32600),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": big}),
            json!(1),
            Some(-32601),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": big}}),
            json!(2),
            Some(-32602),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": big, "arguments": {}}}),
            json!(3),
            None,
        ),
        (
            json!({"jsonrpc": "2.0", "id": {"a": big}, "method": "ping"}),
            Value::Null,
            Some(-32600),
        ),
    ];
    for (request, id, code) in cases {
        server.send(&request);
        let answer = server.recv(Duration::from_secs(10));
        let size = answer.to_string().len();
        assert!(size < 4096, "an answer of {size} bytes");
        assert_eq!(answer["id"], id, "{answer}");
        match code {
            Some(code) => assert_eq!(answer["error"]["code"], code, "{answer}"),
            None => assert_eq!(answer["result"]["isError"], true, "{answer}"),
        }
    }
    // An id of the largest size taken comes back whole.
    let largest = "B".repeat(64 * 1024);
    server.send(&json!({"jsonrpc": "2.0", "id": largest, "method": "ping"}));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], largest.as_str());
    assert!(answer["result"].is_object(), "{answer}");
}

#[test]
fn every_bad_line_gets_an_answer_and_the_server_goes_on() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    let mut deep = br#"{"jsonrpc":"2.0","id":9,"method":"ping","x":"#.to_vec();
    deep.extend([b'['; 200]);
    deep.extend([b']'; 200]);
    deep.push(b'}');
    let mut long = br#"{"jsonrpc":"2.0","id":10,"method":"ping","x":""#.to_vec();
    long.extend(std::iter::repeat_n(b'a', 17 << 20));
    long.extend(br#""}"#);
    // Over the limit, its id past the part of the line that is kept.
    let mut long_id_last = br#"{"jsonrpc":"2.0","method":"ping","x":""#.to_vec();
    long_id_last.extend(std::iter::repeat_n(b'a', 17 << 20));
    long_id_last.extend(br#"","id":19}"#);
    let cases: Vec<(Vec<u8>, Value, i64)> = vec![
        (
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","x":"\xff"}"#.to_vec(),
            json!(3),
            -32700,
        ),
        (
            br#"{"jsonrpc":"2.0","id":4,"method":"ping","x":"\ud800"}"#.to_vec(),
            json!(4),
            -32700,
        ),
        (
            br#"{"jsonrpc":"2.0","id":5,"method":"ping","x":NaN}"#.to_vec(),
            json!(5),
            -32700,
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"method":"ping","x":1e999}"#.to_vec(),
            json!(6),
            -32700,
        ),
        (deep, json!(9), -32700),
        (long, json!(10), -32600),
        // Not JSON, and nothing tells which request it was: `id: null`.
        (
            br#"{"jsonrpc":"2.0","id":NaN,"method":"ping"}"#.to_vec(),
            Value::Null,
            -32700,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"ping","x":NaN,"id":"#.to_vec(),
            Value::Null,
            -32700,
        ),
        (long_id_last, Value::Null, -32600),
        (br#"{"id":11,"method":"ping"}"#.to_vec(), json!(11), -32600),
        (
            br#"{"jsonrpc":"1.0","id":12,"method":"ping"}"#.to_vec(),
            json!(12),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":13,"method":"tools/list","params":"x"}"#.to_vec(),
            json!(13),
            -32602,
        ),
        (
            br#"{"jsonrpc":"2.0","id":14,"method":5}"#.to_vec(),
            json!(14),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"arguments":{}}}"#
                .to_vec(),
            json!("s"),
            -32602,
        ),
        (br#"[]"#.to_vec(), Value::Null, -32600),
        (
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.to_vec(),
            Value::Null,
            -32600,
        ),
        // A number too large for an id of this server: answered under it.
        (
            br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#.to_vec(),
            json!(18_446_744_073_709_551_615_u64),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_vec(),
            json!(1.5),
            -32600,
        ),
        // A method this server does not answer, whatever its parameters.
        (
            br#"{"jsonrpc":"2.0","id":16,"method":"resources/list"}"#.to_vec(),
            json!(16),
            -32601,
        ),
        (
            br#"{"jsonrpc":"2.0","id":17,"method":"no/such","params":[1]}"#.to_vec(),
            json!(17),
            -32601,
        ),
        // A cursor this server never gave (it lists every tool at once).
        (
            br#"{"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"cursor":"zz"}}"#.to_vec(),
            json!(18),
            -32602,
        ),
        // A known method with bad parameters, not an unknown method.
        (
            br#"{"jsonrpc":"2.0","id":15,"method":"initialize","params":{}}"#.to_vec(),
            json!(15),
            -32602,
        ),
    ];
    for (line, id, code) in cases {
        // Malformed notifications first, JSON or not: never answered.
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 5}));
        server.send_bytes(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":NaN}}"#,
        );
        server.send_bytes(&line);
        let answer = server.recv(Duration::from_secs(10));
        let shown = String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned();
        assert_eq!(answer["id"], id, "{shown}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{shown}: {answer}");
    }
    // A number id that a double only approximates is answered under the
    // id as written (parsed, both sides would read the same double).
    for written in [
        "123456789012345678901234567890",
        "1e3",
        "0.10000000000000000000001",
    ] {
        server.send_bytes(
            format!(r#"{{"jsonrpc":"2.0","id":{written},"method":"ping"}}"#).as_bytes(),
        );
        let line = server.recv_line(Duration::from_secs(10));
        assert!(
            line.contains(&format!(r#""id":{written},"#)),
            "{written}: {line}"
        );
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["error"]["code"], -32600, "{line}");
    }
    server.call(20, "nap", json!({"seconds": 0}));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 20);
    assert!(text(&answer).starts_with("exit: 0"), "{answer}");
}

/// A batch (a line holding an array of messages, which MCP 2025-03-26
/// clients may send) gets one line back: the array of its requests'
/// answers, each under its id (a member that is no message under `null`);
/// its notifications get none, and a batch of only those no line at all.
/// A member call the client cancels is not waited for. An oversized batch
/// is refused whole, and the server goes on.
#[test]
fn a_batch_gets_one_array_of_its_answers() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    server.send_bytes(
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{"seconds":0}}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},5,{"jsonrpc":"2.0","id":3,"method":"no/such"},[{"jsonrpc":"2.0","id":4,"method":"ping"}]]"#,
    );
    let answers = server.recv(Duration::from_secs(10));
    let answers = answers.as_array().unwrap_or_else(|| panic!("{answers}"));
    let mut ids: Vec<String> = answers.iter().map(|a| a["id"].to_string()).collect();
    ids.sort();
    assert_eq!(ids, ["1", "2", "3", "null", "null"], "{answers:?}");
    for answer in answers {
        match answer["id"].as_u64() {
            Some(1) => assert_eq!(answer["result"], json!({}), "{answer}"),
            Some(2) => assert!(text(answer).starts_with("exit: 0"), "{answer}"),
            Some(3) => assert_eq!(answer["error"]["code"], -32601, "{answer}"),
            _ => assert_eq!(answer["error"]["code"], -32600, "{answer}"),
        }
    }
    // Only notifications: no line; the next answer is the ping's.
    server.send_bytes(
        br#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98}}]"#,
    );
    server.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "ping"}));
    assert_eq!(server.recv(Duration::from_secs(10))["id"], 10);
    // A member call cancelled by the client: the batch comes without it,
    // long before the call would have ended.
    let start = Instant::now();
    server.send_bytes(
        br#"[{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"nap","arguments":{"seconds":30}}},{"jsonrpc":"2.0","id":21,"method":"ping"}]"#,
    );
    std::thread::sleep(Duration::from_millis(300));
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 20}}),
    );
    let answers = server.recv(Duration::from_secs(10));
    assert_eq!(answers, json!([{"jsonrpc": "2.0", "id": 21, "result": {}}]));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    // More members than a batch may hold: refused whole, under null.
    let pings: Vec<Value> = (100..165)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
        .collect();
    server.send(&Value::Array(pings));
    let refused = server.recv(Duration::from_secs(10));
    assert_eq!(refused["id"], Value::Null, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 64"),
        "{refused}"
    );
    server.call(30, "nap", json!({"seconds": 0}));
    assert_eq!(server.recv(Duration::from_secs(10))["id"], 30);
}

/// A seeded stream of mixed lines (requests good and bad, calls, batches,
/// cancellations of earlier ids, values that are no message, lines cut
/// short) from a fixed generator: every request of a whole line is answered
/// under its id, alone or in its batch's array, but calls the client
/// cancelled; every line written is JSON; the server exits 0 at the end.
#[test]
fn a_mixed_stream_gets_every_answer_it_is_owed() {
    /// xorshift64: the same stream at every run.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }
    fn junk(rng: &mut Rng, depth: u32) -> Value {
        match rng.below(if depth > 2 { 3 } else { 5 }) {
            0 => json!(null),
            1 => [json!("x"), json!(1.5), json!(-1), json!(true)][rng.below(4) as usize].clone(),
            2 => json!(""),
            3 => Value::Array((0..rng.below(3)).map(|_| junk(rng, depth + 1)).collect()),
            _ => {
                let keys = ["id", "method", "params", "jsonrpc", "name", "arguments"];
                let mut object = serde_json::Map::new();
                for _ in 0..rng.below(4) {
                    let key = keys[rng.below(6) as usize].to_owned();
                    object.insert(key, junk(rng, depth + 1));
                }
                Value::Object(object)
            }
        }
    }
    let mut server = Raw::start(&[], &[], Stdio::null());
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let (mut owed, mut cancelled) = (Vec::new(), Vec::new());
    let mut next = 1000_u64;
    let mut message = |rng: &mut Rng, cancelled: &mut Vec<u64>| {
        next += 1;
        let id = next;
        let (message, answered) = match rng.below(7) {
            0 | 1 => (json!({"jsonrpc": "2.0", "id": id, "method": "ping"}), true),
            2 => {
                let seconds = [json!(0), json!("x"), json!(-1)][rng.below(3) as usize].clone();
                let arguments = json!({"seconds": seconds});
                let params = json!({"name": "nap", "arguments": arguments});
                (
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
                    true,
                )
            }
            3 => {
                let name = ["nap", "none"][rng.below(2) as usize];
                let params = json!({"name": name, "arguments": junk(rng, 1)});
                (
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
                    true,
                )
            }
            4 => {
                let target = 1000 + rng.below(id - 1000);
                cancelled.push(target);
                let params = json!({"requestId": target});
                (
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}),
                    false,
                )
            }
            5 => (junk(rng, 0), false),
            _ => {
                let method = ["tools/list", "no/such", "initialize"][rng.below(3) as usize];
                (
                    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": junk(rng, 1)}),
                    true,
                )
            }
        };
        let mut owes = Vec::new();
        if answered {
            owes.push(id);
        }
        (message, owes)
    };
    for _ in 0..300 {
        let (line, owes) = if rng.below(10) < 3 {
            let members: Vec<(Value, Vec<u64>)> = (0..1 + rng.below(5))
                .map(|_| message(&mut rng, &mut cancelled))
                .collect();
            let owes = members.iter().flat_map(|(_, owes)| owes.clone()).collect();
            (
                Value::Array(members.into_iter().map(|(m, _)| m).collect()).to_string(),
                owes,
            )
        } else {
            let (m, owes) = message(&mut rng, &mut cancelled);
            (m.to_string(), owes)
        };
        if rng.below(20) == 0 {
            // Cut short: owed nothing for sure (an id may still be read).
            let cut = rng.below(line.len() as u64) as usize;
            server.send_bytes(&line.as_bytes()[..cut]);
        } else {
            owed.extend(owes);
            server.send_bytes(line.as_bytes());
        }
    }
    drop(server.stdin.take());
    let mut answered = std::collections::HashSet::new();
    while let Ok(line) = server
        .lines
        .as_ref()
        .unwrap()
        .recv_timeout(Duration::from_secs(20))
    {
        let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        for answer in value
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![value.clone()])
        {
            if let Some(id) = answer["id"].as_u64() {
                answered.insert(id);
            }
        }
    }
    let missing: Vec<u64> = owed
        .iter()
        .copied()
        .filter(|id| !answered.contains(id) && !cancelled.contains(id))
        .collect();
    assert!(missing.is_empty(), "no answer for {missing:?}");
    assert!(owed.len() > 250, "{}", owed.len());
    assert_eq!(server.exit_status(Duration::from_secs(20)), Some(0));
}

/// A client that leaves out the newline between two messages loses
/// neither: each gets its answer under its id, and what follows the last
/// value that parses gets a parse error. A line of countless values gets a
/// bounded number of answers.
#[test]
fn messages_sharing_a_line_are_each_answered() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    server.send_bytes(
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{"seconds":0}}} {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}{"jsonrpc":"2.0","id":3,"method":"ping"}trailing"#,
    );
    let mut answers: Vec<Value> = (0..4)
        .map(|_| server.recv(Duration::from_secs(10)))
        .collect();
    answers.sort_by_key(|answer| answer["id"].as_u64().unwrap_or(0));
    assert_eq!(answers[0]["id"], Value::Null, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700, "{answers:?}");
    assert_eq!(answers[1]["id"], 1, "{answers:?}");
    assert!(answers[1]["result"].is_object(), "{answers:?}");
    assert_eq!(answers[2]["id"], 2, "{answers:?}");
    assert!(text(&answers[2]).starts_with("exit: 0"), "{answers:?}");
    assert_eq!(answers[3]["id"], 3, "{answers:?}");
    assert!(answers[3]["result"].is_object(), "{answers:?}");
    // A million numbers: 64 answered as invalid, the rest one parse error.
    server.send_bytes(&b"1 ".repeat(1 << 20));
    server.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}));
    let mut errors = 0;
    loop {
        let answer = server.recv(Duration::from_secs(10));
        if answer["id"] == 9 {
            break;
        }
        assert_eq!(answer["id"], Value::Null, "{answer}");
        errors += 1;
    }
    assert_eq!(errors, 65);
}

#[test]
fn bad_arguments_get_32602_with_guidance_and_a_json_string_is_accepted() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    for (id, arguments) in [
        (1, json!("[1]")),
        (2, json!([1])),
        (3, json!(7)),
        (4, json!("no")),
    ] {
        server.call(id, "nap", arguments);
        let answer = server.recv(Duration::from_secs(10));
        assert_eq!(answer["id"], id);
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("must be a JSON object"), "{message}");
    }
    server.call(5, "nap", json!(r#"{"seconds": 0}"#));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 5);
    assert!(text(&answer).starts_with("exit: 0"), "{answer}");
}

#[test]
fn a_duplicate_in_flight_id_is_refused_and_the_call_runs_once() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    server.call(7, "nap", json!({"seconds": 1}));
    assert_eq!(
        wait_for(server.proc.pid, "sleep", 1, Duration::from_secs(10)).len(),
        1
    );
    server.call(7, "nap", json!({"seconds": 1}));
    let refusal = server.recv(Duration::from_secs(1));
    assert_eq!(refusal["id"], 7);
    assert_eq!(refusal["error"]["code"], -32600, "{refusal}");
    assert_eq!(descendants(server.proc.pid, "sleep").len(), 1);
    let result = server.recv(Duration::from_secs(5));
    assert_eq!(result["id"], 7);
    assert!(text(&result).starts_with("exit: 0"), "{result}");
}

/// A call's answer is written by the thread that ran it (rmcp's copy of
/// it is dropped): each call, one at a time, is answered at once (an answer
/// left unflushed would never come), once, under its id, an id reused
/// after its answer included; a burst of calls gets exactly one answer
/// each, and none carries the server's internal marker.
#[test]
fn each_call_gets_one_answer_at_once() {
    // A grace long enough for the last calls on a busy machine: this case
    // is about the answers, not the grace.
    let mut server = Raw::start_with(&[], &["--eof-grace-ms", "10000"], &[], Stdio::null());
    for round in 0..10 {
        // The same id every other round: reused once answered.
        let id = if round % 2 == 0 { 5 } else { 100 + round };
        server.call(id, "nap", json!({"seconds": 0}));
        let answer = server.recv(Duration::from_secs(10));
        assert_eq!(answer["id"], id, "{answer}");
        assert!(text(&answer).starts_with("exit: 0"), "{answer}");
    }
    for id in 1000..1030 {
        server.call(id, "nap", json!({"seconds": 0}));
    }
    // The end of input: the server answers what it has, then exits.
    drop(server.stdin.take());
    let mut ids = Vec::new();
    while let Some(answer) = server.try_recv(Duration::from_secs(20)) {
        assert!(!answer.to_string().contains("_meta"), "{answer}");
        assert!(text(&answer).starts_with("exit: 0"), "{answer}");
        ids.push(answer["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (1000..1030).collect::<Vec<_>>());
    assert_eq!(server.exit_status(Duration::from_secs(10)), Some(0));
}

/// Stdin a pipe is read on the runtime's thread, anything else by a
/// reader thread: the same requests from a regular file get the same
/// answers, each line split across reads in a pipe too.
#[test]
fn requests_from_a_file_or_a_pipe_get_the_same_answers() {
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let mut requests = String::new();
    for message in [
        initialize_request("file"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "nap", "arguments": {"seconds": 0}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    ] {
        requests.push_str(&message.to_string());
        requests.push_str("\r\n\n");
    }
    requests.push_str(r#"{"jsonrpc": "2.0", "id": 3, "method": "ping"}"#);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &requests).unwrap();
    let answers = |stdin: Stdio, feed: Option<&str>| {
        let mut child = jig_mcp(tools.path(), &[])
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if let Some(feed) = feed {
            let mut stdin = child.stdin.take().unwrap();
            // A few bytes at a time: lines end across reads.
            for chunk in feed.as_bytes().chunks(7) {
                stdin.write_all(chunk).unwrap();
                stdin.flush().unwrap();
            }
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        let mut ids: Vec<(Value, bool)> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .map(|answer| (answer["id"].clone(), answer.get("result").is_some()))
            .collect();
        ids.sort_by_key(|(id, _)| id.as_u64());
        ids
    };
    let expected: Vec<(Value, bool)> = (0..4).map(|id| (json!(id), true)).collect();
    assert_eq!(answers(Stdio::from(file.reopen().unwrap()), None), expected);
    assert_eq!(answers(Stdio::piped(), Some(&requests)), expected);
}

/// A notification or a response before `initialize` is ignored: rmcp,
/// handed one, ended the session, and the server exited without a word.
#[test]
fn a_notification_or_response_before_initialize_is_ignored() {
    let mut server = Raw::spawn(&[], &[], &[], Stdio::null());
    // `initialize` requests refused (by the framing layer or by rmcp) do not
    // start the session either.
    for bad in [
        json!({"jsonrpc": "2.0", "id": 91, "method": "initialize"}),
        json!({"jsonrpc": "2.0", "id": 92, "method": "initialize", "params": {"protocolVersion": 5}}),
        json!({"jsonrpc": "1.0", "id": 93, "method": "initialize", "params": {}}),
    ] {
        server.send(&bad);
        let answer = server.recv(Duration::from_secs(10));
        assert!(answer.get("error").is_some(), "{answer}");
    }
    for line in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
        json!({"jsonrpc": "2.0", "method": "vendor/anything"}),
        json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
        json!({"jsonrpc": "2.0", "id": 10, "error": {"code": 1, "message": "x"}}),
    ] {
        server.send(&line);
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(!server.proc.gone(), "the server exited before initialize");
    server.initialize();
    server.call(1, "nap", json!({"seconds": 0}));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(text(&answer).starts_with("exit: 0"), "{answer}");
}

/// A client that forgot `initialize` is told so, under its request's id,
/// and the session still starts afterwards; a request of the lifecycle
/// without `initialize` (its `_meta` names a version) is rmcp's to answer.
#[test]
fn a_call_before_initialize_is_told_to_initialize_first() {
    let mut server = Raw::spawn(&[], &[], &[], Stdio::null());
    server.call(1, "nap", json!({"seconds": 0}));
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    for id in [1, 2] {
        let answer = server.recv(Duration::from_secs(10));
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("send initialize first"), "{answer}");
    }
    server.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2025-06-18"}}}),
    );
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 3, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.contains("send initialize first"), "{answer}");
    server.initialize();
    server.call(4, "nap", json!({"seconds": 0}));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 4, "{answer}");
    assert!(text(&answer).starts_with("exit: 0"), "{answer}");
}

/// Cancelling requests that are answered at once (`ping`, `tools/list`)
/// cancels nothing: each is answered. Handed to rmcp, a cancellation that
/// came before the answer made rmcp drop it, and the request's room never
/// came back: after 64 of them the server read nothing more, and did not
/// exit at the end of its input.
#[test]
fn cancelling_quick_requests_never_uses_up_their_room() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    let mut burst = Vec::new();
    for id in 1..=200 {
        // The id as a float names the same request to rmcp.
        let cancelled = if id % 3 == 0 {
            json!(f64::from(id))
        } else {
            json!(id)
        };
        for message in [
            json!({"jsonrpc": "2.0", "id": id, "method": if id % 2 == 0 { "ping" } else { "tools/list" }}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": cancelled}}),
        ] {
            burst.extend(message.to_string().bytes());
            burst.push(b'\n');
        }
    }
    burst.extend(br#"{"jsonrpc": "2.0", "id": "after", "method": "ping"}"#);
    server.send_bytes(&burst);
    let mut answered = std::collections::BTreeSet::new();
    loop {
        let answer = server.recv(Duration::from_secs(20));
        if answer["id"] == "after" {
            break;
        }
        assert!(answer.get("result").is_some(), "{answer}");
        answered.insert(answer["id"].as_u64().unwrap());
    }
    assert_eq!(answered.len(), 200);
    drop(server.stdin.take());
    assert_eq!(server.exit_status(Duration::from_secs(10)), Some(0));
}

/// A client that sends more than the server takes at once, closes its
/// input and reads no answer: reading is paused for room that never comes,
/// and the end of input lies unread behind the paused lines. The server
/// sees the pipe's other end close, waits the grace, and exits 0.
#[test]
fn a_client_that_closes_its_input_and_reads_nothing_does_not_hold_the_server() {
    let mut server = Raw::start_with(&[], &["--eof-grace-ms", "300"], &[], Stdio::null());
    server.hold_answers(true);
    let mut burst = Vec::new();
    for id in 1..=400 {
        burst.extend(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
                .to_string()
                .bytes(),
        );
        burst.push(b'\n');
    }
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The server may stop reading part way: a broken pipe is fine.
        let _ = stdin.write_all(&burst);
    });
    assert_eq!(
        server.exit_status(Duration::from_secs(15)),
        Some(0),
        "the server kept running with its input closed and its answers unread"
    );
    writer.join().unwrap();
}

/// The same, with lines the framing layer answers itself (not JSON): the
/// wait for stdout, not for room, is where the server stood.
#[test]
fn a_client_that_closes_its_input_after_bad_lines_and_reads_nothing_does_not_hold_it() {
    let mut server = Raw::start_with(&[], &["--eof-grace-ms", "300"], &[], Stdio::null());
    server.hold_answers(true);
    let burst = b"x\n".repeat(5000);
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&burst);
    });
    assert_eq!(server.exit_status(Duration::from_secs(15)), Some(0));
    writer.join().unwrap();
}

/// A one-shot client that sends more calls than the server takes at once,
/// closes its input and reads every answer: each request gets one, the
/// calls still running after the grace as cancelled and those not started
/// as not started; none is dropped as if nobody read.
#[test]
fn a_one_shot_client_with_more_calls_than_room_gets_every_answer() {
    let mut server = Raw::start_with(
        &[],
        &[
            "--max-in-flight",
            "2",
            "--max-queued",
            "2",
            "--eof-grace-ms",
            "200",
        ],
        &[],
        Stdio::null(),
    );
    let mut burst = Vec::new();
    for id in 1..=10 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "nap", "arguments": {"seconds": 5}}});
        burst.extend(call.to_string().bytes());
        burst.push(b'\n');
    }
    server.send_bytes(&burst);
    drop(server.stdin.take());
    let mut ids = Vec::new();
    for _ in 1..=10 {
        let answer = server.recv(Duration::from_secs(20));
        assert!(text(&answer).contains("cancelled"), "{answer}");
        ids.push(answer["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (1..=10).collect::<Vec<_>>());
    assert_eq!(server.exit_status(Duration::from_secs(10)), Some(0));
}

/// Stdin a socket whose peer shuts its side down (no hangup, only "read
/// side closed"): seen like a pipe's end while reading is paused.
#[test]
fn a_socket_input_shut_down_while_paused_is_seen() {
    use std::os::unix::net::UnixStream;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    let grace = [
        "--max-in-flight",
        "1",
        "--max-queued",
        "0",
        "--eof-grace-ms",
        "200",
    ];
    let mut child = jig_mcp(tools.path(), &grace)
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let proc = Proc::of(child.id());
    let mut lines = Vec::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "s", "version": "0"}}});
    for message in std::iter::once(initialize).chain((1..=3).map(|id| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "nap", "arguments": {"seconds": 60}}})
    })) {
        lines.extend(message.to_string().bytes());
        lines.push(b'\n');
    }
    ours.write_all(&lines).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    ours.shutdown(std::net::Shutdown::Write).unwrap();
    let ended = proc.wait_gone(Duration::from_secs(15));
    if !ended {
        child.kill().ok();
    }
    let status = child.wait().unwrap();
    assert!(ended, "the server did not see its input end");
    assert_eq!(status.code(), Some(0));
}

/// Sets the non-blocking flag on the open file `fd` stands for (shared
/// with whoever else holds it, as a client's end and the server's are).
fn make_non_blocking(fd: &impl std::os::fd::AsFd) {
    let flags = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_GETFL).unwrap();
    let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETFL(flags)).unwrap();
}

/// The ids of the answers in `text`, one JSON object a line.
fn answered_ids(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|answer| answer["id"].as_u64())
        .collect()
}

/// `initialize`, then `tools/list` with ids `1..=count`, as lines.
fn listing_requests(count: u64) -> Vec<u8> {
    let mut lines = Vec::new();
    for id in 0..=count {
        let message = if id == 0 {
            initialize_request("nonblocking")
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
        };
        lines.extend(message.to_string().bytes());
        lines.push(b'\n');
    }
    lines
}

/// A client whose end of the server's stdout is non-blocking (the flag
/// belongs to the pipe's end, shared with the server) and that stops
/// reading until the pipe is full: the server waits, as with a blocking
/// stdout, and every answer arrives once the client reads (it ended with
/// "Resource temporarily unavailable" after 35 answers).
#[test]
fn a_non_blocking_stdout_that_fills_up_waits_for_the_client() {
    use std::io::Read;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let (mut reader, writer) = std::io::pipe().unwrap();
    make_non_blocking(&writer);
    let (mut child, mut input) = mcp_writing_into(tools.path(), Stdio::from(writer));
    input.write_all(&listing_requests(400)).unwrap();
    // Unread, the answers fill the pipe (each lists the tool: 400 of them
    // are several times what a pipe holds).
    std::thread::sleep(Duration::from_millis(1500));
    let alive = !Proc::of(child.id()).gone();
    let proc = Proc::of(child.id());
    drop(input);
    let mut text = String::new();
    let _ = reader.read_to_string(&mut text);
    let code = exit_code_within(&mut child, proc, Duration::from_secs(10));
    assert!(alive, "the server ended while its stdout was full");
    assert_eq!(answered_ids(&text), (0..=400).collect::<Vec<_>>());
    assert_eq!(code, Some(0));
}

/// Stdin and stdout non-blocking sockets (the flag on the client's shared
/// end): no input yet is not the end of the input (it was, at once), and a
/// full stdout waits.
#[test]
fn non_blocking_socket_stdio_serves_the_whole_session() {
    use std::io::Read;
    use std::os::unix::net::UnixStream;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let (mut input, their_input) = UnixStream::pair().unwrap();
    let (mut output, their_output) = UnixStream::pair().unwrap();
    their_input.set_nonblocking(true).unwrap();
    their_output.set_nonblocking(true).unwrap();
    let mut child = jig_mcp(tools.path(), &[])
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(their_input)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(their_output)))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let proc = Proc::of(child.id());
    // Nothing to read for a while, then the requests, unread for a while.
    std::thread::sleep(Duration::from_millis(300));
    input.write_all(&listing_requests(300)).unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let call = json!({"jsonrpc": "2.0", "id": 301, "method": "tools/call",
                      "params": {"name": "nap", "arguments": {"seconds": 0}}});
    input.write_all(format!("{call}\n").as_bytes()).unwrap();
    input.shutdown(std::net::Shutdown::Write).unwrap();
    let mut text = String::new();
    output
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = output.read_to_string(&mut text);
    let code = exit_code_within(&mut child, proc, Duration::from_secs(10));
    assert_eq!(answered_ids(&text), (0..=301).collect::<Vec<_>>());
    assert_eq!(code, Some(0));
}

/// Stdin the write end of a pipe: nothing can be read from it, and the
/// server says so and exits (reopened as a read end, it waited for good).
#[test]
fn stdin_that_is_a_write_end_ends_the_server() {
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = jig_mcp(tools.path(), &[])
        .stdin(Stdio::from(writer))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let proc = Proc::of(child.id());
    let code = exit_code_within(&mut child, proc, Duration::from_secs(10));
    drop(reader);
    assert_eq!(code, Some(0), "the server waited on its own pipe");
}

/// A client that closes its input, then reads the answers slowly: every
/// answer, whole, however long it takes (the server waits as long as
/// stdout takes bytes); one that reads nothing lets the server go soon.
#[test]
fn a_slow_reader_after_the_end_of_input_gets_every_answer_whole() {
    let mut server = Raw::start_with(&[], &["--eof-grace-ms", "100"], &[], Stdio::null());
    server.hold_answers(true);
    let mut burst = Vec::new();
    for id in 1..=120 {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        burst.extend(request.to_string().bytes());
        burst.push(b'\n');
    }
    server.send_bytes(&burst);
    drop(server.stdin.take());
    std::thread::sleep(Duration::from_millis(300));
    let mut ids = Vec::new();
    for _ in 1..=120 {
        // One answer per 30 ms: slower than the grace lets a whole pipe go.
        server.hold_answers(false);
        let answer = server.recv(Duration::from_secs(20));
        server.hold_answers(true);
        assert!(answer.get("result").is_some(), "{answer}");
        ids.push(answer["id"].as_u64().unwrap());
        std::thread::sleep(Duration::from_millis(30));
    }
    server.hold_answers(false);
    ids.sort_unstable();
    assert_eq!(ids, (1..=120).collect::<Vec<_>>());
    assert_eq!(server.exit_status(Duration::from_secs(10)), Some(0));
    // Nobody reading: gone within a few seconds (before, waits of five
    // seconds each added up past ten).
    let mut server = Raw::start_with(&[], &["--eof-grace-ms", "100"], &[], Stdio::null());
    server.hold_answers(true);
    for id in 1..=60 {
        server.call(id, "many_lines", json!({"count": 3000}));
    }
    drop(server.stdin.take());
    let started = Instant::now();
    assert_eq!(server.exit_status(Duration::from_secs(20)), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
}

/// In the lifecycle without `initialize` (a request whose `_meta` names
/// the protocol version and the client's capabilities), the session starts
/// with that request: a cancellation is taken, not dropped as sent before
/// the session.
#[test]
fn a_session_without_initialize_takes_cancellations() {
    let mut server = Raw::spawn(&[], &[], &[], Stdio::null());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "nap", "arguments": {"seconds": 60}, "_meta": meta}}));
    let nap = || descendants(server.proc.pid, "sleep");
    let deadline = Instant::now() + Duration::from_secs(10);
    while nap().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let naps = nap();
    assert_eq!(naps.len(), 1, "the call did not start");
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1}}),
    );
    assert!(
        naps[0].wait_gone(Duration::from_secs(5)),
        "the call was not cancelled"
    );
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"_meta": meta}}));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 2, "{answer}");
}

/// An id reused as soon as its answer came (JSON-RPC allows it, MCP asks
/// clients not to) is a new request each time: never refused as in flight,
/// never left unanswered. A call's answer is written before rmcp lets its
/// id go; the new request waits for that, not for a refusal or for rmcp to
/// cancel it under the old one's id.
#[test]
fn an_id_reused_once_answered_gets_its_own_answer() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    for round in 0..150 {
        if round % 3 == 2 {
            server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        } else {
            server.call(1, "nap", json!({"seconds": 0}));
        }
        let answer = server.recv(Duration::from_secs(10));
        assert_eq!(answer["id"], 1, "round {round}: {answer}");
        assert!(answer.get("error").is_none(), "round {round}: {answer}");
        if round % 3 != 2 {
            assert!(
                text(&answer).starts_with("exit: 0"),
                "round {round}: {answer}"
            );
        }
    }
    drop(server.stdin.take());
    assert_eq!(server.exit_status(Duration::from_secs(10)), Some(0));
}

/// Sixty running calls cancelled and their ids reused at once, then a
/// ping: each reuse waits only for its cancelled command to end (a fixed
/// wait per reuse held reading up for seconds, so that cancellations read
/// late let commands run to their end and be answered), each id gets the
/// one answer of its new request, and the ping comes soon.
#[test]
fn many_cancelled_ids_reused_at_once_hold_reading_up_briefly() {
    let mut server = Raw::start_with(&[], &["--max-in-flight", "64"], &[], Stdio::null());
    let count = 60;
    for id in 0..count {
        server.call(id, "nap", json!({"seconds": 30}));
    }
    let sleepers = wait_for(
        server.proc.pid,
        "sleep",
        count as usize,
        Duration::from_secs(20),
    );
    assert_eq!(sleepers.len(), count as usize);
    let mut burst = String::new();
    for id in 0..count {
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "test"}});
        let again = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": 0}}});
        burst.push_str(&format!("{cancel}\n{again}\n"));
    }
    burst.push_str(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}).to_string());
    let sent = Instant::now();
    server.send_bytes(burst.as_bytes());
    let mut answered = std::collections::BTreeMap::new();
    let mut ping = None;
    while answered.len() < count as usize || ping.is_none() {
        let answer = server.recv(Duration::from_secs(20));
        if answer["id"] == "after" {
            ping = Some(sent.elapsed());
            continue;
        }
        let id = answer["id"].as_u64().unwrap();
        assert!(text(&answer).starts_with("exit: 0"), "{answer}");
        assert!(
            answered.insert(id, answer).is_none(),
            "id {id} answered twice"
        );
    }
    let ping = ping.unwrap();
    // A wait of `HELD_AT_MOST` (one second) per reuse held it up for a
    // minute; a busy machine (the suite runs tests side by side) takes a
    // few seconds for sixty calls.
    assert!(
        ping < Duration::from_secs(6),
        "the ping came after {ping:?}"
    );
    for sleeper in sleepers {
        assert!(
            sleeper.wait_gone(Duration::from_secs(5)),
            "a cancelled call ran on"
        );
    }
    server.send(&json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}));
    assert_eq!(server.recv(Duration::from_secs(10))["id"], "last");
}

/// A cancellation names its request by the id as requests are read: a
/// `requestId` of `7.0` (a request of that id is refused) cancels nothing;
/// `7` cancels the call.
#[test]
fn a_cancellation_names_its_request_by_its_exact_id() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    server.call(7, "nap", json!({"seconds": 60}));
    let sleepers = wait_for(server.proc.pid, "sleep", 1, Duration::from_secs(10));
    assert_eq!(sleepers.len(), 1);
    let cancel = |id: Value| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "test"}})
    };
    server.send(&cancel(json!(7.0)));
    server.send(&json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    assert_eq!(server.recv(Duration::from_secs(10))["id"], 8);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !sleepers[0].gone(),
        "a requestId of 7.0 cancelled the call 7"
    );
    server.send(&cancel(json!(7)));
    assert!(
        sleepers[0].wait_gone(Duration::from_secs(5)),
        "the call outlived its cancellation"
    );
}

/// A client cancels a running call and at once reuses its id: the new
/// request runs and gets the one answer under that id (it was refused,
/// saying the id was in flight, or got the cancelled call's answer while
/// the new call was cancelled in its stead).
#[test]
fn reusing_the_id_of_a_cancelled_call_runs_the_new_request() {
    let mut server = Raw::start(&[], &[], Stdio::null());
    for round in 0..5 {
        server.call(5, "nap", json!({"seconds": 60}));
        assert_eq!(
            wait_for(server.proc.pid, "sleep", 1, Duration::from_secs(10)).len(),
            1,
            "round {round}: the call did not start"
        );
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 5, "reason": "test"}});
        let again = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": 0}}});
        server.send_bytes(format!("{cancel}\n{again}").as_bytes());
        let answer = server.recv(Duration::from_secs(10));
        assert_eq!(answer["id"], 5, "round {round}: {answer}");
        assert!(
            text(&answer).starts_with("exit: 0"),
            "round {round}: {answer}"
        );
        // Nothing more for id 5: a ping's answer comes next.
        server.send(&json!({"jsonrpc": "2.0", "id": 100 + round, "method": "ping"}));
        let next = server.recv(Duration::from_secs(10));
        assert_eq!(next["id"], 100 + round, "round {round}: {next}");
    }
}

/// A cancelled call, which gets no answer, gives its room back: with room
/// for two calls, three cancelled in a row leave the server taking a new
/// call and a ping at once.
#[test]
fn a_cancelled_call_gives_its_room_back() {
    let mut server = Raw::start_with(
        &[],
        &["--max-in-flight", "1", "--max-queued", "1"],
        &[],
        Stdio::null(),
    );
    for id in 1..=3 {
        server.call(id, "nap", json!({"seconds": 60}));
        assert_eq!(
            wait_for(server.proc.pid, "sleep", 1, Duration::from_secs(10)).len(),
            1,
            "call {id} did not start"
        );
        server.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "test"}}),
        );
        // Its command ends: the next one may start.
        let gone = Instant::now();
        while !descendants(server.proc.pid, "sleep").is_empty() {
            assert!(
                gone.elapsed() < Duration::from_secs(10),
                "call {id} outlived its cancellation"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    server.call(9, "nap", json!({"seconds": 0}));
    let answer = server.recv(Duration::from_secs(10));
    assert_eq!(answer["id"], 9, "{answer}");
    assert!(text(&answer).starts_with("exit: 0"), "{answer}");
    server.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "ping"}));
    assert_eq!(server.recv(Duration::from_secs(10))["id"], 10);
}

/// The threads of `pid` blocked in `write(2)` to its stdout (any
/// descriptor of the same pipe), by name.
fn threads_in_write(pid: u32) -> Vec<String> {
    let fd_target = |fd: &str| std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok();
    let Some(stdout) = fd_target("1") else {
        return Vec::new();
    };
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter(|task| {
            let Ok(call) = std::fs::read_to_string(task.path().join("syscall")) else {
                return false;
            };
            let mut fields = call.split_whitespace();
            let (Some("1"), Some(fd)) = (fields.next(), fields.next()) else {
                return false;
            };
            let fd = i64::from_str_radix(fd.trim_start_matches("0x"), 16).unwrap_or(-1);
            fd_target(&fd.to_string()).as_ref() == Some(&stdout)
        })
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|comm| comm.trim().to_owned())
        .collect()
}

#[test]
fn unread_call_answers_hold_up_only_the_writer() {
    // Answers of calls are written by the call's thread when stdout takes
    // them at once; once it does not (a client that stops reading), they
    // go to the writer, and only the writer waits on stdout.
    let mut server = Raw::start(&[], &[], Stdio::null());
    server.hold_answers(true);
    let mut stdin = server.stdin.take().unwrap();
    let calls = 3_000u64;
    let sender = std::thread::spawn(move || {
        for id in 1..=calls {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "many_lines", "arguments": {"count": 1}}});
            if writeln!(stdin, "{call}").is_err() {
                return None;
            }
        }
        Some(stdin)
    });
    // Until stdout is full and the calls in flight have ended: the writer
    // waits in `write`, and nothing else does.
    let start = Instant::now();
    let mut writing = threads_in_write(server.proc.pid);
    while writing.is_empty() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
        writing = threads_in_write(server.proc.pid);
    }
    std::thread::sleep(Duration::from_secs(1));
    let writing = threads_in_write(server.proc.pid);
    assert_eq!(writing, ["jig-mcp-out"], "threads waiting on stdout");
    server.hold_answers(false);
    let mut seen = std::collections::HashSet::new();
    for _ in 1..=calls {
        let answer = server.recv(Duration::from_secs(30));
        assert_eq!(text(&answer), "exit: 0\noutput: 1\n", "{answer}");
        assert!(seen.insert(answer["id"].as_u64().unwrap()), "{answer}");
    }
    server.stdin = sender.join().unwrap();
    server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
    assert_eq!(server.recv(Duration::from_secs(10))["id"], 0);
}

#[test]
fn a_big_output_keeps_the_servers_memory_bounded() {
    let budget: usize = 10 << 20;
    let mut server = Raw::start(&["--max-output", &budget.to_string()], &[], Stdio::null());
    server.call(1, "nap", json!({"seconds": 0}));
    server.recv(Duration::from_secs(10));
    let before = status_mib(server.proc.pid, "VmRSS");
    server.call(2, "many_lines", json!({"count": 3_000_000}));
    let answer = server.recv(Duration::from_secs(60));
    assert!(
        text(&answer).contains("2999999"),
        "{}",
        &text(&answer)[..100]
    );
    std::thread::sleep(Duration::from_millis(200));
    let peak = status_mib(server.proc.pid, "VmHWM");
    let after = status_mib(server.proc.pid, "VmRSS");
    let budget_mib = (budget >> 20) as f64;
    eprintln!("before {before:.1} MiB, peak {peak:.1} MiB, after {after:.1} MiB");
    assert!(
        after < before + 16.0,
        "{before:.1} MiB before, {after:.1} MiB after"
    );
    // The capture and its one rendering, nothing more (the answer is
    // serialized straight to stdout): about twice the budget.
    assert!(
        peak < before + 2.0 * budget_mib + 5.0,
        "peak {peak:.1} MiB, before {before:.1}: more than the capture and one rendering"
    );
}

/// Requests waiting for room are held parsed: `[0,0,...]` takes a whole
/// value per two bytes of text, sixteen times its length. Held requests
/// count as parsed, and a line of more values than a line may hold once
/// parsed is refused unread: the server's peak memory stays bounded
/// (before, forty such requests behind one running call took over 1 GiB).
#[test]
fn requests_of_many_small_values_keep_the_servers_memory_bounded() {
    let mut server = Raw::start_with(
        &[],
        &["--max-in-flight", "1", "--max-queued", "1000"],
        &[],
        Stdio::null(),
    );
    let before = status_mib(server.proc.pid, "VmRSS");
    server.call(1, "nap", json!({"seconds": 3}));
    std::thread::sleep(Duration::from_millis(300));
    let zeros = |n: usize| format!("[{}0]", "0,".repeat(n - 1));
    // Under the bound of a line (8 MiB once parsed), then over it.
    let under_bound = (8 << 20) / (std::mem::size_of::<Value>() + 2) - 100;
    let (under, over) = (zeros(under_bound), zeros(1_500_000));
    // Small objects: a map's tables and a member's place each besides the
    // value (held more than twice what was counted for them).
    let objects = format!("[{}{{\"a\":0}}]", "{\"a\":0},".repeat(36_000 - 1));
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for id in 10..70 {
            let values = match id {
                10..30 => &under,
                30..50 => &over,
                _ => &objects,
            };
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"nap","arguments":{{"seconds":{values}}}}}}}"#
            );
            if writeln!(stdin, "{line}").is_err() {
                return None;
            }
        }
        Some(stdin)
    });
    let mut answers = Vec::new();
    for _ in 0..61 {
        answers.push(server.recv(Duration::from_secs(60)));
    }
    server.stdin = writer.join().unwrap();
    let peak = status_mib(server.proc.pid, "VmHWM");
    eprintln!("before {before:.1} MiB, peak {peak:.1} MiB");
    // 64 MiB of requests held, three lines on their way (8 MiB each once
    // parsed), and what the allocator keeps.
    assert!(
        peak < before + 128.0,
        "peak {peak:.1} MiB, {before:.1} MiB before"
    );
    // Refused unread, each under its id (read from the line's start).
    let refused_unread = answers
        .iter()
        .filter(|a| a["id"].as_u64().is_some_and(|id| (30..70).contains(&id)))
        .filter(|a| a["error"]["code"] == -32600)
        .filter(|a| {
            a["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("JSON values"))
        })
        .count();
    assert_eq!(refused_unread, 40, "{answers:?}");
    for id in 10..30 {
        assert!(answers.iter().any(|a| a["id"] == id), "no answer for {id}");
    }
    server.call(2, "nap", json!({"seconds": 0}));
    assert!(text(&server.recv(Duration::from_secs(10))).starts_with("exit: 0"));
}

/// `jig call` of a 60-second nap, with stdin `input` when given.
fn jig_call(tools: &tempfile::TempDir, args: &[&str]) -> Command {
    let mut command = jig_on(tools.path());
    command
        .arg("call")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// `jig call` printing a long result into a non-blocking stdout that its
/// reader leaves full for a while: it waits and prints it whole (it ended
/// with "cannot write the result: Resource temporarily unavailable").
#[test]
fn jig_call_waits_for_a_full_non_blocking_stdout() {
    use std::io::Read;
    const COUNT: &str = r#"{"name": "count_to", "description": "Print 1 to N",
        "command": "seq {count}",
        "arguments": {"count": {"type": "number", "description": "N", "required": true}}}"#;
    let tools = tools_dir(&[("count_to.tool.json", COUNT)]);
    let (mut reader, writer) = std::io::pipe().unwrap();
    make_non_blocking(&writer);
    let mut child = jig_call(&tools, &["count_to", r#"{"count": 100000}"#])
        .args(["--max-output", "1000000"])
        .stdout(Stdio::from(writer))
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{}", &text[..text.len().min(200)]);
    assert!(
        text.starts_with("exit: 0\noutput: 1\n2\n"),
        "{}",
        &text[..text.len().min(200)]
    );
    assert!(
        text.ends_with("\n99999\n100000\n"),
        "{}",
        &text[text.len().saturating_sub(200)..]
    );
}

/// `jig parse` and `jig call NAME -` reading a non-blocking stdin whose
/// writer is late: they wait for the input and its end (they failed with
/// "Resource temporarily unavailable" at once).
#[test]
fn parse_and_call_wait_for_a_non_blocking_stdin() {
    use std::io::Read;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let inputs: [(&[&str], &str, &str); 2] = [
        (
            &["parse"],
            r#"{"name": "nap", "arguments": {"seconds": 0}}"#,
            r#""name":"nap""#,
        ),
        (&["call", "nap", "-"], r#"{"seconds": 0}"#, "exit: 0"),
    ];
    for (args, text, expected) in inputs {
        let (reader, mut writer) = std::io::pipe().unwrap();
        make_non_blocking(&reader);
        let mut child = jig_on(tools.path())
            .args(args)
            .stdin(Stdio::from(reader))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        writer.write_all(&text.as_bytes()[..5]).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        writer.write_all(&text.as_bytes()[5..]).unwrap();
        drop(writer);
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {out}{err}");
        assert!(out.contains(expected), "{args:?}: {out}{err}");
    }
}

/// Sends `signal` to a running `jig` once its nap has started; asserts
/// that the nap is gone within 3 s and `jig` within 5 s, and returns what
/// `jig` printed.
fn signal_during_the_nap(child: Child, signal: nix::sys::signal::Signal) -> std::process::Output {
    let jig = Proc::of(child.id());
    let sleeper = wait_for(jig.pid, "sleep", 1, Duration::from_secs(10));
    assert_eq!(sleeper.len(), 1, "{signal}: the nap never started");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(jig.pid).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
    assert!(
        sleeper[0].wait_gone(Duration::from_secs(3)),
        "{signal}: the command outlived jig"
    );
    assert!(
        jig.wait_gone(Duration::from_secs(5)),
        "{signal}: jig did not exit"
    );
    child.wait_with_output().unwrap()
}

#[test]
fn jig_call_ends_its_command_on_termination_signals() {
    use nix::sys::signal::Signal;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    for (signal, status) in [
        (Signal::SIGINT, 130),
        (Signal::SIGTERM, 143),
        (Signal::SIGHUP, 129),
    ] {
        let child = jig_call(&tools, &["nap", r#"{"seconds": 60}"#])
            .spawn()
            .unwrap();
        let output = signal_during_the_nap(child, signal);
        assert_eq!(output.status.code(), Some(status), "{signal}");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains("cancelled"),
            "{signal}"
        );
    }
}

#[test]
fn jig_agent_ends_its_command_on_termination_signals() {
    use nix::sys::signal::Signal;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    for (signal, status) in [
        (Signal::SIGINT, 130),
        (Signal::SIGTERM, 143),
        (Signal::SIGHUP, 129),
    ] {
        // The model asks for a one-minute nap, then (never reached) is done.
        let server = Server::start(vec![
            Reply::text(r#"{"name": "nap", "arguments": {"seconds": 60}}"#),
            Reply::text(r#"{"name": "done", "arguments": {"answer": "rested"}}"#),
        ]);
        let child = Command::new(JIG)
            .arg("--root")
            .arg(example_root())
            .arg("--tools")
            .arg(tools.path())
            .args(["agent", "--endpoint", &server.url(), "--model", "m", "rest"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = signal_during_the_nap(child, signal);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("stopped by {signal}")),
            "{signal}: {stderr}"
        );
        // The model was asked once: the loop stopped with the command.
        assert_eq!(server.finish().len(), 1, "{signal}");
    }
}

/// A termination signal while `jig agent` waits on the model ends it at
/// once: no command runs, nothing is waited for.
#[test]
fn jig_agent_waiting_on_the_model_exits_at_once_on_a_signal() {
    use nix::sys::signal::Signal;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    // A model that accepts the connection and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let child = Command::new(JIG)
        .arg("--root")
        .arg(example_root())
        .arg("--tools")
        .arg(tools.path())
        .args(["agent", "--endpoint", &url, "--model", "m", "rest"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (_connection, _) = listener.accept().unwrap();
    let jig = Proc::of(child.id());
    let pid = nix::unistd::Pid::from_raw(i32::try_from(jig.pid).unwrap());
    let sent = Instant::now();
    nix::sys::signal::kill(pid, Signal::SIGTERM).unwrap();
    assert!(
        jig.wait_gone(Duration::from_secs(2)),
        "jig did not exit within 2 s of SIGTERM"
    );
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    // the bound a command gets is 3 s: this one was not waited for
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "{:?}",
        sent.elapsed()
    );
}

#[test]
fn jig_call_refuses_stdin_over_the_limit() {
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let big = format!(r#"{{"seconds": 0, "x": "{}"}}"#, "a".repeat(2 << 20));
    // The limit raised in the configuration file, and lowered again by the
    // option, which wins.
    let config = tempfile::tempdir().unwrap();
    let config_file = config.path().join("config.toml");
    std::fs::write(&config_file, "[call]\nmax_stdin_bytes = 4000000\n").unwrap();
    let config_file = config_file.to_str().unwrap();
    for (args, status) in [
        (&["nap", "-"][..], 1),
        (&["nap", "-", "--max-stdin-bytes", "4000000"][..], 2),
        (&["nap", "-", "--config", config_file][..], 2),
        (
            &[
                "nap",
                "-",
                "--config",
                config_file,
                "--max-stdin-bytes",
                "1000",
            ][..],
            1,
        ),
    ] {
        let mut child = jig_call(&tools, args)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let big = big.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(big.as_bytes());
        });
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{args:?}: {stderr}");
        if status == 1 {
            assert!(stderr.contains("--max-stdin-bytes"), "{stderr}");
        }
    }
}

#[test]
fn invalid_utf8_arguments_are_refused_with_620() {
    use std::os::unix::ffi::OsStrExt;
    let tools = tools_dir(&[("nap.tool.json", NAP)]);
    let bad = b"{\"seconds\": \"\xff\"}";
    let argv = jig_call(&tools, &["--json", "nap"])
        .arg(std::ffi::OsStr::from_bytes(bad))
        .output()
        .unwrap();
    let mut piped = jig_call(&tools, &["--json", "nap", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    piped.stdin.take().unwrap().write_all(bad).unwrap();
    let piped = piped.wait_with_output().unwrap();
    for output in [argv, piped] {
        assert_eq!(output.status.code(), Some(2));
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["code"], 620, "{report}");
        assert!(
            report["message"].as_str().unwrap().contains("UTF-8"),
            "{report}"
        );
    }
}
