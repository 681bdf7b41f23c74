//! `sed`: options, and a scanner of sed scripts that lets through only
//! commands that print, select and substitute.
//!
//! GNU sed scripts can run commands (`e`, the `e` flag of `s`) and read or
//! write files of any name (`r`, `R`, `w`, `W`, the `w` flag of `s`). The
//! scanner parses the script (addresses, commands, `s` and `y` with any
//! delimiter, labels, blocks) and refuses those commands; a script it cannot
//! parse is refused too.

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
            flag("-z --null-data"),
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
        "sed -n 1,20p src/main.rs",
        "sed -n '/fn main/,/^}/p' src/main.rs",
        "sed 's/a/b/g' README.md",
        "sed -n -e '1p;$p' -e 3p README.md",
        "sed 's|/usr|/opt|2' README.md",
        "sed -E 's/(a)/\\1/I;y/abc/xyz/' README.md",
        "sed '/^#/d;1~3{s/x/y/;p}' README.md",
        "sed -n '$=' README.md",
        "sed '1a hello' README.md",
        "sed ':a;N;$!ba;s/\\n/ /g' README.md",
    ],
    refuses: &[
        "sed -n 's/.*/id/ep' README.md",
        "sed -n '1e exec /bin/sh' README.md",
        "sed 'R /etc/shadow' README.md",
        "sed -n '1w /tmp/pwned' README.md",
        "sed 'W /tmp/pwned' README.md",
        "sed -n '1s/.*/DATA/w /tmp/pwned' README.md",
        "sed 'r x' README.md",
        "sed --in-place=.bak -e 's/a/b/' Cargo.toml",
        "sed -i 's/a/b/' Cargo.toml",
        "sed -ni p README.md",
        "sed -f script.sed README.md",
        "sed -n 1p /etc/passwd",
        "sed -n 1p",
        "sed 's/a/b' README.md",
        "sed 'F' README.md",
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
    for script in scripts {
        check_script(script).map_err(|why| Finding::operand(ctx.program, script, why))?;
    }
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

/// Why a script is refused, as guidance.
type Why = String;

/// Checks one sed script.
pub(crate) fn check_script(script: &str) -> Result<(), Why> {
    let mut p = Parser {
        chars: script.chars().collect(),
        at: 0,
    };
    p.script()
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

const ALLOWED: &str = "use only the commands p, d, =, q, Q, n, N, P, D, g, G, h, H, x, l, z, a, i, c, b, t, T, s and y";

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += 1;
        c
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.at += 1;
        }
    }

    fn script(&mut self) -> Result<(), Why> {
        loop {
            self.skip_blanks();
            match self.peek() {
                None => return Ok(()),
                Some(';' | '\n' | '}') => {
                    self.at += 1;
                    continue;
                }
                Some('#') => {
                    while !matches!(self.bump(), None | Some('\n')) {}
                    continue;
                }
                Some(_) => {}
            }
            self.address()?;
            self.skip_blanks();
            if self.peek() == Some(',') {
                self.at += 1;
                self.skip_blanks();
                self.address()?;
            }
            self.skip_blanks();
            while self.peek() == Some('!') {
                self.at += 1;
                self.skip_blanks();
            }
            self.command()?;
        }
    }

    /// One address: a number, `first~step`, `$`, `/re/` or `\cREc` with
    /// optional `I`/`M`, `+N` or `~N` after a comma. Absent is fine.
    fn address(&mut self) -> Result<(), Why> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                self.digits();
                if self.peek() == Some('~') {
                    self.at += 1;
                    self.digits();
                }
            }
            Some('+' | '~') => {
                self.at += 1;
                self.digits();
            }
            Some('$') => self.at += 1,
            Some('/') => {
                self.at += 1;
                self.delimited('/')?;
                self.regex_flags();
            }
            Some('\\') => {
                self.at += 1;
                let delimiter = self.bump().ok_or("the script ends inside an address")?;
                self.delimited(delimiter)?;
                self.regex_flags();
            }
            _ => {}
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn regex_flags(&mut self) {
        while matches!(self.peek(), Some('I' | 'M')) {
            self.at += 1;
        }
    }

    /// Skips to the unescaped `delimiter`, past it.
    fn delimited(&mut self, delimiter: char) -> Result<(), Why> {
        loop {
            match self.bump() {
                None => {
                    return Err(format!(
                        "the script has an unterminated `{delimiter}` section"
                    ));
                }
                Some('\\') => {
                    self.bump();
                }
                Some(c) if c == delimiter => return Ok(()),
                Some(_) => {}
            }
        }
    }

    /// Skips to the end of the command (`;`, newline, `}` or the end).
    fn end_of_command(&mut self) -> Result<(), Why> {
        self.skip_blanks();
        match self.peek() {
            None | Some(';' | '\n' | '}' | '#') => Ok(()),
            Some(c) => Err(format!("unexpected `{c}` after a command; {ALLOWED}")),
        }
    }

    /// A label or text argument: to the end of the line (or `;` for labels).
    fn rest_of_line(&mut self, stop_at_semicolon: bool) {
        while let Some(c) = self.peek() {
            if c == '\n' || (stop_at_semicolon && c == ';') {
                break;
            }
            self.at += 1;
        }
    }

    fn command(&mut self) -> Result<(), Why> {
        let Some(c) = self.bump() else {
            return Err(format!("an address without a command; {ALLOWED}"));
        };
        match c {
            '{' => Ok(()),
            'p' | 'd' | '=' | 'n' | 'N' | 'P' | 'D' | 'g' | 'G' | 'h' | 'H' | 'x' | 'z' => {
                self.end_of_command()
            }
            'q' | 'Q' | 'l' | 'L' => {
                self.skip_blanks();
                self.digits();
                self.end_of_command()
            }
            ':' | 'b' | 't' | 'T' => {
                self.rest_of_line(true);
                Ok(())
            }
            'a' | 'i' | 'c' => {
                self.rest_of_line(false);
                Ok(())
            }
            's' => self.substitute(),
            'y' => {
                let delimiter = self.bump().ok_or("`y` without its arguments")?;
                self.delimited(delimiter)?;
                self.delimited(delimiter)?;
                self.end_of_command()
            }
            'e' => Err(format!("the `e` command runs a shell command; {ALLOWED}")),
            'r' | 'R' => Err(format!(
                "the `{c}` command reads a file of any name; {ALLOWED}"
            )),
            'w' | 'W' => Err(format!("the `{c}` command writes a file; {ALLOWED}")),
            other => Err(format!("the `{other}` command is not allowed; {ALLOWED}")),
        }
    }

    fn substitute(&mut self) -> Result<(), Why> {
        let delimiter = self
            .bump()
            .filter(|d| *d != '\n' && *d != '\\')
            .ok_or("`s` without a delimiter")?;
        self.delimited(delimiter)?;
        self.delimited(delimiter)?;
        while let Some(flag) = self.peek() {
            match flag {
                'g' | 'p' | 'i' | 'I' | 'm' | 'M' => self.at += 1,
                c if c.is_ascii_digit() => self.at += 1,
                'e' => {
                    return Err(format!(
                        "the `e` flag of `s` runs the result as a shell command; {ALLOWED}"
                    ));
                }
                'w' => return Err(format!("the `w` flag of `s` writes a file; {ALLOWED}")),
                _ => break,
            }
        }
        self.end_of_command()
    }
}

#[cfg(test)]
mod tests {
    use super::check_script;

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
        ] {
            assert_eq!(check_script(ok), Ok(()), "{ok}");
        }
        for bad in [
            "e",
            "1e id",
            "s/a/b/e",
            "s/a/b/w x",
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
        ] {
            assert!(check_script(bad).is_err(), "{bad}");
        }
    }
}
