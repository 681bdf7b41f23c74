//! Layer 3, the operator scan: refuse whatever a shell would read
//! differently from the literal words.

use crate::finding::Finding;
use crate::lexer::{LexError, Lexeme, Quote, Word, lex};

/// Shell keywords and builtins that are not programs (or whose program
/// namesake does something else): a shell would read them itself.
const SHELL_WORDS: &[&str] = &[
    "!",
    "{",
    "}",
    "[[",
    "]]",
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "coproc",
    ".",
    ":",
    "source",
    "eval",
    "exec",
    "export",
    "readonly",
    "unset",
    "set",
    "shift",
    "trap",
    "return",
    "exit",
    "break",
    "continue",
    "cd",
    "pushd",
    "popd",
    "dirs",
    "alias",
    "unalias",
    "builtin",
    "command",
    "declare",
    "typeset",
    "local",
    "let",
    "read",
    "readarray",
    "mapfile",
    "hash",
    "type",
    "ulimit",
    "umask",
    "wait",
    "jobs",
    "fg",
    "bg",
    "disown",
    "suspend",
    "enable",
    "help",
    "history",
    "fc",
    "logout",
    "times",
    "shopt",
    "bind",
    "complete",
    "compgen",
    "compopt",
    "caller",
    "getopts",
];

/// A command line that passed the operator scan: the argv that will run,
/// word for word as a POSIX shell would split it, with no expansion left.
///
/// Built by [`ExecTool::parse`](crate::ExecTool::parse).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedCommand {
    argv: Vec<String>,
    assignments: Vec<(String, String)>,
}

impl ParsedCommand {
    /// The argv, program first.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The program, as written (the first word).
    pub fn program(&self) -> &str {
        self.argv.first().map(String::as_str).unwrap_or_default()
    }

    /// The arguments after the program.
    pub fn args(&self) -> &[String] {
        self.argv.get(1..).unwrap_or_default()
    }

    /// Leading `NAME=value` assignments. Always empty for a command that
    /// [`ExecTool::parse`](crate::ExecTool::parse) accepted (it refuses
    /// them); [`PermissionRule`](crate::PermissionRule) matching strips them
    /// and keeps them here.
    pub fn assignments(&self) -> &[(String, String)] {
        &self.assignments
    }

    /// Consumes the command into its argv.
    pub fn into_argv(self) -> Vec<String> {
        self.argv
    }
}

/// What to do with leading `NAME=value` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Assignments {
    /// Refuse them (running a command).
    Refuse,
    /// Strip them into [`ParsedCommand::assignments`] (matching rules).
    Strip,
}

/// The shell's words of `input`: quoting removed, operators as their own
/// words, comments dropped, nothing expanded.
///
/// This is the tokenizer alone. For a command that
/// [`ExecTool::parse`](crate::ExecTool::parse) accepts, the argv is exactly
/// these words; for others, words holding `$`, backticks or line
/// continuations may be split differently from a shell (they are refused
/// anyway).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let words = jig_exec_tool::tokenize(r#"grep -rn 'fn main' "src dir" a\ b"#)?;
/// assert_eq!(words, ["grep", "-rn", "fn main", "src dir", "a b"]);
/// assert_eq!(jig_exec_tool::tokenize("ls&&id")?, ["ls", "&&", "id"]);
/// # Ok(())
/// # }
/// ```
pub fn tokenize(input: &str) -> Result<Vec<String>, jig_lineage::Refusal> {
    let lexemes = lex(input).map_err(|e| lex_finding(e).into_refusal())?;
    Ok(lexemes
        .into_iter()
        .filter_map(|lexeme| match lexeme {
            Lexeme::Word(word) => Some(word.text),
            Lexeme::Operator { text, .. } => Some(text),
            Lexeme::Comment { .. } => None,
        })
        .collect())
}

fn lex_finding(error: LexError) -> Finding {
    let what = match error {
        LexError::UnterminatedSingle { .. } => "a single quote that is never closed",
        LexError::UnterminatedDouble { .. } => "a double quote that is never closed",
        LexError::TrailingBackslash { .. } => "a backslash at the very end",
    };
    Finding::Unterminated { what }
}

/// Tokenizes and scans `input`.
pub(crate) fn scan(input: &str, assignments: Assignments) -> Result<ParsedCommand, Finding> {
    let lexemes = lex(input).map_err(lex_finding)?;
    // In input order, so the first problem the model wrote is the one named.
    let mut words = Vec::with_capacity(lexemes.len());
    for lexeme in lexemes {
        match lexeme {
            Lexeme::Word(word) => {
                scan_word(&word)?;
                words.push(word);
            }
            Lexeme::Operator { text, .. } => return Err(Finding::Operator { op: text }),
            Lexeme::Comment { .. } => return Err(Finding::Comment),
        }
    }
    let mut parsed = ParsedCommand {
        argv: Vec::with_capacity(words.len()),
        assignments: Vec::new(),
    };
    let mut iter = words.into_iter().peekable();
    while let Some(word) = iter.next_if(|w| assignment_name(w).is_some()) {
        match assignments {
            Assignments::Refuse => return Err(Finding::Assignment { word: word.text }),
            Assignments::Strip => {
                let (name, value) = word.text.split_once('=').unwrap_or((&word.text, ""));
                parsed.assignments.push((name.to_owned(), value.to_owned()));
            }
        }
    }
    let Some(program) = iter.next() else {
        return Err(Finding::Empty);
    };
    if program.quoted {
        return Err(Finding::ProgramQuoted { word: program.text });
    }
    if SHELL_WORDS.contains(&program.text.as_str()) {
        return Err(Finding::Builtin { word: program.text });
    }
    parsed.argv.push(program.text);
    parsed.argv.extend(iter.map(|w| w.text));
    Ok(parsed)
}

/// `Some(name)` when the word is a shell assignment `NAME=...` (the name and
/// the `=` unquoted).
fn assignment_name(word: &Word) -> Option<&str> {
    let eq = word.text.find('=')?;
    let name = &word.text[..eq];
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let bare = word.quoting[..=name.chars().count()]
        .iter()
        .all(|q| *q == Quote::Bare);
    (valid && bare).then_some(name)
}

/// Characters that people cannot see, that reorder text (the lineage's
/// one classifier), or that look like a blank without separating words
/// (Unicode spaces other than space and tab).
fn is_invisible(c: char) -> bool {
    (c.is_whitespace() && c != ' ' && c != '\t') || (c != '\t' && jig_lineage::is_invisible(c))
}

/// Characters that never need a backslash: escaping one only obfuscates.
fn is_ordinary(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '@' | '+' | '%')
}

fn scan_word(word: &Word) -> Result<(), Finding> {
    let text = || word.text.clone();
    let chars: Vec<(char, Quote)> = word.chars().collect();
    for (i, &(c, quote)) in chars.iter().enumerate() {
        if (c.is_control() && !(c == '\t' && quote != Quote::Bare)) || is_invisible(c) {
            return Err(Finding::Control {
                word: text(),
                code: format!("U+{:04X}", u32::from(c)),
            });
        }
        match (c, quote) {
            ('$', Quote::Bare | Quote::Double) => return Err(Finding::Dollar { word: text() }),
            ('`', Quote::Bare | Quote::Double) => return Err(Finding::Backtick { word: text() }),
            ('*' | '?' | '[', Quote::Bare) => return Err(Finding::Glob { word: text(), c }),
            ('~', Quote::Bare) => {
                let after_separator =
                    i == 0 || matches!(chars.get(i - 1), Some(&('=' | ':', Quote::Bare)));
                if after_separator {
                    return Err(Finding::Tilde { word: text() });
                }
            }
            (c, Quote::Escaped) if is_ordinary(c) => {
                return Err(Finding::Escape { word: text(), c });
            }
            _ => {}
        }
    }
    if has_brace_expansion(&chars) {
        return Err(Finding::Brace { word: text() });
    }
    Ok(())
}

/// Whether an unquoted `{...}` pair holds an unquoted `,` or `..` (what bash
/// expands). Linear: one stack of open braces.
fn has_brace_expansion(chars: &[(char, Quote)]) -> bool {
    let bare = |i: usize, c: char| chars.get(i) == Some(&(c, Quote::Bare));
    // One flag per open brace: whether it holds `,` or `..` so far.
    let mut open: Vec<bool> = Vec::new();
    for i in 0..chars.len() {
        if bare(i, '{') {
            open.push(false);
        } else if bare(i, '}') {
            if open.pop() == Some(true) {
                return true;
            }
        } else if let Some(top) = open
            .last_mut()
            .filter(|_| bare(i, ',') || (bare(i, '.') && bare(i + 1, '.')))
        {
            *top = true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_commands_keep_their_words() {
        let cases: &[(&str, &[&str])] = &[
            ("ls -la", &["ls", "-la"]),
            ("grep -rn 'a|b' src", &["grep", "-rn", "a|b", "src"]),
            (
                "find . -name '*.rs' -print",
                &["find", ".", "-name", "*.rs", "-print"],
            ),
            ("git log HEAD@{1}", &["git", "log", "HEAD@{1}"]),
            ("sed -n '/a/{p}' f", &["sed", "-n", "/a/{p}", "f"]),
            ("echo a~b 'x=~'", &["echo", "a~b", "x=~"]),
            ("echo \\; \\|", &["echo", ";", "|"]),
            ("echo 'a\tb'", &["echo", "a\tb"]),
            ("echo '$HOME' \"\\$x\"", &["echo", "$HOME", "$x"]),
        ];
        for (input, argv) in cases {
            let parsed = scan(input, Assignments::Refuse);
            assert_eq!(
                parsed.as_ref().map(ParsedCommand::argv),
                Ok(&argv.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()[..]),
                "{input:?}"
            );
        }
    }

    #[test]
    fn brace_expansion() {
        let expands = |s: &str| {
            let w = match lex(s).unwrap().pop() {
                Some(Lexeme::Word(w)) => w,
                _ => panic!("word expected"),
            };
            has_brace_expansion(&w.chars().collect::<Vec<_>>())
        };
        for s in ["{a,b}", "x{1..3}", "{{a,b}}", "{a,{b}}", "a{,}"] {
            assert!(expands(s), "{s}");
        }
        for s in [
            "{}", "{a}", "'{a,b}'", "{a\\,b}", "}{,", "{.}", "{a.b}", "{",
        ] {
            assert!(!expands(s), "{s}");
        }
    }

    #[test]
    fn assignments_are_stripped_or_refused() {
        let parsed = scan("A=1 B='x y' git log", Assignments::Strip).unwrap();
        assert_eq!(parsed.argv(), ["git", "log"]);
        assert_eq!(
            parsed.assignments(),
            [("A".into(), "1".into()), ("B".into(), "x y".into())]
        );
        assert!(matches!(
            scan("A=1 git log", Assignments::Refuse),
            Err(Finding::Assignment { .. })
        ));
        // Not an assignment: quoted name, or not in first position.
        assert_eq!(
            scan("git log a=b", Assignments::Refuse).unwrap().argv(),
            ["git", "log", "a=b"]
        );
        assert!(matches!(
            scan("'A'=1", Assignments::Refuse),
            Err(Finding::ProgramQuoted { .. })
        ));
    }
}
