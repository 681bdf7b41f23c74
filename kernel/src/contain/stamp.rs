//! What a file or folder was when it was read, to know whether what was
//! learnt from it still holds: one replaced has another device or inode;
//! one changed in place (a file written, an entry of a folder made,
//! removed or renamed) has other times, size or both.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A file's identity, size and times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mtime: (i64, i64),
    /// The change time, which no program can set (it is the time of the
    /// last change of the file or of its metadata).
    pub(super) ctime: (i64, i64),
}

impl Stamp {
    /// The stamp of what `path` names now (links followed, as `execve` and
    /// a listing follow them); `None` when it cannot be read.
    pub(super) fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }
}
