//! Wiring: the `FullPreset` builder, the registry and dispatch of one call.
//!
//! (Front page completed with the presets issue.)
#![forbid(unsafe_code)]

mod builder;
mod registry;
mod schema;
mod wiring;

pub use builder::{Built, FullPreset, PresetError};
pub use registry::{DispatchOptions, Registry};
pub use schema::{SchemaFormat, export};
