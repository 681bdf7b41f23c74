//! Neutralizing git's configuration for every git run.
//!
//! Read-only git can run programs named in configuration: `core.fsmonitor`
//! on `git status`, `core.pager`, diff drivers (`diff.<driver>.textconv`,
//! `diff.<driver>.command`, `diff.external`), filters
//! (`filter.<driver>.clean`, `.process`), signature programs, credential
//! helpers, transports. A repository's own `.git/config` is as untrusted as
//! its files. Every git run therefore gets, in its environment only (the
//! argv stays the model's, word for word):
//!
//! - [`FIXED_ENV`]: `HOME` pointing nowhere (as the kernel's default does,
//!   whatever `HOME` an integrator gave the kernel), no system or global
//!   configuration, no pager, no editor, no prompt, no transport at all
//!   (`GIT_ALLOW_PROTOCOL` empty), no lazy fetch, no optional locks
//!   (read-only runs never write the index);
//! - `GIT_CEILING_DIRECTORIES` set to the parent of the workspace root, so
//!   git never uses a repository above the workspace;
//! - command-line configuration (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`,
//!   `GIT_CONFIG_VALUE_n`), which wins over the repository's: [`FIXED_CONFIG`]
//!   for the fixed keys, `core.worktree` pinned to the folder that holds
//!   `.git`, and, for every driver key that the repository's configuration
//!   (followed through its includes) defines, a neutral value: textconv
//!   `cat`, filters and external diff commands empty (git skips an empty
//!   filter and fails visibly on an empty diff command; neither runs
//!   anything).
//!
//! A repository whose git folder lies outside the workspace (a `.git` file
//! pointing elsewhere) is refused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use jig_lineage::confine_path;

use crate::finding::Finding;

/// Variables every git run gets (besides `GIT_CEILING_DIRECTORIES` and the
/// `GIT_CONFIG_COUNT` configuration overrides).
pub const FIXED_ENV: &[(&str, &str)] = &[
    // The kernel's HOME is `/nonexistent` by default, but an integrator may
    // set another (even the workspace), and git reads `~/.gitconfig` from
    // it whatever its version: pin it here.
    ("HOME", "/nonexistent"),
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

/// Driver keys and the neutral value each gets when the repository sets it.
const DRIVER_KEYS: &[(&str, &str, &str)] = &[
    ("diff", "textconv", "cat"),
    ("diff", "cachetextconv", "false"),
    ("diff", "command", ""),
    ("filter", "clean", ""),
    ("filter", "smudge", ""),
    ("filter", "process", ""),
    ("filter", "required", "false"),
    ("merge", "driver", ""),
];

/// How deep includes are followed (git's own limit) and how many files are
/// read at most.
const MAX_DEPTH: usize = 10;
const MAX_FILES: usize = 64;
const MAX_BYTES: u64 = 1 << 20;

/// The environment of one git run in `root`, entering the `-C` folders
/// `dirs` in order.
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
    let mut start = root.to_path_buf();
    for dir in dirs {
        start.push(dir);
    }
    let start = confine_path(root, &start.to_string_lossy()).map_err(|source| Finding::Path {
        program: "git".to_owned(),
        source,
    })?;
    if let Some(repo) = discover(root, &start)? {
        config.push((
            "core.worktree".to_owned(),
            repo.worktree.to_string_lossy().into_owned(),
        ));
        let mut found = Found::default();
        for file in [
            repo.common.join("config"),
            repo.gitdir.join("config.worktree"),
        ] {
            found.scan(&file, 0);
        }
        for (section, subsection, key) in &found.keys {
            if section == "diff" && subsection.is_none() && key == "external" {
                config.push(("diff.external".to_owned(), String::new()));
            }
            let Some(subsection) = subsection else {
                continue;
            };
            for (s, k, neutral) in DRIVER_KEYS {
                if s == section && k == key {
                    config.push((format!("{s}.{subsection}.{k}"), (*neutral).to_owned()));
                }
            }
        }
    }
    env.push(("GIT_CONFIG_COUNT".to_owned(), config.len().to_string()));
    for (n, (key, value)) in config.into_iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{n}"), key));
        env.push((format!("GIT_CONFIG_VALUE_{n}"), value));
    }
    Ok(env)
}

/// The repository git would find from `start`.
struct Repo {
    worktree: PathBuf,
    gitdir: PathBuf,
    common: PathBuf,
}

/// Looks for `.git` from `start` up to `root` (the ceiling stops git there
/// too). The git folder, and its common folder for linked worktrees, must
/// be inside the root.
fn discover(root: &Path, start: &Path) -> Result<Option<Repo>, Finding> {
    let inside = |path: PathBuf| -> Result<PathBuf, Finding> {
        let resolved = path.canonicalize().unwrap_or_else(|_| path.clone());
        if resolved.starts_with(root) {
            Ok(resolved)
        } else {
            Err(Finding::Repository {
                gitdir: resolved.to_string_lossy().into_owned(),
            })
        }
    };
    for dir in start.ancestors().take_while(|dir| dir.starts_with(root)) {
        let dotgit = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dotgit) else {
            continue;
        };
        let gitdir = if meta.is_dir() {
            inside(dotgit)?
        } else {
            let text = read_small(&dotgit).unwrap_or_default();
            let Some(target) = text.lines().find_map(|l| l.strip_prefix("gitdir:")) else {
                continue;
            };
            inside(dir.join(target.trim()))?
        };
        let common = match read_small(&gitdir.join("commondir")) {
            Some(text) => inside(gitdir.join(text.trim()))?,
            None => gitdir.clone(),
        };
        return Ok(Some(Repo {
            worktree: dir.to_path_buf(),
            gitdir,
            common,
        }));
    }
    Ok(None)
}

fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    file.take(MAX_BYTES).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The keys found in a repository's configuration, as
/// `(section, subsection, key)` with section and key lowercased.
#[derive(Default)]
struct Found {
    keys: BTreeSet<(String, Option<String>, String)>,
    files: usize,
}

impl Found {
    /// Reads one configuration file and the files it includes.
    fn scan(&mut self, path: &Path, depth: usize) {
        if depth > MAX_DEPTH || self.files >= MAX_FILES {
            return;
        }
        let Some(text) = read_small(path) else { return };
        self.files += 1;
        let base = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        let mut section = String::new();
        let mut subsection: Option<String> = None;
        for line in join_continuations(&text) {
            let mut rest = line.trim_start();
            if let Some(header) = rest.strip_prefix('[') {
                let Some((name, sub, after)) = parse_header(header) else {
                    continue;
                };
                section = name;
                subsection = sub;
                rest = after.trim_start();
            }
            if rest.is_empty() || rest.starts_with(['#', ';']) {
                continue;
            }
            let key_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(rest.len());
            let key = rest[..key_end].to_ascii_lowercase();
            if key.is_empty() {
                continue;
            }
            let is_include = key == "path"
                && (section == "include" || (section == "includeif" && subsection.is_some()));
            if is_include {
                let value =
                    parse_value(rest[key_end..].trim_start().strip_prefix('=').unwrap_or(""));
                // `~/...` resolves under git's HOME, which points nowhere.
                if !value.starts_with('~') {
                    self.scan(&base.join(&value), depth + 1);
                }
            }
            self.keys.insert((section.clone(), subsection.clone(), key));
        }
    }
}

/// Lines with backslash-newline continuations joined.
fn join_continuations(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        match line.strip_suffix('\\') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(line);
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `section "sub"]`, `section.sub]` or `section]` (after the `[`): the
/// lowercased section, the subsection, and the text after the `]`.
fn parse_header(header: &str) -> Option<(String, Option<String>, &str)> {
    let name_end = header.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))?;
    let name = &header[..name_end];
    let rest = header[name_end..].trim_start();
    if let Some(after) = rest.strip_prefix(']') {
        return Some(match name.split_once('.') {
            Some((section, sub)) => (
                section.to_ascii_lowercase(),
                Some(sub.to_ascii_lowercase()),
                after,
            ),
            None => (name.to_ascii_lowercase(), None, after),
        });
    }
    let quoted = rest.strip_prefix('"')?;
    let mut sub = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    sub.push(escaped);
                }
            }
            '"' => {
                let after = quoted[i + 1..].trim_start().strip_prefix(']')?;
                return Some((name.to_ascii_lowercase(), Some(sub), after));
            }
            c => sub.push(c),
        }
    }
    None
}

/// A configuration value: quotes removed, escapes applied, comment dropped.
fn parse_value(raw: &str) -> String {
    let mut value = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => value.push('\n'),
                Some('t') => value.push('\t'),
                Some(other) => value.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => value.push(c),
        }
    }
    value.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(parse_header("core]"), Some(("core".into(), None, "")));
        assert_eq!(
            parse_header("diff \"My \\\"x\\\"\"] textconv = a"),
            Some(("diff".into(), Some("My \"x\"".into()), " textconv = a"))
        );
        assert_eq!(
            parse_header("Filter.LFS]"),
            Some(("filter".into(), Some("lfs".into()), ""))
        );
        assert_eq!(parse_header("diff \"x"), None);
    }

    #[test]
    fn values() {
        assert_eq!(parse_value(" \"a b\" # c"), "a b");
        assert_eq!(parse_value("x\\\\y ; z"), "x\\y");
    }
}
