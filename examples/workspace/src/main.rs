//! tally: counts words in the files given on the command line.

mod count;

fn main() {
    let mut total = 0;
    for path in std::env::args().skip(1) {
        // TODO: report unreadable files instead of skipping them.
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let words = count::words(&text);
        println!("{words:>8} {path}");
        total += words;
    }
    println!("{total:>8} total");
}
