//! Counted searches and the lexical pieces every shape shares.

use super::marks::{Marker, Marks};

/// The work of one reading: every byte a search or a reader looks at adds
/// one step, so that tests can check the work is linear in the text.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub(crate) steps: usize,
}

impl Scan {
    pub(crate) fn new() -> Scan {
        Scan::default()
    }

    /// The first `needle` in `text` at or after `from`, counting every
    /// byte passed over or compared: memchr finds its first byte, a
    /// comparison follows at each. No searcher is built (building memchr's
    /// cost more than the search through a reply of a few hundred bytes).
    /// Linear when the needle's first byte occurs nowhere else in it, as
    /// in the tags searched for (`</ns:invoke>`): a comparison that
    /// matched `k` bytes passed over `k` bytes where no candidate starts.
    pub(crate) fn find_tag(&mut self, text: &str, from: usize, needle: &str) -> Option<usize> {
        let rest = text.get(from..)?.as_bytes();
        let (first, tail) = needle.as_bytes().split_first()?;
        let mut pos = 0;
        while let Some(at) = rest
            .get(pos..)
            .and_then(|part| memchr::memchr(*first, part))
            .map(|at| pos + at)
        {
            let after = rest.get(at + 1..).unwrap_or(&[]);
            let same = after.iter().zip(tail).take_while(|(a, b)| a == b).count();
            self.steps += at + 1 - pos + same;
            if same == tail.len() {
                return Some(from + at);
            }
            pos = at + 1;
        }
        self.steps += rest.len().saturating_sub(pos);
        None
    }

    /// The first `byte` in `text` at or after `from`, counting the bytes
    /// passed over.
    pub(crate) fn find_byte(&mut self, text: &str, from: usize, byte: u8) -> Option<usize> {
        let rest = text.get(from..)?;
        match memchr::memchr(byte, rest.as_bytes()) {
            Some(at) => {
                self.steps += at + 1;
                Some(from + at)
            }
            None => {
                self.steps += rest.len();
                None
            }
        }
    }

    /// Counts `n` bytes read by a reader.
    pub(crate) fn count(&mut self, n: usize) {
        self.steps += n;
    }
}

/// Whether `c` may start a tool name: a letter of any script (tools are
/// named in the integrator's language: `获取天气`) or `_`.
pub(crate) fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// Whether `c` may continue a tool name (dotted and dashed names are
/// names: `grocery.orderIngredients`, `get-time`).
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The modules a model's code or transcript names the tools through:
/// Gemini's (and Gemma's after it), `default_api.ls(path="src")`, and the
/// namespace OpenAI's models are shown their tools in, `functions.ls`
/// (Kimi K2 writes its call ids so too): both name `ls`.
const API_MODULES: [&str; 2] = ["default_api.", "functions."];

/// `name` without the module of [`API_MODULES`] it is written in, if any.
pub(crate) fn without_module(name: &str) -> &str {
    API_MODULES
        .iter()
        .find_map(|module| name.strip_prefix(module))
        .unwrap_or(name)
}

/// Whether `name` is a plain tool name.
pub(crate) fn is_tool_name(name: &str) -> bool {
    name.starts_with(is_name_start) && name.chars().all(is_name_char) && name.len() <= 256
}

/// The end of the name that starts at `at` (`at` itself when there is none).
pub(crate) fn name_end(text: &str, at: usize) -> usize {
    let Some(rest) = text.get(at..) else {
        return at;
    };
    if !rest.starts_with(is_name_start) {
        return at;
    }
    at + rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len())
}

/// The first `needle` in a short `text` (a tag): memchr for its first
/// byte, then a comparison; no searcher is built.
pub(crate) fn find_short(text: &str, needle: &str) -> Option<usize> {
    let (first, _) = needle.as_bytes().split_first()?;
    let bytes = text.as_bytes();
    memchr::memchr_iter(*first, bytes).find(|at| {
        bytes
            .get(*at..)
            .is_some_and(|rest| rest.starts_with(needle.as_bytes()))
    })
}

/// The first characters of a text, for a message.
pub(crate) fn shorten(text: &str) -> String {
    const SHOWN: usize = 40;
    let mut short: String = text.chars().take(SHOWN).collect();
    if text.chars().nth(SHOWN).is_some() {
        short.push_str("...");
    }
    short
}

/// The offset of the first non-whitespace byte at or after `at`.
pub(crate) fn skip_space(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or("");
    at + (rest.len() - rest.trim_start().len())
}

/// Searches for one needle from growing offsets: a marker of the table
/// ([`Marks`]) is looked up there; any other text is searched for,
/// remembering the last answer: a needle found at `p` is the answer for
/// every offset up to `p`, and a needle not found is not found from any
/// later offset. This keeps loops that look ahead for a closing marker
/// linear.
pub(crate) enum Next {
    Marked(Marker),
    /// A tag (see [`Scan::find_tag`]).
    Text {
        needle: String,
        known: Option<(usize, Option<usize>)>,
    },
}

impl Next {
    pub(crate) fn new(needle: String) -> Self {
        Next::Text {
            needle,
            known: None,
        }
    }

    /// The needle's length in bytes.
    pub(crate) fn needle_len(&self) -> usize {
        match self {
            Next::Marked(marker) => marker.text().len(),
            Next::Text { needle, .. } => needle.len(),
        }
    }

    pub(crate) fn find(
        &mut self,
        marks: &Marks,
        scan: &mut Scan,
        text: &str,
        from: usize,
    ) -> Option<usize> {
        let (needle, known) = match self {
            Next::Marked(marker) => return marks.find(scan, *marker, from),
            Next::Text { needle, known } => (needle, known),
        };
        if let Some((asked, answer)) = *known
            && asked <= from
        {
            match answer {
                None => return None,
                Some(at) if at >= from => return Some(at),
                Some(_) => {}
            }
        }
        let answer = scan.find_tag(text, from, needle);
        *known = Some((from, answer));
        answer
    }
}
