//! `jig check`: descriptor files checked like a compiler checks code: one
//! diagnostic per problem with code 613, the file, the line and column, and a
//! caret under the offending spot when it is known.
//!
//! The files are loaded by the same preset build that `jig call` and
//! `jig mcp` use, so a file `jig check` accepts is a file they load, and a
//! clash with a built-in tool is found here too.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use jig_lineage::{ErrorCode, ToolForm};
use serde_json::{Value, json};

use crate::args::GlobalArgs;
use crate::error::{CliError, EXIT_ERROR, EXIT_OK, exit};
use crate::preset::Policy;

mod diagnostic;

use diagnostic::Diagnostic;

/// Arguments of `jig check`.
#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 when every file loads, 1 when any file is bad (or the folder is missing).")]
pub(crate) struct CheckArgs {
    /// The folder to check [default: --tools, or <root>/.jig/tools]
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Diagnostics for a person, or JSON for a program
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// How `jig check` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Compiler-style diagnostics
    Text,
    /// One JSON object
    Json,
}

/// Checks every `*.tool.json` file of the folder.
pub(crate) fn run(global: &GlobalArgs, args: &CheckArgs) -> Result<ExitCode, CliError> {
    let dir = match (&args.dir, &global.tools) {
        (Some(dir), _) | (None, Some(dir)) => dir.clone(),
        (None, None) => global.root.join(".jig").join("tools"),
    };
    if !dir.is_dir() {
        return Err(CliError::NoFolder { path: dir });
    }
    let built = crate::preset::preset(global, Policy::Ignore)?
        .with_descriptor_dir(&dir)
        .build()?;
    let loaded: Vec<String> = built
        .registry
        .tools()
        .filter(|tool| tool.form() == ToolForm::Descriptor)
        .map(|tool| tool.name().to_owned())
        .collect();
    let diagnostics: Vec<Diagnostic> = built
        .descriptor_errors
        .iter()
        .map(Diagnostic::from_error)
        .collect();
    let files = count_files(&dir)?;
    let report = Report {
        dir: &dir,
        files,
        loaded: &loaded,
        diagnostics: &diagnostics,
    };
    match args.format {
        Format::Text => {
            // Diagnostics go where a compiler puts them; the summary too, so
            // stdout stays empty for scripts that only want the exit status.
            eprint!("{}", report.text());
        }
        Format::Json => super::print_json(&report.to_json())?,
    }
    Ok(exit(if diagnostics.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERROR
    }))
}

/// The number of `*.tool.json` files in `dir`.
fn count_files(dir: &Path) -> Result<usize, CliError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CliError::Read {
        what: format!("the folder {}", dir.display()),
        source,
    })?;
    Ok(entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tool.json"))
        .count())
}

struct Report<'a> {
    dir: &'a Path,
    files: usize,
    loaded: &'a [String],
    diagnostics: &'a [Diagnostic],
}

impl Report<'_> {
    fn text(&self) -> String {
        let mut text = String::new();
        for diagnostic in self.diagnostics {
            text.push_str(&diagnostic.render());
            text.push('\n');
        }
        let bad = self.diagnostics.len();
        text.push_str(&format!(
            "checked {} in {}: {} loaded ({}), {} {}\n",
            plural(self.files, "file"),
            self.dir.display(),
            plural(self.loaded.len(), "tool"),
            if self.loaded.is_empty() {
                "none".to_owned()
            } else {
                self.loaded.join(", ")
            },
            bad,
            if bad == 1 { "error" } else { "errors" },
        ));
        text
    }

    fn to_json(&self) -> Value {
        json!({
            "dir": self.dir.display().to_string(),
            "files": self.files,
            "loaded": self.loaded,
            "errors": self.diagnostics.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
            "ok": self.diagnostics.is_empty(),
        })
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The code of every `jig check` diagnostic.
const CODE: ErrorCode = ErrorCode::DescriptorInvalid;
