//! Programs that read, count, compare or list files: `cat`, `head`, `tail`,
//! `wc`, `sort`, `uniq`, `cut`, `nl`, `stat`, `file`, `diff`, `ls`, `du`,
//! `tree`, and the neutral `echo`, `printf`, `true`, `false`, `pwd`,
//! `which`.
//!
//! Fail closed: each table lists every option it accepts (taken from the
//! program's own `--help`, checked against it by a test), and any other
//! option is refused with guidance naming the accepted ones.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Opt, Table, Unknown, Walk, flag, optional, path, path_list, refuse, value};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec, standard};

const NAMES_FROM_FILE: &str = "reads the names of the files to open from a file, which would let it open files outside the workspace; name the files as arguments";
/// `-NUM` where the program's getopt takes digits as options (grep's
/// context, documented as `-NUM`).
pub(crate) const DIGITS: Opt = flag("-0 -1 -2 -3 -4 -5 -6 -7 -8 -9");
const HELP: [Opt; 2] = [flag("--help"), flag("--version")];
const FOLLOW: &str = "follows the file forever, so the call would only end at its timeout; read the end once with tail -n";

pub(crate) const CAT: Spec = Spec {
    names: &["cat"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-A --show-all"),
            flag("-b --number-nonblank"),
            flag("-e"),
            flag("-E --show-ends"),
            flag("-n --number"),
            flag("-s --squeeze-blank"),
            flag("-t"),
            flag("-T --show-tabs"),
            flag("-u"),
            flag("-v --show-nonprinting"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one cat's table accepts; use -n, -b, -s, -A, -E, -T, -v, -e, -t or -u",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "cat Cargo.toml",
        "cat -n src/main.rs README.md",
        "cat --version",
        "cat --help",
        "cat -A -b -e -E -s -t -T -u -v README.md",
        "cat --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting README.md",
    ],
    refuses: &[
        "cat -z README.md",
        "cat --bogus README.md",
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
        options: &[
            value("-c --bytes"),
            value("-n --lines"),
            flag("-q --quiet --silent"),
            flag("-v --verbose"),
            flag("-z --zero-terminated"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one head's table accepts; use -n NUM, -c NUM, -NUM (first word only), -q, -v or -z",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Custom(head),
    env: &[],
    allows: &[
        "head -n 50 Cargo.toml",
        "head -n 20 README.md",
        "head -5 README.md",
        "head -20v README.md",
        "head -c-0 src/main.rs",
        "head --bytes=10 --lines=2 README.md",
        "head -q -v -z README.md Cargo.toml",
        "head --quiet --silent --verbose --zero-terminated README.md",
        "head --help",
        "head --version",
    ],
    refuses: &[
        "head /dev/zero",
        "head -c 100 /etc/shadow",
        "head -n 5",
        "head -5c /etc/passwd",
        "head -5x README.md",
        "head -n 5 -3 README.md",
        "head --follow README.md",
    ],
};

/// head: a first word `-NUM[bcklmqvz]...` is the obsolete count (its
/// letters are not options: `-5c FILE` reads FILE); the rest is walked.
fn head(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let rest = match args.first().and_then(|first| first.strip_prefix('-')) {
        Some(count) if count.starts_with(|c: char| c.is_ascii_digit()) => {
            let letters = count.trim_start_matches(|c: char| c.is_ascii_digit());
            if let Some(bad) = letters.chars().find(|c| !"bcklmqvz".contains(*c)) {
                return Err(Finding::option(
                    ctx.program,
                    args.first().map_or("", String::as_str),
                    format!(
                        "holds `{bad}`, which head's count form -NUM does not take; use -n NUM or -c NUM"
                    ),
                ));
            }
            args.get(1..).unwrap_or_default()
        }
        _ => args,
    };
    let (_, judged) = standard(ctx, rest)?;
    Ok(judged)
}

pub(crate) const TAIL: Spec = Spec {
    names: &["tail"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-c --bytes"),
            value("-n --lines"),
            refuse("-f --follow", FOLLOW),
            refuse("-F", FOLLOW),
            refuse("--retry", FOLLOW),
            value("-s --sleep-interval"),
            value("--pid"),
            value("--max-unchanged-stats"),
            flag("-q --quiet --silent"),
            flag("-v --verbose"),
            flag("-z --zero-terminated"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one tail's table accepts; use -n NUM, -n +NUM, -c NUM, -NUM, -q, -v or -z",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Custom(tail),
    env: &[],
    allows: &[
        "tail -n 20 CHANGELOG.md",
        "tail -n +5 README.md",
        "tail -3 README.md",
        "tail +5 README.md",
        "tail -5c -- README.md",
        "tail --bytes=5 --lines=+2 README.md",
        "tail -q -v -z README.md",
        "tail --quiet --silent --verbose --zero-terminated README.md",
        "tail -n 2 -s 1 --pid=1 --max-unchanged-stats=5 README.md",
        "tail --sleep-interval=1 README.md",
        "tail --help",
        "tail --version",
    ],
    refuses: &[
        "tail -f log.txt",
        "tail --fol log.txt",
        "tail -n 1 /var/log/syslog",
        "tail -5f README.md",
        "tail +5f README.md",
        "tail +5 /etc/passwd",
        "tail -5c /etc/passwd",
        "tail --retry README.md",
        "tail -x README.md",
        "tail -n 2 -5 README.md",
    ],
};

/// tail: GNU tail's obsolete form (`-NUM[bcl][f]` or `+NUM[bcl][f]`, with
/// at most one file after it, `--` allowed), read exactly as tail's own
/// `parse_obsolete_option` does; otherwise the table walk.
fn tail(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let word = |i: usize| args.get(i).map(String::as_str);
    let files = match args.len() {
        1 => args.get(1..),
        2 if !word(1).is_some_and(|w| w.starts_with('-') && w.len() > 1) => args.get(1..),
        2 | 3 if word(1) == Some("--") => args.get(2..),
        _ => None,
    };
    if let (Some(files), Some(first)) = (files, word(0))
        && let Some(follow) = tail_obsolete(first)
    {
        if follow {
            return Err(Finding::option(ctx.program, first, FOLLOW));
        }
        let mut judged = Judged::new(ctx.spec.class);
        for file in files {
            judged.path(ctx.program, file)?;
        }
        if files.is_empty() {
            return Err(Finding::Stdin {
                program: ctx.program.to_owned(),
            });
        }
        return Ok(judged);
    }
    let (_, judged) = standard(ctx, args)?;
    Ok(judged)
}

/// Whether `word` is tail's obsolete count, and then whether it follows
/// (`f`). `-` and `-c` are not counts; `+` is one (from the start).
fn tail_obsolete(word: &str) -> Option<bool> {
    let rest = match word.strip_prefix('-') {
        Some(rest) if rest.is_empty() || rest == "c" => return None,
        Some(rest) => rest,
        None => word.strip_prefix('+')?,
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest
        .strip_prefix(|c: char| "bcl".contains(c))
        .unwrap_or(rest);
    match rest {
        "" => Some(false),
        "f" => Some(true),
        _ => None,
    }
}

pub(crate) const WC: Spec = Spec {
    names: &["wc"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            refuse("--files0-from", NAMES_FROM_FILE),
            flag("-c --bytes"),
            flag("-m --chars"),
            flag("-l --lines"),
            flag("-L --max-line-length"),
            flag("-w --words"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse("is not one wc's table accepts; use -l, -w, -c, -m or -L"),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "wc -l src/main.rs Cargo.toml",
        "wc -lc README.md",
        "wc -w -m -L README.md",
        "wc --bytes --chars --lines --max-line-length --words README.md",
        "wc --help",
        "wc --version",
    ],
    refuses: &[
        "wc --files0-from=list.txt",
        "wc -l /etc/passwd",
        "wc -l",
        "wc -x README.md",
        "wc --total=never README.md",
    ],
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
            value("--sort"),
            path("--random-source"),
            flag("-b --ignore-leading-blanks"),
            flag("-d --dictionary-order"),
            flag("-f --ignore-case"),
            flag("-g --general-numeric-sort"),
            flag("-i --ignore-nonprinting"),
            flag("-M --month-sort"),
            flag("-h --human-numeric-sort"),
            flag("-n --numeric-sort"),
            flag("-R --random-sort"),
            flag("-r --reverse"),
            flag("-V --version-sort"),
            flag("-c"),
            flag("-C"),
            optional("--check"),
            flag("--debug"),
            flag("-m --merge"),
            flag("-s --stable"),
            flag("-u --unique"),
            flag("-z --zero-terminated"),
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
        unknown: Unknown::Refuse(
            "is not one sort's table accepts; use -k KEYDEF, -t SEP, -n, -h, -g, -V, -r, -u, -f, -b, -s, -z or -c",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "sort -k2 -t, -n data.csv",
        "sort -u README.md",
        "sort -bdfgiMhnRrV README.md",
        "sort -c -C -m -s -z README.md",
        "sort --check=quiet --debug --merge --stable --unique --zero-terminated README.md",
        "sort --key=1,1 --field-separator=: --buffer-size=1M --parallel=2 --batch-size=4 --sort=numeric README.md",
        "sort --ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort README.md",
        "sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort README.md",
        "sort --random-sort --random-source=README.md --reverse --version-sort README.md",
        "sort -S 10M README.md",
        "sort --help",
        "sort --version",
    ],
    refuses: &[
        "sort -y README.md",
        "sort --files0-from=list data.csv",
        "sort --random-source=/dev/urandom data.csv",
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
            flag("-c --count"),
            flag("-d --repeated"),
            flag("-D"),
            flag("-i --ignore-case"),
            flag("-u --unique"),
            flag("-z --zero-terminated"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one uniq's table accepts; use -c, -d, -D, -u, -i, -z, -f N, -s N or -w N",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Then(uniq_output),
    env: &[],
    allows: &[
        "uniq -c data.csv",
        "uniq -cdDiuz -f 1 -s 2 -w 3 data.csv",
        "uniq --count --repeated --ignore-case --unique --zero-terminated data.csv",
        "uniq --skip-fields=1 --skip-chars=1 --check-chars=4 --all-repeated=separate data.csv",
        "uniq --group=both data.csv",
        "uniq --help",
        "uniq --version",
    ],
    refuses: &[
        "uniq data.csv out.txt",
        "uniq",
        "uniq -x data.csv",
        "uniq --bogus data.csv",
        "uniq -2 data.csv",
    ],
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
            flag("-n"),
            flag("--complement"),
            flag("-s --only-delimited"),
            flag("-z --zero-terminated"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one cut's table accepts; use -f LIST, -d DELIM, -c LIST, -b LIST, -s, -z, --complement or --output-delimiter=STR",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "cut -d, -f1 data.csv",
        "cut -c 1-10 README.md",
        "cut -b 1-3 -n data.csv",
        "cut -d : -f 2 -s -z --complement data.csv",
        "cut --bytes=1 --characters=1 --delimiter=, --fields=1 data.csv",
        "cut -f1 --output-delimiter=';' --only-delimited --zero-terminated data.csv",
        "cut --help",
        "cut --version",
    ],
    refuses: &["cut -f1 /etc/passwd", "cut -f1", "cut -x data.csv"],
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
            flag("-p --no-renumber"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one nl's table accepts; use -b STYLE, -n FORMAT, -s STRING, -v NUM, -w NUM, -i NUM or -p",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "nl -ba src/main.rs",
        "nl -s '' README.md",
        "nl -b a -d :: -f n -h n -i 1 -l 1 -n ln -s : -v 1 -w 3 -p README.md",
        "nl --body-numbering=a --section-delimiter=:: --footer-numbering=n README.md",
        "nl --header-numbering=n --line-increment=1 --join-blank-lines=1 README.md",
        "nl --number-format=rz --number-separator=: --starting-line-number=1 README.md",
        "nl --number-width=3 --no-renumber README.md",
        "nl --help",
        "nl --version",
    ],
    refuses: &["nl -bn -w1 -s '' /etc/shadow", "nl -x README.md"],
};

pub(crate) const STAT: Spec = Spec {
    names: &["stat"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            value("-c --format"),
            value("--printf"),
            value("--cached"),
            flag("-L --dereference"),
            flag("-f --file-system"),
            flag("-t --terse"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one stat's table accepts; use -c FORMAT, --printf=FORMAT, -L, -f or -t",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "stat Cargo.toml",
        "stat -c %s src/main.rs",
        "stat -L -f -t Cargo.toml",
        "stat --format=%n --printf='%s\\n' --cached=never Cargo.toml",
        "stat --dereference --file-system --terse Cargo.toml",
        "stat --help",
        "stat --version",
    ],
    refuses: &[
        "stat /etc/shadow",
        "stat -",
        "stat -x Cargo.toml",
        "stat -L symlink_to_root",
    ],
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
            // a list of magic files, `:` between them
            path_list("-m --magic-file", ':'),
            value("-F --separator"),
            value("-e --exclude"),
            value("--exclude-quiet"),
            value("-P --parameter"),
            refuse(
                "-z --uncompress",
                "starts decompression programs on compressed files; inspect the files as they are",
            ),
            refuse(
                "-Z --uncompress-noreport",
                "starts decompression programs on compressed files; inspect the files as they are",
            ),
            refuse(
                "-S --no-sandbox",
                "turns off file's own system-call sandbox; leave it on",
            ),
            refuse(
                "-p --preserve-date",
                "writes the files' access times back; inspect without -p",
            ),
            flag("-b --brief"),
            flag("-c --checking-printout"),
            flag("-i --mime"),
            flag("--apple"),
            flag("--extension"),
            flag("--mime-type"),
            flag("--mime-encoding"),
            flag("-k --keep-going"),
            flag("-l --list"),
            flag("-L --dereference"),
            flag("-h --no-dereference"),
            flag("-n --no-buffer"),
            flag("-N --no-pad"),
            flag("-0 --print0"),
            flag("-r --raw"),
            flag("-s --special-files"),
            flag("-d --debug"),
            HELP[0],
            flag("-v --version"),
        ],
        unknown: Unknown::Refuse(
            "is not one file's table accepts; use -b, -i, --mime-type, --mime-encoding, --extension, -k, -L, -h, -N, -0, -r, -s or -e TEST",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "file Cargo.toml src/main.rs",
        "file -b --mime-type README.md",
        "file -bciklLhnN0rsd README.md",
        "file -e ascii -F : -P bytes=100 README.md",
        "file --brief --checking-printout --mime --apple --extension README.md",
        "file --mime-encoding --keep-going --list --dereference --no-dereference README.md",
        "file --no-buffer --no-pad --print0 --raw --special-files --debug README.md",
        "file --exclude=ascii --exclude-quiet=json --separator=: --parameter=bytes=100 README.md",
        "file -m README.md --magic-file=README.md Cargo.toml",
        "file -m README.md:Cargo.toml src/main.rs",
        "file --help",
        "file --version",
        "file -v",
    ],
    refuses: &[
        "file -z archive.gz",
        "file --uncompress-noreport archive.gz",
        "file -S README.md",
        "file -p README.md",
        "file -x README.md",
        "file -f /etc/shadow",
        "file -f names.txt",
        "file /etc/passwd",
        "file -m /etc/magic x",
        "file -m README.md:/etc/passwd README.md",
        "file --magic-file=:/etc/passwd README.md",
        "file -m x:symlink_to_root/etc/passwd README.md",
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
            value("--label"),
            value("-F --show-function-line"),
            value("-C"),
            optional("--context"),
            flag("-c"),
            value("-U"),
            optional("--unified"),
            flag("-u"),
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
            flag("--normal"),
            flag("-q --brief"),
            flag("-s --report-identical-files"),
            flag("-e --ed"),
            flag("-n --rcs"),
            flag("-y --side-by-side"),
            flag("--left-column"),
            flag("--suppress-common-lines"),
            flag("-p --show-c-function"),
            flag("-t --expand-tabs"),
            flag("-T --initial-tab"),
            flag("--suppress-blank-empty"),
            refuse(
                "-l --paginate",
                "starts the pr program on the output; leave it out",
            ),
            flag("-N --new-file"),
            flag("--unidirectional-new-file"),
            flag("--ignore-file-name-case"),
            flag("--no-ignore-file-name-case"),
            flag("-i --ignore-case"),
            flag("-E --ignore-tab-expansion"),
            flag("-Z --ignore-trailing-space"),
            flag("-b --ignore-space-change"),
            flag("-w --ignore-all-space"),
            flag("-B --ignore-blank-lines"),
            flag("-a --text"),
            flag("--strip-trailing-cr"),
            flag("-d --minimal"),
            flag("--speed-large-files"),
            HELP[0],
            flag("-v --version"),
        ],
        unknown: Unknown::Refuse(
            "is not one diff's table accepts; use -u, -U NUM, -c, -q, -s, -y, -r --no-dereference, -N, -i, -w, -b, -B, -a, -x PAT or --color=never",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Then(diff_recursive),
    env: &[],
    allows: &[
        "diff --recursive --no-dereference a b",
        "diff --version",
        "diff -u a.txt b.txt",
        "diff -r --no-dereference src other",
        "diff -U 5 -C 2 -c a.txt b.txt",
        "diff --unified=5 --context=2 --normal a.txt b.txt",
        "diff -qseny -ptT -NiEZbwBad a.txt b.txt",
        "diff --brief --report-identical-files --ed --rcs --side-by-side a.txt b.txt",
        "diff --left-column --suppress-common-lines --show-c-function a.txt b.txt",
        "diff --expand-tabs --initial-tab --suppress-blank-empty --new-file a.txt b.txt",
        "diff --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case a.txt b.txt",
        "diff --ignore-case --ignore-tab-expansion --ignore-trailing-space a.txt b.txt",
        "diff --ignore-space-change --ignore-all-space --ignore-blank-lines --text a.txt b.txt",
        "diff --strip-trailing-cr --minimal --speed-large-files --horizon-lines=3 a.txt b.txt",
        "diff -x '*.o' -X a.txt -I re -S a.txt --label one --label two -F re -D NAME -W 80 a.txt b.txt",
        "diff --exclude=x --exclude-from=a.txt --ignore-matching-lines=x --starting-file=a.txt a.txt b.txt",
        "diff --label=a --show-function-line=x --ifdef=X --width=80 --tabsize=4 a.txt b.txt",
        "diff --from-file=a.txt b.txt",
        "diff --to-file=a.txt b.txt",
        "diff --line-format=%L --old-line-format=%L --new-line-format=%L --unchanged-line-format=%L a.txt b.txt",
        "diff --old-group-format='%<' --new-group-format='%>' --changed-group-format='%<' --unchanged-group-format='%=' a.txt b.txt",
        "diff --color=never --palette='ad=1' a.txt b.txt",
        "diff --help",
        "diff -v",
    ],
    refuses: &[
        "diff -l a.txt b.txt",
        "diff --paginate a.txt b.txt",
        "diff -j a.txt b.txt",
        "diff --bogus a.txt b.txt",
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
            flag("-a --all"),
            flag("-A --almost-all"),
            flag("--author"),
            flag("-b --escape"),
            flag("-B --ignore-backups"),
            flag("-c"),
            flag("-C"),
            flag("-d --directory"),
            flag("-D --dired"),
            flag("-f"),
            flag("-F"),
            optional("--classify"),
            flag("--file-type"),
            flag("--full-time"),
            flag("-g"),
            flag("--group-directories-first"),
            flag("-G --no-group"),
            flag("-h --human-readable"),
            flag("--si"),
            flag("-H --dereference-command-line"),
            flag("--dereference-command-line-symlink-to-dir"),
            flag("-i --inode"),
            flag("-k --kibibytes"),
            flag("-l"),
            flag("-m"),
            flag("-n --numeric-uid-gid"),
            flag("-N --literal"),
            flag("-o"),
            flag("-p"),
            flag("-q --hide-control-chars"),
            flag("--show-control-chars"),
            flag("-Q --quote-name"),
            flag("-r --reverse"),
            flag("-R --recursive"),
            flag("-s --size"),
            flag("-S"),
            flag("-t"),
            flag("-u"),
            flag("-U"),
            flag("-v"),
            flag("-x"),
            flag("-X"),
            flag("-Z --context"),
            flag("--zero"),
            flag("-1"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one ls's table accepts; use -l, -a, -A, -h, -S, -t, -r, -R, -1, -d, -F, -i, -s, --color=never, --sort=WORD or -I PATTERN",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "ls -la",
        "ls -R src",
        "ls --sort=time -1 src",
        "ls -I target",
        "ls -lhS --color=never",
        "ls -aAbBcCdDfFgGhHiklmnNopqQrRsStuUvxXZ1 src",
        "ls --all --almost-all --author --escape --ignore-backups --directory --dired src",
        "ls --classify --classify=auto --file-type --full-time --group-directories-first src",
        "ls --no-group --human-readable --si --dereference-command-line --inode src",
        "ls --dereference-command-line-symlink-to-dir --kibibytes --numeric-uid-gid src",
        "ls --literal --hide-control-chars --show-control-chars --quote-name src",
        "ls --reverse --recursive --size --context --zero src",
        "ls --ignore=x --width=80 --tabsize=4 --block-size=K --format=long --hide=x src",
        "ls --indicator-style=slash --quoting-style=literal --time=ctime --time-style=iso src",
        "ls --hyperlink=never --color src",
        "ls -w 80 -T 4 src",
        "ls --help",
        "ls --version",
    ],
    refuses: &[
        "ls -R /",
        "ls ..",
        "ls -L",
        "ls -la symlink_to_root",
        "ls -j",
        "ls --bogus",
        "ls -lY src",
    ],
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
            flag("-0 --null"),
            flag("-a --all"),
            flag("--apparent-size"),
            flag("-b --bytes"),
            flag("-c --total"),
            flag("-D --dereference-args"),
            flag("-H"),
            flag("-h --human-readable"),
            flag("--inodes"),
            flag("-k"),
            flag("-l --count-links"),
            flag("-m"),
            flag("-P --no-dereference"),
            flag("-S --separate-dirs"),
            flag("--si"),
            flag("-s --summarize"),
            flag("-x --one-file-system"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one du's table accepts; use -s, -h, -a, -c, -d N, -k, -m, -b, --apparent-size, -x or --exclude=PATTERN",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "du -sh src",
        "du -sh",
        "du -d 1",
        "du -a --max-depth=2 .",
        "du -0abcDHhklmPSsx -B 1K -t 1 -X README.md --exclude='*.o' src",
        "du --null --all --apparent-size --bytes --total --dereference-args src",
        "du --human-readable --inodes --count-links --no-dereference --separate-dirs src",
        "du --si --summarize --one-file-system --block-size=1K --threshold=1 src",
        "du --exclude-from=README.md --time --time=ctime --time-style=iso src",
        "du --help",
        "du --version",
    ],
    refuses: &[
        "du -sh /",
        "du -L .",
        "du --files0-from=list",
        "du -z .",
        "du --bogus .",
    ],
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
            refuse(
                "--fromfile",
                "reads the paths to list from files (or standard input), which would let it list outside the workspace; name the folders as arguments",
            ),
            value("-L"),
            value("-P"),
            value("-I"),
            value("-H"),
            value("-T"),
            value("--charset"),
            value("--filelimit"),
            value("--timefmt"),
            value("--sort"),
            path("--gitfile"),
            path("--infofile"),
            path("--hintro"),
            path("--houtro"),
            flag("-a"),
            flag("-d"),
            flag("-f"),
            flag("-x"),
            flag("--gitignore"),
            flag("--ignore-case"),
            flag("--matchdirs"),
            flag("--metafirst"),
            flag("--prune"),
            flag("--info"),
            flag("--noreport"),
            flag("-q"),
            flag("-N"),
            flag("-Q"),
            flag("-p"),
            flag("-u"),
            flag("-g"),
            flag("-s"),
            flag("-h"),
            flag("--si"),
            flag("--du"),
            flag("-D"),
            flag("-F"),
            flag("--inodes"),
            flag("--device"),
            flag("-v"),
            flag("-t"),
            flag("-c"),
            flag("-U"),
            flag("-r"),
            flag("--dirsfirst"),
            flag("--filesfirst"),
            flag("-i"),
            flag("-A"),
            flag("-S"),
            flag("-n"),
            flag("-C"),
            flag("-X"),
            flag("-J"),
            flag("--nolinks"),
            flag("--fflinks"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse(
            "is not one tree's table accepts; use -L LEVEL, -a, -d, -f, -I PATTERN, -P PATTERN, --gitignore, -s, -h, -D, -F, --dirsfirst, -J or --noreport",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "tree -L 2 src",
        "tree -a -I target",
        "tree -L 2 -a -I target",
        "tree -adfxqNQpugshDFvtcUriASnCXJ src",
        "tree -P '*.rs' -H . -T title --charset=utf-8 --filelimit=100 --timefmt=%F src",
        "tree --sort=mtime --sort name --gitfile=.gitignore --infofile=README.md src",
        "tree --hintro=README.md --houtro README.md --gitignore --ignore-case src",
        "tree --matchdirs --metafirst --prune --info --noreport --si --du src",
        "tree --inodes --device --dirsfirst --filesfirst --nolinks --fflinks src",
        "tree --help",
        "tree --version",
    ],
    refuses: &[
        "tree /",
        "tree -l",
        "tree -o out.txt",
        "tree -R -L 1",
        "tree --fromfile list.txt",
        "tree --gitfile=/etc/shadow",
        "tree -K",
        "tree --bogus",
    ],
};

/// `echo`, `printf`, `true`, `false`: nothing read, and no word is an
/// option they could misread. GNU `echo` takes a leading run of `-n`, `-e`,
/// `-E` and prints any other word, option-like or not; `printf` takes its
/// first word as the format (only a lone `--help` or `--version` is an
/// option); `true` and `false` ignore their words. So every word is text:
/// there is no unknown option to refuse, and nothing names a file.
pub(crate) const NEUTRAL: Spec = Spec {
    names: &["echo", "printf", "true", "false"],
    class: CommandClass::Neutral,
    table: Table {
        options: &[HELP[0], HELP[1]],
        unknown: Unknown::Refuse("is not an option of this program"),
    },
    operands: Operands::Words,
    judge: Judge::Custom(words),
    env: &[],
    allows: &[
        "echo hello",
        "echo /etc/passwd",
        "echo -n -e -E hello",
        "echo --- done ---",
        "printf '%s\\n' a b",
        "printf -- '-%s' x",
        "true",
        "false",
        "echo --help",
        "printf --version",
    ],
    refuses: &[],
};

/// Every word is text (see [`NEUTRAL`]).
fn words(ctx: &Ctx<'_>, _: &[String]) -> Result<Judged, Finding> {
    Ok(Judged::new(ctx.spec.class))
}

/// `pwd`: prints the working folder.
pub(crate) const PWD: Spec = Spec {
    names: &["pwd"],
    class: CommandClass::Neutral,
    table: Table {
        options: &[
            flag("-L --logical"),
            flag("-P --physical"),
            HELP[0],
            HELP[1],
        ],
        unknown: Unknown::Refuse("is not one pwd's table accepts; use -L or -P"),
    },
    operands: Operands::Words,
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "pwd",
        "pwd -L",
        "pwd -P",
        "pwd --logical --physical",
        "pwd --help",
        "pwd --version",
    ],
    refuses: &["pwd -x", "pwd --bogus"],
};

/// `which` (debianutils): prints where commands are found; `-a` for all.
pub(crate) const WHICH: Spec = Spec {
    names: &["which"],
    class: CommandClass::Neutral,
    table: Table {
        options: &[flag("-a")],
        unknown: Unknown::Refuse("is not one which's table accepts; use -a"),
    },
    operands: Operands::Words,
    judge: Judge::Standard,
    env: &[],
    allows: &["which cargo", "which -a cargo rustc"],
    refuses: &["which -s cargo", "which --read-alias cargo"],
};
