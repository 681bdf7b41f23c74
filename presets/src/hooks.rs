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
/// they lie inside the workspace, and its submodules' `.git`
/// ([`gitlinks`]). Git answers with its own reading of every
/// configuration file and include; the system and global files and the
/// home folder are out of the picture (the same environment as every git
/// run). Nothing is found when there is no repository or no git, or when
/// git refuses the repository (the host's git refuses it as well). An
/// answer git could not give whole (cut at its output budget, ended at its
/// timeout, more submodules than jig looks into) is an error: the paths
/// git follows are then unknown, and calls that may write are refused.
pub(crate) fn configured_hooks(kernel: &Kernel) -> Result<Vec<PathBuf>, String> {
    let root = kernel.root();
    // Only `stat`: jig opens none of the repository's files (a FIFO or a
    // device named `.git/config` would block it); git reads them, contained
    // and time-limited.
    if std::fs::metadata(root.join(".git")).is_err() {
        return Ok(Vec::new());
    }
    let mut found: Vec<PathBuf> = ask_git(
        kernel,
        &["config", "-z", "--get-all", "core.hooksPath"],
        HOOKS_OUTPUT,
    )?
    .into_iter()
    .filter_map(|value| inside(root, std::ffi::OsStr::from_bytes(&value)))
    .collect();
    found.extend(gitlinks(kernel, INDEX_OUTPUT)?);
    Ok(found)
}

/// The most output a question about the hooks folders may give.
const HOOKS_OUTPUT: usize = 64 * 1024;
/// The most output a listing of a repository's index may give (about
/// eight hundred thousand files); past it, the submodules are unknown.
const INDEX_OUTPUT: usize = 64 << 20;
/// Submodules looked into at most, nested ones included; past it, the
/// submodules are unknown.
const MAX_SUBMODULES: usize = 64;
/// How long git may take to answer one question.
const GIT_ANSWER_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// The `.git` of every gitlink in the index (a submodule, named in
/// `.gitmodules` or not, whose `.git` file or folder git follows from the
/// top's `git status`), and of every gitlink in a checked-out submodule's
/// own index, as deep as they go (at most [`MAX_SUBMODULES`] looked into),
/// each listing at most `max_output` bytes.
/// The index is in `.git`, which no call writes: the working tree's
/// `.gitmodules` is the model's to change, the index is not.
fn gitlinks(kernel: &Kernel, max_output: usize) -> Result<Vec<PathBuf>, String> {
    let root = kernel.root();
    let mut found = Vec::new();
    let mut repositories = vec![root.to_path_buf()];
    let mut looked = 0;
    while let Some(repository) = repositories.pop() {
        looked += 1;
        if looked > MAX_SUBMODULES + 1 {
            return Err(format!(
                "the repository has more than {MAX_SUBMODULES} checked-out submodules, nested \
                 ones included, more than jig looks into"
            ));
        }
        let Some(at) = repository.strip_prefix(root).ok().and_then(|p| p.to_str()) else {
            continue;
        };
        let at = if at.is_empty() { "." } else { at };
        let listed = ask_git(kernel, &["-C", at, "ls-files", "-z", "--stage"], max_output)?;
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
    Ok(found)
}

/// The NUL-separated values git prints for `args`, in the environment of
/// every git run: none when there is no git to run or git fails (exits
/// with another status than 0), an error when its answer is not whole (more
/// than `max_output`, or no end within [`GIT_ANSWER_TIME`]) or it cannot
/// be started.
fn ask_git(kernel: &Kernel, args: &[&str], max_output: usize) -> Result<Vec<Vec<u8>>, String> {
    let mut options = RunOptions::new(
        Limits::default()
            .with_timeout(GIT_ANSWER_TIME)
            .with_max_output(max_output),
    );
    for (key, value) in jig_programs::GIT_ENV {
        options = options.with_env(key, value);
    }
    let argv: Vec<&str> = std::iter::once("git").chain(args.iter().copied()).collect();
    let question = format!("`{}`", argv.join(" "));
    let outcome = match kernel.run_with(&argv, &options) {
        Ok(outcome) => outcome,
        Err(jig_kernel::KernelError::ProgramNotFound { .. }) => return Ok(Vec::new()),
        Err(error) => return Err(format!("{question} could not run: {error}")),
    };
    if outcome.timed_out() {
        return Err(format!(
            "{question} did not answer within {} seconds",
            GIT_ANSWER_TIME.as_secs()
        ));
    }
    if outcome.output.is_truncated() {
        return Err(format!(
            "{question} answered more than {max_output} bytes, more than jig reads"
        ));
    }
    match outcome.exit_code() {
        Some(0) => {}
        Some(_) => return Ok(Vec::new()),
        None => return Err(format!("{question} was ended before it answered")),
    }
    Ok(outcome
        .output
        .kept_bytes()
        .split(|&b| b == 0)
        .filter(|value| !value.is_empty())
        .map(<[u8]>::to_vec)
        .collect())
}

/// The repository's hooks folders and submodules' `.git`
/// ([`configured_hooks`]), asked of git at most once: the first time a
/// call that may write needs them (a call that may not write cannot touch
/// them, so a preset that serves only such calls, or a `jig call` of one,
/// never starts git for them).
#[derive(Debug)]
pub(crate) struct LazyHooks {
    kernel: Kernel,
    found: std::sync::OnceLock<Result<Vec<PathBuf>, String>>,
}

impl LazyHooks {
    /// Hooks folders of the repository at `kernel`'s root, not asked yet.
    pub(crate) fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            found: std::sync::OnceLock::new(),
        }
    }

    /// The paths, asked of git the first time; why they are unknown when
    /// git could not say.
    pub(crate) fn get(&self) -> Result<&[PathBuf], &str> {
        match self.found.get_or_init(|| configured_hooks(&self.kernel)) {
            Ok(found) => Ok(found),
            Err(why) => Err(why),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An index listing longer than its budget: the submodules are
    /// unknown (an error), not none; within the budget, none are found.
    #[test]
    fn a_listing_past_its_budget_leaves_the_submodules_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("file.txt"), "x\n").unwrap();
        let plain = Kernel::builder(&root)
            .dangerous_no_containment()
            .build()
            .unwrap();
        let write = RunOptions::new(plain.limits()).with_access(jig_kernel::Access::WriteWorkspace);
        for argv in [&["git", "init", "-q"][..], &["git", "add", "file.txt"]] {
            let outcome = plain.run_with(argv, &write).unwrap();
            assert_eq!(
                outcome.exit_code(),
                Some(0),
                "{argv:?}: {}",
                outcome.render()
            );
        }
        let kernel = Kernel::builder(&root).build().unwrap();
        let why = gitlinks(&kernel, 16).unwrap_err();
        assert!(why.contains("more than 16 bytes"), "{why}");
        assert_eq!(gitlinks(&kernel, 1 << 20), Ok(Vec::new()));
    }
}
