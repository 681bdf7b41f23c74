//! One slot, compiled, and the validation of one value for it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use regex::Regex;
use serde_json::{Number, Value};

use crate::chars;
use crate::{PathRefusal, SlotName, SlotSpec, SlotType, SpecError, confine_path};

/// The longest part of a value quoted back in a message.
const QUOTE_LIMIT: usize = 80;

/// A declared slot, checked and compiled.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub(crate) name: SlotName,
    pub(crate) spec: SlotSpec,
    /// The enum, rendered as the argv text of each entry.
    pub(crate) choices: Option<Vec<String>>,
    /// The pattern, anchored to the whole value.
    pattern: Option<Pattern>,
}

/// A slot's pattern, anchored to the whole value. Its syntax is checked
/// when the slot is compiled; its matcher is built at its first use (and
/// shared by the slot's clones): a process that makes one call (`jig call`)
/// would otherwise build the matcher of every slot of every tool it loads.
#[derive(Debug, Clone)]
struct Pattern {
    anchored: String,
    matcher: Arc<OnceLock<Option<Regex>>>,
}

impl Pattern {
    /// Whether `text` matches as a whole; `None` when the matcher cannot be
    /// built although the syntax is valid (it exceeds the `regex` crate's
    /// size limits): the caller refuses the value.
    fn is_match(&self, text: &str) -> Option<bool> {
        self.matcher
            .get_or_init(|| Regex::new(&self.anchored).ok())
            .as_ref()
            .map(|regex| regex.is_match(text))
    }
}

/// Why one value was refused (error 614). Every message names the slot and
/// says how to succeed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SlotProblem {
    #[error("slot {slot:?} is required and was not given; pass it as a {kind}{hint}")]
    Missing {
        slot: String,
        kind: &'static str,
        hint: String,
    },
    #[error("slot {slot:?} must be {expected}; got {got}")]
    Type {
        slot: String,
        expected: &'static str,
        got: String,
    },
    #[error("slot {slot:?} must be one of {choices}; got {got}")]
    Enum {
        slot: String,
        choices: String,
        got: String,
    },
    #[error(
        "slot {slot:?} must match the regular expression {pattern} as a whole; got {got}{hint}"
    )]
    Pattern {
        slot: String,
        pattern: String,
        got: String,
        hint: String,
    },
    #[error("slot {slot:?}: the value contains {character}; {guidance} (got {got})")]
    Character {
        slot: String,
        character: String,
        guidance: &'static str,
        got: String,
    },
    #[error(
        "slot {slot:?} cannot begin with \"-\", which the program would read as an option; {guidance} (got {got})"
    )]
    LeadingDash {
        slot: String,
        guidance: &'static str,
        got: String,
    },
    #[error("slot {slot:?}: {refusal}")]
    Path { slot: String, refusal: PathRefusal },
}

impl SlotProblem {
    /// The message without its leading `slot "name"`, for messages that
    /// already name the slot.
    fn without_slot(&self) -> String {
        let message = self.to_string();
        let slot = match self {
            SlotProblem::Missing { slot, .. }
            | SlotProblem::Type { slot, .. }
            | SlotProblem::Enum { slot, .. }
            | SlotProblem::Pattern { slot, .. }
            | SlotProblem::Character { slot, .. }
            | SlotProblem::LeadingDash { slot, .. }
            | SlotProblem::Path { slot, .. } => slot,
        };
        let prefix = format!("slot {slot:?}");
        match message.strip_prefix(&prefix) {
            Some(rest) => rest.trim_start_matches(':').trim_start().to_owned(),
            None => message,
        }
    }
}

impl Slot {
    /// Checks a declaration: pattern, enum and default must be valid.
    /// With `eager`, a pattern's matcher is built now (a pattern too large
    /// for one is then a declaration error); otherwise at its first use.
    pub(crate) fn compile(name: SlotName, spec: &SlotSpec, eager: bool) -> Result<Self, SpecError> {
        let slot_name = || name.as_str().to_owned();
        if spec.allow_leading_dash && spec.kind == SlotType::Path {
            return Err(SpecError::DashOnPath { slot: slot_name() });
        }
        match (spec.required, &spec.default) {
            (true, Some(_)) => return Err(SpecError::RequiredWithDefault { slot: slot_name() }),
            (false, None) => return Err(SpecError::NoDefault { slot: slot_name() }),
            _ => {}
        }
        let pattern = match &spec.pattern {
            None => None,
            Some(pattern) => {
                let anchored = format!("^(?:{pattern})$");
                // The same parser `Regex::new` starts with, with the same
                // limits; when it refuses, the matcher is built now for the
                // error it gives.
                let matcher = Arc::new(OnceLock::new());
                if eager || regex_syntax::Parser::new().parse(&anchored).is_err() {
                    let _ = matcher.set(Some(Self::eager_pattern(&slot_name, pattern, &anchored)?));
                }
                Some(Pattern { anchored, matcher })
            }
        };
        let mut slot = Self {
            name: name.clone(),
            spec: spec.clone(),
            choices: None,
            pattern,
        };
        if let Some(choices) = &spec.choices {
            if choices.is_empty() {
                return Err(SpecError::EmptyEnum { slot: slot_name() });
            }
            let mut rendered = Vec::with_capacity(choices.len());
            for (index, choice) in choices.iter().enumerate() {
                let text = slot
                    .static_checks(choice)
                    .map_err(|problem| SpecError::Enum {
                        slot: slot_name(),
                        index,
                        reason: problem.without_slot(),
                    })?;
                rendered.push(text);
            }
            slot.choices = Some(rendered);
        }
        if let Some(default) = &spec.default {
            slot.static_checks(default)
                .map_err(|problem| SpecError::Default {
                    slot: slot_name(),
                    reason: problem.without_slot(),
                })?;
        }
        Ok(slot)
    }

    /// The matcher of `anchored` (`pattern` anchored to the whole value),
    /// built now, or the declaration's error.
    fn eager_pattern(
        slot_name: &dyn Fn() -> String,
        pattern: &str,
        anchored: &str,
    ) -> Result<Regex, SpecError> {
        Regex::new(anchored).map_err(|_| {
            // Compiled again unanchored so the complaint quotes the
            // pattern as written.
            let reason = match Regex::new(pattern) {
                Err(error) => regex_reason(&error.to_string()),
                Ok(_) => "it cannot be anchored to the whole value".to_owned(),
            };
            SpecError::Pattern {
                slot: slot_name(),
                pattern: pattern.to_owned(),
                reason,
            }
        })
    }

    /// The argv text for `value` (the default when `None` or `null`), or
    /// why it is refused. Order: required, coercion and type, enum,
    /// pattern, characters, leading dash, path confinement.
    /// With the text, a path slot's value resolved inside `root`.
    pub(crate) fn check(
        &self,
        value: Option<&Value>,
        root: &Path,
    ) -> Result<(String, Option<PathBuf>), SlotProblem> {
        let value = match value {
            Some(value) if !value.is_null() => value,
            _ => match &self.spec.default {
                Some(default) => default,
                None => return Err(self.missing()),
            },
        };
        let text = self.static_checks(value)?;
        if self.spec.kind != SlotType::Path {
            return Ok((text, None));
        }
        let resolved = confine_path(root, &text).map_err(|refusal| SlotProblem::Path {
            slot: self.name.to_string(),
            refusal,
        })?;
        Ok((text, Some(resolved)))
    }

    /// Every check that needs no file system: coercion and type, enum,
    /// pattern, characters, leading dash.
    fn static_checks(&self, value: &Value) -> Result<String, SlotProblem> {
        let slot = || self.name.to_string();
        let text = coerce(self.spec.kind, value).ok_or_else(|| SlotProblem::Type {
            slot: slot(),
            expected: match self.spec.kind {
                SlotType::Number => "a number (such as 5 or 5000)",
                SlotType::Path => "a path, as a string",
                _ => "a string",
            },
            got: describe_value(value),
        })?;
        if let Some(choices) = &self.choices
            && !choices.contains(&text)
        {
            return Err(SlotProblem::Enum {
                slot: slot(),
                choices: choices
                    .iter()
                    .map(|c| quote(c))
                    .collect::<Vec<_>>()
                    .join(", "),
                got: quote(&text),
            });
        }
        if let (Some(matcher), Some(pattern)) = (&self.pattern, &self.spec.pattern) {
            let hint = match matcher.is_match(&text) {
                Some(true) => None,
                Some(false) => Some(self.described()),
                None => Some(
                    " (the tool's pattern is too large to build a matcher: \
                     no value can be accepted; tell the user)"
                        .to_owned(),
                ),
            };
            if let Some(hint) = hint {
                return Err(SlotProblem::Pattern {
                    slot: slot(),
                    pattern: pattern.clone(),
                    got: quote(&text),
                    hint,
                });
            }
        }
        let refused = if self.spec.kind == SlotType::Text {
            chars::first_refused_in_text(&text)
        } else {
            chars::first_refused(&text)
        };
        if let Some((c, class)) = refused {
            return Err(SlotProblem::Character {
                slot: slot(),
                character: chars::describe(c),
                guidance: chars::guidance(class),
                got: quote(&text),
            });
        }
        // `!`, `(`, `)` and `,` alone are find's expression, never a start
        // folder, wherever a path stands first (`find {path} -name ...`)
        if self.spec.kind == SlotType::Path
            && matches!(text.as_str(), "!" | "(" | ")" | ",")
            && let Some(c) = text.chars().next()
        {
            return Err(SlotProblem::Character {
                slot: slot(),
                character: chars::describe(c),
                guidance: "a path that is only `!`, `(`, `)` or `,` is read by find as part of \
                           its expression, not as a folder; for a file of that name write \"./!\"",
                got: quote(&text),
            });
        }
        if text.starts_with('-') && !self.spec.allow_leading_dash {
            return Err(SlotProblem::LeadingDash {
                slot: slot(),
                guidance: match self.spec.kind {
                    SlotType::Path => "for a file whose name begins with \"-\", write \"./-name\"",
                    SlotType::Number => "negative numbers are not accepted here",
                    _ => {
                        "rephrase the value so it does not begin with \"-\" (in a regular expression, \"[-]x\" matches \"-x\")"
                    }
                },
                got: quote(&text),
            });
        }
        Ok(text)
    }

    fn missing(&self) -> SlotProblem {
        SlotProblem::Missing {
            slot: self.name.to_string(),
            kind: match self.spec.kind {
                SlotType::Number => "number",
                SlotType::Path => "path inside the workspace",
                _ => "string",
            },
            hint: match self.spec.description.as_str() {
                "" => String::new(),
                description => format!(" ({description})"),
            },
        }
    }

    fn described(&self) -> String {
        match self.spec.description.as_str() {
            "" => String::new(),
            description => format!("; the slot is: {description}"),
        }
    }
}

/// Lenient coercion, then the type: the argv text of `value` for a slot of
/// `kind`, or `None` when it has the wrong type.
pub(crate) fn coerce(kind: SlotType, value: &Value) -> Option<String> {
    match (kind, value) {
        (SlotType::Number, Value::Number(n)) => Some(render_number(n)),
        (SlotType::Number, Value::String(s)) => {
            s.trim().parse::<Number>().ok().map(|n| render_number(&n))
        }
        (SlotType::Number, _) => None,
        (_, Value::String(s)) => Some(s.clone()),
        (_, Value::Number(n)) => Some(render_number(n)),
        (_, Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    }
}

/// A number as a program reads it: integers without a fraction or an
/// exponent (`5000`, not `5e3` or `5000.0`).
fn render_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        // Exactly representable integers print as integers.
        Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
        Some(f) => format!("{f}"),
        None => n.to_string(),
    }
}

fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", quote(s)),
        Value::Array(_) => "an array; pass a single value".to_owned(),
        Value::Object(_) => "an object; pass a single value".to_owned(),
    }
}

/// `value` quoted with every unusual character escaped, cut to a readable
/// length.
pub(crate) fn quote(value: &str) -> String {
    let mut chars = value.chars();
    let head: String = chars.by_ref().take(QUOTE_LIMIT).collect();
    if chars.next().is_some() {
        format!("{head:?}... ({} characters)", value.chars().count())
    } else {
        format!("{head:?}")
    }
}

/// The regular expression engine's complaint without its drawing of the
/// pattern: its last line, such as `unclosed group`.
fn regex_reason(text: &str) -> String {
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text);
    let last = last.trim();
    last.strip_prefix("error: ").unwrap_or(last).to_owned()
}
