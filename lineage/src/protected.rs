//! Protected paths inside the workspace: what controls code execution is
//! never written, what holds secrets is not read by default.
//!
//! The lists live here, with the checks on path values; the run point
//! applies them to every form's path arguments, and the kernel enforces
//! them again with the operating system where it has a mount namespace
//! (read-only bind mounts, `/dev/null` over secret files).

use std::path::{Path, PathBuf};

use crate::confine_path;

/// Paths under the workspace root that no call may write: git's folder
/// (a hook, a configured program, or a `commondir` or `config.worktree`
/// pointing elsewhere runs something on the next git command: listing the
/// files of it that git honours would imitate git), jig's own folder, and
/// `HEAD`, without which the root is no bare repository to git (with it,
/// `objects/`, `refs/` and a `config` naming a program made there would run
/// that program at the next git command in a workspace without `.git`:
/// a shell prompt runs one on entering the folder).
pub const PROTECTED_PATHS: &[&str] = &[".git", ".jig", "HEAD"];

/// Whether a file name is one that holds secrets, in any case: `.env` and
/// `.env.*` (not the `.example`, `.sample`, `.template` and `.dist` files
/// that document them), `.envrc`, `.netrc`, `.npmrc`, `.pypirc`, `.pgpass`,
/// `.htpasswd`, `.git-credentials`, `.dockercfg`, `credentials` and the
/// data files `credentials.*` and `secrets.*` (`.aws/credentials`,
/// `.cargo/credentials.toml`, `secrets.json`; not `credentials.rs`),
/// private keys and key stores (`id_*` but not `*.pub`,
/// `*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.jks`, `*.keystore`, `*.ppk`).
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_lowercase();
    let documented = [".example", ".sample", ".template", ".dist"];
    if name == ".env" {
        return true;
    }
    if let Some(rest) = name.strip_prefix(".env.") {
        return !documented.iter().any(|d| name.ends_with(d)) && !rest.is_empty();
    }
    if matches!(
        name.as_str(),
        ".envrc"
            | ".netrc"
            | ".npmrc"
            | ".pypirc"
            | ".pgpass"
            | ".htpasswd"
            | ".git-credentials"
            | ".dockercfg"
            | "credentials"
    ) {
        return true;
    }
    // Data files only: `credentials.rs` or `secrets.py` is code.
    if let Some(rest) = name
        .strip_prefix("credentials.")
        .or_else(|| name.strip_prefix("secrets."))
    {
        let data = [
            "json", "toml", "yaml", "yml", "ini", "conf", "cfg", "env", "txt",
        ];
        return data.contains(&rest);
    }
    if name.starts_with("id_") && !name.ends_with(".pub") {
        return true;
    }
    [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// The protected set of one workspace, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    root: PathBuf,
    /// Absolute paths never written.
    write: Vec<PathBuf>,
    /// Whether secret files may be read.
    secrets_readable: bool,
}

impl Protected {
    /// The default set for the canonical workspace `root`: [`PROTECTED_PATHS`]
    /// (following a `.git` file's `gitdir:` when it points inside the
    /// workspace), plus `extra` (absolute, or relative to the root: the
    /// descriptor folder, an integrator's list). Secrets are not readable.
    pub fn new(root: &Path, extra: &[PathBuf]) -> Self {
        let mut write: Vec<PathBuf> = PROTECTED_PATHS.iter().map(|p| root.join(p)).collect();
        if let Some(gitdir) = linked_git_dir(root) {
            write.push(gitdir);
        }
        for path in extra {
            let path = if path.is_absolute() {
                path.clone()
            } else {
                root.join(path)
            };
            write.push(std::fs::canonicalize(&path).unwrap_or(path));
        }
        Self {
            root: root.to_path_buf(),
            write,
            secrets_readable: false,
        }
    }

    /// This set with secret files readable.
    pub fn with_secrets_readable(mut self, readable: bool) -> Self {
        self.secrets_readable = readable;
        self
    }

    /// The paths never written, absolute.
    pub fn write_protected(&self) -> &[PathBuf] {
        &self.write
    }

    /// Whether secret files may be read.
    pub fn secrets_readable(&self) -> bool {
        self.secrets_readable
    }

    /// Why a call may not name `value` (as written, relative to the root),
    /// or `None`. `writes`: whether the call may write.
    pub fn refusal(&self, value: &str, writes: bool) -> Option<String> {
        let resolved = if Path::new(value).is_absolute() && Path::new(value).starts_with(&self.root)
        {
            PathBuf::from(value)
        } else {
            confine_path(&self.root, value).ok()?
        };
        self.refusal_for(&resolved, value, writes)
    }

    /// [`refusal`](Self::refusal) for a path already resolved inside the
    /// workspace.
    pub fn refusal_for(&self, resolved: &Path, value: &str, writes: bool) -> Option<String> {
        if writes && let Some(protected) = self.write.iter().find(|p| resolved.starts_with(p)) {
            let shown = protected.strip_prefix(&self.root).unwrap_or(protected);
            return Some(format!(
                "`{value}` is inside `{}`, which no command that may write can touch (it \
                 controls what runs); work on other files",
                shown.display()
            ));
        }
        let name = resolved.file_name()?.to_string_lossy();
        if !self.secrets_readable && is_secret_name(&name) {
            return Some(format!(
                "`{value}` holds secrets and is not readable; ask the person you work for \
                 if you need a value from it"
            ));
        }
        None
    }
}

/// The folder a `.git` file (`gitdir: ...`) at `root` points to, when it
/// lies inside the workspace: protected as `.git` is.
pub fn linked_git_dir(root: &Path) -> Option<PathBuf> {
    let dotgit = root.join(".git");
    if !dotgit.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(&dotgit).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let target = root.join(target);
    let target = std::fs::canonicalize(target).ok()?;
    target.starts_with(root).then_some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for name in [
            ".env",
            ".env.local",
            ".env.production",
            ".netrc",
            "id_rsa",
            "id_ed25519",
            "server.pem",
            "tls.key",
            ".npmrc",
            ".pypirc",
            ".ENV",
            ".Env.Local",
            "SERVER.PEM",
            ".envrc",
            ".pgpass",
            ".htpasswd",
            ".git-credentials",
            "credentials",
            "credentials.toml",
            "secrets.json",
            "client.p12",
            "cert.pfx",
            "release.keystore",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            ".env.example",
            ".env.sample",
            "id_rsa.pub",
            "env",
            "main.rs",
            "keys.txt",
            ".envrc2",
            "secrets.example",
            "credentials.md.template",
            "secrets",
            "key.rs",
            "credentials.rs",
            "secrets.py",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn protected_writes_and_secret_reads() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(root.join(".env"), "KEY=1").unwrap();
        let protected = Protected::new(&root, &[PathBuf::from("tools")]);
        assert!(protected.refusal(".git/hooks/pre-commit", true).is_some());
        assert!(protected.refusal(".git/hooks/pre-commit", false).is_none());
        assert!(protected.refusal("tools/x.tool.json", true).is_some());
        assert!(protected.refusal(".jig/tools/x", true).is_some());
        assert!(protected.refusal("src/main.rs", true).is_none());
        assert!(protected.refusal(".env", false).is_some());
        assert!(
            protected
                .clone()
                .with_secrets_readable(true)
                .refusal(".env", false)
                .is_none()
        );
        // Through a symbolic link too.
        std::os::unix::fs::symlink(".git/hooks", root.join("h")).unwrap();
        assert!(protected.refusal("h/post-checkout", true).is_some());
    }
}
