//! The secret files a call does not see: those in the root and in the
//! folders right below it whose names the kernel's mask accepts, each bound
//! over by `/dev/null` in the call's mount namespace.
//!
//! Listing a folder costs in proportion to its entries: a `node_modules`
//! of thousands of packages and a source folder of thousands of files took
//! milliseconds of every call (ext4 sorts a large folder's entries by hash
//! at each listing). What a folder holds changes only with the folder: an
//! entry made, removed or renamed changes the folder's change time
//! (`ctime`) and modification time, and a folder put in its place has
//! another inode, device or both. A kernel therefore keeps what it found
//! in each folder with those stamps, and lists the folder again only when
//! a stamp differs. Two changes can carry the same time stamp only within
//! one tick of the file system's clock: a folder whose last change is less
//! than [`SETTLE`] older than its listing is listed again at every call
//! until it has settled. A folder on a file system not known to keep
//! exact times (a network or user-space file system), or on another
//! device than the root, is listed at every call. Where a link leads is
//! resolved at every call, never kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use super::stamp::Stamp;
use crate::KernelError;

/// At most this many files are hidden per call; a workspace with more
/// runs no call (see [`masked_files`]).
pub(crate) const MAX_MASKED: usize = 1024;

/// How much older than its listing a folder's last change must be for
/// what the listing found to be kept: more than a tick of the clock of
/// any file system of [`EXACT_TIMES`] (ext4 with small inodes counts
/// whole seconds), and than the lag of the clock the kernel stamps files
/// with behind the one read here.
const SETTLE: Duration = Duration::from_secs(3);

/// At most this many folders' findings are kept (a root with more folders
/// has the rest listed at every call): what a kernel keeps stays small.
const MAX_KEPT: usize = 4096;

/// File systems whose folders' times are kept exactly by this operating
/// system (their `statfs` magic numbers): ext2/3/4, XFS, Btrfs, tmpfs,
/// F2FS and overlayfs (containers' root file system). A network file
/// system's times come from its server and a client's cache of them.
const EXACT_TIMES: [i64; 6] = [
    0xEF53,
    0x5846_5342,
    0x9123_683E,
    0x0102_1994,
    0xF2F5_2010,
    0x794C_7630,
];

/// What a kernel remembers of the secret files of its earlier calls.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// The files hidden because a link named as a secret file led to them:
    /// hidden in every later call, though the link goes (see
    /// [`remember_linked`]).
    linked: Mutex<Vec<PathBuf>>,
    /// What each folder held when it was last listed.
    folders: Mutex<HashMap<PathBuf, Arc<Folder>>>,
    /// How many folders were listed (the others were taken from
    /// `folders`).
    listed: AtomicUsize,
}

impl Memory {
    /// How many folders the kernel's calls have listed so far.
    #[cfg(test)]
    fn listed(&self) -> usize {
        self.listed.load(Ordering::Relaxed)
    }
}

/// Whether a folder's last change (its stamp's `ctime`) is more than
/// [`SETTLE`] older than `listed`, on the file system `exact` (the device
/// of the root, where its file system keeps exact times).
fn settled(stamp: &Stamp, exact: Option<u64>, listed: SystemTime) -> bool {
    let (Ok(secs), Ok(nanos)) = (u64::try_from(stamp.ctime.0), u32::try_from(stamp.ctime.1)) else {
        return false;
    };
    let changed = SystemTime::UNIX_EPOCH
        .checked_add(Duration::new(secs, nanos))
        .and_then(|changed| changed.checked_add(SETTLE));
    exact == Some(stamp.dev) && secs > 0 && changed.is_some_and(|settled| settled <= listed)
}

/// What one listing of a folder found.
#[derive(Debug)]
struct Folder {
    stamp: Option<Stamp>,
    /// Whether the listing may be used again while the stamp holds.
    settled: bool,
    /// Whether the folders and links below were looked for (the root).
    descend: bool,
    /// The regular files whose names the mask accepts.
    files: Vec<PathBuf>,
    /// The links whose names the mask accepts.
    secret_links: Vec<PathBuf>,
    /// In the root: its folders but `.git`.
    folders: Vec<PathBuf>,
    /// In the root: its other links (those that lead to a folder of the
    /// root are searched too).
    other_links: Vec<PathBuf>,
}

/// The files in the root and the folders right below it whose names
/// `mask` accepts (regular files; a link with such a name stands for the
/// file of the workspace it leads to), and those links. More than
/// [`MAX_MASKED`] files is an error: the rest could not be hidden.
pub(crate) fn masked_files(
    root: &Path,
    mask: Option<fn(&str) -> bool>,
    memory: &Memory,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>), KernelError> {
    let Some(mask) = mask else {
        return Ok((Vec::new(), Vec::new()));
    };
    masked_files_at(root, mask, memory, SystemTime::now())
}

/// [`masked_files`], with the listings made at `now` (earlier than any of
/// them).
fn masked_files_at(
    root: &Path,
    mask: fn(&str) -> bool,
    memory: &Memory,
    now: SystemTime,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>), KernelError> {
    // The root's stamp, read once: it says the root's device too.
    let root_stamp = Stamp::of(root);
    let exact = exact_times(root, root_stamp.as_ref());
    let mut found = Vec::new();
    let mut links = Vec::new();
    let mut linked = Vec::new();
    let top = look(root, root_stamp, true, mask, memory, exact, now)?;
    let mut below: Vec<&Path> = top.folders.iter().map(PathBuf::as_path).collect();
    for link in &top.other_links {
        // A folder of the root reached through a link: what is in it is
        // one folder below the root by the path a program names.
        if std::fs::canonicalize(link)
            .is_ok_and(|target| target.starts_with(root) && target.is_dir())
        {
            below.push(link);
        }
    }
    let mut seen = vec![Arc::clone(&top)];
    for dir in &below {
        seen.push(look(dir, Stamp::of(dir), false, mask, memory, exact, now)?);
    }
    for folder in &seen {
        found.extend(folder.files.iter().cloned());
        for link in &folder.secret_links {
            // A link named as a secret file leads to one, whatever that
            // one's name: its target is hidden, where it is a file of the
            // workspace (Landlock keeps the rest out of reach).
            if let Ok(target) = std::fs::canonicalize(link)
                && target.starts_with(root)
                && target.is_file()
            {
                linked.push(target);
                links.push(link.clone());
            }
        }
    }
    forget_others(memory, root, &below);
    remember_linked(&memory.linked, linked, &mut found);
    found.sort();
    found.dedup();
    if found.len() > MAX_MASKED {
        return Err(KernelError::TooManySecretFiles { limit: MAX_MASKED });
    }
    Ok((found, links))
}

/// The device of `root` (of stamp `stamp`) when its file system keeps
/// exact times (see [`EXACT_TIMES`]).
fn exact_times(root: &Path, stamp: Option<&Stamp>) -> Option<u64> {
    let kind = nix::sys::statfs::statfs(root).ok()?.filesystem_type().0;
    EXACT_TIMES.contains(&kind).then_some(stamp?.dev)
}

/// What `dir` (of stamp `stamp`, read just before) holds: what its last
/// listing found, if the folder has not changed since and had settled
/// then; else a new listing, kept for the next call.
fn look(
    dir: &Path,
    stamp: Option<Stamp>,
    descend: bool,
    mask: fn(&str) -> bool,
    memory: &Memory,
    exact: Option<u64>,
    now: SystemTime,
) -> Result<Arc<Folder>, KernelError> {
    let kept = memory
        .folders
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(dir)
        .cloned();
    if let (Some(kept), Some(stamp)) = (kept, &stamp)
        && kept.settled
        && kept.descend == descend
        && kept.stamp == Some(*stamp)
    {
        return Ok(kept);
    }
    memory.listed.fetch_add(1, Ordering::Relaxed);
    // The stamp was read before the listing: a change made while it runs
    // changes the stamp the next call reads.
    let settled = stamp.as_ref().is_some_and(|s| settled(s, exact, now));
    let folder = Arc::new(list(dir, descend, mask, stamp, settled)?);
    let mut folders = memory
        .folders
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if folders.len() < MAX_KEPT || folders.contains_key(dir) {
        folders.insert(dir.to_path_buf(), Arc::clone(&folder));
    }
    Ok(folder)
}

/// Lists `dir` (see [`Folder`]). A folder gone, or one that cannot be
/// searched (no program can open a file in it either), holds nothing; one
/// that can be searched but not listed is an error: a program could open
/// a secret file in it by name, which could not be hidden.
fn list(
    dir: &Path,
    descend: bool,
    mask: fn(&str) -> bool,
    stamp: Option<Stamp>,
    settled: bool,
) -> Result<Folder, KernelError> {
    let mut folder = Folder {
        stamp,
        settled,
        descend,
        files: Vec::new(),
        secret_links: Vec::new(),
        folders: Vec::new(),
        other_links: Vec::new(),
    };
    let cut_short = |source: std::io::Error| KernelError::UnlistableFolder {
        folder: dir.to_path_buf(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            folder.settled = false;
            let gone = matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            );
            let searchable = nix::unistd::access(dir, nix::unistd::AccessFlags::X_OK).is_ok();
            if gone || !searchable {
                return Ok(folder);
            }
            return Err(cut_short(error));
        }
    };
    for entry in entries {
        // A listing cut short could miss a secret file.
        let entry = entry.map_err(cut_short)?;
        let kind = match entry.file_type() {
            Ok(kind) => kind,
            // Gone since it was listed.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(cut_short(error)),
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if kind.is_file() && mask(&name) {
            folder.files.push(entry.path());
        } else if kind.is_symlink() && mask(&name) {
            folder.secret_links.push(entry.path());
        } else if descend && kind.is_dir() && name != ".git" {
            folder.folders.push(entry.path());
        } else if descend && kind.is_symlink() {
            folder.other_links.push(entry.path());
        }
    }
    Ok(folder)
}

/// Forgets the folders other than `root` and `below` (those of this call):
/// what is kept stays as large as one call's search.
fn forget_others(memory: &Memory, root: &Path, below: &[&Path]) {
    let mut folders = memory
        .folders
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if folders.len() > below.len() + 1 {
        let kept: std::collections::HashSet<&Path> = below.iter().copied().collect();
        folders.retain(|dir, _| dir == root || kept.contains(dir.as_path()));
    }
}

/// Adds `targets` (the files links named as secrets lead to now) to the
/// files a kernel hid through a link before, and every one of those that
/// is still a regular file to `found`: a call that may write can remove a
/// link (it is no mount point), and the next call's search would no longer
/// find the file it led to. At most [`MAX_MASKED`] are kept beyond those
/// found now.
fn remember_linked(before: &Mutex<Vec<PathBuf>>, targets: Vec<PathBuf>, found: &mut Vec<PathBuf>) {
    let mut before = before.lock().unwrap_or_else(PoisonError::into_inner);
    for target in &targets {
        if before.len() < MAX_MASKED && !before.contains(target) {
            before.push(target.clone());
        }
    }
    found.extend(targets);
    found.extend(
        before
            .iter()
            .filter(|target| std::fs::symlink_metadata(target).is_ok_and(|meta| meta.is_file()))
            .cloned(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(name: &str) -> bool {
        name == ".env" || name.ends_with(".key")
    }

    /// A time at which every folder made by a test has settled.
    fn later() -> SystemTime {
        SystemTime::now() + Duration::from_secs(3600)
    }

    /// Waits past a tick of the file system's clock: a change made now
    /// gets another time stamp than the change before. (With every folder
    /// settled at `later`, two changes within a tick could share one,
    /// which is what the settle rule guards against outside tests.)
    fn tick() {
        std::thread::sleep(Duration::from_millis(20));
    }

    fn found(root: &Path, memory: &Memory, now: SystemTime) -> Vec<String> {
        let (files, _) = masked_files_at(root, mask, memory, now).unwrap();
        files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        assert!(
            exact_times(&root, Stamp::of(&root).as_ref()).is_some(),
            "the temporary folder's file system is not one whose times are kept exactly"
        );
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::create_dir(root.join("big")).unwrap();
        for n in 0..50 {
            std::fs::write(root.join(format!("big/f{n}.rs")), "").unwrap();
        }
        std::fs::write(root.join(".env"), "S").unwrap();
        std::fs::write(root.join("sub/.env"), "S").unwrap();
        (dir, root)
    }

    #[test]
    fn a_settled_folder_is_listed_once_and_every_change_to_it_is_seen() {
        let (_dir, root) = workspace();
        let memory = Memory::default();
        assert_eq!(found(&root, &memory, later()), [".env", "sub/.env"]);
        assert_eq!(memory.listed(), 3);
        assert_eq!(found(&root, &memory, later()), [".env", "sub/.env"]);
        assert_eq!(
            memory.listed(),
            3,
            "an unchanged, settled folder was listed again"
        );
        // A file made in a folder changes the folder.
        tick();
        std::fs::write(root.join("big/new.key"), "K").unwrap();
        assert_eq!(
            found(&root, &memory, later()),
            [".env", "big/new.key", "sub/.env"]
        );
        assert_eq!(memory.listed(), 4);
        // So does a file renamed into it, under a secret's name.
        tick();
        std::fs::write(root.join("big/plain.txt"), "K").unwrap();
        assert_eq!(found(&root, &memory, later()).len(), 3);
        tick();
        std::fs::rename(root.join("big/plain.txt"), root.join("big/other.key")).unwrap();
        assert_eq!(
            found(&root, &memory, later()),
            [".env", "big/new.key", "big/other.key", "sub/.env"]
        );
        // A folder put in another's place is another folder.
        tick();
        std::fs::rename(root.join("sub"), root.join("old")).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/x.key"), "K").unwrap();
        assert_eq!(
            found(&root, &memory, later()),
            [
                ".env",
                "big/new.key",
                "big/other.key",
                "old/.env",
                "sub/x.key"
            ]
        );
        // A folder gone is forgotten.
        tick();
        std::fs::remove_dir_all(root.join("old")).unwrap();
        found(&root, &memory, later());
        let folders = memory.folders.lock().unwrap();
        assert_eq!(folders.len(), 3, "{:?}", folders.keys());
    }

    #[test]
    fn past_the_bound_a_folder_is_listed_at_every_call() {
        let (_dir, root) = workspace();
        let memory = Memory::default();
        {
            let mut folders = memory.folders.lock().unwrap();
            for n in 0..MAX_KEPT {
                let kept = list(&root, false, mask, None, false).unwrap();
                folders.insert(root.join(format!("gone{n}")), Arc::new(kept));
            }
        }
        // With the map full, this call's folders are listed and not kept;
        // then the map is cut to this call's folders (none of them).
        found(&root, &memory, later());
        assert_eq!(memory.listed(), 3);
        assert_eq!(memory.folders.lock().unwrap().len(), 0);
        found(&root, &memory, later());
        assert_eq!(memory.listed(), 6);
        assert_eq!(memory.folders.lock().unwrap().len(), 3);
        found(&root, &memory, later());
        assert_eq!(memory.listed(), 6);
    }

    #[test]
    fn a_folder_changed_lately_is_listed_at_every_call() {
        let (_dir, root) = workspace();
        let memory = Memory::default();
        for calls in 1..=3 {
            assert_eq!(
                found(&root, &memory, SystemTime::now()),
                [".env", "sub/.env"]
            );
            assert_eq!(memory.listed(), 3 * calls);
        }
    }

    #[test]
    fn where_a_secret_link_leads_is_resolved_at_every_call() {
        let (_dir, root) = workspace();
        for dir in ["envs1", "envs2", "app"] {
            std::fs::create_dir(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("envs1/values.txt"), "S1").unwrap();
        std::fs::write(root.join("envs2/values.txt"), "S2").unwrap();
        std::os::unix::fs::symlink("envs1", root.join("current")).unwrap();
        std::os::unix::fs::symlink("../current/values.txt", root.join("app/.env")).unwrap();
        let memory = Memory::default();
        let first = found(&root, &memory, later());
        assert!(first.contains(&"envs1/values.txt".to_owned()), "{first:?}");
        let listed = memory.listed();
        // The link in the root changes, not the folder that holds the
        // secret's link: that one is not listed again, its link is
        // resolved again.
        tick();
        std::fs::remove_file(root.join("current")).unwrap();
        std::os::unix::fs::symlink("envs2", root.join("current")).unwrap();
        let second = found(&root, &memory, later());
        assert!(
            second.contains(&"envs2/values.txt".to_owned()),
            "{second:?}"
        );
        // The file it led to before stays hidden.
        assert!(
            second.contains(&"envs1/values.txt".to_owned()),
            "{second:?}"
        );
        // Listed again: the root and the folder `current` now leads to
        // (another folder under the same path).
        assert_eq!(memory.listed(), listed + 2);
    }

    #[test]
    fn a_stamp_settles_only_on_the_roots_device_and_with_a_time() {
        let stamp = Stamp {
            dev: 7,
            ino: 1,
            size: 4096,
            mtime: (1_000, 0),
            ctime: (1_000, 0),
        };
        let long_after = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000);
        assert!(settled(&stamp, Some(7), long_after));
        assert!(!settled(&stamp, Some(8), long_after));
        assert!(!settled(&stamp, None, long_after));
        let just_after = SystemTime::UNIX_EPOCH + Duration::from_secs(1_001);
        assert!(!settled(&stamp, Some(7), just_after));
        let unknown = Stamp {
            ctime: (0, 0),
            ..stamp
        };
        assert!(!settled(&unknown, Some(7), long_after));
        let before_1970 = Stamp {
            ctime: (-5, 0),
            ..stamp
        };
        assert!(!settled(&before_1970, Some(7), long_after));
    }
}
