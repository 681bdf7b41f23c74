//! Interpreters and language runtimes: any argument can become code for
//! them, so they may only report their version (node and ruby may also
//! check a file's syntax). The helpers here serve the toolchain tables too.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Opt, Table, Unknown, Walk, flag, refuse};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

pub(super) const CODE: &str = "runs code given on the command line; the exec tool does not run code: write it to a file and ask for a tool that runs it";
const SCRIPT: &str = "running a script runs arbitrary code, which the exec tool does not do; it only lets this program report its version (--version)";
pub(super) const COMPILE: &str = "compiling and building run helper programs, plugins and build scripts, which the exec tool does not do; it only lets this program report its version (--version)";
pub(super) const SESSION: &str = "editors, pagers, manual readers and database shells can run commands (`!`, `.shell`, start-up files); read files with cat, head, tail or grep instead";
pub(super) const ONLY_VERSION: &str = "is not allowed: the exec tool only lets this program report its version (--version) or help (--help)";

/// `HOME` for programs that read start-up files from it (`.vimrc`,
/// `.sqliterc`, `.irbrc`, user site-packages...). The kernel's `HOME` is
/// already `/nonexistent` by default, but an integrator may point it
/// elsewhere (even at the workspace, whose files are not trusted): these
/// programs get a `HOME` that holds nothing whatever the kernel says.
pub(super) const NO_HOME: (&str, &str) = ("HOME", "/nonexistent");

/// A program that may only report its version or help.
pub(super) const fn info_only(
    names: &'static [&'static str],
    options: &'static [Opt],
    operands: &'static str,
    allows: &'static [&'static str],
    refuses: &'static [&'static str],
) -> Spec {
    Spec {
        names,
        class: CommandClass::Neutral,
        table: Table {
            options,
            unknown: Unknown::Refuse(ONLY_VERSION),
        },
        operands: Operands::Forbidden(operands),
        judge: Judge::Then(require_info),
        env: &[NO_HOME],
        allows,
        refuses,
    }
}

/// An info-only program must be given an info option: on its own it would
/// start a session, build, or read start-up files.
pub(super) fn require_info(ctx: &Ctx<'_>, walked: &Walk, _: &mut Judged) -> Result<(), Finding> {
    if walked.items.is_empty() {
        return Err(Finding::operand(
            ctx.program,
            "",
            format!(
                "on its own {} starts a session or a build; the exec tool only lets it report its version ({} --version)",
                ctx.program, ctx.program
            ),
        ));
    }
    Ok(())
}

pub(super) const VERSION: Opt = flag("--version");
pub(super) const HELP: Opt = flag("--help");

pub(crate) const PYTHON: Spec = Spec {
    env: &[
        NO_HOME,
        ("PYTHONNOUSERSITE", "1"),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ],
    ..info_only(
        &["python", "pypy", "pypy3"],
        &[
            flag("-V --version"),
            flag("-h --help --help-env --help-xoptions --help-all"),
            refuse("-c", CODE),
            refuse(
                "-m",
                "runs a module as a program (pydoc, http.server, base64, json.tool...), which runs code and reads files; the exec tool only lets python report its version",
            ),
            refuse(
                "-i",
                "starts an interactive interpreter; the exec tool only lets python report its version",
            ),
        ],
        SCRIPT,
        &[
            "python3 --version",
            "python3 -V",
            "python3.11 -VV",
            "python --help",
        ],
        &[
            "python3 -c 'print(1)'",
            "python3 -Ic 'print(1)'",
            "python3 '-cprint(1)'",
            "python3 -X dev -c 'print(1)'",
            "python3 -m http.server",
            "python3 -m json.tool /etc/shadow",
            "python3 payload.py",
            "python3 -",
            "python3 -i",
            "python3.11 -c 'print(1)'",
            "python3 -I",
            "python3",
        ],
    )
};

pub(crate) const PERL: Spec = info_only(
    &["perl"],
    &[
        flag("-v --version"),
        flag("-V"),
        flag("-h --help"),
        refuse("-e -E", CODE),
        refuse(
            "-M -m",
            "loads a module, which runs its code; the exec tool only lets perl report its version",
        ),
        refuse(
            "-c",
            "checks syntax but runs BEGIN blocks, which are code; the exec tool only lets perl report its version",
        ),
        refuse("-n -p -i", CODE),
    ],
    SCRIPT,
    &["perl -v", "perl --version"],
    &[
        "perl -e 'print 1'",
        "perl -ne print /etc/shadow",
        "perl -c x.pl",
        "perl -Mstrict -e 1",
        "perl x.pl",
        "perl -d x.pl",
    ],
);

pub(crate) const PHP: Spec = info_only(
    &["php"],
    &[
        flag("-v --version"),
        flag("-h --help"),
        refuse("-r -B -R -E -F", CODE),
        refuse(
            "-d --define",
            "changes the configuration, which can load code (auto_prepend_file); leave it out",
        ),
    ],
    SCRIPT,
    &["php -v"],
    &[
        "php -r 'system(\"id\");'",
        "php -d auto_prepend_file=payload.php -v",
        "php -B 'system(\"id\");' -R 1",
        "php x.php",
    ],
);

pub(crate) const AWK: Spec = info_only(
    &["awk", "gawk", "mawk", "nawk"],
    &[
        VERSION,
        HELP,
        refuse(
            "-f --file -e --source -i --include -l --load -E --exec",
            "loads an awk program, which can run commands (system()); use grep, cut or sed -n instead",
        ),
    ],
    "an awk program can run commands (system()); use grep, cut or sed -n instead",
    &["gawk --version"],
    &[
        "awk '//' /etc/shadow",
        "awk -F, '{print $2}' data.csv",
        "gawk -e 'BEGIN{system(\"id\")}'",
        "awk -f prog.awk data.csv",
    ],
);

/// Other interpreters and language runtimes.
pub(crate) const RUNTIMES: Spec = info_only(
    &[
        "lua",
        "luajit",
        "tclsh",
        "wish",
        "Rscript",
        "R",
        "julia",
        "deno",
        "bun",
        "irb",
        "pwsh",
        "powershell",
        "java",
        "jshell",
        "kotlin",
        "scala",
        "groovy",
        "guile",
        "racket",
        "sbcl",
        "clisp",
        "ghci",
        "runghc",
        "swift",
        "erl",
        "escript",
        "elixir",
        "iex",
        "osascript",
        "gdb",
        "lldb",
        "valgrind",
    ],
    &[
        flag("-v --version"),
        flag("-V"),
        flag("-h --help"),
        refuse("-e --eval -c -E", CODE),
    ],
    SCRIPT,
    &["lua -v", "deno --version", "java --version"],
    &[
        "lua -e 'os.execute(\"/bin/sh\")'",
        "tclsh payload.tcl",
        "deno run x.ts",
        "java -jar x.jar",
        "lua",
    ],
);

pub(crate) const NODE: Spec = Spec {
    names: &["node", "nodejs"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-c --check"),
            flag("-v --version"),
            flag("-h --help"),
            refuse("-e --eval -p --print", CODE),
            refuse(
                "-r --require --import --loader --experimental-loader",
                "loads a module before the script, which runs its code; the exec tool only lets node check syntax (node -c FILE)",
            ),
            refuse(
                "-i --interactive",
                "starts an interactive interpreter; the exec tool only lets node check syntax (node -c FILE)",
            ),
            refuse(
                "--run",
                "runs a package.json script, which is a shell command; the exec tool only lets node check syntax (node -c FILE)",
            ),
            refuse(
                "--test --watch --watch-path",
                "runs files as code; the exec tool only lets node check syntax (node -c FILE)",
            ),
            refuse(
                "--inspect --inspect-brk --inspect-port --inspect-wait",
                "opens a debugger port; leave it out",
            ),
        ],
        unknown: Unknown::Refuse(
            "is not allowed: the exec tool only lets node check syntax (node -c FILE) or report its version",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Then(syntax_check),
    env: &[NO_HOME],
    allows: &[
        "node -c app.js",
        "node --check src/a.js",
        "node --version",
        "nodejs -v",
    ],
    refuses: &[
        "node app.js",
        "node -e 'require(\"child_process\").execSync(\"id\")'",
        "node --eval='console.log(1)'",
        "node -pe 1+1",
        "node --print process.env",
        "node -p 'require(\"fs\").readFileSync(\"/etc/shadow\",\"utf8\")'",
        "node '--experimental-loader=data:text/javascript,console.log(1)' x.js",
        "node --run build",
        "node --input-type=module -e 'import(\"child_process\")'",
        "node /dev/stdin",
        "node -c /etc/passwd",
        "node -c -",
        "nodejs -e 1",
        "node -r ./payload.js -c app.js",
    ],
};

pub(crate) const RUBY: Spec = Spec {
    names: &["ruby"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-c"),
            flag("-v --version"),
            flag("-h --help"),
            flag("-w"),
            refuse("-e", CODE),
            refuse(
                "-r -I",
                "loads code from files; the exec tool only lets ruby check syntax (ruby -c FILE)",
            ),
            refuse("-n -p -i -x -S", CODE),
        ],
        unknown: Unknown::Refuse(
            "is not allowed: the exec tool only lets ruby check syntax (ruby -c FILE) or report its version",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Then(syntax_check),
    env: &[NO_HOME],
    allows: &["ruby -c script.rb", "ruby --version"],
    refuses: &[
        "ruby script.rb",
        "ruby -e 'exec \"/bin/sh\"'",
        "ruby -rsocket -e 'p 1'",
        "ruby -I. -rpayload -e0",
        "ruby -c /etc/x.rb",
    ],
};

/// node and ruby: files only with the syntax check `-c`.
fn syntax_check(ctx: &Ctx<'_>, walked: &Walk, judged: &mut Judged) -> Result<(), Finding> {
    let checking = walked.has("-c");
    for operand in walked.operands() {
        if !checking {
            return Err(Finding::operand(
                ctx.program,
                operand,
                format!(
                    "running `{operand}` runs it as code, which the exec tool does not do; check its syntax with {} -c {operand}",
                    ctx.program
                ),
            ));
        }
        judged.path(ctx.program, operand)?;
    }
    Ok(())
}
