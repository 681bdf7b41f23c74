//! A pids cgroup per call, where one can be created (cgroup v1's `pids`
//! hierarchy, writable: as root). It bounds the call's process count where
//! `RLIMIT_NPROC` cannot: the operating system exempts uid 0 from that limit
//! even inside a user namespace.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder of this process's own pids cgroup, if calls can get theirs
/// below it (probed once per process).
pub(crate) fn pids_base() -> Option<PathBuf> {
    static PROBED: OnceLock<Option<PathBuf>> = OnceLock::new();
    PROBED.get_or_init(probe_pids_base).clone()
}

fn probe_pids_base() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let relative = own.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let _id = fields.next()?;
        let controllers = fields.next()?;
        let path = fields.next()?;
        controllers
            .split(',')
            .any(|c| c == "pids")
            .then(|| path.trim_start_matches('/').to_owned())
    })?;
    let base = Path::new("/sys/fs/cgroup/pids").join(relative);
    remove_stale(&base);
    // Probe: a cgroup that can be made, limited and removed.
    let probe = PidsCgroup::create(&base, 1).ok()?;
    drop(probe);
    Some(base)
}

/// Removes the cgroups under `base` that a process of this program made
/// (`jig-<pid>-<n>`) and that outlived it: the init threads' are kept until
/// their thread ends, which a process's exit does not wait for. Only
/// empty ones go (a cgroup with processes cannot be removed), and only
/// those of processes that are gone.
fn remove_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix("jig-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            == Err(nix::errno::Errno::ESRCH);
        if gone {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// One call's pids cgroup, removed when dropped (after the call's
/// processes are gone).
#[derive(Debug)]
pub(crate) struct PidsCgroup {
    path: PathBuf,
}

impl PidsCgroup {
    /// Creates `jig-<pid>-<n>` under `base` with at most `max` processes.
    pub(crate) fn create(base: &Path, max: u64) -> std::io::Result<PidsCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = base.join(format!("jig-{}-{n}", std::process::id()));
        std::fs::create_dir(&path)?;
        let cgroup = PidsCgroup { path };
        std::fs::write(cgroup.path.join("pids.max"), max.to_string())?;
        Ok(cgroup)
    }

    /// Moves process `pid` (and so everything it starts) into the cgroup.
    pub(crate) fn enter(&self, pid: i32) -> std::io::Result<()> {
        std::fs::write(self.path.join("cgroup.procs"), pid.to_string())
    }
}

/// The most processes Linux allows (`PID_MAX_LIMIT` on 64-bit systems):
/// `pids.max` takes no number above it.
const PID_MAX_LIMIT: u64 = 4 * 1024 * 1024;

/// The pids cgroup of an init thread (see `spawn::init_thread`): the
/// thread moves into it once, and every init it clones starts in it, so
/// that the init and every process of its call count against its limit
/// from the start, with no move per call (a move waits for an RCU grace
/// period: milliseconds).
///
/// Only for uid 0, which `RLIMIT_NPROC` does not bound: the init's count of
/// its namespace's processes, every few milliseconds, missed bursts (a
/// program could fork 400 processes between two counts and exit).
#[derive(Debug)]
pub(crate) struct ThreadPids {
    /// The cgroup's folder.
    path: PathBuf,
    /// This process's own pids cgroup, where the thread goes back.
    base: PathBuf,
    /// The thread that entered it (0: none yet).
    thread: std::sync::atomic::AtomicI32,
    /// The limit written last (`None`: none yet); held while writing, so
    /// that two threads setting limits cannot leave it saying another
    /// limit than the file's.
    max: std::sync::Mutex<Option<u64>>,
}

impl ThreadPids {
    /// A cgroup for an init thread, where this process runs as uid 0, a
    /// pids cgroup can be made, and more than one call is expected: the
    /// first move of a thread into a cgroup waits for an RCU grace period
    /// (10–14 ms on the reference machine), which a process that makes one
    /// call (`jig call`) would pay on that call's path; there the init's
    /// count alone bounds the call, as before.
    pub(crate) fn new() -> Option<ThreadPids> {
        if !nix::unistd::geteuid().is_root() || super::expected() != super::Expect::Calls {
            return None;
        }
        let base = pids_base()?;
        // Not removed as a call's is (which kills what is in it: here,
        // this process's own thread), but as `Drop` below says.
        let cgroup = std::mem::ManuallyDrop::new(PidsCgroup::create(&base, 1).ok()?);
        Some(ThreadPids {
            path: cgroup.path.clone(),
            base,
            thread: std::sync::atomic::AtomicI32::new(0),
            max: std::sync::Mutex::new(None),
        })
    }

    /// Sets the limit for the call of the init cloned next, or handed a
    /// call: `processes`, the init counted among them as `RLIMIT_NPROC`
    /// counts it, and four more: the thread itself, the exited init of the
    /// call before (counted until it is reaped), and the next call's init
    /// and its armed process, made while this call runs. The init's own
    /// count (`spawn::watch`) still ends a call past `processes`.
    /// Past the most processes the operating system allows, no limit.
    pub(crate) fn limit(&self, processes: u64) -> std::io::Result<()> {
        let max = processes.saturating_add(4);
        let mut written = self
            .max
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if *written != Some(max) {
            let text = if max > PID_MAX_LIMIT {
                "max".to_owned()
            } else {
                max.to_string()
            };
            std::fs::write(self.path.join("pids.max"), text)?;
            *written = Some(max);
        }
        Ok(())
    }

    /// Moves the calling thread (only: `tasks`, not `cgroup.procs`) into
    /// the cgroup, so that what it clones from then on starts there.
    pub(crate) fn enter_thread(&self) -> std::io::Result<()> {
        let tid = nix::unistd::gettid().as_raw();
        std::fs::write(self.path.join("tasks"), tid.to_string())?;
        self.thread.store(tid, Ordering::Release);
        Ok(())
    }
}

impl Drop for ThreadPids {
    /// Its thread goes back to this process's cgroup, then the cgroup is
    /// removed if it is empty (an init of its thread not reaped yet keeps
    /// it; the next process of this program removes it, see
    /// [`remove_stale`]). Nothing in it is killed: its thread is one of
    /// this process's.
    fn drop(&mut self) {
        let tid = self.thread.load(Ordering::Acquire);
        if tid != 0 {
            let _ = std::fs::write(self.base.join("tasks"), tid.to_string());
        }
        let _ = std::fs::remove_dir(&self.path);
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        // Whatever of the call is still in it (without a PID namespace, a
        // process that left the group) is killed; the last process of a
        // cgroup may take a moment to leave it.
        for _ in 0..100 {
            if let Ok(procs) = std::fs::read_to_string(self.path.join("cgroup.procs")) {
                for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
            }
            if std::fs::remove_dir(&self.path).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
