//! Supervising one child: spawn, capture, limits, ending the process group.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::Pid;

use crate::capture::Capture;
use crate::contain::{self, Request};
use crate::{
    Access, CancelToken, Confinement, Ended, Kernel, KernelError, Limits, Outcome, Status,
};

/// How often a quiet call wakes up to check the clock, the child and the
/// cancel token.
const TICK: Duration = Duration::from_millis(5);

/// How long a contained call's report is waited for before its output is
/// read as it comes (see `Watch::supervise_loop`).
const FIRST_WAIT: Duration = Duration::from_millis(2);

/// Size of one read from the output pipe.
const CHUNK: usize = 64 * 1024;

/// Options of one run: its limits, a cancel token, extra variables.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// The limits of this run.
    pub limits: Limits,
    /// Cancels the run from another thread.
    pub cancel: Option<CancelToken>,
    /// Variables added to the kernel's environment for this run only.
    pub env: Vec<(OsString, OsString)>,
    /// What the run may change (default: read-only).
    pub access: Access,
    /// Programs (files, or folders of them) the run's program may start
    /// besides itself, such as git's exec path. Empty (the default): the
    /// program is the only thing the call can execute.
    pub helpers: Vec<std::path::PathBuf>,
    /// Paths made read-only in this run besides the kernel's own
    /// ([`crate::KernelBuilder::read_only_paths`]), the same way: where the
    /// kernel has a mount namespace, and inside the root.
    pub read_only: Vec<std::path::PathBuf>,
}

impl RunOptions {
    /// Options with these limits, no cancel token and no extra variables.
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            cancel: None,
            env: Vec::new(),
            access: Access::ReadOnly,
            helpers: Vec::new(),
            read_only: Vec::new(),
        }
    }

    /// These options with one more helper the program may start (a file,
    /// or a folder of programs). A call with helpers may execute more than
    /// once, so the one-`execve` pin of the seccomp filter is lifted for it
    /// and only Landlock's `EXECUTE` rights bound what it starts (the
    /// dynamic loader among them, which can load any readable program).
    pub fn with_helper(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.helpers.push(path.into());
        self
    }

    /// These options with one more path made read-only for this run (see
    /// [`RunOptions::read_only`]).
    pub fn with_read_only_path(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.read_only.push(path.into());
        self
    }

    /// These options with another access (what the run may change).
    pub fn with_access(mut self, access: Access) -> Self {
        self.access = access;
        self
    }

    /// These options with a cancel token.
    pub fn with_cancel(mut self, cancel: CancelToken) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// These options with one more environment variable.
    pub fn with_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

fn supervise_error(operation: &'static str) -> impl FnOnce(std::io::Error) -> KernelError {
    move |source| KernelError::Supervise { operation, source }
}

/// Spawns `path` with `args` and supervises it to the end: contained,
/// unless the kernel was built without containment.
pub(crate) fn supervise<S: AsRef<OsStr>>(
    kernel: &Kernel,
    path: &Path,
    args: &[S],
    options: &RunOptions,
) -> Result<Outcome, KernelError> {
    let argv: Vec<String> = std::iter::once(path.as_os_str())
        .chain(args.iter().map(AsRef::as_ref))
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match kernel.plan() {
        Some(plan) => supervise_contained(kernel, plan, path, args, options, argv),
        None => supervise_bare(kernel, path, args, options, argv),
    }
}

fn supervise_contained<S: AsRef<OsStr>>(
    kernel: &Kernel,
    plan: &contain::Plan,
    path: &Path,
    args: &[S],
    options: &RunOptions,
    argv: Vec<String>,
) -> Result<Outcome, KernelError> {
    let limits = options.limits;
    let (mut reader, writer) = std::io::pipe().map_err(supervise_error("create pipe"))?;
    let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
    let env = kernel.run_environment(&options.env).collect();
    let read_only: std::borrow::Cow<'_, [std::path::PathBuf]> = if options.read_only.is_empty() {
        std::borrow::Cow::Borrowed(kernel.read_only_paths())
    } else {
        let both = kernel.read_only_paths().iter().chain(&options.read_only);
        std::borrow::Cow::Owned(both.cloned().collect())
    };
    let request = Request {
        plan,
        root: kernel.root(),
        tmp_base: kernel.tmp_base(),
        program: path,
        args: &args,
        env,
        limits: &limits,
        access: options.access,
        helpers: &options.helpers,
        read_only: &read_only,
        mask: kernel.mask(),
        masked: kernel.masked_memory(),
    };
    let start = Instant::now();
    let mut started = contain::start(&request, writer)?;
    let exit = match &started.status {
        Some(pipe) if started.reaper => Exit::Reaper(pipe.as_fd()),
        Some(pipe) => Exit::Status(pipe.as_fd()),
        None => Exit::Child(pidfd(started.pid)),
    };
    let watch = Watch::run(
        started.pid,
        &mut reader,
        &limits,
        options.cancel.as_ref(),
        start,
        &exit,
    );
    // The init reports the program's status once nothing else of the call
    // is left; then only its own exit remains, which the operating system
    // makes long by tearing the namespaces down: it is reaped off this
    // path. An init killed before it could report (the kernel's SIGKILL
    // after the grace) means the program was killed with it: that init is
    // waited for, until the operating system has ended the whole call.
    drop(exit);
    let reported = match (&started.status, &watch) {
        (Some(pipe), Ok(_)) => contain::program_status(pipe),
        _ => None,
    };
    let status = match reported {
        Some((raw, over_limit)) => {
            // The output and status pipes are over too: closing their last
            // ends (freeing the pipes) is left to the reaper as well.
            let mut fds = vec![std::os::fd::OwnedFd::from(reader)];
            fds.extend(started.status.take());
            reap_later(started.pid, fds);
            let mut watch = watch?;
            if over_limit && watch.ended.is_none() {
                watch.ended = Some(Ended::ProcessLimit(limits.max_processes));
            }
            (watch, wait_status(raw))
        }
        None => {
            let reaped = reap(started.pid);
            (watch?, reaped?)
        }
    };
    let (watch, status) = status;
    drop(started.tmp);
    drop(started.cgroup);
    let set_aside = contain::set_aside(kernel.root(), &started.watched, None);
    // Done: the record kept in case the integrator died first goes.
    drop(started.record);
    let mut outcome = watch.into_outcome(
        argv,
        status,
        start,
        options.access,
        plan.confinement.clone(),
    );
    outcome.set_aside = set_aside;
    Ok(outcome)
}

/// The init of a call and the call's descriptors that are over, for the
/// reaper.
type Leftovers = (Pid, Vec<std::os::fd::OwnedFd>);

/// The reaper's channel, once started (`None`: no thread could start).
static REAPER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Leftovers>>> =
    std::sync::OnceLock::new();

/// Starts the thread that reaps the inits of calls (see [`reap_later`]),
/// unless it runs already: [`crate::probe_ahead`] starts it off the first
/// call's path.
pub(crate) fn start_reaper() -> Option<&'static std::sync::mpsc::Sender<Leftovers>> {
    REAPER
        .get_or_init(|| {
            let (send, receive) = std::sync::mpsc::channel::<Leftovers>();
            std::thread::Builder::new()
                .name("jig-reaper".to_owned())
                .spawn(move || {
                    for (pid, fds) in receive {
                        drop(fds);
                        let _ = reap(pid);
                    }
                })
                .ok()
                .map(|_| send)
        })
        .as_ref()
}

thread_local! {
    /// Set on the probe thread while it is held on another processor than
    /// the thread that started it (see [`crate::probe_ahead`]): a thread it
    /// started then would keep that mask for good.
    static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The namespace probes that thread ran meanwhile, reaped once it is
    /// released.
    static KEPT: std::cell::RefCell<Vec<Pid>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Marks the calling thread as held (see `HELD`) until [`release`].
pub(crate) fn hold() {
    HELD.set(true);
}

/// Ends the calling thread's hold: the probes it kept are reaped, by the
/// reaper (started now if need be) when `by_reaper`, or here.
pub(crate) fn release(by_reaper: bool) {
    HELD.set(false);
    for pid in KEPT.take() {
        if by_reaper {
            reap_later(pid, Vec::new());
        } else {
            let _ = reap(pid);
        }
    }
}

/// Reaps, off the prober's path, a namespace probe that has reported: its
/// exit tears its namespaces down, which waits for an RCU grace period. A
/// held thread keeps it for its release rather than start the reaper.
pub(crate) fn reap_probe(pid: Pid) {
    if HELD.get() {
        KEPT.with_borrow_mut(|kept| kept.push(pid));
    } else {
        reap_later(pid, Vec::new());
    }
}

/// Reaps, off the caller's path, the init of a call that reported its
/// program's status: nothing of the call is left but the init, exiting.
/// One thread per process does it ([`start_reaper`]); where it cannot be
/// started, the caller reaps.
///
/// The call's descriptors that are over (`fds`) are closed there too: the
/// last close of a pipe frees it, work the caller's answer need not wait
/// for. Nothing reads or writes them any more.
fn reap_later(pid: Pid, fds: Vec<std::os::fd::OwnedFd>) {
    let unsent = match start_reaper() {
        Some(send) => send.send((pid, fds)).err().map(|error| error.0),
        None => Some((pid, fds)),
    };
    if let Some((pid, fds)) = unsent {
        drop(fds);
        let _ = reap(pid);
    }
}

/// Reaps `pid` and returns how it ended.
fn reap(pid: Pid) -> Result<Status, KernelError> {
    loop {
        match nix::sys::wait::waitpid(pid, None) {
            Ok(WaitStatus::Exited(_, code)) => return Ok(Status::Exited(code)),
            Ok(WaitStatus::Signaled(_, signal, _)) => return Ok(Status::Signaled(signal as i32)),
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(errno) => {
                return Err(supervise_error("wait for the child")(std::io::Error::from(
                    errno,
                )));
            }
        }
    }
}

/// Decodes a raw wait status.
fn wait_status(raw: i32) -> Status {
    if libc::WIFEXITED(raw) {
        Status::Exited(libc::WEXITSTATUS(raw))
    } else if libc::WIFSIGNALED(raw) {
        Status::Signaled(libc::WTERMSIG(raw))
    } else {
        Status::Signaled(0)
    }
}

fn supervise_bare<S: AsRef<OsStr>>(
    kernel: &Kernel,
    path: &Path,
    args: &[S],
    options: &RunOptions,
    argv: Vec<String>,
) -> Result<Outcome, KernelError> {
    let limits = options.limits;
    let (mut reader, writer) = std::io::pipe().map_err(supervise_error("create pipe"))?;
    let writer_for_stderr = writer
        .try_clone()
        .map_err(supervise_error("duplicate pipe"))?;

    let mut command = Command::new(path);
    command
        .args(args)
        .env_clear()
        .envs(kernel.run_environment(&options.env))
        .current_dir(kernel.root())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_for_stderr);
    // A session of its own, as a contained call's init leads (its process
    // group is the one the kernel ends): no controlling terminal, so the
    // program cannot open the integrator's or push input into it.
    // SAFETY: the closure runs in the forked child before `execve` and
    // makes one async-signal-safe call.
    #[expect(unsafe_code)]
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let spawned = command.spawn();
    // The command holds the parent's copies of the pipe's write end: drop it
    // so the pipe reaches end-of-file when the child's copies close.
    drop(command);
    let mut child = spawned.map_err(|source| spawn_error(path, source))?;

    let pid = Pid::from_raw(child.id() as i32);
    let watch = Watch::run(
        pid,
        &mut reader,
        &limits,
        options.cancel.as_ref(),
        start,
        &Exit::Child(pidfd(pid)),
    );
    let status = child
        .wait()
        .map_err(supervise_error("wait for the child"))?;
    let watch = watch?;
    let status = match (status.code(), status.signal()) {
        (Some(code), _) => Status::Exited(code),
        (None, Some(signal)) => Status::Signaled(signal),
        (None, None) => Status::Signaled(0),
    };
    Ok(watch.into_outcome(argv, status, start, options.access, Confinement::none()))
}

fn spawn_error(path: &Path, source: std::io::Error) -> KernelError {
    let path = path.to_path_buf();
    match source.kind() {
        std::io::ErrorKind::NotFound => KernelError::ProgramNotFound {
            program: path.to_string_lossy().into_owned(),
            search_path: String::new(),
        },
        std::io::ErrorKind::PermissionDenied => KernelError::NotExecutable { path },
        _ if source.raw_os_error() == Some(Errno::ENOEXEC as i32) => {
            KernelError::NotExecutable { path }
        }
        _ => KernelError::Spawn { path, source },
    }
}

/// The supervision loop's state.
struct Watch {
    capture: Capture,
    ended: Option<Ended>,
    held_open: bool,
}

impl Watch {
    /// The outcome of the call this watch supervised.
    fn into_outcome(
        self,
        argv: Vec<String>,
        status: Status,
        start: Instant,
        access: Access,
        confinement: Confinement,
    ) -> Outcome {
        Outcome {
            argv,
            status,
            ended_by_kernel: self.ended,
            output: self.capture.finish(),
            duration: start.elapsed(),
            output_held_open: self.held_open,
            access,
            confinement,
            set_aside: Vec::new(),
        }
    }

    /// Reads the pipe and watches the child until both are done, enforcing
    /// the limits. On return the child has exited (not yet reaped) and every
    /// process left in its group has been killed.
    fn run(
        pid: Pid,
        reader: &mut std::io::PipeReader,
        limits: &Limits,
        cancel: Option<&CancelToken>,
        start: Instant,
        exit: &Exit<'_>,
    ) -> Result<Watch, KernelError> {
        let mut watch = Watch {
            capture: Capture::new(limits.max_output),
            ended: None,
            held_open: false,
        };
        let result = watch.supervise_loop(pid, reader, limits, cancel, start, exit);
        if result.is_err() {
            // Whatever went wrong, nothing of the call may outlive it (a
            // reaper ends every process of the call, then itself).
            match exit {
                Exit::Reaper(_) => end_with_reaper(pid),
                _ => {
                    let _ = killpg(pid, Signal::SIGKILL);
                }
            }
        }
        result.map(|()| watch)
    }

    fn supervise_loop(
        &mut self,
        pid: Pid,
        reader: &mut std::io::PipeReader,
        limits: &Limits,
        cancel: Option<&CancelToken>,
        start: Instant,
        exit: &Exit<'_>,
    ) -> Result<(), KernelError> {
        let deadline = start + limits.timeout;
        if let Exit::Status(status) | Exit::Reaper(status) = exit {
            // Most calls end within a moment, their output well within the
            // pipe: the init's report is waited for first, so that the
            // output is read once it is complete (one wake-up, not one for
            // each write and one for the end-of-file). A program that has
            // more to say waits on the full pipe that moment at most.
            let millis = u16::try_from(FIRST_WAIT.as_millis()).unwrap_or(u16::MAX);
            let mut fds = [PollFd::new(*status, PollFlags::POLLIN)];
            let _ = poll(&mut fds, PollTimeout::from(millis));
        }
        let mut buffer = ReadBuffer::take();
        let mut pipe_open = true;
        let mut exited_at: Option<Instant> = None;
        let mut terminated_at: Option<Instant> = None;
        let mut killed = false;
        let mut forced = false;
        let mut idle = Duration::from_micros(20);
        loop {
            if pipe_open {
                if wait_readable(reader, TICK)? {
                    match reader.read(&mut buffer.0) {
                        Ok(0) => pipe_open = false,
                        Ok(n) => self.capture.push(&buffer.0[..n]),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(supervise_error("read output")(e)),
                    }
                }
            } else if exited_at.is_none() {
                // The child closed its output but has not exited yet: back off
                // gently, starting very short (exit follows closing at once in
                // the common case).
                // With a pidfd, wake as soon as it exits.
                match exit.fd() {
                    Some(fd) => {
                        let millis = u16::try_from(TICK.as_millis()).unwrap_or(u16::MAX);
                        let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
                        let _ = poll(&mut fds, PollTimeout::from(millis));
                    }
                    None => {
                        std::thread::sleep(idle);
                        idle = (idle * 2).min(TICK);
                    }
                }
            }
            let now = Instant::now();
            if exited_at.is_none() && exit.happened(pid)? {
                exited_at = Some(now);
                // Background jobs left in the group end with the call. The
                // group still exists (its leader is an unreaped zombie), so
                // its id cannot have been reused. A contained call's init
                // has ended every process of the call before it reports (or,
                // killed first, the operating system ends them all): there
                // is nothing left to signal, only the init about to exit.
                if matches!(exit, Exit::Child(_)) {
                    signal_group(pid, Signal::SIGKILL);
                }
            }
            if let Some(exited) = exited_at {
                if !pipe_open {
                    return Ok(());
                }
                if now >= exited + limits.drain {
                    self.held_open = true;
                    return Ok(());
                }
                continue;
            }
            if self.ended.is_none() {
                if cancel.is_some_and(CancelToken::is_cancelled) {
                    self.ended = Some(Ended::Cancelled);
                } else if now >= deadline {
                    self.ended = Some(Ended::Timeout(limits.timeout));
                } else if let Some(flood) = limits.flood_limit
                    && self.capture.total() > flood
                {
                    self.ended = Some(Ended::Flood(flood));
                }
            }
            if self.ended.is_some() {
                match terminated_at {
                    None => {
                        signal_group(pid, Signal::SIGTERM);
                        terminated_at = Some(now);
                    }
                    Some(at) if !killed && now >= at + limits.grace => {
                        match exit {
                            // A SIGKILL would end the reaper before the
                            // processes that left the group: it is asked
                            // to end them all, then itself.
                            Exit::Reaper(_) => end_with_reaper(pid),
                            _ => signal_group(pid, Signal::SIGKILL),
                        }
                        killed = true;
                    }
                    // A reaper that has not ended the call a moment after
                    // it was asked (stopped from outside) is killed with
                    // its group.
                    Some(at)
                        if matches!(exit, Exit::Reaper(_))
                            && !forced
                            && now >= at + limits.grace + REAPER_ENDS_WITHIN =>
                    {
                        signal_group(pid, Signal::SIGKILL);
                        forced = true;
                    }
                    Some(_) => {}
                }
            }
        }
    }
}

thread_local! {
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// This thread's read buffer of [`CHUNK`] bytes, made once per thread and
/// given back when dropped: zeroing and faulting in a fresh one cost every
/// call more than reading a short output.
struct ReadBuffer(Vec<u8>);

impl ReadBuffer {
    fn take() -> ReadBuffer {
        let buffer = READ_BUFFER.take();
        if buffer.len() == CHUNK {
            ReadBuffer(buffer)
        } else {
            ReadBuffer(vec![0u8; CHUNK])
        }
    }
}

impl Drop for ReadBuffer {
    fn drop(&mut self) {
        READ_BUFFER.set(std::mem::take(&mut self.0));
    }
}

/// What tells the supervision that a call's program is over.
enum Exit<'a> {
    /// The child itself exits; a pidfd wakes the wait where there is one.
    Child(Option<std::os::fd::OwnedFd>),
    /// A contained call's init writes the program's status to this pipe
    /// once nothing else of the call is left; the pipe reaches end-of-file
    /// if the init dies first.
    Status(std::os::fd::BorrowedFd<'a>),
    /// The same, from the call's reaper where it has no namespaces
    /// ([`crate::contain`]'s `reap_call`), which must be asked to end the
    /// call rather than killed.
    Reaper(std::os::fd::BorrowedFd<'a>),
}

impl Exit<'_> {
    /// Whether it is over.
    fn happened(&self, pid: Pid) -> Result<bool, KernelError> {
        match self {
            Exit::Child(_) => has_exited(pid),
            Exit::Status(pipe) | Exit::Reaper(pipe) => {
                let mut fds = [PollFd::new(*pipe, PollFlags::POLLIN)];
                match poll(&mut fds, PollTimeout::ZERO) {
                    Ok(ready) => Ok(ready > 0),
                    Err(Errno::EINTR) => Ok(false),
                    Err(errno) => Err(supervise_error("check the call's init")(
                        std::io::Error::from(errno),
                    )),
                }
            }
        }
    }

    /// What becomes readable when it is over, if anything.
    fn fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        match self {
            Exit::Child(pidfd) => pidfd.as_ref().map(AsFd::as_fd),
            Exit::Status(pipe) | Exit::Reaper(pipe) => Some(*pipe),
        }
    }
}

/// How long a call's reaper, asked to end the call, may take before it is
/// killed with its process group (it takes milliseconds).
const REAPER_ENDS_WITHIN: Duration = Duration::from_secs(1);

/// Asks the call's reaper `pid` to end every process of the call, then
/// itself.
fn end_with_reaper(pid: Pid) {
    let _ = nix::sys::signal::kill(pid, contain::spawn::END_THE_CALL);
}

/// Sends `signal` to the whole process group led by `pid`; a group that is
/// already gone is fine.
fn signal_group(pid: Pid, signal: Signal) {
    let _ = killpg(pid, signal);
}

/// Whether the child has exited, without reaping it.
fn has_exited(pid: Pid) -> Result<bool, KernelError> {
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    loop {
        match waitid(Id::Pid(pid), flags) {
            Ok(WaitStatus::StillAlive) => return Ok(false),
            Ok(_) => return Ok(true),
            Err(Errno::EINTR) => continue,
            Err(errno) => {
                return Err(supervise_error("check the child")(std::io::Error::from(
                    errno,
                )));
            }
        }
    }
}

/// Waits up to `timeout` for the pipe to be readable (or closed).
fn wait_readable(reader: &std::io::PipeReader, timeout: Duration) -> Result<bool, KernelError> {
    let millis = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
    let mut fds = [PollFd::new(reader.as_fd(), PollFlags::POLLIN)];
    match poll(&mut fds, PollTimeout::from(millis)) {
        Ok(0) => Ok(false),
        Ok(_) => Ok(true),
        Err(Errno::EINTR) => Ok(false),
        Err(errno) => Err(supervise_error("wait for output")(std::io::Error::from(
            errno,
        ))),
    }
}

/// A descriptor that becomes readable when `pid` (an unreaped child of
/// ours, so its id cannot be reused) exits, where the running kernel has
/// `pidfd_open`.
fn pidfd(pid: Pid) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    #[expect(unsafe_code)]
    // SAFETY: pidfd_open reads no memory and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
    let fd = i32::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    #[expect(unsafe_code)]
    // SAFETY: the descriptor was just created and nothing else owns it.
    Some(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}
