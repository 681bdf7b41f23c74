//! The writer: one thread that owns stdout, so that a client that stops
//! reading holds up only this thread (and, through the bounded channel, the
//! calls whose answers wait), never the runtime.

use std::io::Write;
use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use super::calls::Calls;
use super::framing::{IdKey, Outgoing, Pending};

/// Writes each message as one line, flushing whenever no other message
/// waits. A failed write (EPIPE: the client closed its end) marks stdout
/// broken, cancels every call at once and tells the framing layer; messages
/// are then dropped unwritten until every sender is gone.
pub(crate) fn write_messages(
    mut out: impl Write,
    mut messages: mpsc::Receiver<Outgoing>,
    pending: &Pending,
    calls: &Calls,
    broken: &watch::Sender<bool>,
) {
    let mut failed = false;
    while let Some(message) = messages.blocking_recv() {
        let answered = match &message {
            Outgoing::Rmcp(message) => IdKey::of_response(message),
            Outgoing::Raw(_) => None,
        };
        if !failed {
            let written = match &message {
                Outgoing::Rmcp(message) => serde_json::to_writer(&mut out, message),
                Outgoing::Raw(value) => serde_json::to_writer(&mut out, value),
            }
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| {
                if messages.is_empty() {
                    out.flush()
                } else {
                    Ok(())
                }
            });
            if let Err(error) = written {
                failed = true;
                let cancelled = calls.cancel_all("the client closed the server's output");
                tracing::info!(
                    %error,
                    cancelled,
                    "stdout is closed: cancelling every call, nothing more can be delivered"
                );
                // Nobody listening is fine: the framing layer already ended.
                let _ = broken.send(true);
            }
        }
        drop(message);
        if let Some(id) = answered {
            pending.answered(&id);
        }
    }
    if !failed {
        // The end of the connection: what is left goes out if it can.
        let _ = out.flush();
    }
}

/// Starts the writer thread; the returned receiver resolves when it ends.
pub(crate) fn spawn(
    out: impl Write + Send + 'static,
    messages: mpsc::Receiver<Outgoing>,
    pending: Arc<Pending>,
    calls: Arc<Calls>,
    broken: watch::Sender<bool>,
) -> std::io::Result<tokio::sync::oneshot::Receiver<()>> {
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("jig-mcp-out".to_owned())
        .spawn(move || {
            write_messages(out, messages, &pending, &calls, &broken);
            let _ = done_tx.send(());
        })?;
    Ok(done_rx)
}
