//! Integration tests of jig-kernel: real processes in temporary folders.
//! Modules mirror `src/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod capture;
mod kernel;
mod outcome;
mod run;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jig_kernel::{Kernel, Limits};

/// A temporary workspace and a kernel rooted in it.
pub(crate) struct Workspace {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) kernel: Kernel,
}

impl Workspace {
    pub(crate) fn new() -> Self {
        Self::with_limits(Limits::default().with_timeout(Duration::from_secs(20)))
    }

    pub(crate) fn with_limits(limits: Limits) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let kernel = Kernel::builder(dir.path()).limits(limits).build().unwrap();
        Self { dir, kernel }
    }

    /// A workspace whose kernel runs without containment: for the tests of
    /// the process-group supervision that contained calls build on (their
    /// shells start other programs, which containment forbids).
    pub(crate) fn bare_with_limits(limits: Limits) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let kernel = Kernel::builder(dir.path())
            .limits(limits)
            .dangerous_no_containment()
            .build()
            .unwrap();
        Self { dir, kernel }
    }

    pub(crate) fn bare() -> Self {
        Self::bare_with_limits(Limits::default().with_timeout(Duration::from_secs(20)))
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Waits (bounded) until `path` holds one pid per line, `count` of them.
pub(crate) fn read_pids(path: &Path, count: usize) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if pids.len() >= count || start.elapsed() > Duration::from_secs(10) {
            assert_eq!(
                pids.len(),
                count,
                "pid file {} holds {text:?}",
                path.display()
            );
            return pids;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `pid` is a live process (a zombie awaiting its reaper is dead).
pub(crate) fn is_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Asserts every pid ends soon (SIGKILL delivery is asynchronous).
pub(crate) fn assert_all_dead(pids: &[i32]) {
    let start = Instant::now();
    while pids.iter().any(|&p| is_alive(p)) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let alive: Vec<i32> = pids.iter().copied().filter(|&p| is_alive(p)).collect();
    assert!(
        alive.is_empty(),
        "still alive after the call returned: {alive:?}"
    );
}
