//! Counting.

/// The number of whitespace-separated words in `text`.
pub fn words(text: &str) -> usize {
    // TODO: count hyphenated words once, not twice.
    text.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_words() {
        assert_eq!(super::words("one two  three\n"), 3);
    }
}
