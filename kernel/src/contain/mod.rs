//! Containment: what an accepted program *can do*, bounded by the operating
//! system, per call.
//!
//! The layers above decide what is meant to run; this module bounds what it
//! can do when they miss. See the crate's front page for the table of
//! threats, mechanisms and what remains.

mod armed;
mod cgroup;
mod elf;
mod journal;
pub(crate) mod masked;
mod metadata;
pub(crate) mod rules;
pub(crate) mod seccomp;
mod signals;
pub(crate) mod spawn;
mod stamp;
mod start;
mod tasks;
mod tmp;
mod warm;

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

pub(crate) use cgroup::PidsCgroup;
pub(crate) use elf::executed_files;
pub use elf::script_interpreter;
pub(crate) use journal::recover;
pub(crate) use rules::{CallPaths, ruleset};
pub(crate) use start::{Request, program_status, set_aside, start};
pub(crate) use tmp::{CallTmp, MountPoint};

/// How much containment a kernel asks for. Weaker settings are not values
/// of this type: see [`KernelBuilder::dangerous_no_containment`].
///
/// [`KernelBuilder::dangerous_no_containment`]: crate::KernelBuilder::dangerous_no_containment
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Containment {
    level: Level,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) enum Level {
    /// Nothing beyond the process group (dangerous).
    Off,
    /// Every mechanism the running system has; what applied is reported.
    #[default]
    BestEffort,
    /// Every mechanism, or the kernel is not built.
    Required,
}

impl Containment {
    /// Every mechanism the running system has (the default); the kernel's
    /// [`confinement`](crate::Kernel::confinement) says which applied.
    pub fn best_effort() -> Self {
        Self {
            level: Level::BestEffort,
        }
    }

    /// Landlock, seccomp and user, PID and mount namespaces, or
    /// [`KernelBuilder::build`](crate::KernelBuilder::build) fails with
    /// [`KernelError::ContainmentUnavailable`](crate::KernelError::ContainmentUnavailable).
    pub fn required() -> Self {
        Self {
            level: Level::Required,
        }
    }

    pub(crate) fn off() -> Self {
        Self { level: Level::Off }
    }

    pub(crate) fn level(self) -> Level {
        self.level
    }

    /// Whether this asks for every mechanism.
    pub fn is_required(self) -> bool {
        self.level == Level::Required
    }
}

/// What one call may change. Reading is always limited to the workspace and
/// the system folders programs need to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
#[non_exhaustive]
pub enum Access {
    /// The call writes nothing: not the workspace, not a file's mode, owner,
    /// times or attributes. Only its private temporary folder.
    #[default]
    ReadOnly,
    /// The call may also create, change and remove files in the workspace.
    WriteWorkspace,
}

impl Access {
    /// `read-only` or `write-workspace`.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::ReadOnly => "read-only",
            Access::WriteWorkspace => "write-workspace",
        }
    }
}

/// What contains the calls of a kernel: the mechanisms that applied, as
/// probed when the kernel was built. Never silent: [`Display`] names what
/// applied and what is missing.
///
/// [`Display`]: std::fmt::Display
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Confinement {
    /// The Landlock ABI enforced (files; from 4, TCP; from 6, signal and
    /// abstract-socket scoping), or `None`.
    pub landlock_abi: Option<u32>,
    /// Whether the seccomp filter applies (no sockets, no io_uring, no
    /// metadata writes in read-only calls).
    pub seccomp: bool,
    /// Whether each call runs in its own user, PID and mount namespaces
    /// (nothing of the call outlives it; a size-bounded temporary folder).
    pub namespaces: bool,
    /// Whether `/proc` shows only the call's own processes.
    pub private_proc: bool,
    /// The bound on the call's process count, when one applies.
    pub process_limit: Option<u64>,
    /// Whether [`Self::process_limit`] bounds what the call adds to its
    /// user's tasks rather than the call's own: without namespaces nor a
    /// pids cgroup, `RLIMIT_NPROC` (which counts every task of the user)
    /// is set to the user's count when the call starts plus the bound, so
    /// calls of the user that run at once share what they add.
    pub process_limit_over_user: bool,
    /// The size bound of the temporary folder (a tmpfs), when one applies;
    /// otherwise only the per-file size limit bounds it.
    pub tmp_limit: Option<u64>,
    /// Whether the kernel's protected paths are read-only and its secret
    /// files hidden by the operating system in every call (mount
    /// namespaces); otherwise only the argument checks above protect them.
    pub protected_paths: bool,
    /// Whether, without namespaces, a reaper between the integrator and
    /// the program ends every process of the call with it (those that
    /// left its process group too: `setsid`, double forks), as a PID
    /// namespace would; it needs `/proc/thread-self/children`. With
    /// Landlock, it also makes a write call's metadata changes (modes,
    /// owners, times), only inside the workspace and the temporary folder,
    /// as a read-only mount of the rest would keep them, and sends the
    /// call's signals to processes by number, only to the call's own, as a
    /// PID namespace would keep them.
    pub reaper: bool,
}

impl Confinement {
    /// No containment at all.
    pub fn none() -> Self {
        Self {
            landlock_abi: None,
            seccomp: false,
            namespaces: false,
            private_proc: false,
            process_limit: None,
            process_limit_over_user: false,
            tmp_limit: None,
            protected_paths: false,
            reaper: false,
        }
    }

    /// Whether every mechanism applies.
    pub fn is_complete(&self) -> bool {
        self.landlock_abi.is_some()
            && self.seccomp
            && self.namespaces
            && self.private_proc
            && self.process_limit.is_some()
    }

    /// What is missing, as a list of short phrases (empty when complete).
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.landlock_abi.is_none() {
            missing.push("landlock (files are not confined)");
        }
        if !self.seccomp {
            missing.push("seccomp (network and io_uring are not refused)");
        }
        if !self.namespaces {
            missing.push(match (self.reaper, self.process_limit.is_some()) {
                (true, true) => {
                    "user namespaces (no pid or mount namespace: the temporary folder is \
                     bounded per file only)"
                }
                (true, false) => {
                    "user namespaces (no pid or mount namespace: the process count and the \
                     temporary folder are bounded per file only)"
                }
                (false, true) => {
                    "user namespaces (no pid or mount namespace: a process that leaves the \
                     group may outlive the call, the temporary folder is bounded per file \
                     only)"
                }
                (false, false) => {
                    "user namespaces (no pid or mount namespace: a process that leaves the \
                     group may outlive the call, the process count and the temporary folder \
                     are bounded per file only)"
                }
            });
        } else if !self.private_proc {
            missing.push("a private /proc");
        }
        if self.namespaces && self.process_limit.is_none() {
            missing.push(
                "a process-count bound (uid 0 is exempt from RLIMIT_NPROC: a writable pids \
                 cgroup is needed)",
            );
        }
        missing
    }
}

impl std::fmt::Display for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.landlock_abi.is_none() && !self.seccomp && !self.namespaces {
            return f.write_str("none: commands are not contained");
        }
        let mut parts = Vec::new();
        if let Some(abi) = self.landlock_abi {
            parts.push(format!("landlock abi {abi}"));
        }
        if self.seccomp {
            parts.push("seccomp".to_owned());
        }
        if self.namespaces {
            parts.push(if self.private_proc {
                "user+pid+mount namespaces, private /proc".to_owned()
            } else {
                "user+pid+mount namespaces".to_owned()
            });
        }
        if self.reaper && self.landlock_abi.is_some() {
            // (see `Plan::reaper_filter`)
            parts.push(
                "a reaper of the call's processes, of its metadata changes (inside only) and \
                 of its signals (to its own processes only)"
                    .to_owned(),
            );
        } else if self.reaper {
            parts.push("a reaper of the call's processes".to_owned());
        }
        match self.process_limit {
            Some(limit) if self.process_limit_over_user => {
                parts.push(format!("at most {limit} processes more than the user's"));
            }
            Some(limit) => parts.push(format!("at most {limit} processes")),
            None => {}
        }
        if let Some(limit) = self.tmp_limit {
            parts.push(format!("tmpfs {} MiB", limit / (1024 * 1024)));
        }
        if self.protected_paths {
            parts.push("protected paths read-only".to_owned());
        }
        f.write_str(&parts.join(", "))?;
        let missing = self.missing();
        if !missing.is_empty() {
            write!(f, "; missing: {}", missing.join("; "))?;
        }
        Ok(())
    }
}

/// One containment mechanism, which [`KernelBuilder::dangerous_without`]
/// can leave out.
///
/// [`KernelBuilder::dangerous_without`]: crate::KernelBuilder::dangerous_without
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mechanism {
    /// The user, PID and mount namespaces of each call (and with them the
    /// private `/proc`, the tmpfs and the protected paths).
    Namespaces,
    /// Landlock (files, TCP, scoping).
    Landlock,
    /// The seccomp filter.
    Seccomp,
}

/// What the running system offers, probed once per process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mechanisms {
    pub(crate) landlock_abi: Option<u32>,
    pub(crate) seccomp: bool,
    pub(crate) namespaces: bool,
    pub(crate) private_proc: bool,
}

impl Mechanisms {
    /// Leaves `mechanism` out, as if the system lacked it.
    pub(crate) fn remove(&mut self, mechanism: Mechanism) {
        match mechanism {
            Mechanism::Namespaces => {
                self.namespaces = false;
                self.private_proc = false;
            }
            Mechanism::Landlock => self.landlock_abi = None,
            Mechanism::Seccomp => self.seccomp = false,
        }
    }
}

/// What the system offers, once probed (the probe runs once per process).
static PROBED: OnceLock<Mechanisms> = OnceLock::new();

/// How many contained calls a process expects to make, which says what
/// [`probe_ahead`] prepares for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expect {
    /// None: the process only reads what its kernels confine (`jig tools`,
    /// `jig audit`). Only the probe runs ahead.
    NoCall,
    /// One, then the process exits (`jig call`): that call's init is made
    /// ahead, none after it, and it stays until the process ends (its
    /// namespaces' teardown then comes after the exit); a later call's init
    /// exits with its call, as in a server.
    OneCall,
    /// Any number (a server, an agent): each call's init is made ahead,
    /// the next one while a call runs. The default, also for a process
    /// that never calls [`probe_ahead`].
    Calls,
}

/// What the process expects, as [`probe_ahead`] was told
/// ([`Expect::Calls`] unless it was).
static EXPECTED: AtomicU8 = AtomicU8::new(Expect::Calls as u8);

/// What the process expects (see [`Expect`]).
pub(crate) fn expected() -> Expect {
    match EXPECTED.load(Ordering::Relaxed) {
        x if x == Expect::NoCall as u8 => Expect::NoCall,
        x if x == Expect::OneCall as u8 => Expect::OneCall,
        _ => Expect::Calls,
    }
}

/// Starts probing what the system offers for containment (the Landlock
/// ABI, seccomp, user namespaces) on a thread of its own, so that a
/// [`KernelBuilder::build`] made later finds the answer ready instead of
/// paying for it there: the namespace probe starts a process in new
/// namespaces, about a millisecond. For a program that starts, builds one
/// kernel and makes one call (`jig call`), which can do its other start-up
/// work meanwhile. A build that comes while the probe runs waits for it;
/// nothing happens when the probe is done or started already (the first
/// `expect` stays), or when no thread can start (the build then probes
/// itself). The thread also opens the paths every call's Landlock rules
/// name. Where calls get namespaces and `expect` is a call, the thread
/// then stays as the first call's init thread (the thread that clones each
/// call's init), with that call's init made ahead, so that call does not
/// start either; with [`Expect::Calls`] each call's init thread makes the
/// next call's init while the call runs (see [`Expect`]). A process that
/// makes more calls than it said still makes them, each init cloned when
/// its call comes. While it probes, the thread keeps off the processor of
/// the thread that started it (where the process may use another one), so
/// that the two run side by side; what it starts afterwards runs anywhere.
///
/// `tmp_base` is the temporary folder the kernels will be built with
/// ([`KernelBuilder::tmpdir`], [`DEFAULT_TMPDIR`] unless set); the probe mounts over it
/// in its own mount namespace, which hides nothing from anyone else.
///
/// [`KernelBuilder::build`]: crate::KernelBuilder::build
/// [`KernelBuilder::tmpdir`]: crate::KernelBuilder::tmpdir
/// [`DEFAULT_TMPDIR`]: crate::DEFAULT_TMPDIR
pub fn probe_ahead(tmp_base: impl Into<PathBuf>, expect: Expect) {
    static STARTED: AtomicBool = AtomicBool::new(false);
    if PROBED.get().is_some() || STARTED.swap(true, Ordering::AcqRel) {
        return;
    }
    EXPECTED.store(expect as u8, Ordering::Relaxed);
    let tmp_base = tmp_base.into();
    let this = nix::unistd::Pid::from_raw(0);
    let starting_cpu = nix::sched::sched_getcpu().ok();
    // The mask the thread inherits, restored before it starts anything.
    let all = nix::sched::sched_getaffinity(this).ok();
    // Detached: where calls get namespaces, the thread then waits as the
    // first call's init thread (started now, off the call's path); it ends
    // with the process.
    // Until the thread offers itself as the first init thread (or gives
    // up), a call that finds none waits for it rather than starting one.
    let first = (expect != Expect::NoCall).then(spawn::FirstInitThread::expect);
    // Closed once this thread has moved the probe thread (below): only
    // then may the thread restore its mask, or a move delayed past the
    // restore (this thread's processor taken away by a hypervisor, say)
    // would hold it, and every init it clones, on one processor for good.
    let (moved, wait_moved) = std::sync::mpsc::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("jig-probe".to_owned())
        .spawn(move || {
            crate::run::hold();
            let mechanisms = mechanisms(&tmp_base);
            if expect != Expect::NoCall && mechanisms.landlock_abi.is_some() {
                rules::open_ahead();
            }
            let _ = wait_moved.recv();
            // Before any thread or init is started from here: they inherit
            // the mask.
            if let Some(all) = all {
                let _ = nix::sched::sched_setaffinity(this, &all);
            }
            // A process that makes no call needs no reaper.
            crate::run::release(expect != Expect::NoCall);
            if expect == Expect::NoCall {
                return;
            }
            // The thread that reaps the calls' inits, started here rather
            // than on the first call's path.
            crate::run::start_reaper();
            if let (true, Some(first)) = (mechanisms.namespaces, first) {
                spawn::serve_as_init_thread(mechanisms.private_proc, first);
            }
        });
    // The probe runs beside the thread that started it, not in turns with
    // it: a scheduler that packs a process's threads on few processors (as
    // some virtual machines' does) would otherwise run it only once this
    // thread waits, which is at the build that needs the answer, and this
    // thread would then probe itself. Moved by its starter, the thread
    // starts on another processor at once.
    if let (Ok(handle), Some(cpu), Some(all)) = (&spawned, starting_cpu, all) {
        move_off(handle, cpu, &all);
    }
    drop(moved);
}

/// Moves the thread of `handle` off processor `cpu` when the mask `all`
/// has another one.
#[expect(unsafe_code)]
fn move_off(handle: &std::thread::JoinHandle<()>, cpu: usize, all: &nix::sched::CpuSet) {
    use std::os::unix::thread::JoinHandleExt;
    // SAFETY: a zeroed cpu_set_t is the empty set.
    let mut others: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let mut any = false;
    for i in (0..nix::sched::CpuSet::count()).filter(|&i| i != cpu) {
        if all.is_set(i).unwrap_or(false) {
            // SAFETY: CPU_SET writes bit `i` within the set: `i` is below
            // CpuSet::count(), the capacity in bits of the same cpu_set_t.
            unsafe { libc::CPU_SET(i, &mut others) };
            any = true;
        }
    }
    if any {
        // SAFETY: the handle's thread is neither joined nor detached while
        // the handle is borrowed, so its pthread_t is valid; the kernel
        // reads the local set of the size given.
        unsafe {
            libc::pthread_setaffinity_np(
                handle.as_pthread_t(),
                std::mem::size_of::<libc::cpu_set_t>(),
                &others,
            );
        }
    }
}

/// Probes the system once; later calls return the same answer.
pub(crate) fn mechanisms(tmp_base: &Path) -> Mechanisms {
    PROBED
        .get_or_init(|| {
            let landlock_abi = spawn::landlock_abi();
            let seccomp =
                spawn::seccomp_available() && seccomp::compile(Access::ReadOnly).is_some();
            let (namespaces, private_proc) = match spawn::probe_namespaces(tmp_base, true) {
                Ok(()) => (true, true),
                Err(_) => (spawn::probe_namespaces(tmp_base, false).is_ok(), false),
            };
            Mechanisms {
                landlock_abi,
                seccomp,
                namespaces,
                private_proc,
            }
        })
        .clone()
}

/// Everything a kernel prepares once to contain its calls.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) confinement: Confinement,
    /// System folders and files every call may read, where they exist.
    pub(crate) system: Vec<PathBuf>,
    /// The compiled seccomp filters, read-only and write.
    pub(crate) seccomp_read_only: Option<Vec<seccompiler::sock_filter>>,
    pub(crate) seccomp_write: Option<Vec<seccompiler::sock_filter>>,
    /// Where each call gets its own pids cgroup, if anywhere: only without
    /// user namespaces (moving a process into a cgroup-v1 group costs
    /// milliseconds, where the namespace's own bounds cost nothing).
    pub(crate) pids_base: Option<PathBuf>,
    /// Whether the call's init bounds the process count itself, by counting
    /// (uid 0 with namespaces: the operating system exempts a real uid 0
    /// from `RLIMIT_NPROC`).
    pub(crate) watch_processes: bool,
    /// Whether each call's `RLIMIT_NPROC` is the user's task count when it
    /// starts plus the bound (an unprivileged user without namespaces nor
    /// a pids cgroup: the limit counts all of the user's tasks).
    pub(crate) count_user_tasks: bool,
    /// Where a call has no namespaces but a reaper: the filter that hands
    /// metadata changes to the reaper ([`metadata`]), which makes them only
    /// inside the workspace and the call's temporary folder, and signals
    /// to processes by number ([`signals`]), which it sends only to the
    /// call's own processes.
    pub(crate) reaper_filter: Option<Vec<seccompiler::sock_filter>>,
    /// `"uid uid 1\n"` and the same for the group, for the user namespace.
    pub(crate) uid_map: Vec<u8>,
    pub(crate) gid_map: Vec<u8>,
    /// With mount namespaces, the one folder where every call mounts its
    /// own tmpfs (otherwise each call makes and removes its own folder).
    pub(crate) mount_point: Option<MountPoint>,
}

impl Plan {
    /// Prepares containment for a kernel whose programs live on
    /// `search_path`, from what the system offers.
    pub(crate) fn new(
        mechanisms: Mechanisms,
        search_path: &[PathBuf],
        limits: &crate::Limits,
        tmp_base: &Path,
    ) -> Arc<Plan> {
        let mut system: Vec<PathBuf> = rules::SYSTEM_READ
            .iter()
            .chain(rules::ETC_READ)
            .map(PathBuf::from)
            .chain(search_path.iter().cloned())
            // Those missing here grant nothing: each call's rules are made
            // from the paths that exist then (`rules::ruleset`).
            .collect();
        system.dedup();
        let (seccomp_read_only, seccomp_write) = if mechanisms.seccomp {
            (
                seccomp::compile(Access::ReadOnly),
                seccomp::compile(Access::WriteWorkspace),
            )
        } else {
            (None, None)
        };
        // A pids cgroup counts only where the namespaces do not bound the
        // process count themselves: only then is one probed (which makes
        // and removes a cgroup, once per process).
        let namespaces_bound =
            mechanisms.namespaces && (mechanisms.private_proc || !nix::unistd::geteuid().is_root());
        // Only a call without namespaces is moved into a pids cgroup.
        let pids_base = if namespaces_bound || mechanisms.namespaces {
            None
        } else {
            cgroup::pids_base()
        };
        // Without either, `RLIMIT_NPROC` over the user's own count, where
        // the user is not exempt from it (uid 0 is) and `/proc` counts.
        let real_uid = nix::unistd::getuid();
        let count_user_tasks = !mechanisms.namespaces
            && pids_base.is_none()
            && !real_uid.is_root()
            && tasks::of_user(real_uid.as_raw()).is_ok();
        let confinement = Confinement {
            landlock_abi: mechanisms.landlock_abi.map(|abi| abi.min(6)),
            seccomp: seccomp_read_only.is_some() && seccomp_write.is_some(),
            namespaces: mechanisms.namespaces,
            private_proc: mechanisms.namespaces && mechanisms.private_proc,
            // RLIMIT_NPROC in the call's own user namespace; for uid 0, which
            // the operating system exempts, the call's init counts (it needs
            // the private /proc); without namespaces, a pids cgroup where one
            // can be made, or else the user's RLIMIT_NPROC raised by the
            // bound over the user's count. Reported only where one applies.
            process_limit: (namespaces_bound || pids_base.is_some() || count_user_tasks)
                .then_some(limits.max_processes),
            process_limit_over_user: count_user_tasks,
            tmp_limit: mechanisms.namespaces.then_some(limits.max_tmp),
            protected_paths: false,
            reaper: !mechanisms.namespaces && spawn::children_listed(),
        };
        let (uid_map, gid_map) = identity_maps();
        // Listeners (Linux 5.0) and openat2 (5.6) come before Landlock
        // (5.13).
        let reaper_filter =
            (confinement.reaper && confinement.landlock_abi.is_some()).then(seccomp::reaper_filter);
        Arc::new(Plan {
            confinement,
            system,
            seccomp_read_only,
            seccomp_write,
            pids_base,
            watch_processes: mechanisms.namespaces
                && mechanisms.private_proc
                && nix::unistd::geteuid().is_root(),
            count_user_tasks,
            reaper_filter,
            uid_map,
            gid_map,
            // Where it cannot be made now, each call makes its own folder
            // (and says why that failed, if it does).
            mount_point: if mechanisms.namespaces {
                MountPoint::create(tmp_base).ok()
            } else {
                None
            },
        })
    }

    /// The seccomp filter of a call of `access`.
    pub(crate) fn seccomp(&self, access: Access) -> Option<&[seccompiler::sock_filter]> {
        match access {
            Access::ReadOnly => self.seccomp_read_only.as_deref(),
            Access::WriteWorkspace => self.seccomp_write.as_deref(),
        }
    }
}

/// The identity maps of a call's user namespace, `"uid uid 1\n"` and the
/// same for the group: this process's effective ids, mapped to themselves.
pub(crate) fn identity_maps() -> (Vec<u8>, Vec<u8>) {
    let uid = nix::unistd::geteuid().as_raw();
    let gid = nix::unistd::getegid().as_raw();
    (
        format!("{uid} {uid} 1\n").into_bytes(),
        format!("{gid} {gid} 1\n").into_bytes(),
    )
}

/// `path` as a C string (paths never hold NUL).
pub(crate) fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}
