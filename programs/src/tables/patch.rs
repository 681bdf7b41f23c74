//! `patch`, applying a diff to files of the workspace: a command that
//! writes.
//!
//! What the table guarantees: the diff is read from a file in the
//! workspace (`-i FILE`, or the second operand; never standard input), and
//! every file the argv names (the file to patch, `-o`, `-r`) is confined to
//! the workspace. Backups stay next to the files they copy (`-B`, `-Y`,
//! `-z` refused), `-d` is refused (paths after it would be read from
//! another folder), and so are the options that make patch run another
//! program (`-e`/`--ed` runs `ed`, `-g`/`--get` runs RCS, SCCS or
//! Perforce) or follow symbolic links.
//!
//! What it cannot guarantee by itself: the names of the files to patch are
//! read by patch from the diff, which judging does not open. GNU patch
//! (2.7.2 and later) refuses by itself absolute names and names with a
//! `..` component ("Ignoring potentially dangerous file name") and does not
//! follow symbolic links in them; the kernel's containment bounds the rest
//! (writes only inside the workspace, protected paths read-only). A diff in
//! `ed` form makes patch start `ed` whatever the options: containment's
//! `EXECUTE` limit grants only the program itself, so `ed` cannot start
//! under containment.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Table, Unknown, Walk, flag, optional, path, refuse, value};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

const BACKUP_PLACE: &str = "chooses where backups go, which can be outside the workspace; use -b (a backup next to each file)";

pub(crate) const PATCH: Spec = Spec {
    names: &["patch"],
    class: CommandClass::Other,
    table: Table {
        options: &[
            path("-i --input"),
            path("-o --output"),
            path("-r --reject-file"),
            value("-p --strip"),
            value("-F --fuzz"),
            value("-D --ifdef"),
            value("-V --version-control"),
            value("--reject-format"),
            value("--read-only"),
            value("--quoting-style"),
            optional("--merge"),
            flag("-l --ignore-whitespace"),
            flag("-c --context"),
            flag("-n --normal"),
            flag("-u --unified"),
            flag("-N --forward"),
            flag("-R --reverse"),
            flag("-E --remove-empty-files"),
            flag("-Z --set-utc"),
            flag("-T --set-time"),
            flag("-b --backup"),
            flag("--backup-if-mismatch"),
            flag("--no-backup-if-mismatch"),
            flag("-t --batch"),
            flag("-f --force"),
            flag("-s --quiet --silent"),
            flag("--verbose"),
            flag("--dry-run"),
            flag("--posix"),
            flag("--binary"),
            flag("-v --version"),
            flag("--help"),
            refuse(
                "-e --ed",
                "makes patch run the `ed` program on the diff; give a unified diff (diff -u) instead",
            ),
            refuse(
                "-g --get",
                "makes patch run a version-control program (RCS, SCCS, Perforce) to get files; leave it out",
            ),
            refuse("-B --prefix -Y --basename-prefix -z --suffix", BACKUP_PLACE),
            refuse(
                "-d --directory",
                "makes patch read every other path from another folder; run it from the workspace with -p N",
            ),
            refuse(
                "--follow-symlinks",
                "follows symbolic links, which can lead out of the workspace; leave it out",
            ),
        ],
        unknown: Unknown::Refuse(
            "is not one patch's table accepts; use -p N, -i DIFF, -R, -N, --dry-run, -b or -o FILE",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Then(needs_a_diff),
    env: &[],
    allows: &[
        "patch -p1 -i fix.diff",
        "patch -p0 --dry-run -i fix.diff",
        "patch README.md fix.diff",
        "patch -R -N -b -i fix.diff -o out.txt README.md",
        "patch --strip=1 --input=fix.diff --reject-file=fix.rej --forward --reverse",
        "patch -i fix.diff -F 3 -D DEBUG -V numbered --reject-format=unified --read-only=fail",
        "patch -i fix.diff --quoting-style=c --merge --merge=diff3 -l -c -n -u -E -Z -T",
        "patch -i fix.diff --ignore-whitespace --context --normal --unified --remove-empty-files",
        "patch -i fix.diff --set-utc --set-time --backup --backup-if-mismatch",
        "patch -i fix.diff --no-backup-if-mismatch -t -f -s --batch --force --quiet --silent",
        "patch -i fix.diff --verbose --posix --binary --output=out.txt --fuzz=2 --ifdef=X",
        "patch -i fix.diff --version-control=simple",
        "patch -r fix.rej -i fix.diff",
        "patch --version",
        "patch -v",
        "patch --help",
    ],
    refuses: &[
        "patch -p1",
        "patch -p1 -i -",
        "patch -i /tmp/evil.diff",
        "patch -i ../evil.diff",
        "patch -o /tmp/out.txt -i fix.diff README.md",
        "patch -o symlink_to_root/tmp/x -i fix.diff README.md",
        "patch -r /tmp/rej -i fix.diff",
        "patch /etc/passwd fix.diff",
        "patch -B /tmp/ -b -i fix.diff",
        "patch --prefix=../ -b -i fix.diff",
        "patch -Y ../ -i fix.diff",
        "patch -z /../../x -b -i fix.diff",
        "patch --suffix=.orig -b -i fix.diff",
        "patch -e -i fix.ed",
        "patch --ed -i fix.ed",
        "patch -g 1 -i fix.diff",
        "patch --get=1 -i fix.diff",
        "patch -d /tmp -i fix.diff",
        "patch --directory=src -i fix.diff",
        "patch --follow-symlinks -i fix.diff",
        "patch -x 1 -i fix.diff",
        "patch --bogus -i fix.diff",
    ],
};

/// patch reads the diff from standard input unless `-i` or a second
/// operand names it: standard input is always empty here.
fn needs_a_diff(ctx: &Ctx<'_>, walked: &Walk, _: &mut Judged) -> Result<(), Finding> {
    let info = walked.has("--help") || walked.has("-v");
    if info || walked.has("-i") || walked.operands().nth(1).is_some() {
        return Ok(());
    }
    Err(Finding::operand(
        ctx.program,
        "",
        "patch reads the diff from standard input, which is always empty here; name the diff file: patch -p1 -i FILE.diff",
    ))
}
