//! Glue to the tool crates: built-in tools, descriptor loading.

use std::path::Path;
use std::sync::Arc;

use jig_descriptor::DescriptorError;
use jig_lineage::{DenyList, Tool};

/// The built-in command tools.
pub(crate) fn builtin_tools(deny: &DenyList) -> Vec<Arc<dyn Tool>> {
    jig_lineage::builtin_tools(deny)
        .into_iter()
        .map(|t| Arc::new(t) as Arc<dyn Tool>)
        .collect()
}

/// Descriptor tools that loaded, and the files skipped.
pub(crate) type Loaded = (Vec<Arc<dyn Tool>>, Vec<DescriptorError>);

/// The descriptor tools of `dir`, and the files skipped. `dir` must be a
/// folder.
pub(crate) fn load_descriptors(
    dir: &Path,
    deny: &DenyList,
    reserved: &[String],
) -> std::io::Result<Loaded> {
    std::fs::read_dir(dir)?;
    let reserved: Vec<&str> = reserved.iter().map(String::as_str).collect();
    let report = jig_descriptor::load_dir(dir, deny, &reserved);
    let tools = report
        .tools
        .into_iter()
        .map(|t| Arc::new(t) as Arc<dyn Tool>)
        .collect();
    Ok((tools, report.errors))
}
