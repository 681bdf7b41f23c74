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
    // Probe: a cgroup that can be made, limited and removed.
    let probe = PidsCgroup::create(&base, 1).ok()?;
    drop(probe);
    Some(base)
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
