//! Logs: to stderr only, never to stdout (the MCP channel), and never
//! blocking: lines go through a bounded queue to a thread of their own; when
//! stderr is not read and the queue is full, lines are dropped and counted,
//! and the count is written as soon as stderr takes lines again.
//!
//! Start-up pays only for what is used: the thread starts with the first
//! line (a `jig call` that logs nothing never starts it), and without
//! `JIG_LOG` the filter is a plain level, not a parsed directive set.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;

/// The variable that overrides the log filter (`JIG_LOG=debug`).
const LOG_VAR: &str = "JIG_LOG";

/// Log lines waiting for stderr at most; past them, lines are dropped.
const QUEUE_LINES: usize = 1024;

/// Sends logs to stderr: warnings by default, more with each `-v`, or the
/// filter in `JIG_LOG`.
pub(crate) fn init(verbose: u8) {
    let level = match verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    let builder = tracing_subscriber::fmt()
        .with_writer(Queue)
        // Colors only for a person at a terminal, not for a client's log file.
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false);
    // A second initialization (impossible in the binary) would only be
    // refused; logging is never worth failing the command for.
    let _ = match std::env::var_os(LOG_VAR) {
        Some(_) => {
            let filter = EnvFilter::try_from_env(LOG_VAR)
                .unwrap_or_else(|_| EnvFilter::new(level.to_string()));
            builder.with_env_filter(filter).try_init()
        }
        None => builder.with_max_level(level).try_init(),
    };
}

/// Waits, at most `bound`, for the queued lines to reach stderr (before the
/// process exits).
pub(crate) fn flush(bound: Duration) {
    let Some(Some(queue)) = QUEUE.get() else {
        return;
    };
    let deadline = Instant::now() + bound;
    while queue.shared.queued.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The queue and its thread, once the first line came (`None` when the
/// thread could not start: lines are then dropped).
static QUEUE: OnceLock<Option<Started>> = OnceLock::new();

#[derive(Default)]
struct Shared {
    queued: AtomicU64,
    dropped: AtomicU64,
}

/// The writer the subscriber makes, one per event.
#[derive(Clone, Copy)]
struct Queue;

/// The sending end of the queue, and its counters.
struct Started {
    lines: SyncSender<Vec<u8>>,
    shared: Arc<Shared>,
}

impl Started {
    /// The queue, started with the first line.
    fn get() -> Option<&'static Started> {
        QUEUE.get_or_init(Self::start).as_ref()
    }

    fn start() -> Option<Self> {
        let (lines, receiver) = sync_channel(QUEUE_LINES);
        let shared = Arc::new(Shared::default());
        let writer_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("jig-log".to_owned())
            .spawn(move || write_lines(&receiver, &writer_shared))
            .ok()?;
        Some(Self { lines, shared })
    }
}

fn write_lines(lines: &Receiver<Vec<u8>>, shared: &Shared) {
    let mut stderr = std::io::stderr();
    while let Ok(line) = lines.recv() {
        let dropped = shared.dropped.swap(0, Ordering::AcqRel);
        if dropped > 0 {
            let _ = writeln!(
                stderr,
                "jig: {dropped} log lines were dropped: stderr was not read"
            );
        }
        let _ = stderr.write_all(&line);
        shared.queued.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One event's text, queued when dropped.
struct Line {
    text: Vec<u8>,
}

impl Write for Line {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let Some(queue) = Started::get() else {
            return;
        };
        let shared = &queue.shared;
        shared.queued.fetch_add(1, Ordering::AcqRel);
        match queue.lines.try_send(std::mem::take(&mut self.text)) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                shared.queued.fetch_sub(1, Ordering::AcqRel);
                shared.dropped.fetch_add(1, Ordering::AcqRel);
            }
        }
    }
}

impl<'a> MakeWriter<'a> for Queue {
    type Writer = Line;

    fn make_writer(&'a self) -> Self::Writer {
        Line { text: Vec::new() }
    }
}
