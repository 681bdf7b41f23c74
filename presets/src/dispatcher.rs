//! The registry as a tool-call loop's (or a server's) dispatcher.

use jig_lineage::{Dispatcher, ToolInfo, ToolResult};
use serde_json::Value;

use crate::Registry;

/// A loop sees the visible tools and calls them through
/// [`Registry::dispatch`], so every layer applies to a model's call; a call
/// may overlap others when [`Registry::is_concurrency_safe`] says it only
/// reads.
impl Dispatcher for Registry {
    fn tools(&self) -> Vec<ToolInfo> {
        Registry::tools(self).map(ToolInfo::from_tool).collect()
    }

    fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
        Registry::dispatch(self, name, arguments)
    }

    fn is_concurrency_safe(&self, name: &str, arguments: &Value) -> bool {
        Registry::is_concurrency_safe(self, name, arguments)
    }
}
