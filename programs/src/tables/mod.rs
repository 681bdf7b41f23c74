//! Layer 4's tables: one [`Spec`](crate::spec::Spec) per program, and the
//! launchers that are always refused.
//!
//! Every spec carries commands it must allow and commands it must refuse;
//! the integration tests run them all, so the tables document and test
//! themselves.

mod archive;
mod files;
mod git;
mod interpreters;
mod jq;
mod patch;
mod search;
mod sed;
mod toolchains;
mod write;

use crate::spec::Spec;

pub(crate) use git::{git_global_dirs, git_subcommand_at};

/// Every program with a table.
pub(crate) const SPECS: &[&Spec] = &[
    &files::CAT,
    &files::HEAD,
    &files::TAIL,
    &files::WC,
    &files::SORT,
    &files::UNIQ,
    &files::CUT,
    &files::NL,
    &files::STAT,
    &files::FILE,
    &files::DIFF,
    &files::LS,
    &files::DU,
    &files::TREE,
    &files::NEUTRAL,
    &files::PWD,
    &files::WHICH,
    &search::GREP,
    &search::RG,
    &search::FIND,
    &sed::SED,
    &git::GIT,
    &archive::TAR,
    &archive::UNZIP,
    &archive::ZIP,
    &interpreters::PYTHON,
    &interpreters::PERL,
    &interpreters::PHP,
    &interpreters::AWK,
    &interpreters::NODE,
    &interpreters::RUBY,
    &toolchains::CARGO,
    &toolchains::GO,
    &toolchains::PIP,
    &interpreters::RUNTIMES,
    &toolchains::BUILD,
    &toolchains::INTERACTIVE,
    &toolchains::PROJECT_RUNNERS,
    &write::CP,
    &write::MV,
    &write::MKDIR,
    &write::TOUCH,
    &write::TEE,
    &write::BASE64,
    &jq::JQ,
    &patch::PATCH,
];

/// One example command that a program's table promises to allow or to
/// refuse. The examples document the tables and are checked by the tests
/// (run in a workspace holding a symbolic link `symlink_to_root` to `/` and
/// a FIFO `fifo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TableExample {
    /// The first name of the program the table covers.
    pub program: &'static str,
    /// The command line.
    pub command: &'static str,
    /// Whether the table allows it (with the program on the allow list).
    pub allowed: bool,
}

/// Every example of every table, in table order.
pub fn table_examples() -> Vec<TableExample> {
    SPECS
        .iter()
        .flat_map(|spec| {
            let program = spec.names.first().copied().unwrap_or_default();
            let allowed = spec.allows.iter().map(move |command| TableExample {
                program,
                command,
                allowed: true,
            });
            let refused = spec.refuses.iter().map(move |command| TableExample {
                program,
                command,
                allowed: false,
            });
            allowed.chain(refused)
        })
        .collect()
}
