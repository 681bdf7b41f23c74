//! `sed`: options, and an allow-only grammar of sed scripts, parsed the way
//! GNU sed's own compiler (`compile.c`, sed 4.8 and 4.9) reads them.
//!
//! GNU sed scripts can run commands (`e`, the `e` flag of `s`) and read or
//! write files of any name (`r`, `R`, `w`, `W`, the `w` flag of `s`). Rather
//! than look for those, the grammar below accepts only commands that print,
//! select and edit the stream, and refuses everything else, including every
//! construct it does not read exactly as GNU sed does (when in doubt, it
//! refuses). The run point also adds `--sandbox`, with which GNU sed itself
//! refuses `e`, `r` and `w`.
//!
//! Accepted:
//!
//! - addresses: `N`, `$`, `/RE/` and `\cREc` with the `I` and `M` flags,
//!   `first~step`, and after a comma `N`, `$`, a regex, `+N`, `~N`; `0,/RE/`;
//!   `!` after an address;
//! - commands `p P = l [N] q [N] Q [N] d D n N g G h H x z F`, `s` (flags
//!   `g`, `p`, a number, `i I m M`), `y`, `{ }` blocks, `a`, `i`, `c` with
//!   their text on the same line (no backslash), labels `:name` and the
//!   branches `b`, `t`, `T` (a label of letters, digits and `_`, followed
//!   right away by `;`, a newline or the end of the script);
//! - `;`, newlines and comments (`#` where a command may start, or after a
//!   command that ends as GNU's `read_end_of_cmd` reads it).
//!
//! Multiple `-e` scripts are one program (blocks and labels may span them),
//! each ending where its text ends, as in GNU sed. With `--posix`, the GNU
//! extensions GNU sed then refuses are refused too.

use std::collections::HashSet;

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Table, Unknown, flag, refuse, value};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

pub(crate) const SED: Spec = Spec {
    names: &["sed"],
    class: CommandClass::Read,
    table: Table {
        options: &[
            flag("-n --quiet --silent"),
            value("-e --expression"),
            refuse(
                "-f --file",
                "reads the script from a file, which the exec tool cannot check; give the script as an argument",
            ),
            refuse(
                "-i --in-place",
                "edits files in place; the exec tool only reads: print with sed -n and write files with a tool made for writing",
            ),
            flag("-E -r --regexp-extended"),
            flag("-s --separate"),
            flag("-z --null-data --zero-terminated"),
            flag("-u --unbuffered"),
            value("-l --line-length"),
            flag("--posix"),
            flag("--debug"),
            flag("--sandbox"),
            flag("--follow-symlinks"),
            flag("-b --binary"),
            flag("--help"),
            flag("--version"),
        ],
        unknown: Unknown::Refuse(
            "is not a sed option the exec tool knows; use -n, -e, -E, -s or -z",
        ),
    },
    operands: Operands::Custom,
    judge: Judge::Custom(sed),
    env: &[],
    allows: &[
        // What agents usually type.
        "sed -n '10,20p' README.md",
        "sed -n '/start/,/end/p' README.md",
        "sed 's/a/b/g' README.md",
        "sed -n '$p' README.md",
        "sed -E 's/([0-9]+)/<\\1>/g' README.md",
        "sed '1d' README.md",
        "sed -n '1~2p' README.md",
        "sed = README.md",
        "sed -n 1,20p src/main.rs",
        "sed -n '/fn main/,/^}/p' src/main.rs",
        // Options.
        "sed -n -e '1p;$p' -e 3p README.md",
        "sed --quiet --expression=2p --regexp-extended README.md",
        "sed -rsuz -l 40 --posix --debug --sandbox -n l README.md",
        "sed --follow-symlinks -b p README.md",
        "sed --help",
        "sed --version",
        "sed -e '1{' -e p -e '}' README.md",
        // Addresses.
        "sed -n '$=' README.md",
        "sed -n '\\%/usr%p' README.md",
        "sed -n '/todo/I,+2p;/x/M,~4p' README.md",
        "sed -n '0,/x/p;2,$p;0~3p;1,3~2p' README.md",
        "sed -n '/a/ I ,/b/ !p' README.md",
        "sed '1!G;h;$!d' README.md",
        // Commands.
        "sed 's|/usr|/opt|2' README.md",
        "sed -E 's/(a)/\\1/I;y/abc/xyz/' README.md",
        "sed 's/[/]/x/gpm3;s/a/b/ g p;s/x/y/M' README.md",
        "sed 'y/\\/\\\\\\n/abc/' README.md",
        "sed '/^#/d;1~3{s/x/y/;p}' README.md",
        "sed '$!N;P;D' README.md",
        "sed -n 'h;x;g;G;H;n;N;z;F' README.md",
        "sed '2q;3q5;4Q;5Q 1' README.md",
        "sed -n 'l;l 20' README.md",
        "sed '1a hello' README.md",
        "sed '1i header; not a command' README.md",
        "sed '$c the end' README.md",
        "sed ':a;N;$!ba;s/\\n/ /g' README.md",
        "sed -n -e ':top' -e '/x/{s/x/y/;t top' -e '};T;b' README.md",
        "sed -n 'p # print' README.md",
        "sed -n -e '# just a comment' -e p README.md",
    ],
    refuses: &[
        // The attacks.
        "sed ':a w /tmp/pwned' README.md",
        "sed ':a r /etc/shadow' README.md",
        "sed ':a e id' README.md",
        "sed 's/x/y/w /tmp/pwned' README.md",
        "sed 's/x/y/e' README.md",
        "sed '1e id' README.md",
        "sed '0~1w x' README.md",
        "sed '$!N;w x' README.md",
        "sed 'y/a/b/;w x' README.md",
        "sed -e 'ba w x' -e ':a' README.md",
        "sed -n 's/.*/id/ep' README.md",
        "sed -n '1e exec /bin/sh' README.md",
        "sed 'R /etc/shadow' README.md",
        "sed -n '1w /tmp/pwned' README.md",
        "sed 'W /tmp/pwned' README.md",
        "sed -n '1s/.*/DATA/w /tmp/pwned' README.md",
        "sed 'r x' README.md",
        "sed -e 'a\\' -e 'w x' README.md",
        // Other commands and forms.
        "sed 'F;v' README.md",
        "sed 'L' README.md",
        "sed 'k' README.md",
        "sed '1!!p' README.md",
        "sed '!p' README.md",
        "sed 'b}' README.md",
        "sed ':a}' README.md",
        "sed 'ba' README.md",
        "sed ': ;p' README.md",
        "sed '1:a' README.md",
        "sed '1#x' README.md",
        "sed '1,2q' README.md",
        "sed '0p' README.md",
        "sed '+1p' README.md",
        "sed '1 ~ 2p' README.md",
        "sed '//Ip' README.md",
        "sed 's/a/b/gg' README.md",
        "sed 's/a/b/0' README.md",
        "sed 's/a/b/2 3' README.md",
        "sed 's a b ' README.md",
        "sed 'y/ab/c/' README.md",
        "sed 'y/a\\tb/cde/' README.md",
        "sed '{p' README.md",
        "sed 'p}' README.md",
        "sed '1}' README.md",
        "sed 'p x' README.md",
        "sed 's/a/b' README.md",
        "sed '1a' README.md",
        "sed --posix '1~2p' README.md",
        "sed --posix 's/a/b/I' README.md",
        "sed --posix '0,/x/p' README.md",
        // Options and operands.
        "sed --in-place=.bak -e 's/a/b/' Cargo.toml",
        "sed -i 's/a/b/' Cargo.toml",
        "sed -ni p README.md",
        "sed -f script.sed README.md",
        "sed --file=script.sed README.md",
        "sed -n 1p /etc/passwd",
        "sed -n 1p",
        "sed -n 1p - README.md",
        "sed --wat p README.md",
    ],
};

fn sed(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let walked = crate::options::walk(
        ctx.program,
        &ctx.spec.table,
        args,
        crate::options::Stop::End,
    )?;
    let mut judged = Judged::new(CommandClass::Read);
    let mut operands = walked.operands();
    let mut scripts: Vec<&str> = walked.known("-e").map(Option::unwrap_or_default).collect();
    if scripts.is_empty() {
        match operands.next() {
            Some(script) => scripts.push(script),
            None if walked.has("--help") || walked.has("--version") => return Ok(judged),
            None => {
                return Err(Finding::operand(
                    ctx.program,
                    "",
                    "give a script, for example sed -n 1,20p FILE",
                ));
            }
        }
    }
    let dialect = Dialect {
        posix: walked.has("--posix"),
    };
    check_program(&scripts, dialect).map_err(|refused| {
        let script = scripts.get(refused.script).copied().unwrap_or_default();
        Finding::operand(ctx.program, script, refused.why)
    })?;
    let mut files = 0;
    for operand in operands {
        judged.path(ctx.program, operand)?;
        files += 1;
    }
    if files == 0 {
        return Err(Finding::Stdin {
            program: ctx.program.to_owned(),
        });
    }
    // Unknown options are refused by the table: nothing else to confine.
    Ok(judged)
}

/// How GNU sed reads the script: with `--posix` it refuses its extensions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// `--posix` was given.
    pub(crate) posix: bool,
}

/// Why a program is refused: which script (index among the `-e` scripts)
/// and the guidance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The index of the script the refusal is about.
    pub(crate) script: usize,
    /// The guidance, naming the construct.
    pub(crate) why: String,
}

/// What the grammar accepts, appended to every refusal.
const ALLOWED: &str = "the exec tool accepts only the sed commands p, P, =, l, q, Q, d, D, n, N, g, G, h, H, x, z, F, s (flags g, p, N, i, I, m, M), y, { }, a/i/c with one-line text, and labels with b, t, T";

/// Checks a whole sed program, given as its `-e` scripts in order (or the
/// one script operand).
pub(crate) fn check_program(scripts: &[&str], dialect: Dialect) -> Result<(), Refused> {
    let mut program = Program::default();
    for (index, script) in scripts.iter().enumerate() {
        let mut parser = Parser {
            text: script.as_bytes(),
            at: 0,
            dialect,
            script: index,
        };
        parser.script(&mut program).map_err(|why| Refused {
            script: index,
            why: format!("{why}; {ALLOWED}"),
        })?;
    }
    let last = scripts.len().saturating_sub(1);
    if program.depth > 0 {
        return Err(Refused {
            script: last,
            why: format!("a `{{` block is never closed with `}}`; {ALLOWED}"),
        });
    }
    if let Some((index, label)) = program
        .jumps
        .iter()
        .find(|(_, label)| !program.labels.contains(label))
    {
        return Err(Refused {
            script: *index,
            why: format!("the branch to `{label}` has no `:{label}` label; {ALLOWED}"),
        });
    }
    Ok(())
}

/// Checks one sed script alone (as the only `-e`).
#[cfg(test)]
pub(crate) fn check_script(script: &str) -> Result<(), String> {
    check_program(&[script], Dialect::default()).map_err(|refused| refused.why)
}

/// What spans the scripts of one program.
#[derive(Debug, Default)]
struct Program {
    /// Open `{` blocks.
    depth: usize,
    /// Labels defined with `:`.
    labels: HashSet<String>,
    /// Branch targets (script index, label), checked at the end.
    jumps: Vec<(usize, String)>,
}

/// One address, as far as the checks need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Address {
    /// A line number (`0` is special).
    Line(u64),
    /// `first~step`, `$`, `+N`, `~N`.
    Other,
    /// `/RE/` or `\cREc`.
    Regex,
}

/// Guidance for one refused construct (without the allowed list).
type Why = String;

/// The longest number accepted (GNU reads numbers into an unsigned long;
/// longer ones would wrap).
const MAX_DIGITS: usize = 9;

struct Parser<'a> {
    /// The script.
    text: &'a [u8],
    /// The next byte to read.
    at: usize,
    /// How GNU sed reads it.
    dialect: Dialect,
    /// The script's index among the program's scripts.
    script: usize,
}

/// GNU's `ISSPACE` (the C locale's `isspace`).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A delimiter of `s`, `y` or `\cREc` the grammar accepts: ASCII
/// punctuation other than the backslash (GNU takes any byte but newline;
/// letters, digits and blanks are refused as too easy to misread).
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_punctuation() && b != b'\\'
}

/// A byte of a label the grammar accepts.
fn is_label_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Shows a byte in guidance.
fn shown(b: u8) -> String {
    match b {
        b'\n' => "a newline".to_owned(),
        b' ' => "a blank".to_owned(),
        b'\t' => "a tab".to_owned(),
        b if b.is_ascii_graphic() => format!("`{}`", char::from(b)),
        b => format!("the byte {b:#04x}"),
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek();
        if b.is_some() {
            self.at += 1;
        }
        b
    }

    /// GNU's `in_nonblank`, without reading the non-blank.
    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// Reads the script, one command at a time (GNU's `compile_program`).
    fn script(&mut self, program: &mut Program) -> Result<(), Why> {
        loop {
            while self.peek().is_some_and(|b| b == b';' || is_space(b)) {
                self.at += 1;
            }
            let Some(first) = self.peek() else {
                return Ok(());
            };
            if first == b'#' {
                self.comment();
                continue;
            }
            self.command(program)?;
        }
    }

    /// A comment: to the end of the line.
    fn comment(&mut self) {
        while !matches!(self.bump(), None | Some(b'\n')) {}
    }

    fn command(&mut self, program: &mut Program) -> Result<(), Why> {
        let posix = self.dialect.posix;
        let first = self.address(false)?;
        let mut second = None;
        if first.is_some() {
            self.blanks();
            if self.peek() == Some(b',') {
                self.at += 1;
                self.blanks();
                second = Some(
                    self.address(true)?
                        .ok_or("a comma must be followed by a second address")?,
                );
                self.blanks();
            }
            if first == Some(Address::Line(0)) && (second != Some(Address::Regex) || posix) {
                return Err(if posix {
                    "line 0 is not an address with --posix".to_owned()
                } else {
                    "line 0 is an address only in `0,/RE/`".to_owned()
                });
            }
        }
        if self.peek() == Some(b'!') {
            if first.is_none() {
                return Err("`!` must follow an address".to_owned());
            }
            self.at += 1;
            self.blanks();
            if self.peek() == Some(b'!') {
                return Err("an address takes at most one `!`".to_owned());
            }
        }
        let addressed = first.is_some();
        let two = second.is_some();
        let Some(c) = self.bump() else {
            return Err("an address without a command".to_owned());
        };
        let extension = |what: &str| -> Result<(), Why> {
            if posix {
                Err(format!("{what} is a GNU extension, refused with --posix"))
            } else {
                Ok(())
            }
        };
        match c {
            b'#' => Err("a comment cannot follow an address".to_owned()),
            b'{' => {
                program.depth += 1;
                Ok(())
            }
            b'}' => {
                if addressed {
                    return Err("`}` takes no address".to_owned());
                }
                if program.depth == 0 {
                    return Err("`}` without an open `{`".to_owned());
                }
                program.depth -= 1;
                self.end_of_command("}")
            }
            b':' => {
                if addressed {
                    return Err("a `:` label takes no address".to_owned());
                }
                let label = self.label(':')?;
                if label.is_empty() {
                    return Err("`:` needs a label name".to_owned());
                }
                program.labels.insert(label);
                Ok(())
            }
            b'b' | b't' | b'T' => {
                if c == b'T' {
                    extension("the `T` command")?;
                }
                let label = self.label(char::from(c))?;
                if !label.is_empty() {
                    // Checked once every script is read.
                    program.jumps.push((self.script, label));
                }
                Ok(())
            }
            b'q' | b'Q' | b'l' => {
                if c == b'Q' {
                    extension("the `Q` command")?;
                }
                if two && c != b'l' {
                    return Err(format!("`{}` takes at most one address", char::from(c)));
                }
                if two && posix {
                    return Err("`l` takes one address with --posix".to_owned());
                }
                self.blanks();
                if !posix && self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.number()?;
                }
                self.end_of_command(&char::from(c).to_string())
            }
            b'=' => {
                if two && posix {
                    return Err("`=` takes one address with --posix".to_owned());
                }
                self.end_of_command("=")
            }
            b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'x' => {
                self.end_of_command(&char::from(c).to_string())
            }
            b'z' | b'F' => {
                extension(&format!("the `{}` command", char::from(c)))?;
                self.end_of_command(&char::from(c).to_string())
            }
            b'a' | b'i' | b'c' => {
                extension("text on the same line as `a`, `i` or `c`")?;
                self.text_line(char::from(c))
            }
            b's' => self.substitute(),
            b'y' => self.transliterate(),
            b'e' => Err("the `e` command runs a shell command".to_owned()),
            b'r' | b'R' => Err(format!(
                "the `{}` command reads a file of any name",
                char::from(c)
            )),
            b'w' | b'W' => Err(format!("the `{}` command writes a file", char::from(c))),
            b'v' => Err("the `v` command is not accepted".to_owned()),
            b'L' => Err("the `L` command is obsolete and not accepted".to_owned()),
            other => Err(format!("{} is not an accepted command", shown(other))),
        }
    }

    /// An address, or `None` if none starts here (GNU's `compile_address`;
    /// `second` after a comma).
    fn address(&mut self, second: bool) -> Result<Option<Address>, Why> {
        let posix = self.dialect.posix;
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        match c {
            b'0'..=b'9' => {
                let line = self.number()?;
                if self.peek() == Some(b'~') && !posix {
                    self.at += 1;
                    if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                        return Err("`first~step` needs a step".to_owned());
                    }
                    if self.number()? == 0 {
                        return Err("`first~step` needs a step above 0".to_owned());
                    }
                    return Ok(Some(Address::Other));
                }
                Ok(Some(Address::Line(line)))
            }
            b'+' | b'~' => {
                if !second {
                    return Err(format!(
                        "`{}N` is an address only after a comma",
                        char::from(c)
                    ));
                }
                if posix {
                    return Err(format!(
                        "`addr,{}N` is a GNU extension, refused with --posix",
                        char::from(c)
                    ));
                }
                self.at += 1;
                if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(format!("`{}` needs a number after it", char::from(c)));
                }
                self.number()?;
                Ok(Some(Address::Other))
            }
            b'$' => {
                self.at += 1;
                Ok(Some(Address::Other))
            }
            b'/' | b'\\' => {
                self.at += 1;
                let delimiter = if c == b'\\' {
                    self.bump()
                        .filter(|d| is_delimiter(*d))
                        .ok_or("`\\` before an address must be followed by a punctuation delimiter, as in \\%RE%")?
                } else {
                    b'/'
                };
                let empty = self.delimited(delimiter, true)?;
                let mut flags = false;
                loop {
                    self.blanks();
                    match self.peek() {
                        Some(b'I' | b'M') if !posix => {
                            self.at += 1;
                            flags = true;
                        }
                        _ => break,
                    }
                }
                if empty && flags {
                    return Err("an empty regex takes no flags".to_owned());
                }
                Ok(Some(Address::Regex))
            }
            _ if second => Err("a comma must be followed by a second address".to_owned()),
            _ => Ok(None),
        }
    }

    /// Digits, as a number (GNU's `in_integer`).
    fn number(&mut self) -> Result<u64, Why> {
        let start = self.at;
        let mut value: u64 = 0;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            self.at += 1;
            if self.at - start > MAX_DIGITS {
                return Err(format!("numbers have at most {MAX_DIGITS} digits"));
            }
            value = value * 10 + u64::from(b - b'0');
        }
        Ok(value)
    }

    /// The end of a command (GNU's `read_end_of_cmd`): blanks, then `}` or
    /// `#` (left for the next command), or `;`, a newline or the end.
    fn end_of_command(&mut self, command: &str) -> Result<(), Why> {
        self.blanks();
        match self.peek() {
            None | Some(b'}' | b'#') => Ok(()),
            Some(b';' | b'\n') => {
                self.at += 1;
                Ok(())
            }
            Some(b) => Err(format!(
                "{} after `{command}`: end each command with `;` or a newline",
                shown(b)
            )),
        }
    }

    /// A label of `:`, `b`, `t`, `T` (GNU's `read_label`). GNU 4.9 ends a
    /// label at a blank, `;`, `}`, `#` or a newline, and reads what follows
    /// as the next command; older GNU seds end it at fewer of these. The
    /// grammar accepts only a label (possibly empty after `b`, `t`, `T`)
    /// followed right away by `;`, a newline or the end, which every
    /// version reads the same way.
    fn label(&mut self, command: char) -> Result<String, Why> {
        self.blanks();
        let start = self.at;
        while self.peek().is_some_and(is_label_byte) {
            self.at += 1;
        }
        let label =
            String::from_utf8_lossy(self.text.get(start..self.at).unwrap_or_default()).into_owned();
        match self.peek() {
            None => Ok(label),
            Some(b';' | b'\n') => {
                self.at += 1;
                Ok(label)
            }
            Some(b) => Err(format!(
                "{} after the label of `{command}`: a label is letters, digits and `_`, and ends right away with `;` or a newline (GNU sed reads `:a w FILE` as a label and a command)",
                shown(b)
            )),
        }
    }

    /// The one-line text of `a`, `i`, `c`: to the end of the line, without
    /// a backslash (which would continue it, possibly into the next `-e`).
    fn text_line(&mut self, command: char) -> Result<(), Why> {
        self.blanks();
        match self.peek() {
            None | Some(b'\n') => {
                return Err(format!("`{command}` needs its text on the same line"));
            }
            _ => {}
        }
        while let Some(b) = self.bump() {
            match b {
                b'\n' => return Ok(()),
                b'\\' => {
                    return Err(format!(
                        "a backslash in the text of `{command}` (continuation lines are not accepted)"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads to the unescaped `delimiter` and past it (GNU's
    /// `match_slash`); in a regex, a bracket expression is read whole (the
    /// delimiter and `\` are literal inside it). Returns whether the
    /// section is empty.
    fn delimited(&mut self, delimiter: u8, regex: bool) -> Result<bool, Why> {
        let start = self.at;
        let unterminated = || {
            format!(
                "a section delimited by `{}` is not closed on its line",
                char::from(delimiter)
            )
        };
        loop {
            match self.bump() {
                None | Some(b'\n') => return Err(unterminated()),
                Some(b) if b == delimiter => return Ok(self.at - 1 == start),
                Some(b'\\') => {
                    if self.bump().is_none() {
                        return Err(unterminated());
                    }
                }
                Some(b'[') if regex => self.bracket().ok_or_else(unterminated)?,
                Some(_) => {}
            }
        }
    }

    /// The rest of a bracket expression after its `[` (GNU's
    /// `snarf_char_class`); `None` if the line or script ends first.
    fn bracket(&mut self) -> Option<()> {
        let mut b = self.bump()?;
        if b == b'^' {
            b = self.bump()?;
        }
        if b == b']' {
            b = self.bump()?;
        }
        // 0: outside [. [: [=; 1: after `[`; 2: inside; 3: after the
        // closing `.`, `:` or `=`.
        let mut state = 0u8;
        let mut class = 0u8;
        loop {
            match b {
                b'\n' => return None,
                b'.' | b':' | b'=' if state == 1 => {
                    class = b;
                    state = 2;
                }
                b'.' | b':' | b'=' if state == 2 && b == class => state = 3,
                b'[' => {
                    if state == 0 {
                        state = 1;
                    }
                }
                b']' if state <= 1 => return Some(()),
                b']' if state == 3 => state = 0,
                _ => state &= !1,
            }
            b = self.bump()?;
        }
    }

    /// `s/RE/REPLACEMENT/FLAGS` (GNU's `mark_subst_opts` for the flags).
    fn substitute(&mut self) -> Result<(), Why> {
        let delimiter = self
            .bump()
            .filter(|d| is_delimiter(*d))
            .ok_or("`s` must be followed by a punctuation delimiter, as in s/a/b/")?;
        let empty = self.delimited(delimiter, true)?;
        self.delimited(delimiter, false)?;
        let posix = self.dialect.posix;
        let (mut global, mut print, mut number, mut modifiers) = (false, false, false, false);
        loop {
            self.blanks();
            let Some(flag) = self.peek() else {
                break;
            };
            match flag {
                b'g' if global => return Err("`s` takes the `g` flag once".to_owned()),
                b'p' if print => return Err("`s` takes the `p` flag once".to_owned()),
                b'g' => global = true,
                b'p' => print = true,
                b'i' | b'I' | b'm' | b'M' if posix => {
                    return Err(format!(
                        "the `{}` flag of `s` is a GNU extension, refused with --posix",
                        char::from(flag)
                    ));
                }
                b'i' | b'I' | b'm' | b'M' => modifiers = true,
                b'0'..=b'9' => {
                    if number {
                        return Err("`s` takes one number flag".to_owned());
                    }
                    if self.number()? == 0 {
                        return Err("the number flag of `s` must be above 0".to_owned());
                    }
                    number = true;
                    continue;
                }
                b'e' => {
                    return Err("the `e` flag of `s` runs the result as a shell command".to_owned());
                }
                b'w' => return Err("the `w` flag of `s` writes a file".to_owned()),
                b'}' | b'#' => break,
                b';' | b'\n' => {
                    self.at += 1;
                    break;
                }
                other => return Err(format!("{} is not an accepted flag of `s`", shown(other))),
            }
            self.at += 1;
        }
        if empty && modifiers {
            return Err("`s` with an empty regex takes no `i`, `I`, `m` or `M` flag".to_owned());
        }
        Ok(())
    }

    /// `y/SOURCE/DEST/`: both the same length, escapes only `\\`, `\n` and
    /// the delimiter.
    fn transliterate(&mut self) -> Result<(), Why> {
        let delimiter = self
            .bump()
            .filter(|d| is_delimiter(*d))
            .ok_or("`y` must be followed by a punctuation delimiter, as in y/abc/xyz/")?;
        let source = self.y_part(delimiter)?;
        let dest = self.y_part(delimiter)?;
        if source != dest {
            return Err("the two strings of `y` must have the same length".to_owned());
        }
        self.end_of_command("y")
    }

    /// One string of `y`, its length in characters.
    fn y_part(&mut self, delimiter: u8) -> Result<usize, Why> {
        let mut length = 0;
        loop {
            match self.bump() {
                None | Some(b'\n') => {
                    return Err(format!(
                        "a `y` string delimited by `{}` is not closed on its line",
                        char::from(delimiter)
                    ));
                }
                Some(b) if b == delimiter => return Ok(length),
                Some(b'\\') => match self.bump() {
                    Some(b) if b == b'\\' || b == b'n' || b == delimiter => {}
                    _ => {
                        return Err(
                            "in `y`, a backslash may only escape `\\`, `n` or the delimiter"
                                .to_owned(),
                        );
                    }
                },
                // A UTF-8 continuation byte is part of the previous
                // character.
                Some(b) if b & 0xc0 == 0x80 => continue,
                Some(_) => {}
            }
            length += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Dialect, check_program, check_script};

    #[test]
    fn scripts() {
        for ok in [
            "p",
            "1,20p",
            "$!N;P;D",
            "s/a/b/3g",
            "/x/I,+2d",
            "0~4p",
            "\\%a%p",
            "{p;p}",
            "2q5",
            "y/a\\/b/c\\/d/",
            ":a;N;$!ba;s/\\n/ /g",
            "b;p",
            "b end;p;:end",
            "t\np",
            "s/[/]/x/",
            "s/[^]/]/x/",
            "s/[[:alpha:]/]/x/",
            "s/[[.].]/]/x/",
            "s/a/b/ g ; p",
            "y/é/e/",
            "1a hello; w x",
            "#n\np",
            "/x/ I,/y/M!p",
            "1,+0p",
            "p#c",
        ] {
            assert_eq!(check_script(ok), Ok(()), "{ok}");
        }
        for bad in [
            "e",
            "1e id",
            "s/a/b/e",
            "s/a/b/w x",
            "s/a/b/ w x",
            "r x",
            "1R x",
            "w x",
            "W x",
            "s/a/b",
            "/x",
            "1",
            "k",
            "s/a/b/;e",
            "{e}",
            "$!{r x\n}",
            ":a w x",
            ":a r x",
            ":a e id",
            ":a\tw x",
            ":a#x",
            "ba w x\n:a",
            "b a }",
            "b}",
            "ba",
            "0~1w x",
            "$!N;w x",
            "y/a/b/;w x",
            "s/[/]/x",
            "s/[/x/",
            "s/a/b/gg",
            "s/a/b/pp",
            "s/a/b/0",
            "s/a/b/1 2",
            "1a\\",
            "1a\\\nw x",
            "a",
            "1,2Q",
            "}",
            "{",
            "1 ~2p",
            "+3p",
            "1,p",
            "0p",
            "0,5p",
            "//Mp",
            "s//x/I",
            "1!!p",
            "!p",
            "1#",
            "1:a",
            "y/ab/a/",
            "y/a\\tb/abc/",
            "q 1234567890",
            "v",
            "L",
            "s\na\nb\n",
        ] {
            assert!(check_script(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn programs_span_scripts() {
        let program = |scripts: &[&str]| check_program(scripts, Dialect::default());
        assert!(program(&["1{", "p", "}"]).is_ok());
        assert!(program(&[":a", "N;ba"]).is_ok());
        assert!(program(&["s/a/b/", "g"]).is_ok());
        // A backslash ending a script does not escape the next one.
        assert!(program(&["s/a/b\\", "/"]).is_err());
        assert!(program(&["1{", "p"]).is_err());
        assert!(program(&["1a\\", "w x"]).is_err());
        let refused = program(&["p", "bx"]).unwrap_err();
        assert!(refused.why.contains("`x`"), "{refused:?}");
    }

    #[test]
    fn posix_refuses_the_extensions() {
        let posix = Dialect { posix: true };
        for bad in [
            "1~2p", "1,+2p", "0,/x/p", "/x/Ip", "s/a/b/I", "q5", "l 5", "z", "F", "Q", "T", "1a x",
            "1,2=", "1,2l",
        ] {
            assert!(check_program(&[bad], posix).is_err(), "{bad}");
        }
        for ok in [
            "1,5p", "/x/,$d", "s/a/b/2g", ":a;N;ba", "q", "l", "1=", "y/a/b/",
        ] {
            assert_eq!(check_program(&[ok], posix), Ok(()), "{ok}");
        }
    }
}
