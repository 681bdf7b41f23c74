//! The one table of jig's error codes and `error_type` values.

/// Every code jig returns, with its `error_type` name. The numbers are
/// stable; new codes are added at the end of the 6xx range.
///
/// | code | `error_type` | meaning |
/// |---|---|---|
/// | 613 | `descriptor_invalid` | a `*.tool.json` file is invalid; the file is skipped |
/// | 614 | `slot_invalid` | a slot value failed validation |
/// | 615 | `exec_refused` | the exec tool refused a command line (layers 1–4) |
/// | 616 | `tool_policy_denied` | the runtime policy refused the tool |
/// | 617 | `approval_required` | the call needs a person's approval and none was given |
/// | 618 | `approval_denied` | the approver refused the call |
/// | 619 | `unknown_tool` | no visible tool has this name |
/// | 620 | `invalid_arguments` | the arguments are not a JSON object |
/// | 621 | `start_failed` | the kernel could not start the program |
/// | 622 | `run_refused` | the run point refused the final command (a denied program by name, target, family or interpreter; a program inside the workspace; an environment variable a tool may not set; the program's own table) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCode {
    /// 613: a descriptor file is invalid.
    DescriptorInvalid,
    /// 614: a slot value failed validation.
    SlotInvalid,
    /// 615: the exec tool refused a command line.
    ExecRefused,
    /// 616: the runtime policy refused the tool.
    PolicyDenied,
    /// 617: the call needs approval and no approver gave it.
    ApprovalRequired,
    /// 618: the approver refused the call.
    ApprovalDenied,
    /// 619: no visible tool has this name.
    UnknownTool,
    /// 620: the arguments are not a JSON object.
    InvalidArguments,
    /// 621: the kernel could not start the program.
    StartFailed,
    /// 622: the run point refused the final command.
    RunRefused,
}

impl ErrorCode {
    /// Every code, in numeric order.
    pub const ALL: [ErrorCode; 10] = [
        ErrorCode::DescriptorInvalid,
        ErrorCode::SlotInvalid,
        ErrorCode::ExecRefused,
        ErrorCode::PolicyDenied,
        ErrorCode::ApprovalRequired,
        ErrorCode::ApprovalDenied,
        ErrorCode::UnknownTool,
        ErrorCode::InvalidArguments,
        ErrorCode::StartFailed,
        ErrorCode::RunRefused,
    ];

    /// The number (613, 614...).
    pub fn code(self) -> u16 {
        match self {
            ErrorCode::DescriptorInvalid => 613,
            ErrorCode::SlotInvalid => 614,
            ErrorCode::ExecRefused => 615,
            ErrorCode::PolicyDenied => 616,
            ErrorCode::ApprovalRequired => 617,
            ErrorCode::ApprovalDenied => 618,
            ErrorCode::UnknownTool => 619,
            ErrorCode::InvalidArguments => 620,
            ErrorCode::StartFailed => 621,
            ErrorCode::RunRefused => 622,
        }
    }

    /// The `error_type` name (`slot_invalid`, `tool_policy_denied`...).
    pub fn error_type(self) -> &'static str {
        match self {
            ErrorCode::DescriptorInvalid => "descriptor_invalid",
            ErrorCode::SlotInvalid => "slot_invalid",
            ErrorCode::ExecRefused => "exec_refused",
            ErrorCode::PolicyDenied => "tool_policy_denied",
            ErrorCode::ApprovalRequired => "approval_required",
            ErrorCode::ApprovalDenied => "approval_denied",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::StartFailed => "start_failed",
            ErrorCode::RunRefused => "run_refused",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.code())
    }
}
