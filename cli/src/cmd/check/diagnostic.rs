//! One problem in one descriptor file, rendered as a compiler would.

use std::path::PathBuf;

use jig_descriptor::{DescriptorError, Location};
use serde_json::{Value, json};

use super::CODE;

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Diagnostic {
    /// The file at fault.
    pub(super) file: PathBuf,
    /// Where in it (line, column, the offending bytes), when known.
    pub(super) location: Option<Location>,
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
            location: location.cloned(),
            message,
        }
    }

    /// `error[613]: message`, `--> file:line:col`, and the source line with a
    /// caret under the spot when the file can be read.
    pub(super) fn render(&self) -> String {
        let mut text = format!("error[{}]: {}\n", CODE.code(), self.message);
        let place = match &self.location {
            Some(l) => format!("{}:{}:{}", self.file.display(), l.line, l.column),
            None => self.file.display().to_string(),
        };
        let source = std::fs::read_to_string(&self.file).ok();
        let snippet = source
            .as_deref()
            .zip(self.location.as_ref())
            .and_then(|(source, location)| location.snippet(source));
        let gutter = snippet
            .as_ref()
            .map_or(1, |snippet| snippet.number.to_string().len());
        let pad = " ".repeat(gutter);
        text.push_str(&format!("{pad}--> {place}\n"));
        if let Some(snippet) = snippet {
            text.push_str(&format!("{pad} |\n"));
            text.push_str(&format!("{} | {}\n", snippet.number, snippet.line));
            text.push_str(&format!("{pad} | {}\n", snippet.caret));
        }
        text
    }

    /// The diagnostic as JSON.
    pub(super) fn to_json(&self) -> Value {
        json!({
            "code": CODE.code(),
            "error_type": CODE.error_type(),
            "file": self.file.display().to_string(),
            "line": self.location.as_ref().map(|l| l.line),
            "column": self.location.as_ref().map(|l| l.column),
            "span": self.location.as_ref().map(|l| json!({"start": l.span.start, "end": l.span.end})),
            "message": self.message,
        })
    }
}
