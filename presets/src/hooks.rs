//! The hooks folder a repository names with `core.hooksPath`, and the git
//! file of each of its submodules, asked of git itself (never read from its
//! configuration by jig): a folder inside the workspace whose scripts git
//! runs on `commit`, `checkout`, `merge`..., and a submodule's `.git` (a
//! `gitdir:` line that git follows, recursing into the submodule, from the
//! top's `git status`) are protected paths like `.git`.

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
    // Only `stat`: jig opens none of the repository's files (a FIFO or a
    // device named `.git/config` would block it); git reads them, contained
    // and time-limited.
    if std::fs::metadata(root.join(".git")).is_err() {
        return Vec::new();
    }
    let hooks = ask_git(kernel, &["config", "-z", "--get-all", "core.hooksPath"])
        .into_iter()
        .filter_map(|value| inside(root, std::ffi::OsStr::from_bytes(&value)));
    // The submodules' paths, as the index's `.gitmodules` names them (the
    // index is in `.git`, which no call writes; the working tree's copy is
    // the model's to change). Each record is `key\nvalue`.
    let modules = [
        "config",
        "-z",
        "--blob",
        ":.gitmodules",
        "--get-regexp",
        r"^submodule\..*\.path$",
    ];
    let submodules = ask_git(kernel, &modules).into_iter().filter_map(|record| {
        let value = record.splitn(2, |&b| b == b'\n').nth(1)?;
        let folder = inside(root, std::ffi::OsStr::from_bytes(value))?;
        (folder != root).then(|| folder.join(".git"))
    });
    hooks.chain(submodules).collect()
}

/// The NUL-separated values git prints for `args`, in the environment of
/// every git run; none when git fails or says too much.
fn ask_git(kernel: &Kernel, args: &[&str]) -> Vec<Vec<u8>> {
    let mut options = RunOptions::new(
        Limits::default()
            .with_timeout(std::time::Duration::from_secs(5))
            .with_max_output(64 * 1024),
    );
    for (key, value) in jig_programs::GIT_ENV {
        options = options.with_env(key, value);
    }
    let argv: Vec<&str> = std::iter::once("git").chain(args.iter().copied()).collect();
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
        .map(<[u8]>::to_vec)
        .collect()
}

/// The repository's hooks folders ([`configured_hooks`]), asked of git at
/// most once: the first time a call that may write needs them (a call that
/// may not write cannot touch them, so a preset that serves only such
/// calls, or a `jig call` of one, never starts git for them).
#[derive(Debug)]
pub(crate) struct LazyHooks {
    kernel: Kernel,
    found: std::sync::OnceLock<Vec<PathBuf>>,
}

impl LazyHooks {
    /// Hooks folders of the repository at `kernel`'s root, not asked yet.
    pub(crate) fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            found: std::sync::OnceLock::new(),
        }
    }

    /// The folders, asked of git the first time.
    pub(crate) fn get(&self) -> &[PathBuf] {
        self.found.get_or_init(|| configured_hooks(&self.kernel))
    }
}

/// Why git may not run through this preset: the installed git (asked
/// once, `git --version`, contained) is older than
/// [`jig_programs::GIT_MIN_VERSION`] or does not say its version. `None`
/// when it is recent enough, or when there is no git to run (the kernel
/// reports that on use).
pub(crate) fn git_version_problem(kernel: &Kernel) -> Option<String> {
    jig_kernel::resolve_program(
        std::ffi::OsStr::new("git"),
        kernel.root(),
        kernel.search_path(),
    )
    .ok()?;
    let mut options = RunOptions::new(
        Limits::default()
            .with_timeout(jig_programs::GIT_QUERY_TIMEOUT)
            .with_max_output(4096),
    );
    for (key, value) in jig_programs::GIT_ENV {
        options = options.with_env(key, value);
    }
    let answer = match kernel.run_with(&["git", "--version"], &options) {
        Ok(outcome) if outcome.exit_code() == Some(0) => {
            String::from_utf8_lossy(&outcome.output.kept_bytes()).into_owned()
        }
        _ => String::new(),
    };
    jig_programs::git_version_problem(&answer)
}

/// `value` as git resolves a hooks path (relative to the top of the
/// working tree, which is the workspace root here), when it lies inside
/// the workspace.
fn inside(root: &Path, value: &std::ffi::OsStr) -> Option<PathBuf> {
    let path = root.join(value);
    let resolved = std::fs::canonicalize(&path).unwrap_or(path);
    resolved.starts_with(root).then_some(resolved)
}
