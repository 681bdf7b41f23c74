//! `extract_call` on a conversation's worth of weak-model replies, with
//! the outcome each gets, as the loop and the model would see it.

use std::fmt::Write;

use jig_toolcall::{CallOutcome, extract_call};

const REPLIES: &[&str] = &[
    "{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}",
    "I'll read the file now.\n```json\n{\"tool\": \"read_file\", \"args\": {\"path\": \"src/main.rs\"}}\n```",
    "{'tool_name': 'grep', 'parameters': {'pattern': 'fn main', 'path': 'src',},}",
    "{\"function\": {\"name\": \"write_file\", \"arguments\": \"{\\\"path\\\": \\\"out.txt\\\", \\\"content\\\": \\\"done\\\"}\"}}",
    "{\"name\": \"run\", \"arguments\": {\"cmd\": \"cargo test\", \"timeout\": 60",
    "{\"name\": \"run\"}",
    "The tests pass now. I am done.",
    "{\"thought\": \"I should look at the tests first\"}",
    "{\"name\": \"read_file\", \"arguments\": \"src/main.rs\"}",
    "[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {}}]",
];

#[test]
fn outcomes_of_weak_model_replies() {
    let mut transcript = String::new();
    for reply in REPLIES {
        let outcome = match extract_call(reply) {
            CallOutcome::Call(call) => format!("call {}", call.to_json()),
            CallOutcome::NoCall => "no call".to_owned(),
            CallOutcome::Unrepairable { reason } => format!("ask again: {reason}"),
        };
        writeln!(transcript, "reply:   {reply:?}\noutcome: {outcome}\n").unwrap();
    }
    insta::assert_snapshot!(transcript);
}
