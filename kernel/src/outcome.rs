use std::time::Duration;

use crate::{Access, Confinement, Output};

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// It was ended by this signal number.
    Signaled(i32),
}

/// Why the kernel ended a program before it finished by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// The timeout ran out.
    Timeout(Duration),
    /// The caller cancelled the call.
    Cancelled,
    /// The program wrote more than the flood limit.
    Flood(u64),
    /// The call started more processes than its bound (where the call's
    /// init counts them: the operating system's own bound fails the fork
    /// instead).
    ProcessLimit(u64),
}

/// Everything about one finished call, typed, for programs;
/// [`render`](Self::render) gives the one string a model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// The argv that ran, program resolved to its absolute path.
    pub argv: Vec<String>,
    /// How the program ended.
    pub status: Status,
    /// Set when the kernel ended the program (timeout, cancel, flood).
    pub ended_by_kernel: Option<Ended>,
    /// The captured output (stdout and stderr interleaved as written).
    pub output: Output,
    /// Wall-clock time from spawn to return.
    pub duration: Duration,
    /// A descendant that left the process group kept the output pipe open
    /// past the drain deadline; the call returned without waiting for it.
    pub output_held_open: bool,
    /// What the call was allowed to change.
    pub access: Access,
    /// What the call left at protected paths that is not what stood there
    /// when it started (made where nothing was: no read-only mount can
    /// cover a missing path), and where it went.
    pub set_aside: Vec<SetAside>,
    /// What contained the call.
    pub confinement: Confinement,
}

/// What the kernel did with something a call that may write left at one of
/// its protected paths ([`Outcome::set_aside`]); paths are relative to the
/// workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetAside {
    /// Moved to a name of its own beside it, which nothing reads.
    Moved {
        /// The protected path.
        from: std::path::PathBuf,
        /// Where it is now.
        to: std::path::PathBuf,
    },
    /// Removed: no name could be had for it.
    Removed {
        /// The protected path.
        from: std::path::PathBuf,
    },
    /// Left where it is: neither could be done (`error` says why).
    Left {
        /// The protected path.
        from: std::path::PathBuf,
        /// Why it stays.
        error: String,
    },
}

impl std::fmt::Display for SetAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let made = "this command made a protected path, which no command may write:";
        match self {
            SetAside::Moved { from, to } => write!(
                f,
                "note: {made} {} was moved to {}, where nothing reads it",
                from.display(),
                to.display()
            ),
            SetAside::Removed { from } => {
                write!(f, "note: {made} {} was removed", from.display())
            }
            SetAside::Left { from, error } => write!(
                f,
                "warning: {made} {} could be neither moved nor removed ({error}); \
                 do not use it before someone looks at it",
                from.display()
            ),
        }
    }
}

impl Outcome {
    /// Whether the timeout ended the program.
    pub fn timed_out(&self) -> bool {
        matches!(self.ended_by_kernel, Some(Ended::Timeout(_)))
    }

    /// The exit code, when the program exited by itself.
    pub fn exit_code(&self) -> Option<i32> {
        match self.status {
            Status::Exited(code) => Some(code),
            Status::Signaled(_) => None,
        }
    }

    /// The signal that ended the program, if one did.
    pub fn signal(&self) -> Option<i32> {
        match self.status {
            Status::Signaled(signal) => Some(signal),
            Status::Exited(_) => None,
        }
    }

    /// The result as a model reads it: `exit: N\noutput: ...`, with marks for
    /// a timeout, a signal, a flood, a cancellation and truncation.
    pub fn render(&self) -> String {
        let exit = match (self.ended_by_kernel, self.status) {
            (Some(Ended::Timeout(limit)), _) => format!(
                "timeout (the command ran longer than {}; it was stopped)",
                seconds(limit)
            ),
            (Some(Ended::Cancelled), _) => {
                "cancelled (the call was cancelled; the command was stopped)".to_owned()
            }
            (Some(Ended::ProcessLimit(limit)), _) => format!(
                "process limit (the command started more than {limit} processes; it was stopped)"
            ),
            (Some(Ended::Flood(limit)), _) => {
                format!("output flood (the command wrote more than {limit} bytes; it was stopped)")
            }
            (None, Status::Exited(code)) => code.to_string(),
            (None, Status::Signaled(signal)) => {
                format!("signal {signal} ({})", signal_name(signal))
            }
        };
        let mut text = String::with_capacity(exit.len() + 16 + self.output.rendered_len_hint());
        text.push_str("exit: ");
        text.push_str(&exit);
        text.push_str("\noutput: ");
        self.output.write_text(&mut text);
        if self.output_held_open {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("note: a background process kept the output open; it was not waited for");
        }
        for aside in &self.set_aside {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&aside.to_string());
        }
        text
    }
}

fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.3} s")
    }
}

fn signal_name(signal: i32) -> &'static str {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str())
        .unwrap_or("unknown signal")
}
