//! The framing layer in front of rmcp: it reads stdin line by line, answers
//! every line that is not a usable message itself, and hands rmcp only typed
//! messages, through an in-process channel (see [`ChannelTransport`]).
//!
//! Why a layer of our own: rmcp's stdio transport ignores a line it cannot
//! parse (invalid UTF-8, a lone surrogate, `NaN`, `1e999`, nesting deeper
//! than 128, an over-long line) and answers a well-formed but invalid
//! message without its `id`. Here:
//!
//! - a line that is not JSON gets `-32700` with `id: null`; a line over the
//!   limit gets `-32600` with `id: null` and is never held in memory, and so
//!   does a line whose values would take more than [`held_at_most`] once
//!   parsed (it is never parsed);
//! - a request (it has a `method` and an `id`) always gets an answer with its
//!   `id`: `-32600` for a bad envelope, `-32602` for bad parameters (with
//!   guidance for `tools/call` `arguments`; a string holding a JSON object is
//!   accepted, as `jig call` accepts it), `-32600` for an id already in
//!   flight (the client then sees two responses for that id: this error and,
//!   later, the running call's result), `-32600` saying to send
//!   `initialize` first for `tools/list` or `tools/call` before the session
//!   (rmcp would ask for the `_meta` of the lifecycle without `initialize`,
//!   which such a request may still carry);
//! - a batch (a JSON array of messages) is handled member by member, and
//!   answered with one array (see [`super::batch`]);
//! - a notification is never answered, even a malformed one; before
//!   `initialize`, notifications and responses are dropped (rmcp ends the
//!   session on one), and so is a cancellation of a request other than a
//!   running call (answered at once anyway: rmcp would drop that answer and
//!   its room would never come back);
//! - an id reused once its answer went out, or once the client cancelled
//!   its request, is a new request (it waits the moment rmcp takes to let
//!   the id go: when the call was answered early, or until the cancelled
//!   command has ended);
//! - a cancellation of a call is carried out here (its handler's token is
//!   cancelled), not handed to rmcp: the call's answer is dropped and its
//!   id given back as its handler ends;
//! - requests wait for room: at most `max_in_flight + max_queued` calls and
//!   [`OTHER_REQUESTS`] other requests are unanswered at once, holding at
//!   most `max_pending_bytes` of requests (as parsed: see `held_bytes`); reading pauses only when a
//!   request arrives that has no room (so pings and cancellations read
//!   before it are handled at once); once the client has closed its input
//!   (seen at the pipe, however much is unread), that pause lasts at most
//!   the grace.

use std::collections::HashMap;
use std::io::BufRead;
use std::os::fd::AsFd;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc, watch};

use super::McpOptions;
use super::batch::Batch;
use super::calls::Calls;
use super::salvage::{self, Envelope, Reply};

/// Requests other than `tools/call` that may be unanswered at once.
pub(crate) const OTHER_REQUESTS: usize = 64;

/// JSON-RPC's "parse error".
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "invalid request".
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "invalid params".
const INVALID_PARAMS: i64 = -32602;

/// The requests this server answers; any other method is not found,
/// whatever its parameters.
const METHODS: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];

/// The longest string id this server takes, in bytes. An id comes back in
/// its answer: with no bound, the answers waiting for a client that does
/// not read (64 of them) would each hold a line's worth of id.
pub(crate) const MAX_ID_BYTES: usize = 64 * 1024;

/// Characters of the client's own text (a method, a cursor, an id that is
/// no id) an error message quotes at most.
const QUOTED_CHARS: usize = 80;

/// `text` as an error message quotes it: its first [`QUOTED_CHARS`]
/// characters, and a note of how much more there was.
fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(QUOTED_CHARS).collect();
    if shown.len() < text.len() {
        shown.push_str(&format!("... ({} bytes in all)", text.len()));
    }
    shown
}

/// One line of input, as the reader thread hands it over.
pub(crate) enum Inbound {
    /// A line that is JSON, and the bytes it holds: its length, or what
    /// its values take in memory when that is more ([`held_bytes`]); and
    /// its `id` as written when that is a number the parser could only read
    /// approximately (see [`inexact_id`]).
    Json(Value, usize, Option<Box<str>>),
    /// A line that is not JSON: why, and what could be told of it.
    Unparsable(String, Envelope),
    /// A line longer than the limit: its length, and what could be told of
    /// its first [`SALVAGED_PREFIX`] bytes.
    TooLong(usize, Envelope),
    /// A line whose values would take more memory than [`held_at_most`]:
    /// about how much, and what could be told of it.
    TooManyValues(usize, Envelope),
}

/// What the writer writes: rmcp's messages and the framing layer's answers.
pub(crate) enum Outgoing {
    /// A message from rmcp.
    Rmcp(Box<TxJsonRpcMessage<RoleServer>>),
    /// A call's early answer (see `early`), its request already marked
    /// answered.
    Early(Box<TxJsonRpcMessage<RoleServer>>),
    /// An answer of the framing layer.
    Raw(Value),
    /// An answer of the framing layer, written out already (one line's
    /// JSON text, without its newline).
    Text(String),
    /// A batch's array of answers, written out already; what it held is
    /// freed once it is written (see [`Pending::batched`]).
    Batch(String),
}

/// A request id, as the pending table keys it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum IdKey {
    /// An integer id.
    Number(i64),
    /// A string id.
    Text(String),
}

impl IdKey {
    pub(crate) fn from_json(id: &Value) -> Option<Self> {
        match id {
            Value::Number(n) => n.as_i64().map(IdKey::Number),
            Value::String(s) if s.len() <= MAX_ID_BYTES => Some(IdKey::Text(s.clone())),
            _ => None,
        }
    }

    /// The id of a response or error rmcp sends, if it is one.
    pub(crate) fn of_response(message: &TxJsonRpcMessage<RoleServer>) -> Option<Self> {
        use rmcp::model::JsonRpcMessage;
        let id = match message {
            JsonRpcMessage::Response(response) => &response.id,
            JsonRpcMessage::Error(error) => error.id.as_ref()?,
            _ => return None,
        };
        Some(Self::of_request_id(id))
    }

    /// A request's id as rmcp holds it.
    pub(crate) fn of_request_id(id: &rmcp::model::RequestId) -> Self {
        use rmcp::model::NumberOrString;
        match id {
            NumberOrString::Number(n) => IdKey::Number(*n),
            NumberOrString::String(s) => IdKey::Text(s.to_string()),
        }
    }
}

/// What the framing layer and the writer share: the requests sent to rmcp
/// and not yet answered.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<PendingState>,
    /// Woken when a request is answered.
    answered: Notify,
    /// Woken when stdout takes bytes or a request is answered: the
    /// connection moves.
    progress: Notify,
    /// Set once the client is taken to read no more: answers still to come
    /// are dropped instead of waited for (see `ChannelTransport`, `early`).
    abandoned: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct PendingState {
    requests: HashMap<IdKey, Entry>,
    calls: usize,
    bytes: usize,
    /// The batch of each request handed to rmcp from a batch, until its
    /// answer is taken (see [`super::batch`]).
    batches: HashMap<IdKey, Arc<Batch>>,
    /// What the answers held by unfinished batches take, counted against
    /// `max_pending_bytes` with the requests.
    batched_bytes: usize,
}

/// One unanswered request.
struct Entry {
    /// A `tools/call`, which takes a call's room.
    call: bool,
    /// What it holds in memory ([`held_bytes`]), counted against
    /// `max_pending_bytes`.
    bytes: usize,
    /// When a call was answered early (see `early`): rmcp still holds its
    /// id until the handler's result reaches the transport; the room is
    /// free, the id not yet (a request reusing it waits, see
    /// [`Framer::request`]). Forgotten after [`HELD_AT_MOST`] all the same
    /// (a cancellation rmcp takes in the instant between the handler's end
    /// and its result drops that result).
    answered: Option<std::time::Instant>,
    /// A call the client cancelled: it gives its id back as soon as its
    /// command has ended, and a request reusing the id waits for that (see
    /// [`Framer::request`]).
    cancelled: bool,
    /// How to cancel the call's handler (its request's token, which rmcp
    /// handed it), once it has started.
    cancel: Option<Box<dyn Fn() + Send>>,
}

/// How long an id answered early stays taken at most.
const HELD_AT_MOST: std::time::Duration = std::time::Duration::from_secs(1);

impl PendingState {
    /// Forgets the calls answered early whose id rmcp should have let go
    /// long ago.
    fn forget_stale(&mut self) {
        self.requests.retain(|_, entry| {
            entry
                .answered
                .is_none_or(|answered| answered.elapsed() < HELD_AT_MOST)
        });
    }
}

impl Pending {
    fn state(&self) -> MutexGuard<'_, PendingState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets an answered request and wakes whoever waits for room.
    pub(crate) fn answered(&self, id: &IdKey) {
        let mut state = self.state();
        if let Some(entry) = state.requests.remove(id) {
            state.calls -= usize::from(entry.call);
            state.bytes -= entry.bytes;
            drop(state);
            self.answered.notify_waiters();
            self.progress.notify_waiters();
        }
    }

    /// Says the connection moved (stdout took bytes).
    pub(crate) fn progressed(&self) {
        self.progress.notify_waiters();
    }

    /// Takes the client as reading no more (see `abandoned`).
    pub(crate) fn abandon(&self) {
        self.abandoned
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the client was taken to read no more.
    pub(crate) fn is_abandoned(&self) -> bool {
        self.abandoned.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Waits for `wait` as long as the connection moves at least once per
    /// `patience` (stdout takes bytes, a request is answered); `None` when
    /// it stood still that long first.
    pub(crate) async fn while_moving<T>(
        &self,
        patience: std::time::Duration,
        wait: impl Future<Output = T>,
    ) -> Option<T> {
        tokio::pin!(wait);
        loop {
            let moved = self.progress.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            tokio::select! {
                done = &mut wait => return Some(done),
                () = moved => {}
                () = tokio::time::sleep(patience) => return None,
            }
        }
    }

    /// A call answered early: its room is free, its id stays taken until
    /// rmcp lets it go ([`answered`](Self::answered), when the handler's
    /// result reaches the transport).
    pub(crate) fn answered_early(&self, id: &IdKey) {
        let mut state = self.state();
        let state = &mut *state;
        if let Some(entry) = state.requests.get_mut(id)
            && entry.answered.is_none()
        {
            state.calls -= usize::from(entry.call);
            state.bytes -= entry.bytes;
            (entry.call, entry.bytes) = (false, 0);
            entry.answered = Some(std::time::Instant::now());
            self.answered.notify_waiters();
        }
    }

    /// How many requests are unanswered.
    pub(crate) fn len(&self) -> usize {
        self.state().requests.len()
    }

    /// How a request id stands: `None` when no unanswered request has it.
    fn standing(&self, id: &IdKey) -> Option<Standing> {
        let mut state = self.state();
        state.forget_stale();
        state.requests.get(id).map(|entry| match entry {
            Entry {
                answered: Some(_), ..
            } => Standing::AnsweredEarly,
            Entry {
                cancelled: true, ..
            } => Standing::Cancelled,
            Entry { call: true, .. } => Standing::Call,
            Entry { .. } => Standing::Other,
        })
    }

    /// Cancels a call for the client (see `Entry::cancelled`): its
    /// handler's token now, or as its handler starts.
    fn cancelling(&self, id: &IdKey) {
        if let Some(entry) = self.state().requests.get_mut(id) {
            entry.cancelled = true;
            if let Some(cancel) = &entry.cancel {
                cancel();
            }
        }
    }

    /// A call's handler starts: `cancel` cancels its request's token, at
    /// once when the client cancelled the call already.
    pub(crate) fn handling(&self, id: &IdKey, cancel: Box<dyn Fn() + Send>) {
        if let Some(entry) = self.state().requests.get_mut(id) {
            if entry.cancelled {
                cancel();
            }
            entry.cancel = Some(cancel);
        }
    }

    /// Records the request if there is room for it.
    fn try_add(&self, id: IdKey, call: bool, bytes: usize, options: &McpOptions) -> bool {
        let mut state = self.state();
        state.forget_stale();
        // Requests of every kind count against the bytes: a `ping` with a
        // long string for its id holds that string until it is answered.
        let within_bytes = state.requests.is_empty()
            || state.bytes + state.batched_bytes + bytes <= options.max_pending_bytes;
        let room = if call {
            state.calls < options.max_in_flight + options.max_queued && within_bytes
        } else {
            state.requests.len() - state.calls < OTHER_REQUESTS && within_bytes
        };
        if room {
            let answered = None;
            state.requests.insert(
                id,
                Entry {
                    call,
                    bytes,
                    answered,
                    cancelled: false,
                    cancel: None,
                },
            );
            state.calls += usize::from(call);
            state.bytes += bytes;
        }
        room
    }

    /// The request `id`, handed to rmcp from `batch`, has its answer
    /// taken into the batch (see [`batch_of`](Self::batch_of)).
    fn in_batch(&self, id: IdKey, batch: &Arc<Batch>) {
        batch.expect(id.clone());
        self.state().batches.insert(id, Arc::clone(batch));
    }

    /// The batch whose answer to `id` is waited for, taken: its answer
    /// goes into it instead of out on its own.
    pub(crate) fn batch_of(&self, id: &IdKey) -> Option<Arc<Batch>> {
        self.state().batches.remove(id)
    }

    /// Whether the answer to `id` goes into a batch.
    pub(crate) fn is_batched(&self, id: &IdKey) -> bool {
        self.state().batches.contains_key(id)
    }

    /// Counts `bytes` more held by unfinished batches, or (`held` false)
    /// freed by a batch written, which makes room.
    pub(crate) fn batched(&self, bytes: usize, held: bool) {
        let mut state = self.state();
        if held {
            state.batched_bytes += bytes;
        } else {
            state.batched_bytes = state.batched_bytes.saturating_sub(bytes);
            drop(state);
            self.answered.notify_waiters();
        }
    }

    /// The batches still waiting for an answer, taken (the connection
    /// ends).
    pub(crate) fn unfinished_batches(&self) -> Vec<Arc<Batch>> {
        let mut batches: Vec<Arc<Batch>> = Vec::new();
        for (_, batch) in self.state().batches.drain() {
            if !batches.iter().any(|known| Arc::ptr_eq(known, &batch)) {
                batches.push(batch);
            }
        }
        batches
    }

    /// Waits until nothing is unanswered.
    pub(crate) async fn drained(&self) {
        loop {
            let answered = self.answered.notified();
            tokio::pin!(answered);
            answered.as_mut().enable();
            if self.len() == 0 {
                return;
            }
            answered.await;
        }
    }
}

/// How an unanswered request's id stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// A `tools/call` in flight or waiting for a call slot.
    Call,
    /// Another request (`ping`, `tools/list`...), answered at once.
    Other,
    /// A call answered early whose id rmcp has not let go yet.
    AnsweredEarly,
    /// A call the client cancelled, whose command has not ended yet.
    Cancelled,
}

/// Reads stdin line by line on its own thread (a blocked read must never
/// hold up the runtime or its shutdown), parses each line and hands it over;
/// a full channel pauses the reading. Returns when input ends or the
/// receiver is gone. Used when stdin is not a pipe (see [`read_pipe`]).
pub(crate) fn read_lines(mut input: impl BufRead, lines: &mpsc::Sender<Inbound>, max_line: usize) {
    let mut partial = Partial::default();
    loop {
        let line = match read_line(&mut input, &mut partial, max_line) {
            Ok(line) => line,
            Err(error) => {
                tracing::warn!(%error, "cannot read stdin; treating it as closed");
                return;
            }
        };
        match partial.inbound(line, max_line) {
            Step::End => return,
            Step::Blank => {}
            Step::Lines(inbounds) => {
                for inbound in inbounds {
                    if lines.blocking_send(inbound).is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// Reads a pipe line by line on the runtime's own thread, as
/// [`read_lines`] reads stdin on a thread of its own: a client's request
/// then wakes the thread that handles it, not a reader that must wake it
/// in turn (a hand-over between processors that cost about 60 µs of each
/// call). `input` is non-blocking (see `cmd::mcp::own_pipe`), so a read
/// never holds up the runtime.
pub(crate) async fn read_pipe(
    input: tokio::net::unix::pipe::Receiver,
    lines: mpsc::Sender<Inbound>,
    max_line: usize,
) {
    let mut buffer = vec![0u8; 64 << 10];
    let (mut start, mut end) = (0, 0);
    let mut partial = Partial::default();
    loop {
        let line = if start < end {
            let (taken, line) = partial.take(&buffer[start..end], max_line);
            start += taken;
            match line {
                Some(line) => line,
                None => continue,
            }
        } else {
            let read = match input.readable().await {
                Ok(()) => input.try_read(&mut buffer),
                Err(error) => Err(error),
            };
            match read {
                Ok(0) => partial.end(max_line),
                Ok(read) => {
                    (start, end) = (0, read);
                    continue;
                }
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    continue;
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot read stdin; treating it as closed");
                    return;
                }
            }
        };
        match partial.inbound(line, max_line) {
            Step::End => return,
            Step::Blank => {}
            Step::Lines(inbounds) => {
                for inbound in inbounds {
                    if lines.send(inbound).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

enum Line {
    Complete,
    TooLong(usize),
    End,
}

/// What a line read is for the framing layer.
enum Step {
    /// Input ended.
    End,
    /// A line of only white space: skipped.
    Blank,
    /// A line to hand over: what it holds (one message, as a rule).
    Lines(Vec<Inbound>),
}

/// The bytes of a line over the limit kept to read its envelope from (see
/// [`Envelope`]): clients write `id` and `method` before `params`.
const SALVAGED_PREFIX: usize = 64 * 1024;

/// The line being read, across reads: at most `max + 2` of its bytes are
/// held (of a longer line, its first [`SALVAGED_PREFIX`] bytes; the rest is
/// dropped as it comes), and its length.
#[derive(Default)]
struct Partial {
    line: Vec<u8>,
    length: usize,
    /// Whether the last byte taken was a carriage return (a line ending in
    /// CR LF: the limit counts neither).
    cr: bool,
}

impl Partial {
    /// Takes the bytes of `available` up to and including its first
    /// newline; returns how many it took and, when they end the line, what
    /// the line is.
    fn take(&mut self, available: &[u8], max: usize) -> (usize, Option<Line>) {
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..=end], true),
            None => (available, false),
        };
        let taken = chunk.len();
        self.length = self.length.saturating_add(taken);
        // At most the limit, a carriage return and the newline are held.
        if self.length <= max.saturating_add(2) {
            self.line.extend_from_slice(chunk);
        } else {
            // Over the limit: only its first bytes are kept.
            let room = SALVAGED_PREFIX.saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..room.min(taken)]);
            if self.line.len() > SALVAGED_PREFIX {
                self.line.truncate(SALVAGED_PREFIX);
                self.line.shrink_to_fit();
            }
        }
        let content = if done { &chunk[..taken - 1] } else { chunk };
        if let Some(&last) = content.last() {
            self.cr = last == b'\r';
        }
        if !done {
            return (taken, None);
        }
        // The limit counts the line without its newline (nor the carriage
        // return before it).
        let length = self.length - 1 - usize::from(self.cr);
        let line = if length > max {
            Line::TooLong(length)
        } else {
            Line::Complete
        };
        (taken, Some(line))
    }

    /// Input ended: a last line without a newline counts as a line.
    fn end(&self, max: usize) -> Line {
        match self.length {
            0 => Line::End,
            n if n > max => Line::TooLong(n),
            _ => Line::Complete,
        }
    }

    /// The line read, parsed (unless its values would take more than
    /// [`held_at_most`] of a line at most `max` bytes long), and the state
    /// made ready for the next one (a line's buffer is kept for the next
    /// unless it was large).
    fn inbound(&mut self, line: Line, max: usize) -> Step {
        let step = match line {
            Line::End => Step::End,
            Line::TooLong(length) => {
                let prefix = self.line.get(..SALVAGED_PREFIX).unwrap_or(&self.line);
                let prefix = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
                Step::Lines(vec![Inbound::TooLong(length, Envelope::of(prefix))])
            }
            Line::Complete => {
                let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
                let held = held_before_parsing(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    Step::Blank
                } else if held > held_at_most(max) {
                    Step::Lines(vec![Inbound::TooManyValues(held, Envelope::of(text))])
                } else {
                    Step::Lines(values_of(text))
                }
            }
        };
        (self.length, self.cr) = (0, false);
        if self.line.capacity() > 1 << 20 {
            self.line = Vec::new();
        } else {
            self.line.clear();
        }
        step
    }
}

/// The most messages one batch may hold (see [`super::batch`]): what its
/// unfinished answers hold is bounded by it.
const MAX_BATCH: usize = 64;

/// The most JSON values read from one line (see [`values_of`]).
const MAX_VALUES_PER_LINE: usize = 64;

/// The JSON values a line holds, in order, each with the bytes it holds
/// (see [`held_bytes`]). A line holds one message; one that holds several
/// values one after another (`{...}{...}`: a client that left out a
/// newline) is read as those messages, none lost, and what follows the
/// last value that parses is a parse error of its own. Past
/// [`MAX_VALUES_PER_LINE`] values, the rest of the line is one parse error
/// (`1 1 1 ...` would otherwise be a million answers, and their values held
/// at once).
fn values_of(text: &[u8]) -> Vec<Inbound> {
    let mut values = Vec::with_capacity(1);
    let mut stream = serde_json::Deserializer::from_slice(text).into_iter::<Value>();
    let mut from = 0;
    while let Some(read) = stream.next() {
        if values.len() == MAX_VALUES_PER_LINE {
            values.push(Inbound::Unparsable(
                format!(
                    "more than {MAX_VALUES_PER_LINE} JSON values on one line; the rest of the \
                     line, from byte {from}, was dropped"
                ),
                Envelope::default(),
            ));
            break;
        }
        match read {
            Ok(value) => {
                let read = text.get(from..stream.byte_offset()).unwrap_or_default();
                from = stream.byte_offset();
                let held = held_bytes(&value).max(read.len());
                let id = inexact_id(&value, read);
                values.push(Inbound::Json(value, held, id));
            }
            Err(error) => {
                let rest = text.get(from..).unwrap_or_default();
                values.push(Inbound::Unparsable(error.to_string(), Envelope::of(rest)));
                break;
            }
        }
    }
    values
}

/// The `id` of the message `value` (read from `text`) as written, when it
/// is a number that a double only approximates: an integer past 64 bits
/// (`123456789012345678901234567890`) or a fraction with more digits than a
/// double keeps. Such an id is refused (see `IdKey`), and the refusal
/// carries it as its client wrote it, so that the client can match it.
fn inexact_id(value: &Value, text: &[u8]) -> Option<Box<str>> {
    let number = value.get("id").filter(|id| id.is_f64())?;
    let written = std::str::from_utf8(salvage::raw_id(text)?).ok()?;
    // What the walk found must be the very number the parser read.
    let same = serde_json::from_str::<Value>(written).is_ok_and(|read| read == *number);
    same.then(|| written.into())
}

/// The most memory a line of at most `max_line` bytes may take once
/// parsed: twice the line, and at least a MiB. A line of many small values
/// (`[0,0,0,...]`: two bytes of text each, a whole [`Value`] each once
/// parsed) would take up to about thirty-six times; it is refused unread.
pub(crate) fn held_at_most(max_line: usize) -> usize {
    max_line.saturating_mul(2).max(1 << 20)
}

/// What one member of an object takes besides its value: its key (a
/// `String`, its bytes at least an allocation's minimum) and its place in
/// the map (a hash and an index).
const MEMBER: usize = std::mem::size_of::<String>() + 2 * std::mem::size_of::<usize>();
/// The least a string's bytes take on the heap (an allocation's minimum).
const STRING_AT_LEAST: usize = 32;
/// What a map takes besides its members: its two tables' allocations.
const MAP: usize = 96;

/// About how much memory the JSON text takes once parsed, read before it is
/// parsed (see [`held_at_most`]): a whole [`Value`] for each value (one, and
/// one more for each comma and opening bracket outside strings), a map's
/// tables for each opening brace, a member's place for each colon, and an
/// allocation for each string.
fn held_before_parsing(text: &[u8]) -> usize {
    let value = std::mem::size_of::<Value>();
    let (mut held, mut in_string, mut escaped) = (value + text.len(), false, false);
    for &byte in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else {
            held += match byte {
                b'"' => {
                    in_string = true;
                    STRING_AT_LEAST
                }
                b',' | b'[' => value,
                b'{' => value + MAP,
                b':' => MEMBER,
                _ => 0,
            };
        }
    }
    held
}

/// About how much memory `value` holds once parsed, which is what a request
/// waiting for room costs: a small value (`0,`, two bytes of text) takes a
/// whole [`Value`] (the array's room for it counted), a member its key and
/// its place in the map, a string its bytes (at least an allocation).
/// Counted against `max_pending_bytes` rather than the text's length, so
/// that a request of many small values cannot hold many times the bound.
fn held_bytes(value: &Value) -> usize {
    let string = |text: &str| {
        if text.is_empty() {
            0
        } else {
            text.len().max(STRING_AT_LEAST)
        }
    };
    let mut held = std::mem::size_of::<Value>();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => held += string(text),
            Value::Array(items) => {
                held += items.capacity() * std::mem::size_of::<Value>();
                stack.extend(items);
            }
            Value::Object(members) => {
                held += MAP;
                for (key, member) in members {
                    held += std::mem::size_of::<Value>() + MEMBER + string(key);
                    stack.push(member);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    held
}

/// One line into `partial` (with its newline, when it has one), never
/// holding more than `max` bytes of it: the rest of a longer line is read
/// and dropped. A last line without a newline counts as a line.
fn read_line(input: &mut impl BufRead, partial: &mut Partial, max: usize) -> std::io::Result<Line> {
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok(partial.end(max));
        }
        let (taken, line) = partial.take(available, max);
        input.consume(taken);
        if let Some(line) = line {
            return Ok(line);
        }
    }
}

/// Why the framing layer stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The client closed stdin.
    InputClosed,
    /// Stdout is broken: nothing can be delivered any more.
    OutputClosed,
    /// rmcp stopped taking messages.
    ServiceStopped,
    /// The client closed its input while reading was paused for room, and
    /// no room came within the grace: it reads no answers either.
    InputAbandoned,
}

/// The framing layer: routes each line to rmcp or answers it, until input
/// ends, stdout breaks or rmcp stops.
pub(crate) struct Framer {
    pub(crate) lines: mpsc::Receiver<Inbound>,
    pub(crate) to_rmcp: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    pub(crate) out: mpsc::Sender<Outgoing>,
    pub(crate) pending: Arc<Pending>,
    pub(crate) broken: watch::Receiver<bool>,
    /// Set once the client has closed its input (the pipe's other end),
    /// however much of it is still unread: see [`watch_hangup`].
    pub(crate) hangup: watch::Receiver<bool>,
    pub(crate) calls: Arc<Calls>,
    pub(crate) options: McpOptions,
    /// Whether a request that starts rmcp's session was handed over (see
    /// [`starts_session`]): before it, rmcp ends the session on a
    /// notification or a response, which are dropped here instead.
    pub(crate) started: bool,
    /// The protocol versions the server supports (rmcp starts a session
    /// from a request that names one in its `_meta`).
    pub(crate) versions: Vec<rmcp::model::ProtocolVersion>,
    /// Set once the client closed its input and no room came within the
    /// grace: what ran was cancelled, and each call read since is answered
    /// without running.
    pub(crate) draining: std::sync::atomic::AtomicBool,
    /// The batch whose members are being routed: the framing layer's own
    /// answers go into it (see [`super::batch`]).
    pub(crate) batch: Option<Arc<Batch>>,
}

impl Framer {
    /// Runs until the connection ends, and says why.
    pub(crate) async fn run(mut self) -> Ending {
        let mut broken = self.broken.clone();
        loop {
            let inbound = tokio::select! {
                biased;
                _ = broken.wait_for(|broken| *broken) => return Ending::OutputClosed,
                inbound = self.lines.recv() => inbound,
            };
            let Some(inbound) = inbound else {
                return Ending::InputClosed;
            };
            let routed = tokio::select! {
                biased;
                _ = broken.wait_for(|broken| *broken) => return Ending::OutputClosed,
                routed = self.route(inbound) => routed,
            };
            if let Err(ending) = routed {
                return ending;
            }
        }
    }

    /// Answers `id` with a JSON-RPC error.
    async fn answer(&self, id: Value, code: i64, message: String) -> Result<(), Ending> {
        tracing::debug!(%id, code, %message, "answering a bad request");
        let error =
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        self.write(error).await
    }

    /// Answers the request whose id is `written` (a JSON number, as its
    /// client wrote it: see [`inexact_id`]) with a JSON-RPC error.
    async fn answer_as_written(
        &self,
        written: &str,
        code: i64,
        message: String,
    ) -> Result<(), Ending> {
        tracing::debug!(id = written, code, %message, "answering a bad request");
        let error = json!({"code": code, "message": message});
        let line = format!(r#"{{"jsonrpc":"2.0","id":{written},"error":{error}}}"#);
        self.send(Outgoing::Text(line)).await
    }

    /// Answers a line refused unread: under its request's id when that
    /// could be read, not at all when it is a notification or a response
    /// (see [`Envelope::reply`]), under `id: null` otherwise.
    async fn refuse(&self, envelope: Envelope, code: i64, message: String) -> Result<(), Ending> {
        match envelope.reply() {
            Reply::To(id) => self.answer(id, code, message).await,
            Reply::Null => self.answer(Value::Null, code, message).await,
            Reply::Silent => {
                tracing::debug!(%message, "not answering a refused notification or response");
                Ok(())
            }
        }
    }

    /// Hands `message` to the writer (see [`within_grace`](Self::within_grace)).
    async fn write(&self, message: Value) -> Result<(), Ending> {
        self.send(Outgoing::Raw(message)).await
    }

    /// Queues `message` for the writer; while a batch's members are
    /// routed, adds it to the batch instead.
    async fn send(&self, message: Outgoing) -> Result<(), Ending> {
        if let Some(batch) = &self.batch {
            let text = match message {
                Outgoing::Raw(value) => value.to_string(),
                Outgoing::Text(text) | Outgoing::Batch(text) => text,
                Outgoing::Rmcp(message) | Outgoing::Early(message) => {
                    serde_json::to_string(&message).unwrap_or_default()
                }
            };
            self.pending.batched(text.len() + 1, true);
            batch.add(text);
            return Ok(());
        }
        self.send_out(message).await
    }

    /// Queues `message` for the writer, in a batch or not.
    async fn send_out(&self, message: Outgoing) -> Result<(), Ending> {
        self.within_grace(self.out.send(message))
            .await?
            .map_err(|_| Ending::OutputClosed)
    }

    /// Answers a call read after the client closed its input and the server
    /// stopped its calls (see `draining`): it does not run.
    async fn not_started(&self, id: Value) -> Result<(), Ending> {
        let text = "cancelled before it started: the client closed its input; nothing ran";
        let result = json!({"content": [{"type": "text", "text": text}], "isError": true});
        self.write(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await
    }

    /// Waits for `wait`: for good while the client's input is open; once it
    /// is closed (seen at the pipe, however much of it is unread), as long
    /// as the connection moves (stdout takes a line, a request is
    /// answered) at least once a grace. A client that closed its input and
    /// reads no answers would otherwise hold the server for good, waiting
    /// for room or for stdout; one that reads slowly is waited for.
    async fn within_grace<T>(&self, wait: impl Future<Output = T>) -> Result<T, Ending> {
        let mut hangup = self.hangup.clone();
        tokio::pin!(wait);
        let mut deadline = None;
        loop {
            let moved = self.pending.progress.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            let closed = *hangup.borrow_and_update();
            let patience = self.options.patience();
            if closed && deadline.is_none() {
                deadline = Some(tokio::time::Instant::now() + patience);
            }
            tokio::select! {
                done = &mut wait => return Ok(done),
                () = moved, if closed => {
                    deadline = Some(tokio::time::Instant::now() + patience);
                }
                changed = hangup.changed(), if !closed => {
                    if changed.is_err() {
                        // No watcher: the input's end is seen by reading.
                        return Ok(wait.await);
                    }
                }
                () = sleep_until(deadline), if deadline.is_some() => {
                    return Err(Ending::InputAbandoned);
                }
            }
        }
    }

    /// Whether a notification is handed to rmcp: none before the session
    /// starts (see `started`), and no cancellation of a request that is not
    /// a running call (a `ping` or `tools/list` is answered at once
    /// anyway; rmcp would drop that answer, and its room would never come
    /// back), nor of a call already answered. A cancelled call of a batch
    /// is not waited for: the batch's line, when that completes it.
    fn passes(&self, notification: &Map<String, Value>) -> (bool, Option<String>) {
        if !self.started {
            tracing::debug!("ignoring a notification sent before initialize");
            return (false, None);
        }
        if notification.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return (true, None);
        }
        // The id as a request's is read here: a `requestId` of `1.0`, which
        // rmcp reads as `1`, names no request (a request of id `1.0` is
        // refused), and is not handed on.
        let Some(id) = notification
            .get("params")
            .and_then(|params| params.get("requestId"))
            .and_then(IdKey::from_json)
        else {
            tracing::debug!("ignoring a cancellation without a usable requestId");
            return (false, None);
        };
        match self.pending.standing(&id) {
            // Cancelled here, not by rmcp: rmcp would forget the request at
            // once and drop its handler's answer only while no request of
            // the same id is in flight; a request reusing the id would get
            // that answer, and be cancelled in its stead. rmcp keeps it
            // until the handler's answer (the early answer's marker, which
            // the transport drops) goes out, which gives the id back.
            Some(Standing::Call) => {
                self.pending.cancelling(&id);
                // No answer comes for it: its batch goes without it.
                let completed = self
                    .pending
                    .batch_of(&id)
                    .and_then(|batch| batch.forget(&id));
                (false, completed)
            }
            Some(Standing::Cancelled) => (false, None),
            Some(standing) => {
                tracing::debug!(
                    ?standing,
                    "ignoring the cancellation of a request answered at once"
                );
                (false, None)
            }
            // Unknown or answered: rmcp ignores it.
            None => (true, None),
        }
    }

    async fn route(&mut self, inbound: Inbound) -> Result<(), Ending> {
        let (value, bytes, written_id) = match inbound {
            Inbound::Json(value, bytes, written_id) => (value, bytes, written_id),
            Inbound::Unparsable(error, envelope) => {
                let message = format!(
                    "parse error: {error}; send one JSON-RPC message per line, as UTF-8 JSON \
                     (no NaN or Infinity, numbers within range, nesting at most 128 deep)"
                );
                return self.refuse(envelope, PARSE_ERROR, message).await;
            }
            Inbound::TooLong(length, envelope) => {
                let message = format!(
                    "the line is {length} bytes long, over the limit of {} bytes; it was \
                     dropped unread (the server's --max-line-bytes raises the limit)",
                    self.options.max_line_bytes
                );
                return self.refuse(envelope, INVALID_REQUEST, message).await;
            }
            Inbound::TooManyValues(held, envelope) => {
                let message = format!(
                    "the line holds so many JSON values that they would take about {held} \
                     bytes once read, more than the {} a line may take; it was dropped unread \
                     (no tool call needs that many; the bound is twice the server's \
                     --max-line-bytes, and at least 1 MiB)",
                    held_at_most(self.options.max_line_bytes)
                );
                return self.refuse(envelope, INVALID_REQUEST, message).await;
            }
        };
        let value = match value {
            Value::Array(members) if !members.is_empty() && self.batch.is_none() => {
                return self.route_batch(members).await;
            }
            value => value,
        };
        let Value::Object(message) = value else {
            let text = match value {
                _ if self.batch.is_some() => {
                    "invalid request: each member of a batch is one JSON-RPC message, a JSON object"
                }
                Value::Array(_) => {
                    "invalid request: an empty batch; send one JSON-RPC message, a JSON object, \
                     per line (or a batch of them, as a non-empty JSON array)"
                }
                _ => "invalid request: send one JSON-RPC message, a JSON object, per line",
            };
            return self
                .answer(Value::Null, INVALID_REQUEST, text.to_owned())
                .await;
        };
        let id = message.get("id").cloned();
        let method = message.get("method").cloned();
        match (id, method) {
            // A notification: never answered.
            (None, Some(_)) => {
                let (passes, completed) = self.passes(&message);
                if let Some(line) = completed {
                    self.send_out(Outgoing::Batch(line)).await?;
                }
                if !passes {
                    return Ok(());
                }
                match serde_json::from_value(Value::Object(message)) {
                    Ok(notification) => self.forward(notification).await,
                    Err(error) => {
                        tracing::debug!(%error, "ignoring a malformed notification");
                        Ok(())
                    }
                }
            }
            (Some(id), Some(Value::String(method))) => {
                self.request(id, written_id, &method, message, bytes).await
            }
            // A response to a request of ours (rmcp sends none today).
            (Some(id), None) if !self.started => {
                tracing::debug!(%id, "ignoring a response sent before initialize");
                Ok(())
            }
            (Some(id), None) if message.contains_key("result") || message.contains_key("error") => {
                match serde_json::from_value(Value::Object(message)) {
                    Ok(response) => self.forward(response).await,
                    Err(error) => {
                        tracing::debug!(%id, %error, "ignoring a malformed response");
                        Ok(())
                    }
                }
            }
            (id, _) => {
                let id = id.filter(|id| IdKey::from_json(id).is_some());
                let text = "invalid request: a request needs a string `method` and an `id`";
                self.answer(id.unwrap_or(Value::Null), INVALID_REQUEST, text.to_owned())
                    .await
            }
        }
    }

    /// Routes each member of a batch as a line of its own, its answers
    /// gathered into one array (see [`super::batch`]).
    async fn route_batch(&mut self, members: Vec<Value>) -> Result<(), Ending> {
        if members.len() > MAX_BATCH {
            let text = format!(
                "invalid request: a batch of {} messages; this server takes at most {MAX_BATCH} \
                 in one batch (send the others in another, or one message per line)",
                members.len()
            );
            return self.answer(Value::Null, INVALID_REQUEST, text).await;
        }
        let batch = Arc::new(Batch::default());
        self.batch = Some(Arc::clone(&batch));
        for member in members {
            let held = held_bytes(&member);
            let routed = Box::pin(self.route(Inbound::Json(member, held, None))).await;
            if routed.is_err() {
                self.batch = None;
                return routed;
            }
        }
        self.batch = None;
        match batch.seal() {
            Some(line) => self.send_out(Outgoing::Batch(line)).await,
            None => Ok(()),
        }
    }

    async fn request(
        &mut self,
        id: Value,
        written_id: Option<Box<str>>,
        method: &str,
        mut message: Map<String, Value>,
        bytes: usize,
    ) -> Result<(), Ending> {
        let Some(key) = IdKey::from_json(&id) else {
            // A number is a valid id for JSON-RPC and is answered under
            // itself; anything else is no id (answered under `null`).
            if id.is_number() {
                let text = format!(
                    "invalid request: the id {} is a number this server does not take (it \
                     takes integers from -2^63 to 2^63-1, and strings)",
                    written_id
                        .as_deref()
                        .map_or_else(|| id.to_string(), str::to_owned)
                );
                return match written_id {
                    Some(written) => {
                        self.answer_as_written(&written, INVALID_REQUEST, text)
                            .await
                    }
                    None => self.answer(id, INVALID_REQUEST, text).await,
                };
            }
            let text = match &id {
                Value::String(long) => format!(
                    "invalid request: the id is a string of {} bytes; this server takes ids of at \
                     most {MAX_ID_BYTES} bytes",
                    long.len()
                ),
                other => format!(
                    "invalid request: the id must be a string or an integer, not {}",
                    quoted(&other.to_string())
                ),
            };
            return self.answer(Value::Null, INVALID_REQUEST, text).await;
        };
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            let text = r#"invalid request: "jsonrpc" must be "2.0""#.to_owned();
            return self.answer(id, INVALID_REQUEST, text).await;
        }
        if matches!(
            self.pending.standing(&key),
            Some(Standing::AnsweredEarly | Standing::Cancelled)
        ) {
            // The client has its answer, or cancelled the request: rmcp
            // lets the id go in a moment, once the answer went out or the
            // cancelled command has ended (and at most `HELD_AT_MOST`
            // counts as that moment).
            let free = self.wait_for_room(|pending| pending.standing(&key).is_none());
            if let Ok(waited) = tokio::time::timeout(HELD_AT_MOST, free).await {
                waited?;
            }
        }
        match self.pending.standing(&key) {
            None => {}
            Some(Standing::Cancelled) => {
                let text = format!(
                    "invalid request: the id {} belongs to a request you cancelled, whose \
                     command has not ended yet; this request did not run; use a new id for \
                     each request",
                    quoted(&id.to_string())
                );
                return self.answer(id, INVALID_REQUEST, text).await;
            }
            Some(_) => {
                let text = format!(
                    "invalid request: the id {} is already used by a request in flight; \
                     that request goes on and will be answered under this id too; \
                     use a new id for each request",
                    quoted(&id.to_string())
                );
                return self.answer(id, INVALID_REQUEST, text).await;
            }
        }
        if !METHODS.contains(&method) {
            let text = format!(
                "method not found: {}; this server answers {}",
                quoted(method),
                METHODS.join(", ")
            );
            return self.answer(id, METHOD_NOT_FOUND, text).await;
        }
        if method == "tools/list"
            && let Some(cursor) = message
                .get("params")
                .and_then(|params| params.get("cursor"))
            && !cursor.is_null()
        {
            // The one page holds every tool: this server gives no cursor.
            let text = format!(
                "invalid params for tools/list: no such cursor {}; this server lists every tool \
                 in one page, send tools/list without a cursor",
                quoted(&cursor.to_string())
            );
            return self.answer(id, INVALID_PARAMS, text).await;
        }
        if method == "initialize" {
            // Checked here: rmcp takes a malformed `initialize` for a
            // method it does not know (-32601), or, before the session,
            // asks for the `_meta` of a request without one.
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            if let Err(error) =
                serde_json::from_value::<rmcp::model::InitializeRequestParams>(params)
            {
                let text = format!(
                    "invalid params for initialize: {error}; send protocolVersion, capabilities \
                     and clientInfo (name, version)"
                );
                return self.answer(id, INVALID_PARAMS, text).await;
            }
        }
        if !self.started
            && matches!(method, "tools/list" | "tools/call")
            && !names_a_protocol_version(&message)
        {
            // rmcp, before its session, reads such a request as one of the
            // lifecycle without `initialize` and asks for its `_meta`: a
            // client that forgot `initialize` is told that instead.
            let text = format!(
                "invalid request: {method} before the session started; send initialize first \
                 (then notifications/initialized), or, without a session, give the request's \
                 _meta the protocol version and the client's capabilities"
            );
            return self.answer(id, INVALID_REQUEST, text).await;
        }
        let call = method == "tools/call";
        if call && self.draining.load(std::sync::atomic::Ordering::Relaxed) {
            return self.not_started(id).await;
        }
        if call && let Err(text) = normalize_arguments(&mut message) {
            return self.answer(id, INVALID_PARAMS, text).await;
        }
        let typed = match call.then(|| typed_call(&key, &mut message)).flatten() {
            Some(typed) => typed,
            None => match serde_json::from_value(Value::Object(message)) {
                Ok(typed) => typed,
                Err(error) => {
                    let text = format!("invalid params for {method}: {error}");
                    return self.answer(id, INVALID_PARAMS, text).await;
                }
            },
        };
        // Wait for room; reading pauses meanwhile.
        let options = self.options.clone();
        let room = |pending: &Pending| pending.try_add(key.clone(), call, bytes, &options);
        match self.wait_for_room(room).await {
            Err(Ending::InputAbandoned)
                if !self
                    .draining
                    .swap(true, std::sync::atomic::Ordering::Relaxed) =>
            {
                // The client closed its input and no room came within the
                // grace. What runs is cancelled (answered as cancelled as
                // stdout takes it), each call still unread is answered
                // without running, and whatever waits past another grace
                // (stdout unread) ends the server.
                let cancelled = self.calls.cancel_all("the client closed its input");
                tracing::info!(
                    cancelled,
                    "the client closed its input with requests left unread: cancelled the calls"
                );
                if call {
                    return self.not_started(id).await;
                }
                let room = |pending: &Pending| pending.try_add(key.clone(), call, bytes, &options);
                self.wait_for_room(room).await?;
            }
            waited => waited?,
        }
        if call && self.calls.running() >= self.options.max_in_flight {
            tracing::debug!(%id, "every call slot is taken: the call waits");
        }
        let starts = !self.started && starts_session(&typed, &self.versions);
        if let Some(batch) = &self.batch {
            self.pending.in_batch(key, batch);
        }
        self.forward(typed).await?;
        self.started |= starts;
        Ok(())
    }

    /// Waits until `ready` (tried again whenever a request is answered);
    /// reading pauses meanwhile. A client that has closed its input and
    /// reads no answers would hold the server here for good: once its
    /// input is closed, the wait lasts at most the grace.
    async fn wait_for_room(&self, ready: impl FnMut(&Pending) -> bool) -> Result<(), Ending> {
        self.within_grace(room(ready, &self.pending)).await
    }

    async fn forward(&self, message: RxJsonRpcMessage<RoleServer>) -> Result<(), Ending> {
        self.within_grace(self.to_rmcp.send(message))
            .await?
            .map_err(|_| Ending::ServiceStopped)
    }
}

/// Whether rmcp, before its session, starts the session from `message`:
/// an `initialize` request (whose failure ends it as well), or, in the
/// lifecycle without one, a request whose `_meta` is complete and names a
/// version the server supports (rmcp's own reading of it). A `ping` and a
/// `server/discover` are answered without starting it.
fn starts_session(
    message: &RxJsonRpcMessage<RoleServer>,
    versions: &[rmcp::model::ProtocolVersion],
) -> bool {
    use rmcp::model::{ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion};
    let JsonRpcMessage::Request(request) = message else {
        return false;
    };
    match &request.request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|version| versions.contains(&version))
        }
    }
}

/// Whether a request's `_meta` names a protocol version: a request of the
/// lifecycle without `initialize` (rmcp checks the rest of it).
fn names_a_protocol_version(message: &Map<String, Value>) -> bool {
    message
        .get("params")
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
        .is_some()
}

/// Sleeps until `deadline` (never when there is none).
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Waits until `ready`, tried again whenever a request is answered.
async fn room(mut ready: impl FnMut(&Pending) -> bool, pending: &Pending) {
    loop {
        let answered = pending.answered.notified();
        tokio::pin!(answered);
        answered.as_mut().enable();
        if ready(pending) {
            return;
        }
        answered.await;
    }
}

/// Watches `input` (stdin) for its other end closing, on a thread of its
/// own, and says so on `hangup`: a pipe or socket says it at once, however
/// much is still unread, which the reader would only reach by reading it
/// all. Anything else (a file, `/dev/null`) never says it, and the watcher
/// waits for good (it blocks nothing: the process ends without it).
pub(crate) fn watch_hangup(
    input: std::os::fd::OwnedFd,
    hangup: watch::Sender<bool>,
) -> std::io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    std::thread::Builder::new()
        .name("jig-mcp-hup".to_owned())
        .spawn(move || {
            loop {
                // A hangup or an error is always reported; a socket's peer
                // shutting its side down is asked for. Nothing else (data
                // to read) wakes this.
                let rdhup = PollFlags::from_bits_retain(nix::libc::POLLRDHUP);
                let mut fds = [PollFd::new(input.as_fd(), rdhup)];
                match poll(&mut fds, PollTimeout::NONE) {
                    // Only a hangup, a shutdown, an error or a closed
                    // descriptor can be reported (nix does not name the
                    // shutdown's flag: the count says it, not `revents`).
                    Ok(reported) if reported > 0 => {
                        let _ = hangup.send(true);
                        return;
                    }
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(_) => return,
                }
            }
        })
        .map(drop)
}

/// A `tools/call` of the usual shape (the envelope, `params` with a `name`
/// and object `arguments`, nothing else; checked by
/// [`normalize_arguments`] first) built as rmcp's typed message directly;
/// `None` for any other shape, which is parsed as every other message is.
/// Parsing walks rmcp's untagged message types variant by variant, buffering
/// the text for each: it was most of the runtime's work for a call.
fn typed_call(
    id: &IdKey,
    message: &mut Map<String, Value>,
) -> Option<RxJsonRpcMessage<RoleServer>> {
    use rmcp::model::{
        CallToolRequest, CallToolRequestParams, ClientRequest, JsonRpcMessage, JsonRpcRequest,
        NumberOrString,
    };
    let envelope = |key: &String| matches!(key.as_str(), "jsonrpc" | "id" | "method" | "params");
    let Some(Value::Object(params)) = message.get("params") else {
        return None;
    };
    if !message.keys().all(envelope)
        || !params
            .keys()
            .all(|key| matches!(key.as_str(), "name" | "arguments"))
    {
        return None;
    }
    let Some(Value::Object(mut params)) = message.remove("params") else {
        return None;
    };
    let Some(Value::String(name)) = params.remove("name") else {
        return None;
    };
    let mut call = CallToolRequestParams::new(name);
    match params.remove("arguments") {
        None | Some(Value::Null) => {}
        Some(Value::Object(arguments)) => call = call.with_arguments(arguments),
        Some(_) => return None,
    }
    let id = match id {
        IdKey::Number(n) => NumberOrString::Number(*n),
        IdKey::Text(text) => NumberOrString::String(text.as_str().into()),
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call));
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(id, request)))
}

/// `tools/call`'s `arguments` made an object (a string holding a JSON object
/// is parsed, as `jig call` parses its argument), or the guidance to send.
fn normalize_arguments(message: &mut Map<String, Value>) -> Result<(), String> {
    let Some(Value::Object(params)) = message.get_mut("params") else {
        return Err("invalid params: tools/call takes an object, such as \
             {\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\"}}"
            .to_owned());
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return Err(
            "invalid params: tools/call needs `name`, the tool to call, as a string; \
             tools/list gives the names"
                .to_owned(),
        );
    }
    let kind = match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => return Ok(()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => {
                params.insert("arguments".to_owned(), object);
                return Ok(());
            }
            _ => "a string that does not hold a JSON object",
        },
        Some(Value::Array(_)) => "an array",
        Some(Value::Number(_)) => "a number",
        Some(Value::Bool(_)) => "a boolean",
    };
    Err(format!(
        "invalid params: `arguments` must be a JSON object mapping the tool's argument names \
         to values, such as {{\"path\": \"src\"}}; got {kind}. tools/list gives each tool's \
         inputSchema"
    ))
}

/// rmcp's side of the channel: typed messages in, messages out to the
/// writer.
pub(crate) struct ChannelTransport {
    pub(crate) incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    pub(crate) out: mpsc::Sender<Outgoing>,
    pub(crate) pending: Arc<Pending>,
}

/// The writer is gone: stdout is closed.
#[derive(Debug, thiserror::Error)]
#[error("the server's output is closed")]
pub(crate) struct OutputClosed;

impl Transport<RoleServer> for ChannelTransport {
    type Error = OutputClosed;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // rmcp's copy of a call answered early goes nowhere: the early
        // answer was written already. rmcp has let its id go (it forgets a
        // request before sending its answer): the id is free again.
        let marker = super::early::is_marker(&item);
        if marker && let Some(id) = IdKey::of_response(&item) {
            self.pending.answered(&id);
        }
        // Nobody reads any more: dropped, not waited for.
        let out = (!marker && !self.pending.is_abandoned()).then(|| self.out.clone());
        async move {
            match out {
                Some(out) => out
                    .send(Outgoing::Rmcp(Box::new(item)))
                    .await
                    .map_err(|_| OutputClosed),
                None => Ok(()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut input = std::io::BufReader::with_capacity(4, input);
        let mut partial = Partial::default();
        let mut seen = Vec::new();
        loop {
            match read_line(&mut input, &mut partial, max).unwrap() {
                Line::End => return seen,
                Line::TooLong(n) => seen.push(format!("too long: {n}")),
                Line::Complete => seen.push(String::from_utf8_lossy(&partial.line).into_owned()),
            }
            partial = Partial::default();
        }
    }

    #[test]
    fn an_id_a_double_only_approximates_is_kept_as_written() {
        let written = |line: &str| match values_of(line.as_bytes()).pop() {
            Some(Inbound::Json(_, _, id)) => id.map(String::from),
            _ => panic!("{line} is JSON"),
        };
        for id in [
            "123456789012345678901234567890",
            "1e3",
            "-0.10000000000000000000001",
        ] {
            let line = format!(r#"{{"id" : {id} ,"method":"ping","jsonrpc":"2.0"}}"#);
            assert_eq!(written(&line).as_deref(), Some(id), "{line}");
        }
        // Ids read exactly, numbers or not, are not kept.
        for id in ["7", "-7", "18446744073709551615", r#""7""#, "null", "[1e3]"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert_eq!(written(&line), None, "{line}");
        }
        // The last of repeated members, as the parser takes it; each value
        // of a line its own.
        let line = r#"{"id":1e3,"id":2e3,"method":"ping"} {"id":3e3,"method":"ping"}"#;
        let ids: Vec<_> = values_of(line.as_bytes())
            .into_iter()
            .map(|inbound| match inbound {
                Inbound::Json(_, _, id) => id.map(String::from),
                _ => None,
            })
            .collect();
        assert_eq!(ids, [Some("2e3".to_owned()), Some("3e3".to_owned())]);
    }

    #[test]
    fn lines_over_the_limit_are_dropped_and_measured() {
        assert_eq!(
            lines(b"abc\nabcdefgh\nab\nlast", 5),
            ["abc\n", "too long: 8", "ab\n", "last"]
        );
        assert_eq!(lines(b"abcde\n", 5), ["abcde\n"]);
        // A carriage return before the newline counts no more than it.
        assert_eq!(
            lines(b"abcde\r\nabcdef\r\n\r\n", 5),
            ["abcde\r\n", "too long: 6", "\r\n"]
        );
    }

    #[test]
    fn a_call_built_directly_is_the_message_rmcp_parses() {
        let calls = [
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "grep", "arguments": {"pattern": "a", "n": [1, {"b": null}]}}}),
            json!({"jsonrpc": "2.0", "id": "x-1", "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "id": -3, "method": "tools/call",
                   "params": {"name": "t", "arguments": null}}),
        ];
        for call in calls {
            let Value::Object(mut message) = call.clone() else {
                unreachable!()
            };
            let key = IdKey::from_json(&call["id"]).unwrap();
            let built = typed_call(&key, &mut message).expect("the usual shape is built");
            let parsed: RxJsonRpcMessage<RoleServer> = serde_json::from_value(call).unwrap();
            assert_eq!(
                serde_json::to_value(&built).unwrap(),
                serde_json::to_value(&parsed).unwrap()
            );
        }
        // Anything more is left to rmcp's parser, untouched.
        for other in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "t", "_meta": {"progressToken": 1}}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"},
                   "extra": true}),
        ] {
            let Value::Object(mut message) = other.clone() else {
                unreachable!()
            };
            let key = IdKey::from_json(&other["id"]).unwrap();
            assert!(typed_call(&key, &mut message).is_none());
            assert_eq!(Value::Object(message), other);
        }
    }

    #[test]
    fn arguments_are_made_an_object_or_refused_with_guidance() {
        let mut message = json!({"params": {"name": "t", "arguments": "{\"a\": 1}"}});
        let Value::Object(map) = &mut message else {
            unreachable!()
        };
        assert_eq!(normalize_arguments(map), Ok(()));
        assert_eq!(map["params"]["arguments"], json!({"a": 1}));
        for bad in [json!("[1]"), json!([1]), json!(3), json!(true)] {
            let mut message = json!({"params": {"name": "t", "arguments": bad}});
            let Value::Object(map) = &mut message else {
                unreachable!()
            };
            let error = normalize_arguments(map).unwrap_err();
            assert!(error.contains("must be a JSON object"), "{error}");
        }
    }
}
