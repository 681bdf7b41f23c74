//! The character rules of slot values, and how to explain them.

/// The characters refused in every slot value by name (the seed set): each
/// means something to a shell, and a tool never needs it as a literal.
pub const REFUSED_CHARACTERS: &[char] = &[' ', '"', '\'', ';', '|', '&', '$', '`', '>', '<', '\n'];

/// Why a character is refused, from the model's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CharClass {
    Space,
    LineBreak,
    Whitespace,
    Control,
    Quote,
    Chain,
    Substitution,
    Redirect,
    Invisible,
}

/// The first refused character of `value`, and its class.
pub(crate) fn first_refused(value: &str) -> Option<(char, CharClass)> {
    value
        .chars()
        .find_map(|c| classify(c).map(|class| (c, class)))
}

/// The first character of `value` a `text` slot refuses (the phrase rule):
/// line breaks, whitespace other than the space, control and invisible
/// characters. Spaces, quotes and shell punctuation are allowed: the value
/// is one argument and no shell reads it.
pub(crate) fn first_refused_in_text(value: &str) -> Option<(char, CharClass)> {
    value.chars().find_map(|c| match classify(c) {
        Some(CharClass::Space | CharClass::Quote | CharClass::Chain)
        | Some(CharClass::Substitution | CharClass::Redirect)
        | None => None,
        Some(class) => Some((c, class)),
    })
}

fn classify(c: char) -> Option<CharClass> {
    Some(match c {
        ' ' => CharClass::Space,
        '\n' | '\r' | '\u{0085}' | '\u{2028}' | '\u{2029}' => CharClass::LineBreak,
        '"' | '\'' => CharClass::Quote,
        ';' | '|' | '&' => CharClass::Chain,
        '$' | '`' => CharClass::Substitution,
        '>' | '<' => CharClass::Redirect,
        c if c.is_whitespace() => CharClass::Whitespace,
        c if c.is_control() => CharClass::Control,
        c if is_invisible(c) => CharClass::Invisible,
        _ => return None,
    })
}

/// Whether `c` is a character people cannot see or that changes how text
/// reads: the one classifier of slot values and exec commands, derived from
/// Unicode properties (not from a list of examples): general categories
/// Control (C0 and C1), Format, Line and Paragraph Separator, and the
/// Default_Ignorable_Code_Point, Bidi_Control and Variation_Selector
/// properties. Such characters make a value read differently from what runs
/// (Trojan Source), or smuggle text past a reader (tag characters).
pub fn is_invisible(c: char) -> bool {
    use icu_properties::props::{
        BidiControl, DefaultIgnorableCodePoint, GeneralCategory, VariationSelector,
    };
    use icu_properties::{CodePointMapData, CodePointSetData};
    let category = CodePointMapData::<GeneralCategory>::new().get(c);
    matches!(
        category,
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    ) || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<BidiControl>().contains(c)
        || CodePointSetData::new::<VariationSelector>().contains(c)
}

/// A readable name for `c`: `a space`, `a tab (U+0009)`, `U+202E`...
pub(crate) fn describe(c: char) -> String {
    let code = format!("U+{:04X}", u32::from(c));
    match c {
        ' ' => "a space".to_owned(),
        '\n' => "a line break".to_owned(),
        '\t' => format!("a tab ({code})"),
        '\0' => format!("a NUL byte ({code})"),
        '"' => "a double quote".to_owned(),
        '\'' => "a single quote".to_owned(),
        '`' => "a backtick".to_owned(),
        ';' | '|' | '&' | '$' | '>' | '<' => format!("{c:?}"),
        c if c.is_ascii_graphic() => format!("{c:?}"),
        _ => code,
    }
}

/// What to do instead, per class.
pub(crate) fn guidance(class: CharClass) -> &'static str {
    match class {
        CharClass::Space => {
            "values cannot contain spaces, since each value is exactly one argument; pass a single word, or write the text to a file in the workspace and pass its path"
        }
        CharClass::LineBreak => {
            "values cannot contain line breaks; pass a single line, or write the text to a file in the workspace and pass its path"
        }
        CharClass::Whitespace => {
            "values cannot contain whitespace of any kind (tabs, no-break or other Unicode spaces), since each value is exactly one argument; pass a single word"
        }
        CharClass::Control => {
            "values cannot contain control characters; remove it and pass plain text"
        }
        CharClass::Quote => {
            "values cannot contain quotes; no shell reads them, so quoting is never needed: pass the bare text"
        }
        CharClass::Chain => {
            "values cannot contain `;`, `|` or `&`: a tool runs one command with fixed arguments, never a chain or a pipe; make one call per command (or per alternative)"
        }
        CharClass::Substitution => {
            "values cannot contain `$` or backticks: nothing is expanded or substituted; pass the literal text you mean"
        }
        CharClass::Redirect => {
            "values cannot contain `<` or `>`: there is no redirection; pass a file's path as the argument instead"
        }
        CharClass::Invisible => {
            "values cannot contain invisible or text-direction characters; type the text without them"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let cases = [
            ("a b", Some(CharClass::Space)),
            ("a\u{00A0}b", Some(CharClass::Whitespace)),
            ("a\u{3000}b", Some(CharClass::Whitespace)),
            ("a\tb", Some(CharClass::Whitespace)),
            ("a\u{2028}b", Some(CharClass::LineBreak)),
            ("a\u{0085}b", Some(CharClass::LineBreak)),
            ("a\u{1b}b", Some(CharClass::Control)),
            ("a\0b", Some(CharClass::Control)),
            ("a\u{202E}b", Some(CharClass::Invisible)),
            ("a\u{E0041}b", Some(CharClass::Invisible)),
            ("x'y", Some(CharClass::Quote)),
            ("x;y", Some(CharClass::Chain)),
            ("$(id)", Some(CharClass::Substitution)),
            ("<x", Some(CharClass::Redirect)),
            ("caf\u{e9}", None),
            ("\u{FE54}id", None),
            ("*.[ch]", None),
        ];
        for (value, class) in cases {
            assert_eq!(first_refused(value).map(|(_, c)| c), class, "{value:?}");
        }
    }

    #[test]
    fn seed_set_is_refused() {
        for c in REFUSED_CHARACTERS {
            assert!(classify(*c).is_some(), "{c:?}");
        }
    }
}
