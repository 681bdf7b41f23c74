//! Wiring: the [`FullPreset`] builder, the [`Registry`] of visible tools and
//! the dispatch of one call through every layer.
//!
//! This is the crate an integrator touches first. One builder sets the
//! workspace root and the kernel's limits, turns on the built-in command
//! tools (`grep`, `find`, `sed_print`), loads descriptor tools from a folder
//! (by default `<root>/.jig/tools` when it exists), adds code-form tools,
//! grants the exec tool only when asked, and places the runtime policy first
//! on every call.
//!
//! # Guarantees
//!
//! - Every call through [`Registry::dispatch`] goes, in this order, through
//!   the runtime policy (deny list, allow list), the approval rules, the
//!   tool's own validation, and the kernel. Nothing reaches the operating
//!   system any other way.
//! - A refusal at any layer is a `jig_lineage::ToolResult::Refused` whose text tells the model what to
//!   do instead; the registry never panics on model input. An unknown tool
//!   name answers with the list of available tools; arguments sent as a JSON
//!   string are accepted.
//! - **One run point.** `build` wraps every tool (built-in, descriptor,
//!   code-form, the exec tool, any `Tool` an integrator adds) in the same
//!   adapter, so dispatch, dry runs, the read-only class and approvals all
//!   see the invocation it vetted. On the final argv it applies the
//!   preset's deny list by invoked name, resolved target, versioned family
//!   (`python3.11`), `#!` interpreter, `/etc/shells` membership, launcher
//!   subcommand (`rustup run`) and multi-call binary; refuses a program
//!   inside the workspace unless
//!   [`dangerous_allow_workspace_programs`](FullPreset::dangerous_allow_workspace_programs);
//!   refuses environment variables a tool may not set (`LD_PRELOAD`,
//!   `PAGER`...: only a few neutral keys, and git's hardening for git); and
//!   judges the argv by its program's table (a filled `sed` script like an
//!   exec `sed` script), adding git's configuration neutralization to the
//!   environment for every form. Refusals are 622 (`run_refused`).
//! - A bad descriptor file is reported (613) and skipped; the rest load.
//! - Every call emits one audit event through `tracing` and, when a sink is
//!   set, one JSON line.
//! - The registry is `Send + Sync`; read-only calls can be told apart
//!   ([`Registry::is_concurrency_safe`]) and run in parallel.
//! - The registry is a `jig_lineage::Dispatcher`: a tool-call loop or a
//!   server calls it through that interface, and this crate depends on no
//!   tool-call crate. Schemas come from the lineage's one renderer per
//!   format ([`export`], [`SchemaFormat`], re-exported here).
//!
//! # Non-goals
//!
//! The preset adds no validation of its own: it wires the layers of the
//! crates below it. It does not sandbox the programs it runs (see
//! `jig-kernel`).
//!
//! # Example
//!
//! ```
//! use jig_presets::{FullPreset, SchemaFormat};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let workspace = tempfile::tempdir()?;
//! std::fs::write(workspace.path().join("notes.txt"), "TODO: ship\n")?;
//!
//! let built = FullPreset::new(workspace.path()).build()?;
//! let registry = built.registry;
//! assert_eq!(registry.names(), ["grep", "find", "sed_print"]);
//!
//! // What the model sees...
//! let tools = registry.schemas(SchemaFormat::OpenAi);
//! assert_eq!(tools[0]["function"]["name"], "grep");
//!
//! // ...and one call, end to end.
//! let result = registry.dispatch("grep", &json!({"pattern": "TODO", "path": "notes.txt"}));
//! assert_eq!(result.text(), "exit: 0\noutput: 1:TODO: ship\n");
//!
//! // A value that would change the command's shape is refused (614).
//! let refused = registry.dispatch("grep", &json!({"pattern": "x; rm -rf /"}));
//! assert!(refused.text().starts_with("error 614"));
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! None.
#![forbid(unsafe_code)]

mod builder;
mod dispatcher;
mod hooks;
mod registry;
mod runpoint;
mod wiring;

pub use builder::{Built, FullPreset, PresetError};
pub use jig_lineage::{SchemaFormat, export};
pub use registry::{DispatchOptions, Registry};
