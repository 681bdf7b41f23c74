//! Loading descriptor files: read, parse, check against the schema, build
//! through the lineage.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use jig_lineage::{
    CommandSpec, CommandTool, DenyList, SlotName, SlotType, SpecError, Token, Tool, ToolForm,
    escape_pointer_segment, unescape_pointer_segment,
};
use serde_json::Value;

use crate::conform::surely_conforms;
use crate::error::{DescriptorError, Location, Problem};
use crate::format::{complaint, validator};
use crate::locate::{Found, duplicate_key, line_column, locate, offset_of};

/// The suffix of descriptor files; other files in the folder are ignored.
pub const DESCRIPTOR_SUFFIX: &str = ".tool.json";

/// The largest descriptor file read, in bytes.
pub const MAX_DESCRIPTOR_BYTES: u64 = 1 << 20;

/// What loading a folder came to: the tools that loaded, and one error per
/// file that did not.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct LoadReport {
    /// The tools, in file name order.
    pub tools: Vec<CommandTool>,
    /// The bad files (error 613), in file name order.
    pub errors: Vec<DescriptorError>,
}

/// Loads every `*.tool.json` file of `dir` (not its subfolders), in file
/// name order. A bad file is reported and skipped; the others load. A name
/// in `reserved` (the built-in tools') is an error; a name that two or more
/// files define is an error in each of them, naming the others, and none of
/// them loads: adding a file can never change what an existing tool name
/// runs. A folder that does not exist holds no tools.
pub fn load_dir(dir: &Path, deny: &DenyList, reserved: &[&str]) -> LoadReport {
    let mut report = LoadReport::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return report,
        Err(source) => {
            report
                .errors
                .push(whole_file(dir.to_path_buf(), Problem::Read { source }));
            return report;
        }
    };
    let mut files: Vec<(OsString, PathBuf)> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => {
                let name = entry.file_name();
                let path = entry.path();
                if name
                    .as_encoded_bytes()
                    .ends_with(DESCRIPTOR_SUFFIX.as_bytes())
                    && path.is_file()
                {
                    files.push((name, path));
                }
            }
            Err(source) => report
                .errors
                .push(whole_file(dir.to_path_buf(), Problem::Read { source })),
        }
    }
    files.sort();
    // Every file is parsed first; names are judged once all are known, so
    // that a name two files define is refused in both, whatever their order.
    let mut parsed: Vec<(PathBuf, String, CommandTool)> = Vec::new();
    for (_, path) in files {
        let text = match read(&path) {
            Ok(text) => text,
            Err(error) => {
                report.errors.push(error);
                continue;
            }
        };
        match parse_str(&text, &path, deny) {
            Ok(tool) => parsed.push((path, text, tool)),
            Err(error) => report.errors.push(error),
        }
    }
    let mut files_of: HashMap<&str, Vec<&Path>> = HashMap::new();
    for (path, _, tool) in &parsed {
        files_of.entry(tool.name()).or_default().push(path);
    }
    let mut refused: Vec<bool> = Vec::with_capacity(parsed.len());
    for (path, text, tool) in &parsed {
        let name = tool.name();
        let others: Vec<PathBuf> = files_of
            .get(name)
            .into_iter()
            .flatten()
            .filter(|other| **other != path.as_path())
            .map(|other| other.to_path_buf())
            .collect();
        let clash = if reserved.contains(&name) {
            Some(Problem::Reserved {
                name: name.to_owned(),
            })
        } else if others.is_empty() {
            None
        } else {
            Some(Problem::NameTaken {
                name: name.to_owned(),
                others,
            })
        };
        refused.push(clash.is_some());
        if let Some(problem) = clash {
            report.errors.push(at_pointer(path, text, "/name", problem));
        }
    }
    // Errors in file name order, whichever step found them.
    report.errors.sort_by(|a, b| a.path.cmp(&b.path));
    report.tools = parsed
        .into_iter()
        .zip(refused)
        .filter(|(_, refused)| !refused)
        .map(|((_, _, tool), _)| tool)
        .collect();
    report
}

/// Loads one descriptor file.
pub fn load_file(path: &Path, deny: &DenyList) -> Result<CommandTool, DescriptorError> {
    parse_str(&read(path)?, path, deny)
}

/// Reads a file, refusing files larger than [`MAX_DESCRIPTOR_BYTES`].
fn read(path: &Path) -> Result<String, DescriptorError> {
    let fail = |problem| whole_file(path.to_path_buf(), problem);
    let file = std::fs::File::open(path).map_err(|source| fail(Problem::Read { source }))?;
    let mut bytes = Vec::new();
    let read = file
        .take(MAX_DESCRIPTOR_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| fail(Problem::Read { source }))?;
    if read as u64 > MAX_DESCRIPTOR_BYTES {
        let size = std::fs::metadata(path).map_or(read as u64, |m| m.len());
        return Err(fail(Problem::TooLarge {
            size,
            limit: MAX_DESCRIPTOR_BYTES,
        }));
    }
    String::from_utf8(bytes).map_err(|error| {
        let valid = error.utf8_error().valid_up_to();
        let prefix = String::from_utf8_lossy(error.as_bytes().get(..valid).unwrap_or_default());
        let (line, column) = line_column(&prefix, prefix.len());
        DescriptorError {
            path: path.to_path_buf(),
            location: Some(Location {
                line,
                column,
                span: valid..valid + 1,
            }),
            pointer: None,
            problem: Box::new(Problem::NotUtf8),
        }
    })
}

/// Parses the text of a descriptor file and builds its tool. `path` is the
/// file's name in messages.
///
/// In order: JSON syntax, duplicate keys, the descriptor schema, then
/// [`CommandTool::build`] (template, deny list, slots); the first problem
/// is the error.
pub fn parse_str(text: &str, path: &Path, deny: &DenyList) -> Result<CommandTool, DescriptorError> {
    let mut value: Value = serde_json::from_str(text).map_err(|error| {
        let offset = offset_of(text, error.line(), error.column());
        let message = error.to_string();
        let suffix = format!(" at line {} column {}", error.line(), error.column());
        let message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
        located(path, text, None, offset..offset, Problem::Json { message })
    })?;
    if let Some((pointer, key)) = duplicate_key(text) {
        let name = pointer.rsplit('/').next().unwrap_or_default();
        let key_name = unescape_pointer_segment(name);
        return Err(located(
            path,
            text,
            Some(pointer),
            key,
            Problem::DuplicateKey { key: key_name },
        ));
    }
    check_schema(text, path, &value)?;
    if let Some(object) = value.as_object_mut() {
        object.remove("$schema");
    }
    let spec: CommandSpec = serde_json::from_value(value).map_err(|error| {
        whole_file(
            path.to_path_buf(),
            Problem::Json {
                message: error.to_string(),
            },
        )
    })?;
    let command = spec.template.clone();
    let tool = CommandTool::build(spec, deny, ToolForm::Descriptor)
        .map_err(|error| spec_error(path, text, &command, error))?;
    // A lifted program runs as the integrator's template says.
    if !deny.is_lifted(tool.template().program()) {
        judge_fixed(&tool).map_err(|finding| {
            at_pointer(path, text, "/command", Problem::ProgramRefused { finding })
        })?;
        if let Some(slot) = text_in_language(&tool) {
            let pointer = format!("/arguments/{}", escape_pointer_segment(&slot));
            return Err(at_pointer(
                path,
                text,
                &pointer,
                Problem::TextInLanguage { slot },
            ));
        }
    }
    Ok(tool)
}

/// A `text` slot without `enum` or `pattern` in a position where the
/// program reads its own language (a sed script): the first such slot.
fn text_in_language(tool: &CommandTool) -> Option<String> {
    let spec = tool.spec();
    let (argv, _) = probe_argv(tool);
    for (index, token) in tool.template().tokens().iter().enumerate() {
        let Token::Slot {
            prefix,
            name,
            suffix,
        } = token
        else {
            continue;
        };
        let free_text = spec.slots.iter().any(|(n, slot)| {
            n == name.as_str()
                && slot.kind == SlotType::Text
                && slot.choices.is_none()
                && slot.pattern.is_none()
        });
        if !free_text {
            continue;
        }
        let feeds = jig_programs::LANGUAGE_PROBES.iter().any(|probe| {
            let mut probed = argv.clone();
            if let Some(word) = probed.get_mut(index) {
                *word = format!("{prefix}{probe}{suffix}");
            }
            jig_programs::refuses_word(&probed, index)
        });
        if feeds {
            return Some(name.as_str().to_owned());
        }
    }
    None
}

/// The template's fixed tokens, judged by its program's table
/// ([`jig_programs::judge_fixed`]), with each slot filled by a probe value
/// (its default, its first choice, or a plain word).
fn judge_fixed(tool: &CommandTool) -> Result<(), jig_programs::Finding> {
    let (argv, fixed) = probe_argv(tool);
    jig_programs::judge_fixed(&argv, &fixed)
}

/// The template with each slot filled by a probe value (its default, its
/// first choice, or a plain word), and which words are the template's own.
fn probe_argv(tool: &CommandTool) -> (Vec<String>, Vec<bool>) {
    let spec = tool.spec();
    let probe = |name: &SlotName| -> String {
        let slot = spec
            .slots
            .iter()
            .find(|(n, _)| n == name.as_str())
            .map(|(_, slot)| slot);
        let given = slot.and_then(|slot| {
            slot.default
                .clone()
                .or_else(|| slot.choices.as_ref().and_then(|c| c.first().cloned()))
        });
        match (given, slot.map(|s| s.kind)) {
            (Some(Value::String(text)), _) => text,
            (Some(Value::Number(number)), _) => number.to_string(),
            (_, Some(SlotType::Number)) => "1".to_owned(),
            _ => "probe".to_owned(),
        }
    };
    let mut argv = Vec::new();
    let mut fixed = Vec::new();
    for token in tool.template().tokens() {
        match token {
            Token::Literal(text) => {
                argv.push(text.clone());
                fixed.push(true);
            }
            Token::Slot {
                prefix,
                name,
                suffix,
            } => {
                argv.push(format!("{prefix}{}{suffix}", probe(name)));
                fixed.push(false);
            }
            _ => {
                argv.push(String::new());
                fixed.push(false);
            }
        }
    }
    (argv, fixed)
}

fn check_schema(text: &str, path: &Path, value: &Value) -> Result<(), DescriptorError> {
    // A file that surely follows the schema needs no compiled validator;
    // any other is judged, and its problem told, by the validator.
    if surely_conforms(value) {
        return Ok(());
    }
    let validator = validator().map_err(|message| {
        whole_file(
            path.to_path_buf(),
            Problem::Schema {
                message: format!("the descriptor schema does not compile: {message}"),
            },
        )
    })?;
    if validator.is_valid(value) {
        return Ok(());
    }
    let first = validator
        .iter_errors(value)
        .map(|error| {
            let complaint = complaint(&error);
            let found = locate(text, &complaint.pointer);
            let span = found
                .map(|f| pick(text, f, complaint.at_key))
                .unwrap_or(0..0);
            (span, complaint)
        })
        .min_by_key(|(span, _)| (span.start, span.end));
    match first {
        Some((span, complaint)) => Err(located(
            path,
            text,
            Some(complaint.pointer),
            span,
            Problem::Schema {
                message: complaint.message,
            },
        )),
        None => Ok(()),
    }
}

fn spec_error(path: &Path, text: &str, command: &str, error: SpecError) -> DescriptorError {
    let pointer = error.pointer();
    let found = locate(text, &pointer);
    // Inside the command string, point at the token when the string holds
    // no escapes (so template offsets are file offsets).
    let inner = match (&found, error.template_span(command)) {
        (Some(found), Some((at, len))) => text
            .get(found.value.clone())
            .filter(|raw| !raw.contains('\\'))
            .map(|_| found.value.start + 1 + at..found.value.start + 1 + at + len),
        _ => None,
    };
    let span = inner
        .or_else(|| found.map(|f| pick(text, f, false)))
        .unwrap_or(0..0);
    located(path, text, Some(pointer), span, Problem::Spec(error))
}

/// The key when asked or when the value is an object (the member is the
/// problem, and its key is shorter to point at); the value otherwise.
fn pick(text: &str, found: Found, at_key: bool) -> std::ops::Range<usize> {
    let object = text
        .get(found.value.clone())
        .is_some_and(|v| v.starts_with('{'));
    match found.key {
        Some(key) if at_key || object => key,
        _ => found.value,
    }
}

fn at_pointer(path: &Path, text: &str, pointer: &str, problem: Problem) -> DescriptorError {
    let span = locate(text, pointer)
        .map(|f| pick(text, f, false))
        .unwrap_or(0..0);
    located(path, text, Some(pointer.to_owned()), span, problem)
}

fn located(
    path: &Path,
    text: &str,
    pointer: Option<String>,
    span: std::ops::Range<usize>,
    problem: Problem,
) -> DescriptorError {
    let (line, column) = line_column(text, span.start);
    DescriptorError {
        path: path.to_path_buf(),
        location: Some(Location { line, column, span }),
        pointer,
        problem: Box::new(problem),
    }
}

fn whole_file(path: PathBuf, problem: Problem) -> DescriptorError {
    DescriptorError {
        path,
        location: None,
        pointer: None,
        problem: Box::new(problem),
    }
}
