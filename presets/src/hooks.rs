//! The hooks folder a repository names with `core.hooksPath`, asked of git
//! itself (never read from its configuration by jig): a folder inside the
//! workspace whose scripts git runs on `commit`, `checkout`, `merge`... is a
//! protected path like `.git/hooks`.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use jig_kernel::{Kernel, Limits, RunOptions};

/// The hooks folders the repository at `kernel`'s root configures, when
/// they lie inside the workspace. Git answers with its own reading of every
/// configuration file and include; the system and global files and the
/// home folder are out of the picture (the same environment as every git
/// run). Nothing is found when there is no repository or no git.
pub(crate) fn configured_hooks(kernel: &Kernel) -> Vec<PathBuf> {
    let root = kernel.root();
    if !may_name_hooks(&root.join(".git")) {
        return Vec::new();
    }
    let mut options = RunOptions::new(
        Limits::default()
            .with_timeout(std::time::Duration::from_secs(5))
            .with_max_output(64 * 1024),
    );
    for (key, value) in jig_programs::GIT_ENV {
        options = options.with_env(key, value);
    }
    let argv = ["git", "config", "-z", "--get-all", "core.hooksPath"];
    let Ok(outcome) = kernel.run_with(&argv, &options) else {
        return Vec::new();
    };
    if outcome.exit_code() != Some(0) || outcome.output.is_truncated() {
        return Vec::new();
    }
    outcome
        .output
        .kept_bytes()
        .split(|&b| b == 0)
        .filter(|value| !value.is_empty())
        .filter_map(|value| inside(root, std::ffi::OsStr::from_bytes(value)))
        .collect()
}

/// Whether git could find a `core.hooksPath` for the repository whose git
/// folder is `git`: always when `.git` is a file (a worktree or submodule:
/// git knows where its configuration is), and when the repository's
/// configuration text holds `hookspath` or `include` in any case. A
/// conservative filter that saves starting git for the usual repository;
/// it never decides what the value is.
fn may_name_hooks(git: &Path) -> bool {
    if git.is_file() {
        return true;
    }
    if !git.is_dir() {
        return false;
    }
    ["config", "config.worktree"].iter().any(|name| {
        let Ok(text) = std::fs::read(git.join(name)) else {
            return false;
        };
        let lower = text.to_ascii_lowercase();
        let has = |needle: &[u8]| lower.windows(needle.len()).any(|w| w == needle);
        has(b"hookspath") || has(b"include")
    })
}

/// `value` as git resolves a hooks path (relative to the top of the
/// working tree, which is the workspace root here), when it lies inside
/// the workspace.
fn inside(root: &Path, value: &std::ffi::OsStr) -> Option<PathBuf> {
    let path = root.join(value);
    let resolved = std::fs::canonicalize(&path).unwrap_or(path);
    resolved.starts_with(root).then_some(resolved)
}
