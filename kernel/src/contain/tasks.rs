//! How many tasks a user has, as `RLIMIT_NPROC` counts them.
//!
//! Without namespaces nor a pids cgroup (an unprivileged user where user
//! namespaces are refused), the only process bound the operating system
//! offers is `RLIMIT_NPROC`, and it bounds the *user's* tasks (processes and
//! their threads, by real uid), the integrator's and its other programs'
//! included. A call gets the user's count when it starts plus its bound:
//! it may add at most that many tasks, whatever the user already runs.

use std::fs;
use std::os::unix::fs::MetadataExt;

/// The tasks whose real user is `uid`: each `/proc/<pid>/status` with that
/// real uid counts its `Threads:`. Processes that end while they are read
/// count as nothing; an error when `/proc` cannot be listed.
///
/// Only the processes that `/proc` shows as owned by `uid` are read (the
/// owner is the effective uid, or root for a process that is not
/// dumpable): a set-uid program of the user's, or one made undumpable,
/// is missed and the call's bound is that much tighter.
pub(super) fn of_user(uid: u32) -> std::io::Result<u64> {
    let mut count = 0u64;
    for entry in fs::read_dir("/proc")?.flatten() {
        let name = entry.file_name();
        if !name
            .as_encoded_bytes()
            .first()
            .is_some_and(u8::is_ascii_digit)
        {
            continue;
        }
        // The owner, from the directory entry's own stat: reading every
        // process's status costs ten times more.
        if entry.metadata().map_or(true, |meta| meta.uid() != uid) {
            continue;
        }
        let Ok(status) = fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        count = count.saturating_add(threads_of(&status, uid));
    }
    Ok(count)
}

/// The `Threads:` of a `/proc/<pid>/status` text whose real uid (the first
/// number of `Uid:`) is `uid`; 0 for another user's.
fn threads_of(status: &str, uid: u32) -> u64 {
    let field = |key: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|number| number.parse::<u64>().ok())
    };
    if field("Uid:") != Some(u64::from(uid)) {
        return 0;
    }
    field("Threads:").unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_counts_its_threads_for_its_real_user_only() {
        let status = "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nThreads:\t7\n";
        assert_eq!(threads_of(status, 1000), 7);
        assert_eq!(threads_of(status, 0), 0);
        // The effective uid is not the real one: the real one counts.
        let setuid = "Uid:\t1000\t0\t0\t0\nThreads:\t2\n";
        assert_eq!(threads_of(setuid, 1000), 2);
        assert_eq!(threads_of(setuid, 0), 0);
        assert_eq!(threads_of("Uid:\t5\t5\t5\t5\n", 5), 1);
        assert_eq!(threads_of("", 5), 0);
    }

    #[test]
    fn this_process_its_threads_and_its_children_are_counted() {
        let uid = nix::unistd::getuid().as_raw();
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = std::sync::Arc::new(std::sync::Mutex::new(wait));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let wait = std::sync::Arc::clone(&wait);
                std::thread::spawn(move || {
                    let _ = wait.lock().map(|wait| wait.recv());
                })
            })
            .collect();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        // Other tests' threads come and go meanwhile: only a lower bound
        // holds (the main thread, the four, the child).
        let count = of_user(uid);
        child.kill().unwrap();
        child.wait().unwrap();
        drop(release);
        for thread in threads {
            thread.join().unwrap();
        }
        assert!(count.as_ref().is_ok_and(|&count| count >= 6), "{count:?}");
    }
}
