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

/// The one folder of a kernel with mount namespaces on which every call
/// mounts its own tmpfs, in its own mount namespace: each call sees only
/// its own, empty at start, and the operating system frees it with the
/// call's namespace. Seen from outside the calls it stays empty. Making and
/// removing a folder per call cost more than the rest of a call's start
/// together (a directory removal on ext4 is a journal transaction).
///
/// Removed when the kernel's last clone is dropped.
#[derive(Debug)]
pub(crate) struct MountPoint {
    path: PathBuf,
}

impl MountPoint {
    /// Makes the folder under `base`.
    pub(crate) fn create(base: &Path) -> std::io::Result<MountPoint> {
        fresh_folder(base).map(|path| MountPoint { path })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for MountPoint {
    fn drop(&mut self) {
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
