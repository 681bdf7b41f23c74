//! The hooks folder a repository names with `core.hooksPath`, and the
//! `.git` of each of its submodules (every gitlink of its index, and of
//! theirs), asked of git itself (never read from its configuration by jig):
//! a folder inside the workspace whose scripts git runs on `commit`,
//! `checkout`, `merge`..., and a submodule's `.git` (a `gitdir:` line or a
//! folder that git follows, recursing into the submodule, from the top's
//! `git status`) are protected paths like `.git`.

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
    let mut found: Vec<PathBuf> = ask_git(
        kernel,
        &["config", "-z", "--get-all", "core.hooksPath"],
        HOOKS_OUTPUT,
    )
    .into_iter()
    .filter_map(|value| inside(root, std::ffi::OsStr::from_bytes(&value)))
    .collect();
    found.extend(gitlinks(kernel));
    found
}

/// The most output a question about the hooks folders may give.
const HOOKS_OUTPUT: usize = 64 * 1024;
/// The most output a listing of a repository's index may give (about a
/// hundred thousand files); past it, its gitlinks are not found.
const INDEX_OUTPUT: usize = 16 << 20;
/// Submodules looked into at most, nested ones included.
const MAX_SUBMODULES: usize = 64;

/// The `.git` of every gitlink in the index (a submodule, named in
/// `.gitmodules` or not, whose `.git` file or folder git follows from the
/// top's `git status`), and of every gitlink in a checked-out submodule's
/// own index, as deep as they go (at most [`MAX_SUBMODULES`] looked into).
/// The index is in `.git`, which no call writes: the working tree's
/// `.gitmodules` is the model's to change, the index is not.
fn gitlinks(kernel: &Kernel) -> Vec<PathBuf> {
    let root = kernel.root();
    let mut found = Vec::new();
    let mut repositories = vec![root.to_path_buf()];
    let mut looked = 0;
    while let Some(repository) = repositories.pop() {
        looked += 1;
        if looked > MAX_SUBMODULES + 1 {
            break;
        }
        let Some(at) = repository.strip_prefix(root).ok().and_then(|p| p.to_str()) else {
            continue;
        };
        let at = if at.is_empty() { "." } else { at };
        let listed = ask_git(
            kernel,
            &["-C", at, "ls-files", "-z", "--stage"],
            INDEX_OUTPUT,
        );
        for entry in listed {
            // `MODE OBJECT STAGE\tPATH`
            let Some(tab) = entry.iter().position(|&b| b == b'\t') else {
                continue;
            };
            if !entry.starts_with(b"160000 ") {
                continue;
            }
            let path = std::ffi::OsStr::from_bytes(&entry[tab + 1..]);
            let Some(folder) = inside(&repository, path).filter(|f| f.starts_with(root)) else {
                continue;
            };
            let dotgit = folder.join(".git");
            if std::fs::symlink_metadata(&dotgit).is_ok() {
                repositories.push(folder);
            }
            found.push(dotgit);
        }
    }
    found
}

/// The NUL-separated values git prints for `args`, in the environment of
/// every git run; none when git fails or says more than `max_output`.
fn ask_git(kernel: &Kernel, args: &[&str], max_output: usize) -> Vec<Vec<u8>> {
    let mut options = RunOptions::new(
        Limits::default()
            .with_timeout(std::time::Duration::from_secs(5))
            .with_max_output(max_output),
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
