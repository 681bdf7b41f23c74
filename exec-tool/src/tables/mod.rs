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
mod search;
mod sed;
mod toolchains;

use crate::spec::Spec;

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
];

/// Programs whose job is to run another program named in their arguments
/// (or to run one in another context: privileges, namespaces, schedules,
/// sessions). Always refused, whatever the allow list says.
pub(crate) const LAUNCHERS: &[&str] = &[
    "env",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "setsid",
    "strace",
    "ltrace",
    "chroot",
    "unshare",
    "nsenter",
    "flock",
    "stdbuf",
    "taskset",
    "chrt",
    "watch",
    "script",
    "runuser",
    "setpriv",
    "capsh",
    "time",
    "parallel",
    "expect",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "busybox",
    "toybox",
    "run-parts",
    "start-stop-daemon",
    "systemd-run",
    "systemd-nspawn",
    "firejail",
    "bwrap",
    "proot",
    "fakeroot",
    "fakechroot",
    "torsocks",
    "proxychains",
    "proxychains4",
    "tsocks",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "numactl",
    "cgexec",
    "sg",
    "newgrp",
    "dbus-launch",
    "dbus-run-session",
    "perf",
    "catchsegv",
    "rlwrap",
    "unbuffer",
    "setarch",
    "linux32",
    "linux64",
    "prlimit",
    "cpulimit",
    "trickle",
    "tini",
    "dumb-init",
    "entr",
    "watchexec",
    "nodemon",
    "at",
    "batch",
    "tmux",
    "screen",
    "daemonize",
    "chpst",
    "xdg-open",
    "sensible-browser",
    "sensible-editor",
    "sensible-pager",
    "x-www-browser",
    "ssh-agent",
    "ip",
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
