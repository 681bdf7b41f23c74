//! Neutralizing git's configuration for every git run.
//!
//! Read-only git can run programs named in configuration: `core.fsmonitor`
//! on `git status`, `core.pager`, diff drivers (`diff.<driver>.textconv`,
//! `diff.<driver>.command`, `diff.external`), filters
//! (`filter.<driver>.clean`, `.process`), signature programs, credential
//! helpers, transports. A repository's own `.git/config` is as untrusted as
//! its files, and jig does not read it: git's reading of configuration
//! (includes, conditional includes, worktree and submodule configuration,
//! quoting, encodings, limits) is git's own, and any imitation drifts from
//! it. Every git run therefore gets, in its environment only (the argv
//! stays the model's, word for word):
//!
//! - [`FIXED_ENV`]: `HOME` and `XDG_CONFIG_HOME` pointing nowhere (as the
//!   kernel's default does, whatever an integrator gave the kernel), no
//!   system or global configuration, no pager, no editor, no prompt, no
//!   transport at all (`GIT_ALLOW_PROTOCOL` empty), no lazy fetch, no
//!   optional locks (read-only runs never write the index);
//! - `GIT_CEILING_DIRECTORIES` set to the parent of the workspace root, so
//!   git never uses a repository above the workspace;
//! - command-line configuration (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`,
//!   `GIT_CONFIG_VALUE_n`), which wins over the repository's: [`FIXED_CONFIG`]
//!   for the fixed keys and `core.worktree` pinned to the folder that holds
//!   `.git` (found with `stat` alone: [`git_env`], the fixed part, which
//!   judging computes and a dry run shows);
//! - at run time, right before the command runs, a neutral value for every
//!   key git itself reports that names a program: driver names are
//!   arbitrary (`filter.<x>.clean`, `diff.<x>.textconv`, `merge.<x>.driver`)
//!   and attributes (`.gitattributes`, `.git/info/attributes`) may select
//!   any of them, so git is asked, in the same environment, from the same
//!   `-C` folders, contained, read-only and under a short timeout, for the
//!   names of every such key ([`GIT_QUERY_PATTERN`], run by the caller that
//!   holds the kernel through [`git_config_overrides`]) and each gets a
//!   neutral value ([`add_git_config`]): textconv `cat`, filters, drivers
//!   and external diff commands empty (git skips an empty filter and fails
//!   visibly on an empty diff command; neither runs anything; where git
//!   prints patches the run point adds `--no-ext-diff` and
//!   `--no-textconv`, so git prints its own diff instead), pagers off.
//!   The same run asks git where the repository keeps its data; a
//!   repository stored outside the workspace is refused.
//!
//! Configuration alone cannot keep git out of a submodule: a repository
//! turns the looking back on for one submodule (`submodule.<name>.ignore`
//! in `.gitmodules` or `.git/config` wins over `diff.ignoreSubmodules`),
//! and git then runs `git status` inside it with the submodule's own
//! configuration, whose drivers nobody asked git about. The command-line
//! option wins over both: the run point adds `--ignore-submodules=all`
//! after the subcommands that compare the work tree
//! ([`GIT_HARDENING_ARGS`](crate::GIT_HARDENING_ARGS)).
//!
//! A configuration file that blocks (a FIFO, a device in an include) or is
//! huge blocks or slows only that contained, time-limited query, never jig:
//! jig opens none of the repository's files. The kernel's `EXECUTE` limit
//! stays the floor under all of it: a key this list misses still cannot
//! start a program the run was not granted.
//!
//! These guarantees need git [`GIT_MIN_VERSION`] (2.31) or later: the
//! `GIT_CONFIG_COUNT` variables and `rev-parse --path-format` appeared in
//! 2.31. Later versions add more (`GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM`
//! in 2.32, which `HOME` and `XDG_CONFIG_HOME` pointing nowhere stand in
//! for; `safe.bareRepository` in 2.38, before which a bare repository
//! inside the workspace is found as git finds it and neutralized the same
//! way). [`git_version_problem`] checks a `git --version` answer.

use std::path::Path;

use jig_lineage::confine_path;

use crate::finding::Finding;

/// Variables every git run gets (besides `GIT_CEILING_DIRECTORIES` and the
/// `GIT_CONFIG_COUNT` configuration overrides).
pub const FIXED_ENV: &[(&str, &str)] = &[
    // The kernel's HOME is `/nonexistent` by default, but an integrator may
    // set another (even the workspace), and git reads `~/.gitconfig` from
    // it whatever its version: pin it here.
    ("HOME", "/nonexistent"),
    ("XDG_CONFIG_HOME", "/nonexistent"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_SYSTEM", "/dev/null"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_EDITOR", "false"),
    ("GIT_SEQUENCE_EDITOR", "false"),
    ("GIT_ASKPASS", "false"),
    ("SSH_ASKPASS", "false"),
    ("GIT_SSH_COMMAND", "false"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_ALLOW_PROTOCOL", ""),
    ("GIT_NO_LAZY_FETCH", "1"),
    ("GIT_OPTIONAL_LOCKS", "0"),
];

/// Configuration every git run gets through `GIT_CONFIG_COUNT`, overriding
/// the repository's (besides `core.worktree` and the driver keys the
/// repository defines).
pub const FIXED_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.useBuiltinFSMonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.attributesFile", "/dev/null"),
    // `git check-ignore -v` prints lines of the excludes file: never one
    // outside the workspace.
    ("core.excludesFile", "/dev/null"),
    ("credential.helper", ""),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("log.showSignature", "false"),
    ("sequence.editor", "false"),
    ("protocol.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("diff.submodule", "short"),
    ("status.submoduleSummary", "false"),
    ("blame.ignoreRevsFile", ""),
    ("mailmap.file", "/dev/null"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
];

/// The oldest git whose configuration jig can neutralize: `GIT_CONFIG_COUNT`
/// and `rev-parse --path-format` appeared in git 2.31.
pub const GIT_MIN_VERSION: (u32, u32) = (2, 31);

/// The keys git is asked for at run time (a POSIX extended expression, as
/// `git config --get-regexp` takes it, matched against the canonical name:
/// section and variable in lower case, the subsection as written): every
/// key that names a program, whatever its driver, pager or URL part.
pub const GIT_QUERY_PATTERN: &str = "^(diff\\..*\\.(textconv|cachetextconv|command)|diff\\.external\
|filter\\..*\\.(clean|smudge|process|required)|merge\\..*\\.driver|pager\\..*\
|credential\\..*helper|gpg\\..*program|gpg\\.ssh\\.defaultkeycommand\
|core\\.(alternaterefscommand|gitproxy))$";

/// How long a run-time query may take at most (the call's own timeout
/// when shorter).
pub const GIT_QUERY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// How much output a run-time query may give; more is refused.
pub const GIT_QUERY_MAX_OUTPUT: usize = 1 << 20;

/// How many keys are overridden at most (each is two variables of the
/// run's environment); a repository that defines more is refused.
const MAX_OVERRIDES: usize = 1024;

/// The environment of one git run in `root`, entering the `-C` folders
/// `dirs` in order: the fixed part, known without running anything. The
/// folder that holds `.git` (the working tree `core.worktree` is pinned
/// to) is found with `stat` alone: no file of the repository is opened.
pub fn git_env(root: &Path, dirs: &[String]) -> Result<Vec<(String, String)>, Finding> {
    let mut env: Vec<(String, String)> = FIXED_ENV
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    if let Some(parent) = root.parent() {
        env.push((
            "GIT_CEILING_DIRECTORIES".to_owned(),
            parent.to_string_lossy().into_owned(),
        ));
    }
    let mut config: Vec<(String, String)> = FIXED_CONFIG
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let start = root.join(compose_dirs(dirs));
    let start = confine_path(root, &start.to_string_lossy()).map_err(|source| Finding::Path {
        program: "git".to_owned(),
        source,
    })?;
    if let Some(worktree) = start
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .find(|dir| {
            std::fs::metadata(dir.join(".git")).is_ok_and(|meta| meta.is_dir() || meta.is_file())
        })
    {
        config.push((
            "core.worktree".to_owned(),
            worktree.to_string_lossy().into_owned(),
        ));
    }
    add_git_config(&mut env, config);
    Ok(env)
}

/// The folder git works in after `-C dirs` (relative to where it starts),
/// composed as git composes them: each `-C` is relative to the folder the
/// previous one entered, an absolute one starts afresh, and an empty one
/// changes nothing.
pub(crate) fn compose_dirs(dirs: &[String]) -> String {
    let mut current = String::new();
    for dir in dirs.iter().filter(|dir| !dir.is_empty()) {
        current = if dir.starts_with('/') || current.is_empty() {
            dir.clone()
        } else {
            format!("{}/{dir}", current.trim_end_matches('/'))
        };
    }
    current
}

/// Adds configuration overrides to a git run's environment, after the ones
/// it has (`GIT_CONFIG_COUNT` counts them all; later ones win). A key the
/// environment already overrides is not added again. Nothing changes when
/// there is nothing to add.
pub fn add_git_config(env: &mut Vec<(String, String)>, overrides: Vec<(String, String)>) {
    if overrides.is_empty() {
        return;
    }
    let mut count = env
        .iter()
        .find(|(k, _)| k == "GIT_CONFIG_COUNT")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    env.retain(|(k, _)| k != "GIT_CONFIG_COUNT");
    let mut present: std::collections::BTreeSet<String> = env
        .iter()
        .filter(|(k, _)| k.starts_with("GIT_CONFIG_KEY_"))
        .map(|(_, v)| canonical_key(v))
        .collect();
    let mut added = Vec::new();
    for (key, value) in overrides {
        if !present.insert(canonical_key(&key)) {
            continue;
        }
        added.push((format!("GIT_CONFIG_KEY_{count}"), key));
        added.push((format!("GIT_CONFIG_VALUE_{count}"), value));
        count += 1;
    }
    env.push(("GIT_CONFIG_COUNT".to_owned(), count.to_string()));
    env.extend(added);
}

/// A key as git names it: section and variable in lower case, the
/// subsection as written.
fn canonical_key(key: &str) -> String {
    match (key.split_once('.'), key.rsplit_once('.')) {
        (Some((section, _)), Some((head, variable))) if head.len() > section.len() => format!(
            "{}{}.{}",
            section.to_ascii_lowercase(),
            &head[section.len()..],
            variable.to_ascii_lowercase()
        ),
        _ => key.to_ascii_lowercase(),
    }
}

/// What one query run gave: its exit code and its output (standard output
/// and error together, as the kernel keeps them). A query that did not end
/// by itself within its time, or whose output was cut, is no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GitAnswer {
    /// The exit code (`None` when a signal ended it).
    pub exit_code: Option<i32>,
    /// Everything it wrote.
    pub output: Vec<u8>,
}

impl GitAnswer {
    /// An answer with this exit code and output.
    pub fn new(exit_code: Option<i32>, output: Vec<u8>) -> Self {
        Self { exit_code, output }
    }
}

/// The configuration overrides one git run needs beyond the fixed ones,
/// asked of git itself right before the run: `ask` runs a git argv in the
/// run's own environment (contained, read-only, with
/// [`GIT_QUERY_TIMEOUT`] and [`GIT_QUERY_MAX_OUTPUT`]) and gives its
/// answer, or `None` when it did not finish. Two questions are asked, from
/// the run's own `-C` folders: where the repository keeps its data (which
/// must be inside `root`), and the names of the keys matching
/// [`GIT_QUERY_PATTERN`]. Each name gets its neutral value; add them with
/// [`add_git_config`]. Anything else than `git` needs none (`Ok` and no
/// question asked). Fails closed: a question without an answer, or an
/// answer jig cannot read, refuses the run.
pub fn git_config_overrides(
    argv: &[String],
    root: &Path,
    ask: &mut dyn FnMut(&[String]) -> Option<GitAnswer>,
) -> Result<Vec<(String, String)>, Finding> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(Vec::new());
    };
    if jig_lineage::program_name(program) != "git" {
        return Ok(Vec::new());
    }
    let Some(dirs) = crate::tables::git_global_dirs(args) else {
        return Err(unreadable("its options before the subcommand"));
    };
    let base: Vec<String> = std::iter::once(program.clone())
        .chain(dirs.iter().flat_map(|d| ["-C".to_owned(), d.clone()]))
        .collect();
    let question = |words: &[&str]| -> Vec<String> {
        base.iter()
            .cloned()
            .chain(words.iter().map(|w| (*w).to_owned()))
            .collect()
    };
    let unanswered = |what: &str| Finding::GitConfig {
        reason: format!(
            "git did not say {what} within {} seconds (a configuration file that blocks, such \
             as a FIFO or a device named by an include, or one too large); fix the \
             repository's configuration",
            GIT_QUERY_TIMEOUT.as_secs()
        ),
    };
    // Where the repository keeps its data.
    let places = ask(&question(&[
        "rev-parse",
        "--path-format=absolute",
        "--git-dir",
        "--git-common-dir",
    ]))
    .ok_or_else(|| unanswered("where the repository keeps its data"))?;
    match places.exit_code {
        Some(0) => {
            let text = String::from_utf8_lossy(&places.output);
            let lines: Vec<&str> = text.lines().collect();
            if lines.len() != 2 {
                return Err(unreadable("where the repository keeps its data"));
            }
            for line in lines {
                let path = Path::new(line);
                let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                if !resolved.starts_with(root) {
                    return Err(Finding::Repository {
                        gitdir: resolved.to_string_lossy().into_owned(),
                    });
                }
            }
        }
        // Not a repository (or git refuses it): the run fails the same way.
        Some(128) => {}
        _ => return Err(answer_refused(&places)),
    }
    let names = ask(&question(&[
        "config",
        "-z",
        "--name-only",
        "--get-regexp",
        GIT_QUERY_PATTERN,
    ]))
    .ok_or_else(|| unanswered("which configuration keys name programs"))?;
    match names.exit_code {
        Some(0) => {}
        // No key matches.
        Some(1) => return Ok(Vec::new()),
        _ => return Err(answer_refused(&names)),
    }
    let mut overrides = Vec::new();
    for record in names.output.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let name = std::str::from_utf8(record)
            .ok()
            .filter(|name| !name.contains(['\n', '\r']))
            .ok_or_else(|| unreadable("a configuration key"))?;
        let value = neutral(name).ok_or_else(|| unreadable("a configuration key"))?;
        overrides.push((name.to_owned(), value.to_owned()));
    }
    if overrides.len() > MAX_OVERRIDES {
        return Err(Finding::GitConfig {
            reason: format!(
                "the repository's configuration names {} programs (more than {MAX_OVERRIDES}); \
                 remove the drivers it does not need",
                overrides.len()
            ),
        });
    }
    Ok(overrides)
}

fn unreadable(what: &str) -> Finding {
    Finding::GitConfig {
        reason: format!(
            "git's answer about {what} is not one jig can read exactly; fix the repository's \
             configuration"
        ),
    }
}

fn answer_refused(answer: &GitAnswer) -> Finding {
    let text = String::from_utf8_lossy(&answer.output);
    let first = text.lines().next().unwrap_or_default();
    let shown: String = first.chars().take(200).collect();
    Finding::GitConfig {
        reason: format!(
            "git could not read the repository's configuration ({shown}); fix the \
             repository's configuration"
        ),
    }
}

/// The neutral value of a key [`GIT_QUERY_PATTERN`] matches (as git names
/// it), or `None` for a name the pattern does not describe.
fn neutral(name: &str) -> Option<&'static str> {
    let (section, rest) = name.split_once('.')?;
    let (has_sub, variable) = match rest.rsplit_once('.') {
        Some((_, variable)) => (true, variable),
        None => (false, rest),
    };
    Some(match (section, has_sub, variable) {
        ("diff", true, "textconv") => "cat",
        ("diff", true, "cachetextconv") => "false",
        ("diff", true, "command") | ("diff", false, "external") => "",
        ("filter", true, "clean" | "smudge" | "process") => "",
        ("filter", true, "required") => "false",
        ("merge", true, "driver") => "",
        ("pager", ..) => "false",
        ("credential", _, variable) if variable.ends_with("helper") => "",
        ("gpg", _, variable) if variable.ends_with("program") => "false",
        ("gpg", true, "defaultkeycommand") => "",
        ("core", false, "alternaterefscommand" | "gitproxy") => "",
        _ => return None,
    })
}

/// Whether the answer of `git --version` names a git that honours every
/// override jig gives ([`GIT_MIN_VERSION`] or later): `None` when it does,
/// the guidance otherwise.
pub fn git_version_problem(answer: &str) -> Option<String> {
    let (major, minor) = GIT_MIN_VERSION;
    let version = answer.trim().strip_prefix("git version ").and_then(|rest| {
        let mut parts = rest.split(|c: char| !c.is_ascii_digit());
        Some((
            parts.next()?.parse::<u32>().ok()?,
            parts.next()?.parse::<u32>().ok()?,
        ))
    });
    match version {
        Some(found) if found >= GIT_MIN_VERSION => None,
        Some((found_major, found_minor)) => Some(format!(
            "the installed git is {found_major}.{found_minor}; jig runs git only from \
             {major}.{minor} on (older versions ignore the configuration overrides that keep \
             a repository's drivers from running); install a newer git"
        )),
        None => Some(format!(
            "`git --version` did not name a version jig can read; jig runs git only from \
             {major}.{minor} on"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composing_dirs() {
        let dirs = |d: &[&str]| d.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(compose_dirs(&dirs(&["a", "b"])), "a/b");
        assert_eq!(compose_dirs(&dirs(&["a", "", "b/"])), "a/b/");
        assert_eq!(compose_dirs(&dirs(&["a", "/x", "y"])), "/x/y");
        assert_eq!(compose_dirs(&dirs(&[""])), "");
    }

    #[test]
    fn neutral_values() {
        assert_eq!(neutral("diff.My Driver.textconv"), Some("cat"));
        assert_eq!(neutral("diff..command"), Some(""));
        assert_eq!(neutral("diff.external"), Some(""));
        assert_eq!(neutral("filter.a.b.process"), Some(""));
        assert_eq!(neutral("pager.log"), Some("false"));
        assert_eq!(neutral("credential.https://x.helper"), Some(""));
        assert_eq!(neutral("user.name"), None);
        assert_eq!(neutral("warning: x"), None);
    }

    #[test]
    fn overrides_are_counted_and_deduplicated() {
        let mut env = vec![
            ("GIT_CONFIG_COUNT".to_owned(), "1".to_owned()),
            (
                "GIT_CONFIG_KEY_0".to_owned(),
                "credential.helper".to_owned(),
            ),
            ("GIT_CONFIG_VALUE_0".to_owned(), String::new()),
        ];
        add_git_config(
            &mut env,
            vec![
                ("Credential.Helper".to_owned(), String::new()),
                ("diff.X.textconv".to_owned(), "cat".to_owned()),
                ("diff.x.textconv".to_owned(), "cat".to_owned()),
            ],
        );
        let count = env.iter().find(|(k, _)| k == "GIT_CONFIG_COUNT").unwrap();
        assert_eq!(count.1, "3");
        assert!(env.contains(&("GIT_CONFIG_KEY_2".to_owned(), "diff.x.textconv".to_owned())));
    }

    #[test]
    fn versions() {
        assert_eq!(git_version_problem("git version 2.47.3\n"), None);
        assert_eq!(git_version_problem("git version 2.31.0"), None);
        assert_eq!(git_version_problem("git version 3.0.0"), None);
        assert_eq!(
            git_version_problem("git version 2.39.3 (Apple Git-145)"),
            None
        );
        assert!(git_version_problem("git version 2.30.9").is_some());
        assert!(git_version_problem("nonsense").is_some());
    }
}
