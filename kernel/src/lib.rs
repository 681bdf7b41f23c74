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
//!   workspace or from the integrator's home), `LC_CTYPE=C.UTF-8` (UTF-8
//!   characters; every other locale category is C's, which C.UTF-8 shares),
//!   `TERM=dumb`, `TMPDIR` and the variables the integrator names: nothing
//!   of the parent's environment. Stdin is `/dev/null`. No file
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
//! - **Contained.** On Linux, by default, every call is confined by the
//!   operating system, per call, and the kernel says what applied
//!   ([`Kernel::confinement`], [`Outcome::confinement`]). The argument layers
//!   above decide what is *meant* to run; containment bounds what it *can
//!   do* when they miss:
//!
//! | threat | mechanism | what remains |
//! |---|---|---|
//! | read the user's files | Landlock: read only the workspace, the system folders programs start from (`/usr`, `/lib`...) and a few `/etc` files | whatever those folders hold is readable (`/etc/passwd`, `/usr/share`) |
//! | write outside the workspace, or at all in a read-only call | Landlock write rights only on the workspace, and only for an [`Access::WriteWorkspace`] call; in the call's mount namespace every mount is read-only but the call's tmpfs and, for a write call, the workspace (Landlock does not cover a file's mode, times or extended attributes, which a write call could otherwise change on any file its user owns); seccomp also refuses `chmod`, `chown`, `utime`, `truncate`, xattrs and inode flags (`chattr`'s `ioctl`s, fs-verity, an encryption policy) in read-only calls; without mount namespaces, a write call's changes of metadata (`chmod`, `chown`, `utime`, extended attributes, and `truncate`, which Landlock covers from ABI 3 only: by path, by their `*at` forms, which an `O_PATH` descriptor opened anywhere would reach, and by descriptor, which a file the call may read, in a folder of the search path, would) go to the call's reaper (a seccomp listener), which resolves the path as the program's thread would, refusing `/proc`'s magic links, and makes the change on its own descriptor only inside the workspace and the call's temporary folder (extended attributes and inode flags: not supported); never device nodes | a write call may change anything in its workspace; without mount namespaces and without a reaper (no `/proc/thread-self/children`), a write call may change the metadata of files its user owns outside it |
//! | start another program (`find -exec`, `sed e`, a repository's filter) | seccomp allows exactly one `execve`, the kernel's own: its path, argv and envp pointers are pinned in the filter, `execveat` is refused; Landlock `EXECUTE` only on the resolved program and its loader (ELF `PT_INTERP`, `#!` interpreter) behind it (alone it would let the loader, run directly, load any readable program) | the program itself runs whatever it interprets in-process |
//! | network | seccomp refuses `socket()` for every family (a `socketpair` of Unix stream or seqpacket sockets is allowed: a datagram socket sends to any socket file it names), `bind`, `connect`, `listen` and io_uring, checks the architecture and refuses the x32 ABI; Landlock TCP rules and scoping behind it | none from the call itself |
//! | the integrator's environment and memory | every capability dropped (bounding set, securebits), `no_new_privs`; Landlock ptrace and signal scoping; without a PID namespace, the call's reaper sends its signals to processes by number or descriptor (`kill` but to its own group, `tkill`, `tgkill`, `rt_sigqueueinfo`, `pidfd_send_signal`), and only to the call's own processes (its descendants, pinned by a pidfd); a private `/proc` in a PID namespace, mounted `hidepid=4`, where the program sees only the processes it may inspect (itself and its children, not the call's init, a clone of the integrator whose command line it would show) | none (on a kernel older than 5.8, the init's command line); without a PID namespace, without Landlock's signal scoping (Linux 6.12) and without a reaper (no `/proc/thread-self/children`), a program can still signal any process of its user; a signal to a thread by number (`tgkill`) is sent by number after its check, so a thread that ended meanwhile and whose number another process took at once would get it |
//! | slowing the integrator and the user's other processes down (a priority, an I/O class or processors set for another process, or for every process of the user at once) | seccomp refuses `setpriority`, `ioprio_set`, `sched_setaffinity`, `sched_set*` and `prlimit` for any process but the caller's own (and for its user's, `PRIO_USER` and `IOPRIO_WHO_USER`, whose 0 means the whole user); a PID namespace keeps every other process out of sight besides | a program may set those of its own process group (the call's) |
//! | the parts of the operating system only a namespace's root reaches (mounts, network configuration, where many of its exploitable flaws have been) | seccomp refuses every new namespace (`unshare`, `clone` with a `CLONE_NEW*` flag; `clone3`, whose flags it cannot read, is "not implemented", and the C library falls back to `clone`) and the kernel's log | none |
//! | typing into the integrator's terminal (`TIOCSTI` pushes input that the user's shell reads once the integrator is done) | every call leads a session of its own, without a controlling terminal (pushing input needs one, or `CAP_SYS_ADMIN`, which no program has); seccomp refuses `TIOCSTI` and `TIOCLINUX`; Landlock keeps `/dev/tty` and the terminals out of reach | none (an uncontained program as root may still push into any terminal) |
//! | outliving the call (`setsid`, double fork), SIGKILL of the integrator | the call's init is PID 1 of a fresh PID namespace: when the program ends or the init is killed, the operating system kills everything of the call; the init dies with the thread that cloned it (`PR_SET_PDEATHSIG`), a `jig-init` thread that lives until the init has exited; the init shares the integrator's memory (`CLONE_VM`, nothing copied) and never allocates | without user namespaces (reported), a reaper between the integrator and the program (the child subreaper of all it starts, which lists its children in `/proc/thread-self/children`) ends every process of the call at its end, at its timeout (asked by a signal it handles, never killed first) and when the integrator's thread is gone (its parent-death signal); where that file does not exist, only the process group is ended |
//! | fork bombs, huge files, endless CPU | `RLIMIT_NPROC` in the call's own user namespace; as root (which the operating system exempts from it) a process that expects more calls clones each call's init into a pids cgroup of its init thread's, limited to the bound (and the few processes of jig's own it holds), and the init counts the call's tasks every 2 ms and ends the call past the bound (a pids cgroup without namespaces; without either, as an unprivileged user, `RLIMIT_NPROC` set to the user's task count when the call starts plus the bound); `RLIMIT_FSIZE`, `RLIMIT_CPU` as a backstop to the timeout, no core files, optional `RLIMIT_AS` ([`Limits`]); the program's `oom_score_adj` at its most (1000), which it cannot lower (Landlock refuses writing `/proc`), so the out-of-memory killer ends the call's processes before the integrator | memory is bounded only where [`Limits::max_memory`] is set (otherwise the machine's memory is, with the call ended first); as root in a process that makes one call (`jig call`), or where no pids cgroup can be made, only the 2 ms count bounds it, and a bomb faster than that can briefly pass the bound before it is ended |
//! | filling the disk through `TMPDIR` | a private temporary folder per call, a size-bounded tmpfs in the call's mount namespace, gone with the call's namespace whatever happened | without mount namespaces, only the per-file limit bounds it |
//!
//! # How a contained call starts
//!
//! Everything that allocates is prepared in the parent: argv and
//! environment, the Landlock ruleset (for the program's own files), the
//! seccomp program (compiled once per kernel). One raw `clone` then makes
//! the call's init, in new user, PID and mount namespaces; it writes its
//! identity maps, makes mounts private and read-only (the workspace
//! writable again for a call that may write), mounts the call's tmpfs and a
//! private `/proc` (and grants them in the ruleset: Landlock ignores rules
//! on a folder hidden by a mount), starts the program and waits. The program
//! sets its stdio, workspace and limits, drops every capability, enforces
//! Landlock and seccomp and calls `execve`. From `clone` to `execve` only raw,
//! async-signal-safe system calls run. A `pre_exec` hook could not create
//! the init that a PID namespace needs, and a re-executed helper binary
//! would not exist for a library user who never installs `jig`: the clone
//! gives both, with every `unsafe` in this crate. A kernel built with
//! [`Containment::required`] fails to build where a mechanism is missing;
//! [`KernelBuilder::dangerous_no_containment`] runs programs with a plain
//! fork, in a session of their own, and nothing more.
//!
//! What a contained start costs, and what keeps it cheap (`cargo xtask
//! bench` reports the figure of each tier, one mechanism left out at a
//! time with [`KernelBuilder::dangerous_without`]):
//!
//! - the init of the next call is made ahead, while a call runs (a *warm*
//!   init): the clone into its namespaces, its identity maps, its private
//!   mounts and `/proc`, and what its program would otherwise do first
//!   (every signal back to its default action, the bounding set emptied,
//!   both inherited by the program) are done when the call comes, which
//!   sends it the
//!   address of its plan and, over a socket (`SCM_RIGHTS`), its
//!   descriptors; the warm init then mounts the call's tmpfs (unless the
//!   one it mounted ahead, as the call before asked for it, is the
//!   call's: same folder, same options) and goes on
//!   as an init cloned for the call (`ps` shows it as `jig-waiting` until
//!   then, `jig-call` after). It serves one call only; between
//!   calls it holds nothing of the integrator (its descriptors closed, its
//!   standard streams `/dev/null`), and it dies with the thread that made
//!   it. A warm init that is not ready or does not fit the call is ended
//!   and the init cloned as before; at most two wait at once. Its mounts
//!   are those of the integrator when it was made: a file system mounted
//!   later is seen from the call after next. The next call's warm init is
//!   made once the call's program has started (with few processors,
//!   making it earlier delays that start), and only in a process that
//!   expects more calls ([`Expect`], told to [`probe_ahead`]): a process
//!   that makes one call and exits (`jig call`) gets its call's init made
//!   ahead and no other, and that init, once it has reported, waits to end
//!   with the process, so that its exit (the namespaces' teardown and the
//!   shared memory's) comes after the process's own;
//! - the init starts the program as `posix_spawn` does (`CLONE_VM |
//!   CLONE_VFORK`, on a stack of its own until `execve`): no page of the
//!   init is copied for it;
//! - a warm init also *arms* its call's program ahead, when the call
//!   before had a private `/proc`: it clones the program's process, which
//!   installs the seccomp filter that call had (translating, compiling and
//!   caching a filter was the dearest step of a program's set-up) and
//!   waits (`ps` shows `jig-armed`). A call with the same filter, whose
//!   command fits in the process's space, wakes it instead of a clone; it
//!   does the rest of a program's set-up, copies its command into that
//!   space and calls `execve` with the pointers its filter pins. The init
//!   keeps the filter's listener descriptor until it exits, so the
//!   filter's freeing (a worker that would preempt the program's exit)
//!   comes after the report. Any other call ends the armed process and
//!   clones its program;
//! - when the program has ended, the init kills and reaps every other
//!   process of the call, then reports the program's status and yields
//!   its processor; the parent returns on that report, and the init's own
//!   exit, where the operating system tears the namespaces down (a large
//!   part of a call), is reaped by a background thread. An init killed
//!   before it could report is waited for, until the operating system has
//!   ended the whole call;
//! - the parent waits for that report first (a moment at most) and reads
//!   the output once it is complete: a short call wakes it once, not once
//!   per write of its program; past that moment the output is read as it
//!   comes;
//! - the calls mount their tmpfs on one folder per user, `jig-<uid>` under
//!   the temporary base, made once and left in place (each call in its own
//!   mount namespace, so each sees only its own), instead of making and
//!   removing a folder per call or per kernel: on ext4 a folder's removal is
//!   a journal transaction, milliseconds with `discard`, which a harness
//!   that starts `jig call` once per call paid every time; the build's
//!   namespace probe mounts over the base itself, in its own namespace;
//! - a pids cgroup is probed only where the namespaces do not bound the
//!   process count themselves; as root, each init thread of a process that
//!   expects more calls moves once into a pids cgroup of its own (the
//!   first move of a thread waits for an RCU grace period, about 10 ms)
//!   and its inits start there, so no call moves anything;
//! - the ruleset is made per call (the init adds the rules of its own
//!   mounts to it, which must reach no other call) from descriptors kept
//!   open between calls, each checked by one `stat` (at most once a
//!   second) to still name the same file; in a process that expects more
//!   calls, the init thread makes the next one while a call's program
//!   runs, with the rules that call had, and a call whose rules (files and
//!   rights) are exactly those takes it instead of making its own; the
//!   files that start a program
//!   (ELF loader, `#!` interpreter) are remembered while every file read to
//!   learn them keeps its inode, size and times;
//! - the search for secret files to hide ([`KernelBuilder::mask_files`])
//!   lists a folder of the root again only when the folder has changed
//!   (its inode, size, link count or times differ from those of its last
//!   listing), and trusts a listing only once the folder's last change is a
//!   few seconds older than it and on a file system that keeps exact times
//!   (see `contain::masked`): a `node_modules` of thousands of packages
//!   cost milliseconds at every call;
//! - the seccomp filter decides by a short tree of comparisons: the
//!   operating system runs a new filter once per system-call number to
//!   build its cache of always-allowed calls, and compiles it to machine
//!   code, at every call;
//! - the program resets only the signals its process catches or ignores,
//!   read from `/proc/self/status`, not all 62 one by one; protected paths
//!   inside the root are resolved by one `lstat` per component instead of
//!   a `readlink` of every component from `/`; and an init that bounds the
//!   process count itself waits one interval before it first counts, so a
//!   short program is never counted.
//!
//! # Non-goals
//!
//! Deciding which argv is acceptable is the job of `jig-lineage` and
//! `jig-exec-tool`. The kernel knows nothing of tools, slots, policies or
//! models; it learns from its caller only whether a call may write.
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
//! None. Linux is the supported platform (the kernel reads `/proc/self/fd`,
//! uses `waitid`, `clone`, Landlock and seccomp).
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
pub use contain::{
    Access, Confinement, Containment, Expect, Mechanism, probe_ahead, script_interpreter,
};
pub use error::KernelError;
pub use kernel::{
    DEFAULT_HOME, DEFAULT_SEARCH_PATH, DEFAULT_TMPDIR, Kernel, KernelBuilder, resolve_program,
};
pub use limits::{
    DEFAULT_DRAIN, DEFAULT_GRACE, DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_OUTPUT, DEFAULT_MAX_PROCESSES,
    DEFAULT_MAX_TMP, DEFAULT_TIMEOUT, Limits,
};
pub use outcome::{Ended, Outcome, SetAside, Status};
pub use run::RunOptions;
