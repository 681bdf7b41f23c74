//! The private temporary folder of one call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh folder (mode 0700) under the kernel's temporary base, removed
/// with everything in it when dropped, however the call ended.
#[derive(Debug)]
pub(crate) struct CallTmp {
    path: PathBuf,
}

impl CallTmp {
    /// Creates the folder `jig-<pid>-<n>` under `base`.
    pub(crate) fn create(base: &Path) -> std::io::Result<CallTmp> {
        use std::os::unix::fs::DirBuilderExt;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let pid = std::process::id();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("jig-{pid}-{n}"));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(CallTmp { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CallTmp {
    fn drop(&mut self) {
        // Where a tmpfs was mounted over it inside the call's namespace, the
        // folder seen from here is empty; elsewhere it holds what the call
        // wrote. Symbolic links inside are removed, never followed.
        if std::fs::remove_dir(&self.path).is_err() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
