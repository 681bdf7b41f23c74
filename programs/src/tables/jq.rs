//! `jq`, the JSON processor: read-only, with its program text judged.
//!
//! jq 1.6 reads its arguments with its own parser, not `getopt`: short
//! letters may be stacked (`-rc`), `-L` is read only as the first letter
//! of a word, long options must be spelt in full, two options take two
//! words (`--arg NAME VALUE`), and the first word that is not an option is
//! the program, the others input files. The table walks them the same way.
//!
//! What is refused, and why:
//!
//! - `-L DIR` / `--library-path`: modules from any folder;
//! - `import`, `include` and `modulemeta` in the program text: they read
//!   modules and data files (`.jq`, `.json`) from the library search path,
//!   which a module's own metadata can point anywhere
//!   (`import "x" as $x {search: "/"}`);
//! - `-f FILE` / `--from-file`: the program would come from a file, whose
//!   text judging cannot see (it opens no file), so its imports could not be
//!   refused; pass the program as the argument;
//! - `--` (jq 1.6 refuses it before the program and stops reading options
//!   after it; one less place where jig and jq could disagree), `-` (standard
//!   input, always empty here), and every option the table does not list.
//!
//! `--rawfile` and `--slurpfile` read a file: it is confined like an input
//! file. `$__loc__`, `input_filename` and `input_line_number` only name the
//! program's own text and inputs. `env` and `$ENV` are allowed: they show
//! the run's own environment, which is the kernel's small allow list (never
//! the parent's variables, so no credential of the integrator). `HOME` is
//! pinned to a folder that does not exist, so jq never loads a `~/.jq`
//! library.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Table, Unknown};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

pub(crate) const JQ: Spec = Spec {
    names: &["jq"],
    class: CommandClass::Read,
    // Only for the help oracle and the option listings: the judge walks
    // the argv itself ([`jq`]).
    table: Table {
        options: &[
            crate::options::flag("-c"),
            crate::options::flag("-n"),
            crate::options::flag("-e"),
            crate::options::flag("-s"),
            crate::options::flag("-r"),
            crate::options::flag("-R"),
            crate::options::flag("-C"),
            crate::options::flag("-M"),
            crate::options::flag("-S"),
            crate::options::flag("--tab"),
            crate::options::value("--arg"),
            crate::options::value("--argjson"),
            crate::options::path("--slurpfile"),
            crate::options::path("--rawfile"),
            crate::options::flag("--args"),
            crate::options::flag("--jsonargs"),
        ],
        unknown: Unknown::Refuse(UNKNOWN),
    },
    operands: Operands::Custom,
    judge: Judge::Custom(jq),
    env: &[("HOME", "/nonexistent")],
    allows: &[
        "jq .name package.json",
        "jq -r '.items[] | .id' data.json",
        "jq -rc .a a.json b.json",
        "jq -n '1 + 1'",
        "jq -e -s -R -C -M -S --tab . data.json",
        "jq --arg name x --argjson n 5 '{($name): $n}' -n",
        "jq --rawfile text README.md --slurpfile all data.json -n '$text'",
        "jq -n --args '$ARGS' a b",
        "jq -n --jsonargs '$ARGS' 1 2",
        "jq '.import, .include, $__loc__, input_filename' data.json",
        "jq -n 'env.PATH, $ENV.HOME'",
    ],
    refuses: &[
        "jq -L /etc '.' data.json",
        "jq -L/etc . data.json",
        "jq --library-path /etc . data.json",
        "jq 'import \"passwd\" as $p {search: \"/etc\"}; $p' -n",
        "jq -n 'include \"x\" {search: \"/\"}; 1'",
        "jq -n '\"x\" | modulemeta'",
        "jq -f prog.jq data.json",
        "jq -rf prog.jq data.json",
        "jq --from-file prog.jq data.json",
        "jq --rawfile a /etc/shadow -n '$a'",
        "jq --slurpfile a ../outside.json -n '$a'",
        "jq -Rr . /etc/shadow",
        "jq . symlink_to_root/etc/passwd",
        "jq . -",
        "jq .",
        "jq -- . data.json",
        "jq --arg x",
        "jq --rawfile a",
        "jq --run-tests tests.txt",
        "jq --help",
        "jq --raw-out . data.json",
        "jq -rX . data.json",
    ],
};

const UNKNOWN: &str = "is not one jq's table accepts; use -r, -c, -n, -s, -e, -S, --tab, --arg NAME VALUE, --argjson NAME JSON, --rawfile NAME FILE or --slurpfile NAME FILE";
const LIBRARY: &str = "adds a folder of modules, which can be outside the workspace; write the whole program as the argument";
const FROM_FILE: &str = "reads the program from a file, whose imports jig cannot check without opening it; pass the program as the argument";

/// The letters jq 1.6 reads stacked in one word (`-rc`).
const LETTERS: &str = "cnesrRCMS";

/// Words of the program text that read modules or data files from the
/// library search path.
const MODULE_WORDS: &[&str] = &["import", "include", "modulemeta"];

fn jq(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let program = ctx.program;
    let mut judged = Judged::new(CommandClass::Read);
    let mut filter: Option<&str> = None;
    let mut null_input = false;
    let mut inputs = 0;
    let mut words = args.iter();
    let missing = |option: &str| {
        Finding::option(
            program,
            option,
            "lacks its values; give them: --arg NAME VALUE, --rawfile NAME FILE",
        )
    };
    while let Some(arg) = words.next() {
        if arg == "--" {
            return Err(Finding::option(
                program,
                arg,
                "is read differently by jq versions; leave it out (a program starting with `-` can start with a blank)",
            ));
        }
        if arg == "-" || !arg.starts_with('-') {
            if filter.is_none() {
                filter = Some(arg);
            } else {
                judged.path(program, arg)?;
                inputs += 1;
            }
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            match long {
                "tab" | "args" | "jsonargs" => {}
                "arg" | "argjson" => {
                    words.next().ok_or_else(|| missing(arg))?;
                    words.next().ok_or_else(|| missing(arg))?;
                }
                "rawfile" | "slurpfile" => {
                    words.next().ok_or_else(|| missing(arg))?;
                    let file = words.next().ok_or_else(|| missing(arg))?;
                    judged.path(program, file)?;
                }
                "library-path" => return Err(Finding::option(program, arg, LIBRARY)),
                "from-file" => return Err(Finding::option(program, arg, FROM_FILE)),
                _ => return Err(Finding::option(program, arg, UNKNOWN)),
            }
            continue;
        }
        let letters = &arg[1..];
        if letters.starts_with('L') {
            return Err(Finding::option(program, "-L", LIBRARY));
        }
        for letter in letters.chars() {
            match letter {
                'f' => return Err(Finding::option(program, "-f", FROM_FILE)),
                'n' => null_input = true,
                c if LETTERS.contains(c) => {}
                _ => return Err(Finding::option(program, arg, UNKNOWN)),
            }
        }
    }
    let Some(filter) = filter else {
        return Err(Finding::operand(
            program,
            "",
            "give the program and the files it reads: jq '.name' FILE.json",
        ));
    };
    if let Some(word) = module_word(filter) {
        return Err(Finding::operand(
            program,
            filter,
            format!(
                "uses `{word}`, which reads modules or data files from outside the program; \
                 write the whole program as the argument, and pass text with --arg NAME VALUE"
            ),
        ));
    }
    if inputs == 0 && !null_input {
        return Err(Finding::Stdin {
            program: program.to_owned(),
        });
    }
    Ok(judged)
}

/// The first word of [`MODULE_WORDS`] that `filter` holds as a whole word
/// (in a string too: refusing more is safe), unless it is a field name
/// after `.` (`.import`).
fn module_word(filter: &str) -> Option<&'static str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    MODULE_WORDS.iter().copied().find(|word| {
        filter.match_indices(word).any(|(at, _)| {
            let before = filter[..at].chars().next_back();
            let after = filter[at + word.len()..].chars().next();
            !before.is_some_and(|c| ident(c) || c == '.' || c == '$') && !after.is_some_and(ident)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::module_word;

    #[test]
    fn module_words() {
        assert_eq!(module_word("import \"a\" as a; ."), Some("import"));
        assert_eq!(module_word(".a|include\"x\";1"), Some("include"));
        assert_eq!(module_word("\"x\"|modulemeta"), Some("modulemeta"));
        assert_eq!(module_word(".import"), None);
        assert_eq!(module_word(".a.include"), None);
        assert_eq!(module_word("$import"), None);
        assert_eq!(module_word("imports"), None);
        assert_eq!(module_word("reimport"), None);
    }
}
