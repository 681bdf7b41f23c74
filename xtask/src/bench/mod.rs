//! `cargo xtask bench`: every figure is measured in one run, printed as
//! `name value unit`, or as one JSON object with `--json`.
//!
//! Each area has its own module with a `run(&mut Figures)` function.

mod cli;
mod descriptor;
mod echo_server;
mod kernel;
mod mcp;
mod mcp_raw;
mod presets;
mod python;
mod toolcall;

/// One benchmark area: its name (the figures' prefix) and its function.
type Area = (&'static str, fn(&mut Figures) -> Result<(), String>);

/// Every area, in the order they run.
const AREAS: &[Area] = &[
    ("kernel", kernel::run),
    ("descriptor", descriptor::run),
    ("presets", presets::run),
    ("mcp", mcp::run),
    ("cli", cli::run),
    ("toolcall", toolcall::run),
];

/// The figures of one benchmark run, in the order measured.
#[derive(Default)]
pub(crate) struct Figures {
    entries: Vec<(String, f64, String)>,
}

impl Figures {
    /// Records one figure and prints it at once (to stderr in JSON mode, so
    /// stdout stays one JSON object).
    pub(crate) fn add(&mut self, name: &str, value: f64, unit: &str) {
        eprintln!("bench: {name} {value:.3} {unit}");
        self.entries.push((name.to_owned(), value, unit.to_owned()));
    }
}

/// Serves the yardstick MCP server of the `mcp` benchmark on stdio.
pub(crate) fn echo_server() -> Result<(), String> {
    echo_server::run()
}

/// Runs the benchmarks named by `--only PREFIX` (default all).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let json = args.iter().any(|a| a == "--json");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_default();
    let mut figures = Figures::default();
    for &(area, run) in AREAS {
        if area.starts_with(&only) || only.starts_with(area) {
            run(&mut figures)?;
        }
    }
    if json {
        let map: serde_json::Map<String, serde_json::Value> = figures
            .entries
            .iter()
            .map(|(name, value, _)| (name.clone(), serde_json::json!(value)))
            .collect();
        println!("{}", serde_json::Value::Object(map));
    } else {
        for (name, value, unit) in &figures.entries {
            println!("{name} {value:.3} {unit}");
        }
    }
    Ok(())
}
