//! One module per subcommand: its `clap` arguments and its `run` function.

pub(crate) mod agent;
pub(crate) mod audit;
pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod config;
pub(crate) mod mcp;
pub(crate) mod parse;
pub(crate) mod repair;
pub(crate) mod tools;

use std::io::Write;

use crate::error::CliError;

/// Prints `value` as pretty JSON on stdout, with a final newline.
pub(crate) fn print_json(value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|error| CliError::Internal(format!("cannot serialize the result: {error}")))?;
    print_text(&text)
}

/// Prints `text` on stdout, with a final newline when it has none.
pub(crate) fn print_text(text: &str) -> Result<(), CliError> {
    let mut stdout = Patient(std::io::stdout().lock());
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    write!(stdout, "{text}{newline}")
        .and_then(|()| stdout.flush())
        .map_err(|error| CliError::Internal(format!("cannot write the result: {error}")))
}

/// A reader or writer that waits when its descriptor was made non-blocking
/// by whoever shares it (the flag belongs to the open file, not to this
/// process), as it would wait were it blocking: no input yet is not the
/// end of the input, and a reader that is slow has not gone.
pub(crate) struct Patient<T>(pub(crate) T);

impl<R: std::io::Read + std::os::fd::AsFd> std::io::Read for Patient<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        patiently(&mut self.0, nix::poll::PollFlags::POLLIN, |inner| {
            inner.read(buf)
        })
    }
}

impl<W: Write + std::os::fd::AsFd> Write for Patient<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        patiently(&mut self.0, nix::poll::PollFlags::POLLOUT, |inner| {
            inner.write(bytes)
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        patiently(&mut self.0, nix::poll::PollFlags::POLLOUT, Write::flush)
    }
}

/// `op` on `target`, again each time it would block, once `target` is
/// ready for `events`.
pub(crate) fn patiently<T: std::os::fd::AsFd, R>(
    target: &mut T,
    events: nix::poll::PollFlags,
    mut op: impl FnMut(&mut T) -> std::io::Result<R>,
) -> std::io::Result<R> {
    loop {
        match op(target) {
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                wait_for(target.as_fd(), events)?;
            }
            other => return other,
        }
    }
}

/// Waits until `fd` is ready for `events`, or has an error or hangup for
/// the next call to report.
fn wait_for(fd: std::os::fd::BorrowedFd<'_>, events: nix::poll::PollFlags) -> std::io::Result<()> {
    use nix::poll::{PollFd, PollTimeout, poll};
    let mut fds = [PollFd::new(fd, events)];
    loop {
        match poll(&mut fds, PollTimeout::NONE) {
            Err(nix::errno::Errno::EINTR) => continue,
            Err(errno) => return Err(errno.into()),
            Ok(_) => return Ok(()),
        }
    }
}
