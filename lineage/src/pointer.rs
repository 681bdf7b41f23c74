//! JSON pointer segments (RFC 6901), as error locations name a value in a
//! descriptor (`/arguments/path/default`).

/// Escapes one JSON pointer segment: `~` becomes `~0`, `/` becomes `~1`.
pub fn escape_pointer_segment(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Undoes [`escape_pointer_segment`]: `~1` becomes `/`, `~0` becomes `~`
/// (in that order, so `~01` stays the literal `~1`).
pub fn unescape_pointer_segment(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_round_trip() {
        for (raw, escaped) in [
            ("a/b", "a~1b"),
            ("~x", "~0x"),
            ("~1", "~01"),
            ("plain", "plain"),
        ] {
            assert_eq!(escape_pointer_segment(raw), escaped);
            assert_eq!(unescape_pointer_segment(escaped), raw);
        }
    }
}
