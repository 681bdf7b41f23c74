//! Folders, kernels, canaries and process scans for the containment cases.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jig_kernel::{Access, Containment, Kernel, Limits, Outcome, RunOptions};

/// One case's world: a workspace, a folder outside it with a canary file,
/// and a base for the calls' temporary folders.
pub(crate) struct World {
    pub(crate) workspace: tempfile::TempDir,
    pub(crate) outside: tempfile::TempDir,
    pub(crate) tmp_base: tempfile::TempDir,
    pub(crate) canary: String,
}

impl World {
    pub(crate) fn new() -> World {
        let world = World {
            workspace: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
            tmp_base: tempfile::tempdir().unwrap(),
            canary: format!("CANARY-{}-{}", std::process::id(), nonce()),
        };
        std::fs::write(world.outside.path().join("canary.txt"), &world.canary).unwrap();
        world
    }

    pub(crate) fn ws(&self, name: &str) -> PathBuf {
        self.workspace.path().join(name)
    }

    pub(crate) fn out(&self, name: &str) -> PathBuf {
        self.outside.path().join(name)
    }

    /// A kernel on this world, contained (every mechanism required) or not.
    pub(crate) fn kernel(&self, contained: bool, limits: Limits) -> Kernel {
        kernel(
            self.workspace.path(),
            self.tmp_base.path(),
            contained,
            limits,
        )
    }

    /// Runs `argv` with `access`, contained or not.
    pub(crate) fn run(&self, contained: bool, access: Access, argv: &[&str]) -> Outcome {
        self.run_with(contained, access, argv, limits())
    }

    pub(crate) fn run_with(
        &self,
        contained: bool,
        access: Access,
        argv: &[&str],
        limits: Limits,
    ) -> Outcome {
        let kernel = self.kernel(contained, limits);
        kernel
            .run_with(argv, &RunOptions::new(limits).with_access(access))
            .unwrap_or_else(|e| panic!("{argv:?} did not start: {e}"))
    }
}

/// Runs a Python `script` in `kernel` with `access` and the suite's
/// limits; what it printed.
pub(crate) fn python(kernel: &Kernel, access: Access, script: &str) -> String {
    let options = RunOptions::new(limits()).with_access(access);
    kernel
        .run_with(&["python3", "-c", script], &options)
        .unwrap_or_else(|e| panic!("the script did not start: {e}"))
        .render()
}

/// The suite's limits: short enough that a hostile case ends fast.
pub(crate) fn limits() -> Limits {
    Limits::default()
        .with_timeout(Duration::from_secs(10))
        .with_max_output(64 * 1024)
}

/// A kernel on `root`; contained means every mechanism, required: a system
/// that lacks one fails here and says which.
pub(crate) fn kernel(root: &Path, tmp_base: &Path, contained: bool, limits: Limits) -> Kernel {
    kernel_protecting(root, tmp_base, contained, limits, &[])
}

/// A contained kernel that runs without `without`, as on a system that
/// lacks them (everything else it has).
pub(crate) fn kernel_without(
    root: &Path,
    tmp_base: &Path,
    limits: Limits,
    without: &[jig_kernel::Mechanism],
    search: Option<&Path>,
) -> Kernel {
    let mut builder = Kernel::builder(root).tmpdir(tmp_base).limits(limits);
    if let Some(folder) = search {
        let mut path = builder_search_path();
        path.push(folder.to_path_buf());
        builder = builder.search_path(path);
    }
    without
        .iter()
        .fold(builder, |builder, mechanism| {
            builder.dangerous_without(*mechanism)
        })
        .build()
        .unwrap_or_else(|e| panic!("the kernel cannot be built: {e}"))
}

/// The search path a kernel has by default.
fn builder_search_path() -> Vec<std::path::PathBuf> {
    Kernel::builder(".")
        .dangerous_no_containment()
        .build()
        .map(|kernel| kernel.search_path().to_vec())
        .unwrap_or_default()
}

/// [`kernel`], keeping `read_only` read-only in every call.
pub(crate) fn kernel_protecting(
    root: &Path,
    tmp_base: &Path,
    contained: bool,
    limits: Limits,
    read_only: &[String],
) -> Kernel {
    let builder = Kernel::builder(root)
        .tmpdir(tmp_base)
        .limits(limits)
        .read_only_paths(read_only);
    let builder = if contained {
        builder.containment(Containment::required())
    } else {
        builder.dangerous_no_containment()
    };
    builder
        .build()
        .unwrap_or_else(|e| panic!("the kernel cannot be built: {e}"))
}

pub(crate) fn nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    );
    hasher.finish()
}

/// The live processes (zombies excluded) whose command line holds `marker`.
/// Waits (up to five seconds) until no process of user `uid` is left, the
/// dead not yet reaped included: they count against the user's
/// `RLIMIT_NPROC` until then. Whether none is left.
pub(crate) fn no_processes_of(uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let start = Instant::now();
    loop {
        let any = std::fs::read_dir("/proc").is_ok_and(|entries| {
            entries.flatten().any(|entry| {
                entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| name.parse::<u32>().is_ok())
                    && entry.metadata().is_ok_and(|meta| meta.uid() == uid)
            })
        });
        if !any {
            return true;
        }
        if start.elapsed() > Duration::from_secs(5) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn processes_with(marker: &str) -> Vec<i32> {
    let own = std::process::id() as i32;
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if !String::from_utf8_lossy(&cmdline).contains(marker) {
            continue;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if !state.starts_with('Z') && !state.starts_with('X') && !stat.is_empty() {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `limit` for no process to carry `marker`; returns the ones
/// still alive then.
pub(crate) fn survivors(marker: &str, limit: Duration) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let alive = processes_with(marker);
        if alive.is_empty() || start.elapsed() >= limit {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Once `running` processes carry `marker` (the integrator's own command
/// line may be one), SIGKILLs the integrator `child`; returns the processes
/// carrying `marker` still alive a second later (and kills them).
pub(crate) fn kill_once_running(
    mut child: std::process::Child,
    marker: &str,
    running: usize,
) -> Vec<i32> {
    let start = Instant::now();
    while processes_with(marker).len() < running {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the call never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let alive = survivors(marker, Duration::from_secs(1));
    kill_all(marker);
    alive
}

/// Kills every process carrying `marker` (cleanup after a case that showed
/// an escape with containment off).
pub(crate) fn kill_all(marker: &str) {
    for _ in 0..50 {
        let alive = processes_with(marker);
        if alive.is_empty() {
            return;
        }
        for pid in alive {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the case's check for containment off (the effect must happen) and
/// on (it must not), with a message naming the case.
pub(crate) fn twice(name: &str, mut effect: impl FnMut(bool) -> bool) {
    assert!(
        effect(false),
        "{name}: with containment off the effect did not happen, so this case proves nothing"
    );
    assert!(
        !effect(true),
        "{name}: with containment on the effect happened"
    );
}

/// An init of this process (a warm init waiting for its call, or a
/// call's), seen from its parent.
pub(crate) struct ChildInit {
    pub(crate) pid: i32,
    /// Its start time in clock ticks (`/proc/PID/stat`, field 22): a pid
    /// reused by another process has another.
    pub(crate) start: u64,
    /// Where each of its descriptors leads, sorted.
    pub(crate) descriptors: Vec<String>,
}

/// This process's living children named `comm` (those of every thread),
/// with what each holds.
pub(crate) fn children_named(comm: &str) -> Vec<ChildInit> {
    children_of_named("self", comm)
}

/// The living children named `comm` of process `parent` (a pid, or
/// `self`), with what each holds.
pub(crate) fn children_of_named(parent: &str, comm: &str) -> Vec<ChildInit> {
    let mut found = Vec::new();
    let tasks = std::fs::read_dir(format!("/proc/{parent}/task"))
        .into_iter()
        .flatten();
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if name.trim() != comm {
                continue;
            }
            let mut descriptors: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .map(|target| target.display().to_string())
                .collect();
            descriptors.sort();
            if let Some(start) = start_time(pid) {
                found.push(ChildInit {
                    pid,
                    start,
                    descriptors,
                });
            }
        }
    }
    found
}

/// The start time of `pid`, if it is alive (zombies excluded).
pub(crate) fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields after the name: state is field 3, start time field 22.
    if fields.first().is_some_and(|state| state.starts_with('Z')) {
        return None;
    }
    fields.get(19)?.parse().ok()
}

/// This process's children named `jig-waiting`: the waiting inits.
/// Waits up to `limit` for at least one.
pub(crate) fn waiting_inits(limit: Duration) -> Vec<ChildInit> {
    let start = Instant::now();
    loop {
        let found: Vec<ChildInit> = children_named("jig-waiting")
            .into_iter()
            .filter(|init| init.descriptors.iter().any(|d| d.starts_with("socket:")))
            .collect();
        if !found.is_empty() || start.elapsed() >= limit {
            return found;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
