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
            path("-b --temp-path"),
            path("-O --output-file"),
            path("--logfile-path"),
            value("-n --suffixes"),
            value("-P --password"),
            flag("-r --recurse-paths"),
            flag("-R --recurse-patterns"),
            flag("-y --symlinks"),
        ],
        unknown: Unknown::Flag,
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Then(zip_links),
    env: &[],
    allows: &["zip out.zip README.md src/main.rs", "zip -ry out.zip src"],
    refuses: &[
        "zip --unzip-command='id #' -T x.zip README.md",
        "zip x.zip README.md -T -TT 'sh #'",
        "zip /tmp/x.zip README.md",
        "zip x.zip /etc/hosts",
        "zip -TT id x.zip a",
        "zip -m out.zip README.md",
        "zip -r out.zip src",
    ],
};

/// zip follows symbolic links while recursing unless `-y` stores them as
/// links.
fn zip_links(ctx: &Ctx<'_>, walked: &crate::options::Walk, _: &mut Judged) -> Result<(), Finding> {
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
