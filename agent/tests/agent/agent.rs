//! The loop end to end: a scripted model behind a loopback chat-completions
//! server, the real HTTP client, a real registry. Each run's transcript is
//! snapshotted; the requests the server received are checked.

use jig_agent::{
    Action, AgentLoop, ChatError, Event, Mode, OpenAiClient, OpenAiConfig, StopReason, Transcript,
};
use serde_json::{Value, json};

use crate::server::{Reply, Request, Server};
use crate::support::Workspace;

/// Runs `agent` on `task` against a server playing `script`; the
/// transcript, the events seen (one line each) and the requests.
fn run(
    agent: AgentLoop<'_>,
    script: Vec<Reply>,
    config: impl FnOnce(OpenAiConfig) -> OpenAiConfig,
) -> (Transcript, Vec<String>, Vec<Request>) {
    let server = Server::start(script);
    let mut client = OpenAiClient::new(config(OpenAiConfig::new(server.url(), "scripted-7b")));
    let mut events = Vec::new();
    let transcript = agent
        .run(
            &mut client,
            "Find the TODOs and tell me where they are.",
            |event| {
                events.push(match event {
                    Event::Reply { round, .. } => format!("reply {round}"),
                    Event::Action { round, action } => match action {
                        Action::Called { call, .. } => format!("call {round} {}", call.name()),
                        _ => format!("correction {round}"),
                    },
                    Event::Stop { .. } => "stop".to_owned(),
                    _ => "other".to_owned(),
                });
            },
        )
        .unwrap();
    let requests = server.finish();
    // one request per round, and one more when the model failed
    let failed = usize::from(matches!(transcript.stop, StopReason::ModelFailed(_)));
    assert_eq!(requests.len(), transcript.rounds.len() + failed);
    (transcript, events, requests)
}

/// The roles of a request's messages, in order.
fn roles(request: &Request) -> Vec<&str> {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect()
}

/// A weak model's whole run in prompt mode: chatter and fences, single
/// quotes, a comment, a denied tool, a bad slot value, an object that is not
/// a call (corrected), a truncated object, then the finish call.
#[test]
fn a_weak_model_in_prompt_mode() {
    let workspace = Workspace::new();
    let script = vec![
        Reply::text(
            "Sure! Let me search for TODOs first.\n```json\n{'name': 'grep', 'arguments': \
             {'pattern': 'TODO', 'path': 'notes.txt',}}\n```\nI will wait for the result.",
        ),
        Reply::text(
            "{\"name\": \"sed_print\", \"arguments\": {\"path\": \"notes.txt\", \"range\": \"1,2\"}} // the top",
        ),
        Reply::text("{\"name\": \"find\", \"arguments\": {\"pattern\": \"*.rs\"}}"),
        Reply::text(
            "{\"name\": \"sed_print\", \"arguments\": {\"path\": \"notes.txt\", \"range\": \"1,2; cat /etc/passwd\"}}",
        ),
        Reply::text("{\"thought\": \"I should look at src/main.rs next\"}"),
        Reply::text(
            "{\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\", \"path\": \"src/main.rs",
        ),
        Reply::text(
            "All done.\n{\"name\": \"done\", \"arguments\": {\"answer\": \"notes.txt line 2 and src/main.rs line 2\"}}",
        ),
    ];
    let agent = AgentLoop::new(&workspace.registry);
    let (transcript, events, requests) = run(agent, script, |c| c);

    assert_eq!(
        transcript.stop,
        StopReason::Finished {
            answer: "notes.txt line 2 and src/main.rs line 2".to_owned()
        }
    );
    assert_eq!(
        events,
        [
            "reply 1",
            "call 1 grep",
            "reply 2",
            "call 2 sed_print",
            "reply 3",
            "call 3 find",
            "reply 4",
            "call 4 sed_print",
            "reply 5",
            "correction 5",
            "reply 6",
            "call 6 grep",
            "reply 7",
            "stop",
        ]
    );
    // every layer applied: the policy refused `find`, the slot refused the value
    let codes: Vec<Option<u16>> = transcript
        .rounds
        .iter()
        .flat_map(|r| &r.actions)
        .filter_map(|a| match a {
            Action::Called { result, .. } => Some(result.refusal().map(|r| r.code.code())),
            _ => None,
        })
        .collect();
    assert_eq!(codes, [None, None, Some(616), Some(614), None]);

    // prompt mode sends no tools; the conversation grows by two each round
    for (index, request) in requests.iter().enumerate() {
        assert_eq!(request.line, "POST /v1/chat/completions HTTP/1.1");
        assert_eq!(request.body["model"], "scripted-7b");
        assert_eq!(request.body["stream"], false);
        assert!(request.body.get("tools").is_none());
        assert_eq!(request.header("authorization"), None);
        assert_eq!(
            request.body["messages"].as_array().unwrap().len(),
            2 + 2 * index
        );
    }
    assert_eq!(roles(&requests[1]), ["system", "user", "assistant", "user"]);
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "Find the TODOs and tell me where they are."
    );
    insta::assert_snapshot!(workspace.render(&transcript));
}

/// After `max_corrections` corrections in a row, the next unusable reply
/// ends the run.
#[test]
fn corrections_are_bounded() {
    let workspace = Workspace::new();
    let script = vec![
        Reply::text("{\"tool\": 42}"),
        Reply::text("{\"name\": \"grep\", \"arguments\": \"pattern=TODO\"}"),
    ];
    let agent = AgentLoop::new(&workspace.registry).with_max_corrections(1);
    let (transcript, _, _) = run(agent, script, |c| c);
    assert!(matches!(transcript.stop, StopReason::Unrepairable { .. }));
    insta::assert_snapshot!(workspace.render(&transcript));
}

/// A reply without JSON ends the run; so does the maximum of rounds; a long
/// result is cut to the loop's maximum.
#[test]
fn no_call_max_rounds_and_the_result_cap() {
    let workspace = Workspace::new();
    let agent = AgentLoop::new(&workspace.registry);
    let script = vec![Reply::text("The TODOs are in notes.txt. I am done.")];
    let (transcript, _, _) = run(agent, script, |c| c);
    assert_eq!(
        transcript.stop,
        StopReason::NoCall {
            text: "The TODOs are in notes.txt. I am done.".to_owned()
        }
    );

    let call =
        "{\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\", \"path\": \"notes.txt\"}}";
    let agent = AgentLoop::new(&workspace.registry)
        .with_max_rounds(2)
        .with_max_result_bytes(20);
    let script = vec![Reply::text(call), Reply::text(call), Reply::text(call)];
    let (transcript, _, _) = run(agent, script, |c| c);
    assert_eq!(transcript.stop, StopReason::MaxRounds { rounds: 2 });
    insta::assert_snapshot!(workspace.render(&transcript));
}

/// Native mode: the tools go in the request, calls come back as
/// `tool_calls` (arguments as broken text too), results go back as `tool`
/// messages with their ids; the key is sent as a bearer token.
#[test]
fn native_mode_with_tool_calls() {
    let workspace = Workspace::new();
    let script = vec![
        Reply::tool_calls(&[
            (
                "call_a",
                "grep",
                "{\"pattern\": \"TODO\", \"path\": \"src\"}",
            ),
            ("call_b", "sed_print", "{'path': 'notes.txt', range: '2',}"),
        ]),
        Reply::tool_calls(&[("call_c", "grep", "pattern=TODO")]),
        Reply::tool_calls(&[("", "find", "{\"pattern\": \"*.rs\"}")]),
        Reply::text("The TODOs are on line 2 of notes.txt and of src/main.rs."),
    ];
    let agent = AgentLoop::new(&workspace.registry).with_mode(Mode::Native);
    let (transcript, events, requests) = run(agent, script, |c| c.with_api_key("sk-test-key"));

    assert!(matches!(transcript.stop, StopReason::NoCall { .. }));
    assert_eq!(
        events,
        [
            "reply 1",
            "call 1 grep",
            "call 1 sed_print",
            "reply 2",
            "correction 2",
            "reply 3",
            "call 3 find",
            "reply 4",
            "stop",
        ]
    );
    for request in &requests {
        assert_eq!(request.header("authorization"), Some("Bearer sk-test-key"));
        assert_eq!(request.body["tool_choice"], "auto");
        let names: Vec<&Value> = request.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| &t["function"]["name"])
            .collect();
        assert_eq!(names, [&json!("grep"), &json!("find"), &json!("sed_print")]);
    }
    assert!(
        requests[0].body["tools"][0]["function"]["parameters"]
            .get("$schema")
            .is_none()
    );
    assert_eq!(
        roles(&requests[1]),
        ["system", "user", "assistant", "tool", "tool"]
    );
    let second = &requests[1].body["messages"];
    assert_eq!(second[2]["content"], Value::Null);
    assert_eq!(
        second[2]["tool_calls"][1]["function"]["arguments"],
        "{'path': 'notes.txt', range: '2',}"
    );
    assert_eq!(second[3]["tool_call_id"], "call_a");
    assert_eq!(second[4]["tool_call_id"], "call_b");
    // a call sent without an id is given one, and answered under it
    let last = &requests[3].body["messages"];
    assert_eq!(last[7]["tool_calls"][0]["id"], "call_3_0");
    assert_eq!(last[8]["tool_call_id"], "call_3_0");
    insta::assert_snapshot!(workspace.render(&transcript));
}

/// A failing endpoint ends the run with the error; the key never shows.
#[test]
fn endpoint_failures_end_the_run() {
    let workspace = Workspace::new();
    let agent = || AgentLoop::new(&workspace.registry);

    let script = vec![Reply::raw(
        500,
        "{\"error\": {\"message\": \"model not loaded\"}}",
    )];
    let (transcript, _, _) = run(agent(), script, |c| c.with_api_key("sk-secret"));
    match &transcript.stop {
        StopReason::ModelFailed(ChatError::Status { status, body, .. }) => {
            assert_eq!(*status, 500);
            assert!(body.contains("model not loaded"));
        }
        other => panic!("{other:?}"),
    }
    assert!(!format!("{:?}", transcript.stop).contains("sk-secret"));

    let script = vec![Reply::raw(200, "<html>not json</html>")];
    let (transcript, _, _) = run(agent(), script, |c| c);
    assert!(matches!(
        transcript.stop,
        StopReason::ModelFailed(ChatError::BadResponse { .. })
    ));

    // a port with nothing listening
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut client = OpenAiClient::new(OpenAiConfig::new(
        format!("http://127.0.0.1:{port}/v1"),
        "m",
    ));
    let transcript = agent().run(&mut client, "task", |_| {}).unwrap();
    assert!(matches!(
        transcript.stop,
        StopReason::ModelFailed(ChatError::Transport { .. })
    ));
    assert!(transcript.rounds.is_empty());
}

/// A redirect of the endpoint is reported, not followed: the request is
/// not sent again elsewhere (ureq would send a 302's as a GET without its
/// body, and read that answer as the model's), nor the key with it.
#[test]
fn a_redirect_is_reported_not_followed() {
    let workspace = Workspace::new();
    for status in [301, 302, 303, 307, 308] {
        let elsewhere = Server::start(vec![Reply::text("done")]);
        let to = format!("{}/chat/completions", elsewhere.url());
        let (transcript, _, _) = run(
            AgentLoop::new(&workspace.registry),
            vec![Reply::redirect(status, &to)],
            |c| c.with_api_key("sk-secret"),
        );
        match &transcript.stop {
            StopReason::ModelFailed(ChatError::Status {
                status: answered,
                body,
                ..
            }) => {
                assert_eq!(*answered, status);
                assert!(body.contains(&to), "{body}");
            }
            other => panic!("{status}: {other:?}"),
        }
        assert!(elsewhere.finish().is_empty(), "{status}: followed");
    }
}

/// The calls that ran in a transcript, as `name arguments` lines, in order.
fn called(transcript: &Transcript) -> Vec<String> {
    transcript
        .rounds
        .iter()
        .flat_map(|r| &r.actions)
        .filter_map(|a| match a {
            Action::Called { call, .. } => Some(format!(
                "{} {}",
                call.name(),
                Value::Object(call.arguments().clone())
            )),
            _ => None,
        })
        .collect()
}

/// Prompt mode reads every shape and runs every call of a reply, in order:
/// a pythonic list of two read-only calls (they may overlap), an XML call,
/// then calls followed by the finish call (the calls run, then the run
/// ends). The results of a reply go back in one message, in the order of
/// the calls.
#[test]
fn every_call_of_a_reply_runs_in_order_whatever_the_shape() {
    let workspace = Workspace::new();
    let script = vec![
        Reply::text(
            "[grep(pattern=\"TODO\", path=\"src\"), grep(pattern=\"first\", path=\"notes.txt\")]",
        ),
        Reply::text(
            "<think>The second line.</think>\n<tool_call>\n<function=sed_print>\n\
             <parameter=path>\nnotes.txt\n</parameter>\n<parameter=range>\n2\n</parameter>\n\
             </function>\n</tool_call>",
        ),
        Reply::text(
            "[{\"name\": \"grep\", \"arguments\": {\"pattern\": \"last\", \"path\": \"notes.txt\"}}, \
             {\"name\": \"done\", \"arguments\": {\"answer\": \"line 2\"}}]",
        ),
    ];
    let (transcript, events, requests) = run(AgentLoop::new(&workspace.registry), script, |c| c);
    assert_eq!(
        transcript.stop,
        StopReason::Finished {
            answer: "line 2".to_owned()
        }
    );
    assert_eq!(
        called(&transcript),
        [
            r#"grep {"pattern":"TODO","path":"src"}"#,
            r#"grep {"pattern":"first","path":"notes.txt"}"#,
            r#"sed_print {"path":"notes.txt","range":"2"}"#,
            r#"grep {"pattern":"last","path":"notes.txt"}"#,
        ]
    );
    assert_eq!(
        events,
        [
            "reply 1",
            "call 1 grep",
            "call 1 grep",
            "reply 2",
            "call 2 sed_print",
            "reply 3",
            "call 3 grep",
            "stop"
        ]
    );
    // both results of the first reply in one message, in the order of the calls
    let fed = requests[1].body["messages"][3]["content"].as_str().unwrap();
    let todo = fed.find("src/main.rs:2:").unwrap();
    let first = fed.find("1:first line").unwrap();
    assert!(todo < first, "{fed}");
    assert_eq!(fed.matches("Result of grep:").count(), 2, "{fed}");
    insta::assert_snapshot!(workspace.render(&transcript));
}

/// A reply in which one call cannot be read runs nothing and asks again;
/// so does a call to a tool that does not exist (the correction lists the
/// tools). A call cut off at the end of the reply is not completed.
#[test]
fn a_reply_with_one_unreadable_call_runs_nothing() {
    let workspace = Workspace::new();
    let script = vec![
        Reply::text(
            "[{\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\"}}, {\"name\": 42}]",
        ),
        Reply::text("[grep(pattern=\"TODO\"), cat(path=\"notes.txt\")]"),
        Reply::text("{\"name\": \"grep\", \"arguments\": {}}\n{\"name\": \"sed_pr"),
        Reply::text("[grep(pattern=\"TODO\", path=\"notes.txt\")]"),
        Reply::text("Line 2 of notes.txt."),
    ];
    let agent = AgentLoop::new(&workspace.registry).with_max_corrections(3);
    let (transcript, events, _) = run(agent, script, |c| c);
    assert_eq!(
        called(&transcript),
        [r#"grep {"pattern":"TODO","path":"notes.txt"}"#]
    );
    assert_eq!(
        events,
        [
            "reply 1",
            "correction 1",
            "reply 2",
            "correction 2",
            "reply 3",
            "correction 3",
            "reply 4",
            "call 4 grep",
            "reply 5",
            "stop"
        ]
    );
    insta::assert_snapshot!(workspace.render(&transcript));
}

/// Native mode: several `tool_calls` run in order and are answered in
/// order; a reply in which one of them cannot be read runs none, and every
/// call of it is answered.
#[test]
fn native_mode_runs_all_the_calls_or_none() {
    let workspace = Workspace::new();
    let script = vec![
        Reply::tool_calls(&[
            (
                "a",
                "grep",
                "{\"pattern\": \"TODO\", \"path\": \"notes.txt\"}",
            ),
            ("b", "grep", "[1, 2]"),
            (
                "c",
                "sed_print",
                "{\"path\": \"notes.txt\", \"range\": \"1\"}",
            ),
        ]),
        Reply::tool_calls(&[
            (
                "d",
                "grep",
                "{\"pattern\": \"TODO\", \"path\": \"notes.txt\"}",
            ),
            (
                "e",
                "sed_print",
                "{\"path\": \"notes.txt\", \"range\": \"1\"}",
            ),
            (
                "f",
                "grep",
                "{\"pattern\": \"last\", \"path\": \"notes.txt\"}",
            ),
        ]),
        Reply::text("Done."),
    ];
    let agent = AgentLoop::new(&workspace.registry).with_mode(Mode::Native);
    let (_, events, requests) = run(agent, script, |c| c);
    assert_eq!(
        events,
        [
            "reply 1",
            "correction 1",
            "reply 2",
            "call 2 grep",
            "call 2 sed_print",
            "call 2 grep",
            "reply 3",
            "stop"
        ]
    );
    let answered: Vec<(&str, &str)> = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    let ids: Vec<&str> = answered.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    assert!(
        answered[0].1.starts_with("not run: another call"),
        "{answered:?}"
    );
    assert!(
        answered[2].1.starts_with("not run: another call"),
        "{answered:?}"
    );
    assert!(answered[4].1.contains("first line"), "{answered:?}");
    assert!(answered[5].1.contains("3:last line"), "{answered:?}");
}
