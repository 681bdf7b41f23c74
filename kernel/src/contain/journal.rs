//! Calls cut short with their integrator: what a call that may write
//! watched at its protected paths ([`Watched`]) is recorded while it runs,
//! so that if the integrator is killed before it could set aside what the
//! call left there (a `.jig/tools/*.tool.json` the next `jig` start would
//! list, a `.git` the next git command would honour), the next kernel built
//! on the same root does it ([`recover`]).
//!
//! A record is a file `TMP_BASE/jig-UID-call-PID-START-N` of this user,
//! writable by no other (and by no call: every call's writes are bounded to
//! its workspace and its own temporary folder), named after the process
//! that made it, holding the root and each watched path with what stood
//! there; it is removed once the call's set-aside is done. One that
//! outlives its process was cut short.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::start::{Identity, Watched};

/// The first field of a record, and its version.
const HEADER: &[u8] = b"jig-call-watch 1";
/// The last field of a record (no path is: paths are absolute).
const END: &[u8] = b"end";

/// A record of a running call, removed when dropped (once its set-aside is
/// done).
#[derive(Debug)]
pub(crate) struct Record {
    path: PathBuf,
}

impl Drop for Record {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The start of the names of this user's records.
fn prefix() -> String {
    format!("jig-{}-call-", nix::unistd::geteuid().as_raw())
}

/// This process, as records name it: its pid and start time (a later
/// process given the same pid has another start time).
fn this_process() -> (u32, u64) {
    static STARTED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let pid = std::process::id();
    (pid, *STARTED.get_or_init(|| start_time(pid).unwrap_or(0)))
}

/// The start time of process `pid` (`/proc/PID/stat`, field 22), if it
/// lives: a process that has exited (a zombie not yet reaped, or dying)
/// does not.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    // The name (field 2) is in parentheses and may hold anything: the
    // fields are counted from the last `)`.
    let after = stat.iter().rposition(|&b| b == b')')?;
    let text = std::str::from_utf8(&stat[after + 1..]).ok()?;
    let mut fields = text.split_ascii_whitespace();
    if matches!(fields.next()?, "Z" | "X" | "x") {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

/// Records the `watched` paths of a call on `root`; `None` (nothing to
/// record, or no record could be written) leaves the call as it was: its
/// set-aside still runs when it ends, unless the integrator is killed.
pub(crate) fn begin(tmp_base: &Path, root: &Path, watched: &[Watched]) -> Option<Record> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    static SEQUENCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if watched.is_empty() {
        return None;
    }
    let (pid, started) = this_process();
    let sequence = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = tmp_base.join(format!("{}{pid}-{started}-{sequence}", prefix()));
    let mut text = Vec::new();
    for field in [
        HEADER,
        pid.to_string().as_bytes(),
        started.to_string().as_bytes(),
        root.as_os_str().as_bytes(),
    ] {
        push(&mut text, field);
    }
    for Watched { path, was } in watched {
        push(&mut text, path.as_os_str().as_bytes());
        match was {
            None => push(&mut text, b"missing"),
            Some(identity) => {
                push(&mut text, b"present");
                push(&mut text, identity.dev.to_string().as_bytes());
                push(&mut text, identity.ino.to_string().as_bytes());
                let born = identity
                    .born
                    .and_then(|born| born.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(String::new(), |born| born.as_nanos().to_string());
                push(&mut text, born.as_bytes());
                let leads_to = identity.leads_to.as_deref().unwrap_or(Path::new(""));
                push(&mut text, leads_to.as_os_str().as_bytes());
            }
        }
    }
    push(&mut text, END);
    // A name taken (by another user: the folder is shared) leaves the call
    // without a record, as it was before records.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .ok()?;
    let record = Record { path };
    file.write_all(&text).ok()?;
    Some(record)
}

/// Appends `field` and its terminating NUL (no field holds one: paths and
/// numbers).
fn push(text: &mut Vec<u8>, field: &[u8]) {
    text.extend_from_slice(field);
    text.push(0);
}

/// A record read back: the root and what its call watched.
struct Recorded {
    pid: u32,
    started: u64,
    root: PathBuf,
    watched: Vec<Watched>,
}

/// Reads a record; `None` for anything that is not one whole.
fn read(text: &[u8]) -> Option<Recorded> {
    let mut fields = text.split(|&b| b == 0);
    if fields.next()? != HEADER {
        return None;
    }
    let number = |field: &[u8]| std::str::from_utf8(field).ok()?.parse::<u64>().ok();
    let pid = u32::try_from(number(fields.next()?)?).ok()?;
    let started = number(fields.next()?)?;
    let root = PathBuf::from(OsStr::from_bytes(fields.next()?));
    let mut watched = Vec::new();
    loop {
        let path = fields.next()?;
        if path == END {
            // The last field's NUL leaves one empty field, then nothing.
            return (fields.next() == Some(b"") && fields.next().is_none()).then_some(Recorded {
                pid,
                started,
                root,
                watched,
            });
        }
        let path = PathBuf::from(OsStr::from_bytes(path));
        let was = match fields.next()? {
            b"missing" => None,
            b"present" => {
                let dev = number(fields.next()?)?;
                let ino = number(fields.next()?)?;
                let born = match fields.next()? {
                    b"" => None,
                    nanos => {
                        let nanos = std::str::from_utf8(nanos).ok()?.parse::<u128>().ok()?;
                        let nanos = u64::try_from(nanos).ok()?;
                        Some(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(nanos))
                    }
                };
                let leads_to = match fields.next()? {
                    b"" => None,
                    target => Some(PathBuf::from(OsStr::from_bytes(target))),
                };
                Some(Identity {
                    dev,
                    ino,
                    born,
                    leads_to,
                })
            }
            _ => return None,
        };
        watched.push(Watched { path, was });
    }
}

/// Sets aside what calls on `root` cut short with their integrator left at
/// their protected paths (see [`super::set_aside`]), and forgets their
/// records; a record of a process still alive (its call may still run) is
/// left alone, and so are those of other roots.
pub(crate) fn recover(tmp_base: &Path, root: &Path) -> Vec<crate::SetAside> {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(tmp_base) else {
        return Vec::new();
    };
    let (uid, prefix) = (nix::unistd::geteuid().as_raw(), prefix());
    let mut done = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str().and_then(|name| name.strip_prefix(&prefix)) else {
            continue;
        };
        // Claimed by a kernel being built: left to it while it lives.
        if let Some((_, claimer)) = name.split_once(".claimed-")
            && claimer
                .parse::<u32>()
                .is_ok_and(|pid| start_time(pid).is_some())
        {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        // Only a file of this user that no other can have written.
        if !meta.is_file() || meta.uid() != uid || meta.mode() & 0o022 != 0 || meta.len() > 1 << 20
        {
            continue;
        }
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        let Some(recorded) = read(&text) else {
            // Not a record (cut short while it was written): nothing to do.
            let _ = std::fs::remove_file(&path);
            continue;
        };
        if recorded.root != root
            || start_time(recorded.pid).is_some_and(|now| now == recorded.started)
        {
            continue;
        }
        // Claimed by renaming it: of two kernels built at once, one sets
        // aside.
        let base = name.split_once(".claimed-").map_or(name, |(base, _)| base);
        let claimed = tmp_base.join(format!("{prefix}{base}.claimed-{}", std::process::id()));
        if std::fs::rename(&path, &claimed).is_err() {
            continue;
        }
        done.extend(super::set_aside(root, &recorded.watched));
        let _ = std::fs::remove_file(&claimed);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record reads back as it was written, and anything cut short or
    /// altered reads as no record.
    #[test]
    fn a_record_reads_back_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink("elsewhere", root.join("link")).unwrap();
        let present = |name: &str| Watched {
            path: root.join(name),
            was: super::super::start::identity(&root.join(name)),
        };
        let watched = vec![
            Watched {
                path: root.join(".git"),
                was: None,
            },
            present("link"),
            present("."),
        ];
        let record = begin(tmp.path(), &root, &watched).unwrap();
        let text = std::fs::read(&record.path).unwrap();
        let recorded = read(&text).unwrap();
        assert_eq!(recorded.root, root);
        assert_eq!(recorded.pid, std::process::id());
        assert_eq!(recorded.watched.len(), 3);
        for (back, was) in recorded.watched.iter().zip(&watched) {
            assert_eq!(back.path, was.path);
            assert_eq!(back.was, was.was);
        }
        for cut in 0..text.len() {
            assert!(read(&text[..cut]).is_none(), "cut at {cut}");
        }
        let path = record.path.clone();
        drop(record);
        assert!(!path.exists(), "a record outlived its call");
    }
}
