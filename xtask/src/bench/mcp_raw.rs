//! A minimal MCP client over stdio, written for the benchmarks: JSON lines
//! in and out, `initialize`, then `tools/call` requests, one at a time or
//! many in flight. It costs next to nothing per call, so what it measures
//! is the server (the Python SDK client spends about 0.25 ms of its own
//! per call against a server that answers at once, and competes with the
//! server for the CPUs while it works, which flattens any ratio).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running MCP server and the two ends of its stdio.
pub(crate) struct RawServer {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

/// How a batch of calls went.
pub(crate) struct Batch {
    /// Wall-clock time from the first request written to the last answer.
    pub(crate) elapsed: Duration,
    /// Calls answered with `isError` or a JSON-RPC error.
    pub(crate) errors: usize,
    /// The text of one successful answer.
    pub(crate) sample: String,
}

impl RawServer {
    /// Starts `command` (program and arguments) with `env` added, and
    /// initializes the session.
    pub(crate) fn start(command: &[String], env: &[(&str, &str)]) -> Result<RawServer, String> {
        let (program, args) = command.split_first().ok_or("the server command is empty")?;
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{program}: {e}"))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the server's stdio is not piped".to_owned());
        };
        let mut server = RawServer {
            child,
            input: BufWriter::new(input),
            output: BufReader::new(output),
            next_id: 1,
        };
        server.send(&json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "jig-bench", "version": "1"}
            }
        }))?;
        server.flush()?;
        server.answer()?;
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        server.flush()?;
        Ok(server)
    }

    /// The server's pid.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        serde_json::to_writer(&mut self.input, message)
            .map_err(|e| format!("writing to the server: {e}"))?;
        self.input
            .write_all(b"\n")
            .map_err(|e| format!("writing to the server: {e}"))
    }

    fn flush(&mut self) -> Result<(), String> {
        self.input
            .flush()
            .map_err(|e| format!("writing to the server: {e}"))
    }

    /// The next answer (a message with an id), skipping notifications.
    fn answer(&mut self) -> Result<Value, String> {
        read_answer(&mut self.output)
    }

    fn request(&mut self, tool: &str, arguments: &Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}
        })
    }

    /// One call at a time: each call's latency.
    pub(crate) fn latencies(
        &mut self,
        tool: &str,
        arguments: &Value,
        count: usize,
    ) -> Result<(Vec<f64>, String), String> {
        let mut latencies = Vec::with_capacity(count);
        let mut sample = String::new();
        for _ in 0..count {
            let request = self.request(tool, arguments);
            let start = Instant::now();
            self.send(&request)?;
            self.flush()?;
            let answer = self.answer()?;
            latencies.push(start.elapsed().as_secs_f64() * 1000.0);
            if is_error(&answer) {
                return Err(format!("the call failed: {answer}"));
            }
            sample = text_of(&answer);
        }
        Ok((latencies, sample))
    }

    /// `total` calls cycling through `calls` (`[name, arguments]` pairs),
    /// `in_flight` of them outstanding at any time.
    pub(crate) fn batch(
        &mut self,
        calls: &[(&str, Value)],
        total: usize,
        in_flight: usize,
    ) -> Result<Batch, String> {
        if calls.is_empty() {
            return Err("no call to make".to_owned());
        }
        let requests: Vec<Value> = (0..total)
            .map(|i| {
                let (tool, arguments) = &calls[i % calls.len()];
                self.request(tool, arguments)
            })
            .collect();
        // The answers are read on a thread of their own, which hands back
        // one credit per answer: the writer never has more than
        // `in_flight` calls outstanding.
        let (credits, credit) = mpsc::channel::<Value>();
        let start = Instant::now();
        let batch = std::thread::scope(|scope| -> Result<Batch, String> {
            let (input, output) = (&mut self.input, &mut self.output);
            let reader = scope.spawn(move || -> Result<(), String> {
                for _ in 0..total {
                    let answer = read_answer(output)?;
                    if credits.send(answer).is_err() {
                        break;
                    }
                }
                Ok(())
            });
            let mut sent = 0;
            let mut answered = 0;
            let mut errors = 0;
            let mut sample = String::new();
            while answered < total {
                while sent < total && sent - answered < in_flight {
                    serde_json::to_writer(&mut *input, &requests[sent])
                        .map_err(|e| format!("writing to the server: {e}"))?;
                    input
                        .write_all(b"\n")
                        .map_err(|e| format!("writing to the server: {e}"))?;
                    sent += 1;
                }
                input
                    .flush()
                    .map_err(|e| format!("writing to the server: {e}"))?;
                let Ok(answer) = credit.recv() else {
                    break;
                };
                answered += 1;
                if is_error(&answer) {
                    errors += 1;
                } else if sample.is_empty() {
                    sample = text_of(&answer);
                }
            }
            let elapsed = start.elapsed();
            reader
                .join()
                .map_err(|_| "the answer reader panicked".to_owned())??;
            if answered < total {
                return Err(format!("{answered} of {total} calls were answered"));
            }
            Ok(Batch {
                elapsed,
                errors,
                sample,
            })
        })?;
        Ok(batch)
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads lines until a message with an `id` (an answer) comes.
fn read_answer(output: &mut BufReader<ChildStdout>) -> Result<Value, String> {
    let mut line = String::new();
    loop {
        line.clear();
        let read = output
            .read_line(&mut line)
            .map_err(|e| format!("reading the server: {e}"))?;
        if read == 0 {
            return Err("the server closed its output".to_owned());
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message.get("id").is_some() {
            return Ok(message);
        }
    }
}

/// Whether an answer is a JSON-RPC error or a tool error.
fn is_error(answer: &Value) -> bool {
    answer.get("error").is_some() || answer["result"]["isError"] == json!(true)
}

/// The text blocks of a `tools/call` answer, joined.
fn text_of(answer: &Value) -> String {
    answer["result"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| block["text"].as_str())
                .collect()
        })
        .unwrap_or_default()
}
