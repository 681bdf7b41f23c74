//! The jig kernel runs one already-validated argv, bounded.
//!
//! Every command tool of jig, whatever its form, ends here. The layers above
//! decide *what* may run; the kernel decides nothing about that and only makes
//! sure that *how* it runs is bounded and clean.
//!
//! # Guarantees
//!
//! - **No shell.** The program is executed directly with the argv it is
//!   given. A bare program name is resolved to an absolute path on a fixed,
//!   configurable search path (default `/usr/local/bin:/usr/bin:/bin`), never
//!   on the parent's `PATH`.
//! - **Locked working directory.** Every run happens in the workspace root,
//!   which is canonicalized when the kernel is built; a missing root is an
//!   error ([`KernelError::RootMissing`]), never a fallback.
//! - **Clean environment.** The child gets `PATH`, `HOME` (by default a
//!   folder that does not exist, so no program reads configuration from the
//!   workspace or from the integrator's home),
//!   `LANG=C.UTF-8`, `TERM=dumb`, `TMPDIR` and the variables the integrator
//!   names: nothing of the parent's environment. Stdin is `/dev/null`. No file
//!   descriptor beyond 0, 1 and 2 is inherited.
//! - **Whole process tree ended.** The child leads its own process group. On
//!   timeout or cancellation the group gets `SIGTERM`, a short grace, then
//!   `SIGKILL`; when the child exits by itself, whatever it left running in
//!   its group is killed. The child is always reaped. A descendant that left
//!   the group (`setsid`) and holds the output open cannot hang a call: after
//!   a bounded drain the call returns and says so.
//! - **Bounded output.** Stdout and stderr share one pipe, so their order is
//!   the order of writing. A head and a tail are kept (2048 bytes in all by
//!   default); everything between is read, counted and dropped, so a child
//!   that writes gigabytes neither blocks nor grows memory, and its exit
//!   code is real. An optional flood limit ends a child that writes without
//!   end. Rendering never splits a UTF-8 character; invalid UTF-8 and
//!   control bytes render as visible replacements.
//!
//! # Non-goals
//!
//! The kernel does **not** confine what the program reads or writes, which
//! network it reaches, or how much memory it takes: deciding which argv is
//! acceptable is the job of `jig-lineage` and `jig-exec-tool`, and containing
//! an acceptable program is the job of an operating-system sandbox around the
//! whole agent. It knows nothing of tools, slots, policies or models.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use jig_kernel::{Kernel, Limits};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let workspace = tempfile::tempdir()?;
//! let kernel = Kernel::builder(workspace.path())
//!     .limits(Limits::default().with_timeout(Duration::from_secs(5)))
//!     .build()?;
//! let outcome = kernel.run(&["echo", "hello"])?;
//! assert_eq!(outcome.exit_code(), Some(0));
//! assert_eq!(outcome.render(), "exit: 0\noutput: hello\n");
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! None. Linux is the supported platform (the kernel reads `/proc/self/fd`
//! and uses `waitid`).
#![deny(unsafe_code)]
#![allow(clippy::disallowed_methods)] // the kernel is the one crate that spawns

mod cancel;
mod capture;
mod contain;
mod error;
mod fds;
mod kernel;
mod limits;
mod outcome;
mod run;

pub use cancel::CancelToken;
pub use capture::Output;
pub use contain::{Access, Confinement, Containment};
pub use error::KernelError;
pub use kernel::{DEFAULT_HOME, DEFAULT_SEARCH_PATH, Kernel, KernelBuilder};
pub use limits::{
    DEFAULT_DRAIN, DEFAULT_GRACE, DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_OUTPUT, DEFAULT_MAX_PROCESSES,
    DEFAULT_MAX_TMP, DEFAULT_TIMEOUT, Limits,
};
pub use outcome::{Ended, Outcome, Status};
pub use run::RunOptions;
