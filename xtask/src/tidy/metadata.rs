//! The part of `cargo metadata` the checks read: each workspace package's
//! declared dependencies (name, kind, features asked for) and its own
//! feature table.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// How a dependency is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// `[dependencies]`: part of the crate.
    Normal,
    /// `[build-dependencies]`: runs when the crate builds.
    Build,
    /// `[dev-dependencies]`: tests, examples and benchmarks only.
    Dev,
}

impl Kind {
    fn parse(value: &Value) -> Result<Self, String> {
        match value.as_str() {
            None => Ok(Kind::Normal),
            Some("build") => Ok(Kind::Build),
            Some("dev") => Ok(Kind::Dev),
            Some(other) => Err(format!(
                "cargo metadata gave an unknown dependency kind `{other}`"
            )),
        }
    }

    /// `normal`, `build` or `dev`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Normal => "normal",
            Kind::Build => "build",
            Kind::Dev => "dev",
        }
    }
}

/// One declared dependency of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dependency {
    /// The package depended on (not its local rename).
    pub(crate) name: String,
    pub(crate) kind: Kind,
    /// The features this declaration asks for (with `workspace = true`,
    /// the workspace's declaration and the member's own, merged). Features
    /// that other crates turn on by unification are not here.
    pub(crate) features: Vec<String>,
}

/// One workspace package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Package {
    pub(crate) name: String,
    pub(crate) dependencies: Vec<Dependency>,
    /// Every entry of its `[features]` table: `(feature, what it turns on)`.
    pub(crate) features: Vec<(String, String)>,
}

/// One dependency edge between two workspace packages.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Edge {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) kind: Kind,
}

/// The workspace packages, as `cargo metadata --no-deps` lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Metadata {
    pub(crate) packages: Vec<Package>,
}

impl Metadata {
    /// Runs `cargo metadata` in `root`.
    pub(crate) fn read(root: &Path) -> Result<Self, String> {
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
        let json: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("cargo metadata printed invalid JSON: {e}"))?;
        Self::parse(&json)
    }

    /// Reads the packages out of `cargo metadata`'s JSON.
    pub(crate) fn parse(json: &Value) -> Result<Self, String> {
        let text = |value: &Value, what: &str| {
            value
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("cargo metadata has no {what}"))
        };
        let mut packages = Vec::new();
        for package in json["packages"].as_array().into_iter().flatten() {
            let mut dependencies = Vec::new();
            for dependency in package["dependencies"].as_array().into_iter().flatten() {
                dependencies.push(Dependency {
                    name: text(&dependency["name"], "dependency name")?,
                    kind: Kind::parse(&dependency["kind"])?,
                    features: strings(&dependency["features"]),
                });
            }
            let features = package["features"]
                .as_object()
                .into_iter()
                .flatten()
                .flat_map(|(feature, enables)| {
                    strings(enables)
                        .into_iter()
                        .map(move |enabled| (feature.clone(), enabled))
                })
                .collect();
            packages.push(Package {
                name: text(&package["name"], "package name")?,
                dependencies,
                features,
            });
        }
        Ok(Self { packages })
    }

    /// The names of the workspace packages.
    pub(crate) fn names(&self) -> BTreeSet<&str> {
        self.packages.iter().map(|p| p.name.as_str()).collect()
    }

    /// Every edge between workspace packages, once per kind.
    pub(crate) fn edges(&self) -> Vec<Edge> {
        let names = self.names();
        let edges: BTreeSet<Edge> = self
            .packages
            .iter()
            .flat_map(|package| {
                package
                    .dependencies
                    .iter()
                    .filter(|d| names.contains(d.name.as_str()))
                    .map(|d| Edge {
                        from: package.name.clone(),
                        to: d.name.clone(),
                        kind: d.kind,
                    })
            })
            .collect();
        edges.into_iter().collect()
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn kinds_features_and_edges_are_read() {
        let metadata = Metadata::parse(&json!({"packages": [
            {"name": "a", "features": {"x": ["nix/process", "dep:b"]}, "dependencies": [
                {"name": "b", "kind": null, "features": []},
                {"name": "b", "kind": "dev", "features": []},
                {"name": "nix", "kind": "build", "features": ["fs"]},
            ]},
            {"name": "b", "features": {}, "dependencies": []},
        ]}))
        .unwrap();
        let a = &metadata.packages[0];
        assert_eq!(a.dependencies[2].kind, Kind::Build);
        assert_eq!(a.dependencies[2].features, ["fs"]);
        assert_eq!(
            a.features,
            [
                ("x".to_owned(), "nix/process".to_owned()),
                ("x".to_owned(), "dep:b".to_owned())
            ]
        );
        let kinds: Vec<Kind> = metadata.edges().iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [Kind::Normal, Kind::Dev]);
    }

    #[test]
    fn an_unknown_kind_is_an_error() {
        let json = json!({"packages": [{"name": "a", "dependencies": [
            {"name": "b", "kind": "weird", "features": []}
        ]}]});
        assert!(Metadata::parse(&json).is_err());
    }
}
