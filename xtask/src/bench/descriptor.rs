//! Descriptor figures: loading a folder of 1,000 descriptor files.

use std::time::{Duration, Instant};

use jig_lineage::{BUILTIN_NAMES, DenyList};

use super::Figures;

/// How many files the folder holds.
const FILES: usize = 1000;
/// How many loads the median is taken over.
const ROUNDS: usize = 15;

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("jig-bench-descriptor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let result = run_in(&dir, figures);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(dir: &std::path::Path, figures: &mut Figures) -> Result<(), String> {
    for i in 0..FILES {
        // A mix like a real tools folder: most plain, some with an enum or
        // a pattern.
        let extra = match i % 10 {
            0 => r#", "pattern": "[0-9]+(,[0-9]+)?""#,
            1 => r#", "enum": ["fast", "slow"]"#,
            _ => "",
        };
        let text = format!(
            r#"{{
  "name": "search_{i}",
  "description": "Search text in workspace files ({i})",
  "command": "grep -rn {{pattern}} {{path}}",
  "arguments": {{
    "pattern": {{"type": "string", "description": "Text pattern to search", "required": true{extra}}},
    "path": {{"type": "path", "description": "Directory or file to search", "default": "."}}
  }},
  "read_only": true
}}
"#
        );
        std::fs::write(dir.join(format!("search_{i:04}.tool.json")), text)
            .map_err(|e| e.to_string())?;
    }
    let deny = DenyList::default();
    let mut times: Vec<Duration> = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let report = jig_descriptor::load_dir(dir, &deny, BUILTIN_NAMES);
        times.push(start.elapsed());
        if report.tools.len() != FILES || !report.errors.is_empty() {
            return Err(format!(
                "descriptor bench: {} tools loaded, {} errors (first: {:?})",
                report.tools.len(),
                report.errors.len(),
                report.errors.first().map(ToString::to_string)
            ));
        }
    }
    let median = super::kernel::median(&mut times);
    figures.add("descriptor.load_1000_ms", median.as_secs_f64() * 1e3, "ms");
    Ok(())
}
