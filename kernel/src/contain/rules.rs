//! The Landlock ruleset of one call, built in the parent.
//!
//! Everything is handled (every file right of ABI 6, TCP bind and connect,
//! abstract Unix sockets and signals scoped), then the few rights a call
//! needs are granted back: read on the workspace and the system folders
//! programs start from; write on the workspace only for a call that may
//! write; read and write (never device creation) on the call's private
//! temporary folder; `EXECUTE` on the program, its loader and nothing else.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

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
pub(crate) fn ruleset(paths: &CallPaths<'_>, access: CallAccess) -> Result<OwnedFd, String> {
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
    if let Some(tmp) = paths.tmp {
        grants.push((tmp, write));
    }
    grants.extend(
        paths
            .executed
            .iter()
            .map(|f| (f.as_path(), AccessFs::Execute | AccessFs::ReadFile)),
    );
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(|e| e.to_string())?
        .handle_access(AccessNet::from_all(ASKED))
        .map_err(|e| e.to_string())?
        .scope(Scope::from_all(ASKED))
        .map_err(|e| e.to_string())?
        .create()
        .map_err(|e| e.to_string())?;
    for (path, rights) in grants {
        // A path that vanished since the kernel was built grants nothing.
        let Ok(fd) = PathFd::new(path) else { continue };
        let rights = if path.is_dir() {
            rights
        } else {
            rights & AccessFs::from_file(ASKED)
        };
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Option::<OwnedFd>::from(ruleset).ok_or_else(|| "landlock is not available".to_owned())
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
