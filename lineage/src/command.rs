//! Command tools: a template plus typed slots, built from a
//! [`CommandSpec`] by the one function every form goes through.

use std::path::Path;

use serde_json::{Map, Value};

use crate::schema::input_schema;
use crate::value::{Slot, SlotProblem, quote};
use crate::{
    CheckContext, CommandSpec, DenyList, ErrorCode, Invocation, Layer, Refusal, SlotName, SlotType,
    SpecError, Template, Token, Tool, ToolAudit, ToolForm,
};

/// The longest tool name accepted (the limit of model APIs).
const MAX_TOOL_NAME: usize = 64;

/// A tool whose whole command is fixed by a person: the model only fills
/// typed slots, and each slot becomes exactly one argv element (or part of
/// one). Built only by [`CommandTool::build`], so it can only exist valid.
#[derive(Debug, Clone)]
pub struct CommandTool {
    spec: CommandSpec,
    form: ToolForm,
    template: Template,
    slots: Vec<Slot>,
    schema: Value,
}

impl CommandTool {
    /// Builds a tool of `form` ([`ToolForm::Command`] or
    /// [`ToolForm::Descriptor`]) from `spec`: the one function through which
    /// code-form and descriptor tools alike are built and checked.
    ///
    /// Checks, in order: the name, the description, the template, the
    /// program against `deny`, the slot names, that every slot used is
    /// declared and every declared slot is used, then each slot (required
    /// or default, pattern, enum, default).
    pub fn build(spec: CommandSpec, deny: &DenyList, form: ToolForm) -> Result<Self, SpecError> {
        if !matches!(form, ToolForm::Command | ToolForm::Descriptor) {
            return Err(SpecError::Form {
                form: form.as_str(),
            });
        }
        if !valid_tool_name(&spec.name) {
            return Err(SpecError::Name {
                name: spec.name.clone(),
            });
        }
        if spec.description.trim().is_empty() {
            return Err(SpecError::Description);
        }
        let template = Template::parse(&spec.template)?;
        // The program, and a launcher subcommand fixed by the template
        // (`rustup run`, `npm exec`): the literal tokens up to the first
        // slot are what the run point will see first.
        let fixed: Vec<String> = template
            .tokens()
            .iter()
            .map_while(|token| match token {
                Token::Literal(text) => Some(text.clone()),
                _ => None,
            })
            .collect();
        if deny.is_denied(template.program()) {
            return Err(SpecError::DeniedProgram {
                program: template.program().to_owned(),
            });
        }
        if deny.is_denied_launch(&fixed) {
            return Err(SpecError::DeniedProgram {
                program: fixed.iter().take(2).cloned().collect::<Vec<_>>().join(" "),
            });
        }
        let mut names: Vec<SlotName> = Vec::with_capacity(spec.slots.len());
        for (name, _) in &spec.slots {
            let parsed =
                SlotName::new(name).ok_or_else(|| SpecError::SlotName { slot: name.clone() })?;
            if names.contains(&parsed) {
                return Err(SpecError::Duplicate { slot: name.clone() });
            }
            names.push(parsed);
        }
        if let Some(used) = template
            .slot_names()
            .into_iter()
            .find(|used| !names.contains(used))
        {
            return Err(SpecError::Undeclared {
                slot: used.to_string(),
            });
        }
        let used = template.slot_names();
        if let Some(unused) = names.iter().find(|name| !used.contains(name)) {
            return Err(SpecError::Unused {
                slot: unused.to_string(),
            });
        }
        let slots = names
            .into_iter()
            .zip(&spec.slots)
            // A descriptor file's patterns are built now, so loading it (and
            // `jig check`) reports one too large for a matcher; a code
            // tool's are built at their first use.
            .map(|(name, (_, slot))| Slot::compile(name, slot, form == ToolForm::Descriptor))
            .collect::<Result<Vec<_>, _>>()?;
        let schema = input_schema(&slots);
        Ok(Self {
            spec,
            form,
            template,
            slots,
            schema,
        })
    }

    /// The specification the tool was built from.
    pub fn spec(&self) -> &CommandSpec {
        &self.spec
    }

    /// The parsed template.
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// Whether the command only reads.
    pub fn read_only(&self) -> bool {
        self.spec.read_only
    }

    /// Validates `arguments` for a workspace whose canonical root is `root`
    /// and returns the argv that would run: [`Tool::check`] with only the
    /// root.
    ///
    /// Order: the arguments must be an object (`null` counts as `{}`);
    /// unknown argument names; required slots; then for each slot, in
    /// declaration order, coercion and type, enum, pattern, characters,
    /// leading dash, path confinement.
    pub fn check_in(&self, arguments: &Value, root: &Path) -> Result<Invocation, Refusal> {
        let empty = Map::new();
        let arguments = match arguments {
            Value::Object(map) => map,
            Value::Null => &empty,
            other => return Err(not_an_object(other)),
        };
        if let Some(unknown) = arguments.keys().find(|key| {
            !self
                .slots
                .iter()
                .any(|slot| slot.name.as_str() == key.as_str())
        }) {
            return Err(self.unknown(unknown));
        }
        let given = |slot: &Slot| arguments.get(slot.name.as_str()).filter(|v| !v.is_null());
        if let Some(missing) = self
            .slots
            .iter()
            .find(|slot| slot.spec.required && given(slot).is_none())
        {
            return Err(refusal(missing.check(None, root).err(), &missing.name));
        }
        let mut texts: Vec<(&SlotName, String)> = Vec::with_capacity(self.slots.len());
        let mut paths = Vec::new();
        for slot in &self.slots {
            match slot.check(given(slot), root) {
                Ok((text, resolved)) => {
                    texts.push((&slot.name, text));
                    paths.extend(resolved);
                }
                Err(problem) => return Err(refusal(Some(problem), &slot.name)),
            }
        }
        let argv = self.template.fill(|name| {
            texts
                .iter()
                .find_map(|(n, text)| (*n == name).then_some(text.as_str()))
                // `build` checked that every slot used is declared.
                .unwrap_or_default()
        });
        let mut invocation = Invocation::new(argv).with_read_only(self.spec.read_only);
        invocation.paths = paths;
        Ok(invocation)
    }

    fn unknown(&self, name: &str) -> Refusal {
        let takes = if self.slots.is_empty() {
            "this tool takes no arguments".to_owned()
        } else {
            let names: Vec<String> = self.slots.iter().map(|s| quote(s.name.as_str())).collect();
            format!("this tool takes only {}", names.join(", "))
        };
        Refusal::new(
            ErrorCode::SlotInvalid,
            Layer::Slot,
            format!("unknown argument {}; {takes}", quote(name)),
        )
        .with_slot(name)
    }
}

fn refusal(problem: Option<SlotProblem>, slot: &SlotName) -> Refusal {
    let message = problem.map_or_else(
        || format!("slot {:?} was refused", slot.as_str()),
        |problem| problem.to_string(),
    );
    Refusal::new(ErrorCode::SlotInvalid, Layer::Slot, message).with_slot(slot.as_str())
}

fn not_an_object(value: &Value) -> Refusal {
    let kind = match value {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        _ => "something else",
    };
    Refusal::new(
        ErrorCode::InvalidArguments,
        Layer::Arguments,
        format!(
            "the arguments must be a JSON object mapping slot names to values, such as {{\"path\": \"src\"}}; got {kind}"
        ),
    )
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Tool for CommandTool {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn description(&self) -> &str {
        &self.spec.description
    }

    fn form(&self) -> ToolForm {
        self.form
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn check(&self, arguments: &Value, context: &CheckContext<'_>) -> Result<Invocation, Refusal> {
        self.check_in(arguments, context.root)
    }

    fn audit(&self) -> ToolAudit {
        let names: Vec<&str> = self.slots.iter().map(|s| s.name.as_str()).collect();
        let variability = if names.is_empty() {
            "nothing: the whole command is fixed".to_owned()
        } else {
            format!(
                "{} typed slot{} ({}), each exactly one argument or part of one; the program and every other token are fixed",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            )
        };
        ToolAudit {
            form: self.form,
            binaries: vec![self.template.program().to_owned()],
            skeleton: self.template.as_str().to_owned(),
            slots: self.slots.iter().map(audit_line).collect(),
            variability,
            writes: if self.spec.read_only {
                crate::Writes::Nothing
            } else {
                crate::Writes::Workspace
            },
        }
    }
}

/// `range: string, required, pattern ^[0-9]+$`, and so on.
fn audit_line(slot: &Slot) -> String {
    let spec = &slot.spec;
    let mut parts = vec![match spec.kind {
        SlotType::Path => "path (inside the workspace)".to_owned(),
        kind => kind.as_str().to_owned(),
    }];
    if spec.required {
        parts.push("required".to_owned());
    }
    if let Some(default) = &spec.default {
        parts.push(format!("default {default}"));
    }
    if let Some(choices) = &spec.choices {
        let choices: Vec<String> = choices.iter().map(Value::to_string).collect();
        parts.push(format!("one of {}", choices.join(" | ")));
    }
    if let Some(pattern) = &spec.pattern {
        parts.push(format!("matching {pattern}"));
    }
    if spec.allow_leading_dash {
        parts.push("MAY BEGIN WITH \"-\" (options allowed)".to_owned());
    }
    format!("{}: {}", slot.name, parts.join(", "))
}
