//! Calls cut short with their integrator: what a call that may write
//! watched at its protected paths ([`Watched`]) is recorded while it runs,
//! so that if the integrator is killed before it could set aside what the
//! call left there (a `.jig/tools/*.tool.json` the next `jig` start would
//! list, a `.git` the next git command would honour), the next kernel built
//! on the same root does it ([`recover`]).
//!
//! Each process keeps one log, `TMP_BASE/jig-UID-calls-PID-START`, a file
//! of this user writable by no other (and by no call: every call's writes
//! are bounded to its workspace and its own temporary folder), made at its
//! first call that may write. A call's start appends what it watches (its
//! root, each watched path and what stood there), its end a line saying
//! so: two writes to a file already open, no file made or removed per call.
//! A start without its end in the log of a process that is gone was cut
//! short.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::start::{Identity, Watched};

/// The first field of a log, and its version.
const HEADER: &[u8] = b"jig-call-log 1";
/// The first field of a call's start.
const BEGIN: &[u8] = b"begin";
/// The last field of a call's start (no path is: paths are absolute).
const END: &[u8] = b"end";
/// The first field of a call's end.
const DONE: &[u8] = b"done";
/// Past this size, a log with no call running is emptied.
const COMPACT_AT: u64 = 1 << 20;

/// The open log of this process, for one temporary folder.
struct Log {
    file: std::fs::File,
    /// Where the next entry goes.
    end: u64,
    /// Calls started and not ended.
    running: usize,
    /// The next call's number.
    next: u64,
}

/// This process's logs, by temporary folder.
static LOGS: Mutex<Option<HashMap<PathBuf, Log>>> = Mutex::new(None);

/// A call's start in the log; its end is written when this is dropped
/// (once its set-aside is done).
#[derive(Debug)]
pub(crate) struct Record {
    tmp_base: PathBuf,
    call: u64,
}

impl Drop for Record {
    fn drop(&mut self) {
        let mut logs = LOGS.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(log) = logs.as_mut().and_then(|logs| logs.get_mut(&self.tmp_base)) else {
            return;
        };
        let mut entry = Vec::new();
        push(&mut entry, DONE);
        push(&mut entry, self.call.to_string().as_bytes());
        if log.file.write_all_at(&entry, log.end).is_ok() {
            log.end += entry.len() as u64;
        }
        log.running = log.running.saturating_sub(1);
        let header = header_len();
        if log.running == 0 && log.end > COMPACT_AT && log.file.set_len(header).is_ok() {
            log.end = header;
        }
    }
}

/// The start of the names of this user's logs.
fn prefix() -> String {
    format!("jig-{}-calls-", nix::unistd::geteuid().as_raw())
}

/// The length of a log's header.
fn header_len() -> u64 {
    HEADER.len() as u64 + 1
}

/// This process, as logs name it: its pid and start time (a later process
/// given the same pid has another start time).
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

/// Records the start of a call on `root` watching `watched`; `None`
/// (nothing to record, or the log cannot be written) leaves the call as it
/// was: its set-aside still runs when it ends, unless the integrator is
/// killed.
pub(crate) fn begin(
    tmp_base: &Path,
    root: &Path,
    watched: &[Watched],
    ends_by: std::time::SystemTime,
) -> Option<Record> {
    if watched.is_empty() {
        return None;
    }
    let mut logs = LOGS.lock().unwrap_or_else(PoisonError::into_inner);
    let logs = logs.get_or_insert_with(HashMap::new);
    if !logs.contains_key(tmp_base) {
        logs.insert(tmp_base.to_path_buf(), open(tmp_base)?);
    }
    let log = logs.get_mut(tmp_base)?;
    let call = log.next;
    let mut entry = Vec::new();
    push(&mut entry, BEGIN);
    push(&mut entry, call.to_string().as_bytes());
    push(&mut entry, root.as_os_str().as_bytes());
    // The root itself (a folder made again at the same path is another
    // workspace), and when the call is over at the latest.
    push_identity(&mut entry, &super::start::identity(root)?);
    push(&mut entry, nanos(ends_by).as_bytes());
    for Watched { path, was } in watched {
        push(&mut entry, path.as_os_str().as_bytes());
        match was {
            None => push(&mut entry, b"missing"),
            Some(identity) => {
                push(&mut entry, b"present");
                push_identity(&mut entry, identity);
            }
        }
    }
    push(&mut entry, END);
    log.file.write_all_at(&entry, log.end).ok()?;
    log.end += entry.len() as u64;
    log.running += 1;
    log.next += 1;
    Some(Record {
        tmp_base: tmp_base.to_path_buf(),
        call,
    })
}

/// Makes this process's log under `tmp_base`; `None` when the name is
/// taken (by another user: the folder is shared) or nothing can be made.
fn open(tmp_base: &Path) -> Option<Log> {
    use std::os::unix::fs::OpenOptionsExt;
    let (pid, started) = this_process();
    let path = tmp_base.join(format!("{}{pid}-{started}", prefix()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .ok()?;
    let mut header = Vec::new();
    push(&mut header, HEADER);
    file.write_all_at(&header, 0).ok()?;
    Some(Log {
        file,
        end: header.len() as u64,
        running: 0,
        next: 0,
    })
}

/// Appends what names a file: its device, inode, birth time and where it
/// leads (empty when none).
fn push_identity(entry: &mut Vec<u8>, identity: &Identity) {
    push(entry, identity.dev.to_string().as_bytes());
    push(entry, identity.ino.to_string().as_bytes());
    push(entry, identity.born.map_or(String::new(), nanos).as_bytes());
    let leads_to = identity.leads_to.as_deref().unwrap_or(Path::new(""));
    push(entry, leads_to.as_os_str().as_bytes());
}

/// A time as nanoseconds since the epoch.
fn nanos(time: std::time::SystemTime) -> String {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos())
        .to_string()
}

/// Appends `field` and its terminating NUL (no field holds one: paths and
/// numbers).
fn push(text: &mut Vec<u8>, field: &[u8]) {
    text.extend_from_slice(field);
    text.push(0);
}

/// A call's start read back from a log.
struct Started {
    call: u64,
    root: PathBuf,
    /// What the root was.
    root_was: Identity,
    /// When the call was over at the latest.
    ends_by: std::time::SystemTime,
    watched: Vec<Watched>,
}

/// The calls of a log that started and did not end (a start cut short
/// while it was written, the log's last entry, is no call: its program had
/// not started); `None` when the text is no log.
fn cut_short(text: &[u8]) -> Option<Vec<Started>> {
    let mut fields = text.split(|&b| b == 0);
    if fields.next()? != HEADER {
        return None;
    }
    let mut open: Vec<Started> = Vec::new();
    loop {
        match fields.next() {
            Some(kind) if kind == BEGIN => match read_start(&mut fields) {
                Some(started) => open.push(started),
                None => return Some(open),
            },
            Some(kind) if kind == DONE => {
                let Some(call) = fields.next().and_then(number) else {
                    return Some(open);
                };
                open.retain(|started| started.call != call);
            }
            // The end of the log (the last NUL leaves one empty field), or
            // an entry cut short.
            _ => return Some(open),
        }
    }
}

/// A number field.
fn number(field: &[u8]) -> Option<u64> {
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// The rest of a call's start, after its first field; `None` when it is
/// cut short or malformed.
fn read_start<'a>(fields: &mut impl Iterator<Item = &'a [u8]>) -> Option<Started> {
    let call = number(fields.next()?)?;
    let root = PathBuf::from(OsStr::from_bytes(fields.next()?));
    let root_was = read_identity(fields)?;
    let ends_by = time(fields.next()?)?;
    let mut watched = Vec::new();
    loop {
        let path = fields.next()?;
        if path == END {
            return Some(Started {
                call,
                root,
                root_was,
                ends_by,
                watched,
            });
        }
        let path = PathBuf::from(OsStr::from_bytes(path));
        let was = match fields.next()? {
            b"missing" => None,
            b"present" => Some(read_identity(fields)?),
            _ => return None,
        };
        watched.push(Watched { path, was });
    }
}

/// A time written by [`nanos`].
fn time(field: &[u8]) -> Option<std::time::SystemTime> {
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(number(field)?))
}

/// What names a file, as [`push_identity`] wrote it.
fn read_identity<'a>(fields: &mut impl Iterator<Item = &'a [u8]>) -> Option<Identity> {
    let dev = number(fields.next()?)?;
    let ino = number(fields.next()?)?;
    let born = match fields.next()? {
        b"" => None,
        nanos => Some(time(nanos)?),
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

/// Sets aside what calls on `root` cut short with their integrator left at
/// their protected paths (see [`super::set_aside`]). The log of a process
/// still alive is left alone (its calls may still run); one of a process
/// gone gets the end of each call set aside, and is removed once no call of
/// it is left to set aside (another root's).
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
        let (base, claimer) = name.split_once(".claimed-").unwrap_or((name, ""));
        if claimer
            .parse::<u32>()
            .is_ok_and(|pid| start_time(pid).is_some())
        {
            continue;
        }
        // The log of a process still alive.
        let writer = base.split_once('-').and_then(|(pid, started)| {
            Some((pid.parse::<u32>().ok()?, number(started.as_bytes())?))
        });
        let Some((pid, started)) = writer else {
            continue;
        };
        if start_time(pid).is_some_and(|now| now == started) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        // Only a file of this user that no other can have written.
        if !meta.is_file() || meta.uid() != uid || meta.mode() & 0o022 != 0 || meta.len() > 64 << 20
        {
            continue;
        }
        // Claimed by renaming it: of two kernels built at once, one reads it.
        let claimed = tmp_base.join(format!("{prefix}{base}.claimed-{}", std::process::id()));
        if std::fs::rename(&path, &claimed).is_err() {
            continue;
        }
        let calls = std::fs::read(&claimed)
            .ok()
            .and_then(|text| cut_short(&text))
            .unwrap_or_default();
        let (ours, others): (Vec<Started>, Vec<Started>) =
            calls.into_iter().partition(|started| started.root == root);
        // A root made again since is another workspace: nothing of the
        // call is there.
        let root_now = super::start::identity(root);
        for started in &ours {
            if root_now.as_ref() == Some(&started.root_was) {
                done.extend(super::set_aside(
                    root,
                    &started.watched,
                    Some(started.ends_by),
                ));
            }
        }
        if others.is_empty() {
            let _ = std::fs::remove_file(&claimed);
            continue;
        }
        // Left for kernels of the other roots: this root's calls marked
        // ended, the log given its name back.
        if let Ok(file) = std::fs::OpenOptions::new().append(true).open(&claimed) {
            let mut entries = Vec::new();
            for started in &ours {
                push(&mut entries, DONE);
                push(&mut entries, started.call.to_string().as_bytes());
            }
            let _ = std::io::Write::write_all(&mut &file, &entries);
        }
        let _ = std::fs::rename(&claimed, &path);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log reads back as it was written: the calls started and not
    /// ended, each whole; a start cut short while it was written is no
    /// call.
    #[test]
    fn a_log_reads_back_the_calls_cut_short() {
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
        let ends_by = std::time::SystemTime::now();
        let first = begin(tmp.path(), &root, &watched, ends_by).unwrap();
        let second = begin(tmp.path(), &root, &watched[..1], ends_by).unwrap();
        drop(first);
        let (pid, started) = this_process();
        let log = tmp.path().join(format!("{}{pid}-{started}", prefix()));
        let text = std::fs::read(&log).unwrap();
        let open = cut_short(&text).unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].call, second.call);
        assert_eq!(open[0].root, root);
        assert_eq!(open[0].ends_by, ends_by);
        assert_eq!(
            Some(&open[0].root_was),
            super::super::start::identity(&root).as_ref()
        );
        assert_eq!(open[0].watched.len(), 1);
        assert_eq!(open[0].watched[0].was, None);
        // The first call's start, read whole, as written.
        let mut fields = text.split(|&b| b == 0).skip(2);
        let back = read_start(&mut fields).unwrap();
        for (back, was) in back.watched.iter().zip(&watched) {
            assert_eq!(back.path, was.path);
            assert_eq!(back.was, was.was);
        }
        // Cut anywhere, the log holds no call but those started whole.
        for cut in 0..text.len() {
            let open = cut_short(&text[..cut]).unwrap_or_default();
            assert!(open.len() <= 2, "cut at {cut}");
            assert!(
                open.iter()
                    .all(|s| s.watched.len() == 3 || s.watched.len() == 1)
            );
        }
        drop(second);
        let text = std::fs::read(&log).unwrap();
        assert!(cut_short(&text).unwrap().is_empty());
    }
}
