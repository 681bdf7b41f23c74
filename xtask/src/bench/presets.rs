//! Registry figures: what a call through every layer costs on top of the
//! kernel alone.

use std::time::{Duration, Instant};

use jig_kernel::Kernel;
use jig_presets::FullPreset;
use serde_json::json;

use super::Figures;
use super::kernel::median;

const ECHO_TOOL: &str = r#"{
  "name": "echo_text",
  "description": "Print a word",
  "command": "echo {text}",
  "arguments": {"text": {"type": "string", "description": "The word", "required": true}}
}"#;

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let scratch = std::env::temp_dir().join(format!("jig-bench-presets-{}", std::process::id()));
    let tools = scratch.join("tools");
    std::fs::create_dir_all(&tools).map_err(|e| e.to_string())?;
    let result = run_in(&scratch, figures);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn run_in(scratch: &std::path::Path, figures: &mut Figures) -> Result<(), String> {
    std::fs::write(scratch.join("tools/echo_text.tool.json"), ECHO_TOOL)
        .map_err(|e| e.to_string())?;
    let registry = FullPreset::new(scratch)
        .with_descriptor_dir(scratch.join("tools"))
        .build()
        .map_err(|e| e.to_string())?
        .registry;
    let kernel = Kernel::builder(scratch)
        .build()
        .map_err(|e| e.to_string())?;
    let args = json!({"text": "hello"});
    let rounds = 300;
    let (mut through_registry, mut kernel_only) = (Vec::new(), Vec::new());
    for round in 0..rounds + 20 {
        let t = Instant::now();
        let result = registry.dispatch("echo_text", &args);
        let dispatched = t.elapsed();
        if result.outcome().and_then(|o| o.exit_code()) != Some(0) {
            return Err(format!("echo_text did not run: {}", result.text()));
        }
        let t = Instant::now();
        kernel.run(&["echo", "hello"]).map_err(|e| e.to_string())?;
        let direct = t.elapsed();
        if round >= 20 {
            through_registry.push(dispatched);
            kernel_only.push(direct);
        }
    }
    let (ours, base): (Duration, Duration) =
        (median(&mut through_registry), median(&mut kernel_only));
    figures.add("presets.dispatch_median_us", ours.as_secs_f64() * 1e6, "us");
    figures.add(
        "presets.dispatch_overhead_ratio",
        ours.as_secs_f64() / base.as_secs_f64(),
        "ratio",
    );
    Ok(())
}
