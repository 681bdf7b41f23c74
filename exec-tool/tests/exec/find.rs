//! find's expression grammar against the real program.
//!
//! The oracle is GNU find itself: `find -D tree` prints the expression it
//! parsed (its `Eval Tree`, one `pred=[NAME ARG]` line per primary). For
//! generated expressions, built from the predicates, options, actions and
//! operators the table accepts and from the ones it refuses (`-exec`,
//! `-delete`, `-fprint`...), with arguments that look like predicates or
//! operators, dangling arguments and unbalanced parentheses: whenever the
//! table accepts one,
//!
//! - find accepts it too (no parse error);
//! - every primary in find's tree is one the table accepts (no action that
//!   runs, deletes or writes);
//! - find's primaries are the ones the table read, in order, each with the
//!   argument the table gave it (find adds a `-print` when there is no
//!   action).
//!
//! find runs contained, in a scratch folder holding the files the
//! expressions name. `-daystart` is left out of the vocabulary: find
//! 4.9's `-D tree` prints it in place of the primary before it (a display
//! quirk); `-context` too (it needs SELinux, which this machine may lack),
//! and `-help`/`-version` (they print and stop).

use jig_kernel::{Kernel, Limits};
use jig_programs::{Lookup, judge, lookup};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Zero-argument primaries the table accepts.
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
    "-warn",
    "-nowarn",
];

/// Free-text arguments, some spelt like predicates or operators.
const WORDS: &[&str] = &[
    "x", "*.rs", "-exec", "(", ")", "!", ",", "-delete", "-o", "{}", ";", "-name", "a",
];

/// Arguments that are regular expressions in every `-regextype`.
const REGEXES: &[&str] = &["x", ".*rs", "-exec", "-o", ",", "!"];

/// One-argument primaries the table accepts, with arguments find takes
/// (free text where find takes any).
const ONE: &[(&str, &[&str])] = &[
    ("-name", WORDS),
    ("-iname", WORDS),
    ("-path", WORDS),
    ("-ipath", WORDS),
    ("-wholename", WORDS),
    ("-iwholename", WORDS),
    ("-regex", REGEXES),
    ("-iregex", REGEXES),
    ("-lname", WORDS),
    ("-ilname", WORDS),
    ("-printf", WORDS),
    ("-type", &["f", "d", "l", "f,d"]),
    ("-xtype", &["f", "l"]),
    ("-perm", &["-u+r", "644", "/o+w"]),
    ("-user", &["root", "0"]),
    ("-group", &["root", "0"]),
    ("-uid", &["0", "+1"]),
    ("-gid", &["0", "-1"]),
    ("-size", &["+1k", "-2M", "0"]),
    ("-mtime", &["-2", "+1", "0"]),
    ("-atime", &["1"]),
    ("-ctime", &["1"]),
    ("-mmin", &["-5"]),
    ("-amin", &["1"]),
    ("-cmin", &["1"]),
    ("-used", &["1"]),
    ("-inum", &["1"]),
    ("-links", &["1", "+0"]),
    ("-maxdepth", &["0", "2"]),
    ("-mindepth", &["1"]),
    ("-fstype", &["ext4", "tmpfs"]),
    ("-regextype", &["posix-extended", "emacs"]),
    ("-newer", &["a", "README.md"]),
    ("-anewer", &["a"]),
    ("-cnewer", &["a"]),
    ("-samefile", &["a"]),
    ("-newermt", &["2020-01-01", "1 day ago"]),
    ("-newerct", &["2020-01-01"]),
    ("-newerma", &["a"]),
    ("-newermm", &["README.md"]),
];

/// Operators.
const OPERATORS: &[&str] = &["(", ")", "!", "-not", "-a", "-and", "-o", "-or", ","];

/// What the table refuses: actions that run, delete or write, options
/// that follow links or read names from a file, unknown words.
const REFUSED: &[&[&str]] = &[
    &["-exec", "id", ";"],
    &["-execdir", "id", "{}", "+"],
    &["-ok", "id", ";"],
    &["-okdir", "id", ";"],
    &["-delete"],
    &["-fprint", "out"],
    &["-fprint0", "out"],
    &["-fprintf", "out", "%p"],
    &["-fls", "out"],
    &["-follow"],
    &["-files0-from", "list"],
    &["-frobnicate"],
    &["-newerXY", "a"],
];

/// The primaries find may show for an accepted expression.
fn allowed(name: &str) -> bool {
    ZERO.contains(&name) || ONE.iter().any(|(one, _)| *one == name)
}

/// One piece of an expression: its words, and the primary the table reads
/// from them (`None` for an operator or a refused piece).
#[derive(Debug, Clone)]
struct Piece {
    words: Vec<String>,
}

fn piece() -> impl Strategy<Value = Piece> {
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    prop_oneof![
        4 => prop::sample::select(ZERO).prop_map(move |z| Piece { words: vec![z.to_owned()] }),
        6 => prop::sample::select(ONE).prop_flat_map(|(name, args)| {
            prop::sample::select(args).prop_map(move |arg| Piece {
                words: vec![name.to_owned(), arg.to_owned()],
            })
        }),
        4 => prop::sample::select(OPERATORS).prop_map(|op| Piece { words: vec![op.to_owned()] }),
        1 => prop::sample::select(REFUSED).prop_map(move |r| Piece { words: words(r) }),
    ]
}

/// An expression: a few pieces, sometimes with its last word dropped (a
/// predicate missing its argument).
fn expression() -> impl Strategy<Value = Vec<String>> {
    (
        prop::collection::vec(piece(), 1..7),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(pieces, truncate)| {
            let mut words: Vec<String> = pieces.into_iter().flat_map(|p| p.words).collect();
            if truncate && words.len() > 1 {
                words.pop();
            }
            words
        })
}

/// Whether the find table accepts `find . WORDS...`.
fn accepts(words: &[String]) -> bool {
    let Lookup::Spec(spec) = lookup("find") else {
        panic!("find has a table")
    };
    let mut args = vec![".".to_owned()];
    args.extend(words.iter().cloned());
    judge("find", spec, &args).is_ok()
}

/// The primaries as the table reads them (the table's arities: each
/// accepted one-argument primary takes the next word, whatever it looks
/// like; operators are not primaries), shown as find shows them.
fn table_primaries(words: &[String]) -> Vec<String> {
    let mut primaries = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        if ZERO.contains(&word.as_str()) {
            primaries.push(word.clone());
        } else if ONE.iter().any(|(name, _)| name == word) {
            let arg = words.next().cloned().unwrap_or_default();
            primaries.push(format!("{word} {arg}"));
        }
    }
    primaries
}

/// How find shows a primary: `-size +1k` as `-size +1`, `-newermt X` as
/// `-newermt -newermt`; those compare by name only.
fn same_primary(found: &str, expected: &str) -> bool {
    let name = expected.split(' ').next().unwrap_or_default();
    let by_name = name == "-size" || (name.starts_with("-newer") && name.len() == 8);
    if by_name {
        found.split(' ').next() == Some(name)
    } else {
        found == expected
    }
}

/// A scratch folder with the files the expressions name, and a contained
/// kernel on it.
struct Scratch {
    _dir: tempfile::TempDir,
    kernel: Kernel,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        // `)` and `,` before the expression are starting points, to find
        // as to the table: files of those names exist.
        for name in ["a", "README.md", "list", "out", ")", ","] {
            std::fs::write(dir.path().join(name), "x\n").unwrap();
        }
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let kernel = Kernel::builder(dir.path())
            .limits(Limits::default().with_max_output(1 << 20))
            .build()
            .unwrap();
        Self { _dir: dir, kernel }
    }

    /// The primaries of find's `Eval Tree` for `find -D tree . WORDS`, or
    /// its error.
    fn find_primaries(&self, words: &[String]) -> Result<Vec<String>, String> {
        let mut argv: Vec<&str> = vec!["find", "-D", "tree", "."];
        argv.extend(words.iter().map(String::as_str));
        let outcome = self.kernel.run(&argv).unwrap();
        let text = outcome.output.text();
        let errors: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("find: ") && !l.contains("find: warning"))
            .collect();
        if outcome.exit_code() != Some(0) || !errors.is_empty() {
            return Err(text);
        }
        let tree = text
            .split_once("Eval Tree:\n")
            .and_then(|(_, rest)| rest.split_once("Normalized Eval Tree:"))
            .map(|(tree, _)| tree)
            .ok_or_else(|| format!("no tree in {text:?}"))?;
        Ok(tree
            .lines()
            .filter_map(|line| {
                let start = line.find("pred=[")? + "pred=[".len();
                let end = line.rfind("] type=primary")?;
                line.get(start..end).map(str::to_owned)
            })
            .collect())
    }

    /// Checks one expression the table accepted against find's parse.
    fn check(&self, words: &[String]) -> Result<(), TestCaseError> {
        let found = self.find_primaries(words);
        prop_assert!(
            found.is_ok(),
            "jig accepts find . {:?}; GNU find refuses it: {}",
            words,
            found.as_ref().err().cloned().unwrap_or_default()
        );
        let mut found = found.unwrap_or_default();
        for primary in &found {
            let name = primary.split(' ').next().unwrap_or_default();
            prop_assert!(
                allowed(name),
                "jig accepts find . {:?}; GNU find parsed {:?}",
                words,
                primary
            );
        }
        let expected = table_primaries(words);
        if found.len() == expected.len() + 1 && found.last().is_some_and(|p| p == "-print") {
            found.pop();
        }
        let agree = found.len() == expected.len()
            && found.iter().zip(&expected).all(|(f, e)| same_primary(f, e));
        prop_assert!(
            agree,
            "jig accepts find . {:?} as {:?}; GNU find parsed {:?}",
            words,
            expected,
            found
        );
        Ok(())
    }
}

proptest! {
    #![proptest_config(Config { cases: Config::default().cases.max(384), ..Config::default() })]

    /// Whenever the table accepts a generated expression, GNU find parses
    /// the same primaries, with the same arguments, and no other.
    #[test]
    fn generated_expressions_agree_with_gnu_find(words in expression()) {
        if accepts(&words) {
            thread_local! {
                static SCRATCH: Scratch = Scratch::new();
            }
            SCRATCH.with(|scratch| scratch.check(&words))?;
        }
    }
}

/// Expressions the table refuses that find would parse into a forbidden
/// action, and structures find refuses: the table refuses them too.
#[test]
fn listed_expressions_agree_with_gnu_find() {
    let scratch = Scratch::new();
    let words = |text: &str| text.split(' ').map(str::to_owned).collect::<Vec<_>>();
    for accepted in [
        "-name x",
        "( -name x -o -iname y ) -print",
        "! -name -exec -a -printf -delete",
        "-name x , -type f -print0",
        "-maxdepth 2 -type f -newer a",
        "! ! -true",
        "-not ( -path ) ) -prune -o -print",
    ] {
        let w = words(accepted);
        assert!(accepts(&w), "{accepted}");
        scratch.check(&w).unwrap();
    }
    for refused in [
        "-name",
        "-name x -o",
        "( -name x",
        "-name x )",
        "( )",
        "-o -name x",
        "-name x -a -o -type f",
        "!",
        "-name x !",
        "( -o )",
        "-name x , , -type f",
        "-exec id ;",
        "-name x -fprint out",
    ] {
        let w = words(refused);
        assert!(!accepts(&w), "the table accepts find . {refused}");
    }
}
