//! The private temporary folder of one call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Makes a fresh folder (mode 0700) `jig-<pid>-<n>` under `base`.
fn fresh_folder(base: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = base.join(format!("jig-{pid}-{n}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The one folder on which every call with mount namespaces mounts its own
/// tmpfs, in its own mount namespace: each call sees only its own, empty at
/// start, and the operating system frees it with the call's namespace. Seen
/// from outside the calls it stays empty.
///
/// It is `jig-<uid>` under the base, made once per user (mode 0700) and
/// left in place, as `tmux-<uid>` is: every kernel of the user's processes
/// shares it, since nothing of a call is ever in it. Making and removing a
/// folder costs more than the rest of a call's start together (a directory
/// removal on ext4 is a journal transaction, milliseconds with `discard`),
/// first per call, then per kernel, which a harness that starts `jig call`
/// once per call paid every time. Where that name is taken by anything but
/// a folder of this user with mode 0700 (another user's, a link), the
/// kernel makes a fresh folder of its own instead and removes it when its
/// last clone is dropped.
#[derive(Debug)]
pub(crate) struct MountPoint {
    path: PathBuf,
    /// Whether the folder is this kernel's own, removed with it.
    owned: bool,
}

impl MountPoint {
    /// The user's folder under `base`, or a fresh one of this kernel's.
    pub(crate) fn create(base: &Path) -> std::io::Result<MountPoint> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        let uid = nix::unistd::geteuid().as_raw();
        let shared = base.join(format!("jig-{uid}"));
        let usable = match std::fs::DirBuilder::new().mode(0o700).create(&shared) {
            // Exactly 0700, whatever the umask took away.
            Ok(()) => std::fs::set_permissions(&shared, PermissionsExt::from_mode(0o700)).is_ok(),
            // Never followed: a link there is not the user's folder.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                std::fs::symlink_metadata(&shared).is_ok_and(|meta| {
                    meta.is_dir()
                        && meta.uid() == uid
                        && meta.permissions().mode() & 0o7777 == 0o700
                })
            }
            Err(_) => false,
        };
        if usable {
            return Ok(MountPoint {
                path: shared,
                owned: false,
            });
        }
        fresh_folder(base).map(|path| MountPoint { path, owned: true })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for MountPoint {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // Only ever empty: the calls wrote into their own tmpfs.
        let _ = std::fs::remove_dir(&self.path);
    }
}

/// The temporary folder of one call: its own folder, removed with
/// everything in it when dropped, however the call ended; or, with mount
/// namespaces, the kernel's [`MountPoint`], where the call's own tmpfs is
/// mounted and which is left in place.
#[derive(Debug)]
pub(crate) struct CallTmp {
    path: PathBuf,
    owned: bool,
}

impl CallTmp {
    /// Creates the folder `jig-<pid>-<n>` under `base`.
    pub(crate) fn create(base: &Path) -> std::io::Result<CallTmp> {
        fresh_folder(base).map(|path| CallTmp { path, owned: true })
    }

    /// The kernel's mount point, made again if something removed it (a
    /// cleaner of old temporary files); when it exists this costs one
    /// failed `mkdir`.
    pub(crate) fn on(mount_point: &MountPoint) -> std::io::Result<CallTmp> {
        use std::os::unix::fs::DirBuilderExt;
        let path = mount_point.path().to_path_buf();
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        Ok(CallTmp { path, owned: false })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CallTmp {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // Where a tmpfs was mounted over it inside the call's namespace, the
        // folder seen from here is empty; elsewhere it holds what the call
        // wrote. Symbolic links inside are removed, never followed.
        if std::fs::remove_dir(&self.path).is_err() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
