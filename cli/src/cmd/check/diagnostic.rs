//! One problem in one descriptor file, rendered as a compiler would.

use std::ops::Range;
use std::path::PathBuf;

use jig_descriptor::DescriptorError;
use serde_json::{Value, json};

use super::CODE;

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Diagnostic {
    /// The file at fault.
    pub(super) file: PathBuf,
    /// Where in it, 1-based, when known.
    pub(super) line: Option<usize>,
    /// Column (1-based, in characters), when known.
    pub(super) column: Option<usize>,
    /// The offending bytes, when known.
    pub(super) span: Option<Range<usize>>,
    /// What is wrong and how to fix it.
    pub(super) message: String,
}

impl Diagnostic {
    /// The diagnostic of a descriptor error.
    pub(super) fn from_error(error: &DescriptorError) -> Self {
        let location = error.location.as_ref();
        let message = match (&error.pointer, location) {
            // Without a line, the JSON pointer still says where.
            (Some(pointer), None) if !pointer.is_empty() => {
                format!("{} (at {pointer})", error.problem)
            }
            _ => error.problem.to_string(),
        };
        Self {
            file: error.path.clone(),
            line: location.map(|l| l.line),
            column: location.map(|l| l.column),
            span: location.map(|l| l.span.clone()),
            message,
        }
    }

    /// `error[613]: message`, `--> file:line:col`, and the source line with a
    /// caret under the spot when the file can be read.
    pub(super) fn render(&self) -> String {
        let mut text = format!("error[{}]: {}\n", CODE.code(), self.message);
        let location = match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{}:{line}:{column}", self.file.display()),
            (Some(line), None) => format!("{}:{line}", self.file.display()),
            _ => self.file.display().to_string(),
        };
        let source = std::fs::read_to_string(&self.file).ok();
        let snippet = source.as_deref().and_then(|source| self.snippet(source));
        let gutter = snippet
            .as_ref()
            .map_or(1, |(number, _, _)| number.to_string().len());
        let pad = " ".repeat(gutter);
        text.push_str(&format!("{pad}--> {location}\n"));
        if let Some((number, line, caret)) = snippet {
            text.push_str(&format!("{pad} |\n"));
            text.push_str(&format!("{number} | {line}\n"));
            text.push_str(&format!("{pad} | {caret}\n"));
        }
        text
    }

    /// The line number, the source line and the caret line under the spot.
    fn snippet(&self, source: &str) -> Option<(usize, String, String)> {
        let (line_start, number, start, len) = match (&self.span, self.line, self.column) {
            (Some(span), _, _) if span.start <= source.len() => {
                let start = floor_char(source, span.start);
                let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
                let number = source[..start].matches('\n').count() + 1;
                let end = floor_char(source, span.end.max(start));
                let line_end = source[start..]
                    .find('\n')
                    .map_or(source.len(), |i| start + i);
                let len = source[start..end.min(line_end)].chars().count().max(1);
                (
                    line_start,
                    number,
                    source[line_start..start].chars().count(),
                    len,
                )
            }
            (_, Some(number), column) if number >= 1 => {
                let line_start = nth_line_start(source, number)?;
                (line_start, number, column.unwrap_or(1).saturating_sub(1), 1)
            }
            _ => return None,
        };
        let line = source[line_start..].lines().next().unwrap_or("");
        let prefix: String = line.chars().take(start).collect();
        // Tabs keep their width under the caret.
        let indent: String = prefix
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let caret = format!("{indent}{}", "^".repeat(len));
        Some((number, line.to_owned(), caret))
    }

    /// The diagnostic as JSON.
    pub(super) fn to_json(&self) -> Value {
        json!({
            "code": CODE.code(),
            "error_type": CODE.error_type(),
            "file": self.file.display().to_string(),
            "line": self.line,
            "column": self.column,
            "span": self.span.as_ref().map(|s| json!({"start": s.start, "end": s.end})),
            "message": self.message,
        })
    }
}

/// The byte where line `number` (1-based) starts.
fn nth_line_start(source: &str, number: usize) -> Option<usize> {
    if number == 1 {
        return Some(0);
    }
    source
        .match_indices('\n')
        .nth(number - 2)
        .map(|(i, _)| i + 1)
        .filter(|&i| i <= source.len())
}

/// The largest char boundary at or before `index`.
fn floor_char(source: &str, index: usize) -> usize {
    let mut index = index.min(source.len());
    while !source.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "{\n  \"name\": \"x\",\n  \"command\": \"bash {script}\"\n}\n";

    fn diagnostic(
        span: Option<Range<usize>>,
        line: Option<usize>,
        column: Option<usize>,
    ) -> Diagnostic {
        Diagnostic {
            file: PathBuf::from("/nonexistent/x.tool.json"),
            line,
            column,
            span,
            message: "denied".to_owned(),
        }
    }

    #[test]
    fn a_span_puts_carets_under_the_bytes() {
        let start = SOURCE.find("bash").unwrap();
        let d = diagnostic(Some(start..start + 4), Some(3), Some(15));
        let (number, line, caret) = d.snippet(SOURCE).unwrap();
        assert_eq!(number, 3);
        assert_eq!(line, "  \"command\": \"bash {script}\"");
        assert_eq!(caret, "              ^^^^");
    }

    #[test]
    fn a_line_and_column_put_one_caret() {
        let d = diagnostic(None, Some(2), Some(3));
        let (number, line, caret) = d.snippet(SOURCE).unwrap();
        assert_eq!(
            (number, line.as_str(), caret.as_str()),
            (2, "  \"name\": \"x\",", "  ^")
        );
    }

    #[test]
    fn a_location_past_the_end_gives_no_snippet() {
        assert_eq!(diagnostic(None, Some(40), Some(1)).snippet(SOURCE), None);
        assert_eq!(diagnostic(None, None, None).snippet(SOURCE), None);
    }

    #[test]
    fn a_span_inside_a_character_does_not_panic() {
        let source = "{\"name\": \"é\"}";
        let d = diagnostic(Some(11..12), Some(1), Some(11));
        assert!(d.snippet(source).is_some());
    }
}
