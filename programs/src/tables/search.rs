//! Searching programs: `grep` (and `egrep`, `fgrep`), `rg`, `find`.
//!
//! Fail closed: each table lists every option it accepts (taken from the
//! program's own `--help`, checked against it by a test), and any other
//! option is refused; find's expression is an allow list of tests,
//! actions and operators.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Table, Unknown, Walk, flag, optional, path, refuse, value};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};
use crate::tables::files::DIGITS;

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
            flag("-E --extended-regexp"),
            flag("-F --fixed-strings"),
            flag("-G --basic-regexp"),
            flag("-P --perl-regexp"),
            flag("-i --ignore-case"),
            flag("--no-ignore-case"),
            flag("-w --word-regexp"),
            flag("-x --line-regexp"),
            flag("-z --null-data"),
            flag("-s --no-messages"),
            flag("-v --invert-match"),
            flag("-b --byte-offset"),
            flag("-n --line-number"),
            flag("--line-buffered"),
            flag("-H --with-filename"),
            flag("-h --no-filename"),
            flag("-o --only-matching"),
            flag("-q --quiet --silent"),
            flag("-a --text"),
            flag("-I"),
            flag("-L --files-without-match"),
            flag("-l --files-with-matches"),
            flag("-c --count"),
            flag("-T --initial-tab"),
            flag("-Z --null"),
            flag("--no-group-separator"),
            flag("-U --binary"),
            DIGITS,
            flag("--help"),
            flag("-V --version"),
        ],
        unknown: Unknown::Refuse(
            "is not one grep's table accepts; use -r, -n, -i, -E, -F, -w, -x, -v, -c, -l, -L, -o, -h, -H, -e PATTERN, -A/-B/-C NUM, -m NUM, --include=GLOB, --exclude=GLOB or --exclude-dir=GLOB",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Then(grep_operands),
    env: &[],
    allows: &[
        "grep --recursive --version TODO src",
        "grep -f patterns.txt README.md",
        "grep -0123456789 TODO README.md",
        "grep -rn TODO src",
        "grep -n 'fn main' src/main.rs",
        "grep -rn -e foo -e bar .",
        "grep -r /etc/passwd src",
        "grep -c x README.md -i",
        "grep -r TODO",
        "grep -rniEclw --include='*.rs' -e x",
        "grep -FGPwxzsvbnHhoqaILlcTZU -e x README.md",
        "grep -5 x README.md",
        "grep -A 1 -B 2 -C 3 -m 4 -d skip -D skip x README.md",
        "grep --extended-regexp --fixed-strings --basic-regexp --perl-regexp x README.md",
        "grep --ignore-case --no-ignore-case --word-regexp --line-regexp --null-data x README.md",
        "grep --no-messages --invert-match --byte-offset --line-number --line-buffered x README.md",
        "grep --with-filename --no-filename --only-matching --quiet --silent --text x README.md",
        "grep --files-without-match --files-with-matches --count --initial-tab --null x README.md",
        "grep --no-group-separator --group-separator=-- --binary --binary-files=text x README.md",
        "grep --regexp=x --file=README.md --max-count=1 --after-context=1 --before-context=1 README.md",
        "grep --context=1 --directories=recurse --devices=skip --label=x -r x src",
        "grep -r --include='*.rs' --exclude='*.md' --exclude-from=README.md --exclude-dir=target x",
        "grep --color=never --colour=auto -r x src",
        "grep --help",
        "grep -V",
    ],
    refuses: &[
        "grep -y x README.md",
        "grep --bogus x README.md",
        "grep -rnj x src",
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
            value("--max-depth"),
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
            flag("--files"),
            flag("--type-list"),
            flag("--auto-hybrid-regex"),
            flag("--binary"),
            flag("--block-buffered"),
            flag("-b --byte-offset"),
            flag("-s --case-sensitive"),
            flag("--column"),
            flag("--no-context-separator"),
            flag("-c --count"),
            flag("--count-matches"),
            flag("--crlf"),
            flag("--debug"),
            flag("-l --files-with-matches"),
            flag("--files-without-match"),
            flag("-F --fixed-strings"),
            flag("--glob-case-insensitive"),
            flag("--heading"),
            flag("-. --hidden"),
            flag("-i --ignore-case"),
            flag("--ignore-file-case-insensitive"),
            flag("--include-zero"),
            flag("-v --invert-match"),
            flag("--json"),
            flag("--line-buffered"),
            flag("-n --line-number"),
            flag("-x --line-regexp"),
            flag("--max-columns-preview"),
            flag("--mmap"),
            flag("-U --multiline"),
            flag("--multiline-dotall"),
            flag("--no-config"),
            flag("-I --no-filename"),
            flag("--no-heading"),
            flag("--no-ignore"),
            flag("--no-ignore-dot"),
            flag("--no-ignore-exclude"),
            flag("--no-ignore-files"),
            flag("--no-ignore-global"),
            flag("--no-ignore-messages"),
            flag("--no-ignore-parent"),
            flag("--no-ignore-vcs"),
            flag("-N --no-line-number"),
            flag("--no-messages"),
            flag("--no-mmap"),
            flag("--no-pcre2-unicode"),
            flag("--no-require-git"),
            flag("--no-unicode"),
            flag("-0 --null"),
            flag("--null-data"),
            flag("--one-file-system"),
            flag("-o --only-matching"),
            flag("--passthru"),
            flag("-P --pcre2"),
            flag("--pcre2-version"),
            flag("-p --pretty"),
            flag("-q --quiet"),
            flag("-S --smart-case"),
            flag("--stats"),
            flag("-a --text"),
            flag("--trim"),
            flag("-u --unrestricted"),
            flag("--vimgrep"),
            flag("-H --with-filename"),
            flag("-w --word-regexp"),
            refuse(
                "-L --follow",
                "follows every symbolic link, also out of the workspace; search without -L",
            ),
            flag("-h --help"),
            flag("-V --version"),
        ],
        unknown: Unknown::Refuse(
            "is not one rg's table accepts; use -n, -i, -S, -w, -F, -l, -c, -o, -v, -u, --hidden, -g GLOB, -t TYPE, -T TYPE, -e PATTERN, -A/-B/-C NUM, -m NUM, --max-depth NUM or --files",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Then(rg_operands),
    env: &[],
    allows: &[
        "rg -n 'impl Display' src",
        "rg --files",
        "rg --version",
        "rg -P 'a+' src",
        "rg -h",
        "rg -t rust TODO",
        "rg -e a -e b src",
        "rg --files src",
        "rg -n --glob '*.rs' -t rust x",
        "rg -bscFliIvnxUNopqSaHw0u. x src",
        "rg --auto-hybrid-regex --binary --block-buffered --byte-offset --case-sensitive x src",
        "rg --column --no-context-separator --count --count-matches --crlf --debug x src",
        "rg --files-with-matches --files-without-match --fixed-strings --glob-case-insensitive x src",
        "rg --heading --hidden --ignore-case --ignore-file-case-insensitive --include-zero x src",
        "rg --invert-match --json --line-buffered --line-number --line-regexp x src",
        "rg --max-columns-preview --mmap --multiline --multiline-dotall --no-config x src",
        "rg --no-filename --no-heading --no-ignore --no-ignore-dot --no-ignore-exclude x src",
        "rg --no-ignore-files --no-ignore-global --no-ignore-messages --no-ignore-parent x src",
        "rg --no-ignore-vcs --no-line-number --no-messages --no-mmap --no-pcre2-unicode x src",
        "rg --no-require-git --no-unicode --null --null-data --one-file-system x src",
        "rg --only-matching --passthru --pcre2 --pretty --quiet --smart-case --stats x src",
        "rg --text --trim --unrestricted --vimgrep --with-filename --word-regexp x src",
        "rg --pcre2-version",
        "rg --type-list",
        "rg -f README.md -g '*.rs' --iglob '*.RS' -T md --type-add 'web:*.html' --type-clear web src",
        "rg -m 1 -A 1 -B 1 -C 1 -M 100 -r x -E utf-8 -j 2 --max-depth 2 x src",
        "rg --ignore-file README.md --pre-glob '*.pdf' --colors 'match:fg:red' --color never x src",
        "rg --sort path --sortr modified --path-separator / --max-filesize 1M x src",
        "rg --dfa-size-limit 1M --regex-size-limit 1M --context-separator '|' x src",
        "rg --field-match-separator : --field-context-separator=- --engine auto x src",
        "rg --regexp=x --file=README.md --glob='*.rs' --type=rust --type-not=md --max-count=1 src",
        "rg --after-context=1 --before-context=1 --context=1 --max-columns=10 --replace=y x src",
        "rg --encoding=utf-8 --threads=1 --max-depth=1 x src",
        "rg --help",
        "rg -V",
    ],
    refuses: &[
        "rg -d 1 x src",
        "rg --bogus x src",
        "rg -nK x src",
        "rg --ignore-file /etc/shadow x src",
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
    let no_pattern = ["-e", "-f", "--files", "--type-list", "-h", "-V"];
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
        unknown: Unknown::Refuse(
            "is not a find option the exec tool knows; use -H or -P before the starting points",
        ),
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
        "find . -maxdepth 2 -type f -name '*.rs' -newer Cargo.toml -print",
        "find -H -P -O2 -D tree -- . -mindepth 1 -depth -empty -prune -o -print0",
        "find . -regextype posix-extended -regex '.*rs' -iregex x -not -name y -a -size +1k -mtime -2 -mmin -5",
        "find . -ipath '*x*' -wholename x -iwholename x -lname x -ilname x -xtype l -perm -u+r",
        "find . -user root -group root -uid 0 -gid 0 -atime 1 -ctime 1 -amin 1 -cmin 1 -used 1",
        "find . -inum 1 -links 1 -fstype ext4 -true -false -executable -readable -writable",
        "find . -nouser -nogroup -ls -quit -d -mount -xdev -noleaf -daystart -warn -nowarn",
        "find . -ignore_readdir_race -noignore_readdir_race -true -and -true -or -true , -anewer x -cnewer x -samefile x",
        "find . '(' -name a ')' -newermt '1 day ago'",
        "find --help",
        "find -version",
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
        "find . -fprintf out.txt '%p'",
        "find . -okdir id \\;",
        "find -L . -name x",
        "find . -context x -exec id \\;",
        "find , -newer /etc/shadow",
        "find -- /etc -name x",
        "find . -name",
        "find . '(' -name x",
        "find . -name x ')'",
        "find . '(' ')'",
        "find . -o -name x",
        "find . -name x -a -o -type f",
        "find . !",
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
            "--" => {
                i += 1;
                break;
            }
            _ => break,
        }
    }
    // Starting points: until the expression starts, as find's own
    // `looks_like_expression` decides for them (`)` and `,` are file names
    // there).
    while let Some(arg) = args.get(i) {
        let starts_expression =
            (arg.starts_with('-') && arg.len() > 1) || matches!(arg.as_str(), "(" | "!");
        if starts_expression {
            break;
        }
        judged.path(program, arg)?;
        i += 1;
    }
    // The expression: each word read as find reads it (an accepted
    // predicate takes the next word as its argument, whatever it looks
    // like), then its structure checked as find's parser checks it.
    let mut tokens = Vec::new();
    while let Some(arg) = args.get(i) {
        let word = arg.as_str();
        i += 1;
        let operand = |i: &mut usize| {
            *i += 1;
            args.get(*i - 1).cloned().ok_or_else(|| {
                Finding::option(
                    program,
                    word,
                    "needs an argument; give it (find . -name '*.rs')",
                )
            })
        };
        let token = match word {
            "!" | "-not" => Token::Not,
            "-a" | "-and" => Token::And,
            "-o" | "-or" => Token::Or,
            "," => Token::Comma,
            "(" => Token::Open,
            ")" => Token::Close,
            w if ZERO.contains(&w) => Token::Primary,
            w if ONE_PLAIN.contains(&w) => {
                operand(&mut i)?;
                Token::Primary
            }
            w if ONE_PATH.contains(&w) => {
                judged.path(program, &operand(&mut i)?)?;
                Token::Primary
            }
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
                let reference = operand(&mut i)?;
                if !w.ends_with('t') {
                    judged.path(program, &reference)?;
                }
                Token::Primary
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
        };
        tokens.push((token, word));
    }
    if let Err(why) = Structure::check(&tokens) {
        return Err(Finding::operand(program, "", why));
    }
    Ok(judged)
}

/// One word of a find expression, by its part in the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// A test, an action or an option (find's tree holds options too).
    Primary,
    /// `!`, `-not`.
    Not,
    /// `-a`, `-and`.
    And,
    /// `-o`, `-or`.
    Or,
    /// `,`.
    Comma,
    /// `(`.
    Open,
    /// `)`.
    Close,
}

/// How deep parentheses may nest (find has no limit; jig keeps its own
/// parser's recursion bounded).
const MAX_NESTING: usize = 64;

/// find's expression grammar, as its parser reads it:
/// `expr := or (',' or)*`, `or := and ('-o' and)*`,
/// `and := unary (['-a'] unary)*`, `unary := '!' unary | '(' expr ')' | primary`.
/// find refuses an empty `()`, an operator with nothing before or after
/// it, and unbalanced parentheses: so does this.
struct Structure<'a> {
    tokens: &'a [(Token, &'a str)],
    at: usize,
    depth: usize,
}

impl<'a> Structure<'a> {
    fn check(tokens: &'a [(Token, &'a str)]) -> Result<(), String> {
        if tokens.is_empty() {
            return Ok(());
        }
        let mut parser = Structure {
            tokens,
            at: 0,
            depth: 0,
        };
        parser.expr()?;
        match parser.tokens.get(parser.at) {
            None => Ok(()),
            Some(_) => {
                Err("the expression has a `)` without its `(`; balance the parentheses".to_owned())
            }
        }
    }

    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).map(|(token, _)| *token)
    }

    fn expr(&mut self) -> Result<(), String> {
        self.or()?;
        while self.peek() == Some(Token::Comma) {
            self.at += 1;
            self.or()?;
        }
        Ok(())
    }

    fn or(&mut self) -> Result<(), String> {
        self.and()?;
        while self.peek() == Some(Token::Or) {
            self.at += 1;
            self.and()?;
        }
        Ok(())
    }

    fn and(&mut self) -> Result<(), String> {
        self.unary()?;
        loop {
            match self.peek() {
                Some(Token::And) => {
                    self.at += 1;
                    self.unary()?;
                }
                Some(Token::Primary | Token::Not | Token::Open) => self.unary()?,
                _ => return Ok(()),
            }
        }
    }

    fn unary(&mut self) -> Result<(), String> {
        while self.peek() == Some(Token::Not) {
            self.at += 1;
        }
        let before = self.at.checked_sub(1).and_then(|at| self.tokens.get(at));
        let after = |word: Option<&(Token, &str)>| match word {
            Some((_, word)) => format!(" after `{word}`"),
            None => String::new(),
        };
        let word = self.tokens.get(self.at).copied();
        self.at += 1;
        match word {
            Some((Token::Primary, _)) => Ok(()),
            Some((Token::Open, _)) => {
                if self.peek() == Some(Token::Close) {
                    return Err(
                        "find refuses empty parentheses `( )`; put a test inside".to_owned()
                    );
                }
                if self.depth >= MAX_NESTING {
                    return Err(format!("parentheses nest at most {MAX_NESTING} deep here"));
                }
                self.depth += 1;
                self.expr()?;
                self.depth -= 1;
                if self.peek() != Some(Token::Close) {
                    return Err("a `(` is never closed; balance the parentheses".to_owned());
                }
                self.at += 1;
                Ok(())
            }
            Some((_, word)) => Err(format!(
                "`{word}` comes where find expects a test{}; give a test (-name, -type...) there",
                after(before)
            )),
            None => Err(format!(
                "the expression ends where find expects a test{}; finish it",
                after(before)
            )),
        }
    }
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
