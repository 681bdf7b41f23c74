//! A scripted chat-completions server on 127.0.0.1: it answers each request
//! with the next scripted response, records what it received, and stops by
//! itself when the script is played, after a deadline, or when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long the server waits for requests at most.
const DEADLINE: Duration = Duration::from_secs(60);

/// One scripted answer: an HTTP status, a body and, for a redirect, where
/// to.
pub(crate) struct Reply {
    status: u16,
    body: String,
    location: Option<String>,
}

impl Reply {
    /// A 200 chat completion whose message is `content`.
    pub(crate) fn text(content: &str) -> Self {
        Self::completion(json!({"role": "assistant", "content": content}))
    }

    /// A 200 chat completion with native tool calls `(id, name, arguments
    /// text)` and no content.
    pub(crate) fn tool_calls(calls: &[(&str, &str, &str)]) -> Self {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, arguments)| {
                json!({"id": id, "type": "function",
                       "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        Self::completion(json!({"role": "assistant", "content": null, "tool_calls": calls}))
    }

    fn completion(message: Value) -> Self {
        let body = json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        });
        Self::raw(200, &body.to_string())
    }

    /// Any status and body.
    pub(crate) fn raw(status: u16, body: &str) -> Self {
        Self {
            status,
            body: body.to_owned(),
            location: None,
        }
    }

    /// A redirect (`status` 3xx) to `location`.
    pub(crate) fn redirect(status: u16, location: &str) -> Self {
        Self {
            location: Some(location.to_owned()),
            ..Self::raw(status, "")
        }
    }
}

/// A request the server received.
#[derive(Debug)]
pub(crate) struct Request {
    /// `POST /v1/chat/completions HTTP/1.1`
    pub(crate) line: String,
    /// Header names in lowercase, with their values.
    pub(crate) headers: Vec<(String, String)>,
    /// The body, as JSON.
    pub(crate) body: Value,
}

impl Request {
    /// The value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The running server.
pub(crate) struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Vec<Request>>>,
}

impl Server {
    /// Starts a server that plays `script`, one reply per request.
    pub(crate) fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || serve(&listener, script, &flag));
        Self {
            port,
            stop,
            thread: Some(thread),
        }
    }

    /// The base URL, as a user passes it: `http://127.0.0.1:PORT/v1`.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Stops the server and returns the requests it received.
    pub(crate) fn finish(mut self) -> Vec<Request> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .take()
            .map(|thread| thread.join().unwrap())
            .unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(listener: &TcpListener, script: Vec<Reply>, stop: &AtomicBool) -> Vec<Request> {
    let start = Instant::now();
    let mut requests = Vec::new();
    let mut script = script.into_iter();
    let mut next = script.next();
    while let Some(reply) = &next {
        if stop.load(Ordering::SeqCst) || start.elapsed() > DEADLINE {
            break;
        }
        match listener.accept() {
            Ok((stream, _)) => {
                if let Some(request) = answer(stream, reply) {
                    requests.push(request);
                    next = script.next();
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => break,
        }
    }
    requests
}

/// Reads one request from `stream` and writes `reply`.
fn answer(stream: TcpStream, reply: &Reply) -> Option<Request> {
    stream.set_nonblocking(false).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let mut stream = reader.into_inner();
    let reason = if reply.status == 200 { "OK" } else { "Error" };
    let location = reply
        .location
        .as_ref()
        .map(|to| format!("Location: {to}\r\n"))
        .unwrap_or_default();
    let response = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         {location}Connection: close\r\n\r\n{}",
        reply.status,
        reply.body.len(),
        reply.body
    );
    stream.write_all(response.as_bytes()).ok()?;
    stream.flush().ok()?;
    Some(Request {
        line: line.trim_end().to_owned(),
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}
