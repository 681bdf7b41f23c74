//! Searching programs: `grep` (and `egrep`, `fgrep`), `rg`, `find`.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Table, Unknown, Walk, flag, optional, path, refuse, value};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

const FOLLOWS: &str = "follows every symbolic link, also out of the workspace";

pub(crate) const GREP: Spec = Spec {
    names: &["grep", "egrep", "fgrep"],
    class: CommandClass::Search,
    table: Table {
        options: &[
            value("-e --regexp"),
            path("-f --file"),
            value("-m --max-count"),
            value("-A --after-context"),
            value("-B --before-context"),
            value("-C --context"),
            value("-d --directories"),
            value("-D --devices"),
            value("--include"),
            value("--exclude"),
            path("--exclude-from"),
            value("--exclude-dir"),
            value("--label"),
            optional("--color --colour"),
            value("--binary-files"),
            value("--group-separator"),
            flag("-r --recursive"),
            refuse(
                "-R --dereference-recursive",
                "follows every symbolic link, also out of the workspace; use -r",
            ),
            flag("--help"),
            flag("-V --version"),
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Custom,
    judge: Judge::Then(grep_operands),
    env: &[],
    allows: &[
        "grep -rn TODO src",
        "grep -n 'fn main' src/main.rs",
        "grep -rn -e foo -e bar .",
        "grep -r /etc/passwd src",
        "grep -c x README.md -i",
        "grep -r TODO",
    ],
    refuses: &[
        "grep -rn TODO /proc/self/environ",
        "grep -r password /",
        "grep -D read x /dev/stdin",
        "grep -R TODO .",
        "grep --dereference-rec x .",
        "grep -f /etc/passwd src",
        "grep -e x -- /etc/passwd",
        "grep TODO",
    ],
};

/// grep: the first operand is the pattern unless `-e` or `-f` gave one; the
/// others are files; with none and no `-r`, grep reads stdin.
fn grep_operands(ctx: &Ctx<'_>, walked: &Walk, judged: &mut Judged) -> Result<(), Finding> {
    let mut operands = walked.operands();
    if !walked.has("-e") && !walked.has("-f") {
        operands.next();
    }
    let mut files = 0;
    for operand in operands {
        judged.path(ctx.program, operand)?;
        files += 1;
    }
    let info = walked.has("--help") || walked.has("-V");
    if files == 0 && !walked.has("-r") && !info {
        return Err(Finding::Stdin {
            program: ctx.program.to_owned(),
        });
    }
    Ok(())
}

pub(crate) const RG: Spec = Spec {
    names: &["rg"],
    class: CommandClass::Search,
    table: Table {
        options: &[
            value("-e --regexp"),
            path("-f --file"),
            value("-g --glob"),
            value("--iglob"),
            value("-t --type"),
            value("-T --type-not"),
            value("--type-add"),
            value("--type-clear"),
            value("-m --max-count"),
            value("-A --after-context"),
            value("-B --before-context"),
            value("-C --context"),
            value("-M --max-columns"),
            value("-r --replace"),
            value("-E --encoding"),
            value("-j --threads"),
            value("-d --max-depth --maxdepth"),
            path("--ignore-file"),
            refuse(
                "-z --search-zip",
                "starts decompression programs on compressed files; search the files as they are",
            ),
            refuse(
                "--pre",
                "runs a program of your choice on every file searched; search the files as they are",
            ),
            value("--pre-glob"),
            refuse(
                "--hostname-bin",
                "runs a program of your choice; leave it out",
            ),
            value("--colors"),
            value("--color"),
            value("--sort"),
            value("--sortr"),
            value("--path-separator"),
            value("--max-filesize"),
            value("--dfa-size-limit"),
            value("--regex-size-limit"),
            value("--context-separator"),
            value("--field-match-separator"),
            value("--field-context-separator"),
            value("--engine"),
            value("--generate"),
            value("--hyperlink-format"),
            flag("--files"),
            flag("--type-list"),
            refuse(
                "-L --follow",
                "follows every symbolic link, also out of the workspace; search without -L",
            ),
            flag("-h --help"),
            flag("-V --version"),
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Custom,
    judge: Judge::Then(rg_operands),
    env: &[],
    allows: &[
        "rg -n 'impl Display' src",
        "rg --files",
        "rg -t rust TODO",
        "rg -e a -e b src",
        "rg --files src",
    ],
    refuses: &[
        "rg -z TODO archive.gz",
        "rg --search-zip TODO .",
        "rg --pre sh '' payload.sh",
        "rg --pre=sh TODO .",
        "rg --pre-glob '*' --pre ./payload.sh TODO",
        "rg -L TODO .",
        "rg --files /",
        "rg TODO ../..",
        "rg --hostname-bin=./x TODO",
    ],
};

/// rg: the first operand is the pattern unless a pattern came from `-e`/`-f`
/// or the mode takes none (`--files`, `--type-list`...); the rest are paths.
/// With no path, rg searches the working directory (stdin is not a pipe).
fn rg_operands(ctx: &Ctx<'_>, walked: &Walk, judged: &mut Judged) -> Result<(), Finding> {
    let mut operands = walked.operands();
    let no_pattern = [
        "-e",
        "-f",
        "--files",
        "--type-list",
        "-h",
        "-V",
        "--generate",
    ];
    if !no_pattern.iter().any(|name| walked.has(name)) {
        operands.next();
    }
    for operand in operands {
        judged.path(ctx.program, operand)?;
    }
    Ok(())
}

pub(crate) const FIND: Spec = Spec {
    names: &["find"],
    class: CommandClass::Search,
    table: Table {
        options: &[],
        unknown: Unknown::Flag,
    },
    operands: Operands::Custom,
    judge: Judge::Custom(find),
    env: &[],
    allows: &[
        "find . -name '*.rs'",
        "find src -type f -newer Cargo.toml -print",
        "find . -maxdepth 2 \\( -name a -o -iname b \\) ! -path './target/*'",
        "find -name x",
        "find . -newermt 2024-01-01",
        "find . -printf '%p\\n'",
    ],
    refuses: &[
        "find . -name x -exec sh -c id {} +",
        "find . -maxdepth 0 -execdir id \\;",
        "find . -name file.txt -ok rm {} \\;",
        "find . -name '*.rs' -delete",
        "find . -fprint0 /tmp/pwned",
        "find . -fls out.txt",
        "find -L / -name id_rsa",
        "find . -follow",
        "find . -newer /etc/shadow",
        "find / -name x",
        "find . -newerma /etc/shadow",
        "find . -files0-from list",
        "find . -frobnicate",
    ],
};

/// find's predicates by number of arguments.
const ZERO: &[&str] = &[
    "-true",
    "-false",
    "-empty",
    "-executable",
    "-readable",
    "-writable",
    "-nouser",
    "-nogroup",
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "-depth",
    "-d",
    "-mount",
    "-xdev",
    "-noleaf",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-daystart",
    "-warn",
    "-nowarn",
    "-help",
    "--help",
    "-version",
    "--version",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "!",
    "(",
    ")",
    ",",
];
const ONE_PLAIN: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-type",
    "-xtype",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-size",
    "-mtime",
    "-atime",
    "-ctime",
    "-mmin",
    "-amin",
    "-cmin",
    "-used",
    "-inum",
    "-links",
    "-maxdepth",
    "-mindepth",
    "-printf",
    "-fstype",
    "-context",
    "-regextype",
];
const ONE_PATH: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile"];
const RUNS: &str = "runs a command on every file found; run find to list the files, then run each command in its own call";
const WRITES: &str = "writes to a file; the output comes back to you, use -print or -printf";

fn find(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let program = ctx.program;
    let mut judged = Judged::new(CommandClass::Search);
    let mut i = 0;
    // Leading options: -H -L -P -D debugopts -Olevel.
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-H" | "-P" => i += 1,
            "-L" => return Err(Finding::option(program, arg, FOLLOWS)),
            "-D" => i += 2,
            o if o.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    // Starting points: until the expression starts.
    while let Some(arg) = args.get(i) {
        let starts_expression = (arg.starts_with('-') && arg.len() > 1)
            || matches!(arg.as_str(), "(" | ")" | "!" | ",");
        if starts_expression {
            break;
        }
        judged.path(program, arg)?;
        i += 1;
    }
    // The expression.
    while let Some(arg) = args.get(i) {
        let word = arg.as_str();
        i += 1;
        let operand = |i: &mut usize| {
            *i += 1;
            args.get(*i - 1).cloned().unwrap_or_default()
        };
        match word {
            w if ZERO.contains(&w) => {}
            w if ONE_PLAIN.contains(&w) => {
                operand(&mut i);
            }
            w if ONE_PATH.contains(&w) => judged.path(program, &operand(&mut i))?,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                return Err(Finding::option(program, word, RUNS));
            }
            "-delete" => {
                return Err(Finding::option(
                    program,
                    word,
                    "deletes files; the exec tool only inspects",
                ));
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                return Err(Finding::option(program, word, WRITES));
            }
            "-follow" => return Err(Finding::option(program, word, FOLLOWS)),
            "-files0-from" => {
                return Err(Finding::option(
                    program,
                    word,
                    "reads the starting points from a file; name them as arguments",
                ));
            }
            w if is_newer_xy(w) => {
                let reference = operand(&mut i);
                if !w.ends_with('t') {
                    judged.path(program, &reference)?;
                }
            }
            w => {
                return Err(Finding::operand(
                    program,
                    w,
                    format!(
                        "`{w}` is not a find predicate the exec tool knows; use tests such as -name, -type, -mtime and actions -print or -printf"
                    ),
                ));
            }
        }
    }
    Ok(judged)
}

/// `-newerXY` with X, Y among `a B c m` (and Y also `t`, a time string).
fn is_newer_xy(word: &str) -> bool {
    let Some(xy) = word.strip_prefix("-newer") else {
        return false;
    };
    let mut chars = xy.chars();
    matches!(
        (chars.next(), chars.next(), chars.next()),
        (
            Some('a' | 'B' | 'c' | 'm'),
            Some('a' | 'B' | 'c' | 'm' | 't'),
            None
        )
    )
}
