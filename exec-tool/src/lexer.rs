//! The lexer: POSIX shell quoting and operator splitting, nothing else.
//!
//! It reads a command line the way a POSIX shell's tokenizer does (blanks
//! separate words; single quotes, double quotes and backslashes quote;
//! unquoted `; & | < > ( )` and newlines are operators; an unquoted `#` at the
//! start of a word starts a comment) and remembers, for every character of
//! every word, how it was quoted. It performs no expansion: `$`, backticks,
//! globs, braces and tildes stay in the words as written, marked with their
//! quoting, and the scanner ([`crate::scan`]) refuses the ones a shell would
//! expand. Input the scanner refuses may be split differently from a shell
//! (a `$( ... )` is not kept together, a backslash-newline is kept as a
//! newline); input it accepts is split exactly as a shell splits it.

/// How one character of a word was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quote {
    /// Bare: a shell would interpret it.
    Bare,
    /// Inside single quotes: always literal.
    Single,
    /// Inside double quotes: literal except `$`, backtick and `\`.
    Double,
    /// Preceded by a backslash outside quotes.
    Escaped,
}

/// One word, with the quoting of each of its characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word after quote removal.
    pub(crate) text: String,
    /// The quoting of each character of `text`, in order.
    pub(crate) quoting: Vec<Quote>,
    /// Byte offset of the word's first character in the input.
    pub(crate) at: usize,
    /// Whether any quote or backslash appeared in the word.
    pub(crate) quoted: bool,
}

impl Word {
    fn new(at: usize) -> Self {
        Self {
            text: String::new(),
            quoting: Vec::new(),
            at,
            quoted: false,
        }
    }

    fn push(&mut self, c: char, quote: Quote) {
        self.text.push(c);
        self.quoting.push(quote);
    }

    /// The characters of the word with their quoting.
    pub(crate) fn chars(&self) -> impl Iterator<Item = (char, Quote)> + '_ {
        self.text.chars().zip(self.quoting.iter().copied())
    }
}

/// One unit of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lexeme {
    /// A word.
    Word(Word),
    /// An unquoted control operator or redirection (`;`, `&&`, `|`, `>`,
    /// `<<`, `(`, newline...).
    Operator {
        /// The operator as written.
        text: String,
        /// Byte offset in the input.
        at: usize,
    },
    /// A comment: an unquoted `#` at the start of a word, to the end of the
    /// line.
    Comment {
        /// Byte offset of the `#`.
        at: usize,
    },
}

/// Input the lexer cannot split at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LexError {
    /// A single quote is never closed.
    UnterminatedSingle {
        /// Byte offset of the opening quote.
        at: usize,
    },
    /// A double quote is never closed.
    UnterminatedDouble {
        /// Byte offset of the opening quote.
        at: usize,
    },
    /// The input ends with a lone backslash.
    TrailingBackslash {
        /// Byte offset of the backslash.
        at: usize,
    },
}

/// Characters that are operators when unquoted.
fn is_operator_char(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')' | '\n')
}

/// Characters that join with a neighbour into one operator (`&&`, `>>`...).
fn joins(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '<' | '>')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Splits `input` into words, operators and comments.
pub(crate) fn lex(input: &str) -> Result<Vec<Lexeme>, LexError> {
    let mut out = Vec::new();
    let mut chars = input.char_indices().peekable();
    let mut word: Option<Word> = None;

    fn finish(word: &mut Option<Word>, out: &mut Vec<Lexeme>) {
        if let Some(w) = word.take() {
            out.push(Lexeme::Word(w));
        }
    }

    while let Some((at, c)) = chars.next() {
        match c {
            c if is_blank(c) => finish(&mut word, &mut out),
            c if is_operator_char(c) => {
                finish(&mut word, &mut out);
                let mut text = String::from(c);
                if joins(c) {
                    while let Some(&(_, next)) = chars.peek() {
                        if joins(next) || (next == '-' && text == "<<") {
                            text.push(next);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                }
                out.push(Lexeme::Operator { text, at });
            }
            '#' if word.is_none() => {
                out.push(Lexeme::Comment { at });
                // A comment runs to the end of the line; the newline itself is
                // still an operator.
                while let Some(&(_, next)) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    chars.next();
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(|| Word::new(at));
                w.quoted = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, inner)) => w.push(inner, Quote::Single),
                        None => return Err(LexError::UnterminatedSingle { at }),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(|| Word::new(at));
                w.quoted = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.peek() {
                            Some(&(_, next)) if matches!(next, '$' | '`' | '"' | '\\' | '\n') => {
                                w.push(next, Quote::Escaped);
                                chars.next();
                            }
                            Some(_) => w.push('\\', Quote::Double),
                            None => return Err(LexError::UnterminatedDouble { at }),
                        },
                        Some((_, inner)) => w.push(inner, Quote::Double),
                        None => return Err(LexError::UnterminatedDouble { at }),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(|| Word::new(at));
                w.quoted = true;
                match chars.next() {
                    Some((_, next)) => w.push(next, Quote::Escaped),
                    None => return Err(LexError::TrailingBackslash { at }),
                }
            }
            c => word
                .get_or_insert_with(|| Word::new(at))
                .push(c, Quote::Bare),
        }
    }
    finish(&mut word, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(input: &str) -> Vec<String> {
        lex(input)
            .unwrap()
            .into_iter()
            .map(|l| match l {
                Lexeme::Word(w) => w.text,
                Lexeme::Operator { text, .. } => format!("<{text}>"),
                Lexeme::Comment { .. } => "<#>".to_owned(),
            })
            .collect()
    }

    #[test]
    fn quoting_rules() {
        let cases: &[(&str, &[&str])] = &[
            ("ls -la", &["ls", "-la"]),
            ("  ls\t -la  ", &["ls", "-la"]),
            ("echo 'a b' \"c d\"", &["echo", "a b", "c d"]),
            ("echo a'b'\"c\"d", &["echo", "abcd"]),
            ("echo '' \"\"", &["echo", "", ""]),
            ("echo a\\ b", &["echo", "a b"]),
            ("echo \"a\\\"b\"", &["echo", "a\"b"]),
            ("echo \"a\\nb\"", &["echo", "a\\nb"]),
            ("echo 'a\\b'", &["echo", "a\\b"]),
            (
                "find . -exec x {} \\;",
                &["find", ".", "-exec", "x", "{}", ";"],
            ),
            ("ls&&id", &["ls", "<&&>", "id"]),
            ("ls;id", &["ls", "<;>", "id"]),
            ("a 2>&1", &["a", "2", "<>&>", "1"]),
            ("cat <<- x", &["cat", "<<<->", "x"]),
            ("ls #; id", &["ls", "<#>"]),
            ("ls a#b", &["ls", "a#b"]),
            ("ls\nid", &["ls", "<\n>", "id"]),
            ("(id)", &["<(>", "id", "<)>"]),
            ("echo é", &["echo", "é"]),
        ];
        for (input, expected) in cases {
            assert_eq!(words(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn quoting_is_recorded() {
        let lexemes = lex("a'b'\\c\"d\"").unwrap();
        let Some(Lexeme::Word(word)) = lexemes.first() else {
            panic!("one word expected");
        };
        assert_eq!(
            word.quoting,
            [Quote::Bare, Quote::Single, Quote::Escaped, Quote::Double]
        );
        assert!(word.quoted);
    }

    #[test]
    fn unterminated_input() {
        assert_eq!(lex("echo 'a"), Err(LexError::UnterminatedSingle { at: 5 }));
        assert_eq!(lex("echo \"a"), Err(LexError::UnterminatedDouble { at: 5 }));
        assert_eq!(
            lex("echo \"a\\"),
            Err(LexError::UnterminatedDouble { at: 5 })
        );
        assert_eq!(lex("echo a\\"), Err(LexError::TrailingBackslash { at: 6 }));
    }
}
