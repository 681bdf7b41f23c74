//! Toolchains, editors, pagers and database shells: building runs build
//! scripts and linkers, sessions run commands and start-up files, project
//! tools run code named by the project. Version queries only, plus `cargo
//! version`, `go version`/`go env`, and `pip show`/`list`/`freeze`.

use super::interpreters::{COMPILE, HELP, NO_HOME, ONLY_VERSION, SESSION, VERSION, info_only};
use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Stop, Table, Unknown, Walk, flag, path, refuse, value, walk};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

/// Compilers and build tools: building runs helper programs, plugins,
/// build scripts and linkers chosen by the command line or the project.
pub(crate) const BUILD: Spec = info_only(
    &[
        "gcc", "cc", "c++", "g++", "clang", "clang++", "tcc", "ld", "rustc", "javac", "make",
        "gmake", "cmake", "ninja", "meson", "npm", "uv", "conda", "gem",
    ],
    &[flag("-v --version"), flag("-V"), flag("-h --help")],
    COMPILE,
    &[
        "rustc --version",
        "gcc --version",
        "make -v",
        "npm --version",
        "uv --version",
    ],
    &[
        "gcc -wrapper /bin/sh,-s x",
        "gcc x.c",
        "make",
        "make -s --eval='x'",
        "npm run build",
        "npm test",
        "npm -C . i",
        "npm --script-shell=./payload.sh run build",
        "uv run /bin/sh",
        "rustc x.rs",
        "rustc -C linker=./payload.sh x.rs",
    ],
);

/// Editors, pagers, manual readers and database shells: each can run
/// commands (`:!`, `!`, `.shell`, `\!`) or reads configuration that can.
pub(crate) const INTERACTIVE: Spec = info_only(
    &[
        "vim",
        "vi",
        "nvim",
        "view",
        "vimdiff",
        "ex",
        "ed",
        "emacs",
        "nano",
        "pico",
        "micro",
        "less",
        "more",
        "most",
        "pg",
        "man",
        "info",
        "sqlite3",
        "mysql",
        "mariadb",
        "psql",
        "redis-cli",
        "mongo",
        "mongosh",
    ],
    &[VERSION, HELP, flag("-V")],
    SESSION,
    &[
        "vim --version",
        "less --version",
        "man --version",
        "sqlite3 --version",
    ],
    &[
        "vim -c ':!/bin/sh'",
        "less README.md",
        "less --log-file=/tmp/pwned README.md",
        "man ls",
        "man --pager=id ls",
        "man -C /tmp/evil.conf ls",
        "sqlite3 /dev/null '.shell id'",
    ],
);

/// Project tools that run code chosen by the project's own files before
/// doing anything, even reporting their version (`yarnPath`, Maven's
/// `.mvn/jvm.config`, wrapper scripts, plugins, toolchain managers).
pub(crate) const PROJECT_RUNNERS: Spec = Spec {
    names: &[
        "yarn", "pnpm", "corepack", "mvn", "mvnw", "gradle", "gradlew", "bazel", "bazelisk", "ant",
        "poetry", "pdm", "hatch", "composer", "bundle", "tox", "nox", "nvm", "pyenv", "rbenv",
        "asdf", "mise", "direnv",
    ],
    class: CommandClass::Other,
    table: Table {
        options: &[],
        unknown: Unknown::Refuse(PROJECT_OPTION),
    },
    operands: Operands::Forbidden(PROJECT),
    judge: Judge::Then(refuse_all),
    env: &[NO_HOME],
    allows: &[],
    refuses: &[
        "yarn --version",
        "yarn exec /bin/sh",
        "mvn -v",
        "gradle build",
        "bundle exec x",
    ],
};

fn refuse_all(ctx: &Ctx<'_>, _: &Walk, _: &mut Judged) -> Result<(), Finding> {
    Err(Finding::operand(
        ctx.program,
        "",
        format!("{} {PROJECT}", ctx.program),
    ))
}

const PROJECT: &str = "this program runs code chosen by the project's files (wrappers, plugins, yarnPath, jvm.config) even to report its version; the exec tool does not run it";
const PROJECT_OPTION: &str = "is not allowed: this program runs code chosen by the project's files (wrappers, plugins, yarnPath, jvm.config) even to report its version; the exec tool does not run it";

pub(crate) const CARGO: Spec = Spec {
    names: &["cargo"],
    class: CommandClass::Neutral,
    table: Table {
        options: &[flag("-V --version"), flag("-h --help"), flag("--list")],
        unknown: Unknown::Refuse(ONLY_VERSION),
    },
    operands: Operands::Custom,
    judge: Judge::Then(cargo_version),
    env: &[],
    allows: &["cargo --version", "cargo -V", "cargo version"],
    refuses: &[
        "cargo test",
        "cargo run",
        "cargo check",
        "cargo build",
        "cargo rustc -- -C linker=./payload.sh",
        "cargo --config build.rustc-wrapper='./payload.sh' build",
        "cargo --config 'alias.b=\"run\"' b",
    ],
};

fn cargo_version(ctx: &Ctx<'_>, walked: &Walk, _: &mut Judged) -> Result<(), Finding> {
    match walked.operands().collect::<Vec<_>>().as_slice() {
        [] | ["version"] => Ok(()),
        [first, ..] => Err(Finding::operand(
            ctx.program,
            first,
            "building, testing and running a crate runs its build scripts and code, which the exec tool does not do; it only lets cargo report its version (cargo --version)",
        )),
    }
}

pub(crate) const GO: Spec = Spec {
    names: &["go"],
    class: CommandClass::Neutral,
    table: Table {
        options: &[
            refuse("-w", "writes go's configuration; only read it with go env"),
            refuse("-u", "changes go's configuration; only read it with go env"),
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Custom,
    judge: Judge::Custom(go),
    env: &[("GOTOOLCHAIN", "local"), ("GOENV", "off")],
    allows: &["go version", "go env GOPATH", "go env -json GOOS GOARCH"],
    refuses: &[
        "go run payload.go",
        "go generate ./...",
        "go build -toolexec=./payload.sh ./...",
        "go env -w GOFLAGS=-x",
        "go test ./...",
        "go",
    ],
};

fn go(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let walked = walk(ctx.program, &ctx.spec.table, args, Stop::End)?;
    let mut judged = Judged::new(CommandClass::Neutral);
    let mut operands = walked.operands();
    match operands.next() {
        Some("version") => {
            for file in operands {
                judged.path(ctx.program, file)?;
            }
            judged.options(ctx.program, &walked)?;
            Ok(judged)
        }
        Some("env") => Ok(judged),
        other => Err(Finding::operand(
            ctx.program,
            other.unwrap_or_default(),
            "building, testing, generating and running code runs programs, which the exec tool does not do; it only runs go version and go env",
        )),
    }
}

pub(crate) const PIP: Spec = Spec {
    names: &["pip"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-V --version"),
            flag("-h --help"),
            refuse(
                "--python",
                "runs pip with another interpreter, which can be any program; leave it out",
            ),
            refuse(
                "--log --log-file --log-explicit-levels",
                "writes a log file; the output comes back to you",
            ),
            path("--cache-dir --cert --client-cert --path"),
            flag(
                "-v --verbose -q --quiet --isolated --no-color --no-input --require-virtualenv --no-cache-dir --disable-pip-version-check",
            ),
            flag(
                "-f --files -l --local --user -o --outdated -u --uptodate -e --editable --not-required --exclude-editable --include-editable --all --pre",
            ),
            value(
                "--format --exclude --proxy --retries --timeout --exists-action --trusted-host --use-feature --use-deprecated -i --index-url --extra-index-url",
            ),
        ],
        unknown: Unknown::Refuse(
            "is not allowed: the exec tool only runs pip show, pip list and pip freeze",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Then(pip),
    env: &[
        ("PIP_CONFIG_FILE", "/dev/null"),
        ("PIP_NO_INPUT", "1"),
        ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
        ("PYTHONNOUSERSITE", "1"),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ],
    allows: &[
        "pip show requests",
        "pip list --format=json",
        "pip3 freeze",
        "pip --version",
    ],
    refuses: &[
        "pip install .",
        "pip install --break-system-packages .",
        "pip download --no-binary :all: evilpkg",
        "pip install --target / x",
        "pip --python /tmp/evil list",
        "pip show -f x --log /tmp/log",
    ],
};

fn pip(ctx: &Ctx<'_>, walked: &Walk, _: &mut Judged) -> Result<(), Finding> {
    match walked.operands().next() {
        None | Some("show" | "list" | "freeze") => Ok(()),
        Some(other) => Err(Finding::operand(
            ctx.program,
            other,
            "installing and downloading packages runs their build code, which the exec tool does not do; it only runs pip show, pip list and pip freeze",
        )),
    }
}
