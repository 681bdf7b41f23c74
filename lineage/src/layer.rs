//! The one list of layers that can refuse a call.

/// The layer that refused a call, as [`Refusal::layer`](crate::Refusal::layer)
/// reports it and the audit event records it.
///
/// Each layer has a stable dotted name ([`as_str`](Self::as_str)): the
/// part before the dot is the place (`exec` for the exec tool's own layers,
/// `run` for the run point every form passes, `policy` for the runtime
/// policy), the part after it the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Layer {
    /// `registry`: no such tool, or arguments that are not an object.
    Registry,
    /// `arguments`: the arguments object does not fit the tool's schema.
    Arguments,
    /// `slot`: a slot value failed its type or constraint.
    Slot,
    /// `exec.arguments`: the exec tool's arguments are not one command.
    ExecArguments,
    /// `exec.operator`: the exec tool's operator scan (pipes, expansions,
    /// redirections, invisible characters).
    ExecOperator,
    /// `exec.allowlist`: the program is not on the exec tool's allow list.
    ExecAllowList,
    /// `exec.denylist`: the program is on the deny list.
    ExecDenyList,
    /// `exec.flags`: the program's table refused an option, an operand or
    /// a script construct.
    ExecFlags,
    /// `exec.path`: an argument names a file outside the workspace.
    ExecPath,
    /// `exec.rule`: a permission rule with the `deny` effect matched.
    ExecRule,
    /// `policy.denylist`: the runtime policy's deny list names the tool.
    PolicyDenyList,
    /// `policy.allowlist`: the runtime policy's allow list omits the tool.
    PolicyAllowList,
    /// `policy.approval`: approval was needed, not given, or refused.
    PolicyApproval,
    /// `run.program`: the run point refused the program (deny list by
    /// name, target, family, interpreter; a program inside the workspace).
    RunProgram,
    /// `run.env`: the run point refused an environment variable a tool asks
    /// to set.
    RunEnv,
    /// `run.flags`: the program's table refused the final command.
    RunFlags,
    /// `run.path`: the final command names a protected path or a file
    /// outside the workspace.
    RunPath,
    /// `kernel`: the kernel could not start the program.
    Kernel,
    /// `agent`: the agent loop could not dispatch the call.
    Agent,
}

impl Layer {
    /// Every layer, in declaration order.
    pub const ALL: [Layer; 19] = [
        Layer::Registry,
        Layer::Arguments,
        Layer::Slot,
        Layer::ExecArguments,
        Layer::ExecOperator,
        Layer::ExecAllowList,
        Layer::ExecDenyList,
        Layer::ExecFlags,
        Layer::ExecPath,
        Layer::ExecRule,
        Layer::PolicyDenyList,
        Layer::PolicyAllowList,
        Layer::PolicyApproval,
        Layer::RunProgram,
        Layer::RunEnv,
        Layer::RunFlags,
        Layer::RunPath,
        Layer::Kernel,
        Layer::Agent,
    ];

    /// The stable dotted name (`exec.flags`, `run.path`...).
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Registry => "registry",
            Layer::Arguments => "arguments",
            Layer::Slot => "slot",
            Layer::ExecArguments => "exec.arguments",
            Layer::ExecOperator => "exec.operator",
            Layer::ExecAllowList => "exec.allowlist",
            Layer::ExecDenyList => "exec.denylist",
            Layer::ExecFlags => "exec.flags",
            Layer::ExecPath => "exec.path",
            Layer::ExecRule => "exec.rule",
            Layer::PolicyDenyList => "policy.denylist",
            Layer::PolicyAllowList => "policy.allowlist",
            Layer::PolicyApproval => "policy.approval",
            Layer::RunProgram => "run.program",
            Layer::RunEnv => "run.env",
            Layer::RunFlags => "run.flags",
            Layer::RunPath => "run.path",
            Layer::Kernel => "kernel",
            Layer::Agent => "agent",
        }
    }

    /// The same check when the run point applies it to the final argv of
    /// any form: the exec tool's table, path and deny layers become their
    /// `run.*` counterparts; every other layer is itself.
    pub fn at_run_point(self) -> Layer {
        match self {
            Layer::ExecFlags | Layer::ExecRule | Layer::ExecOperator | Layer::ExecArguments => {
                Layer::RunFlags
            }
            Layer::ExecPath => Layer::RunPath,
            Layer::ExecDenyList | Layer::ExecAllowList => Layer::RunProgram,
            other => other,
        }
    }
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Layer;

    #[test]
    fn names_are_distinct_and_dotted_by_place() {
        let names: std::collections::BTreeSet<_> = Layer::ALL.iter().map(|l| l.as_str()).collect();
        assert_eq!(names.len(), Layer::ALL.len());
        for layer in Layer::ALL {
            let place = layer.as_str().split('.').next().unwrap_or_default();
            assert!(
                [
                    "registry",
                    "arguments",
                    "slot",
                    "exec",
                    "policy",
                    "run",
                    "kernel",
                    "agent"
                ]
                .contains(&place),
                "{layer}"
            );
            assert!(
                !layer.at_run_point().as_str().starts_with("exec."),
                "{layer}"
            );
        }
    }
}
