//! Architecture checks: the dependency edges between workspace crates must be
//! the ones ARCHITECTURE.md allows.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One dependency edge between two workspace packages.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Edge {
    pub(crate) from: String,
    pub(crate) to: String,
}

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
            "tidy: dependency edges match ARCHITECTURE.md; README's error codes match the code"
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

/// Checks the real workspace at `root` and returns the violations.
pub(crate) fn check_workspace(root: &Path) -> Result<Vec<String>, String> {
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .map_err(|e| format!("cannot read ARCHITECTURE.md: {e}"))?;
    let allowed = parse_allowed_edges(&architecture)?;
    let actual = workspace_edges(root)?;
    Ok(violations(&allowed, &actual))
}

/// Parses the `- from -> to: reason` lines between the edge markers.
pub(crate) fn parse_allowed_edges(text: &str) -> Result<Vec<Edge>, String> {
    let start = text
        .find("<!-- edges")
        .ok_or("ARCHITECTURE.md has no `<!-- edges` marker")?;
    let end = text
        .find("<!-- /edges -->")
        .ok_or("ARCHITECTURE.md has no `<!-- /edges -->` marker")?;
    let mut edges = Vec::new();
    for line in text[start..end].lines().skip(1) {
        let Some(rest) = line.trim().strip_prefix("- ") else {
            continue;
        };
        let head = rest.split(':').next().unwrap_or(rest);
        let (from, to) = head
            .split_once("->")
            .ok_or_else(|| format!("malformed edge line in ARCHITECTURE.md: `{line}`"))?;
        edges.push(Edge {
            from: from.trim().to_owned(),
            to: to.trim().to_owned(),
        });
    }
    Ok(edges)
}

/// Reads `cargo metadata` and lists every edge between workspace packages.
fn workspace_edges(root: &Path) -> Result<Vec<Edge>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed invalid JSON: {e}"))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let names: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect();
    let mut edges = BTreeSet::new();
    for package in &packages {
        let from = package["name"].as_str().unwrap_or_default().to_owned();
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            let to = dependency["name"].as_str().unwrap_or_default();
            if names.contains(to) {
                edges.insert(Edge {
                    from: from.clone(),
                    to: to.to_owned(),
                });
            }
        }
    }
    Ok(edges.into_iter().collect())
}

/// Every actual edge not covered by an allowed one (`to` may be `*`).
pub(crate) fn violations(allowed: &[Edge], actual: &[Edge]) -> Vec<String> {
    actual
        .iter()
        .filter(|edge| {
            !allowed
                .iter()
                .any(|a| a.from == edge.from && (a.to == edge.to || a.to == "*"))
        })
        .map(|edge| {
            format!(
                "forbidden dependency edge {} -> {}: ARCHITECTURE.md does not allow it",
                edge.from, edge.to
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: &str, to: &str) -> Edge {
        Edge {
            from: from.to_owned(),
            to: to.to_owned(),
        }
    }

    #[test]
    fn the_workspace_has_only_allowed_edges() {
        let violations = check_workspace(&workspace_root()).unwrap();
        assert!(violations.is_empty(), "{violations:#?}");
    }

    #[test]
    fn an_edge_up_the_stack_is_a_violation() {
        let architecture =
            std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).unwrap();
        let allowed = parse_allowed_edges(&architecture).unwrap();
        assert!(allowed.contains(&edge("jig-lineage", "jig-kernel")));
        let actual = vec![
            edge("jig-lineage", "jig-kernel"),
            edge("jig-kernel", "jig-lineage"),
            edge("jig-policy", "jig-exec-tool"),
        ];
        assert_eq!(
            violations(&allowed, &actual),
            vec![
                "forbidden dependency edge jig-kernel -> jig-lineage: ARCHITECTURE.md does not allow it",
                "forbidden dependency edge jig-policy -> jig-exec-tool: ARCHITECTURE.md does not allow it",
            ]
        );
    }

    #[test]
    fn a_wildcard_allows_every_target_of_its_source() {
        let allowed = vec![edge("xtask", "*")];
        assert!(violations(&allowed, &[edge("xtask", "jig-cli")]).is_empty());
        assert_eq!(violations(&allowed, &[edge("jig-cli", "xtask")]).len(), 1);
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

    #[test]
    fn missing_markers_are_an_error() {
        assert!(parse_allowed_edges("no markers here").is_err());
    }
}
