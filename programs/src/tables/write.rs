//! Programs integrators plausibly grant for writing in the workspace (`cp`,
//! `mv`, `mkdir`, `touch`, `tee`) and the base encoders. Fail closed: each
//! table lists the options it accepts, and any other option is refused.
//! Their commands are never read-only; every operand is confined to the
//! workspace, and the run point keeps protected paths out of reach.

use crate::class::CommandClass;
use crate::options::{Opt, Table, Unknown, flag, optional, path, refuse, value};
use crate::spec::{Judge, Operands, Spec};

const HELP: Opt = flag("--help");
const VERSION: Opt = flag("--version");

const LINKS_OUT: &str =
    "follows symbolic links, which can reach files outside the workspace; copy without it";
const MAKES_LINKS: &str = "makes links instead of copies, which can point outside the workspace or let a later write change another file; copy the file";
const INTERACTIVE: &str =
    "asks questions on standard input, which is closed here; use -n (never overwrite) or -f";
const SELINUX: &str = "sets security contexts, which is not the tool's job; leave it out";

pub(crate) const CP: Spec = Spec {
    names: &["cp"],
    class: CommandClass::Other,
    table: Table {
        options: &[
            flag("-r -R --recursive"),
            flag("-a --archive"),
            flag("-d"),
            flag("-P --no-dereference"),
            flag("-n --no-clobber"),
            flag("-f --force"),
            flag("-p"),
            optional("--preserve"),
            value("--no-preserve"),
            flag("--attributes-only"),
            flag("--remove-destination"),
            optional("--sparse"),
            optional("--reflink"),
            optional("--update"),
            flag("-u"),
            flag("-v --verbose"),
            flag("-x --one-file-system"),
            flag("-T --no-target-directory"),
            path("-t --target-directory"),
            flag("--strip-trailing-slashes"),
            optional("--backup"),
            flag("-b"),
            value("-S --suffix"),
            refuse("-L --dereference", LINKS_OUT),
            refuse("-H", LINKS_OUT),
            refuse("-l --link", MAKES_LINKS),
            refuse("-s --symbolic-link", MAKES_LINKS),
            refuse("-i --interactive", INTERACTIVE),
            refuse("-Z --context", SELINUX),
            HELP,
            VERSION,
        ],
        unknown: Unknown::Refuse(
            "is not one cp's table accepts; use -r, -a, -n, -f, -p, -v, -T or -t DIR",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "cp notes.txt copy.txt",
        "cp -r src backup",
        "cp -n -v a.txt b.txt src",
        "cp -t src a.txt",
        "cp -R -a -d -P -f -p -u -x -b -S .bak a.txt b.txt",
        "cp -T a.txt b.txt",
        "cp --recursive --archive --no-dereference --no-clobber --force --preserve --preserve=mode a b",
        "cp --no-preserve=mode --attributes-only --remove-destination --sparse=always --reflink=auto a b",
        "cp --update --update=older --verbose --one-file-system --no-target-directory a b",
        "cp --strip-trailing-slashes --backup --backup=numbered --suffix=.bak a b",
        "cp --target-directory=src a.txt",
        "cp --help",
        "cp --version",
    ],
    refuses: &[
        "cp /etc/passwd here.txt",
        "cp notes.txt /tmp/out.txt",
        "cp -rL src backup",
        "cp -s notes.txt link",
        "cp --link notes.txt link",
        "cp -i a.txt b.txt",
        "cp --copy-contents a.txt b.txt",
        "cp -t /tmp a.txt",
    ],
};

pub(crate) const MV: Spec = Spec {
    names: &["mv"],
    class: CommandClass::Other,
    table: Table {
        options: &[
            flag("-f --force"),
            flag("-n --no-clobber"),
            flag("-u"),
            optional("--update"),
            flag("-v --verbose"),
            flag("-T --no-target-directory"),
            path("-t --target-directory"),
            flag("--strip-trailing-slashes"),
            optional("--backup"),
            flag("-b"),
            value("-S --suffix"),
            refuse("-i --interactive", INTERACTIVE),
            refuse("-Z --context", SELINUX),
            HELP,
            VERSION,
        ],
        unknown: Unknown::Refuse("is not one mv's table accepts; use -f, -n, -v, -T or -t DIR"),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "mv old.txt new.txt",
        "mv -n -v a.txt src",
        "mv -f -u -b -S .bak a b",
        "mv -T a b",
        "mv -t src a",
        "mv --force --no-clobber --update --update=older --verbose a b",
        "mv --no-target-directory --strip-trailing-slashes --backup --suffix=.bak a b",
        "mv --target-directory=src a",
        "mv --help",
        "mv --version",
    ],
    refuses: &[
        "mv notes.txt /tmp/x",
        "mv /etc/hosts here",
        "mv -i a b",
        "mv --exchange a b",
    ],
};

pub(crate) const MKDIR: Spec = Spec {
    names: &["mkdir"],
    class: CommandClass::Other,
    table: Table {
        options: &[
            flag("-p --parents"),
            flag("-v --verbose"),
            value("-m --mode"),
            refuse("-Z --context", SELINUX),
            HELP,
            VERSION,
        ],
        unknown: Unknown::Refuse("is not one mkdir's table accepts; use -p, -v or -m MODE"),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "mkdir -p build/out",
        "mkdir docs",
        "mkdir -v -m 755 d",
        "mkdir --parents --verbose --mode=755 d",
        "mkdir --help",
        "mkdir --version",
    ],
    refuses: &["mkdir /tmp/x", "mkdir -p ../outside", "mkdir --security x"],
};

pub(crate) const TOUCH: Spec = Spec {
    names: &["touch"],
    class: CommandClass::Other,
    table: Table {
        options: &[
            flag("-a"),
            flag("-m"),
            flag("-c --no-create"),
            flag("-h --no-dereference"),
            value("-d --date"),
            value("-t"),
            value("--time"),
            path("-r --reference"),
            flag("-f"),
            HELP,
            VERSION,
        ],
        unknown: Unknown::Refuse(
            "is not one touch's table accepts; use -a, -m, -c, -d DATE, -t STAMP or -r FILE",
        ),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "touch new.txt",
        "touch -c -d 2020-01-01 notes.txt",
        "touch -a -m -h -f -t 202001010000 x",
        "touch -r notes.txt x",
        "touch --no-create --no-dereference --date=2020-01-01 --time=mtime --reference=notes.txt x",
        "touch --help",
        "touch --version",
    ],
    refuses: &["touch /tmp/x", "touch -r /etc/shadow x", "touch --bogus x"],
};

pub(crate) const TEE: Spec = Spec {
    names: &["tee"],
    class: CommandClass::Other,
    table: Table {
        options: &[
            flag("-a --append"),
            flag("-i --ignore-interrupts"),
            flag("-p"),
            optional("--output-error"),
            HELP,
            VERSION,
        ],
        unknown: Unknown::Refuse("is not one tee's table accepts; use -a"),
    },
    operands: Operands::Files { stdin: false },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "tee out.txt",
        "tee -a log.txt",
        "tee -i -p out.txt",
        "tee --append --ignore-interrupts --output-error=warn out.txt",
        "tee --help",
        "tee --version",
    ],
    refuses: &["tee /tmp/out", "tee --bogus out.txt"],
};

pub(crate) const BASE64: Spec = Spec {
    names: &["base64", "base32", "basenc"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-d --decode"),
            flag("-i --ignore-garbage"),
            value("-w --wrap"),
            flag("--base64"),
            flag("--base64url"),
            flag("--base32"),
            flag("--base32hex"),
            flag("--base16"),
            flag("--base2msbf"),
            flag("--base2lsbf"),
            flag("--z85"),
            HELP,
            VERSION,
        ],
        unknown: Unknown::Refuse(
            "is not one the encoder's table accepts (`-o` would write a file); use -d, -i or -w COLS",
        ),
    },
    operands: Operands::Files { stdin: true },
    judge: Judge::Standard,
    env: &[],
    allows: &[
        "base64 notes.txt",
        "base64 -d -w 0 encoded.txt",
        "basenc --base16 notes.txt",
        "base64 -i notes.txt",
        "base64 --decode --ignore-garbage --wrap=0 encoded.txt",
        "basenc --base64 --base64url --base32 --base32hex notes.txt",
        "basenc --base2msbf --base2lsbf --z85 notes.txt",
        "base64 --help",
        "base64 --version",
    ],
    refuses: &[
        "base64 -o out.txt notes.txt",
        "base64 /etc/shadow",
        "base64",
        "base32 --output=x notes.txt",
    ],
};
