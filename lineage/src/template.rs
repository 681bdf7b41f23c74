//! Templates: the fixed skeleton of a command tool, parsed once.

use std::fmt;

/// The characters a template token may never hold: the command is not run
/// by a shell, so each of them would reach the program as a literal and
/// mislead the person who wrote it.
pub(crate) const TEMPLATE_METACHARACTERS: &[char] = &['"', '\'', ';', '|', '&', '$', '`', '>', '<'];

/// A valid slot name: an ASCII letter or `_`, then letters, digits or `_`,
/// at most 64 characters. It can only be built valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotName(String);

/// The longest slot name accepted.
const MAX_SLOT_NAME: usize = 64;

impl SlotName {
    /// Parses a slot name; `None` when `name` is not one.
    pub fn new(name: &str) -> Option<Self> {
        let mut chars = name.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        (first_ok && rest_ok && name.len() <= MAX_SLOT_NAME).then(|| Self(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SlotName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One token of a template: literal text, or one slot with the literal text
/// around it (`{range}p` is a slot with the suffix `p`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Token {
    /// A fixed argv element.
    Literal(String),
    /// An argv element made of `prefix`, the slot's value and `suffix`.
    Slot {
        /// Literal text before the value.
        prefix: String,
        /// The slot filled in.
        name: SlotName,
        /// Literal text after the value.
        suffix: String,
    },
}

/// A parsed template: whitespace-separated tokens whose first token is a
/// literal program name. It can only be built valid.
///
/// In a token, `{name}` is a slot; `{{` and `}}` are literal braces. A token
/// holds at most one slot. No token holds a quote, `;`, `|`, `&`, `$`, a
/// backtick, `>` or `<`, or a control character: nothing here is read by a
/// shell, and the template must read as what runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    tokens: Vec<Token>,
}

/// Why a template was refused. Every variant names the template and the
/// offending token, and [`offset`](Self::offset) is the token's byte offset
/// in the template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// The template has no token.
    #[error("template {template:?} is empty; write the program name first, then its arguments")]
    Empty {
        /// The template.
        template: String,
    },
    /// The first token holds a slot: the program must be fixed.
    #[error(
        "template {template:?}: the program {token:?} holds a slot; the first token must be a fixed program name"
    )]
    SlotInProgram {
        /// The template.
        template: String,
        /// The first token.
        token: String,
        /// Its byte offset.
        offset: usize,
    },
    /// A token holds a shell metacharacter or a control character.
    #[error(
        "template {template:?}: token {token:?} holds {character:?}; templates are not run by a shell, so quotes, `;`, `|`, `&`, `$`, backticks, `>`, `<` and control characters are refused (each slot is already exactly one argument)"
    )]
    Metacharacter {
        /// The template.
        template: String,
        /// The token.
        token: String,
        /// Its byte offset.
        offset: usize,
        /// The character.
        character: char,
    },
    /// A `{` or `}` that does not form a slot (or `{{`, `}}`).
    #[error(
        "template {template:?}: token {token:?} has an unmatched brace; write a slot as {{name}} and a literal brace as {{{{ or }}}}"
    )]
    Brace {
        /// The template.
        template: String,
        /// The token.
        token: String,
        /// Its byte offset.
        offset: usize,
    },
    /// `{...}` whose content is not a valid slot name.
    #[error(
        "template {template:?}: token {token:?} has the slot name {name:?}; slot names are letters, digits and `_`, starting with a letter or `_`"
    )]
    SlotName {
        /// The template.
        template: String,
        /// The token.
        token: String,
        /// Its byte offset.
        offset: usize,
        /// The name written.
        name: String,
    },
    /// A token holds two slots or more.
    #[error(
        "template {template:?}: token {token:?} holds more than one slot; a token may hold at most one"
    )]
    TwoSlots {
        /// The template.
        template: String,
        /// The token.
        token: String,
        /// Its byte offset.
        offset: usize,
    },
}

impl TemplateError {
    /// The offending token (empty for [`TemplateError::Empty`]).
    pub fn token(&self) -> &str {
        match self {
            TemplateError::Empty { .. } => "",
            TemplateError::SlotInProgram { token, .. }
            | TemplateError::Metacharacter { token, .. }
            | TemplateError::Brace { token, .. }
            | TemplateError::SlotName { token, .. }
            | TemplateError::TwoSlots { token, .. } => token,
        }
    }

    /// The byte offset of the offending token in the template.
    pub fn offset(&self) -> usize {
        match self {
            TemplateError::Empty { .. } => 0,
            TemplateError::SlotInProgram { offset, .. }
            | TemplateError::Metacharacter { offset, .. }
            | TemplateError::Brace { offset, .. }
            | TemplateError::SlotName { offset, .. }
            | TemplateError::TwoSlots { offset, .. } => *offset,
        }
    }
}

impl Template {
    /// Parses a template.
    pub fn parse(source: &str) -> Result<Self, TemplateError> {
        let mut tokens = Vec::new();
        for (offset, text) in split_tokens(source) {
            let at = |make: fn(String, String, usize) -> TemplateError| {
                make(source.to_owned(), text.to_owned(), offset)
            };
            if let Some(character) = text
                .chars()
                .find(|c| TEMPLATE_METACHARACTERS.contains(c) || c.is_control())
            {
                return Err(TemplateError::Metacharacter {
                    template: source.to_owned(),
                    token: text.to_owned(),
                    offset,
                    character,
                });
            }
            let token = parse_token(text).map_err(|problem| match problem {
                TokenProblem::Brace => at(|template, token, offset| TemplateError::Brace {
                    template,
                    token,
                    offset,
                }),
                TokenProblem::TwoSlots => at(|template, token, offset| TemplateError::TwoSlots {
                    template,
                    token,
                    offset,
                }),
                TokenProblem::Name(name) => TemplateError::SlotName {
                    template: source.to_owned(),
                    token: text.to_owned(),
                    offset,
                    name,
                },
            })?;
            if tokens.is_empty() && matches!(token, Token::Slot { .. }) {
                return Err(at(|template, token, offset| TemplateError::SlotInProgram {
                    template,
                    token,
                    offset,
                }));
            }
            tokens.push(token);
        }
        if tokens.is_empty() {
            return Err(TemplateError::Empty {
                template: source.to_owned(),
            });
        }
        Ok(Self {
            source: source.to_owned(),
            tokens,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The program: the first token, the tool's whole binary allow list.
    pub fn program(&self) -> &str {
        match self.tokens.first() {
            Some(Token::Literal(program)) => program,
            // `parse` guarantees a literal first token.
            _ => "",
        }
    }

    /// The tokens, program first.
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// The slots used, in order of first use, each once.
    pub fn slot_names(&self) -> Vec<&SlotName> {
        let mut names: Vec<&SlotName> = Vec::new();
        for token in &self.tokens {
            if let Token::Slot { name, .. } = token
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
        names
    }

    /// The argv with each slot replaced by `value(name)`: one element per
    /// token, always.
    pub fn fill<'v>(&self, mut value: impl FnMut(&SlotName) -> &'v str) -> Vec<String> {
        self.tokens
            .iter()
            .map(|token| match token {
                Token::Literal(text) => text.clone(),
                Token::Slot {
                    prefix,
                    name,
                    suffix,
                } => format!("{prefix}{}{suffix}", value(name)),
            })
            .collect()
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// The tokens of `source` with their byte offsets, split on any Unicode
/// whitespace (so the tokens are the ones a reader sees).
fn split_tokens(source: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = source.char_indices().peekable();
    std::iter::from_fn(move || {
        while rest.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let (start, _) = *rest.peek()?;
        let mut end = start;
        while let Some((i, c)) = rest.next_if(|(_, c)| !c.is_whitespace()) {
            end = i + c.len_utf8();
        }
        source.get(start..end).map(|text| (start, text))
    })
}

enum TokenProblem {
    Brace,
    TwoSlots,
    Name(String),
}

fn parse_token(text: &str) -> Result<Token, TokenProblem> {
    let mut before = String::new();
    let mut after = String::new();
    let mut slot: Option<SlotName> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let literal = match c {
            '{' if chars.next_if_eq(&'{').is_some() => '{',
            '}' if chars.next_if_eq(&'}').is_some() => '}',
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some('{') | None => return Err(TokenProblem::Brace),
                        Some(c) => name.push(c),
                    }
                }
                if slot.is_some() {
                    return Err(TokenProblem::TwoSlots);
                }
                slot = Some(SlotName::new(&name).ok_or(TokenProblem::Name(name))?);
                continue;
            }
            '}' => return Err(TokenProblem::Brace),
            c => c,
        };
        if slot.is_some() {
            after.push(literal);
        } else {
            before.push(literal);
        }
    }
    Ok(match slot {
        Some(name) => Token::Slot {
            prefix: before,
            name,
            suffix: after,
        },
        None => Token::Literal(before),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_slots() {
        let template = Template::parse("sed  -n {range}p\t{path}").unwrap();
        assert_eq!(template.program(), "sed");
        assert_eq!(template.tokens().len(), 4);
        let names: Vec<&str> = template.slot_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(names, ["range", "path"]);
        let argv = template.fill(|name| {
            if name.as_str() == "range" {
                "1,5"
            } else {
                "a.rs"
            }
        });
        assert_eq!(argv, ["sed", "-n", "1,5p", "a.rs"]);
    }

    #[test]
    fn literal_braces() {
        let template = Template::parse("find . -name {{}} {x}").unwrap();
        assert_eq!(template.fill(|_| "v"), ["find", ".", "-name", "{}", "v"]);
    }

    #[test]
    fn offsets_point_at_the_token() {
        let error = Template::parse("grep -rn {pattern} a|b").unwrap_err();
        assert_eq!(error.offset(), 19);
        assert_eq!(error.token(), "a|b");
    }

    #[test]
    fn slot_names() {
        for good in ["a", "_", "path", "a1_b"] {
            assert!(SlotName::new(good).is_some(), "{good}");
        }
        for bad in ["", "1a", "a-b", "a b", "é", &"a".repeat(65)] {
            assert!(SlotName::new(bad).is_none(), "{bad}");
        }
    }
}
