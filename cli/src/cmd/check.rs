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

use crate::error::{CliError, EXIT_ERROR, EXIT_OK, exit};
use crate::preset::Policy;
use crate::settings::Settings;

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
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,
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
pub(crate) fn run(settings: &Settings, args: &CheckArgs) -> Result<ExitCode, CliError> {
    let dir = match (&args.dir, &settings.tools.value) {
        (Some(dir), _) | (None, Some(dir)) => dir.clone(),
        (None, None) => settings.root.value.join(".jig").join("tools"),
    };
    if !dir.is_dir() {
        return Err(CliError::NoFolder { path: dir });
    }
    let built = crate::preset::preset(settings, Policy::Ignore)?
        .with_descriptor_dir(&dir)
        .build()?;
    let loaded: Vec<String> = built
        .registry
        .tools()
        .filter(|tool| tool.form() == ToolForm::Descriptor)
        .map(|tool| tool.name().to_owned())
        .collect();
    let mut diagnostics: Vec<Diagnostic> = built
        .descriptor_errors
        .iter()
        .map(Diagnostic::from_error)
        .collect();
    diagnostics.extend(language_slots(&built.registry, &dir));
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

/// Values that pass a free string slot's own checks but that a program
/// with a language in its arguments (a sed script) reads as a command:
/// write a file, run a command, read a file.
const LANGUAGE_PROBES: &[&str] = &["1w/tmp/jig-probe", "1e", "1r/etc/passwd"];

/// Descriptor slots that feed a program's own language without an `enum`
/// or a `pattern`: the dry run of each loaded descriptor tool, with each
/// free string slot filled by [`LANGUAGE_PROBES`], judged by the same
/// program tables as every run. Such a file loads (the run point refuses
/// those values at run time), but it is reported: a slot like that is one
/// table gap away from running anything.
fn language_slots(registry: &jig_presets::Registry, dir: &Path) -> Vec<Diagnostic> {
    let files = descriptor_files(dir);
    let mut found = Vec::new();
    for tool in registry
        .tools()
        .filter(|t| t.form() == ToolForm::Descriptor)
    {
        let schema = tool.input_schema();
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let mut base = serde_json::Map::new();
        for (name, slot) in properties {
            let value = slot
                .get("default")
                .cloned()
                .or_else(|| slot.get("enum").and_then(|e| e.get(0)).cloned())
                .unwrap_or_else(|| match slot.get("type").and_then(Value::as_str) {
                    Some("number" | "integer") => json!(1),
                    _ => json!("1"),
                });
            base.insert(name.clone(), value);
        }
        if registry
            .dry_run(tool.name(), &Value::Object(base.clone()))
            .is_err()
        {
            continue;
        }
        for (name, slot) in properties {
            let free = slot.get("type").and_then(Value::as_str) == Some("string")
                && slot.get("enum").is_none()
                && slot.get("pattern").is_none();
            if !free {
                continue;
            }
            let refused = LANGUAGE_PROBES.iter().find_map(|probe| {
                let mut arguments = base.clone();
                arguments.insert(name.clone(), json!(probe));
                match registry.dry_run(tool.name(), &Value::Object(arguments)) {
                    Err(refusal) if refusal.code == ErrorCode::RunRefused => {
                        Some((*probe, refusal.message))
                    }
                    _ => None,
                }
            });
            if let Some((probe, why)) = refused {
                let file = files
                    .iter()
                    .find(|(_, tool_name)| tool_name == tool.name())
                    .map_or_else(|| dir.to_path_buf(), |(file, _)| file.clone());
                found.push(Diagnostic {
                    file,
                    location: None,
                    message: format!(
                        "slot `{name}` of tool `{}` feeds its program's own language: the \
                         value {probe:?} passes the slot's checks and is read as a command \
                         ({why}); give the slot an `enum` or a `pattern` (for line ranges: \
                         \"^\\\\d+(,\\\\d+)?$\")",
                        tool.name()
                    ),
                });
            }
        }
    }
    found
}

/// Each `*.tool.json` file of `dir` with the tool name it declares.
fn descriptor_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".tool.json"))
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let value: Value = serde_json::from_str(&text).ok()?;
            let name = value.get("name")?.as_str()?.to_owned();
            Some((path, name))
        })
        .collect()
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
