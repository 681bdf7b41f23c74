//! The exec tool: configuration, the five layers in order, the `Tool`
//! interface.

use jig_lineage::{
    CheckContext, DenyList, Invocation, Refusal, Tool, ToolAudit, ToolForm, Writes, program_name,
};
use serde_json::{Value, json};

use jig_programs::{CommandClass, Untabled};

use crate::allow::AllowList;
use crate::finding::Finding;
use crate::rules::{PermissionRule, RuleEffect};
use crate::scan::{Assignments, ParsedCommand, scan};

/// The name the model calls the exec tool by.
pub const EXEC_TOOL_NAME: &str = "exec";

/// Configures an [`ExecTool`]: the allow list, the deny list, the
/// permission rules. Start from [`ExecTool::builder`].
#[derive(Debug, Clone, Default)]
pub struct ExecConfig {
    allow: AllowList,
    deny: DenyList,
    rules: Vec<PermissionRule>,
}

impl ExecConfig {
    /// Replaces the allow list (default: [`AllowList::default_read_only`]).
    pub fn allow(mut self, allow: AllowList) -> Self {
        self.allow = allow;
        self
    }

    /// Replaces the deny list (default: [`DenyList::default`]). It wins over
    /// the allow list.
    pub fn deny(mut self, deny: DenyList) -> Self {
        self.deny = deny;
        self
    }

    /// Adds a permission rule; rules are checked after every layer passed,
    /// `deny` rules before `ask` rules.
    pub fn rule(mut self, rule: PermissionRule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Builds the tool.
    pub fn build(mut self) -> ExecTool {
        // Deny rules are matched before ask rules: sort once, here, rather
        // than on every call (the sort is stable: order within an effect is
        // the integrator's).
        self.rules.sort_by_key(PermissionRule::effect);
        let mut allowed: Vec<&str> = self.allow.names().collect();
        allowed.retain(|name| !self.deny.is_denied(name));
        let description = format!(
            "Run one simple command line in the workspace and get its exit code and output. \
             No shell: no pipes, redirects, `;`, `&&`, `$VAR`, globs or backticks; quote arguments \
             with spaces. Paths must stay inside the workspace. Programs: {}.",
            allowed.join(", ")
        );
        let schema = json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "One command line, for example `grep -rn TODO src`. \
                                    The first word is the program."
                }
            },
            "required": ["command"],
            "additionalProperties": false
        });
        ExecTool {
            config: self,
            description,
            schema,
        }
    }
}

/// The free-text exec tool: the model writes one command line, and five
/// layers decide whether it runs (see the crate documentation).
///
/// Build one with [`ExecTool::builder`]; [`Tool::check`] is the dry run and
/// answers the invocation the registry runs.
#[derive(Debug, Clone)]
pub struct ExecTool {
    config: ExecConfig,
    description: String,
    schema: Value,
}

impl ExecTool {
    /// A configuration with the default read-only allow list, the default
    /// deny list and no rules.
    pub fn builder() -> ExecConfig {
        ExecConfig::default()
    }

    /// Tokenizes and scans `command` (layer 3) without any workspace: the
    /// argv that would run, or why a shell would read the text differently.
    /// Leading `NAME=value` assignments are refused.
    pub fn parse(command: &str) -> Result<ParsedCommand, Refusal> {
        scan(command, Assignments::Refuse).map_err(Finding::into_refusal)
    }

    /// Checks one command line against the workspace of `context`: the dry
    /// run of a call `{"command": command}`.
    pub fn check_command(
        &self,
        command: &str,
        context: &CheckContext<'_>,
    ) -> Result<Invocation, Refusal> {
        self.layers(command, context).map_err(Finding::into_refusal)
    }

    /// The allow list.
    pub fn allow_list(&self) -> &AllowList {
        &self.config.allow
    }

    /// The deny list.
    pub fn deny_list(&self) -> &DenyList {
        &self.config.deny
    }

    /// The permission rules, in order.
    pub fn rules(&self) -> &[PermissionRule] {
        &self.config.rules
    }

    fn layers(&self, command: &str, context: &CheckContext<'_>) -> Result<Invocation, Finding> {
        // Layer 3: what a shell would read differently.
        let parsed = scan(command, Assignments::Refuse)?;
        let program = parsed.program();
        // Layer 2 wins over layer 1, whatever the spelling.
        let name = program_name(program);
        if self.config.deny.is_denied(program) {
            return Err(Finding::Denied {
                program: program.to_owned(),
            });
        }
        // Layer 1: a bare name on the allow list.
        if program.contains('/') {
            return Err(Finding::ProgramPath {
                program: program.to_owned(),
                name: name.to_owned(),
            });
        }
        if !self.config.allow.allows(program) {
            let allowed: Vec<&str> = self
                .config
                .allow
                .names()
                .filter(|n| !self.config.deny.is_denied(n))
                .collect();
            return Err(Finding::NotAllowed {
                program: program.to_owned(),
                allowed: if allowed.is_empty() {
                    "none".to_owned()
                } else {
                    allowed.join(", ")
                },
            });
        }
        // Layer 4: the program's table, and path confinement of every
        // argument that names a file.
        let verdict = jig_programs::judge_command(parsed.argv(), context, Untabled::Confine)?;
        // Permission rules, on the parsed argv: deny rules come first (the
        // list is sorted by effect when the tool is built).
        let rule = self.config.rules.iter().find(|rule| rule.matches(&parsed));
        if let Some(rule) = rule.filter(|rule| rule.effect() == RuleEffect::Deny) {
            return Err(Finding::RuleDenied {
                rule: rule.as_str().to_owned(),
            });
        }
        let mut invocation = Invocation::new(parsed.into_argv()).with_read_only(verdict.read_only);
        if let Some(rule) = rule {
            invocation = invocation.with_approval(rule.as_str());
        }
        for (key, value) in verdict.env {
            invocation = invocation.with_env(key, value);
        }
        Ok(invocation)
    }

    /// The class of a command this tool would accept, without the workspace
    /// (see [`classify`](crate::classify)).
    pub fn classify(command: &str) -> CommandClass {
        match scan(command, Assignments::Refuse) {
            Ok(parsed) => crate::classify(parsed.argv()),
            Err(_) => CommandClass::Other,
        }
    }
}

impl Tool for ExecTool {
    fn name(&self) -> &str {
        EXEC_TOOL_NAME
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn form(&self) -> ToolForm {
        ToolForm::Exec
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn check(&self, arguments: &Value, context: &CheckContext<'_>) -> Result<Invocation, Refusal> {
        let command = command_argument(arguments).map_err(Finding::into_refusal)?;
        self.check_command(command, context)
    }

    fn audit(&self) -> ToolAudit {
        let mut binaries: Vec<String> = self
            .config
            .allow
            .names()
            .filter(|n| !self.config.deny.is_denied(n))
            .map(str::to_owned)
            .collect();
        binaries.sort();
        ToolAudit::new(
            ToolForm::Exec,
            binaries,
            "{command}: one simple command line; its first word must be on the allow list",
            vec![
                "command: string, required; tokenized with POSIX quoting, no operators or \
                 expansions"
                    .to_owned(),
            ],
            "everything after the program: free text, judged by the operator scan, the deny \
             and allow lists, the per-program option tables and path confinement",
        )
        .with_writes(Writes::PerCall)
    }
}

/// The `command` string of `{"command": "..."}`, trimmed.
fn command_argument(arguments: &Value) -> Result<&str, Finding> {
    let problem = |p: &str| Finding::Arguments {
        problem: p.to_owned(),
    };
    let object = arguments
        .as_object()
        .ok_or_else(|| problem("the arguments are not a JSON object"))?;
    if let Some(extra) = object.keys().find(|k| k.as_str() != "command") {
        return Err(Finding::Arguments {
            problem: format!("unknown argument {extra:?}"),
        });
    }
    let command = object
        .get("command")
        .ok_or_else(|| problem("the argument \"command\" is missing"))?;
    let text = command
        .as_str()
        .ok_or_else(|| problem("the argument \"command\" must be a string"))?;
    Ok(text.trim())
}
