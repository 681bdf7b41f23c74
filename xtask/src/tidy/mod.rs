//! Architecture checks: everything ARCHITECTURE.md states about
//! dependencies (allowed edges and their kinds, the order of the crate map,
//! no stale edge, only the kernel spawns), and README's error table.

mod architecture;
mod edges;
mod metadata;
mod runner;
mod spawn;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use architecture::Architecture;
use metadata::Metadata;

/// The workspace root (the parent of this crate's folder).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs every tidy check; the error lists every violation.
pub(crate) fn run() -> Result<(), String> {
    let root = workspace_root();
    let mut violations = check_workspace(&root)?;
    violations.extend(check_error_table(&root)?);
    if violations.is_empty() {
        println!(
            "tidy: dependencies match ARCHITECTURE.md (edges, kinds, map order, only the kernel \
             spawns, only the registry runs calls); README's error codes match the code"
        );
        Ok(())
    } else {
        Err(violations.join("\n"))
    }
}

/// The README's error-code table must list exactly the codes of
/// `jig_lineage::ErrorCode`, with their `error_type` names.
pub(crate) fn check_error_table(root: &Path) -> Result<Vec<String>, String> {
    let readme = std::fs::read_to_string(root.join("README.md"))
        .map_err(|e| format!("cannot read README.md: {e}"))?;
    Ok(error_table_violations(&readme))
}

fn error_table_violations(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Error codes"))
        .unwrap_or_default();
    let rows: BTreeSet<(u16, String)> = section
        .lines()
        .filter_map(|line| {
            let mut cells = line.split('|').map(str::trim).skip(1);
            let code = cells.next()?.parse().ok()?;
            let error_type = cells.next()?.trim_matches('`').to_owned();
            Some((code, error_type))
        })
        .collect();
    let expected: BTreeSet<(u16, String)> = jig_lineage::ErrorCode::ALL
        .iter()
        .map(|c| (c.code(), c.error_type().to_owned()))
        .collect();
    let mut violations = Vec::new();
    for (code, error_type) in expected.difference(&rows) {
        violations.push(format!(
            "README.md's error table lacks {code} `{error_type}`"
        ));
    }
    for (code, error_type) in rows.difference(&expected) {
        violations.push(format!(
            "README.md's error table lists {code} `{error_type}`, which the code does not have"
        ));
    }
    violations
}

/// Checks the real workspace at `root` against ARCHITECTURE.md and
/// returns the violations: the edge rules, then "only the kernel spawns".
pub(crate) fn check_workspace(root: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .map_err(|e| format!("cannot read ARCHITECTURE.md: {e}"))?;
    let architecture = Architecture::parse(&text)?;
    let metadata = Metadata::read(root)?;
    let mut violations = edges::violations(&architecture, &metadata.names(), &metadata.edges());
    violations.extend(spawn::violations(&metadata));
    violations.extend(runner::violations(root, metadata.names()));
    Ok(violations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_keeps_its_architecture() {
        let violations = check_workspace(&workspace_root()).unwrap();
        assert!(violations.is_empty(), "{violations:#?}");
    }

    #[test]
    fn the_readme_lists_every_error_code() {
        let violations = check_error_table(&workspace_root()).unwrap();
        assert!(violations.is_empty(), "{violations:#?}");
    }

    #[test]
    fn a_missing_or_wrong_error_row_is_a_violation() {
        let readme = "# x\n\n| 0 | an exit status table elsewhere |\n\n## Error codes\n\n\
                      | 613 | `descriptor_invalid` | x |\n| 614 | `slot_wrong` | y |\n\n## Next\n\
                      | 615 | `exec_refused` | not in the section |\n";
        let violations = error_table_violations(readme);
        assert!(
            violations
                .iter()
                .any(|v| v.contains("lacks 614 `slot_invalid`"))
        );
        assert!(
            violations
                .iter()
                .any(|v| v.contains("lists 614 `slot_wrong`"))
        );
        assert!(violations.iter().any(|v| v.contains("lacks 621")));
        assert!(violations.iter().any(|v| v.contains("lacks 615")));
        assert!(!violations.iter().any(|v| v.contains("lists 0")));
    }
}
