//! Why a text could not be turned into JSON.

/// Why [`repair`](crate::repair) or [`repair_value`](crate::repair_value)
/// returned no JSON.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    /// The text holds no JSON value: no object or array, and no lone scalar
    /// (string, number, literal) that spans the whole text.
    #[error("no JSON value in the text")]
    NoJson,
    /// The value nests objects and arrays deeper than [`MAX_DEPTH`](crate::MAX_DEPTH).
    #[error("JSON nested deeper than {limit} levels at byte {offset}")]
    TooDeep {
        /// The byte offset of the bracket that went one level too deep.
        offset: usize,
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The repaired text is not valid JSON. This is a bug in the repair: the
    /// check exists so that invalid JSON is never handed out.
    #[error("the repaired text is not valid JSON (a bug in jig-toolcall): {source}")]
    Invalid {
        /// What the JSON parser found wrong.
        #[source]
        source: serde_json::Error,
    },
}
