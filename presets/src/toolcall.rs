//! The registry as the tool-call loop's dispatcher.

use jig_lineage::ToolResult;
use jig_toolcall::{Dispatcher, ToolInfo};
use serde_json::Value;

use crate::Registry;

/// The loop of `jig-toolcall` sees the visible tools and calls them through
/// [`Registry::dispatch`], so every layer applies to a model's call.
impl Dispatcher for Registry {
    fn tools(&self) -> Vec<ToolInfo> {
        Registry::tools(self)
            .map(|tool| ToolInfo::new(tool.name(), tool.description(), tool.input_schema().clone()))
            .collect()
    }

    fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
        Registry::dispatch(self, name, arguments)
    }
}
