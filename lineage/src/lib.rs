//! The command tool lineage: tools whose whole command is fixed by a
//! person, where the model only fills typed slots.
//!
//! Every tool in jig that runs a command is a template plus the parts the
//! model may vary. This crate owns the [`Tool`] interface they all
//! implement, the command tools themselves ([`CommandTool`], built from a
//! [`CommandSpec`]), the validation of slot values (error 614), the
//! deny-binaries list ([`DenyList`]), path confinement ([`confine_path`]),
//! the one table of error codes ([`ErrorCode`]), the built-in tools
//! `grep`, `find` and `sed_print`, and what a tool-call loop or server
//! speaks to: the [`Dispatcher`] interface, the tool metadata it lists
//! ([`ToolInfo`]) and the schema export in each model API's shape
//! ([`export`], [`SchemaFormat`]).
//!
//! # Guarantees
//!
//! - **The program is fixed.** A template's first token is a literal
//!   program name, never a slot, and it is the tool's whole binary allow
//!   list. A program on the [`DenyList`] (destructive and privilege tools,
//!   shells, launchers such as `env` or `xargs`, network tools), however it
//!   is written (`rm`, `/bin/rm`, `./rm`), cannot be built into a tool.
//! - **One slot, one argument.** Each slot value becomes exactly one argv
//!   element (or part of one, as in `{range}p`); the argv always has
//!   exactly the template's token count, and every fixed token is
//!   byte-identical to the template. The value is the literal text the
//!   model sent: never normalized (no NFC/NFKC, so a look-alike `;` stays a
//!   harmless literal), never expanded, never decoded.
//! - **No shell reading.** Values holding a space, a quote, `;` `|` `&` `$`
//!   a backtick `>` `<`, a line break, any other control character, any
//!   Unicode whitespace, or an invisible or text-direction character are
//!   refused ([`REFUSED_CHARACTERS`] is the seed set). Templates may not
//!   hold them either.
//! - **No option injection.** A value beginning with `-` is refused unless
//!   the slot opts in through the visibly named
//!   [`SlotSpec::dangerous_allow_leading_dash`] (never for path slots).
//! - **Paths stay in the workspace.** A `path` slot is resolved from the
//!   canonical workspace root as the operating system would (symbolic links
//!   of the existing part followed, `..` applied) and refused when it lands
//!   outside the root, under `/proc`, `/sys` or `/dev`, or on a device,
//!   FIFO or socket ([`confine_path`]).
//! - **One path for every form.** Code-form tools and descriptor files are
//!   the same [`CommandSpec`] value built by the same function,
//!   [`CommandTool::build`]: there is no second validation path.
//! - **The dry run is the run.** [`Tool::check`] needs no I/O beyond path
//!   checks and returns the exact [`Invocation`] that the registry hands
//!   to the kernel after the run point vetted it. A refusal is a value (a
//!   [`Refusal`] whose text names the slot and says how to succeed), never
//!   a panic.
//!
//! Validation of one call, in order: the arguments are an object; unknown
//! argument names; required slots; then per slot lenient coercion (`"5000"`
//! for a number, `42` for a string) and the type, the enum, the pattern
//! (matched against the whole value), the characters, the leading dash,
//! path confinement.
//!
//! # Non-goals
//!
//! - Does not spawn or run anything: the registry (`jig-presets`) hands the
//!   vetted argv to `jig-kernel`, which owns the working directory, the
//!   timeout and the output budget.
//! - Does not read descriptor files: see `jig-descriptor`, which parses them
//!   into a [`CommandSpec`] and calls [`CommandTool::build`].
//! - Does not decide which tools may run now (see `jig-policy`) and does
//!   not parse free command lines (see `jig-exec-tool`).
//! - Does not judge what a command does with a valid argument: a path
//!   inside the workspace may still name a secret there (`.env`); keeping
//!   secrets out of the workspace, or out of the tool set, is the
//!   integrator's policy.
//! - No pipelines, chains, nested or conditional slots: one simple command
//!   per call.
//!
//! # Example
//!
//! ```
//! use jig_lineage::{CommandSpec, CommandTool, DenyList, SlotSpec, Tool, ToolForm};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = CommandSpec::new("count_lines", "Count the lines of a file", "wc -l {path}")
//!     .slot("path", SlotSpec::path("File to count").required())
//!     .with_read_only(true);
//! let tool = CommandTool::build(spec, &DenyList::default(), ToolForm::Command)?;
//!
//! let root = std::env::current_dir()?.canonicalize()?;
//! let invocation = tool.check_in(&json!({"path": "Cargo.toml"}), &root)?;
//! assert_eq!(invocation.argv, ["wc", "-l", "Cargo.toml"]);
//!
//! let refusal = tool.check_in(&json!({"path": "../../etc/passwd"}), &root).unwrap_err();
//! assert_eq!(refusal.code.code(), 614);
//! assert!(refusal.render().contains("outside the workspace"));
//!
//! // A denied program cannot become a tool at all.
//! let spec = CommandSpec::new("wipe", "Remove a file", "rm {path}")
//!     .slot("path", SlotSpec::path("File").required());
//! assert!(CommandTool::build(spec, &DenyList::default(), ToolForm::Command).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! [`Tool::check`] is the same dry run for any tool: it takes a
//! [`CheckContext`] (the canonical root and the search path), never the
//! kernel. No tool runs anything: the registry (`jig-presets`) is the one
//! caller of the kernel; it hands the vetted argv to the kernel with
//! [`Invocation::run_options`] and reports with [`ToolResult::from_run`].
//!
//! # Features
//!
//! None.
#![forbid(unsafe_code)]

mod builtin;
mod chars;
mod codes;
mod command;
mod deny;
mod dispatch;
mod export;
mod layer;
mod path;
mod pointer;
mod protected;
mod schema;
mod slot;
mod spec;
mod template;
mod tool;
mod value;

pub use builtin::{
    BUILTIN_NAMES, builtin_specs, builtin_tools, find_spec, find_tool, grep_spec, grep_tool,
    sed_print_spec, sed_print_tool,
};
pub use chars::{REFUSED_CHARACTERS, is_invisible};
pub use codes::ErrorCode;
pub use command::CommandTool;
pub use deny::{
    DEFAULT_DENIED, DEFAULT_DENIED_INTERPRETERS, DEFAULT_DENIED_PREFIXES,
    DEFAULT_DENIED_SUBCOMMANDS, DenyList, LAUNCHERS, MULTI_CALL, SHELL_ESCAPES, family,
    program_name,
};
pub use dispatch::{Dispatcher, ToolInfo};
pub use export::{SchemaFormat, export};
pub use layer::Layer;
pub use path::{PathRefusal, confine_path};
pub use pointer::{escape_pointer_segment, unescape_pointer_segment};
pub use protected::{PROTECTED_PATHS, Protected, is_secret_name, linked_git_dir};
pub use slot::{SlotSpec, SlotType};
pub use spec::{CommandSpec, SpecError};
pub use template::{SlotName, Template, TemplateError, Token};
pub use tool::{CheckContext, Invocation, Refusal, Tool, ToolAudit, ToolForm, ToolResult, Writes};
