//! The built-in command tools: `grep`, `find` and `sed_print`.

use crate::{CommandSpec, CommandTool, DenyList, SlotSpec, SpecError, ToolForm};

/// The names of the built-in tools, which no descriptor may take.
pub const BUILTIN_NAMES: &[&str] = &["grep", "find", "sed_print"];

/// `grep -rn {pattern} {path}`: text search.
pub fn grep_spec() -> CommandSpec {
    CommandSpec::new(
        "grep",
        "Search file contents for a pattern (a basic regular expression, as grep reads it) \
         and print each matching line with its file name and line number",
        "grep -rn {pattern} {path}",
    )
    .slot(
        "pattern",
        SlotSpec::string(
            "Text or basic regular expression to search for, one word without spaces \
             (\".\" matches any one character)",
        )
        .required(),
    )
    .slot(
        "path",
        SlotSpec::path("File or folder to search").with_default("."),
    )
    .with_read_only(true)
}

/// `find {path} -name {pattern}`: file names.
pub fn find_spec() -> CommandSpec {
    CommandSpec::new(
        "find",
        "Find files and folders whose name matches a glob such as *.rs",
        "find {path} -name {pattern}",
    )
    .slot(
        "path",
        SlotSpec::path("Folder to search in").with_default("."),
    )
    .slot(
        "pattern",
        SlotSpec::string("File name or glob to match, such as Cargo.toml or *.rs").required(),
    )
    .with_read_only(true)
}

/// `sed -n {range}p {path}`: print lines (never `-i`).
pub fn sed_print_spec() -> CommandSpec {
    CommandSpec::new(
        "sed_print",
        "Print one line or a range of lines of a file",
        "sed -n {range}p {path}",
    )
    .slot(
        "range",
        SlotSpec::string("Line number or first,last range, such as 5 or 1,20")
            .with_pattern(r"^[0-9]+(,[0-9]+)?$")
            .required(),
    )
    .slot("path", SlotSpec::path("File to print from").required())
    .with_read_only(true)
}

/// The `grep` tool.
pub fn grep_tool(deny: &DenyList) -> Result<CommandTool, SpecError> {
    CommandTool::build(grep_spec(), deny, ToolForm::Command)
}

/// The `find` tool.
pub fn find_tool(deny: &DenyList) -> Result<CommandTool, SpecError> {
    CommandTool::build(find_spec(), deny, ToolForm::Command)
}

/// The `sed_print` tool.
pub fn sed_print_tool(deny: &DenyList) -> Result<CommandTool, SpecError> {
    CommandTool::build(sed_print_spec(), deny, ToolForm::Command)
}

/// The specifications of every built-in tool, in [`BUILTIN_NAMES`] order.
pub fn builtin_specs() -> Vec<CommandSpec> {
    vec![grep_spec(), find_spec(), sed_print_spec()]
}

/// Every built-in tool whose program `deny` allows (a deny list that names
/// `grep` leaves the `grep` tool out).
pub fn builtin_tools(deny: &DenyList) -> Vec<CommandTool> {
    builtin_specs()
        .into_iter()
        .filter_map(|spec| CommandTool::build(spec, deny, ToolForm::Command).ok())
        .collect()
}
