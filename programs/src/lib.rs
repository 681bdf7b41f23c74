//! What jig knows about the programs it runs, for every tool form.
//!
//! A command tool fixes its program and lets the model fill slots; the exec
//! tool lets the model write the arguments of an allowed program. Either
//! way, the program reads its argv with its own grammar: `sed` reads a
//! script, `find` an expression, `git` revisions and configuration. This
//! crate holds that knowledge once, so that the exec tool's layer 4, the
//! run point every form passes (`jig-presets`), the descriptor loader and
//! `jig check` judge the same argv the same way:
//!
//! - **the tables** ([`lookup`], [`judge`], [`judge_argv`]): one per
//!   program, listing the options and script constructs it accepts or
//!   refuses, which arguments name files (confined to the workspace), the
//!   command's class ([`CommandClass`], read-only or not), and the
//!   environment every run of it needs; every table carries commands it
//!   must allow and must refuse ([`table_examples`]), checked by the tests;
//! - **the hardening** each program needs whatever form runs it: git's
//!   neutralizing environment ([`GIT_ENV`], [`GIT_CONFIG`], [`git_env`];
//!   the overrides for the keys git itself reports at run time,
//!   [`git_config_overrides`], asked by the caller that holds the kernel),
//!   and options the program honours that make it refuse by itself what its
//!   table refuses ([`HARDENING_ARGS`]: `sed --sandbox`), which the run
//!   point adds right after the program name, and those git honours after
//!   a subcommand ([`GIT_HARDENING_ARGS`]: `git status
//!   --ignore-submodules=all`, so that git never enters a submodule, whose
//!   configuration nobody asked git about, and `git diff --no-ext-diff
//!   --no-textconv`, so that git prints its own diff where the repository
//!   names an external one or a text conversion);
//! - **the launchers**: programs whose job is to run another program are
//!   never judged by a table; they are refused ([`Lookup::Launcher`], from
//!   the lineage's one list [`jig_lineage::LAUNCHERS`]).
//!
//! The deny families (shells, interpreters, launchers, versioned names,
//! multi-call binaries) stay in `jig-lineage`, the lowest layer that refuses
//! a program (a command tool naming one is refused when it is built); this
//! crate and the run point use them from there, so there is one list.
//!
//! Judging is pure except for [`git_env`] and [`judge_argv`], which look for
//! the folder that holds `.git` with `stat` alone: no file of a repository
//! is opened and nothing runs while a command is judged (git is asked about
//! its configuration only right before the run, through the kernel).
//!
//! ```
//! use jig_programs::{CommandClass, Lookup, judge, lookup};
//!
//! let args = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
//! let Lookup::Spec(sed) = lookup("sed") else { panic!("sed has a table") };
//! let judged = judge("sed", sed, &args(&["-n", "1,5p", "notes.txt"])).unwrap();
//! assert_eq!(judged.class, CommandClass::Read);
//! assert_eq!(judged.paths, ["notes.txt"]);
//! // sed's `w` command writes a file: refused.
//! assert!(judge("sed", sed, &args(&["-n", "1w/tmp/x", "notes.txt"])).is_err());
//! ```

mod argv;
mod class;
mod finding;
mod gitenv;
mod global;
mod options;
mod spec;
mod tables;

pub use argv::{
    GIT_HARDENING_ARGS, HARDENING_ARGS, LANGUAGE_PROBES, ProgramVerdict, Untabled, judge_argv,
    judge_command, judge_fixed, refuses_word,
};
pub use class::{CommandClass, classify};
pub use finding::Finding;
pub use gitenv::{
    FIXED_CONFIG as GIT_CONFIG, FIXED_ENV as GIT_ENV, GIT_MIN_VERSION, GIT_QUERY_MAX_OUTPUT,
    GIT_QUERY_PATTERN, GIT_QUERY_TIMEOUT, GitAnswer, add_git_config, git_config_overrides, git_env,
    git_version_problem,
};
pub use global::without_global_options;
pub use spec::{Judged, Lookup, Spec, judge, judge_generic, lookup};
pub use tables::{TableExample, table_examples};

/// Programs whose job is to run the workspace's own code: recipes
/// (`make`, `just`), build scripts and package scripts (`cargo`, `npm`,
/// `yarn`, `pnpm`, `gradle`, `mvn`, `go`), test runners that load the
/// project's configuration (`pytest`, `tox`, `nox`), task runners (`rake`,
/// `invoke`). No table makes them safe: lifting one from the deny list
/// needs containment (WAVE2.md).
pub const RUNS_WORKSPACE_CODE: &[&str] = &[
    "make", "gmake", "just", "cargo", "npm", "yarn", "pnpm", "bun", "gradle", "gradlew", "mvn",
    "go", "pytest", "py.test", "tox", "nox", "rake", "invoke", "bundle", "composer", "ant",
    "cmake", "ninja", "meson", "bazel", "sbt", "deno", "poetry", "pipenv", "hatch", "uv",
];

/// Whether `name` (or its versioned family: `pytest-3`) runs the
/// workspace's own code ([`RUNS_WORKSPACE_CODE`]).
pub fn runs_workspace_code(name: &str) -> bool {
    jig_lineage::family(jig_lineage::program_name(name)).any(|m| RUNS_WORKSPACE_CODE.contains(&m))
}
