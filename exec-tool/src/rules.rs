//! Permission rules such as `git push *`, matched on the parsed argv.

use jig_lineage::program_name;

use crate::lexer::{Lexeme, Quote, lex};
use crate::scan::{Assignments, ParsedCommand, scan};

/// What a matching rule does. Ordered from the strongest: combining two
/// effects is a `min`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RuleEffect {
    /// The command is refused.
    Deny,
    /// A person must approve the command first
    /// ([`Invocation::needs_approval`](jig_lineage::Invocation::needs_approval)).
    Ask,
}

/// A rule text that cannot be a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// The text has no words.
    #[error("the permission rule is empty; write a command pattern such as `git push *`")]
    Empty,
    /// The text cannot be tokenized (an unclosed quote) or holds operators.
    #[error("the permission rule {text:?} is not one simple command pattern: {reason}")]
    Unparsable {
        /// The rule text.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The first word is not a literal program name.
    #[error("the permission rule {text:?} must start with a literal program name, such as `git`")]
    ProgramPattern {
        /// The rule text.
        text: String,
    },
    /// One of the rule's own examples disagrees with it.
    #[error(
        "the permission rule {rule:?} {} its example {example:?}, which says it {}",
        if *should_match { "does not match" } else { "matches" },
        if *should_match { "should" } else { "should not" }
    )]
    Example {
        /// The rule text.
        rule: String,
        /// The example command.
        example: String,
        /// Whether the example says the rule matches.
        should_match: bool,
    },
}

/// One word of a rule pattern: literal text with bare `*` wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatternWord {
    /// Characters, `None` for a bare `*`.
    parts: Vec<Option<char>>,
}

impl PatternWord {
    fn is_star(&self) -> bool {
        self.parts == [None]
    }

    fn matches(&self, text: &str) -> bool {
        glob(&self.parts, &text.chars().collect::<Vec<_>>())
    }
}

fn glob(pattern: &[Option<char>], text: &[char]) -> bool {
    // Iterative wildcard matching with one backtrack point.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Some(c)) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            Some(None) => {
                star = Some((p, t));
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(Option::is_none)
}

/// A permission rule: a command pattern and an effect.
///
/// The pattern is a command line whose first word is a literal program
/// name; a bare `*` inside a word matches any characters, a bare `*` word
/// matches any one word, and a bare `*` as the last word matches any number
/// of remaining words (none included). Quoted `*` is literal. Commands are
/// matched on their parsed argv, after leading `NAME=value` assignments are
/// stripped, as written and with the program's global options walked past
/// (`git -C . log --all` matches `git log --all *`); a command that cannot be parsed (an operator, an expansion, an
/// unclosed quote) matches every rule, so a rule never lets an unparsable
/// command escape it.
///
/// ```
/// use jig_exec_tool::{ExecTool, PermissionRule};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let rule = PermissionRule::parse("git push *")?;
/// assert!(rule.matches("git push origin main"));
/// assert!(rule.matches("GIT_DIR=x git  push"));
/// assert!(!rule.matches("git log"));
/// assert!(rule.matches("git log; git push")); // cannot be parsed: fail closed
/// assert!(rule.matches(&ExecTool::parse("git push -f")?));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    text: String,
    words: Vec<PatternWord>,
    effect: RuleEffect,
}

/// What a rule is matched against: a parsed command, or raw text.
#[derive(Debug, Clone, Copy)]
pub enum RuleSubject<'a> {
    /// A command [`ExecTool::parse`](crate::ExecTool::parse) accepted.
    Parsed(&'a ParsedCommand),
    /// A command line as written.
    Text(&'a str),
}

impl<'a> From<&'a ParsedCommand> for RuleSubject<'a> {
    fn from(command: &'a ParsedCommand) -> Self {
        RuleSubject::Parsed(command)
    }
}

impl<'a> From<&'a str> for RuleSubject<'a> {
    fn from(text: &'a str) -> Self {
        RuleSubject::Text(text)
    }
}

impl<'a> From<&'a String> for RuleSubject<'a> {
    fn from(text: &'a String) -> Self {
        RuleSubject::Text(text)
    }
}

impl PermissionRule {
    /// A rule with the [`RuleEffect::Ask`] effect.
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        Self::ask(text)
    }

    /// A rule whose matching commands need a person's approval.
    pub fn ask(text: &str) -> Result<Self, RuleError> {
        Self::new(text, RuleEffect::Ask)
    }

    /// A rule whose matching commands are refused.
    pub fn deny(text: &str) -> Result<Self, RuleError> {
        Self::new(text, RuleEffect::Deny)
    }

    /// A rule with this effect.
    pub fn new(text: &str, effect: RuleEffect) -> Result<Self, RuleError> {
        let unparsable = |reason: &str| RuleError::Unparsable {
            text: text.to_owned(),
            reason: reason.to_owned(),
        };
        let lexemes = lex(text).map_err(|_| unparsable("a quote is never closed"))?;
        let mut words = Vec::new();
        for lexeme in lexemes {
            match lexeme {
                Lexeme::Word(word) => words.push(PatternWord {
                    parts: word
                        .chars()
                        .map(|(c, q)| (!(c == '*' && q == Quote::Bare)).then_some(c))
                        .collect(),
                }),
                Lexeme::Operator { text: op, .. } => {
                    return Err(unparsable(&format!(
                        "it holds the operator `{}`",
                        op.escape_debug()
                    )));
                }
                Lexeme::Comment { .. } => return Err(unparsable("it holds a comment")),
            }
        }
        match words.first() {
            None => Err(RuleError::Empty),
            Some(first) if first.parts.iter().any(Option::is_none) || first.parts.is_empty() => {
                Err(RuleError::ProgramPattern {
                    text: text.to_owned(),
                })
            }
            Some(_) => Ok(Self {
                text: text.trim().to_owned(),
                words,
                effect,
            }),
        }
    }

    /// This rule, checked against examples as Codex's execpolicy writes
    /// them: every command of `matches` must match it, and no command of
    /// `not_matches` may. A rule that disagrees with one of its examples is
    /// an error when it is built, not a surprise when it runs.
    ///
    /// ```
    /// use jig_exec_tool::PermissionRule;
    ///
    /// let rule = PermissionRule::deny("git push *")
    ///     .unwrap()
    ///     .with_examples(&["git push origin", "git -C sub push"], &["git pull"]);
    /// assert!(rule.is_ok());
    /// let wrong = PermissionRule::deny("git push").unwrap().with_examples(&["git push -f"], &[]);
    /// assert!(wrong.is_err());
    /// ```
    pub fn with_examples(self, matches: &[&str], not_matches: &[&str]) -> Result<Self, RuleError> {
        let wrong = |example: &str, should_match: bool| RuleError::Example {
            rule: self.text.clone(),
            example: example.to_owned(),
            should_match,
        };
        if let Some(example) = matches.iter().find(|e| !self.matches(**e)) {
            return Err(wrong(example, true));
        }
        if let Some(example) = not_matches.iter().find(|e| self.matches(**e)) {
            return Err(wrong(example, false));
        }
        Ok(self)
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The rule's effect.
    pub fn effect(&self) -> RuleEffect {
        self.effect
    }

    /// Whether the command matches (an unparsable one always does).
    pub fn matches<'a>(&self, command: impl Into<RuleSubject<'a>>) -> bool {
        match command.into() {
            RuleSubject::Parsed(parsed) => self.matches_argv(parsed.argv()),
            RuleSubject::Text(text) => match scan(text, Assignments::Strip) {
                Ok(parsed) => self.matches_argv(parsed.argv()),
                Err(_) => true,
            },
        }
    }

    /// Matches the argv as written, and with the program's global options
    /// walked past (`git -C . --no-pager log --all` is the `git log --all`
    /// a rule names): either match counts, so a rule never matches less
    /// because of global options.
    fn matches_argv(&self, argv: &[String]) -> bool {
        if self.matches_words(argv) {
            return true;
        }
        let walked = jig_programs::without_global_options(argv);
        walked.len() != argv.len() && self.matches_words(&walked)
    }

    fn matches_words(&self, argv: &[String]) -> bool {
        let Some((program, args)) = argv.split_first() else {
            return true;
        };
        let Some((first, rest)) = self.words.split_first() else {
            return true;
        };
        let name = program_name(program);
        if !first.matches(name) {
            return false;
        }
        let mut args = args.iter();
        for (i, word) in rest.iter().enumerate() {
            if word.is_star() && i + 1 == rest.len() {
                return true;
            }
            match args.next() {
                Some(arg) if word.matches(arg) => {}
                _ => return false,
            }
        }
        args.next().is_none()
    }
}

impl std::fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let rule = PermissionRule::parse("git log *").unwrap();
        for yes in [
            "git log",
            "git log -3",
            "/usr/bin/git log --oneline x",
            "A=1 git log",
        ] {
            assert!(rule.matches(yes), "{yes}");
        }
        for no in ["git show", "git", "cargo log"] {
            assert!(!rule.matches(no), "{no}");
        }
        let exact = PermissionRule::parse("cargo test").unwrap();
        assert!(exact.matches("cargo test") && !exact.matches("cargo test x"));
        let inner = PermissionRule::parse("git push --force* *").unwrap();
        assert!(inner.matches("git push --force-with-lease origin"));
        assert!(!inner.matches("git push origin"));
        let literal = PermissionRule::parse("echo '*'").unwrap();
        assert!(literal.matches("echo '*'") && !literal.matches("echo x"));
        let middle = PermissionRule::parse("git * main").unwrap();
        assert!(middle.matches("git push main") && !middle.matches("git push x main"));
    }

    #[test]
    fn bad_rules() {
        assert_eq!(PermissionRule::parse("  "), Err(RuleError::Empty));
        assert!(matches!(
            PermissionRule::parse("* x"),
            Err(RuleError::ProgramPattern { .. })
        ));
        assert!(matches!(
            PermissionRule::parse("a | b"),
            Err(RuleError::Unparsable { .. })
        ));
        assert!(matches!(
            PermissionRule::parse("a 'b"),
            Err(RuleError::Unparsable { .. })
        ));
    }

    #[test]
    fn glob_matching() {
        let p = |s: &str| {
            s.chars()
                .map(|c| (c != '*').then_some(c))
                .collect::<Vec<_>>()
        };
        let t = |s: &str| s.chars().collect::<Vec<_>>();
        assert!(glob(&p("a*b*c"), &t("aXbYbc")));
        assert!(glob(&p("*"), &t("")));
        assert!(!glob(&p("a*b"), &t("ab_")));
        assert!(glob(&p("**"), &t("x")));
    }
}
