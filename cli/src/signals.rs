//! The termination signals `jig` honours (SIGINT, SIGTERM, SIGHUP), and
//! running a blocking job that they cancel through the kernel's
//! [`CancelToken`]: the CLI never signals a command itself.

use std::time::Duration;

use jig_kernel::CancelToken;

use crate::error::CliError;

/// A termination signal that asked `jig` to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT (^C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// SIGHUP (the terminal went away).
    Hangup,
}

impl Stop {
    /// The signal's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::Hangup => "SIGHUP",
        }
    }

    /// The shell's convention for a process ended by this signal: 128 + its
    /// number (130, 143, 129).
    pub(crate) fn exit_status(self) -> u8 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
            Stop::Hangup => 129,
        }
    }
}

/// Watches for the termination signals; from the moment it is made, they no
/// longer kill the process but are reported by [`Watch::next`].
pub(crate) struct Watch {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Watch {
    /// Starts watching (inside a tokio runtime).
    pub(crate) fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// The next termination signal.
    pub(crate) async fn next(&mut self) -> Stop {
        tokio::select! {
            _ = self.term.recv() => Stop::Terminate,
            _ = self.int.recv() => Stop::Interrupt,
            _ = self.hup.recv() => Stop::Hangup,
        }
    }
}

/// Resolves when the process is asked to stop; never, when the signals
/// cannot be watched.
pub(crate) async fn termination() -> Stop {
    match Watch::new() {
        Ok(mut watch) => watch.next().await,
        Err(error) => {
            tracing::warn!(%error, "cannot watch for termination signals");
            std::future::pending().await
        }
    }
}

/// Runs `job` on a thread of its own; a termination signal cancels `token`
/// (the kernel then ends the running command's process group) and `job` is
/// given `wait` to return, unless `idle` then says it runs no command and
/// will start none (it is waiting on something else, a model's answer):
/// then it is not waited for. Returns the job's value, when it returned,
/// and the signal, when one came.
pub(crate) fn run_cancellable<T: Send + 'static>(
    token: &CancelToken,
    wait: Duration,
    idle: impl FnOnce() -> bool,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<(Option<T>, Option<Stop>), CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::Internal(format!("cannot start the async runtime: {error}")))?;
    let outcome = runtime.block_on(async {
        // Watch before the job starts: a signal from now on cancels it.
        let mut watch = Watch::new().map_err(|error| {
            CliError::Internal(format!("cannot watch for termination signals: {error}"))
        })?;
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("jig-job".to_owned())
            .spawn(move || {
                // The receiver is gone only when we stopped waiting.
                let _ = done_tx.send(job());
            })
            .map_err(|error| CliError::Internal(format!("cannot start a thread: {error}")))?;
        tokio::pin!(done_rx);
        tokio::select! {
            done = &mut done_rx => Ok((done.ok(), None)),
            stop = watch.next() => {
                tracing::info!(signal = stop.name(), "stopping: cancelling the command");
                token.cancel();
                if idle() {
                    return Ok((None, Some(stop)));
                }
                let done = tokio::time::timeout(wait, done_rx).await.ok().and_then(Result::ok);
                Ok((done, Some(stop)))
            }
        }
    });
    // The job's thread, if still running, ends with the process.
    runtime.shutdown_background();
    outcome
}
