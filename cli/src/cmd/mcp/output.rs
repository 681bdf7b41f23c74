//! The writer: one thread that owns stdout, so that a client that stops
//! reading holds up only this thread (and, through the bounded channel, the
//! calls whose answers wait), never the runtime.
//!
//! A call's answer may also be written at once by the thread that ran the
//! call ([`Output::answer_now`]), when nothing waits for the writer and the
//! answer fits in what stdout takes without waiting: one thread fewer to
//! wake on the call's path.

use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::RoleServer;
use rmcp::service::TxJsonRpcMessage;
use tokio::sync::{mpsc, watch};

use super::calls::Calls;
use super::framing::{IdKey, Outgoing, Pending};

/// Stdout, shared by the writer thread and the threads that answer their
/// call at once.
pub(crate) struct Output {
    sink: Mutex<Sink>,
    /// Stdout (a descriptor of its own), polled before an answer is
    /// written at once.
    polled: OwnedFd,
    pending: Arc<Pending>,
    calls: Arc<Calls>,
    broken: watch::Sender<bool>,
    /// Why a write failed, when it was not the client closing its end: a
    /// full disk, a descriptor not open for writing... The server then
    /// ends with an error. Kept apart from the sink, whose lock a write
    /// blocked on a full pipe holds.
    error: std::sync::OnceLock<String>,
}

/// Stdout, telling of each write: whoever waits for the client within the
/// grace (see `Framer::within_grace`) or for the last answers to go out
/// waits as long as stdout takes bytes, however slowly.
pub(crate) struct Counted {
    file: std::fs::File,
    pending: Arc<Pending>,
}

impl Counted {
    /// `file`, telling `pending` of each write.
    pub(crate) fn new(file: std::fs::File, pending: Arc<Pending>) -> Self {
        Self { file, pending }
    }
}

/// At most this many bytes per write to stdout: a pipe takes them as soon
/// as a page of it is free, so a slow reader is seen reading (a larger
/// write returns only once all of it went in).
const WRITE_AT_MOST: usize = 4096;

impl Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let chunk = &bytes[..bytes.len().min(WRITE_AT_MOST)];
        // A stdout the client made non-blocking (the flag belongs to the
        // pipe's end, shared with whoever else holds it) waits as a
        // blocking one does: a client that reads slowly has not gone.
        let written =
            crate::cmd::patiently(&mut self.file, nix::poll::PollFlags::POLLOUT, |file| {
                file.write(chunk)
            })?;
        self.pending.progressed();
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The writer itself, and whether a write failed (nothing is written
/// after that).
struct Sink {
    out: Box<dyn Write + Send>,
    failed: bool,
}

/// Whether a failed write says the client closed its end (a pipe or a
/// socket without a reader): the end of a connection, not a failure.
fn client_closed(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::BrokenPipe
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::NotConnected
    )
}

/// At most this many bytes (newline included) are written at once by a
/// call's thread: a pipe with room for one more (what `poll` says) takes
/// them without waiting (`PIPE_BUF`).
const AT_ONCE_MAX: usize = 4096;

impl Output {
    /// Stdout as `out`, and as `polled`, a descriptor of the same file.
    pub(crate) fn new(
        out: impl Write + Send + 'static,
        polled: OwnedFd,
        pending: Arc<Pending>,
        calls: Arc<Calls>,
        broken: watch::Sender<bool>,
    ) -> Output {
        Output {
            sink: Mutex::new(Sink {
                out: Box::new(out),
                failed: false,
            }),
            error: std::sync::OnceLock::new(),
            polled,
            pending,
            calls,
            broken,
        }
    }

    /// Whether the client was taken to read no more (see
    /// [`Pending::abandon`]).
    pub(crate) fn is_abandoned(&self) -> bool {
        self.pending.is_abandoned()
    }

    /// Marks a call answered early (see [`Pending::answered_early`]).
    pub(crate) fn answered_early(&self, id: &IdKey) {
        self.pending.answered_early(id);
    }

    fn lock(&self) -> MutexGuard<'_, Sink> {
        self.sink.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes `message` as one line with `write`, flushing when `flush`; a
    /// failed write (EPIPE: the client closed its end) marks stdout broken,
    /// cancels every call at once and tells the framing layer. Nothing is
    /// written once a write failed.
    fn write_line(
        &self,
        sink: &mut Sink,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
        flush: bool,
    ) {
        if sink.failed {
            return;
        }
        let written = write(&mut sink.out)
            .and_then(|()| sink.out.write_all(b"\n"))
            .and_then(|()| if flush { sink.out.flush() } else { Ok(()) });
        if let Err(error) = written {
            sink.failed = true;
            if client_closed(&error) {
                let cancelled = self
                    .calls
                    .cancel_all("the client closed the server's output");
                tracing::info!(
                    %error,
                    cancelled,
                    "stdout is closed: cancelling every call, nothing more can be delivered"
                );
            } else {
                let cancelled = self.calls.cancel_all("the server cannot write to stdout");
                tracing::error!(
                    %error,
                    cancelled,
                    "cannot write to stdout: cancelling every call, nothing more can be delivered"
                );
                let _ = self.error.set(error.to_string());
            }
            // Nobody listening is fine: the framing layer already ended.
            let _ = self.broken.send(true);
        }
    }

    /// Why writing to stdout failed, when it failed otherwise than by the
    /// client closing its end.
    pub(crate) fn write_error(&self) -> Option<String> {
        self.error.get().cloned()
    }

    /// The client closed stdout's other end (seen by [`watch_closed`]
    /// while nothing was being written): every call is cancelled at once,
    /// as a failed write would.
    fn closed_by_client(&self) {
        let cancelled = self
            .calls
            .cancel_all("the client closed the server's output");
        tracing::info!(
            cancelled,
            "stdout's other end is closed: cancelling every call, nothing more can be delivered"
        );
        let _ = self.broken.send(true);
    }

    /// Writes a batch's array of answers as one line, and frees what it
    /// held (see [`Pending::batched`]).
    fn write_batch(&self, line: &str, flush: bool) {
        let mut sink = self.lock();
        self.write_line(&mut sink, |out| out.write_all(line.as_bytes()), flush);
        drop(sink);
        self.pending.batched(line.len(), false);
    }

    /// Writes `message` (a call's early answer, its request already marked
    /// answered) now, from the thread that ran its call, when
    /// nothing waits for the writer (`queue` is empty), no other thread
    /// writes, and its line fits in what stdout takes without waiting;
    /// otherwise gives it back, for the writer.
    pub(crate) fn answer_now(
        &self,
        message: Box<TxJsonRpcMessage<RoleServer>>,
        queue: &mpsc::Sender<Outgoing>,
    ) -> Result<(), Box<TxJsonRpcMessage<RoleServer>>> {
        if queue.capacity() != queue.max_capacity() {
            return Err(message);
        }
        // The answer of a batch's member goes into its batch, through the
        // writer.
        if IdKey::of_response(&message).is_some_and(|id| self.pending.is_batched(&id)) {
            return Err(message);
        }
        let Ok(mut sink) = self.sink.try_lock() else {
            return Err(message);
        };
        if sink.failed {
            return Err(message);
        }
        // Serialized here only while it stays short: a long answer goes to
        // the writer, which serializes it straight to stdout.
        let mut line = Bounded(Vec::new());
        if serde_json::to_writer(&mut line, &message).is_err() || !writable(&self.polled) {
            return Err(message);
        }
        self.write_line(&mut sink, |out| out.write_all(&line.0), true);
        Ok(())
    }
}

/// A buffer that takes at most [`AT_ONCE_MAX`] bytes, its newline
/// included; more is an error.
struct Bounded(Vec<u8>);

impl Write for Bounded {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + bytes.len() >= AT_ONCE_MAX {
            return Err(std::io::Error::other(
                "longer than an answer written at once",
            ));
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether `fd` takes a write at once (`poll` says `POLLOUT`).
fn writable(fd: &OwnedFd) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLOUT)];
    matches!(poll(&mut fds, PollTimeout::ZERO), Ok(1))
        && fds[0]
            .revents()
            .is_some_and(|r| r.contains(PollFlags::POLLOUT) && !r.contains(PollFlags::POLLERR))
}

/// Writes each message as one line, flushing whenever no other message
/// waits. Once a write failed, messages are dropped unwritten until every
/// sender is gone.
pub(crate) fn write_messages(output: &Output, mut messages: mpsc::Receiver<Outgoing>) {
    while let Some(message) = messages.blocking_recv() {
        // The request is forgotten before its answer is written: a client
        // that reuses an id once it has its answer never finds it taken.
        if let Outgoing::Rmcp(message) = &message
            && let Some(id) = IdKey::of_response(message)
        {
            output.pending.answered(&id);
        }
        // The answer to a member of a batch goes into the batch, which is
        // written once it has every answer (see `super::batch`).
        if let Outgoing::Rmcp(answer) | Outgoing::Early(answer) = &message
            && let Some(id) = IdKey::of_response(answer)
            && let Some(batch) = output.pending.batch_of(&id)
        {
            let text = serde_json::to_string(answer).unwrap_or_default();
            output.pending.batched(text.len() + 1, true);
            if let Some(line) = batch.answered(&id, text) {
                output.write_batch(&line, messages.is_empty());
            }
            continue;
        }
        if let Outgoing::Batch(line) = &message {
            output.write_batch(line, messages.is_empty());
            continue;
        }
        let mut sink = output.lock();
        output.write_line(
            &mut sink,
            |out| {
                match &message {
                    Outgoing::Rmcp(message) | Outgoing::Early(message) => {
                        serde_json::to_writer(out, message)
                    }
                    Outgoing::Raw(value) => serde_json::to_writer(out, value),
                    Outgoing::Text(line) | Outgoing::Batch(line) => {
                        return out.write_all(line.as_bytes());
                    }
                }
                .map_err(std::io::Error::from)
            },
            messages.is_empty(),
        );
        drop(sink);
        drop(message);
    }
    // What unfinished batches hold goes out as it is.
    for batch in output.pending.unfinished_batches() {
        if let Some(line) = batch.rest() {
            output.write_batch(&line, false);
        }
    }
    let mut sink = output.lock();
    if !sink.failed {
        // The end of the connection: what is left goes out if it can.
        let _ = sink.out.flush();
    }
}

/// Starts the writer thread; the returned receiver resolves when it ends.
pub(crate) fn spawn(
    output: Arc<Output>,
    messages: mpsc::Receiver<Outgoing>,
) -> std::io::Result<tokio::sync::oneshot::Receiver<()>> {
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("jig-mcp-out".to_owned())
        .spawn(move || {
            write_messages(&output, messages);
            let _ = done_tx.send(());
        })?;
    Ok(done_rx)
}

/// Watches stdout (`watched`, a descriptor of its own) for its other end
/// closing, on a thread of its own: a pipe whose reader is gone reports an
/// error, a socket or a terminal a hangup, at once, even while no answer is
/// being written (a running call would otherwise go on until its answer
/// fails to go out). Anything else (a file) never says it, and the watcher
/// waits for good (it blocks nothing: the process ends without it).
pub(crate) fn watch_closed(output: Arc<Output>, watched: OwnedFd) -> std::io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    std::thread::Builder::new()
        .name("jig-mcp-ohup".to_owned())
        .spawn(move || {
            loop {
                // No event asked for: only an error or a hangup, which are
                // always reported, wakes this.
                let mut fds = [PollFd::new(watched.as_fd(), PollFlags::empty())];
                match poll(&mut fds, PollTimeout::NONE) {
                    Ok(reported) if reported > 0 => {
                        output.closed_by_client();
                        return;
                    }
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(_) => return,
                }
            }
        })
        .map(drop)
}
