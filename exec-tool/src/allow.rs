//! Layer 1, the binary allow list.

use std::collections::BTreeSet;

/// The programs of [`AllowList::default_read_only`]: inspection commands
/// that only read, each covered by a table of the exec tool (`git` limited to
/// its read-only subcommands).
pub const DEFAULT_READ_ONLY: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "sed", "sort", "uniq", "cut", "nl",
    "diff", "stat", "file", "du", "tree", "pwd", "echo", "printf", "true", "false", "git",
];

/// A name that cannot be on an allow list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AllowListError {
    /// The name is empty, holds a `/` or a character other than ASCII
    /// letters, digits, `.`, `_`, `+` and `-`, starts with `-`, or is `.`
    /// or `..`.
    #[error(
        "{name:?} cannot be on an allow list: give a bare program name (letters, digits, `.`, `_`, `+`, `-`), not a path"
    )]
    InvalidName {
        /// The name as given.
        name: String,
    },
    /// The program has no table in `jig-programs`, so nothing would judge
    /// its options: any of them could write, read outside the workspace or
    /// reach the network.
    #[error(
        "{name:?} has no option table, so nothing would judge its options (any could write, read outside the workspace or reach the network); grant it only knowingly, with `dangerous_allow_untabled` (CLI: `--dangerous-exec-untabled {name}`)"
    )]
    Untabled {
        /// The name as given.
        name: String,
    },
}

/// The programs the exec tool may run: bare names, looked up on the
/// kernel's fixed search path. The deny list ([`jig_lineage::DenyList`])
/// wins over it, and the tables of layer 4 still judge every argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowList {
    names: BTreeSet<String>,
}

impl Default for AllowList {
    /// [`AllowList::default_read_only`].
    fn default() -> Self {
        Self::default_read_only()
    }
}

impl AllowList {
    /// The documented conservative default: [`DEFAULT_READ_ONLY`].
    pub fn default_read_only() -> Self {
        Self {
            names: DEFAULT_READ_ONLY.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Exactly these programs.
    pub fn new<I, S>(names: I) -> Result<Self, AllowListError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            names: BTreeSet::new(),
        }
        .with(names)
    }

    /// This list with more programs, each of which must have a table in
    /// `jig-programs` (a launcher has one: it is always refused).
    pub fn with<I, S>(self, names: I) -> Result<Self, AllowListError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.insert(names, true)
    }

    /// This list with programs that have no table: their options are only
    /// walked generically (every operand and path-like value confined to
    /// the workspace), so an option that writes elsewhere, reads through a
    /// response file or reaches the network is not recognised. The name says
    /// what the grant weakens.
    pub fn dangerous_allow_untabled<I, S>(self, names: I) -> Result<Self, AllowListError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.insert(names, false)
    }

    fn insert<I, S>(mut self, names: I, tabled_only: bool) -> Result<Self, AllowListError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for name in names {
            let name = name.into();
            if !valid(&name) {
                return Err(AllowListError::InvalidName { name });
            }
            let untabled = matches!(jig_programs::lookup(&name), jig_programs::Lookup::Generic);
            if tabled_only && untabled {
                return Err(AllowListError::Untabled { name });
            }
            self.names.insert(name);
        }
        Ok(self)
    }

    /// Whether `program` (a bare name) is on the list.
    pub fn allows(&self, program: &str) -> bool {
        self.names.contains(program)
    }

    /// The names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }
}

fn valid(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('-')
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_bare() {
        assert!(AllowList::new(["git", "python3.11", "g++", "run-parts"]).is_ok());
        for bad in ["", "./cat", "/bin/cat", "a b", "-x", ".", "..", "c$t"] {
            assert_eq!(
                AllowList::new([bad]),
                Err(AllowListError::InvalidName { name: bad.into() })
            );
        }
        let list = AllowList::default_read_only();
        assert!(list.allows("git") && !list.allows("python3"));
    }
}
