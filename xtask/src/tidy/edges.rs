//! The dependency edges between workspace crates against ARCHITECTURE.md:
//! each edge allowed and of an allowed kind, pointing down the crate map,
//! and every allowed edge still used.

use std::collections::BTreeSet;

use super::architecture::Architecture;
use super::metadata::{Edge, Kind};

/// Every violation of the edge rules, sorted, each once.
pub(crate) fn violations(
    architecture: &Architecture,
    packages: &BTreeSet<&str>,
    edges: &[Edge],
) -> Vec<String> {
    let mut found = BTreeSet::new();
    found.extend(kinds(architecture, edges));
    found.extend(order(architecture, packages, edges));
    found.extend(stale(architecture, edges));
    found.into_iter().collect()
}

/// Each edge must be allowed; a normal or build edge needs an allowed
/// edge that is not `(dev)`.
fn kinds(architecture: &Architecture, edges: &[Edge]) -> Vec<String> {
    let mut found = Vec::new();
    for edge in edges {
        let allowed: Vec<_> = architecture
            .allowed
            .iter()
            .filter(|a| a.covers(&edge.from, &edge.to))
            .collect();
        if allowed.is_empty() {
            found.push(format!(
                "forbidden dependency edge {} -> {}: ARCHITECTURE.md does not allow it",
                edge.from, edge.to
            ));
        } else if edge.kind != Kind::Dev && allowed.iter().all(|a| a.dev) {
            found.push(format!(
                "dependency edge {} -> {} is a {} dependency, but ARCHITECTURE.md allows it \
                 only for tests (dev)",
                edge.from,
                edge.to,
                edge.kind.as_str()
            ));
        }
    }
    found
}

/// Every workspace crate is in the map, and every edge, actual or allowed,
/// points to a crate above its source in the map.
fn order(architecture: &Architecture, packages: &BTreeSet<&str>, edges: &[Edge]) -> Vec<String> {
    let mut found = Vec::new();
    for package in packages {
        if architecture.layer(package).is_none() {
            found.push(format!(
                "{package} is a workspace crate missing from ARCHITECTURE.md's crate map"
            ));
        }
    }
    for name in &architecture.map {
        if !packages.contains(name.as_str()) {
            found.push(format!(
                "ARCHITECTURE.md's crate map lists {name}, which is not a workspace crate"
            ));
        }
    }
    let actual = edges.iter().map(|e| (e.from.as_str(), e.to.as_str()));
    let allowed = architecture
        .allowed
        .iter()
        .filter(|a| a.to != "*")
        .map(|a| (a.from.as_str(), a.to.as_str()));
    for (from, to) in actual.chain(allowed) {
        if let (Some(low), Some(high)) = (architecture.layer(to), architecture.layer(from))
            && low >= high
        {
            found.push(format!(
                "dependency edge {from} -> {to} points up the crate map: a crate depends \
                 only on crates above it in ARCHITECTURE.md"
            ));
        }
    }
    found
}

/// Every allowed edge is used; one used only by dev-dependencies is marked
/// `(dev)`.
fn stale(architecture: &Architecture, edges: &[Edge]) -> Vec<String> {
    let mut found = Vec::new();
    for allowed in &architecture.allowed {
        let used: Vec<Kind> = edges
            .iter()
            .filter(|e| allowed.covers(&e.from, &e.to))
            .map(|e| e.kind)
            .collect();
        if used.is_empty() {
            found.push(format!(
                "allowed edge {} -> {} is not used by any crate: remove it from ARCHITECTURE.md",
                allowed.from, allowed.to
            ));
        } else if !allowed.dev && used.iter().all(|&k| k == Kind::Dev) {
            found.push(format!(
                "allowed edge {} -> {} is used only by tests: mark it (dev) in ARCHITECTURE.md",
                allowed.from, allowed.to
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tidy::architecture::Allowed;
    use crate::tidy::metadata::Metadata;

    /// A map `low < mid < high < xtask` and the given allowed edges.
    fn architecture(allowed: &[(&str, &str, bool)]) -> Architecture {
        Architecture {
            map: ["low", "mid", "high", "xtask"].map(str::to_owned).to_vec(),
            allowed: allowed
                .iter()
                .map(|&(from, to, dev)| Allowed {
                    from: from.to_owned(),
                    to: to.to_owned(),
                    dev,
                })
                .collect(),
        }
    }

    /// Synthetic `cargo metadata`: packages `low`, `mid`, `high`, `xtask`
    /// and the given `(from, to, kind)` dependencies.
    fn metadata(dependencies: &[(&str, &str, Option<&str>)]) -> Metadata {
        let packages: Vec<serde_json::Value> = ["low", "mid", "high", "xtask"]
            .iter()
            .map(|&name| {
                let dependencies: Vec<_> = dependencies
                    .iter()
                    .filter(|d| d.0 == name)
                    .map(|&(_, to, kind)| {
                        serde_json::json!({"name": to, "kind": kind, "features": []})
                    })
                    .collect();
                serde_json::json!({"name": name, "features": {}, "dependencies": dependencies})
            })
            .collect();
        Metadata::parse(&serde_json::json!({ "packages": packages })).unwrap()
    }

    fn check(architecture: &Architecture, metadata: &Metadata) -> Vec<String> {
        violations(architecture, &metadata.names(), &metadata.edges())
    }

    #[test]
    fn allowed_edges_of_the_right_kind_pass() {
        let architecture = architecture(&[
            ("mid", "low", false),
            ("high", "low", true),
            ("high", "mid", false),
            ("xtask", "*", false),
        ]);
        let metadata = metadata(&[
            ("mid", "low", None),
            ("high", "low", Some("dev")),
            ("high", "mid", None),
            ("high", "mid", Some("dev")),
            ("xtask", "high", None),
        ]);
        assert_eq!(check(&architecture, &metadata), Vec::<String>::new());
    }

    #[test]
    fn an_edge_not_listed_is_reported() {
        let architecture = architecture(&[("mid", "low", false)]);
        let metadata = metadata(&[("mid", "low", None), ("high", "low", None)]);
        assert_eq!(
            check(&architecture, &metadata),
            ["forbidden dependency edge high -> low: ARCHITECTURE.md does not allow it"]
        );
    }

    #[test]
    fn a_dev_edge_used_as_a_normal_or_build_edge_is_reported() {
        let architecture = architecture(&[("mid", "low", true), ("high", "low", true)]);
        let metadata = metadata(&[("mid", "low", None), ("high", "low", Some("build"))]);
        assert_eq!(
            check(&architecture, &metadata),
            [
                "dependency edge high -> low is a build dependency, but ARCHITECTURE.md allows \
                 it only for tests (dev)",
                "dependency edge mid -> low is a normal dependency, but ARCHITECTURE.md allows \
                 it only for tests (dev)",
            ]
        );
    }

    #[test]
    fn an_upward_edge_is_reported_even_when_listed_or_dev() {
        let listed = architecture(&[("mid", "low", false), ("low", "high", true)]);
        let actual = metadata(&[("mid", "low", None), ("low", "high", Some("dev"))]);
        assert_eq!(
            check(&listed, &actual),
            [
                "dependency edge low -> high points up the crate map: a crate depends only on \
                 crates above it in ARCHITECTURE.md"
            ]
        );
        // Listed but unused, it is reported too (and as stale); a crate is
        // not above itself.
        let listed = architecture(&[("mid", "high", true), ("mid", "mid", false)]);
        let found = check(&listed, &metadata(&[]));
        assert!(found.iter().any(|v| v.contains("mid -> high points up")));
        assert!(found.iter().any(|v| v.contains("mid -> mid points up")));
    }

    #[test]
    fn a_stale_edge_is_reported() {
        let architecture = architecture(&[("mid", "low", false), ("high", "mid", false)]);
        let metadata = metadata(&[("mid", "low", None)]);
        assert_eq!(
            check(&architecture, &metadata),
            ["allowed edge high -> mid is not used by any crate: remove it from ARCHITECTURE.md"]
        );
    }

    #[test]
    fn an_edge_used_only_by_tests_counts_as_a_dev_edge() {
        let architecture = architecture(&[("mid", "low", false), ("high", "low", true)]);
        let metadata = metadata(&[("mid", "low", Some("dev")), ("high", "low", Some("dev"))]);
        assert_eq!(
            check(&architecture, &metadata),
            ["allowed edge mid -> low is used only by tests: mark it (dev) in ARCHITECTURE.md"]
        );
    }

    #[test]
    fn a_crate_missing_from_the_map_is_reported() {
        let mut architecture = architecture(&[]);
        architecture.map.retain(|n| n != "mid");
        architecture.map.push("gone".to_owned());
        assert_eq!(
            check(&architecture, &metadata(&[])),
            [
                "ARCHITECTURE.md's crate map lists gone, which is not a workspace crate",
                "mid is a workspace crate missing from ARCHITECTURE.md's crate map",
            ]
        );
    }
}
