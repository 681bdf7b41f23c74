//! The free-text exec tool: it decides whether one command line a model
//! wrote may run, and what exactly runs.
//!
//! The exec tool is the special form of jig's lineage of command tools.
//! A command tool fixes the whole command and lets the model fill typed
//! slots; the exec tool fixes only the program, chosen from an allow list,
//! and lets the model write everything else. That freedom makes it the
//! weakest form, so it is off unless an integrator grants it, and what it
//! accepts is judged by five layers (numbered as in the specification,
//! listed in the order they are checked), each refusing with guidance the
//! model can act on (error 615 `exec_refused`):
//!
//! - **Layer 3, operator scan** (`exec.operator`). The text is tokenized with POSIX
//!   shell quoting and runs as that argv, never through a shell. Anything
//!   a shell would read differently from the literal words is refused, not
//!   rewritten: unquoted `; | & < > ( )`, line breaks, comments, `$`
//!   expansions and backticks (also inside double quotes), unquoted globs
//!   and brace expansion, a leading `~`, leading `NAME=value`, shell
//!   builtins, control and invisible characters, backslashes before
//!   ordinary letters (`w\ho\am\i`) and a quoted program name.
//! - **Layer 2, deny list** (`exec.denylist`): [`jig_lineage::DenyList`], shared with
//!   every form, wins over the allow list.
//! - **Layer 1, allow list** (`exec.allowlist`): a bare program name on the
//!   [`AllowList`] ([`AllowList::default_read_only`] by default), looked up
//!   by the kernel on its fixed search path; `./cat` and `/bin/cat` are
//!   refused.
//! - **Layer 4, option tables** (`exec.flags`): one table per known program lists
//!   the options that run code or read and write files beyond the
//!   command's purpose (`find -exec`, `sed -i` and sed's `e`/`w`/`r`
//!   commands, `git -c`, `tar --to-command`, `rg --pre`, `sort
//!   --compress-program`, `python -c`...), found however they hide: bundled
//!   short flags, attached values, GNU abbreviations (`--to-comm`),
//!   options after operands, `--`. Interpreters, compilers and build tools
//!   may only report their version; launchers (`env`, `xargs`, `timeout`,
//!   `npx`...) are always refused; `git` runs only read-only subcommands.
//!   Then **path confinement** (`exec.path`): every operand that names a
//!   file and every file-taking option value goes through
//!   [`jig_lineage::confine_path`], as a `path` slot does.
//! - **Layer 5, the kernel**: locked working directory, clean environment, closed
//!   stdin, timeout over the whole process tree, bounded output.
//!
//! Every git run also gets an environment that neutralizes configuration
//! which would make read-only git run programs (`core.fsmonitor`, pagers,
//! diff drivers and filters, signature programs, transports), including the
//! repository's own `.git/config`: see [`jig_programs::GIT_ENV`] and [`jig_programs::GIT_CONFIG`].
//!
//! Accepted commands are classified ([`CommandClass`]: search, read, list,
//! neutral, other) and reported read-only through
//! [`Invocation::read_only`](jig_lineage::Invocation::read_only) so a
//! harness may run them concurrently. [`PermissionRule`]s such as `git log
//! *` are matched on the parsed argv; `ask` rules set
//! [`Invocation::needs_approval`](jig_lineage::Invocation::needs_approval)
//! for the policy layer, `deny` rules refuse (`exec.rule`). Text that
//! cannot be parsed matches every rule.
//!
//! # Threat model
//!
//! The model is not trusted, and neither are the workspace's files (a
//! cloned repository may carry a hostile `.git/config`, `.npmrc` or
//! `Makefile`). What each layer stops:
//!
//! - the **operator scan** stops command chaining and injection (`ls; rm`,
//!   `$(…)`, backticks), redirects that write or read files, here-documents,
//!   expansions that hide words from the other layers (`cat${IFS}/etc/passwd`,
//!   `{cat,/etc/passwd}`, `/???/??t`), environment injection (`PAGER=…
//!   git`, `LD_PRELOAD=…`) and obfuscation aimed at the text-level rules;
//! - the **deny and allow lists** stop programs that are never safe
//!   (shells, `rm`, `sudo`, network tools) and every program the integrator
//!   did not name;
//! - the **option tables** stop allowed programs from being turned into a
//!   code runner or a file writer: inline code (`python -c`, `node -e`,
//!   awk programs, sed's `e`), helper programs (`rg --pre`, `tar -I`, `git
//!   --upload-pack`, `zip -TT`), writes (`sort -o`, `find -fprint`, `git
//!   --output`), readers of file lists (`wc --files0-from`, `file -f`,
//!   `tar -T`), links followed out of the workspace (`grep -R`, `find -L`),
//!   launchers, and programs that run project files (`make`, `cargo build`,
//!   `yarn`, whose `yarnPath` runs even for `--version`);
//! - **path confinement** stops reads and writes outside the workspace
//!   (`cat /etc/shadow`, `cat ../../x`, symbolic links out, `-C /`), special
//!   files (`head /dev/zero`, FIFOs) and `/proc`, `/sys`, `/dev`;
//! - the **git environment** stops repository configuration from running
//!   programs in read-only git;
//! - the **kernel** bounds what remains: time, output, the process tree.
//!
//! What no layer stops:
//!
//! - an allowed program used as designed on an allowed file: `cat .env`
//!   shows the secret in the workspace; keep secrets out of it;
//! - what the tables do not know: an option added by a new version of a
//!   program, or a program the integrator allows that has no table (it
//!   gets the generic rules only: every operand and every path-like option
//!   value confined, nothing else known about it);
//! - bugs and decompression bombs in the programs themselves, regular
//!   expressions that take long (the timeout ends them), and reading large
//!   files (the output budget truncates);
//! - configuration read from `HOME`: the kernel points it at
//!   `/nonexistent` by default, but an integrator may set another `HOME`
//!   (even the workspace); the tables neutralize it for git, pip and python
//!   and keep the programs known to run code from start-up files to
//!   `--version` (with `HOME` pointing nowhere), but a program not in the
//!   tables reads dotfiles from whatever `HOME` the integrator chose;
//! - toolchain managers that pick the real binary from files in the
//!   working folder (rustup's `rust-toolchain.toml`, pyenv shims) if the
//!   kernel's search path holds their shims (the default path does not);
//! - a hostile file system changing between the check and the run
//!   (a symbolic link swapped in after the dry run): confinement is a check
//!   of the moment, the operating-system sandbox around the agent is the
//!   only complete answer.
//!
//! # Non-goals
//!
//! - Does not spawn processes: runs go through `jig-kernel`.
//! - Does not rewrite commands: a command is run word for word or refused.
//! - No pipelines or chains: one simple command per call.
//! - Does not decide which tools are visible or who approves (see
//!   `jig-policy`); it only reports `needs_approval`.
//!
//! # Example
//!
//! ```
//! use jig_exec_tool::{AllowList, ExecTool, PermissionRule};
//! use jig_lineage::{CheckContext, Tool};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let workspace = tempfile::tempdir()?;
//! std::fs::write(workspace.path().join("notes.txt"), "TODO: write docs\n")?;
//! // The dry run needs the canonical workspace root, never the kernel.
//! let root = workspace.path().canonicalize()?;
//! let context = CheckContext::new(&root, &[]);
//! let tool = ExecTool::builder()
//!     .allow(AllowList::default_read_only())
//!     .rule(PermissionRule::ask("git push *")?)
//!     .build();
//!
//! // The dry run: what would run, and whether it only reads.
//! let invocation = tool.check(&json!({"command": "grep -n 'TODO' notes.txt"}), &context)?;
//! assert_eq!(invocation.argv, ["grep", "-n", "TODO", "notes.txt"]);
//! assert!(invocation.read_only);
//!
//! // Refusals are guidance for the model.
//! let refusal = tool.check(&json!({"command": "cat notes.txt | wc -l"}), &context).unwrap_err();
//! assert_eq!(refusal.layer.as_str(), "exec.operator");
//! assert!(refusal.message.contains("no pipes"));
//! let refusal = tool.check(&json!({"command": "cat /etc/passwd"}), &context).unwrap_err();
//! assert_eq!(refusal.layer.as_str(), "exec.path");
//! let refusal = tool.check(&json!({"command": "find . -delete"}), &context).unwrap_err();
//! assert_eq!(refusal.layer.as_str(), "exec.flags");
//!
//! // Parsing alone needs no workspace.
//! let parsed = ExecTool::parse(r#"grep -rn "fn main" src"#)?;
//! assert_eq!(parsed.argv(), ["grep", "-rn", "fn main", "src"]);
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! None. Linux, like the kernel.
#![forbid(unsafe_code)]

mod allow;
mod finding;
mod lexer;
mod rules;
mod scan;
mod tool;

pub use allow::{AllowList, AllowListError, DEFAULT_READ_ONLY};
pub use jig_programs::{CommandClass, classify};
pub use rules::{PermissionRule, RuleEffect, RuleError, RuleSubject};
pub use scan::{ParsedCommand, tokenize};
pub use tool::{EXEC_TOOL_NAME, ExecConfig, ExecTool};
