//! Warm inits: a call's init made before its call comes.
//!
//! Most of what a call's init does does not depend on the call: the clone
//! into fresh user, PID and mount namespaces, the identity maps, making
//! every mount private, the private `/proc`. An init thread (see
//! [`super::spawn::clone_init_shared`]) therefore makes the next call's
//! init as soon as the last one has exited, off any call's path: the warm
//! init does that part, says it is ready, and waits on a socket. The call
//! that comes sends it the address of its plan (in the memory they share)
//! and, as `SCM_RIGHTS`, the call's descriptors (the warm init's own table
//! was copied before they existed); the warm init goes on exactly as an
//! init cloned for the call does (`spawn::run_call`): the call's tmpfs,
//! protected paths, masked files, late Landlock rules, the program.
//!
//! A warm init serves one call, never two. One that is not ready (its setup
//! failed), does not fit the call (see [`super::spawn::warm_fit`]) or cannot
//! be reached is ended and the call's init cloned as before, which reports
//! any failure as its stage. At most [`MAX_WARM`] wait at once; each is a
//! process sharing the integrator's memory, holding nothing of it (its
//! descriptors are closed, its standard streams are `/dev/null`), killed
//! with the thread that cloned it (`PR_SET_PDEATHSIG`) and ended when that
//! thread closes its socket.
//!
//! A warm init is named `jig-waiting` until its call comes, then
//! `jig-call`, as every call's init.
//!
//! A warm init's mounts are a copy of the integrator's as they were when it
//! was made: a file system mounted afterwards (in the integrator's
//! namespace) is not seen by the next call, as it is not by a running one.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicUsize, Ordering};

use libc::c_int;

use super::spawn::{self, ArmSpec, ChildPlan, InitStack, Running, WarmKind};

/// At most this many warm inits wait at once (one per init thread at
/// most): a server making calls one after another uses one; a burst of
/// concurrent calls leaves idle threads, most without a warm init.
const MAX_WARM: usize = 2;

/// Warm inits waiting now.
static WAITING: AtomicUsize = AtomicUsize::new(0);

/// The call's descriptors, in the order they travel (bit `i` of the mask
/// set when descriptor `i` is sent): stdin, output, report, status,
/// Landlock ruleset.
const DESCRIPTORS: usize = 5;

/// What a warm init reads before it says it is ready (and never after).
struct Setup {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    proc: bool,
    /// The warm init's end of its socket.
    socket: RawFd,
    /// The space and filter of its armed process, if it makes one.
    arm: Option<ArmSetup>,
    /// The tmpfs it mounts ahead (where, with which options), if any.
    tmp: Option<(CString, CString)>,
}

/// What a warm init arms its program process with (see [`super::armed`]).
struct ArmSetup {
    /// The address of the init stack's [`super::armed::ArmedSpace`].
    space: usize,
    /// The filter, its `execve` pinned to the space's pointers (or not).
    filter: Vec<seccompiler::sock_filter>,
}

/// A warm init waiting for its call, owned by the init thread that cloned
/// it on its stack.
pub(super) struct Warm {
    running: Running,
    /// Read by the warm init until it says it is ready: kept until then.
    setup: Box<Setup>,
    /// This thread's end of the socket.
    socket: OwnedFd,
    /// The filter its armed process installs, if it makes one: a call
    /// with this filter (and a command that fits) is taken by that process.
    arm: Option<ArmSpec>,
    /// The tmpfs it mounted ahead (where, with which options): a call that
    /// asks for the same uses it.
    tmp: Option<(CString, CString)>,
    /// The pids cgroup it was cloned into (its init thread's), whose limit
    /// the call sets to its own.
    pids: Option<std::sync::Arc<super::cgroup::ThreadPids>>,
}

impl Warm {
    /// Clones a warm init on `stack` (free: no init of this thread runs),
    /// for calls of `kind`; `None` when enough wait already or it cannot be
    /// made (the next call's init is then cloned for it). Does not wait for
    /// its setup.
    pub(super) fn start(stack: &InitStack, kind: WarmKind) -> Option<Warm> {
        if WAITING.fetch_add(1, Ordering::AcqRel) >= MAX_WARM {
            WAITING.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        let warm = Warm::clone_on(stack, kind);
        if warm.is_none() {
            WAITING.fetch_sub(1, Ordering::AcqRel);
        }
        warm
    }

    fn clone_on(stack: &InitStack, kind: WarmKind) -> Option<Warm> {
        let (ours, theirs) = socket_pair()?;
        let (uid_map, gid_map) = super::identity_maps();
        let arm = kind.arm.zip(stack.space());
        let setup = Box::new(Setup {
            uid_map,
            gid_map,
            proc: kind.proc,
            socket: theirs.as_raw_fd(),
            tmp: kind.tmp.clone(),
            arm: arm.as_ref().map(|(spec, space)| ArmSetup {
                space: space.address(),
                filter: if spec.pinned {
                    let (path, argv, envp) = space.pins();
                    super::seccomp::pinned(&spec.program, path, argv, envp)
                } else {
                    super::seccomp::unpinned(&spec.program)
                },
            }),
        });
        let address = &*setup as *const Setup as usize;
        let running = spawn::clone_on(stack, warm_entry, address, kind.max_processes).ok()?;
        // The warm init has its own copy of its end; this one would keep
        // it from seeing this end close.
        drop(theirs);
        let warm = Warm {
            running,
            setup,
            socket: ours,
            arm: arm.map(|(spec, _)| spec),
            tmp: kind.tmp,
            pids: stack.pids().cloned(),
        };
        if warm.running.pidfd < 0 {
            // Without a pidfd its call's end could not be waited for (the
            // call's thread reaps it): no warm init then.
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(warm.running.pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            warm.end();
            return None;
        }
        Some(warm)
    }

    /// Waits for the warm init's ready byte; false when it exited instead.
    fn ready(&self) -> bool {
        let mut byte = 0u8;
        loop {
            match nix::unistd::read(&self.socket, std::slice::from_mut(&mut byte)) {
                Ok(1) => return byte == READY,
                Err(nix::errno::Errno::EINTR) => continue,
                _ => return false,
            }
        }
    }

    /// Hands the call of `plan` to this warm init: its pid and pidfd, and
    /// what says when its program has started; `None` (the warm init
    /// ended) when it does not fit or cannot be reached.
    pub(super) fn hand_over(self, plan: &ChildPlan<'_>) -> Option<(Running, ProgramStart)> {
        let fits = plan.namespaces.is_some_and(|ns| {
            ns.uid_map == self.setup.uid_map.as_slice()
                && ns.gid_map == self.setup.gid_map.as_slice()
        }) && spawn::warm_fit(plan) == Some(self.setup.proc);
        // Sent only once it is ready: then it reads its setup no more, and
        // its own failures stay its own (the call's init is cloned).
        // Its armed process takes the call if it has the call's filter and
        // the command fits in its space; otherwise the init ends it.
        let armed = self
            .arm
            .as_ref()
            .is_some_and(|spec| spec.fits(plan.template) && super::armed::fits(plan));
        let tmp = plan.namespaces.is_some_and(|ns| {
            self.tmp.as_ref().is_some_and(|(path, options)| {
                ns.tmp == path.as_c_str() && ns.tmpfs_options == options.as_c_str()
            })
        });
        // In its init thread's pids cgroup, the call's own bound (as uid 0).
        let bounded = match (&self.pids, plan.namespaces) {
            (Some(pids), Some(ns)) => pids.limit(ns.max_processes).is_ok(),
            _ => true,
        };
        if !fits || !bounded || !self.ready() || !self.send(plan, armed, tmp) {
            self.end();
            return None;
        }
        WAITING.fetch_sub(1, Ordering::AcqRel);
        Some((self.running, ProgramStart(self.socket)))
    }

    /// Sends the plan's address, whether the armed process takes it,
    /// whether the tmpfs mounted ahead is the call's, and its descriptors;
    /// false when the message did not go.
    fn send(&self, plan: &ChildPlan<'_>, armed: bool, tmp: bool) -> bool {
        let fds = [
            plan.stdin,
            plan.output,
            plan.report,
            plan.status,
            plan.landlock,
        ];
        let mut mask = 0u64;
        let mut sent = [0 as RawFd; DESCRIPTORS];
        let mut count = 0;
        for (bit, fd) in fds.into_iter().enumerate() {
            if fd >= 0 {
                mask |= 1 << bit;
                sent[count] = fd;
                count += 1;
            }
        }
        let data = [
            plan as *const ChildPlan<'_> as usize as u64,
            mask,
            u64::from(armed),
            u64::from(tmp),
        ];
        send_with_fds(&self.socket, &data, &sent[..count])
    }

    /// Ends the warm init (closing this end of its socket is its signal to
    /// exit) and reaps it: once reaped (or reaped by someone else: gone
    /// all the same), it runs on its stack no more.
    pub(super) fn end(self) {
        let Warm {
            running,
            setup,
            socket,
            arm: _,
            tmp: _,
            pids: _,
        } = self;
        drop(socket);
        let pid = nix::unistd::Pid::from_raw(running.pid);
        while nix::sys::wait::waitpid(pid, None) == Err(nix::errno::Errno::EINTR) {}
        if running.pidfd >= 0 {
            // A descriptor this thread opened and owns alone.
            let _ = nix::unistd::close(running.pidfd);
        }
        drop(setup);
        WAITING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What says when the program of a call handed to a warm init has
/// started: this thread's end of its socket, which reaches end-of-file
/// then (the init closes its end once the program has called `execve` or
/// failed to, and the program's copy closes as it calls `execve`).
pub(super) struct ProgramStart(OwnedFd);

impl ProgramStart {
    /// Waits until the call's program has started (or failed to start, or
    /// the init has died).
    pub(super) fn wait(self) {
        let mut byte = 0u8;
        // The init sends nothing more: any answer is the end.
        while nix::unistd::read(&self.0, std::slice::from_mut(&mut byte))
            == Err(nix::errno::Errno::EINTR)
        {}
    }
}

/// The words of a call's message: the plan's address, the mask of the
/// descriptors sent, whether the armed process takes the call, whether the
/// tmpfs mounted ahead is the call's.
const MESSAGE: usize = 4;

/// The byte a warm init sends once its setup is done.
const READY: u8 = b'r';

/// A connected pair of Unix sequenced-packet sockets (a message and its
/// descriptors arrive whole), close-on-exec.
fn socket_pair() -> Option<(OwnedFd, OwnedFd)> {
    let mut fds = [-1 as c_int; 2];
    #[expect(unsafe_code)]
    // SAFETY: socketpair writes two descriptors into a local array; each
    // is owned once, here.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        ) != 0
        {
            return None;
        }
        Some((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// Room for one `SCM_RIGHTS` message of [`DESCRIPTORS`] descriptors,
/// aligned as a `cmsghdr` must be.
#[repr(C, align(8))]
struct Control([u8; 64]);

/// Sends `data` with `fds` attached, in one message, without `SIGPIPE`.
fn send_with_fds(socket: &OwnedFd, data: &[u64; MESSAGE], fds: &[RawFd]) -> bool {
    let mut control = Control([0; 64]);
    let bytes = std::mem::size_of_val(fds);
    #[expect(unsafe_code)]
    // SAFETY: the message header points at local buffers that outlive the
    // call: the data, and a control buffer large and aligned enough for
    // one header with `fds` (at most `DESCRIPTORS`, checked by the
    // caller's array) written through the CMSG macros.
    unsafe {
        let mut iov = libc::iovec {
            iov_base: data.as_ptr() as *mut libc::c_void,
            iov_len: std::mem::size_of_val(data),
        };
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        if !fds.is_empty() {
            let space = libc::CMSG_SPACE(bytes as u32) as usize;
            if space > control.0.len() {
                return false;
            }
            message.msg_control = control.0.as_mut_ptr().cast();
            message.msg_controllen = space as _;
            let header = libc::CMSG_FIRSTHDR(&message);
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = libc::CMSG_LEN(bytes as u32) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr().cast::<u8>(),
                libc::CMSG_DATA(header),
                bytes,
            );
        }
        loop {
            let sent = libc::sendmsg(socket.as_raw_fd(), &message, libc::MSG_NOSIGNAL);
            if sent >= 0 {
                return sent as usize == std::mem::size_of_val(data);
            }
            if nix::errno::Errno::last() != nix::errno::Errno::EINTR {
                return false;
            }
        }
    }
}

/// The warm init's entry.
extern "C" fn warm_entry(setup: *mut libc::c_void) -> c_int {
    #[expect(unsafe_code)]
    // SAFETY: `setup` is the init thread's `Setup`, alive until this
    // process says it is ready (see `Warm::clone_on`); `warm_main` reads it
    // only before that.
    let setup = unsafe { &*setup.cast::<Setup>() };
    warm_main(setup)
}

/// The warm init: its setup, the ready byte, then the call it is sent.
#[expect(unsafe_code)]
fn warm_main(setup: &Setup) -> ! {
    let socket = setup.socket;
    // SAFETY: raw, async-signal-safe calls on this process's own state,
    // descriptors and local buffers; `setup` is only read.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        spawn::close_others(&mut [socket]);
        // Nothing of the integrator's standard streams stays open here
        // between calls (a client waiting for their end would wait for
        // this process too).
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null < 0 || libc::dup2(null, 0) < 0 || libc::dup2(null, 1) < 0 || libc::dup2(null, 2) < 0
        {
            libc::_exit(127);
        }
        if null > 2 {
            libc::close(null);
        }
        // A session of its own, as every call's init: no terminal (see
        // `spawn::child_main`).
        if libc::setsid() < 0
            || spawn::enter_namespaces(&setup.uid_map, &setup.gid_map, setup.proc).is_err()
        {
            libc::_exit(127);
        }
        // What the program would do first, done before the call comes:
        // the integrator's signal handlers go (the program inherits the
        // defaults), and so does the bounding set (the program inherits it
        // empty). Neither changes what this init may do.
        spawn::reset_signals();
        spawn::empty_bounding_set();
        // The tmpfs the next call is expected to ask for (as the last one
        // did), empty until then, seen by no other process.
        let premounted = setup
            .tmp
            .as_ref()
            .is_some_and(|(path, options)| spawn::mount_tmp(path, options));
        // The program's process, its filter installed, before the call
        // comes; `setup` (which holds the filter) is read until it is.
        let space = setup.arm.as_ref().map_or(0, |arm| arm.space);
        let armed = setup.arm.as_ref().and_then(|arm| {
            let filter = libc::sock_fprog {
                len: u16::try_from(arm.filter.len()).unwrap_or(u16::MAX),
                filter: arm.filter.as_ptr().cast_mut().cast::<libc::sock_filter>(),
            };
            super::armed::arm(arm.space, &filter)
        });
        // Named for observers (`ps`): waiting, not yet any call's init.
        libc::prctl(libc::PR_SET_NAME, c"jig-waiting".as_ptr(), 0, 0, 0);
        // From here on `setup` is not read: its owner may free it.
        if libc::write(socket, (&READY as *const u8).cast(), 1) != 1 {
            libc::_exit(127);
        }
        let Some((mut call, take, tmp)) = receive_call(socket) else {
            // The thread closed its end: no call for this one.
            libc::_exit(0)
        };
        if premounted && !tmp {
            // Not the call's: the call mounts its own. One on the call's
            // folder (with other options) is unmounted; one on another
            // folder (the previous call's kernel had another temporary
            // base) stays there, empty and seen only in this namespace.
            if let Some(ns) = &call.namespaces {
                libc::umount2(ns.tmp.as_ptr(), libc::MNT_DETACH);
            }
        }
        call.tmp_mounted = premounted && tmp;
        match armed {
            // Still waiting: one killed since (from outside) is not woken,
            // the program is cloned instead.
            Some((pid, _listener)) if take && super::armed::waiting(space) => {
                // The listener stays open until this process exits: it
                // holds the filter, whose freeing then comes after the
                // call's report.
                call.armed = Some(spawn::Armed { pid, space });
            }
            Some((pid, _)) => {
                // Not this call's filter, or its command does not fit: the
                // program is cloned; the armed process is reaped with the
                // call's other processes.
                libc::kill(pid, libc::SIGKILL);
            }
            None => {}
        }
        // The socket stays open until the program has started (`started`
        // in the call's plan): its end-of-file is the thread's signal.
        libc::prctl(libc::PR_SET_NAME, c"jig-call".as_ptr(), 0, 0, 0);
        if spawn::parent_gone(call.report) {
            spawn::fail(call.report, spawn::Stage::ParentGone, 0);
        }
        spawn::run_call(&call)
    }
}

/// Receives the call's message: a copy of its plan with the descriptors
/// as numbered here, and whether the armed process takes the call. `None`
/// at end-of-file or on a malformed message.
#[expect(unsafe_code)]
fn receive_call(socket: RawFd) -> Option<(ChildPlan<'static>, bool, bool)> {
    let mut data = [0u64; MESSAGE];
    let mut control = Control([0; 64]);
    // SAFETY: recvmsg into local buffers described by the header; the
    // descriptors are read from the one `SCM_RIGHTS` header, within the
    // length the kernel wrote. The plan's address is the sending thread's
    // `ChildPlan`, alive and unchanged until the program has called
    // `execve` (see `spawn::clone_init_shared`); it is copied at once.
    unsafe {
        let mut iov = libc::iovec {
            iov_base: data.as_mut_ptr().cast(),
            iov_len: std::mem::size_of_val(&data),
        };
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.0.as_mut_ptr().cast();
        message.msg_controllen = control.0.len() as _;
        let received = loop {
            let n = libc::recvmsg(socket, &mut message, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 || *libc::__errno_location() != libc::EINTR {
                break n;
            }
        };
        if received != std::mem::size_of_val(&data) as isize
            || message.msg_flags & libc::MSG_CTRUNC != 0
        {
            return None;
        }
        let mut fds = [-1 as RawFd; DESCRIPTORS];
        let header = libc::CMSG_FIRSTHDR(&message);
        let mut count = 0;
        if !header.is_null()
            && (*header).cmsg_level == libc::SOL_SOCKET
            && (*header).cmsg_type == libc::SCM_RIGHTS
        {
            let bytes = ((*header).cmsg_len as usize).saturating_sub(libc::CMSG_LEN(0) as usize);
            count = (bytes / std::mem::size_of::<RawFd>()).min(DESCRIPTORS);
            std::ptr::copy_nonoverlapping(
                libc::CMSG_DATA(header),
                fds.as_mut_ptr().cast::<u8>(),
                count * std::mem::size_of::<RawFd>(),
            );
        }
        let mask = data[1];
        let mut numbered = [-1 as RawFd; DESCRIPTORS];
        let mut next = 0;
        for (bit, slot) in numbered.iter_mut().enumerate() {
            if mask & (1 << bit) != 0 {
                if next >= count {
                    return None;
                }
                *slot = fds[next];
                next += 1;
            }
        }
        let mut plan = *(data[0] as usize as *const ChildPlan<'static>);
        [
            plan.stdin,
            plan.output,
            plan.report,
            plan.status,
            plan.landlock,
        ] = numbered;
        plan.go = -1;
        plan.prepared = true;
        plan.started = socket;
        Some((plan, data[2] == 1, data[3] == 1))
    }
}
