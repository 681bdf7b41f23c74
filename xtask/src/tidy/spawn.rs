//! "Only the kernel spawns", checked where `cargo metadata` can see it:
//! no crate but jig-kernel declares a dependency that spawns, signals or
//! contains processes.
//!
//! What counts is what a crate asks for itself: its normal and build
//! dependencies' declared features and its own feature table. A feature
//! that workspace unification turns on for a crate that did not ask for it
//! is not held against that crate. Dev-dependencies are exempt: tests may
//! start helper processes (the CLI's tests start `jig` itself), and clippy's
//! `disallowed-methods` makes each test crate opt out visibly. `xtask` is
//! exempt: a chore binary, never a dependency of another crate.

use super::metadata::{Kind, Metadata};

/// The one crate that spawns.
const KERNEL: &str = "jig-kernel";

/// Crates exempt from the rule, besides the kernel.
const EXEMPT: &[&str] = &["xtask"];

/// Crates only the kernel may depend on: raw system calls, and the
/// containment mechanisms the kernel owns.
const KERNEL_ONLY_CRATES: &[&str] = &["libc", "landlock", "seccompiler"];

/// Features only the kernel may ask for: each brings calls that start or
/// signal processes.
const KERNEL_ONLY_FEATURES: &[(&str, &str)] = &[
    ("nix", "process"),
    ("nix", "signal"),
    ("tokio", "process"),
    ("tokio", "full"),
    ("rmcp", "transport-child-process"),
];

/// Every dependency outside the kernel that could spawn or signal.
pub(crate) fn violations(metadata: &Metadata) -> Vec<String> {
    let mut found = Vec::new();
    let checked = metadata
        .packages
        .iter()
        .filter(|p| p.name != KERNEL && !EXEMPT.contains(&p.name.as_str()));
    for package in checked {
        for dependency in &package.dependencies {
            if dependency.kind == Kind::Dev {
                continue;
            }
            let name = dependency.name.as_str();
            if KERNEL_ONLY_CRATES.contains(&name) {
                found.push(format!(
                    "{} depends on {name} ({}): only {KERNEL} may, it is the one crate that \
                     spawns and contains processes",
                    package.name,
                    dependency.kind.as_str()
                ));
            }
            for feature in &dependency.features {
                if kernel_only(name, feature) {
                    found.push(format!(
                        "{} asks for {name}'s `{feature}` feature ({}): only {KERNEL} may \
                         start or signal processes",
                        package.name,
                        dependency.kind.as_str()
                    ));
                }
            }
        }
        for (feature, enabled) in &package.features {
            let Some((name, wanted)) = enabled.split_once('/') else {
                continue;
            };
            let name = name.trim_end_matches('?');
            if kernel_only(name, wanted) {
                found.push(format!(
                    "{}'s feature `{feature}` turns on {name}'s `{wanted}` feature: only {KERNEL} \
                     may start or signal processes",
                    package.name
                ));
            }
        }
    }
    found
}

fn kernel_only(name: &str, feature: &str) -> bool {
    KERNEL_ONLY_FEATURES.contains(&(name, feature))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Synthetic `cargo metadata` with one package holding `dependencies`.
    fn package(name: &str, dependencies: Value, features: Value) -> Metadata {
        Metadata::parse(&json!({"packages": [
            {"name": name, "dependencies": dependencies, "features": features}
        ]}))
        .unwrap()
    }

    fn dependency(name: &str, kind: Option<&str>, features: &[&str]) -> Value {
        json!({"name": name, "kind": kind, "features": features})
    }

    #[test]
    fn a_nix_process_dependency_outside_the_kernel_is_reported() {
        let metadata = package(
            "jig-presets",
            json!([dependency("nix", None, &["fs", "process"])]),
            json!({}),
        );
        assert_eq!(
            violations(&metadata),
            [
                "jig-presets asks for nix's `process` feature (normal): only jig-kernel may start \
              or signal processes"
            ]
        );
    }

    #[test]
    fn each_kernel_only_dependency_is_reported() {
        let metadata = package(
            "jig-cli",
            json!([
                dependency("nix", Some("build"), &["signal"]),
                dependency("tokio", None, &["rt", "process"]),
                dependency("tokio", None, &["full"]),
                dependency("rmcp", None, &["transport-child-process"]),
                dependency("libc", None, &[]),
                dependency("landlock", None, &[]),
                dependency("seccompiler", None, &[]),
            ]),
            json!({"spawn": ["nix?/process"], "quiet": ["tokio/rt"]}),
        );
        let found = violations(&metadata);
        assert_eq!(found.len(), 8, "{found:#?}");
        assert!(found[0].starts_with("jig-cli asks for nix's `signal` feature (build)"));
        assert!(found[4].starts_with("jig-cli depends on libc (normal): only jig-kernel may"));
        assert!(found[7].starts_with("jig-cli's feature `spawn` turns on nix's `process`"));
    }

    #[test]
    fn the_kernel_xtask_tests_and_harmless_features_pass() {
        let spawning = json!([
            dependency("nix", None, &["process", "signal"]),
            dependency("libc", None, &[]),
            dependency("landlock", None, &[]),
            dependency("seccompiler", None, &[]),
        ]);
        for name in ["jig-kernel", "xtask"] {
            assert!(violations(&package(name, spawning.clone(), json!({}))).is_empty());
        }
        let harmless = package(
            "jig-cli",
            json!([
                dependency("nix", None, &["fs", "poll"]),
                dependency("tokio", None, &["rt", "signal"]),
                dependency("nix", Some("dev"), &["process", "signal"]),
                dependency("tokio", Some("dev"), &["process"]),
                dependency("libc", Some("dev"), &[]),
            ]),
            json!({"default": ["dep:nix"]}),
        );
        assert_eq!(violations(&harmless), Vec::<String>::new());
    }
}
