//! Integration tests of jig-policy: the chain around real tools running
//! real processes. Modules mirror `src/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod approve;
mod audit;
mod chain;

use std::sync::atomic::{AtomicUsize, Ordering};

use jig_kernel::Kernel;
use jig_lineage::{CheckContext, Invocation, Refusal, Tool, ToolAudit, ToolForm, ToolResult};
use jig_policy::Call;
use serde_json::{Value, json};

/// A tool that runs `echo <text>` and counts how often it was reached.
pub(crate) struct Echo {
    pub(crate) name: &'static str,
    pub(crate) ask: bool,
    pub(crate) checks: AtomicUsize,
    schema: Value,
}

impl Echo {
    pub(crate) fn new(name: &'static str) -> Self {
        Self {
            name,
            ask: false,
            checks: AtomicUsize::new(0),
            schema: json!({"type": "object"}),
        }
    }

    pub(crate) fn asking(name: &'static str) -> Self {
        Self {
            ask: true,
            ..Self::new(name)
        }
    }

    pub(crate) fn reached(&self) -> usize {
        self.checks.load(Ordering::SeqCst)
    }
}

impl Tool for Echo {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "echo a text"
    }
    fn form(&self) -> ToolForm {
        ToolForm::Command
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn check(&self, arguments: &Value, _context: &CheckContext<'_>) -> Result<Invocation, Refusal> {
        self.checks.fetch_add(1, Ordering::SeqCst);
        let text = arguments["text"].as_str().unwrap_or("hello").to_owned();
        let invocation = Invocation::new(vec!["echo".to_owned(), text]);
        Ok(if self.ask {
            invocation.with_approval("echo *")
        } else {
            invocation
        })
    }
    fn audit(&self) -> ToolAudit {
        unreachable!("not used by these tests")
    }
}

pub(crate) fn kernel() -> (tempfile::TempDir, Kernel) {
    let dir = tempfile::tempdir().unwrap();
    let kernel = Kernel::builder(dir.path()).build().unwrap();
    (dir, kernel)
}

/// What a call in the workspace of `kernel` may know (no kernel: a call
/// cannot run anything).
pub(crate) fn context(kernel: &Kernel) -> CheckContext<'_> {
    CheckContext::new(kernel.root(), kernel.search_path())
}

/// The end of the chain: run what the call checked, on `kernel`.
pub(crate) fn terminal(kernel: &Kernel) -> impl Fn(&Call<'_>) -> ToolResult + '_ {
    move |call| match call.check() {
        Ok(invocation) => {
            let options = invocation.run_options(kernel.limits());
            ToolResult::from_run(
                invocation.clone(),
                kernel.run_with(&invocation.argv, &options),
            )
        }
        Err(refusal) => ToolResult::Refused(refusal.clone()),
    }
}
