//! The Landlock ruleset of one call, built in the parent.
//!
//! Everything is handled (every file right of ABI 6, TCP bind and connect,
//! abstract Unix sockets and signals scoped), then the few rights a call
//! needs are granted back: read on the workspace and the system folders
//! programs start from; write on the workspace only for a call that may
//! write; read and write (never device creation) on the call's private
//! temporary folder; `EXECUTE` on the program, its loader and nothing else.

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    Scope,
};
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;

use crate::contain::Access as CallAccess;

/// The ABI whose rights jig asks for; older kernels get the subset they
/// know (best effort), newer ones are not asked for rights jig has not
/// tested.
const ASKED: ABI = ABI::V6;

/// Folders every program may read to start: programs, libraries, shared
/// data (locale, terminfo, zoneinfo, magic).
pub(crate) const SYSTEM_READ: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// The few files of `/etc` that programs read to start and to print names.
pub(crate) const ETC_READ: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/locale.alias",
    "/etc/gitconfig",
    "/etc/magic",
    "/etc/magic.mime",
    "/etc/mime.types",
    "/etc/terminfo",
    "/etc/alternatives",
];

/// Character devices every program may read (and `/dev/null`, write).
const DEVICES_READ: &[&str] = &["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"];

/// The paths of one call's rules.
#[derive(Debug)]
pub(crate) struct CallPaths<'a> {
    /// System folders and files to read (existing ones, from the kernel).
    pub(crate) system: &'a [PathBuf],
    /// The workspace root.
    pub(crate) root: &'a Path,
    /// The call's private temporary folder, when its rule is added here
    /// (with namespaces it is added in the child, after the tmpfs is
    /// mounted: Landlock ignores rules on a directory hidden by a mount).
    pub(crate) tmp: Option<&'a Path>,
    /// Files the operating system executes to start the program.
    pub(crate) executed: &'a [PathBuf],
    /// Whether the rule for `/proc` is added here (with namespaces the
    /// child adds it to its private `/proc`, for the same reason).
    pub(crate) proc: bool,
}

/// Builds the ruleset of a call and returns its file descriptor, to be
/// enforced in the child by one `landlock_restrict_self`.
///
/// The ruleset itself is made per call (the child adds the rules of its own
/// mounts to it, which must not reach another call), but the descriptors
/// its rules are made from are kept open between calls ([`Opened`]): a rule
/// costs one `landlock_add_rule`, and, at most every [`RECHECK_AFTER`], one
/// `stat` of its path to check that the path still names the same file.
/// A ruleset made ahead with exactly this call's rules (see [`make_ahead`])
/// is taken instead of making one.
pub(crate) fn ruleset(
    paths: &CallPaths<'_>,
    access: CallAccess,
    abi: u32,
) -> Result<OwnedFd, String> {
    let grants = grants(paths, access);
    let made = Ahead::lock().take(&Rules::of(&grants, abi));
    let ruleset = match made {
        Some(made) => made,
        None => build(&grants, abi)?.0,
    };
    Ahead::lock().want(&grants, abi);
    if let Some(tmp) = paths.tmp {
        // Made for this call only: opened for this call only.
        let (handled_dir, _) = handled(abi);
        let write = AccessFs::from_all(ASKED)
            & !(AccessFs::Execute | AccessFs::MakeChar | AccessFs::MakeBlock);
        let fd = nix::fcntl::open(tmp, OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty())
            .map_err(|e| format!("{}: {e}", tmp.display()))?;
        add_rule(&ruleset, fd.as_fd(), (write & handled_dir).bits())
            .map_err(|e| format!("{}: {e}", tmp.display()))?;
    }
    Ok(ruleset)
}

/// Makes the ruleset the last call had (its paths checked as a call's
/// are) ahead of the next call, which takes it if its rules are the same
/// (see [`ruleset`]): off that call's path, the ruleset's making (two
/// dozen system calls) costs it nothing. Does nothing when no call came
/// yet or such a ruleset is waiting already.
pub(crate) fn make_ahead() {
    let Some((grants, abi)) = Ahead::lock().wanted.take() else {
        return;
    };
    let rules = Rules::of(&grants, abi);
    if Ahead::lock().made.iter().any(|(made, _)| *made == rules) {
        return;
    }
    if let Ok((fd, rules)) = build(&grants, abi) {
        Ahead::lock().keep(rules, fd);
    }
}

/// The paths a call's rules grant, with the rights each grants.
fn grants<'a>(paths: &CallPaths<'a>, access: CallAccess) -> Vec<(&'a Path, BitFlags<AccessFs>)> {
    let all = AccessFs::from_all(ASKED);
    let read: BitFlags<AccessFs> = AccessFs::ReadFile | AccessFs::ReadDir;
    let file_read: BitFlags<AccessFs> = AccessFs::ReadFile.into();
    let write = all & !(AccessFs::Execute | AccessFs::MakeChar | AccessFs::MakeBlock);
    let workspace = match access {
        CallAccess::ReadOnly => read,
        CallAccess::WriteWorkspace => write,
    };
    let mut grants: Vec<(&Path, BitFlags<AccessFs>)> = Vec::new();
    grants.extend(paths.system.iter().map(|p| (p.as_path(), read)));
    grants.extend(DEVICES_READ.iter().map(|d| (Path::new(d), file_read)));
    grants.push((
        Path::new("/dev/null"),
        AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
    ));
    if paths.proc {
        grants.push((Path::new("/proc"), read));
    }
    grants.push((paths.root, workspace));
    grants.extend(
        paths
            .executed
            .iter()
            .map(|f| (f.as_path(), AccessFs::Execute | AccessFs::ReadFile)),
    );
    grants
}

/// The rights the running kernel handles (of those of ABI `abi`), for a
/// folder and for a file.
fn handled(abi: u32) -> (BitFlags<AccessFs>, BitFlags<AccessFs>) {
    let asked = ABI::from(i32::try_from(abi.min(6)).unwrap_or(6));
    (AccessFs::from_all(asked), AccessFs::from_file(asked))
}

/// A new ruleset with `grants`, as the rules of a call: every right handled,
/// the granted ones added back on the files the paths name now. The
/// ruleset, and the rules it holds.
fn build<P: AsRef<Path>>(
    grants: &[(P, BitFlags<AccessFs>)],
    abi: u32,
) -> Result<(OwnedFd, Rules), String> {
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ASKED))
        .map_err(|e| e.to_string())?
        .handle_access(AccessNet::from_all(ASKED))
        .map_err(|e| e.to_string())?
        .scope(Scope::from_all(ASKED))
        .map_err(|e| e.to_string())?
        .create()
        .map_err(|e| e.to_string())?;
    let ruleset =
        Option::<OwnedFd>::from(ruleset).ok_or_else(|| "landlock is not available".to_owned())?;
    let (handled_dir, handled_file) = handled(abi);
    let mut rules = Rules {
        abi,
        rules: Vec::with_capacity(grants.len()),
    };
    let mut opened = Opened::cache();
    for (path, rights) in grants {
        let path = path.as_ref();
        // A path that vanished since the kernel was built grants nothing.
        let Some(file) = opened.get(path) else {
            continue;
        };
        let handled = if file.dir { handled_dir } else { handled_file };
        let rights = (*rights & handled).bits();
        add_rule(&ruleset, file.fd.as_fd(), rights)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        rules.rules.push((file.identity, rights));
    }
    Ok((ruleset, rules))
}

/// What a ruleset holds: the ABI its handled rights are of, and each rule
/// (the file it is on, by device and inode, and the rights it grants), in
/// order. Two rulesets with the same are the same: Landlock keeps a
/// reference to the inode of each rule while the ruleset exists, so no
/// other file can take that inode's number meanwhile.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rules {
    abi: u32,
    rules: Vec<(Identity, u64)>,
}

impl Rules {
    /// The rules a ruleset of `grants` would hold now.
    fn of<P: AsRef<Path>>(grants: &[(P, BitFlags<AccessFs>)], abi: u32) -> Rules {
        let (handled_dir, handled_file) = handled(abi);
        let mut opened = Opened::cache();
        let rules = grants
            .iter()
            .filter_map(|(path, rights)| {
                let file = opened.get(path.as_ref())?;
                let handled = if file.dir { handled_dir } else { handled_file };
                Some((file.identity, (*rights & handled).bits()))
            })
            .collect();
        Rules { abi, rules }
    }
}

/// At most this many rulesets wait, made ahead (the last ones wanted: a
/// server whose calls go to a few tools in turn finds each tool's).
const MAX_AHEAD: usize = 4;

/// The rulesets made ahead, and what the last call asked for.
#[derive(Default)]
struct Ahead {
    /// Each ruleset with the rules it holds, oldest first; a call takes
    /// one (it adds its own rules to it), never two calls the same.
    made: Vec<(Rules, OwnedFd)>,
    /// The grants of the last call, and its ABI, until made ahead.
    wanted: Option<(Vec<Grant>, u32)>,
}

/// A path a ruleset grants rights on, and those rights.
type Grant = (PathBuf, BitFlags<AccessFs>);

/// The value of a process-wide lock, made at first use. A poisoned lock is
/// taken as it is: both values here are caches that a panic leaves whole.
fn locked<T: Default>(cell: &'static OnceLock<Mutex<T>>) -> MutexGuard<'static, T> {
    cell.get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

impl Ahead {
    fn lock() -> MutexGuard<'static, Ahead> {
        static AHEAD: OnceLock<Mutex<Ahead>> = OnceLock::new();
        locked(&AHEAD)
    }

    /// The ruleset made ahead with exactly `rules`, taken out.
    fn take(&mut self, rules: &Rules) -> Option<OwnedFd> {
        let index = self.made.iter().position(|(made, _)| made == rules)?;
        Some(self.made.remove(index).1)
    }

    /// Remembers `grants` as the next ruleset to make ahead.
    fn want(&mut self, grants: &[(&Path, BitFlags<AccessFs>)], abi: u32) {
        let owned = grants
            .iter()
            .map(|(path, rights)| (path.to_path_buf(), *rights))
            .collect();
        self.wanted = Some((owned, abi));
    }

    /// Keeps a ruleset made ahead, the oldest going past [`MAX_AHEAD`].
    fn keep(&mut self, rules: Rules, fd: OwnedFd) {
        if self.made.len() >= MAX_AHEAD {
            self.made.remove(0);
        }
        self.made.push((rules, fd));
    }
}

/// Opens, ahead of the first call, the paths every call's rules name
/// whatever the kernel (the system folders and files, the devices,
/// `/proc`, the default search path), so that call only checks they still
/// name the same files.
pub(crate) fn open_ahead() {
    let mut opened = Opened::cache();
    for path in SYSTEM_READ
        .iter()
        .chain(ETC_READ)
        .chain(DEVICES_READ)
        .chain(&["/proc"])
        .chain(crate::DEFAULT_SEARCH_PATH)
    {
        let _ = opened.get(Path::new(path));
    }
}

/// At most this many paths are kept open (past this, the cache starts
/// over).
const MAX_OPENED: usize = 512;

/// How long a path, once found to name the file opened for it, is trusted
/// to name it still. Until the next check, a rule names the file its path
/// named at most this long ago, which that path was granted then: a file
/// put in its place meanwhile gets nothing from the rule (it is refused,
/// not let through), and the file moved away keeps the path's rights for
/// at most this long. A path found missing is, as long, taken as missing:
/// a file made there meanwhile gets nothing either. The paths are system
/// folders and files, the root and the programs; what changes them is
/// mostly a package upgrade. A `stat` per rule on every call was about a
/// tenth of a call's own work; the system folders this machine lacks
/// (`/lib32`, `/libx32`) were opened, and not found, twice per call.
const RECHECK_AFTER: Duration = Duration::from_secs(1);

/// Which file a path named: its device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
}

impl Identity {
    fn of(stat: &nix::sys::stat::FileStat) -> Identity {
        Identity {
            dev: stat.st_dev,
            ino: stat.st_ino,
        }
    }
}

/// One path opened with `O_PATH` for Landlock rules, kept while the path
/// names the same file.
#[derive(Debug)]
struct OpenedPath {
    fd: OwnedFd,
    identity: Identity,
    dir: bool,
    /// When `identity` was last found to be what the path names.
    checked: Instant,
}

/// The paths the rules of every call are made from, opened once per
/// process. A rule is made from a descriptor: a path that names another
/// file than when it was opened (replaced, renamed, a mount over it) is
/// opened again, so a rule never names a file the path no longer names.
#[derive(Debug, Default)]
struct Opened {
    paths: HashMap<PathBuf, OpenedPath>,
    /// The paths found missing, and when.
    missing: HashMap<PathBuf, Instant>,
}

impl Opened {
    fn cache() -> MutexGuard<'static, Opened> {
        static CACHE: OnceLock<Mutex<Opened>> = OnceLock::new();
        locked(&CACHE)
    }

    /// The open file `path` names now (links followed), if it exists.
    fn get(&mut self, path: &Path) -> Option<&OpenedPath> {
        // A path not opened yet is opened at once (its `fstat` below is
        // what it names); one opened before is kept while a `stat` of the
        // path names the same file, checked at most every
        // [`RECHECK_AFTER`].
        let current = match self.paths.get_mut(path) {
            None => false,
            Some(opened) if opened.checked.elapsed() < RECHECK_AFTER => true,
            Some(opened) => {
                let now = nix::sys::stat::stat(path).ok().map(|s| Identity::of(&s))?;
                let same = opened.identity == now;
                if same {
                    opened.checked = Instant::now();
                }
                same
            }
        };
        if !current {
            if self
                .missing
                .get(path)
                .is_some_and(|found| found.elapsed() < RECHECK_AFTER)
            {
                return None;
            }
            let opened = nix::fcntl::open(path, OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty());
            let Ok(fd) = opened else {
                if self.missing.len() >= MAX_OPENED {
                    self.missing.clear();
                }
                self.missing.insert(path.to_path_buf(), Instant::now());
                return None;
            };
            self.missing.remove(path);
            let stat = nix::sys::stat::fstat(&fd).ok()?;
            if self.paths.len() >= MAX_OPENED {
                self.paths.clear();
            }
            let opened = OpenedPath {
                fd,
                identity: Identity::of(&stat),
                dir: stat.st_mode & libc::S_IFMT == libc::S_IFDIR,
                checked: Instant::now(),
            };
            self.paths.insert(path.to_path_buf(), opened);
        }
        self.paths.get(path)
    }
}

/// Adds a rule granting `rights` beneath `parent` (none: no rule).
fn add_rule(ruleset: &OwnedFd, parent: BorrowedFd<'_>, rights: u64) -> std::io::Result<()> {
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    if rights == 0 {
        return Ok(());
    }
    let attr = super::spawn::PathBeneathAttr {
        allowed_access: rights,
        parent_fd: parent.as_raw_fd(),
    };
    #[expect(unsafe_code)]
    // SAFETY: landlock_add_rule reads the attribute, a local that outlives
    // the call; both descriptors are open for the whole call.
    let added = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const super::spawn::PathBeneathAttr,
            0,
        )
    };
    if added == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The raw Landlock rights the child grants on its own mounts: read and
/// write (never execute or device creation) for the temporary folder, read
/// for `/proc`, limited to what the running kernel handles.
pub(crate) fn late_rights(abi: u32) -> (u64, u64) {
    let handled = AccessFs::from_all(ABI::from(i32::try_from(abi.min(6)).unwrap_or(6)));
    let write = handled & !(AccessFs::Execute | AccessFs::MakeChar | AccessFs::MakeBlock);
    let read = handled & (AccessFs::ReadFile | AccessFs::ReadDir);
    (write.bits(), read.bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Makes the cache's check of `path` due, as if [`RECHECK_AFTER`] had
    /// passed.
    fn make_due(cache: &mut Opened, path: &Path) {
        let opened = cache.paths.get_mut(path).unwrap();
        opened.checked = Instant::now().checked_sub(RECHECK_AFTER).unwrap();
    }

    /// The ABI of the running kernel; Landlock must be there.
    fn abi() -> u32 {
        crate::contain::spawn::landlock_abi().expect("Landlock is enabled on this machine")
    }

    fn paths(root: &Path) -> CallPaths<'_> {
        CallPaths {
            system: &[],
            root,
            tmp: None,
            executed: &[],
            proc: false,
        }
    }

    /// Whether a ruleset made ahead with the rules of `paths` waits.
    fn waiting(paths: &CallPaths<'_>, access: CallAccess) -> bool {
        let rules = Rules::of(&grants(paths, access), abi());
        Ahead::lock().made.iter().any(|(made, _)| *made == rules)
    }

    #[test]
    fn a_ruleset_made_ahead_is_taken_by_one_call_with_the_same_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let paths = paths(&root);
        ruleset(&paths, CallAccess::WriteWorkspace, abi()).unwrap();
        assert!(!waiting(&paths, CallAccess::WriteWorkspace));
        make_ahead();
        assert!(waiting(&paths, CallAccess::WriteWorkspace));
        // Other rights on the same files: not the same rules.
        assert!(!waiting(&paths, CallAccess::ReadOnly));
        ruleset(&paths, CallAccess::WriteWorkspace, abi()).unwrap();
        assert!(
            !waiting(&paths, CallAccess::WriteWorkspace),
            "the call did not take it"
        );
        make_ahead();
        assert!(waiting(&paths, CallAccess::WriteWorkspace));
        // The root replaced by another folder (found at its next check):
        // the rule would be on the old one, so the ruleset is not taken.
        let old = dir.path().join("old");
        std::fs::rename(&root, &old).unwrap();
        std::fs::create_dir(&root).unwrap();
        make_due(&mut Opened::cache(), &root);
        assert!(!waiting(&paths, CallAccess::WriteWorkspace));
    }

    #[test]
    fn a_replaced_path_is_opened_again_once_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "a").unwrap();
        let first = Opened::cache().get(&path).unwrap().identity;
        assert_eq!(Opened::cache().get(&path).unwrap().identity, first);
        let other = dir.path().join("g");
        std::fs::create_dir(&other).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let mut cache = Opened::cache();
        // Within the interval, the file the path named a moment ago.
        assert_eq!(cache.get(&path).unwrap().identity, first);
        make_due(&mut cache, &path);
        let now = cache.get(&path).unwrap();
        assert_ne!(now.identity, first);
        assert!(now.dir);
        let second = now.identity;
        // A check that finds the same file starts a new interval.
        make_due(&mut cache, &path);
        assert_eq!(cache.get(&path).unwrap().identity, second);
        assert!(cache.paths[&path].checked.elapsed() < RECHECK_AFTER);
        std::fs::remove_dir(&path).unwrap();
        make_due(&mut cache, &path);
        assert!(cache.get(&path).is_none());
    }

    #[test]
    fn a_missing_path_stays_missing_until_checked_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("later");
        let mut cache = Opened::cache();
        assert!(cache.get(&path).is_none());
        std::fs::write(&path, "made").unwrap();
        // Within the interval, missing as found: the file made since gets
        // no rule yet (refused, not let through).
        assert!(cache.get(&path).is_none());
        let found = cache.missing.get_mut(&path).unwrap();
        *found = Instant::now().checked_sub(RECHECK_AFTER).unwrap();
        let opened = cache.get(&path).unwrap();
        assert!(!opened.dir);
        assert!(!cache.missing.contains_key(&path));
    }
}
