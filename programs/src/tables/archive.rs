//! Archives: `tar` (listing only), `unzip` (listing, testing, printing),
//! `zip` (writing an archive inside the workspace).

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Stop, Table, Unknown, flag, optional, path, refuse, value, walk};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

const RUNS: &str = "runs a program of your choice; list the archive with tar -tf ARCHIVE";

pub(crate) const TAR: Spec = Spec {
    names: &["tar", "gtar"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-t --list"),
            refuse(
                "-c --create -x --extract --get -r --append -u --update -A --catenate --concatenate -d --diff --compare --delete --test-label",
                "is not listing; the exec tool only lists archives (tar -tf ARCHIVE)",
            ),
            path("-f --file"),
            path("-C --directory"),
            path("-X --exclude-from"),
            refuse(
                "-T --files-from",
                "reads the names of files from a file; name them as arguments",
            ),
            refuse("-I --use-compress-program", RUNS),
            refuse("-F --info-script --new-volume-script", RUNS),
            refuse("--to-command", RUNS),
            refuse("--checkpoint-action", RUNS),
            refuse("--rsh-command --rmt-command", RUNS),
            refuse(
                "-g --listed-incremental --index-file --volno-file",
                "writes a file; the output comes back to you",
            ),
            refuse("--remove-files", "deletes files"),
            optional("--checkpoint --occurrence --backup --atime-preserve"),
            value(
                "-b --blocking-factor -H --format -K --starting-file --newer-mtime -L --tape-length -V --label --owner --group --mode --transform --xform --strip-components --record-size --suffix --quoting-style --quote-chars --no-quote-chars --sort --exclude --exclude-tag --exclude-tag-all --exclude-tag-under --exclude-ignore --exclude-ignore-recursive --hole-detection --warning --level --pax-option",
            ),
            path("-N --newer --after-date --mtime"),
            flag("-v --verbose"),
            flag("-z --gzip --gunzip --ungzip"),
            flag("-j --bzip2"),
            flag("-J --xz"),
            flag("--lzip"),
            flag("--lzma"),
            flag("--lzop"),
            flag("--zstd"),
            flag("-Z --compress --uncompress"),
            flag("-a --auto-compress"),
            flag("--wildcards"),
            flag("--no-wildcards"),
            flag("--wildcards-match-slash"),
            flag("--no-wildcards-match-slash"),
            flag("--anchored"),
            flag("--no-anchored"),
            flag("--ignore-case"),
            flag("--no-ignore-case"),
            flag("-i --ignore-zeros"),
            flag("--numeric-owner"),
            flag("--full-time"),
            flag("--utc"),
            flag("-R --block-number"),
            flag("--show-transformed-names"),
            flag("--show-stored-names"),
            flag("-B --read-full-records"),
            flag("--null"),
            flag("--no-null"),
            flag("--no-recursion"),
            flag("--recursion"),
            flag("--exclude-vcs"),
            flag("--exclude-vcs-ignores"),
            flag("--exclude-backups"),
            flag("--exclude-caches"),
            flag("--exclude-caches-all"),
            flag("--exclude-caches-under"),
            flag("--force-local"),
            optional("--totals"),
            flag("--help"),
            flag("--version"),
            flag("--usage"),
            flag("--show-defaults"),
        ],
        unknown: Unknown::Refuse(
            "is not one tar's listing table accepts; use -t, -v, -f ARCHIVE, -z, -j, -J, --zstd, --wildcards, --exclude=PATTERN or --strip-components=N",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Custom(tar),
    env: &[],
    allows: &[
        "tar -tf archive.tar",
        "tar tvf archive.tar",
        "tar -tzvf a.tgz src/",
        "tar --list --file=a.tar",
        "tar --version",
        "tar -tvf a.tar -C src -X list.txt --exclude='*.o' -N 2020-01-01",
        "tar -tf a.tgz -zjJaZ --lzip --lzma --lzop --zstd --gzip --gunzip --ungzip --bzip2 --xz",
        "tar -tf a.tar --compress --uncompress --auto-compress --verbose --wildcards --no-wildcards",
        "tar -tf a.tar --wildcards-match-slash --no-wildcards-match-slash --anchored --no-anchored",
        "tar -tf a.tar --ignore-case --no-ignore-case --ignore-zeros --numeric-owner --full-time --utc",
        "tar -tf a.tar -iRB --block-number --show-transformed-names --show-stored-names",
        "tar -tf a.tar --read-full-records --null --no-null --no-recursion --recursion --exclude-vcs",
        "tar -tf a.tar --exclude-vcs-ignores --exclude-backups --exclude-caches --exclude-caches-all",
        "tar -tf a.tar --exclude-caches-under --force-local --totals --totals=USR1 --occurrence=1",
        "tar -tf a.tar --checkpoint=10 --backup=t --atime-preserve=system --strip-components=1",
        "tar -tf a.tar -b 20 -H gnu -K x -L 10 -V x --format=gnu --starting-file=x --newer-mtime=2020-01-01",
        "tar -tf a.tar --tape-length=1 --label=x --owner=x --group=x --mode=644 --transform=s/a/b/",
        "tar -tf a.tar --xform=s/a/b/ --record-size=512 --suffix=.bak --quoting-style=c --quote-chars=x",
        "tar -tf a.tar --no-quote-chars=x --sort=name --exclude-tag=x --exclude-tag-all=x --exclude-tag-under=x",
        "tar -tf a.tar --exclude-ignore=x --exclude-ignore-recursive=x --hole-detection=raw --warning=all",
        "tar -tf a.tar --level=0 --pax-option=x=y --newer=a.tar --after-date=a.tar --mtime=a.tar",
        "tar --list --file=a.tar --directory=src --exclude-from=list.txt --blocking-factor=20",
        "tar --help",
        "tar --usage",
        "tar --show-defaults",
    ],
    refuses: &[
        "tar -tf a.tar -w",
        "tar -tf a.tar --multi-volume",
        "tar -tf a.tar --bogus",
        "tar tYf a.tar",
        "tar -xf archive.tar",
        "tar xf /dev/null -I 'sh -c id'",
        "tar cf out.tar src",
        "tar -xPf payload.tar",
        "tar '--checkpoint=1' '--checkpoint-action=exec=sh shell.sh'",
        "tar -tf a.tar --to-comm=id",
        "tar -tf a.tar --checkpoint-act=exec=id",
        "tar -tf a.tar --use-compress=id",
        "tar -tf host:a.tar",
        "tar -tf /etc/a.tar",
        "tar -tf -",
        "tar -tf a.tar -T list",
        "tar -f a.tar",
    ],
};

/// tar: the old style first word (`tvf a.tar`) is a bundle of options whose
/// values follow in order; only listing is allowed; a remote archive
/// (`host:file`) is refused.
fn tar(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let mut args = args.to_vec();
    if let Some(first) = args
        .first()
        .filter(|a| !a.starts_with('-') && !a.is_empty())
    {
        // Old style: each letter is an option; value-taking letters take the
        // next words in order. Rewritten as `-t -v -f a.tar`.
        let letters: Vec<char> = first.chars().collect();
        let mut rewritten = Vec::new();
        let mut next = 1;
        for letter in letters {
            rewritten.push(format!("-{letter}"));
            let takes_value = matches!(
                letter,
                'f' | 'C' | 'X' | 'T' | 'I' | 'F' | 'g' | 'b' | 'H' | 'K' | 'L' | 'V' | 'N'
            );
            if let Some(v) = args.get(next).filter(|_| takes_value) {
                rewritten.push(v.clone());
                next += 1;
            }
        }
        rewritten.extend(args.get(next..).unwrap_or_default().iter().cloned());
        args = rewritten;
    }
    let walked = walk(ctx.program, &ctx.spec.table, &args, Stop::End)?;
    let info = ["--help", "--version", "--usage", "--show-defaults"];
    if info.iter().any(|name| walked.has(name)) {
        return Ok(Judged::new(CommandClass::Neutral));
    }
    if !walked.has("-t") {
        return Err(Finding::operand(
            ctx.program,
            "",
            "the exec tool only lists archives: tar -tf ARCHIVE (add -v for details)",
        ));
    }
    for archive in walked.known("-f").flatten() {
        if archive.contains(':') {
            return Err(Finding::option(
                ctx.program,
                "-f",
                "names a remote archive (HOST:FILE), which tar reaches through a remote shell; name an archive file in the workspace",
            ));
        }
    }
    let mut judged = Judged::new(CommandClass::Read);
    judged.options(ctx.program, &walked)?;
    // Operands are member names inside the archive, not files.
    Ok(judged)
}

pub(crate) const UNZIP: Spec = Spec {
    names: &["unzip"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-l"),
            flag("-v"),
            flag("-t"),
            flag("-p"),
            flag("-c"),
            flag("-Z"),
            flag("-z"),
            refuse(
                "-d",
                "chooses where to extract; the exec tool only lists, tests or prints archives",
            ),
            refuse(
                "-:",
                "lets extraction write outside the folder; the exec tool only lists archives",
            ),
            refuse(
                "-T",
                "sets the archive's time (writes it); the exec tool only lists, tests or prints archives",
            ),
            // Before the archive `-x` does nothing (extracting is the
            // default); after it, it starts the list of members to leave out.
            flag("-x"),
            value("-P"),
            flag("-q"),
            flag("-a"),
            flag("-b"),
            flag("-C"),
        ],
        unknown: Unknown::Refuse(
            "is not one unzip's table accepts; use -l, -v, -Z, -t, -p, -c or -z, with -q, -a, -b or -C",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Custom(unzip),
    env: &[],
    allows: &[
        "unzip -l bundle.zip",
        "unzip -t bundle.zip",
        "unzip -p bundle.zip README.md",
        "unzip -v",
        "unzip -qql bundle.zip",
        "unzip -Z bundle.zip",
        "unzip -c -a -b -C -z bundle.zip",
        "unzip -l -P secret bundle.zip README.md -x '*.o'",
        "unzip -t bundle.zip -x README.md",
    ],
    refuses: &[
        "unzip bundle.zip",
        "unzip -o bundle.zip",
        "unzip -l /tmp/x.zip",
        "unzip -d out -l a.zip",
        "unzip -l -x /tmp/x.zip",
        "unzip bundle.zip -l '*'",
        "unzip -l bundle.zip -d out",
        "unzip -l bundle.zip -dout",
        "unzip -T bundle.zip",
        "unzip -M -l bundle.zip",
    ],
};

/// unzip reads its options only before the archive (the first word that is
/// not an option); after it come member names, `-x` (the members to leave
/// out follow) and `-d DIR` (where to extract: refused). It extracts unless
/// an option before the archive asks to list (`-l`, `-v`, `-Z`), test
/// (`-t`), or print (`-p`, `-c`, `-z`).
fn unzip(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let walked = walk(ctx.program, &ctx.spec.table, args, Stop::FirstOperand)?;
    let modes = ["-l", "-v", "-t", "-p", "-c", "-Z", "-z"];
    if !modes.iter().any(|m| walked.has(m)) {
        return Err(Finding::operand(
            ctx.program,
            "",
            "without -l, -t or -p before the archive unzip extracts files; the exec tool only lists (unzip -l ARCHIVE), tests or prints archives",
        ));
    }
    let mut judged = Judged::new(ctx.spec.class);
    judged.options(ctx.program, &walked)?;
    let mut rest = args.get(walked.rest..).unwrap_or_default().iter();
    if let Some(archive) = rest.next() {
        judged.path(ctx.program, archive)?;
    }
    if let Some(dir) = rest.find(|word| word.starts_with("-d")) {
        return Err(Finding::option(
            ctx.program,
            dir,
            "chooses where to extract; the exec tool only lists, tests or prints archives",
        ));
    }
    Ok(judged)
}

pub(crate) const ZIP: Spec = Spec {
    names: &["zip"],
    class: CommandClass::Other,
    table: Table {
        // zip reads its own option grammar (multi-letter short options such
        // as `-TT`, `-lf`, `-sf`): the accepted letters are chosen so that
        // every bundle of them zip could read as one multi-letter option
        // (`-du`, `-nw`, `-tt`) is harmless, and the walker reads such a
        // bundle as single letters, taking at most as many words as values.
        options: &[
            refuse(
                "-T --test",
                "tests the archive by running a program; check it with unzip -t instead",
            ),
            refuse(
                "--unzip-command",
                "runs a program of your choice; check the archive with unzip -t instead",
            ),
            refuse(
                "-@ --names-stdin",
                "reads names from standard input, which is always empty here; name the files as arguments",
            ),
            refuse(
                "-m --move",
                "deletes the original files; the exec tool only adds copies to archives",
            ),
            refuse(
                "-b --temp-path",
                "puts the temporary archive in a folder of your choice; leave it out (zip writes it next to the archive)",
            ),
            refuse(
                "-O --output-file",
                "writes the archive somewhere else than the one named; name the archive to write as the first argument",
            ),
            refuse(
                "--logfile-path --log-append --log-info",
                "writes a log file; the output comes back to you",
            ),
            refuse(
                "-e --encrypt -c --entry-comments -z --archive-comment",
                "asks questions on standard input, which is closed here; leave it out",
            ),
            refuse(
                "-A --adjust-sfx -J --junk-sfx -F --fix --fixfix -U --copy-entries -g --grow -d --delete --filesync --difference-archive",
                "rewrites an existing archive in place; write a new archive instead",
            ),
            refuse(
                "-s --split-size --split-pause --split-verbose --split-bell",
                "splits the archive into pieces (and may ask where to put them); write one archive",
            ),
            refuse(
                "--fifo",
                "reads FIFOs, which can block until the call's timeout; leave it out",
            ),
            flag("-r --recurse-paths"),
            flag("-R --recurse-patterns"),
            flag("-y --symlinks"),
            flag("-q --quiet"),
            flag("-v --verbose"),
            flag("-j --junk-paths"),
            flag("-D --no-dir-entries"),
            flag("-X --strip-extra"),
            flag("-u --update"),
            flag("-f --freshen"),
            flag("-o --latest-time"),
            flag("-0 --store"),
            flag("-1 --compress-1 -2 --compress-2 -3 --compress-3 -4 --compress-4 -5 --compress-5"),
            flag("-6 --compress-6 -7 --compress-7 -8 --compress-8 -9 --compress-9"),
            flag("-x --exclude"),
            flag("-i --include"),
            value("-n --suffixes"),
            value("-P --password"),
            value("-t --from-date --before-date"),
            flag("--must-match"),
            flag("--no-wild"),
            flag("-h --help"),
            flag("--version"),
        ],
        unknown: Unknown::Refuse(
            "is not one zip's table accepts; use -r with -y, -q, -j, -u, -x PATTERN... or -0 to -9",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Then(zip_rules),
    env: &[],
    allows: &[
        "zip out.zip README.md src/main.rs",
        "zip -ry out.zip src",
        "zip -r -y -q -9 out.zip src -x '*.o'",
        "zip --recurse-paths --symlinks --quiet --junk-paths out.zip src",
        "zip -jDXufo -0 out.zip README.md",
        "zip --no-dir-entries --strip-extra --update --freshen --latest-time --store out.zip a",
        "zip -1 -2 -3 -4 -5 -6 -7 -8 out.zip a",
        "zip --compress-1 --compress-2 --compress-3 --compress-4 --compress-5 out.zip a",
        "zip --compress-6 --compress-7 --compress-8 --compress-9 out.zip a",
        "zip -i '*.rs' -n .gz:.png -P secret -t 2020-01-01 -v out.zip src/main.rs",
        "zip --include=a --exclude=b --suffixes=.gz --password=x --from-date=2020-01-01 out.zip a",
        "zip --before-date=2020-01-01 --must-match --no-wild --verbose out.zip a",
        "zip -Ry out.zip '*.rs'",
        "zip --recurse-patterns --symlinks out.zip '*.rs'",
        "zip -h",
        "zip --help",
        "zip --version",
    ],
    refuses: &[
        "zip --unzip-command='id #' -T x.zip README.md",
        "zip x.zip README.md -T -TT 'sh #'",
        "zip /tmp/x.zip README.md",
        "zip x.zip /etc/hosts",
        "zip -TT id x.zip a",
        "zip -m out.zip README.md",
        "zip -r out.zip src",
        "zip -O /tmp/out.zip in.zip README.md",
        "zip -O copy.zip in.zip README.md",
        "zip --out /tmp/out.zip in.zip a",
        "zip -b /tmp out.zip README.md",
        "zip -@ out.zip",
        "zip out.zip @",
        "zip out.zip @list.txt",
        "zip -x@/etc/list out.zip a",
        "zip -lf /tmp/log out.zip a",
        "zip --logfile-path=log.txt out.zip a",
        "zip -e out.zip a",
        "zip -FF in.zip --out fixed.zip",
        "zip -d out.zip a",
        "zip -sf out.zip",
        "zip -FI out.zip fifo",
        "zip -X- out.zip a",
        "zip out.zip -",
        "zip --bogus out.zip a",
    ],
};

/// zip follows symbolic links while recursing unless `-y` stores them as
/// links; an operand starting with `@` is not a file name to zip (`-@`
/// reads names from standard input, `-x@FILE` a list from a file).
fn zip_rules(ctx: &Ctx<'_>, walked: &crate::options::Walk, _: &mut Judged) -> Result<(), Finding> {
    if let Some(operand) = walked.operands().find(|op| op.starts_with('@')) {
        return Err(Finding::operand(
            ctx.program,
            operand,
            "names a list of files to read, not a file; name the files themselves",
        ));
    }
    let recursive = walked.has("-r") || walked.has("-R");
    if recursive && !walked.has("-y") {
        return Err(Finding::option(
            ctx.program,
            "-r",
            "follows symbolic links while descending, also out of the workspace; add -y to store links as links",
        ));
    }
    Ok(())
}
