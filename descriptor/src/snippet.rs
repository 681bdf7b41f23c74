//! The caret renderer: a problem's source line with carets under the spot,
//! as a compiler shows it. `jig check` prints it; it is the only copy.

use std::fmt;

use crate::locate::floor_char_boundary;
use crate::{DescriptorError, Location};

/// One source line and a caret line under the part at fault.
///
/// Displayed as the two lines:
///
/// ```text
///   "command": "grep -rn {pattern} {path} | head",
///                                         ^
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Snippet {
    /// The line's number, from 1.
    pub number: usize,
    /// The source line, without its line break.
    pub line: String,
    /// Blanks up to the spot (a tab where the line has a tab, so the carets
    /// stay aligned), then one `^` per character at fault (at least one).
    pub caret: String,
}

impl fmt::Display for Snippet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n{}", self.line, self.caret)
    }
}

impl Location {
    /// The line of `source` (the file's text) holding this location, with
    /// carets under the span (under the column when the span is not in
    /// `source`). `None` when the location is not in `source` at all.
    pub fn snippet(&self, source: &str) -> Option<Snippet> {
        let (line_start, number, start, len) = if self.span.start <= source.len() {
            let start = floor_char_boundary(source, self.span.start);
            let before = source.get(..start).unwrap_or_default();
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let number = before.matches('\n').count() + 1;
            let end = floor_char_boundary(source, self.span.end.max(start));
            let rest = source.get(start..).unwrap_or_default();
            let line_end = rest.find('\n').map_or(source.len(), |i| start + i);
            let len = source
                .get(start..end.min(line_end))
                .unwrap_or_default()
                .chars()
                .count()
                .max(1);
            let column = source
                .get(line_start..start)
                .unwrap_or_default()
                .chars()
                .count();
            (line_start, number, column, len)
        } else if self.line >= 1 {
            let line_start = nth_line_start(source, self.line)?;
            (line_start, self.line, self.column.saturating_sub(1), 1)
        } else {
            return None;
        };
        let line = source
            .get(line_start..)
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or_default();
        let indent: String = line
            .chars()
            .take(start)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        Some(Snippet {
            number,
            line: line.to_owned(),
            caret: format!("{indent}{}", "^".repeat(len)),
        })
    }
}

impl DescriptorError {
    /// The line of `source` (the file's text) holding the problem, and a
    /// caret line under it, for compiler-style output; `None` when the
    /// problem has no location in `source`.
    pub fn snippet(&self, source: &str) -> Option<Snippet> {
        self.location.as_ref()?.snippet(source)
    }
}

/// The byte where line `number` (1-based) starts.
fn nth_line_start(source: &str, number: usize) -> Option<usize> {
    if number == 1 {
        return Some(0);
    }
    source
        .match_indices('\n')
        .nth(number.checked_sub(2)?)
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::*;

    const SOURCE: &str = "{\n  \"name\": \"x\",\n  \"command\": \"bash {script}\"\n}\n";

    fn location(span: Range<usize>, line: usize, column: usize) -> Location {
        Location { line, column, span }
    }

    #[test]
    fn a_span_puts_carets_under_the_bytes() {
        let start = SOURCE.find("bash").unwrap();
        let snippet = location(start..start + 4, 3, 15).snippet(SOURCE).unwrap();
        assert_eq!(snippet.number, 3);
        assert_eq!(snippet.line, "  \"command\": \"bash {script}\"");
        assert_eq!(snippet.caret, "              ^^^^");
        assert_eq!(
            snippet.to_string(),
            "  \"command\": \"bash {script}\"\n              ^^^^"
        );
    }

    #[test]
    fn a_line_and_column_put_one_caret_when_the_span_is_past_the_end() {
        let past = SOURCE.len() + 1;
        let snippet = location(past..past, 2, 3).snippet(SOURCE).unwrap();
        assert_eq!(
            (
                snippet.number,
                snippet.line.as_str(),
                snippet.caret.as_str()
            ),
            (2, "  \"name\": \"x\",", "  ^")
        );
    }

    #[test]
    fn a_location_past_the_end_gives_no_snippet() {
        let past = SOURCE.len() + 1;
        assert_eq!(location(past..past, 40, 1).snippet(SOURCE), None);
        assert_eq!(location(past..past, 0, 0).snippet(SOURCE), None);
    }

    #[test]
    fn a_span_inside_a_character_does_not_panic() {
        let source = "{\"name\": \"é\"}";
        assert!(location(11..12, 1, 11).snippet(source).is_some());
        #[allow(clippy::reversed_empty_ranges)] // a span ending before it starts
        let reversed = 12..11;
        assert!(location(reversed, 1, 11).snippet(source).is_some());
    }

    #[test]
    fn tabs_keep_the_carets_aligned() {
        let source = "{\n\t\"name\": 5\n}";
        let at = source.find('5').unwrap();
        let snippet = location(at..at + 1, 2, 10).snippet(source).unwrap();
        assert_eq!(snippet.caret, "\t        ^");
    }
}
