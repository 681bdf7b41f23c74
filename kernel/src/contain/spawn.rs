//! Starting a contained child: one raw `clone` from the parent, then only
//! raw, async-signal-safe system calls until `execve`.
//!
//! Everything that allocates (argv, environment, the Landlock ruleset, the
//! seccomp program, the mount options) is prepared by the parent; the child
//! only reads it. With namespaces the clone makes the child the init (PID 1)
//! of a fresh user, PID and mount namespace: it writes its identity maps,
//! mounts the call's tmpfs and a private `/proc`, starts the program (sharing
//! its memory until `execve`, as `posix_spawn` does) and waits. When the
//! program ends, the init kills and reaps whatever else of the call is
//! still alive (`setsid` and double-fork escapes included), reports the
//! program's status and exits; if the init itself is killed first, the
//! operating system kills the rest before the init can be reaped. Without
//! namespaces the clone is a plain fork of the program. The part of an
//! init's work that does not depend on its call is usually done ahead, by
//! a warm init ([`super::warm`]).

use std::ffi::{CStr, CString};
use std::os::fd::RawFd;
use std::path::Path;

use libc::{c_char, c_int, c_long};

/// Where a child failed, reported through the report pipe with the errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Stage {
    /// The parent was gone before the child started.
    ParentGone = 1,
    /// Writing `/proc/self/setgroups`.
    Setgroups,
    /// Writing `/proc/self/uid_map`.
    UidMap,
    /// Writing `/proc/self/gid_map`.
    GidMap,
    /// Making every mount private to the call.
    MountPrivate,
    /// Mounting the call's temporary folder.
    MountTmp,
    /// Mounting the call's `/proc`.
    MountProc,
    /// Making protected paths read-only.
    ProtectPaths,
    /// Hiding secret files.
    MaskFiles,
    /// Forking the program from the call's init.
    Fork,
    /// Setting up stdin, stdout and stderr.
    Stdio,
    /// Entering the workspace.
    Chdir,
    /// Setting resource limits.
    Rlimit,
    /// Dropping capabilities.
    Capabilities,
    /// Setting `no_new_privs`.
    NoNewPrivs,
    /// Enforcing the Landlock ruleset.
    Landlock,
    /// Installing the seccomp filter.
    Seccomp,
    /// Executing the program.
    Exec,
    /// Leading a session of its own (and its process group).
    ProcessGroup,
    /// Making every mount read-only.
    MountReadOnly,
    /// Making the workspace writable again, for a call that may write.
    WritableWorkspace,
    /// Becoming the reaper of the call's processes, where it has no PID
    /// namespace.
    Reaper,
}

/// Every stage with what it does, for error messages.
const STAGES: [(Stage, &str); 22] = [
    (Stage::ParentGone, "check the parent"),
    (Stage::Setgroups, "deny setgroups in the user namespace"),
    (Stage::UidMap, "write the user id map"),
    (Stage::GidMap, "write the group id map"),
    (Stage::MountPrivate, "make mounts private"),
    (Stage::MountTmp, "mount the temporary folder"),
    (Stage::MountProc, "mount a private /proc"),
    (Stage::ProtectPaths, "make protected paths read-only"),
    (Stage::MaskFiles, "hide secret files"),
    (Stage::Fork, "fork the program"),
    (Stage::Stdio, "set up stdin and the output pipe"),
    (Stage::Chdir, "enter the workspace"),
    (Stage::Rlimit, "set resource limits"),
    (Stage::Capabilities, "drop capabilities"),
    (Stage::NoNewPrivs, "set no_new_privs"),
    (Stage::Landlock, "enforce the landlock ruleset"),
    (Stage::Seccomp, "install the seccomp filter"),
    (Stage::Exec, "execute the program"),
    (Stage::ProcessGroup, "lead a session and process group"),
    (Stage::MountReadOnly, "make every mount read-only"),
    (Stage::WritableWorkspace, "make the workspace writable"),
    (
        Stage::Reaper,
        "become the reaper of the call's processes (/proc/thread-self/children)",
    ),
];

impl Stage {
    pub(crate) fn from_raw(raw: u32) -> Option<Stage> {
        STAGES
            .iter()
            .map(|(stage, _)| *stage)
            .find(|stage| *stage as u32 == raw)
    }

    /// What the stage does, for error messages.
    pub(crate) fn as_str(self) -> &'static str {
        STAGES
            .iter()
            .find(|(stage, _)| *stage == self)
            .map_or("start the program", |(_, text)| text)
    }
}

/// The namespace part of a child's plan.
#[derive(Clone, Copy)]
pub(crate) struct NsPlan<'a> {
    pub(crate) uid_map: &'a [u8],
    pub(crate) gid_map: &'a [u8],
    /// The call's temporary folder, where a tmpfs is mounted.
    pub(crate) tmp: &'a CStr,
    /// The tmpfs options (`size=...,mode=0700`).
    pub(crate) tmpfs_options: &'a CStr,
    /// Whether to mount a private `/proc`.
    pub(crate) proc: bool,
    /// Landlock rights granted on the tmpfs once mounted.
    pub(crate) tmp_rights: u64,
    /// The process bound the init enforces itself by counting (where the
    /// operating system's own bound does not apply: uid 0).
    pub(crate) watch_processes: Option<u64>,
    /// The call's process bound (`Limits::max_processes`), which the pids
    /// cgroup of an init thread enforces for uid 0 (see
    /// [`super::cgroup::ThreadPids`]).
    pub(crate) max_processes: u64,
    /// Once it has reported, the init waits to be ended with the thread
    /// that cloned it (`PR_SET_PDEATHSIG`) instead of exiting: in a
    /// process that makes one call and exits ([`super::Expect::OneCall`]),
    /// the init's exit (its namespaces' teardown and, as the last process
    /// sharing the integrator's memory, that memory's) then comes after the
    /// process's own, off the path of the process's exit.
    pub(crate) linger: bool,
    /// The workspace, for a call that may write, with the mount flags its
    /// file system has: every mount is read-only in the call's namespace
    /// ([`enter_namespaces`]), the workspace is mounted writable again.
    pub(crate) writable: Option<&'a (CString, libc::c_ulong)>,
    /// Folders bound on themselves so that they cannot be renamed (the
    /// folders above a protected path, for a call that may write).
    pub(crate) pinned: &'a [CString],
    /// Paths made read-only, with the mount flags their file system has
    /// (which a user namespace may not drop).
    pub(crate) read_only: &'a [(CString, libc::c_ulong)],
    /// Files hidden behind `/dev/null`.
    pub(crate) masked: &'a [CString],
    /// Landlock rights granted on the private `/proc` once mounted.
    pub(crate) proc_rights: u64,
}

/// Everything the child needs, prepared by the parent.
#[derive(Clone, Copy)]
pub(crate) struct ChildPlan<'a> {
    pub(crate) program: &'a CStr,
    /// Null-terminated.
    pub(crate) argv: &'a [*const c_char],
    /// Null-terminated.
    pub(crate) envp: &'a [*const c_char],
    pub(crate) cwd: &'a CStr,
    pub(crate) stdin: RawFd,
    pub(crate) output: RawFd,
    /// Write end of the report pipe (close-on-exec): a stage and an errno
    /// when the child fails before `execve`; end-of-file when it succeeds.
    pub(crate) report: RawFd,
    /// Write end of the status pipe, where the init writes the program's
    /// wait status (namespaces only; otherwise -1).
    pub(crate) status: RawFd,
    /// The Landlock ruleset, or -1.
    pub(crate) landlock: RawFd,
    /// Read end of the go pipe, or -1: the child waits for one byte (or
    /// end-of-file) before it forks or execs the program, so that the parent
    /// can first move it into the call's pids cgroup.
    pub(crate) go: RawFd,
    pub(crate) seccomp: Option<&'a libc::sock_fprog>,
    pub(crate) rlimits: &'a [(c_int, libc::rlimit)],
    pub(crate) namespaces: Option<NsPlan<'a>>,
    /// The top of a stack of [`PROGRAM_STACK`] bytes, for the program while
    /// it shares the init's memory (from its start to `execve`, as
    /// `posix_spawn` does), or null: the init forks it.
    pub(crate) program_stack: *mut libc::c_void,
    /// Probe only: set up the namespaces, then exit 0 without running
    /// anything.
    pub(crate) probe: bool,
    /// Set by a warm init on its copy of the plan: it has given every
    /// signal its default action (its own SIGTERM handler excepted) and
    /// emptied its bounding set before the call came, so the program,
    /// which inherits both, need not.
    pub(crate) prepared: bool,
    /// Held by the init until its program has started (called `execve`)
    /// or failed to, then closed: a warm init's socket, whose end-of-file
    /// tells the init thread that the next warm init can be made without
    /// delaying this call's program. Otherwise -1.
    pub(crate) started: RawFd,
    /// The seccomp filter's template and whether `execve` is pinned
    /// (`seccomp` is it, with this call's pointers written in): what an
    /// armed process must have installed to take the call.
    pub(crate) template: Option<Template<'a>>,
    /// Set by a warm init on its copy of the plan: its armed process takes
    /// the call (see [`super::armed`]).
    pub(crate) armed: Option<Armed>,
    /// Set by a warm init on its copy of the plan: the call's tmpfs, as
    /// the call asks for it, was mounted before the call came.
    pub(crate) tmp_mounted: bool,
    /// A call with a reaper (no namespaces): its metadata changes and
    /// signals go to the reaper ([`super::metadata`], [`super::signals`]).
    pub(crate) handed: Option<HandedPlan<'a>>,
}

/// How a call's metadata changes and signals reach its reaper.
#[derive(Clone, Copy)]
pub(crate) struct HandedPlan<'a> {
    /// The filter that hands them over, installed by the program with a
    /// listener before its own.
    pub(crate) filter: &'a libc::sock_fprog,
    /// A connected pair (close-on-exec): the program sends its listener
    /// over `program_socket`, the reaper takes it from `reaper_socket`.
    pub(crate) reaper_socket: RawFd,
    pub(crate) program_socket: RawFd,
    /// Where the reaper makes metadata changes.
    pub(crate) inside: super::metadata::Inside<'a>,
}

/// A call's seccomp filter, as an armed process is armed with it.
#[derive(Clone, Copy)]
pub(crate) struct Template<'a> {
    /// The compiled filter, without pinned pointers.
    pub(crate) program: &'a [seccompiler::sock_filter],
    /// Whether its `execve` is pinned (otherwise any `execve` is allowed).
    pub(crate) pinned: bool,
}

/// A warm init's armed process, taking the call.
#[derive(Clone, Copy)]
pub(crate) struct Armed {
    /// Its pid, in the call's PID namespace.
    pub(crate) pid: c_int,
    /// The address of its [`super::armed::ArmedSpace`].
    pub(crate) space: usize,
}

/// The size of the program's stack from its start to `execve`; the
/// program's side makes only raw system calls with small frames.
pub(crate) const PROGRAM_STACK: usize = 64 * 1024;

/// Clones the child described by `plan` and returns its pid (in the
/// parent's PID namespace).
pub(crate) fn clone_child(plan: &ChildPlan<'_>) -> std::io::Result<libc::pid_t> {
    let mut flags = libc::SIGCHLD as c_long;
    if plan.namespaces.is_some() {
        flags |= (libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS) as c_long;
    }
    #[expect(unsafe_code)]
    // SAFETY: a clone without CLONE_VM behaves like fork: the child gets a
    // copy of the address space and runs only `child_main`, which never
    // returns and makes only raw, async-signal-safe system calls on memory
    // the parent prepared (no allocation, no lock) before it execs or exits.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        #[expect(unsafe_code)]
        // SAFETY: this is the freshly cloned child (see above).
        unsafe {
            child_main(plan)
        }
    }
    libc::pid_t::try_from(pid).map_err(|_| std::io::Error::other("clone returned a bad pid"))
}

/// The size of the init's own stack when it shares the parent's memory: it
/// makes raw system calls with small frames (its largest is the 9 KiB of
/// buffers that count the call's processes).
const INIT_STACK: usize = 256 * 1024;

/// Anonymous memory with a guard page at its bottom (a stack that
/// overflows faults instead of writing below it), unmapped when dropped.
/// Pages are only allocated as they are touched.
pub(super) struct Mapping {
    base: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; it is only
// unmapped by `drop`, on whichever thread drops it.
#[expect(unsafe_code)]
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps `len` bytes (a multiple of the page size), the lowest page a
    /// guard.
    #[expect(unsafe_code)]
    pub(super) fn new(len: usize) -> std::io::Result<Mapping> {
        // SAFETY: a fresh anonymous private mapping; nothing else refers to
        // it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let mapping = Mapping { base, len };
        // SAFETY: the lowest page of the mapping just made.
        if unsafe { libc::mprotect(base, 4096, libc::PROT_NONE) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(mapping)
    }

    /// The mapping's lowest address (its guard page's).
    pub(super) fn base(&self) -> usize {
        self.base as usize
    }

    /// The 16-byte aligned top, where a stack on the whole mapping starts.
    fn top(&self) -> *mut libc::c_void {
        let top = self.base.cast::<u8>().wrapping_add(self.len);
        top.wrapping_sub(top as usize % 16).cast()
    }
}

impl Drop for Mapping {
    #[expect(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, used by no one any more (its
        // owner outlives every process that ran on it).
        unsafe { libc::munmap(self.base, self.len) };
    }
}

/// Memory mapped for an init's stack, unmapped when dropped.
pub(super) struct InitStack {
    stack: Mapping,
    /// Where the armed processes of inits on this stack run (init threads'
    /// stacks only; see [`super::armed`]).
    space: Option<super::armed::ArmedSpace>,
    /// The pids cgroup its inits start in: their init thread's (as uid 0
    /// only).
    pids: Option<std::sync::Arc<super::cgroup::ThreadPids>>,
}

impl InitStack {
    fn new(len: usize) -> std::io::Result<InitStack> {
        Ok(InitStack {
            stack: Mapping::new(len)?,
            space: None,
            pids: None,
        })
    }

    /// This stack with a space for its inits' armed processes (none when
    /// it cannot be mapped) and the pids cgroup its thread is in, if any.
    fn with_space(mut self, pids: Option<&std::sync::Arc<super::cgroup::ThreadPids>>) -> InitStack {
        self.space = super::armed::ArmedSpace::new();
        self.pids = pids.cloned();
        self
    }

    /// The pids cgroup of this stack's inits, if it has one.
    pub(super) fn pids(&self) -> Option<&std::sync::Arc<super::cgroup::ThreadPids>> {
        self.pids.as_ref()
    }

    /// The space for the armed processes of inits on this stack.
    pub(super) fn space(&self) -> Option<&super::armed::ArmedSpace> {
        self.space.as_ref()
    }

    /// The 16-byte aligned top, where the stack starts.
    fn top(&self) -> *mut libc::c_void {
        self.stack.top()
    }
}

/// Whether `pidfd_open` works here (Linux 5.3 and later), asked once.
fn pidfd_supported() -> bool {
    use std::sync::OnceLock;
    static SUPPORTED: OnceLock<bool> = OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        #[expect(unsafe_code)]
        // SAFETY: pidfd_open of this process reads no memory; the descriptor
        // is closed at once.
        unsafe {
            let fd = libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0);
            if fd >= 0 {
                libc::close(fd as c_int);
            }
            fd >= 0
        }
    })
}

/// Clones the call's init (namespaces only) sharing this process's memory,
/// as `posix_spawn` shares it with a child until `execve`: no page of a
/// large, many-threaded integrator is copied for each call (the copy and
/// the copy-on-write faults after it were the biggest cost of a contained
/// start in `jig mcp`).
///
/// The init outlives the clone, so it runs on its own mapped stack, and it
/// is cloned by an init thread (`jig-init`) whose thread-local state (errno)
/// it shares and may overwrite: that thread, while the init lives, only
/// waits on a pidfd until the init has exited, and reads nothing the init
/// may write. Init threads are kept for the next calls (at most
/// [`MAX_IDLE_INIT_THREADS`] idle), each with its stack and the warm init
/// it made for the next call, which the caller hands its call itself (one
/// thread fewer to wake on the call's path) before telling the thread.
/// Where `pidfd_open` does not exist, or no thread can start, the init is
/// cloned as a copy ([`clone_child`]).
pub(crate) fn clone_init_shared(plan: &ChildPlan<'_>) -> std::io::Result<libc::pid_t> {
    if plan.namespaces.is_none() || plan.probe || !pidfd_supported() {
        return clone_child(plan);
    }
    let (reply, answer) = std::sync::mpsc::sync_channel(1);
    let mut request = InitRequest::Clone {
        plan_address: plan as *const ChildPlan<'_> as usize,
        reply,
    };
    // (The list's lock is released before any wait.)
    let mut idle = take_idle();
    if idle.is_none() && FirstInitThread::wait() {
        idle = take_idle();
    }
    if let Some(IdleInit { thread, warm }) = idle {
        // The thread's warm init is handed the call here, on the caller's
        // thread: the init thread, told afterwards, is off the call's path.
        if let Some((running, program_start)) = warm.and_then(|warm| warm.hand_over(plan)) {
            let pid = running.pid;
            let handed = InitRequest::Handed {
                running,
                program_start,
                next: next_warm(plan),
            };
            match thread.send(handed) {
                Ok(()) => return Ok(pid),
                // Cannot happen (an init thread never ends while it is
                // listed idle): the init is ended, never left without the
                // thread that owns its stack, and the call fails rather
                // than run its program a second time.
                Err(std::sync::mpsc::SendError(unsent)) => {
                    unsent.abandon();
                    return Err(std::io::Error::other(
                        "the thread that cloned the init ended",
                    ));
                }
            }
        }
        match thread.send(request) {
            Ok(()) => return receive_pid(&answer),
            // The thread is gone: start another.
            Err(std::sync::mpsc::SendError(unsent)) => request = unsent,
        }
    }
    let stack = InitStack::new(INIT_STACK)?;
    let (to_thread, requests) = std::sync::mpsc::channel();
    let itself = to_thread.clone();
    let spawned = std::thread::Builder::new()
        .name("jig-init".to_owned())
        .stack_size(64 * 1024)
        .spawn(move || init_thread(stack, &requests, &itself, None));
    if spawned.is_err() || to_thread.send(request).is_err() {
        return clone_child(plan);
    }
    receive_pid(&answer)
}

/// Makes the calling thread an init thread for the calls to come (see
/// [`clone_init_shared`]): the first call then finds one waiting instead of
/// starting it, with a warm init ready (see [`super::warm`]) for calls
/// with a private `/proc` or without one, as `proc` says. Returns at once
/// where inits are cloned as copies, or when enough init threads wait
/// already; otherwise serves for as long as the process lives, as every
/// idle init thread does.
pub(crate) fn serve_as_init_thread(proc: bool, first: FirstInitThread) {
    if !pidfd_supported() {
        return;
    }
    let Ok(stack) = InitStack::new(INIT_STACK) else {
        return;
    };
    let (to_thread, requests) = std::sync::mpsc::channel();
    init_thread(stack, &requests, &to_thread, Some((proc, first)));
}

/// The promise of a first init thread ([`crate::probe_ahead`]'s): while it
/// is held, a call that finds no idle init thread waits for that one (a
/// moment at most: [`FirstInitThread::WAIT`]) rather than starting another,
/// which would clone its init cold while the first thread's warm init
/// waits for no call. Dropped once the thread is offered, or gives up.
pub(crate) struct FirstInitThread(());

/// Whether a first init thread is promised, and the signal that it came.
static FIRST_PENDING: (std::sync::Mutex<bool>, std::sync::Condvar) =
    (std::sync::Mutex::new(false), std::sync::Condvar::new());

impl FirstInitThread {
    /// How long a call waits for the promised thread at most.
    const WAIT: std::time::Duration = std::time::Duration::from_millis(50);

    /// Promises a first init thread.
    pub(crate) fn expect() -> FirstInitThread {
        *lock_pending() = true;
        FirstInitThread(())
    }

    /// Waits while a first init thread is promised; whether one was.
    fn wait() -> bool {
        let pending = lock_pending();
        if !*pending {
            return false;
        }
        let _ = FIRST_PENDING
            .1
            .wait_timeout_while(pending, Self::WAIT, |pending| *pending);
        true
    }
}

impl Drop for FirstInitThread {
    fn drop(&mut self) {
        *lock_pending() = false;
        FIRST_PENDING.1.notify_all();
    }
}

/// The promise's flag, locked.
fn lock_pending() -> std::sync::MutexGuard<'static, bool> {
    FIRST_PENDING
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// At most this many init threads wait for a call.
const MAX_IDLE_INIT_THREADS: usize = 64;

/// A request to an init thread.
enum InitRequest {
    /// Clone the init of the plan at this address, answer its pid (or the
    /// errno).
    Clone {
        plan_address: usize,
        reply: std::sync::mpsc::SyncSender<Result<libc::pid_t, i32>>,
    },
    /// The thread's warm init took a call (the caller handed it over): wait
    /// for its program's start, make the next warm init (as `next` says;
    /// none when `None`), wait for its exit.
    Handed {
        running: Running,
        program_start: super::warm::ProgramStart,
        next: Option<WarmKind>,
    },
}

impl InitRequest {
    /// Ends the init a `Handed` request was about, when no thread can take
    /// it: killed and waited for until it has exited.
    fn abandon(self) {
        if let InitRequest::Handed { running, .. } = self {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(running.pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            wait_exited(running.pidfd);
        }
    }
}

/// An idle init thread as the idle list holds it: how to reach it, and the
/// warm init it made for the next call, if any (taken with it).
struct IdleInit {
    thread: std::sync::mpsc::Sender<InitRequest>,
    warm: Option<super::warm::Warm>,
}

/// The idle init threads.
fn idle_init_threads() -> std::sync::MutexGuard<'static, Vec<IdleInit>> {
    use std::sync::{Mutex, OnceLock, PoisonError};
    static IDLE: OnceLock<Mutex<Vec<IdleInit>>> = OnceLock::new();
    IDLE.get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Takes an idle init thread for a call: the last offered of those with a
/// warm init, or the last offered when none has one. At most
/// [`super::warm`]'s bound of warm inits wait at once, so with more idle
/// threads than that some have none; the last offered (the one a call
/// ending just before gives back) may be one of them, or still be on its
/// way back while its init exits (the operating system tears its
/// namespaces down first): taking it would clone the call's init cold
/// while another thread's warm init waits for nothing.
fn take_idle() -> Option<IdleInit> {
    let mut idle = idle_init_threads();
    let at = pick(&idle, |thread| thread.warm.is_some())?;
    Some(idle.remove(at))
}

/// Where in `idle` (in the order offered) the thread to take is: the last
/// for which `warm` holds, or the last.
fn pick<T>(idle: &[T], warm: impl Fn(&T) -> bool) -> Option<usize> {
    idle.iter()
        .rposition(warm)
        .or_else(|| idle.len().checked_sub(1))
}

/// The answer of an init thread.
fn receive_pid(
    answer: &std::sync::mpsc::Receiver<Result<libc::pid_t, i32>>,
) -> std::io::Result<libc::pid_t> {
    match answer.recv() {
        Ok(Ok(pid)) => Ok(pid),
        Ok(Err(errno)) => Err(std::io::Error::from_raw_os_error(errno)),
        Err(_) => Err(std::io::Error::other(
            "the thread that clones the init ended",
        )),
    }
}

/// What a warm init is made for: a call with a private `/proc` or without,
/// the filter its armed process installs, if it has one, and the tmpfs it
/// mounts ahead (where, with which options), if any.
pub(super) struct WarmKind {
    pub(super) proc: bool,
    pub(super) arm: Option<ArmSpec>,
    pub(super) tmp: Option<(CString, CString)>,
    /// The process bound its init thread's pids cgroup starts with (a call with
    /// another sets its own when it is handed the init).
    pub(super) max_processes: u64,
}

/// The filter a warm init's armed process installs (see [`Template`]).
pub(super) struct ArmSpec {
    pub(super) program: Vec<seccompiler::sock_filter>,
    pub(super) pinned: bool,
}

impl ArmSpec {
    /// Whether a call of `template` can take a process armed with this.
    pub(super) fn fits(&self, template: Option<Template<'_>>) -> bool {
        template.is_some_and(|t| t.pinned == self.pinned && t.program == self.program.as_slice())
    }
}

/// Whether the next call gets a warm init after a call of `plan`, and what
/// for: as this call (its `/proc`, its filter), expecting the next one to
/// be alike; only in a process that expects more calls.
///
/// Its program is armed only with a private `/proc`: the pointers an armed
/// process's filter pins are those of a mapping of the integrator, which
/// the integrator's `/proc/PID/maps` would show a program that can read
/// it; with a private `/proc` no program sees the integrator at all.
fn next_warm(plan: &ChildPlan<'_>) -> Option<WarmKind> {
    warm_fit(plan)
        .filter(|_| super::expected() == super::Expect::Calls)
        .map(|proc| WarmKind {
            proc,
            arm: plan.template.filter(|_| proc).map(|template| ArmSpec {
                program: template.program.to_vec(),
                pinned: template.pinned,
            }),
            tmp: plan
                .namespaces
                .map(|ns| (ns.tmp.to_owned(), ns.tmpfs_options.to_owned())),
            max_processes: plan.namespaces.map_or(u64::MAX, |ns| ns.max_processes),
        })
}

/// An init thread: for each call, starts the call's init (or learns that
/// the caller handed the call to this thread's warm init), makes the next
/// call's warm init (with a private `/proc` or without, as this call has,
/// or as `warm` says before the first call) once this call's program has
/// started, waits until this call's init has exited, then offers itself,
/// with that warm init, for the next call (or ends, with enough idle
/// threads already).
///
/// It owns two stacks, `stack` and a spare: a call's init runs on one
/// while the next call's warm init is made on the other, off the path of
/// the call's answer. Each init runs on a stack no other init uses until
/// it has exited; a warm init writes nothing this thread reads. Without a
/// spare (it could not be mapped) no warm init is made. With `warm`, the
/// thread starts idle (its first warm init made); otherwise with a request
/// already sent.
fn init_thread(
    stack: InitStack,
    requests: &std::sync::mpsc::Receiver<InitRequest>,
    itself: &std::sync::mpsc::Sender<InitRequest>,
    warm: Option<(bool, FirstInitThread)>,
) {
    // As uid 0, this thread moves once into a pids cgroup of its own, which
    // every init it clones starts in (see `super::cgroup::ThreadPids`).
    let pids = super::cgroup::ThreadPids::new()
        .filter(|pids| pids.enter_thread().is_ok())
        .map(std::sync::Arc::new);
    let stack = stack.with_space(pids.as_ref());
    let spare = InitStack::new(INIT_STACK)
        .ok()
        .map(|spare| spare.with_space(pids.as_ref()));
    // The next call's init runs on `current` (where its warm init waits);
    // `other` is free while it runs.
    let (mut current, mut other) = (&stack, spare.as_ref());
    let start_warm = |stack: Option<&InitStack>, kind: Option<WarmKind>| {
        stack
            .zip(kind)
            .and_then(|(stack, kind)| super::warm::Warm::start(stack, kind))
    };
    let offer = |warm: Option<super::warm::Warm>| {
        let mut idle = idle_init_threads();
        if idle.len() >= MAX_IDLE_INIT_THREADS {
            drop(idle);
            if let Some(warm) = warm {
                warm.end();
            }
            return false;
        }
        idle.push(IdleInit {
            thread: itself.clone(),
            warm,
        });
        true
    };
    if let Some((proc, first)) = warm {
        // No call yet: no filter to arm a program with.
        let first_kind = WarmKind {
            proc,
            arm: None,
            tmp: None,
            max_processes: crate::Limits::default().max_processes,
        };
        let offered = offer(start_warm(other.map(|_| current), Some(first_kind)));
        // Offered (or not, with enough idle threads): the promise is over.
        drop(first);
        if !offered {
            return;
        }
    }
    for request in requests {
        let (started, program_start, next) = match request {
            InitRequest::Handed {
                running,
                program_start,
                next,
            } => (Ok(running), Some(program_start), next),
            InitRequest::Clone {
                plan_address,
                reply,
            } => {
                #[expect(unsafe_code)]
                // SAFETY: the requesting thread keeps its plan alive and
                // unchanged until the program has called `execve`, long
                // after this answer.
                let plan = unsafe { &*(plan_address as *const ChildPlan<'_>) };
                let next = next_warm(plan);
                // `current` is free: the caller took this thread's warm
                // init, if it had one, and ended it (it did not fit) or
                // there was none.
                let max = plan.namespaces.map_or(u64::MAX, |ns| ns.max_processes);
                let started = clone_on(current, init_entry, plan_address, max);
                let _ = reply.send(started.as_ref().map(|running| running.pid).map_err(|e| *e));
                (started, None, next)
            }
        };
        // The next warm init is made once this call's program has started:
        // with few processors, making it earlier delays that start.
        if let Some(program_start) = program_start {
            program_start.wait();
        }
        let expects_more = next.is_some();
        let waiting = start_warm(other, next);
        if expects_more {
            // The next call's Landlock ruleset, as this call's, while its
            // program runs.
            super::rules::make_ahead();
        }
        if let Ok(running) = started {
            wait_exited(running.pidfd);
        }
        if let Some(free) = other {
            other = Some(current);
            current = free;
        }
        if !offer(waiting) {
            return;
        }
    }
}

/// Whether a warm init can take a call of `plan`: only an init in
/// namespaces, which waits for no go byte (no pids cgroup to enter) and is
/// no probe; then whether it gets a private `/proc`, which the warm init
/// mounts ahead.
pub(super) fn warm_fit(plan: &ChildPlan<'_>) -> Option<bool> {
    plan.namespaces
        .filter(|_| plan.go < 0 && !plan.probe)
        .map(|ns| ns.proc)
}

/// An init started on an init thread's stack: its pid and a pidfd that
/// says when it has exited.
pub(super) struct Running {
    pub(super) pid: libc::pid_t,
    pub(super) pidfd: c_int,
}

/// Clones an init sharing this process's memory, in fresh user, PID and
/// mount namespaces, running `entry(arg)` on `stack`; opens its pidfd.
/// The caller waits until it has exited before `stack` serves again.
pub(super) fn clone_on(
    stack: &InitStack,
    entry: extern "C" fn(*mut libc::c_void) -> c_int,
    arg: usize,
    max_processes: u64,
) -> Result<Running, i32> {
    // As uid 0, the init starts in its thread's pids cgroup, limited to the
    // call's bound, so that it and every process of its call count from
    // their start. Where the limit cannot be set the init's count still
    // bounds the call.
    if let Some(pids) = stack.pids() {
        let _ = pids.limit(max_processes);
    }
    let flags = libc::CLONE_VM
        | libc::CLONE_NEWUSER
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNS
        | libc::SIGCHLD;
    #[expect(unsafe_code)]
    // SAFETY: the init shares this process's memory and runs only `entry`
    // on its own stack (`stack`, used by no other init: the caller waits
    // until this one has exited). `entry` reads only what `arg` points to,
    // which its owner keeps alive for as long as the init reads it (a
    // call's plan until the program has called `execve`, after which the
    // init uses only copies on its own stack; a warm init's setup until it
    // says it is ready). It makes raw, async-signal-safe system calls only,
    // never allocates or takes a lock; what it shares with this thread
    // (errno) this thread does not read until the init has exited.
    unsafe {
        let pid = libc::clone(entry, stack.top(), flags, arg as *mut libc::c_void);
        if pid < 0 {
            return Err(errno());
        }
        // Opened before anyone learns the pid, so the init cannot have
        // been reaped (and its pid reused) yet.
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as c_int;
        Ok(Running { pid, pidfd })
    }
}

/// Waits until the process behind `pidfd` has exited (its memory released),
/// then closes the descriptor. Raw `ppoll` through `syscall`: no cancellation
/// point, and errno (which the init may overwrite) is never read.
#[expect(unsafe_code)]
pub(super) fn wait_exited(pidfd: c_int) {
    if pidfd < 0 {
        // Cannot happen once pidfd_open worked for this process; without
        // a way to learn when the init is gone, its stack is left mapped
        // rather than unmapped under it.
        return leak_forever();
    }
    let mut poll = libc::pollfd {
        fd: pidfd,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: ppoll on one local pollfd, no timeout, no signal mask.
        let ready = unsafe {
            libc::syscall(
                libc::SYS_ppoll,
                &mut poll as *mut libc::pollfd,
                1usize,
                std::ptr::null::<libc::timespec>(),
                std::ptr::null::<libc::sigset_t>(),
                0usize,
            )
        };
        if ready > 0 {
            break;
        }
    }
    // SAFETY: closing the pidfd this thread opened.
    unsafe { libc::close(pidfd) };
}

/// Parks the calling thread for good (see [`wait_exited`]).
fn leak_forever() {
    loop {
        std::thread::park();
    }
}

/// The init's entry when it shares the parent's memory.
extern "C" fn init_entry(plan: *mut libc::c_void) -> c_int {
    #[expect(unsafe_code)]
    // SAFETY: `plan` is the spawning thread's `ChildPlan`, alive until the
    // program has called `execve` (see `clone_init_shared`) or, for a
    // probe, until the probe has exited (see `clone_probe`), and
    // `child_main` runs in this freshly cloned init.
    unsafe {
        child_main(&*plan.cast::<ChildPlan<'_>>())
    }
}

/// The Landlock ABI of the running kernel, if Landlock is enabled.
pub(crate) fn landlock_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    #[expect(unsafe_code)]
    // SAFETY: with a null attribute, size 0 and the VERSION flag, the call
    // reads no memory and only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(abi).ok().filter(|abi| *abi > 0)
}

/// Whether seccomp filters can be installed.
pub(crate) fn seccomp_available() -> bool {
    #[expect(unsafe_code)]
    // SAFETY: PR_GET_SECCOMP reads nothing from memory.
    let mode = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) };
    mode >= 0
}

/// Sets up user, PID and mount namespaces (and a private `/proc` when
/// `proc`) in a throwaway child, to learn whether calls can have them.
///
/// The child mounts its tmpfs over `tmp_base` itself, the folder under
/// which calls get theirs: in its own mount namespace that hides nothing
/// from anyone else, and it needs no folder of its own (making and removing
/// one is a journal transaction on ext4, milliseconds with `discard`).
pub(crate) fn probe_namespaces(tmp_base: &Path, proc: bool) -> Result<(), (Stage, i32)> {
    let failed = |errno: i32| (Stage::Fork, errno);
    let tmp_c = super::c_path(tmp_base).ok_or((Stage::MountTmp, libc::EINVAL))?;
    let (report_r, report_w) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| failed(e as i32))?;
    let argv = [std::ptr::null()];
    let (uid_map, gid_map) = super::identity_maps();
    use std::os::fd::AsRawFd;
    let plan = ChildPlan {
        program: c"/",
        argv: &argv,
        envp: &argv,
        cwd: c"/",
        stdin: -1,
        output: -1,
        report: report_w.as_raw_fd(),
        status: -1,
        landlock: -1,
        go: -1,
        seccomp: None,
        rlimits: &[],
        namespaces: Some(NsPlan {
            uid_map: &uid_map,
            gid_map: &gid_map,
            tmp: &tmp_c,
            tmpfs_options: c"size=65536,mode=0700",
            proc,
            tmp_rights: 0,
            proc_rights: 0,
            writable: None,
            pinned: &[],
            read_only: &[],
            masked: &[],
            watch_processes: None,
            max_processes: u64::MAX,
            linger: false,
        }),
        program_stack: std::ptr::null_mut(),
        probe: true,
        prepared: false,
        started: -1,
        template: None,
        armed: None,
        tmp_mounted: false,
        handed: None,
    };
    let pid = clone_probe(&plan).map_err(|e| failed(e.raw_os_error().unwrap_or(0)))?;
    drop(report_w);
    let mut record = [0u8; 8];
    let filled = read_record(&report_r, &mut record);
    // The probe has said how it went; its exit, which tears its namespaces
    // down (waiting for an RCU grace period), is reaped off this path.
    crate::run::reap_probe(nix::unistd::Pid::from_raw(pid));
    if filled < record.len() {
        // It ended without a word: killed, or a stage that cannot report.
        return Err((Stage::Fork, 0));
    }
    let stage = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
    let errno = i32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
    if stage == PROBE_PASSED {
        return Ok(());
    }
    Err((Stage::from_raw(stage).unwrap_or(Stage::Fork), errno))
}

/// What a probe writes on its report pipe when its namespaces work: a
/// record no [`Stage`] uses.
const PROBE_PASSED: u32 = u32::MAX;

/// Clones the probe of `plan` sharing this process's memory and waits
/// until it has exited (`CLONE_VFORK`: a probe never calls `execve`). A
/// probe that copied the memory (a fork) would make every page the process
/// writes afterwards fault once, on whichever thread writes it: the probe
/// runs while the rest of the process starts up ([`crate::probe_ahead`]).
/// Falls back to [`clone_child`] when no stack can be mapped.
fn clone_probe(plan: &ChildPlan<'_>) -> std::io::Result<libc::pid_t> {
    let Ok(stack) = InitStack::new(INIT_STACK) else {
        return clone_child(plan);
    };
    let flags = libc::CLONE_VM
        | libc::CLONE_VFORK
        | libc::CLONE_NEWUSER
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNS
        | libc::SIGCHLD;
    #[expect(unsafe_code)]
    // SAFETY: the probe shares this process's memory and runs only
    // `init_entry` on `stack`; with CLONE_VFORK this thread is suspended
    // until the probe has exited, so the plan (on this thread's stack) stays
    // alive and unchanged while the probe reads it, and what the probe
    // writes to the shared thread-local state (errno) is not read here
    // unless the clone itself failed (then no probe ran). The probe makes
    // raw, async-signal-safe system calls only, never allocates or takes a
    // lock.
    let pid = unsafe {
        libc::clone(
            init_entry,
            stack.top(),
            flags,
            plan as *const ChildPlan<'_> as *mut libc::c_void,
        )
    };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // The probe has exited (CLONE_VFORK): its stack is free.
    drop(stack);
    Ok(pid)
}

/// Reads the report pipe to its end: `None` when the child reached
/// `execve` (or, for a probe, exited cleanly), else the failed stage.
pub(crate) fn read_report(report: &impl std::os::fd::AsFd) -> Option<(Stage, i32)> {
    let mut record = [0u8; 8];
    if read_record(report, &mut record) < record.len() {
        return None;
    }
    let stage = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
    let errno = i32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
    Some((Stage::from_raw(stage).unwrap_or(Stage::Exec), errno))
}

/// Reads from `fd` until `record` is full or the writers are gone; returns
/// how many bytes came.
pub(crate) fn read_record(fd: &impl std::os::fd::AsFd, record: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < record.len() {
        match nix::unistd::read(fd, &mut record[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => break,
        }
    }
    filled
}

// ---------------------------------------------------------------------------
// The child side. Every function below runs after `clone` in a copy of a
// possibly multi-threaded process: raw system calls only, no allocation, no
// lock, no panic.
// ---------------------------------------------------------------------------

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// Every securebit that keeps uid 0 from regaining capabilities, locked.
const SECUREBITS_NO_ROOT: libc::c_ulong = 0xEF;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

#[expect(unsafe_code)]
pub(super) fn errno() -> i32 {
    // SAFETY: reading the calling thread's errno.
    unsafe { *libc::__errno_location() }
}

/// Writes a stage and errno to the report pipe and exits.
#[expect(unsafe_code)]
pub(super) fn fail(report: RawFd, stage: Stage, errno: i32) -> ! {
    let mut record = [0u8; 8];
    record[..4].copy_from_slice(&(stage as u32).to_ne_bytes());
    record[4..].copy_from_slice(&errno.to_ne_bytes());
    // SAFETY: raw write of a local buffer, then _exit; both async-signal-safe.
    unsafe {
        libc::write(report, record.as_ptr().cast(), record.len());
        libc::_exit(127)
    }
}

#[expect(unsafe_code)]
fn write_file(path: &CStr, data: &[u8]) -> Result<(), i32> {
    // SAFETY: raw open/write/close on a NUL-terminated path and a slice.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(errno());
        }
        let written = libc::write(fd, data.as_ptr().cast(), data.len());
        let result = if written == data.len() as isize {
            Ok(())
        } else {
            Err(errno())
        };
        libc::close(fd);
        result
    }
}

/// Closes every descriptor from 3 up except those in `keep`.
#[expect(unsafe_code)]
pub(super) fn close_others(keep: &mut [RawFd]) {
    keep.sort_unstable();
    let mut next: libc::c_uint = 3;
    let close_range = |from: libc::c_uint, to: libc::c_uint| {
        if from > to {
            return;
        }
        // SAFETY: closing descriptors this copy of the process owns.
        let done = unsafe { libc::syscall(libc::SYS_close_range, from, to, 0) };
        if done != 0 {
            let last = to.min(65_535);
            for fd in from..=last {
                // SAFETY: as above, one at a time where close_range is missing.
                unsafe { libc::close(fd as c_int) };
            }
        }
    };
    for &fd in keep.iter() {
        let Ok(fd) = libc::c_uint::try_from(fd) else {
            continue;
        };
        if fd >= next {
            if fd > next {
                close_range(next, fd - 1);
            }
            next = fd + 1;
        }
    }
    close_range(next, libc::c_uint::MAX);
}

/// Whether the parent is gone: the report pipe has no reader any more.
#[expect(unsafe_code)]
pub(super) fn parent_gone(report: RawFd) -> bool {
    let mut poll = libc::pollfd {
        fd: report,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: poll on one local pollfd, no timeout.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    ready > 0 && poll.revents & libc::POLLERR != 0
}

/// The init's SIGTERM handler: pass it on to every process of the call
/// (`kill(-1)` from a namespace's init reaches all the others in it).
extern "C" fn forward_terminate(_signal: c_int) {
    #[expect(unsafe_code)]
    // SAFETY: kill is async-signal-safe.
    unsafe {
        libc::kill(-1, libc::SIGTERM);
    }
}

/// The child's entry point.
///
/// # Safety
///
/// Must run only in a freshly cloned child (see [`clone_child`]).
#[expect(unsafe_code)]
unsafe fn child_main(plan: &ChildPlan<'_>) -> ! {
    // SAFETY: raw prctl; the parent waits on the report pipe until exec, so
    // the spawning thread is alive here unless the process died, which the
    // check below sees.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    if parent_gone(plan.report) {
        fail(plan.report, Stage::ParentGone, 0);
    }
    let (reaper_socket, program_socket) = plan
        .handed
        .map_or((-1, -1), |m| (m.reaper_socket, m.program_socket));
    let mut keep = [
        plan.stdin,
        plan.output,
        plan.report,
        plan.status,
        plan.landlock,
        plan.go,
        reaper_socket,
        program_socket,
    ];
    close_others(&mut keep);
    // A session of its own (and so a process group of its own): the call
    // has no controlling terminal, so no program of it can open the
    // integrator's (`/dev/tty`) or push input into it (`TIOCSTI` works only
    // on the caller's own terminal), even where Landlock does not keep it
    // from the terminal's device.
    // SAFETY: setsid on ourselves.
    if unsafe { libc::setsid() } < 0 {
        fail(plan.report, Stage::ProcessGroup, errno());
    }
    wait_for_go(plan.go);
    let Some(ns) = &plan.namespaces else {
        if plan.status >= 0 {
            reap_call(plan)
        }
        program_main(plan)
    };
    if let Err((stage, error)) = enter_namespaces(ns.uid_map, ns.gid_map, ns.proc) {
        fail(plan.report, stage, error);
    }
    run_call(plan)
}

/// The init's own setup in its fresh namespaces: its name, the identity
/// maps, every mount private, and the private `/proc` when `proc`. Nothing
/// of it depends on the call, so a warm init ([`super::warm`]) does it
/// before its call comes.
#[expect(unsafe_code)]
pub(super) fn enter_namespaces(
    uid_map: &[u8],
    gid_map: &[u8],
    proc: bool,
) -> Result<(), (Stage, i32)> {
    // SAFETY: raw prctl naming this process for observers (`ps` shows the
    // call's init as `jig-call`).
    unsafe { libc::prctl(libc::PR_SET_NAME, c"jig-call".as_ptr(), 0, 0, 0) };
    write_file(c"/proc/self/setgroups", b"deny").map_err(|e| (Stage::Setgroups, e))?;
    write_file(c"/proc/self/uid_map", uid_map).map_err(|e| (Stage::UidMap, e))?;
    write_file(c"/proc/self/gid_map", gid_map).map_err(|e| (Stage::GidMap, e))?;
    // SAFETY: mount calls on NUL-terminated static strings.
    unsafe {
        if libc::mount(
            c"none".as_ptr(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return Err((Stage::MountPrivate, errno()));
        }
        // Every mount read-only: Landlock bounds writing files, not their
        // metadata (mode, times, extended attributes), which a call that
        // may write the workspace could otherwise change anywhere its user
        // owns a file, through a path or a descriptor open for reading
        // (`chmod u+s` on a program of uid 0's, for an integrator running
        // as uid 0). A call that may write gets its workspace mounted
        // writable again ([`run_call`]); its tmpfs is mounted after this.
        // Writing to a device (`/dev/null`) is not writing its file system.
        let attr = MountAttr {
            attr_set: MOUNT_ATTR_RDONLY,
            attr_clr: 0,
            propagation: 0,
            userns_fd: 0,
        };
        if libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c"/".as_ptr(),
            libc::AT_RECURSIVE as libc::c_uint,
            &raw const attr,
            std::mem::size_of::<MountAttr>(),
        ) != 0
        {
            return Err((Stage::MountReadOnly, errno()));
        }
        // `hidepid=4` (ptraceable, Linux 5.8): a process sees in this /proc
        // only the processes it may inspect, whatever its groups. The
        // program (in a Landlock domain) may not inspect this init, a clone
        // of the integrator sharing its memory, so the integrator's command
        // line and memory maps stay out of its sight; it still sees itself
        // and its own children. This init sees all (it counts them). An
        // older kernel refuses the option: its /proc hides nothing.
        let proc_flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if proc
            && libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                proc_flags,
                c"hidepid=4".as_ptr().cast(),
            ) != 0
            && (errno() != libc::EINVAL
                || libc::mount(
                    c"proc".as_ptr(),
                    c"/proc".as_ptr(),
                    c"proc".as_ptr(),
                    proc_flags,
                    std::ptr::null(),
                ) != 0)
        {
            return Err((Stage::MountProc, errno()));
        }
        // What this /proc shows of the system beyond the call's processes
        // and that the call has no use for: the descriptions of the keys of
        // the integrator's user, and the IPC objects of the namespace the
        // call shares with it (refused to the program, still listed here).
        // A file this kernel does not have shows nothing.
        for file in PROC_HIDDEN {
            if !bind_dev_null(file) && errno() != libc::ENOENT {
                return Err((Stage::MountProc, errno()));
            }
        }
    }
    Ok(())
}

/// Files of a private `/proc` hidden behind `/dev/null`.
const PROC_HIDDEN: [&CStr; 5] = [
    c"/proc/keys",
    c"/proc/key-users",
    c"/proc/sysvipc/msg",
    c"/proc/sysvipc/sem",
    c"/proc/sysvipc/shm",
];

/// Binds `/dev/null` on the file `path`: whoever opens it reads nothing.
/// False (errno set) when it could not be.
fn bind_dev_null(path: &CStr) -> bool {
    #[expect(unsafe_code)]
    // SAFETY: a mount call on NUL-terminated strings.
    unsafe {
        libc::mount(
            c"/dev/null".as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        ) == 0
    }
}

/// Binds `path` (and what is mounted below it) on itself: a mount point of
/// its own, which cannot be renamed or removed. False (errno set) when it
/// could not be.
fn bind_here(path: &CStr) -> bool {
    #[expect(unsafe_code)]
    // SAFETY: a mount call on a NUL-terminated string.
    unsafe {
        libc::mount(
            path.as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ) == 0
    }
}

/// Remounts the bind at `path` with `flags` (read-only or not, and the
/// flags of its file system, which a user namespace may not drop). False
/// (errno set) when it could not be.
fn remount(path: &CStr, flags: libc::c_ulong) -> bool {
    #[expect(unsafe_code)]
    // SAFETY: a mount call on a NUL-terminated string.
    unsafe {
        libc::mount(
            std::ptr::null(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REMOUNT | flags,
            std::ptr::null(),
        ) == 0
    }
}

/// The argument of `mount_setattr` (Linux 5.12, before Landlock's 5.13).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// `MOUNT_ATTR_RDONLY`.
const MOUNT_ATTR_RDONLY: u64 = 1;

/// Mounts a call's tmpfs on `path` with `options`; false (errno set) when
/// it could not be.
pub(super) fn mount_tmp(path: &CStr, options: &CStr) -> bool {
    #[expect(unsafe_code)]
    // SAFETY: a mount call on NUL-terminated strings.
    unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            path.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        ) == 0
    }
}

/// The rest of a call's init, in namespaces already entered
/// ([`enter_namespaces`]): the call's tmpfs, its protected paths and
/// masked files, the late Landlock rules, then the program, its wait and
/// the end of the call. A probe exits once the mounts are made.
#[expect(unsafe_code)]
pub(super) fn run_call(plan: &ChildPlan<'_>) -> ! {
    let Some(ns) = &plan.namespaces else {
        program_main(plan)
    };
    if !plan.tmp_mounted && !mount_tmp(ns.tmp, ns.tmpfs_options) {
        fail(plan.report, Stage::MountTmp, errno());
    }
    if let Some((root, flags)) = ns.writable {
        // The bind is a mount of its own, made writable (a remount without
        // `MS_RDONLY`); what is mounted below the workspace stays read-only.
        if !bind_here(root) || !remount(root, *flags) {
            fail(plan.report, Stage::WritableWorkspace, errno());
        }
    }
    for folder in ns.pinned {
        if !bind_here(folder) {
            fail(plan.report, Stage::ProtectPaths, errno());
        }
    }
    for (path, flags) in ns.read_only {
        if !bind_here(path) || !remount(path, libc::MS_RDONLY | flags) {
            fail(plan.report, Stage::ProtectPaths, errno());
        }
    }
    for file in ns.masked {
        if !bind_dev_null(file) {
            fail(plan.report, Stage::MaskFiles, errno());
        }
    }
    if plan.landlock >= 0 {
        add_late_rule(plan.report, plan.landlock, ns.tmp, ns.tmp_rights);
        if ns.proc {
            add_late_rule(plan.report, plan.landlock, c"/proc", ns.proc_rights);
        }
    }
    if plan.probe {
        // The namespaces work: said at once, so that the prober need not
        // wait for this process's exit, which tears them down.
        let mut record = [0u8; 8];
        record[..4].copy_from_slice(&PROBE_PASSED.to_ne_bytes());
        // SAFETY: raw write of a local buffer, then _exit; both
        // async-signal-safe.
        unsafe {
            libc::write(plan.report, record.as_ptr().cast(), record.len());
            libc::_exit(0)
        }
    }
    // SAFETY: sigaction with a handler that only calls kill.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = forward_terminate as extern "C" fn(c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
    // With shared memory the plan may be gone once the program has called
    // `execve`: what the init needs after that is copied here first.
    let (report, stdin, output, landlock, status_pipe, started) = (
        plan.report,
        plan.stdin,
        plan.output,
        plan.landlock,
        plan.status,
        plan.started,
    );
    let watch_limit = ns.watch_processes.filter(|_| ns.proc);
    // The count's `/proc`, opened before the program exists: opened later,
    // the program could first lower this init's descriptor limit to
    // nothing (`prlimit` on a process of its own user) and so turn the
    // count off.
    let proc_fd = match watch_limit {
        // SAFETY: a raw open of a static path.
        Some(_) => unsafe {
            libc::open(
                c"/proc".as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        },
        None => -1,
    };
    if watch_limit.is_some() && proc_fd < 0 {
        fail(report, Stage::MountProc, errno());
    }
    let linger = ns.linger;
    let program = if let Some(armed) = plan.armed {
        // Its filter is installed: it goes on from its call's plan, in the
        // descriptor table it shared with this process, which takes a copy
        // first (see `super::armed`).
        super::armed::fire(armed.space, plan);
        c_long::from(armed.pid)
    } else {
        clone_program(plan)
    };
    if program < 0 {
        fail(report, Stage::Fork, errno());
    }
    // SAFETY: closing our copies; the program holds its own (`started`
    // too, until its `execve` closes it).
    unsafe {
        libc::close(report);
        libc::close(stdin);
        libc::close(output);
        if landlock >= 0 {
            libc::close(landlock);
        }
        if started >= 0 {
            libc::close(started);
        }
    }
    let (status, over_limit) = match watch_limit {
        Some(limit) => watch(program, limit, proc_fd),
        None => (wait_for(program), false),
    };
    end_the_call();
    let mut record = [0u8; 8];
    record[..4].copy_from_slice(&status.to_ne_bytes());
    record[4..].copy_from_slice(&i32::from(over_limit).to_ne_bytes());
    // SAFETY: one raw write, then _exit. Nothing of the call but this init
    // is left (`end_the_call`), so once the parent has read the status the
    // call is over, and the parent need not wait for the operating system
    // to tear the namespaces down as this process exits.
    unsafe {
        libc::write(status_pipe, record.as_ptr().cast(), record.len());
        // The parent, woken by the status, goes first where it waits for
        // this processor: this process's exit is the teardown, which it
        // need not wait for.
        libc::sched_yield();
        if linger {
            // Holding nothing of the call any more, until the thread that
            // cloned it ends.
            libc::close(status_pipe);
            loop {
                libc::pause();
            }
        }
        libc::_exit(0)
    }
}

/// Clones the program's process from the call's init (or reaper): its
/// pid, or -1 (errno set).
#[expect(unsafe_code)]
fn clone_program(plan: &ChildPlan<'_>) -> c_long {
    if plan.program_stack.is_null() {
        // SAFETY: as in `clone_child`: the program's process runs only
        // `program_main`, which never returns.
        let program =
            unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as c_long, 0, 0, 0, 0) };
        if program == 0 {
            program_main(plan)
        }
        program
    } else {
        // SAFETY: like `posix_spawn`, the program shares this process's
        // memory, on its own stack (prepared by the parent, used by nothing
        // else), until it calls `execve` or exits; this process is suspended
        // until then (CLONE_VFORK), so nothing it reads changes under it.
        // It runs only `program_entry`, which makes raw system calls and
        // never returns. No page of this process is copied for it.
        c_long::from(unsafe {
            libc::clone(
                program_entry,
                plan.program_stack,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (plan as *const ChildPlan<'_>).cast_mut().cast(),
            )
        })
    }
}

/// Whether `/proc/thread-self/children` lists a process's children here
/// (Linux 4.2 with `CONFIG_PROC_CHILDREN`, and `/proc` mounted), asked
/// once: a call without a PID namespace gets a reaper ([`reap_call`]) only
/// then.
pub(crate) fn children_listed() -> bool {
    use std::sync::OnceLock;
    static LISTED: OnceLock<bool> = OnceLock::new();
    *LISTED.get_or_init(|| std::fs::File::open("/proc/thread-self/children").is_ok())
}

/// What the reaper's signal handlers ask of it ([`reap_call`]).
static REAPER_ASKED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
/// Bit of [`REAPER_ASKED`]: pass SIGTERM on to every process of the call.
const ASKED_TERMINATE: u32 = 1;
/// Bit of [`REAPER_ASKED`]: end every process of the call now.
const ASKED_END: u32 = 2;

/// The signal that asks a call's reaper to end every process of the call
/// at once (the parent's last word after SIGTERM and its grace, and the
/// reaper's own when the integrator's thread that cloned it is gone).
pub(crate) const END_THE_CALL: nix::sys::signal::Signal = nix::sys::signal::Signal::SIGUSR1;

/// The reaper's handler: only notes what was asked (its wait for the
/// program is interrupted and acts on it).
extern "C" fn reaper_asked(signal: c_int) {
    let bit = if signal == END_THE_CALL as c_int {
        ASKED_END
    } else if signal == libc::SIGCHLD {
        0
    } else {
        ASKED_TERMINATE
    };
    REAPER_ASKED.fetch_or(bit, std::sync::atomic::Ordering::SeqCst);
}

/// The call's reaper where it has no PID namespace (no user namespaces on
/// the system): a process between the parent and the program, the
/// "child subreaper" of everything the program starts, so that a process
/// that leaves the call's process group and its parent (`setsid` and a
/// double fork) is still its child, which it ends with the call. Once the
/// program has exited (or the parent asks, or the integrator's thread that
/// cloned it is gone), it kills every process of the call
/// ([`end_descendants`]), reports the program's status like an init, and
/// exits. A SIGTERM (the parent's, to the process group) is passed on to
/// the processes that left the group too.
///
/// The parent uses a reaper only where `/proc/thread-self/children` lists
/// a process's children ([`children_listed`]): without it a reaper could
/// not find them.
#[expect(unsafe_code)]
fn reap_call(plan: &ChildPlan<'_>) -> ! {
    let (report, stdin, output, landlock, status_pipe) = (
        plan.report,
        plan.stdin,
        plan.output,
        plan.landlock,
        plan.status,
    );
    // SAFETY: raw calls on this process's own state, a static path and
    // local buffers; the handler only sets an atomic.
    unsafe {
        let children = libc::open(
            c"/proc/thread-self/children".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if children < 0 || libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            fail(report, Stage::Reaper, errno());
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = reaper_asked as extern "C" fn(c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        // No SA_RESTART: the wait below returns to act on it.
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        libc::sigaction(END_THE_CALL as c_int, &action, std::ptr::null_mut());
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        // Ended with the thread that cloned it, as before, but by a signal
        // it handles: it ends the call's processes, then itself.
        libc::prctl(libc::PR_SET_PDEATHSIG, END_THE_CALL as c_int, 0, 0, 0);
        if parent_gone(report) {
            fail(report, Stage::ParentGone, 0);
        }
        // With metadata changes to make for the program, a SIGCHLD must
        // interrupt the wait for them: its handler notes nothing.
        let mut watched: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut watched);
        if plan.handed.is_some() {
            libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut());
            for signal in [libc::SIGCHLD, libc::SIGTERM, END_THE_CALL as c_int] {
                libc::sigaddset(&mut watched, signal);
            }
            // Blocked but while waiting (`ppoll`): none is missed between
            // a check and the wait.
            libc::sigprocmask(libc::SIG_BLOCK, &watched, std::ptr::null_mut());
        }
        let program = clone_program(plan);
        if program < 0 {
            fail(report, Stage::Fork, errno());
        }
        let mut listener = -1;
        let mut inside = inside_of(plan);
        if let Some(metadata) = plan.handed {
            libc::close(metadata.program_socket);
            listener = super::metadata::receive_listener(metadata.reaper_socket);
            libc::close(metadata.reaper_socket);
            // The changes it makes for the program are made with the
            // program's rights: none of the capabilities it dropped. Where
            // they cannot be dropped, it makes none (the program runs: the
            // reaper does not exit for that).
            if !drop_own_capabilities() {
                inside = super::metadata::Inside::NOWHERE;
            }
        }
        if listener < 0 {
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        }
        libc::close(report);
        libc::close(stdin);
        libc::close(output);
        if landlock >= 0 {
            libc::close(landlock);
        }
        let mut program_status: Option<c_int> = None;
        loop {
            let mut status: c_int = 0;
            let flags = if listener >= 0 {
                libc::__WALL | libc::WNOHANG
            } else {
                libc::__WALL
            };
            let reaped = libc::waitpid(-1, &mut status, flags);
            if c_long::from(reaped) == program {
                program_status = Some(status);
                break;
            }
            let asked = REAPER_ASKED.swap(0, std::sync::atomic::Ordering::SeqCst);
            if asked & ASKED_END != 0 {
                break;
            }
            if asked & ASKED_TERMINATE != 0 {
                signal_children(children, libc::SIGTERM);
            }
            if reaped < 0 && errno() == libc::ECHILD {
                break;
            }
            if reaped != 0 || listener < 0 {
                continue;
            }
            // A child's exit, a signal, or a change to make.
            let mut wait = libc::pollfd {
                fd: listener,
                events: libc::POLLIN,
                revents: 0,
            };
            if libc::ppoll(&mut wait, 1, std::ptr::null(), &none) > 0 {
                let more = if wait.revents & libc::POLLIN != 0 {
                    super::metadata::answer_one(listener, inside)
                } else {
                    false
                };
                if !more {
                    // No process of the call holds the filter any more.
                    libc::close(listener);
                    listener = -1;
                    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
                }
            }
        }
        let ended = end_descendants(children, program);
        let status = program_status.or(ended).unwrap_or(libc::SIGKILL);
        let mut record = [0u8; 8];
        record[..4].copy_from_slice(&status.to_ne_bytes());
        libc::write(status_pipe, record.as_ptr().cast(), record.len());
        libc::_exit(0)
    }
}

/// Where the reaper of `plan` makes metadata changes.
fn inside_of<'a>(plan: &ChildPlan<'a>) -> super::metadata::Inside<'a> {
    plan.handed
        .map_or(super::metadata::Inside::NOWHERE, |metadata| metadata.inside)
}

/// Empties this process's capability sets (the reaper's, once its program
/// has dropped its own); whether they are empty.
#[expect(unsafe_code)]
fn drop_own_capabilities() -> bool {
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let empty = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset of this process's own sets from a local structure.
    unsafe { libc::syscall(libc::SYS_capset, &mut header, empty.as_ptr()) == 0 }
}

/// Sends `signal` to every child of this process listed in its
/// `/proc/thread-self/children` (open at `children`); whether it listed
/// any.
#[expect(unsafe_code)]
fn signal_children(children: c_int, signal: c_int) -> bool {
    let mut text = [0u8; 4096];
    let mut offset: libc::off_t = 0;
    let mut any = false;
    // A number cut by the end of one read is read whole by the next, which
    // starts where the last full one ended.
    loop {
        // SAFETY: a raw pread of our own descriptor into a local buffer.
        let read = unsafe { libc::pread(children, text.as_mut_ptr().cast(), text.len(), offset) };
        let Ok(read) = usize::try_from(read) else {
            return any;
        };
        if read == 0 {
            return any;
        }
        let chunk = &text[..read];
        let whole = if read == text.len() {
            chunk
                .iter()
                .rposition(|byte| *byte == b' ')
                .map_or(chunk, |space| &chunk[..=space])
        } else {
            chunk
        };
        for pid in whole.split(|byte| *byte == b' ') {
            if let Some(pid) = decimal(pid).and_then(|pid| libc::pid_t::try_from(pid).ok())
                && pid > 0
            {
                // SAFETY: a signal to a child of this process, which no
                // one else reaps: its pid cannot have been reused.
                unsafe { libc::kill(pid, signal) };
                any = true;
            }
        }
        if whole.is_empty() {
            return any;
        }
        offset += libc::off_t::try_from(whole.len()).unwrap_or(libc::off_t::MAX);
    }
}

/// Kills every process of the call, where it has no PID namespace: this
/// reaper's children (as listed at `children`), reaped, then the orphans
/// that their deaths make its children, until it has none. A process
/// killed cannot fork any more, and every process the call started is a
/// descendant of this subreaper, so the tree only shrinks. Returns the
/// program's wait status if it was reaped here.
#[expect(unsafe_code)]
fn end_descendants(children: c_int, program: c_long) -> Option<c_int> {
    let mut program_status = None;
    loop {
        signal_children(children, libc::SIGKILL);
        let mut reaped_any = false;
        loop {
            let mut status: c_int = 0;
            // SAFETY: a raw waitpid on a local status word.
            let reaped = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG | libc::__WALL) };
            if reaped < 0 {
                if errno() == libc::EINTR {
                    continue;
                }
                // ECHILD: no child left, so no process of the call.
                return program_status;
            }
            if reaped == 0 {
                break;
            }
            reaped_any = true;
            if c_long::from(reaped) == program {
                program_status = Some(status);
            }
        }
        if !reaped_any {
            // Killed, not yet reaped (or orphans not yet listed): a moment.
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 200_000,
            };
            // SAFETY: a raw nanosleep on a local duration.
            unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
        }
    }
}

/// Kills every other process of the call's PID namespace (`kill(-1)` from
/// its init reaches all of them; `SIGKILL` cannot be caught or ignored, and
/// a fork racing with it fails) and reaps them all, whatever their exit
/// signal (`__WALL`): orphans are reparented to this init before their
/// parent can be reaped, so when no child is left, no process of the call
/// is left.
#[expect(unsafe_code)]
fn end_the_call() {
    // SAFETY: kill and waitpid on no memory of ours.
    unsafe {
        libc::kill(-1, libc::SIGKILL);
        loop {
            if libc::waitpid(-1, std::ptr::null_mut(), libc::__WALL) < 0 && errno() != libc::EINTR {
                break;
            }
        }
    }
}

/// The init's wait: reaps every child until the program is reaped; its
/// wait status. A failed wait (interrupted by a signal) is tried again
/// while the program exists; `errno`, which an armed program shares with
/// this process until its `execve`, is not read.
#[expect(unsafe_code)]
fn wait_for(program: c_long) -> c_int {
    let mut status: c_int = 0;
    let Ok(pid) = libc::pid_t::try_from(program) else {
        return 0x7f00;
    };
    loop {
        // SAFETY: waitpid on a local status word; kill with signal 0 only
        // asks whether the process exists.
        unsafe {
            let reaped = libc::waitpid(-1, &mut status, libc::__WALL);
            if reaped == pid {
                return status;
            }
            if reaped < 0 && libc::kill(pid, 0) != 0 {
                return 0x7f00; // exit 127: the program vanished unreaped
            }
        }
    }
}

/// How often the init counts the call's processes when it must bound them
/// itself.
const WATCH_MILLIS: c_int = 2;

/// Every this many ticks the init counts the call's tasks whatever the
/// namespace's last pid says (see [`watch`]).
const COUNT_EVERY: u32 = 16;

/// The init's wait when the operating system cannot bound the call's
/// process count (uid 0 is exempt from `RLIMIT_NPROC`): it reaps, and every
/// [`WATCH_MILLIS`] counts the tasks (processes and threads) of its PID
/// namespace in the private `/proc`; past `limit`, it kills them all. Returns the program's
/// wait status and whether the limit ended it.
///
/// A count reads every task's `stat`; most ticks need none. The namespace
/// hands out its pids (threads' too) in increasing order from 1, so while
/// the last one given (its `ns_last_pid`, one read) is at most `limit`, so
/// are the tasks that exist. Once it has passed `limit` (or where it cannot
/// be read), every tick counts; and a count is made at least every
/// [`COUNT_EVERY`] ticks all the same, so that the bound would hold even if
/// the order did not (the numbers wrap only past the namespace's `pid_max`,
/// and only a process with capabilities there, which the program has not,
/// can set the last pid). The file is opened at the first tick, not
/// before: most programs end within one, and opening it makes the private
/// `/proc`'s `sys/kernel` entries, about 17 us, which would come before the
/// program starts.
#[expect(unsafe_code)]
fn watch(program: c_long, limit: u64, proc_fd: c_int) -> (c_int, bool) {
    // SAFETY: raw pidfd_open, poll, waitpid, openat, kill and close on
    // local values; `proc_fd` is this namespace's own /proc.
    unsafe {
        let exit_fd = libc::syscall(libc::SYS_pidfd_open, program, 0) as c_int;
        let mut over = false;
        let mut program_status = None;
        let mut last_pid_fd: Option<c_int> = None;
        let mut passed = false;
        let mut tick = 0u32;
        loop {
            // Wait first: a program that ends within the interval (most do)
            // is never counted.
            if exit_fd >= 0 {
                let mut poll = libc::pollfd {
                    fd: exit_fd,
                    events: libc::POLLIN,
                    revents: 0,
                };
                libc::poll(&mut poll, 1, WATCH_MILLIS);
            } else {
                let pause = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: i64::from(WATCH_MILLIS) * 1_000_000,
                };
                libc::nanosleep(&pause, std::ptr::null_mut());
            }
            let mut status: c_int = 0;
            loop {
                let reaped = libc::waitpid(-1, &mut status, libc::WNOHANG | libc::__WALL);
                if reaped <= 0 {
                    break;
                }
                if reaped as c_long == program {
                    program_status = Some(status);
                }
            }
            if let Some(status) = program_status {
                for fd in [proc_fd, last_pid_fd.unwrap_or(-1), exit_fd] {
                    if fd >= 0 {
                        libc::close(fd);
                    }
                }
                return (status, over);
            }
            if over {
                continue;
            }
            tick = tick.wrapping_add(1);
            let last_pid_fd = *last_pid_fd.get_or_insert_with(|| {
                libc::openat(
                    proc_fd,
                    c"sys/kernel/ns_last_pid".as_ptr(),
                    libc::O_RDONLY | libc::O_CLOEXEC,
                )
            });
            passed = passed || last_pid(last_pid_fd).is_none_or(|last| last > limit);
            if (passed || tick.is_multiple_of(COUNT_EVERY)) && count_processes(proc_fd) > limit {
                over = true;
                libc::kill(-1, libc::SIGKILL);
            }
        }
    }
}

/// The last pid the namespace handed out, read from its `ns_last_pid`
/// (`fd`); `None` when it cannot be read.
#[expect(unsafe_code)]
fn last_pid(fd: c_int) -> Option<u64> {
    let mut text = [0u8; 24];
    // SAFETY: one raw pread of our own descriptor into a local buffer.
    let read = unsafe { libc::pread(fd, text.as_mut_ptr().cast(), text.len(), 0) };
    let read = usize::try_from(read).ok()?;
    decimal(text.get(..read)?.trim_ascii())
}

/// The number written in `digits` (ASCII decimal, saturating); `None` when
/// it is empty or holds anything but digits.
fn decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &b| {
        b.is_ascii_digit()
            .then(|| n.saturating_mul(10).saturating_add(u64::from(b - b'0')))
    })
}

/// The number of tasks (processes and their threads, as `RLIMIT_NPROC`
/// counts them) of the namespace: every `/proc/<pid>/stat`'s thread count,
/// read with raw `getdents64`, `openat` and `read` into stack buffers.
fn count_processes(proc_fd: c_int) -> u64 {
    let mut count = 0u64;
    each_entry(proc_fd, |name| {
        if name.first().is_some_and(u8::is_ascii_digit) {
            count += threads_of(proc_fd, name);
        }
    });
    count
}

/// Calls `each` with the name of every entry of the folder open at `dir`
/// (NUL-terminated, as the kernel wrote it), from its start: raw
/// `getdents64` into a stack buffer.
#[expect(unsafe_code)]
pub(super) fn each_entry(dir: c_int, mut each: impl FnMut(&[u8])) {
    let mut buffer = [0u8; 8192];
    // SAFETY: lseek and getdents64 on our own descriptor into a local
    // buffer; each record is read within the length the kernel returned.
    unsafe {
        libc::lseek(dir, 0, libc::SEEK_SET);
        loop {
            let read = libc::syscall(libc::SYS_getdents64, dir, buffer.as_mut_ptr(), buffer.len());
            let Ok(read) = usize::try_from(read) else {
                return;
            };
            if read == 0 {
                return;
            }
            let mut offset = 0;
            // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16,
            // d_type u8, then the NUL-terminated name.
            while offset + 19 < read {
                let reclen = usize::from(u16::from_ne_bytes([
                    buffer[offset + 16],
                    buffer[offset + 17],
                ]));
                if reclen == 0 || offset + reclen > read {
                    return;
                }
                each(&buffer[offset + 19..offset + reclen]);
                offset += reclen;
            }
        }
    }
}

/// The thread count of the process whose `/proc` entry is `name` (NUL
/// terminated): field 20 of its `stat`; 1 when it cannot be read.
#[expect(unsafe_code)]
fn threads_of(proc_fd: c_int, name: &[u8]) -> u64 {
    let mut path = [0u8; 32];
    let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    if len + b"/stat\0".len() > path.len() {
        return 1;
    }
    path[..len].copy_from_slice(&name[..len]);
    path[len..len + 6].copy_from_slice(b"/stat\0");
    let mut stat = [0u8; 1024];
    // SAFETY: openat on a NUL-terminated local path relative to our own
    // /proc descriptor, one read into a local buffer, close.
    let read = unsafe {
        let fd = libc::openat(
            proc_fd,
            path.as_ptr().cast(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return 0;
        }
        let read = libc::read(fd, stat.as_mut_ptr().cast(), stat.len());
        libc::close(fd);
        read
    };
    let Ok(read) = usize::try_from(read) else {
        return 1;
    };
    let stat = &stat[..read.min(stat.len())];
    // After the command name's closing parenthesis: state is field 3, the
    // thread count field 20.
    let Some(close) = stat.iter().rposition(|&b| b == b')') else {
        return 1;
    };
    let field = stat[close + 1..]
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty())
        .nth(17);
    field.and_then(decimal).unwrap_or(1).max(1)
}

/// Waits for the parent's go byte (or end-of-file), then closes the pipe.
#[expect(unsafe_code)]
fn wait_for_go(go: RawFd) {
    if go < 0 {
        return;
    }
    let mut byte = 0u8;
    // SAFETY: raw read of one byte into a local, then close.
    unsafe {
        while libc::read(go, (&mut byte as *mut u8).cast(), 1) < 0 && errno() == libc::EINTR {}
        libc::close(go);
    }
}

/// `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
pub(crate) struct PathBeneathAttr {
    pub(crate) allowed_access: u64,
    pub(crate) parent_fd: c_int,
}

/// Adds a rule for `path` (as mounted now, in the call's namespace) to the
/// ruleset the program will enforce.
#[expect(unsafe_code)]
fn add_late_rule(report: RawFd, ruleset: RawFd, path: &CStr, rights: u64) {
    const LANDLOCK_RULE_PATH_BENEATH: c_int = 1;
    // SAFETY: raw open, landlock_add_rule on a local attribute, close.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            fail(report, Stage::Landlock, errno());
        }
        let attr = PathBeneathAttr {
            allowed_access: rights,
            parent_fd: fd,
        };
        let added = libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0,
        );
        let error = errno();
        libc::close(fd);
        if added != 0 {
            fail(report, Stage::Landlock, error);
        }
    }
}

/// Drops every capability from this process's bounding set (it needs
/// `CAP_SETPCAP`, which an init has in its own user namespace and the
/// program until it drops its capabilities); effective and permitted
/// capabilities stay as they are.
#[expect(unsafe_code)]
pub(super) fn empty_bounding_set() {
    for cap in 0..64 {
        // SAFETY: a raw prctl on this process's own bounding set.
        // Capabilities are numbered without gaps: the first invalid one
        // ends the list (cheaper than 64 calls).
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0
            && errno() == libc::EINVAL
        {
            break;
        }
    }
}

/// The program's entry when it shares the init's memory (see
/// [`ChildPlan::program_stack`]).
extern "C" fn program_entry(plan: *mut libc::c_void) -> c_int {
    #[expect(unsafe_code)]
    // SAFETY: `plan` is the init's `ChildPlan`, alive and unchanged: the
    // init is suspended until this process execs or exits.
    let plan = unsafe { &*plan.cast::<ChildPlan<'_>>() };
    program_main(plan)
}

/// The program's side: stdio, workspace, limits, privileges, Landlock,
/// seccomp, `execve`.
#[expect(unsafe_code)]
fn program_main(plan: &ChildPlan<'_>) -> ! {
    let report = plan.report;
    program_setup(plan);
    // SAFETY: raw calls on the child's own state and on the filter and
    // strings the parent prepared; see `child_main`.
    unsafe {
        if let Some(metadata) = plan.handed {
            // Before the call's own filter (which refuses sending
            // descriptors to no one, but this is the set-up's own): the
            // listener goes to the reaper, and no descriptor of it stays
            // here (the program holding it could answer for itself).
            const SET_MODE_FILTER: libc::c_ulong = 1;
            const FLAG_NEW_LISTENER: libc::c_ulong = 1 << 3;
            let listener = libc::syscall(
                libc::SYS_seccomp,
                SET_MODE_FILTER,
                FLAG_NEW_LISTENER,
                metadata.filter as *const libc::sock_fprog,
            );
            let Ok(listener) = c_int::try_from(listener) else {
                fail(report, Stage::Seccomp, errno());
            };
            if listener < 0 {
                fail(report, Stage::Seccomp, errno());
            }
            let sent = super::metadata::send_listener(metadata.program_socket, listener);
            libc::close(listener);
            libc::close(metadata.program_socket);
            libc::close(metadata.reaper_socket);
            if !sent {
                fail(report, Stage::Seccomp, errno());
            }
        }
        if let Some(filter) = plan.seccomp
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                filter as *const libc::sock_fprog,
                0,
                0,
            ) != 0
        {
            fail(report, Stage::Seccomp, errno());
        }
        libc::execve(
            plan.program.as_ptr(),
            plan.argv.as_ptr(),
            plan.envp.as_ptr(),
        );
        fail(report, Stage::Exec, errno())
    }
}

/// The program's side in an armed process (see [`super::armed`]), whose
/// filter is installed: its own descriptor table first (it shared its
/// init's until now; when the init took a copy of it, as it does, the
/// table is this process's alone already and nothing is copied), then as
/// [`program_main`], the command copied into the space at `space` for the
/// pinned `execve`.
#[expect(unsafe_code)]
pub(super) fn armed_program_main(plan: &ChildPlan<'_>, space: usize) -> ! {
    let report = plan.report;
    // SAFETY: a raw unshare of this process's own descriptor table.
    if unsafe { libc::unshare(libc::CLONE_FILES) } != 0 {
        fail(report, Stage::Stdio, errno());
    }
    program_setup(plan);
    let Some((path, argv, envp)) = super::armed::fill(space, plan) else {
        fail(report, Stage::Exec, libc::E2BIG)
    };
    // SAFETY: the strings and lists just copied into the space, alive
    // until `execve` replaces this process's memory.
    unsafe {
        libc::execve(path, argv, envp);
    }
    fail(report, Stage::Exec, errno())
}

/// What every program does before its filter and `execve`: signals, stdio,
/// workspace, limits, privileges, Landlock.
#[expect(unsafe_code)]
fn program_setup(plan: &ChildPlan<'_>) {
    let report = plan.report;
    // SAFETY: raw calls on the child's own state and on descriptors and
    // strings the parent prepared; see `child_main`.
    unsafe {
        if plan.prepared {
            // Only the handler the init set since (see `run_call`).
            reset_signal(libc::SIGTERM);
        } else {
            reset_signals();
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());

        if libc::dup2(plan.stdin, 0) < 0
            || libc::dup2(plan.output, 1) < 0
            || libc::dup2(plan.output, 2) < 0
        {
            fail(report, Stage::Stdio, errno());
        }
        if plan.status >= 0 {
            libc::close(plan.status);
        }
        if libc::chdir(plan.cwd.as_ptr()) != 0 {
            fail(report, Stage::Chdir, errno());
        }
        for (resource, limit) in plan.rlimits {
            if libc::setrlimit(*resource as _, limit) != 0 {
                fail(report, Stage::Rlimit, errno());
            }
        }
        // The out-of-memory killer's first choice, before the integrator
        // and any other process: a call that takes every page (in many
        // processes, each smaller than its integrator) is what it ends.
        // Raising its own score needs no privilege; lowering it again
        // means writing to `/proc`, which Landlock refuses the program. A
        // system without `/proc` keeps the score it had.
        let _ = write_file(c"/proc/self/oom_score_adj", b"1000");
        drop_capabilities(report, !plan.prepared);
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            fail(report, Stage::NoNewPrivs, errno());
        }
        if plan.landlock >= 0 {
            if libc::syscall(libc::SYS_landlock_restrict_self, plan.landlock, 0) != 0 {
                fail(report, Stage::Landlock, errno());
            }
            libc::close(plan.landlock);
        }
    }
}

/// Gives every signal this process catches or ignores its default action
/// back, as `posix_spawn` does: a handler is the parent's code (in memory
/// the program shares until `execve`), and an ignored signal would stay
/// ignored in the program. Every other signal has its default action
/// already. Which ones those are, the process's own `/proc/self/status`
/// says (`SigIgn`, `SigCgt`): a handful of calls instead of one per signal.
/// Where it cannot be read, every signal is reset. The raw system call
/// reaches the signals the C library keeps for itself (32 and 33) too.
pub(super) fn reset_signals() {
    let handled = handled_signals().unwrap_or(u64::MAX);
    for signal in 1..65 {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        if handled & (1u64 << (signal - 1)) != 0 {
            reset_signal(signal);
        }
    }
}

/// Gives `signal` its default action, with the raw system call.
#[expect(unsafe_code)]
fn reset_signal(signal: c_int) {
    /// The kernel's `struct sigaction` (x86-64 and aarch64 alike).
    #[repr(C)]
    struct KernelSigaction {
        handler: usize,
        flags: libc::c_ulong,
        restorer: usize,
        mask: u64,
    }
    let default = KernelSigaction {
        handler: libc::SIG_DFL,
        flags: 0,
        restorer: 0,
        mask: 0,
    };
    // SAFETY: a raw change of this process's own disposition; the kernel
    // reads the local action (8 bytes of signal mask).
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            signal,
            &default as *const KernelSigaction,
            std::ptr::null_mut::<KernelSigaction>(),
            8usize,
        );
    }
}

/// The signals this process ignores or catches (bit `n - 1` for signal
/// `n`), read from `/proc/self/status` into a stack buffer; `None` when
/// either mask cannot be read.
#[expect(unsafe_code)]
fn handled_signals() -> Option<u64> {
    let mut buffer = [0u8; 4096];
    // SAFETY: raw open, read into the local buffer, close.
    let filled = unsafe {
        let fd = libc::open(
            c"/proc/self/status".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return None;
        }
        let mut filled = 0;
        while filled < buffer.len() {
            let read = libc::read(
                fd,
                buffer[filled..].as_mut_ptr().cast(),
                buffer.len() - filled,
            );
            if read <= 0 {
                break;
            }
            filled += read as usize;
        }
        libc::close(fd);
        filled
    };
    let status = &buffer[..filled];
    Some(status_mask(status, b"\nSigIgn:")? | status_mask(status, b"\nSigCgt:")?)
}

/// The hexadecimal mask after `field` in a `/proc/<pid>/status` text.
fn status_mask(status: &[u8], field: &[u8]) -> Option<u64> {
    let start = status
        .windows(field.len())
        .position(|window| window == field)?
        + field.len();
    let mut mask: u64 = 0;
    let mut digits = 0;
    for &byte in status.get(start..)? {
        let digit = match byte {
            b'\t' | b' ' if digits == 0 => continue,
            b'0'..=b'9' => byte - b'0',
            b'a'..=b'f' => byte - b'a' + 10,
            b'A'..=b'F' => byte - b'A' + 10,
            _ => break,
        };
        mask = mask.checked_mul(16)? | u64::from(digit);
        digits += 1;
    }
    (digits > 0).then_some(mask)
}

/// Drops every capability, for good: securebits so that uid 0 regains
/// none at `execve`, an empty bounding set, no ambient set, then empty
/// sets. Steps a process without privileges may not take are skipped; the
/// end state is checked.
#[expect(unsafe_code)]
fn drop_capabilities(report: RawFd, bounding: bool) {
    // SAFETY: raw prctl and capset/capget on local structures.
    unsafe {
        libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS_NO_ROOT, 0, 0, 0);
        if bounding {
            empty_bounding_set();
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        if !drop_own_capabilities() {
            fail(report, Stage::Capabilities, errno());
        }
        let mut header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let mut now = [CapData {
            effective: 1,
            permitted: 1,
            inheritable: 1,
        }; 2];
        if libc::syscall(libc::SYS_capget, &mut header, now.as_mut_ptr()) != 0 {
            fail(report, Stage::Capabilities, errno());
        }
        if now
            .iter()
            .any(|d| d.effective | d.permitted | d.inheritable != 0)
        {
            fail(report, Stage::Capabilities, libc::EPERM);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_pid_is_read_from_its_file_and_nothing_else_is_taken_for_it() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        // Each file is left positioned at its end: the number is read from
        // the start all the same.
        let file_with = |text: &[u8]| {
            let mut file = tempfile::tempfile().unwrap();
            file.write_all(text).unwrap();
            file
        };
        let file = file_with(b"4096\n");
        assert_eq!(last_pid(file.as_raw_fd()), Some(4096));
        assert_eq!(last_pid(file.as_raw_fd()), Some(4096));
        for text in [&b""[..], b"\n", b"12a\n", b"-1\n"] {
            assert_eq!(last_pid(file_with(text).as_raw_fd()), None, "{text:?}");
        }
        // A descriptor that is not open: unknown, so the init counts.
        assert_eq!(last_pid(-1), None);
    }

    #[test]
    fn signal_masks_are_read_from_a_status_text() {
        let status = b"Name:\tcat\nSigQ:\t0/31\nSigPnd:\t0000000000000000\n\
            SigIgn:\t0000000000001000\nSigCgt:\t0000000180004a02\nCapInh:\t0\n";
        assert_eq!(status_mask(status, b"\nSigIgn:"), Some(0x1000));
        assert_eq!(status_mask(status, b"\nSigCgt:"), Some(0x1_8000_4a02));
        // A missing field, no digits, or more than 64 bits: unknown, so
        // every signal is reset.
        assert_eq!(status_mask(status, b"\nSigBlk:"), None);
        assert_eq!(status_mask(b"\nSigIgn:\t\n", b"\nSigIgn:"), None);
        assert_eq!(
            status_mask(b"\nSigIgn:\t10000000000000000\n", b"\nSigIgn:"),
            None
        );
        // The running process's own masks parse (it ignores SIGPIPE).
        let own = handled_signals().unwrap();
        assert_ne!(own & (1 << (libc::SIGPIPE - 1)), 0);
    }

    #[test]
    fn a_call_takes_the_last_idle_thread_with_a_warm_init() {
        // More idle threads than warm inits: the last offered has none
        // (or is on its way back), an earlier one has one waiting.
        assert_eq!(pick(&[true, false], |&warm| warm), Some(0));
        assert_eq!(pick(&[false, true, true, false], |&warm| warm), Some(2));
        assert_eq!(pick(&[false, false], |&warm| warm), Some(1));
        assert_eq!(pick(&[true, true], |&warm| warm), Some(1));
        assert_eq!(pick::<bool>(&[], |&warm| warm), None);
    }
}
