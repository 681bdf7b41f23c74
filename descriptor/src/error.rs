//! Error 613: a descriptor file that cannot become a tool.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

use jig_lineage::{ErrorCode, SpecError};

/// Where in a file a problem is: a 1-based line and column (the column
/// counts characters) and the byte span it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Location {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// The bytes of the file at fault (may be empty: a point).
    pub span: Range<usize>,
}

/// One bad descriptor file (error 613). The file is skipped; the others
/// still load.
///
/// Displayed compiler-style: `error 613: tools/x.tool.json:3:14: message`.
#[derive(Debug)]
#[non_exhaustive]
pub struct DescriptorError {
    /// The file, as the loader was given it (the folder joined with the
    /// file name).
    pub path: PathBuf,
    /// Where in the file, when known.
    pub location: Option<Location>,
    /// The JSON pointer of the value at fault, when known (`/command`,
    /// `/arguments/path/default`...).
    pub pointer: Option<String>,
    /// What is wrong (boxed to keep results small).
    pub problem: Box<Problem>,
}

/// What is wrong with a descriptor file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// The file cannot be read.
    #[error("the file cannot be read: {source}")]
    Read {
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("the file is not UTF-8 text (an invalid byte is here); save it as UTF-8")]
    NotUtf8,
    /// The file is larger than a descriptor can be.
    #[error("the file is {size} bytes; a descriptor is at most {limit} bytes")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is not JSON.
    #[error("invalid JSON: {message}")]
    Json {
        /// The parser's message, without its position.
        message: String,
    },
    /// A key appears twice in one object.
    #[error("the key {key:?} appears twice in the same object; keep one")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// The file does not follow the descriptor schema.
    #[error("{message}")]
    Schema {
        /// What the schema says is wrong.
        message: String,
    },
    /// The declared tool is not valid (template, deny list, slots...).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The program's table refuses the template's fixed part (an option
    /// such as `sed -i`, a fixed script that writes, a launcher).
    #[error(
        "the program's table refuses the command's fixed part: {finding}; a descriptor may only \
         fix what its program's table accepts"
    )]
    ProgramRefused {
        /// What the table found.
        finding: jig_programs::Finding,
    },
    /// A `text` slot without `enum` or `pattern` sits where the program
    /// reads its own language.
    #[error(
        "slot {slot:?} is a text slot where the program reads its own language (a sed script): a phrase there can be a command; give it an \"enum\" or a \"pattern\", or make it a string slot"
    )]
    TextInLanguage {
        /// The slot.
        slot: String,
    },
    /// The name is taken by a built-in (or otherwise reserved) tool.
    #[error("the name {name:?} is taken by a built-in tool; choose another name")]
    Reserved {
        /// The name.
        name: String,
    },
    /// Other descriptor files define the same name: none of them loads, so
    /// that adding a file cannot change what an existing tool name runs.
    #[error(
        "the name {name:?} is also defined by {}; none of these files is loaded (a new file \
         must not change what an existing tool runs): give each tool its own name",
        list_paths(others)
    )]
    NameTaken {
        /// The name.
        name: String,
        /// The other files that define it, in file name order.
        others: Vec<PathBuf>,
    },
}

/// `a.tool.json`, `a.tool.json and b.tool.json`, `a, b and c`.
fn list_paths(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

impl DescriptorError {
    /// Always [`ErrorCode::DescriptorInvalid`] (613).
    pub fn code(&self) -> ErrorCode {
        ErrorCode::DescriptorInvalid
    }
}

/// The message already holds the problem's text, so no source is chained.
impl std::error::Error for DescriptorError {}

impl fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error {}: {}", self.code(), self.path.display())?;
        if let Some(location) = &self.location {
            write!(f, ":{}:{}", location.line, location.column)?;
        } else if let Some(pointer) = self.pointer.as_deref().filter(|p| !p.is_empty()) {
            write!(f, " at {pointer}")?;
        }
        write!(f, ": {}", self.problem)
    }
}
