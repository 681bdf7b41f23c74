//! Descriptor tools: command tools declared in `*.tool.json` files, loaded
//! through the lineage's own validation.
//!
//! A descriptor file is the JSON form of [`jig_lineage::CommandSpec`]: a
//! name, a description, a `command` template and its `arguments` (slots).
//! This crate reads such files, checks each against the published format
//! ([`DESCRIPTOR_SCHEMA`], the file `descriptor/descriptor.schema.json`)
//! and hands the specification to [`jig_lineage::CommandTool::build`], the
//! same function that builds tools written in Rust.
//!
//! ```json
//! {
//!   "name": "search_text",
//!   "description": "Search text in workspace files",
//!   "command": "grep -rn {pattern} {path}",
//!   "arguments": {
//!     "pattern": {"type": "string", "description": "Text pattern to search", "required": true},
//!     "path": {"type": "path", "description": "Directory or file to search", "default": "."}
//!   },
//!   "read_only": true
//! }
//! ```
//!
//! # Guarantees
//!
//! - **No second validation path.** A descriptor becomes a tool only
//!   through [`jig_lineage::CommandTool::build`]: templates, the deny list,
//!   slot rules, argument validation (614) and path confinement are the
//!   lineage's, byte for byte. A descriptor tool is as safe as a built-in,
//!   which is why descriptors load by default.
//! - **One bad file never hides the others.** Each bad file is one
//!   [`DescriptorError`] (error 613) naming the file and, where known, the
//!   line, column, byte span and JSON pointer of the problem: invalid
//!   JSON, a duplicate key, unknown keys or wrong types (checked against
//!   the schema), a template with a slot or metacharacter in the program
//!   or a denied program, slots used and not declared or declared and not
//!   used, a name taken by a built-in. The file is skipped; the others
//!   load.
//! - **A new file never changes what a tool name runs.** A name that two
//!   or more files define is an error in each of them, naming the others,
//!   and none of them loads (in the first version, the first file in name
//!   order won, so adding a file could take over a name).
//! - **Deterministic.** Only `*.tool.json` files of the folder itself are
//!   read, in file name order, so what loads and the order of the errors
//!   never depend on the file system.
//! - **Untrusted text never panics**, and files over
//!   [`MAX_DESCRIPTOR_BYTES`] are refused unread.
//! - **Fast.** A thousand files load in a few milliseconds (`cargo xtask
//!   bench` records `descriptor.load_1000_ms`). A file that follows the
//!   schema is accepted by a hand check of the same rules, never more
//!   lenient; the schema is compiled (once) only to judge and explain a file
//!   that does not, so a process that loads good files never compiles it.
//!
//! # Non-goals
//!
//! - No tool store, distribution, signing or versioning: sharing a tool is
//!   copying one file.
//! - No YAML, no skills (the loader is shaped so that a `*.skill.json`
//!   loader could reuse [`parse_str`] and its diagnostics), no subfolders.
//! - Does not run anything or decide which tools may run: see `jig-lineage`
//!   and `jig-policy`. Does not print diagnostics: `jig check` does, and
//!   takes the source line and carets from [`Location::snippet`] (the one
//!   caret renderer; [`DescriptorError::snippet`] is the same).
//!
//! # Example
//!
//! ```
//! use jig_lineage::{BUILTIN_NAMES, DenyList, Tool};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(
//!     dir.path().join("count.tool.json"),
//!     r#"{"name": "count_lines", "description": "Count the lines of a file",
//!         "command": "wc -l {path}",
//!         "arguments": {"path": {"type": "path", "required": true}}}"#,
//! )?;
//! std::fs::write(
//!     dir.path().join("wipe.tool.json"),
//!     r#"{"name": "wipe", "description": "Remove a file", "command": "rm {path}",
//!         "arguments": {"path": {"type": "path", "required": true}}}"#,
//! )?;
//!
//! let report = jig_descriptor::load_dir(dir.path(), &DenyList::default(), BUILTIN_NAMES);
//! assert_eq!(report.tools.len(), 1);
//! assert_eq!(report.tools[0].name(), "count_lines");
//! assert_eq!(report.errors.len(), 1);
//! let error = report.errors[0].to_string();
//! assert!(error.starts_with("error 613: "), "{error}");
//! assert!(error.contains("wipe.tool.json:1:62: the program \"rm\" is on the deny list"), "{error}");
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! None.
#![forbid(unsafe_code)]

mod conform;
mod error;
mod format;
mod load;
mod locate;
mod snippet;

pub use error::{DescriptorError, Location, Problem};
pub use format::{DESCRIPTOR_SCHEMA, descriptor_schema};
pub use load::{
    DESCRIPTOR_SUFFIX, LoadReport, MAX_DESCRIPTOR_BYTES, load_dir, load_file, parse_str,
};
pub use snippet::Snippet;
