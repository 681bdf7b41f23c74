//! Programs that read, count, compare or list files: `cat`, `head`, `tail`,
//! `wc`, `sort`, `uniq`, `cut`, `nl`, `stat`, `file`, `diff`, `ls`, `du`,
//! `tree`, and the neutral `echo`, `printf`, `true`, `false`, `pwd`,
//! `which`.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Table, Unknown, Walk, flag, optional, path, refuse, value};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

const NAMES_FROM_FILE: &str = "reads the names of the files to open from a file, which would let it open files outside the workspace; name the files as arguments";
const HELP: [crate::options::Opt; 2] = [flag("--help"), flag("--version")];

pub(crate) const CAT: Spec = Spec {
    names: &["cat"],
    class: CommandClass::Read,
    table: Table {
        options: &[HELP[0], HELP[1]],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "cat Cargo.toml",
        "cat -n src/main.rs README.md",
        "cat --version",
    ],
    refuses: &[
        "cat /etc/passwd",
        "cat ../../x",
        "cat",
        "cat -",
        "cat symlink_to_root/etc/passwd",
        "cat fifo",
    ],
};

pub(crate) const HEAD: Spec = Spec {
    names: &["head"],
    class: CommandClass::Read,
    table: Table {
        options: &[value("-c --bytes"), value("-n --lines"), HELP[0], HELP[1]],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "head -n 50 Cargo.toml",
        "head -5 README.md",
        "head -c-0 src/main.rs",
    ],
    refuses: &["head /dev/zero", "head -c 100 /etc/shadow", "head -n 5"],
};

pub(crate) const TAIL: Spec = Spec {
    names: &["tail"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-c --bytes"),
            value("-n --lines"),
            refuse(
                "-f --follow",
                "follows the file forever, so the call would only end at its timeout; read the end once with tail -n",
            ),
            refuse(
                "-F",
                "follows the file forever, so the call would only end at its timeout; read the end once with tail -n",
            ),
            value("-s --sleep-interval"),
            value("--pid"),
            value("--max-unchanged-stats"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &["tail -n 20 CHANGELOG.md", "tail -3 README.md"],
    refuses: &[
        "tail -f log.txt",
        "tail --fol log.txt",
        "tail -n 1 /var/log/syslog",
    ],
};

pub(crate) const WC: Spec = Spec {
    names: &["wc"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            refuse("--files0-from", NAMES_FROM_FILE),
            optional("--total"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &["wc -l src/main.rs Cargo.toml"],
    refuses: &["wc --files0-from=list.txt", "wc -l /etc/passwd", "wc -l"],
};

pub(crate) const SORT: Spec = Spec {
    names: &["sort"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-k --key"),
            value("-t --field-separator"),
            value("-S --buffer-size"),
            refuse(
                "-T --temporary-directory",
                "moves sort's temporary files; sort already uses the call's private temporary folder (TMPDIR), removed after the call",
            ),
            value("--parallel"),
            value("--batch-size"),
            optional("--sort"),
            path("--random-source"),
            refuse(
                "-o --output",
                "writes the result to a file; the output comes back to you, and files are written with a tool made for writing",
            ),
            refuse(
                "--compress-program",
                "runs a program of your choice on temporary files; leave compression to sort",
            ),
            refuse("--files0-from", NAMES_FROM_FILE),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &["sort -k2 -t, -n data.csv", "sort -u README.md"],
    refuses: &[
        "sort /dev/zero",
        "sort -m /etc/shadow",
        "sort -o out.txt data.csv",
        "sort --compress-program=sh data.csv",
        "sort --compress=sh data.csv",
        "sort -T /tmp data.csv",
        "sort --temporary-directory=. data.csv",
    ],
};

pub(crate) const UNIQ: Spec = Spec {
    names: &["uniq"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-f --skip-fields"),
            value("-s --skip-chars"),
            value("-w --check-chars"),
            optional("--all-repeated"),
            optional("--group"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Then(uniq_output),
    env: &[],
    allows: &["uniq -c data.csv"],
    refuses: &["uniq data.csv out.txt", "uniq"],
};

fn uniq_output(ctx: &Ctx<'_>, walked: &Walk, _: &mut Judged) -> Result<(), Finding> {
    match walked.operands().nth(1) {
        Some(output) => Err(Finding::operand(
            ctx.program,
            output,
            "a second file name is where uniq writes its output; give only the file to read",
        )),
        None => Ok(()),
    }
}

pub(crate) const CUT: Spec = Spec {
    names: &["cut"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-b --bytes"),
            value("-c --characters"),
            value("-d --delimiter"),
            value("-f --fields"),
            value("--output-delimiter"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &["cut -d, -f1 data.csv", "cut -c 1-10 README.md"],
    refuses: &["cut -f1 /etc/passwd", "cut -f1"],
};

pub(crate) const NL: Spec = Spec {
    names: &["nl"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-b --body-numbering"),
            value("-d --section-delimiter"),
            value("-f --footer-numbering"),
            value("-h --header-numbering"),
            value("-i --line-increment"),
            value("-l --join-blank-lines"),
            value("-n --number-format"),
            value("-s --number-separator"),
            value("-v --starting-line-number"),
            value("-w --number-width"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &["nl -ba src/main.rs", "nl -s '' README.md"],
    refuses: &["nl -bn -w1 -s '' /etc/shadow"],
};

pub(crate) const STAT: Spec = Spec {
    names: &["stat"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-c --format"),
            value("--printf"),
            optional("--cached"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &["stat Cargo.toml", "stat -c %s src/main.rs"],
    refuses: &["stat /etc/shadow", "stat -"],
};

pub(crate) const FILE: Spec = Spec {
    names: &["file"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            refuse("-f --files-from", NAMES_FROM_FILE),
            refuse(
                "-C --compile",
                "writes a compiled magic file; only inspect files",
            ),
            path("-m --magic-file"),
            value("-F --separator"),
            value("-e --exclude"),
            value("--exclude-quiet"),
            value("-P --parameter"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "file Cargo.toml src/main.rs",
        "file -b --mime-type README.md",
    ],
    refuses: &[
        "file -f /etc/shadow",
        "file -f names.txt",
        "file /etc/passwd",
        "file -m /etc/magic x",
    ],
};

pub(crate) const DIFF: Spec = Spec {
    names: &["diff"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            path("--from-file"),
            path("--to-file"),
            path("-X --exclude-from"),
            value("-x --exclude"),
            value("-I --ignore-matching-lines"),
            value("-S --starting-file"),
            value("-L --label"),
            value("-F --show-function-line"),
            optional("-C --context"),
            optional("-U --unified"),
            value("-D --ifdef"),
            value("--line-format"),
            value("--old-line-format"),
            value("--new-line-format"),
            value("--unchanged-line-format"),
            value("--old-group-format"),
            value("--new-group-format"),
            value("--changed-group-format"),
            value("--unchanged-group-format"),
            value("--horizon-lines"),
            value("--tabsize"),
            value("-W --width"),
            optional("--color"),
            value("--palette"),
            flag("-r --recursive"),
            flag("--no-dereference"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Then(diff_recursive),
    env: &[],
    allows: &["diff -u a.txt b.txt", "diff -r --no-dereference src other"],
    refuses: &[
        "diff --line-format=%L /dev/null /etc/shadow",
        "diff -r src other",
        "diff a.txt -",
        "diff --from-file=/etc/passwd a.txt",
    ],
};

fn diff_recursive(ctx: &Ctx<'_>, walked: &Walk, _: &mut Judged) -> Result<(), Finding> {
    if walked.has("-r") && !walked.has("--no-dereference") {
        return Err(Finding::option(
            ctx.program,
            "-r",
            "follows symbolic links while descending, also out of the workspace; add --no-dereference, or compare files one pair at a time",
        ));
    }
    Ok(())
}

pub(crate) const LS: Spec = Spec {
    names: &["ls", "dir", "vdir"],
    class: CommandClass::List,
    table: Table {
        options: &[
            value("-I --ignore"),
            value("-w --width"),
            value("-T --tabsize"),
            value("--block-size"),
            optional("--color"),
            value("--format"),
            value("--hide"),
            value("--indicator-style"),
            value("--quoting-style"),
            value("--sort"),
            value("--time"),
            value("--time-style"),
            optional("--hyperlink"),
            refuse(
                "-L --dereference",
                "follows symbolic links, also out of the workspace; list without -L",
            ),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "ls -la",
        "ls -R src",
        "ls --sort=time -1 src",
        "ls -I target",
    ],
    refuses: &["ls -R /", "ls ..", "ls -L", "ls -la symlink_to_root"],
};

pub(crate) const DU: Spec = Spec {
    names: &["du"],
    class: CommandClass::List,
    table: Table {
        options: &[
            refuse(
                "-L --dereference",
                "follows symbolic links, also out of the workspace; measure without -L",
            ),
            refuse("--files0-from", NAMES_FROM_FILE),
            path("-X --exclude-from"),
            value("--exclude"),
            value("-d --max-depth"),
            value("-B --block-size"),
            value("-t --threshold"),
            optional("--time"),
            value("--time-style"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &["du -sh src", "du -d 1", "du -a --max-depth=2 ."],
    refuses: &["du -sh /", "du -L .", "du --files0-from=list"],
};

pub(crate) const TREE: Spec = Spec {
    names: &["tree"],
    class: CommandClass::List,
    table: Table {
        options: &[
            refuse(
                "-l",
                "follows symbolic links to folders, also out of the workspace; list without -l",
            ),
            refuse(
                "-o",
                "writes the listing to a file; the output comes back to you",
            ),
            refuse(
                "-R",
                "writes a listing file into every folder; list without -R",
            ),
            value("-L"),
            value("-P"),
            value("-I"),
            value("-H"),
            value("-T"),
            value("--charset"),
            value("--filelimit"),
            value("--timefmt"),
            optional("--sort"),
            path("--gitfile"),
            path("--infofile"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &["tree -L 2 src", "tree -a -I target"],
    refuses: &["tree /", "tree -l", "tree -o out.txt"],
};

/// `echo`, `printf`, `true`, `false`, `pwd`, `which`: nothing read.
pub(crate) const NEUTRAL: Spec = Spec {
    names: &["echo", "printf", "true", "false", "pwd", "which"],
    class: CommandClass::Neutral,
    table: Table {
        options: &[],
        unknown: Unknown::Flag,
    },
    operands: Operands::Words,
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "echo hello",
        "echo /etc/passwd",
        "printf '%s\\n' a b",
        "pwd",
        "which cargo",
        "true",
    ],
    refuses: &[],
};
