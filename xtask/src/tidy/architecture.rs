//! What ARCHITECTURE.md states about dependencies: the crate map (lowest
//! layer first) and the allowed edges, each normal or `(dev)`.

/// One allowed edge: `- from -> to: reason`, where a reason starting with
/// `(dev)` allows the edge for tests only. `to` may be `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Allowed {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) dev: bool,
}

impl Allowed {
    /// Whether this allowed edge covers `from -> to`.
    pub(crate) fn covers(&self, from: &str, to: &str) -> bool {
        self.from == from && (self.to == to || self.to == "*")
    }
}

/// The dependency rules of ARCHITECTURE.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Architecture {
    /// The crates of the map, lowest layer first.
    pub(crate) map: Vec<String>,
    /// The allowed edges, in the order written.
    pub(crate) allowed: Vec<Allowed>,
}

impl Architecture {
    /// Parses the crate map table and the lines between the edge markers.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        Ok(Self {
            map: parse_map(text)?,
            allowed: parse_allowed_edges(text)?,
        })
    }

    /// The place of `name` in the map (0 is the lowest layer).
    pub(crate) fn layer(&self, name: &str) -> Option<usize> {
        self.map.iter().position(|n| n == name)
    }
}

/// The first backticked name of each row of the `## Crate map` table.
fn parse_map(text: &str) -> Result<Vec<String>, String> {
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Crate map"))
        .ok_or("ARCHITECTURE.md has no `## Crate map` section")?;
    let map: Vec<String> = section
        .lines()
        .filter_map(|line| {
            let cell = line.trim().strip_prefix('|')?.split('|').next()?;
            let name = cell.split('`').nth(1)?;
            Some(name.to_owned())
        })
        .collect();
    if map.is_empty() {
        return Err("ARCHITECTURE.md's crate map has no rows".to_owned());
    }
    Ok(map)
}

/// Parses the `- from -> to: reason` lines between the edge markers.
fn parse_allowed_edges(text: &str) -> Result<Vec<Allowed>, String> {
    let start = text
        .find("<!-- edges")
        .ok_or("ARCHITECTURE.md has no `<!-- edges` marker")?;
    let end = text
        .find("<!-- /edges -->")
        .ok_or("ARCHITECTURE.md has no `<!-- /edges -->` marker")?;
    let mut edges = Vec::new();
    for line in text.get(start..end).unwrap_or_default().lines().skip(1) {
        let Some(rest) = line.trim().strip_prefix("- ") else {
            continue;
        };
        let (head, reason) = rest.split_once(':').unwrap_or((rest, ""));
        let (from, to) = head
            .split_once("->")
            .ok_or_else(|| format!("malformed edge line in ARCHITECTURE.md: `{line}`"))?;
        edges.push(Allowed {
            from: from.trim().to_owned(),
            to: to.trim().to_owned(),
            dev: reason.trim_start().starts_with("(dev)"),
        });
    }
    Ok(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# A\n\n## Crate map (lowest first)\n\n| crate | owns |\n|---|---|\n\
                        | `low` (`low/`) | x |\n| `high` (`high/`) | y |\n\n## Edges\n\n\
                        <!-- edges -->\n- high -> low: used\n- low -> test: (dev) tests only\n\
                        <!-- /edges -->\n";

    #[test]
    fn the_map_and_the_edges_are_read() {
        let architecture = Architecture::parse(TEXT).unwrap();
        assert_eq!(architecture.map, ["low", "high"]);
        assert_eq!(architecture.layer("high"), Some(1));
        assert_eq!(
            architecture.allowed,
            [
                Allowed {
                    from: "high".into(),
                    to: "low".into(),
                    dev: false
                },
                Allowed {
                    from: "low".into(),
                    to: "test".into(),
                    dev: true
                },
            ]
        );
    }

    #[test]
    fn missing_markers_or_map_are_an_error() {
        assert!(parse_allowed_edges("no markers here").is_err());
        assert!(parse_map("## Crate map\n\nno table\n").is_err());
        assert!(Architecture::parse("<!-- edges -->\n<!-- /edges -->").is_err());
    }

    #[test]
    fn a_wildcard_covers_every_target_of_its_source() {
        let xtask = Allowed {
            from: "xtask".into(),
            to: "*".into(),
            dev: false,
        };
        assert!(xtask.covers("xtask", "jig-cli"));
        assert!(!xtask.covers("jig-cli", "xtask"));
    }
}
