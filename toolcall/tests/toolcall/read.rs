//! Every shape and family, with cases written from the models' documented
//! formats and chat templates (not from the measured sample); the replies
//! that hold no call; the never-invent rules; typing by schema.

use jig_toolcall::{CallError, Reading, ToolSpec, read_calls, read_calls_with};
use serde_json::{Value, json};

/// The calls read, as `{name, arguments}` values; "no call" is `[]`.
fn calls(text: &str) -> Value {
    match read_calls(text) {
        Reading::Calls(calls) => Value::Array(calls.iter().map(|c| c.to_json()).collect()),
        Reading::NoCall => json!([]),
        other => panic!("{text:?}: {other:?}"),
    }
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

#[test]
fn json_in_markers() {
    let cases = [
        // Hermes / Qwen 2.5: one <tool_call> per call
        (
            "I'll look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>",
            json!([
                call("read_file", json!({"path": "a.rs"})),
                call("ls", json!({}))
            ]),
        ),
        // Llama 3.1 JSON with <|python_tag|>, "parameters", `;` between calls
        (
            "<|python_tag|>{\"name\": \"grep\", \"parameters\": {\"pattern\": \"x\"}}; {\"name\": \"ls\", \"parameters\": {\"path\": \"src\"}}",
            json!([
                call("grep", json!({"pattern": "x"})),
                call("ls", json!({"path": "src"}))
            ]),
        ),
        // Mistral: [TOOL_CALLS] and a list
        (
            "[TOOL_CALLS] [{\"name\": \"ls\", \"arguments\": {\"path\": \".\"}}, {\"name\": \"pwd\", \"arguments\": {}}]",
            json!([call("ls", json!({"path": "."})), call("pwd", json!({}))]),
        ),
        // Granite: <|tool_call|> and a list
        (
            "<|tool_call|>[{\"name\": \"ls\", \"arguments\": {}}]",
            json!([call("ls", json!({}))]),
        ),
        // Phi-4-mini: functools[...]
        (
            "functools[{\"name\": \"ls\", \"arguments\": {\"path\": \"docs\"}}]",
            json!([call("ls", json!({"path": "docs"}))]),
        ),
        // Command R: tool_name / parameters in an action block
        (
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"ls\", \"parameters\": {\"path\": \"x\"}}]<|END_ACTION|>",
            json!([call("ls", json!({"path": "x"}))]),
        ),
        // a code fence in chatter, repaired
        (
            "Sure:\n```json\n{'name': 'ls', 'arguments': {'path': 'src',}}\n```",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // an API response written as text: every call of the wrapped list
        (
            "{\"tool_calls\": [{\"type\": \"function\", \"function\": {\"name\": \"ls\", \"arguments\": \"{\\\"path\\\": \\\"a\\\"}\"}}, {\"type\": \"function\", \"function\": {\"name\": \"pwd\", \"arguments\": \"{}\"}}]}",
            json!([call("ls", json!({"path": "a"})), call("pwd", json!({}))]),
        ),
        // OpenAI's multi_tool_use: recipient names in its namespace
        (
            "{\"tool_uses\": [{\"recipient_name\": \"functions.ls\", \"parameters\": {\"path\": \"a\"}}, {\"recipient_name\": \"functions.pwd\", \"parameters\": {}}]}",
            json!([call("ls", json!({"path": "a"})), call("pwd", json!({}))]),
        ),
        // Apertus: {"name": {arguments}} inside its markers
        (
            "<|tools_prefix|>[{\"ls\": {\"path\": \"src\"}}]<|tools_suffix|>",
            json!([call("ls", json!({"path": "src"}))]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(calls(text), expected, "{text}");
    }
}

#[test]
fn name_outside_json_arguments() {
    let cases = [
        // DeepSeek V3: type, separator, name, fenced JSON
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{\"path\": \"src\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // DeepSeek V3.1: name, separator, JSON; two calls
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{\"path\": \"a\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>pwd<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            json!([call("ls", json!({"path": "a"})), call("pwd", json!({}))]),
        ),
        // Kimi K2: functions.name:index
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{\"path\": \"b\"}<|tool_call_end|><|tool_calls_section_end|>",
            json!([call("ls", json!({"path": "b"}))]),
        ),
        // Mistral v11 and later: [TOOL_CALLS]name[ARGS]{...}
        (
            "[TOOL_CALLS]ls[ARGS]{\"path\": \"c\"}[TOOL_CALLS]pwd[ARGS]{}",
            json!([call("ls", json!({"path": "c"})), call("pwd", json!({}))]),
        ),
        // ReAct, as prompted models write it: the name on the Action line
        (
            "Thought: I need the files.\nAction: ls\nAction Input: {\"path\": \"src\"}",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // ReAct: two actions in a row; a quoted name on the next line, fenced JSON
        (
            "Action: ls\nAction Input: {\"path\": \"a\"}\nAction:\n`pwd`\nAction Input:\n```json\n{}\n```",
            json!([call("ls", json!({"path": "a"})), call("pwd", json!({}))]),
        ),
        // ReAct: what follows an imagined Observation is not read
        (
            "Action: ls\nAction Input: {\"path\": \"a\"}\nObservation: x.txt\nThought: remove it\nAction: rm\nAction Input: {\"path\": \"a/x.txt\"}",
            json!([call("ls", json!({"path": "a"}))]),
        ),
        // a tool named in the integrator's language
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>列出文件<｜tool▁sep｜>{\"路径\": \"src\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            json!([call("列出文件", json!({"路径": "src"}))]),
        ),
        // Kimi K2 without end tokens: each call ends where the next begins
        (
            "<|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{\"path\": \"a\"}<|tool_call_begin|>functions.pwd:1<|tool_call_argument_begin|>{}",
            json!([call("ls", json!({"path": "a"})), call("pwd", json!({}))]),
        ),
        // Functionary v3.2: the generation prompt ends with `>>>`, so the
        // reply starts with its recipient; `all` is text for the user
        (
            "read_file\n{\"path\": \"notes.md\"}",
            json!([call("read_file", json!({"path": "notes.md"}))]),
        ),
        (
            "all\nI will look at both.>>>ls\n{\"path\": \"docs\"}\n>>>read_file\n{\"path\": \"docs/a.md\"}",
            json!([
                call("ls", json!({"path": "docs"})),
                call("read_file", json!({"path": "docs/a.md"}))
            ]),
        ),
        // GLM-4 with its special tokens kept: each turn opened by
        // `<|assistant|>`, the recipient right after it; text turns first
        (
            "<|assistant|>ls\n{\"path\": \"docs\"}<|assistant|>read_file\n{\"path\": \"docs/a.md\"}",
            json!([
                call("ls", json!({"path": "docs"})),
                call("read_file", json!({"path": "docs/a.md"}))
            ]),
        ),
        (
            "I will look.<|assistant|>ls\n{\"path\": \"docs\"}",
            json!([call("ls", json!({"path": "docs"}))]),
        ),
        // ChatGLM3: the arguments as `tool_call(...)` in a Python fence,
        // with and without the token
        (
            "<|assistant|>ls\n ```python\ntool_call(path=\"docs\", depth=2)\n```",
            json!([call("ls", json!({"path": "docs", "depth": 2}))]),
        ),
        (
            "ls\n```python\ntool_call(path='docs')\n```",
            json!([call("ls", json!({"path": "docs"}))]),
        ),
        // a GLM text turn leaves the reply to the other readers
        (
            "<|assistant|>\nSure: {\"name\": \"ls\", \"arguments\": {\"path\": \"src\"}}",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // a word on its own line before a JSON call is chatter, not a
        // Functionary recipient
        (
            "Sure\n{\"name\": \"ls\", \"arguments\": {\"path\": \"src\"}}",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // Functionary: `python` takes its code as it stands
        (
            "python\nimport os\nprint(os.listdir('.'))",
            json!([call(
                "python",
                json!({"code": "import os\nprint(os.listdir('.'))"})
            )]),
        ),
        // gpt-oss harmony: the recipient in the header
        (
            "<|channel|>analysis<|message|>Need to list.<|end|><|start|>assistant<|channel|>commentary to=functions.ls <|constrain|>json<|message|>{\"path\": \"d\"}<|call|>",
            json!([call("ls", json!({"path": "d"}))]),
        ),
        // Qwen-Agent (Qwen2 and 2.5 prompted by it): each call up to the
        // next; nothing after the answer (✿RETURN✿)
        (
            "I will look first.\n✿FUNCTION✿: ls\n✿ARGS✿: {\"path\": \"d\"}\n✿FUNCTION✿: cat\n✿ARGS✿: {\"path\": \"e\"}\n✿RETURN✿: then ✿FUNCTION✿: rm\n✿ARGS✿: {}",
            json!([
                call("ls", json!({"path": "d"})),
                call("cat", json!({"path": "e"}))
            ]),
        ),
        // harmony decoded without its special tokens (as servers that skip
        // them print it): the name, the constraint, the object; each call
        // up to the next
        (
            "analysisNeed to list.assistantcommentary to=functions.ls json{\"path\": \"d\"}assistantcommentary to=functions.cat json{\"path\": \"e\"}",
            json!([
                call("ls", json!({"path": "d"})),
                call("cat", json!({"path": "e"}))
            ]),
        ),
        // each call's own message: the second call's is not the first's
        (
            "<|start|>assistant<|channel|>commentary to=functions.ls <|constrain|>json<|message|>{\"path\": \"d\"}<|call|><|start|>assistant<|channel|>commentary to=functions.cat <|constrain|>json<|message|>{\"path\": \"e\"}<|call|>",
            json!([
                call("ls", json!({"path": "d"})),
                call("cat", json!({"path": "e"}))
            ]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(calls(text), expected, "{text}");
    }
}

#[test]
fn xml_parameters() {
    let cases = [
        // Qwen3-Coder: values are text, layout line breaks dropped
        (
            "<tool_call>\n<function=write>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=count>\n007\n</parameter>\n</function>\n</tool_call>",
            json!([call("write", json!({"path": "notes.txt", "count": "007"}))]),
        ),
        // Qwen3-Coder: a value left unclosed ends where the next opens;
        // CDATA holds an opening tag as text
        (
            "<tool_call>\n<function=write>\n<parameter=path>\nnotes.txt\n<parameter=mode>\nappend\n</parameter>\n</function>\n</tool_call>",
            json!([call(
                "write",
                json!({"path": "notes.txt", "mode": "append"})
            )]),
        ),
        (
            "<tool_call>\n<function=write>\n<parameter=text>\n<![CDATA[see <parameter=x>]]>\n</parameter>\n<parameter=mode>a</parameter>\n</function>\n</tool_call>",
            json!([call(
                "write",
                json!({"text": "see <parameter=x>", "mode": "a"})
            )]),
        ),
        // Seed-OSS: a value written right after its tag keeps its last
        // line break (code ends with one)
        (
            "<seed:tool_call>\n<function=write>\n<parameter=path>a.py</parameter>\n<parameter=text>print(1)\n</parameter>\n</function>\n</seed:tool_call>",
            json!([call("write", json!({"path": "a.py", "text": "print(1)\n"}))]),
        ),
        // DSML: a lone `arguments` parameter holding an object is the
        // arguments themselves
        (
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"ls\">\n<｜DSML｜parameter name=\"arguments\" string=\"false\">{\"path\": \"src\"}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // MiniMax M2: invoke / parameter name attributes
        (
            "<minimax:tool_call>\n<invoke name=\"ls\">\n<parameter name=\"path\">src</parameter>\n</invoke>\n</minimax:tool_call>",
            json!([call("ls", json!({"path": "src"}))]),
        ),
        // Anthropic-style, as models trained on such replies write it:
        // invoke elements inside <function_calls> (no pythonic call)
        (
            "<function_calls>\n<invoke name=\"ls\">\n<parameter name=\"path\">src</parameter>\n</invoke>\n<invoke name=\"pwd\">\n</invoke>\n</function_calls>",
            json!([call("ls", json!({"path": "src"})), call("pwd", json!({}))]),
        ),
        // DeepSeek V3.2 DSML: string="false" marks JSON
        (
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"head\">\n<｜DSML｜parameter name=\"lines\" string=\"false\">5</｜DSML｜parameter>\n<｜DSML｜parameter name=\"path\" string=\"true\">a.txt</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            json!([call("head", json!({"lines": 5, "path": "a.txt"}))]),
        ),
        // GLM 4.5: arg_key / arg_value; a call with no argument
        (
            "<tool_call>ls\n<arg_key>path</arg_key>\n<arg_value>src</arg_value>\n</tool_call><tool_call>pwd</tool_call>",
            json!([call("ls", json!({"path": "src"})), call("pwd", json!({}))]),
        ),
        // MiniCPM: <function name=...><param name=...>, CDATA
        (
            "<function name=\"echo\"><param name=\"text\"><![CDATA[a </param> b]]></param></function>",
            json!([call("echo", json!({"text": "a </param> b"}))]),
        ),
        // Step 3: a namespace prefix
        (
            "<steptml:invoke name=\"ls\"><steptml:parameter name=\"path\">x</steptml:parameter></steptml:invoke>",
            json!([call("ls", json!({"path": "x"}))]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(calls(text), expected, "{text}");
    }
}

#[test]
fn pythonic_calls() {
    let cases = [
        // Llama 3.2 / 4: a bracketed list of keyword calls
        (
            "[get_weather(city='San Francisco', days=3), get_time()]",
            json!([
                call("get_weather", json!({"city": "San Francisco", "days": 3})),
                call("get_time", json!({}))
            ]),
        ),
        // LFM2: in <|tool_call_start|> markers, Python literals
        (
            "<|tool_call_start|>[ls(path=\"src\", all=True, limit=None, exts=('rs', 'md'))]<|tool_call_end|>",
            json!([call(
                "ls",
                json!({"path": "src", "all": true, "limit": null, "exts": ["rs", "md"]})
            )]),
        ),
        // the arguments as one object, as small models write them; a
        // tool through OpenAI's or Gemini's namespace
        (
            "[ls({\"path\": \"a\"}), functions.cat({'path': 'b'})]",
            json!([
                call("ls", json!({"path": "a"})),
                call("cat", json!({"path": "b"}))
            ]),
        ),
        (
            "ls({\"path\": \"a\", \"all\": true})",
            json!([call("ls", json!({"path": "a", "all": true}))]),
        ),
        (
            "default_api.ls(path='a')",
            json!([call("ls", json!({"path": "a"}))]),
        ),
        // OLMo 3: <function_calls>, one call a line
        (
            "<function_calls>ls(path='a')\nls(path='b')</function_calls>",
            json!([
                call("ls", json!({"path": "a"})),
                call("ls", json!({"path": "b"}))
            ]),
        ),
        // the whole reply is one call; escapes as in Python
        (
            "grep(pattern='it\\'s', path=\"src\")",
            json!([call("grep", json!({"pattern": "it's", "path": "src"}))]),
        ),
        // Gemma 3: the calls in a tool_code fence
        (
            "```tool_code\nget_weather(city=\"Paris\")\n```",
            json!([call("get_weather", json!({"city": "Paris"}))]),
        ),
        // ... wherever the fence is in the reply, in Gemma's turn markers
        (
            "<start_of_turn>model\nI'll check the weather.\n```tool_code\nget_weather(city=\"Paris\")\n```\nLet me know.<end_of_turn>",
            json!([call("get_weather", json!({"city": "Paris"}))]),
        ),
        // ... written as Gemini's code (printed, through `default_api`),
        // one call a line
        (
            "```tool_code\nprint(default_api.get_weather(city=\"Paris\"))\nprint(default_api.get_time())\n```",
            json!([
                call("get_weather", json!({"city": "Paris"})),
                call("get_time", json!({}))
            ]),
        ),
        // ... a list in the fence, or a fence the model stopped at
        (
            "```tool_code\n[ls(path='a'), ls(path='b')]\n```",
            json!([
                call("ls", json!({"path": "a"})),
                call("ls", json!({"path": "b"}))
            ]),
        ),
        (
            "```tool_code\nls(path='a')",
            json!([call("ls", json!({"path": "a"}))]),
        ),
        // argument data is never a name
        (
            "[order(items=[{'name': 'Lasagna noodles', 'amount': 2}])]",
            json!([call(
                "order",
                json!({"items": [{"name": "Lasagna noodles", "amount": 2}]})
            )]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(calls(text), expected, "{text}");
    }
}

#[test]
fn gemma_literal_syntax() {
    let cases = [
        // FunctionGemma
        (
            "<start_function_call>call:ls{path:<escape>src<escape>,all:true}<end_function_call>",
            json!([call("ls", json!({"path": "src", "all": true}))]),
        ),
        // Gemma 4: a bare key of several words
        (
            "<|tool_call>call:tag{labels:{Needs Review:true, Done:false}}<tool_call|>",
            json!([call(
                "tag",
                json!({"labels": {"Needs Review": true, "Done": false}})
            )]),
        ),
        // Gemma 4: <|"|> strings, nested objects, lists, two calls
        (
            "<|tool_call>call:edit{changes:[{line:3,text:<|\"|>say \"hi\"<|\"|>}]}<tool_call|><|tool_call>call:ls{}<tool_call|>",
            json!([
                call(
                    "edit",
                    json!({"changes": [{"line": 3, "text": "say \"hi\""}]})
                ),
                call("ls", json!({}))
            ]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(calls(text), expected, "{text}");
    }
}

/// Replies that hold no call: code in prose, examples, links, reasoning.
/// Each reads as no call (or, for a JSON object that names no tool, as
/// "cannot be read"), never as a call.
#[test]
fn calls_made_on_an_imagined_tool_result_are_not_read() {
    let cases = [
        // Hermes / Qwen: a <tool_response> the model wrote itself
        (
            "<tool_call>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\"}}\n</tool_call>\n<tool_response>\nsrc/a.rs:1: TODO\n</tool_response>\n<tool_call>\n{\"name\": \"rm\", \"arguments\": {\"path\": \"src/a.rs\"}}\n</tool_call>",
            json!([call("grep", json!({"pattern": "TODO"}))]),
        ),
        // Mistral: [TOOL_RESULTS] between lists of calls
        (
            "[TOOL_CALLS][{\"name\": \"ls\", \"arguments\": {}}][TOOL_RESULTS]{\"content\": \"a.txt\"}[/TOOL_RESULTS][TOOL_CALLS][{\"name\": \"rm\", \"arguments\": {\"path\": \"a.txt\"}}]",
            json!([call("ls", json!({}))]),
        ),
        // Mistral v11: [TOOL_RESULTS]
        (
            "[TOOL_CALLS]ls[ARGS]{}[TOOL_RESULTS]{\"content\": \"a.txt\"}[/TOOL_RESULTS][TOOL_CALLS]rm[ARGS]{\"path\": \"a.txt\"}",
            json!([call("ls", json!({}))]),
        ),
        // Llama 3.1: an ipython turn
        (
            "<|python_tag|>{\"name\": \"ls\", \"parameters\": {}}<|eom_id|><|start_header_id|>ipython<|end_header_id|>\n\n{\"output\": \"a.txt\"}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n<|python_tag|>{\"name\": \"rm\", \"parameters\": {\"path\": \"a.txt\"}}",
            json!([call("ls", json!({}))]),
        ),
        // GLM: an observation turn
        (
            "<tool_call>ls\n<arg_key>path</arg_key>\n<arg_value>.</arg_value>\n</tool_call><|observation|>a.txt<tool_call>rm\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n</tool_call>",
            json!([call("ls", json!({"path": "."}))]),
        ),
        // a value that quotes a result marker is no result, in any shape
        (
            "<tool_call>{\"name\": \"write\", \"arguments\": {\"text\": \"a <tool_response> b\"}}</tool_call>",
            json!([call("write", json!({"text": "a <tool_response> b"}))]),
        ),
        (
            "<function=write><parameter=text>see [TOOL_RESULTS] here</parameter></function>",
            json!([call("write", json!({"text": "see [TOOL_RESULTS] here"}))]),
        ),
        (
            "[write(text=\"a <tool_response> b\")]",
            json!([call("write", json!({"text": "a <tool_response> b"}))]),
        ),
        (
            "Action: write\nAction Input: {\"text\": \"Observation: none\"}",
            json!([call("write", json!({"text": "Observation: none"}))]),
        ),
        // Gemma: a tool_output fence the model wrote itself
        (
            "```tool_code\nls(path='.')\n```\n```tool_output\na.txt\n```\n```tool_code\nrm(path='a.txt')\n```",
            json!([call("ls", json!({"path": "."}))]),
        ),
        // Qwen-Agent: a ✿RESULT✿ the model wrote itself
        (
            "✿FUNCTION✿: ls\n✿ARGS✿: {\"path\": \".\"}\n✿RESULT✿: a.txt\n✿FUNCTION✿: rm\n✿ARGS✿: {\"path\": \"a.txt\"}",
            json!([call("ls", json!({"path": "."}))]),
        ),
        // a result before every call (quoted from earlier): read whole
        (
            "<tool_response>a.txt</tool_response>\nSo: <tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>",
            json!([call("ls", json!({}))]),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(calls(text), expected, "{text}");
    }
    // where what follows an imagined result cannot be read, nothing runs
    match read_calls(
        "<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call><tool_response>a.txt</tool_response><tool_call>remove the file</tool_call>",
    ) {
        Reading::Unreadable { .. } => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn prose_is_not_a_call() {
    let replies = [
        "To count them, use print(len(items)) in the loop.",
        "Call `sorted(values, reverse=True)` to sort descending.",
        "See [the manual](https://example.org/manual) and [FAQ](faq.md).",
        "Use this format: [link text](url).",
        "In Python, `max(a, b)` returns the larger value; `min(a, b)` the smaller.",
        "The list is [1, 2, 3] and the tuple (4, 5).",
        "I ran ls(1) yesterday; the man page is ls(1).",
        "<think>I could call <tool_call>{\"name\": \"rm\", \"arguments\": {}}</tool_call></think>No tool is needed.",
        "<think>maybe [delete(path='x')]",
        "Thinking about [rm(path='/')]...</think>The answer is 4.",
        "Done. The file now reads:\nfn main() { println!(\"hi\"); }",
        "A Markdown table: | a | b |\n|---|---|\n| 1 | 2 |",
        "Results: ok, 3 passed; 0 failed (in 0.2s).",
        "<|START_THINKING|>call ls<|END_THINKING|><|START_RESPONSE|>All done.<|END_RESPONSE|>",
        "<|channel>thought\n[ls(path='x')]<channel|>Nothing to do.",
        "Action: none needed. Ratio 3:1; Observation: the build is green.",
        "```tool_code\nprint(len(items)) and more prose\n```",
        "Wrap your calls in ```tool_code fences, as the prompt says.",
        "Write ```tool_code\nls(path='x')\n``` to list a folder.",
        "```tool_code\nx = ls(path='src')\n```",
        // Functionary's text for the user, and Python prompts, which are
        // `>>>` and a space
        "all\nThe folder holds two files.",
        "In the REPL:\n>>> items\n['a', 'b']\n>>> len(items)\n2",
        "json\n{\"path\": \"docs\"}",
        // a GLM-4 text turn; a ChatGLM3 fence with no recipient before it
        "<|assistant|>\nThe folder holds two files.",
        "```python\ntool_call(path='docs')\n```",
    ];
    for reply in replies {
        match read_calls(reply) {
            Reading::NoCall | Reading::Unreadable { .. } => {}
            Reading::Calls(calls) => panic!("{reply:?} read as {calls:?}"),
            other => panic!("{reply:?}: {other:?}"),
        }
    }
}

#[test]
fn never_invented() {
    // keys beside the name are arguments
    assert_eq!(
        calls(r#"{"tool": "bash", "command": "ls"}"#),
        json!([call("bash", json!({"command": "ls"}))])
    );
    // a call in a reasoning block is not taken instead of the real one
    assert_eq!(
        calls(
            "<think>[rm(path='/')]</think><tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>"
        ),
        json!([call("ls", json!({}))])
    );
    // the reply starts inside reasoning
    assert_eq!(
        calls("hmm, rm(path='/')?</think>[ls(path='.')]"),
        json!([call("ls", json!({"path": "."}))])
    );
    // a name cut off by the end of the text is incomplete
    for text in [
        "{\"name\": \"say_hello",
        "<tool_call>{\"name\": \"ls",
        "<|tool_call>call:get_wea",
        "[TOOL_CALLS]get_wea",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_wea",
    ] {
        match read_calls(text) {
            Reading::Unreadable {
                reason: CallError::IncompleteName { .. },
            } => {}
            other => panic!("{text:?}: {other:?}"),
        }
    }
    // arguments whose repair keeps nothing of what was written, or that
    // the text ends in, are not "no arguments": after a name outside the
    // JSON and in a JSON call that needs repair
    for text in [
        "[TOOL_CALLS]rm[ARGS]{the whole folder please}",
        "[TOOL_CALLS]rm[ARGS]{",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>rm<｜tool▁sep｜>{all of it}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "{'name': 'rm', 'parameters': {every file here}",
        "{\"name\": \"rm\", \"arguments\": {",
    ] {
        match read_calls(text) {
            Reading::Unreadable {
                reason: CallError::BadArguments { .. },
            } => {}
            other => panic!("{text:?}: {other:?}"),
        }
    }
    for text in [
        "[TOOL_CALLS]pwd[ARGS]{ }",
        "{'name': 'pwd', 'parameters': {}}",
    ] {
        assert_eq!(calls(text), json!([call("pwd", json!({}))]), "{text}");
    }
    // a marker inside an argument's text is data, not a second call
    assert_eq!(
        calls("[TOOL_CALLS]write[ARGS]{\"text\": \"[TOOL_CALLS]rm[ARGS]{}\"}[TOOL_CALLS]pwd{}"),
        json!([
            call("write", json!({"text": "[TOOL_CALLS]rm[ARGS]{}"})),
            call("pwd", json!({}))
        ])
    );
    // nor inside an XML parameter's value: reasoning tags, another
    // format's markers and JSON calls there are text
    assert_eq!(
        calls(
            "<tool_call>\n<function=write>\n<parameter=text>\n</think>{\"name\": \"rm\"} <think>to=functions.z\n</parameter>\n</function>\n</tool_call>"
        ),
        json!([call(
            "write",
            json!({"text": "</think>{\"name\": \"rm\"} <think>to=functions.z"})
        )])
    );
    assert_eq!(
        calls(
            "<tool_call>grep\n<arg_key>pattern</arg_key>\n<arg_value><think>[rm(path='/')]</arg_value>\n</tool_call>"
        ),
        json!([call("grep", json!({"pattern": "<think>[rm(path='/')]"}))])
    );
    // nor inside a pythonic call's string
    assert_eq!(
        calls("[write(text=\"<think>[TOOL_CALLS]rm{}\"), ls(path='</think>')]"),
        json!([
            call("write", json!({"text": "<think>[TOOL_CALLS]rm{}"})),
            call("ls", json!({"path": "</think>"}))
        ])
    );
    // an example call in prose beside calls in markers is neither taken
    // nor dropped unsaid: the reply is unreadable
    match read_calls(
        "For example {\"name\": \"rm\", \"arguments\": {\"path\": \"x\"}}. Now: <tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>",
    ) {
        Reading::Unreadable { .. } => {}
        other => panic!("an example call beside a marked one: {other:?}"),
    }
    // data that is no call beside calls in markers is only data
    assert_eq!(
        calls(
            "<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call> The config is {\"depth\": 2}."
        ),
        json!([call("ls", json!({}))])
    );
    // a JSON value in argument position in code is not a call
    assert_eq!(
        calls("Try print(json.dumps({'name': 'x'})) to see it."),
        json!([])
    );
}

/// With a tool list, a JSON object that names no tool right after a listed
/// tool's name is a call of it: in prose, and as Kimi K2 and DeepSeek V3.1
/// calls read without their special tokens. Every such object must be
/// one; without a tool list nothing changes.
#[test]
fn a_listed_tools_name_before_an_object_calls_it() {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
    let tools = [
        ToolSpec::new("ls", schema.clone()),
        ToolSpec::new("cat", schema),
    ];
    for (reply, expected) in [
        (
            "ls {\"path\": \"a\"}",
            json!([call("ls", json!({"path": "a"}))]),
        ),
        (
            "I will run cat {\"path\": \"b\"} now.",
            json!([call("cat", json!({"path": "b"}))]),
        ),
        (
            "functions.ls:0{\"path\": \"a\"}functions.cat:1 {\"path\": \"b\"}",
            json!([
                call("ls", json!({"path": "a"})),
                call("cat", json!({"path": "b"}))
            ]),
        ),
        (
            "ls{\"path\": \"a\"}",
            json!([call("ls", json!({"path": "a"}))]),
        ),
    ] {
        match read_calls_with(reply, &tools) {
            Reading::Calls(calls) => assert_eq!(
                Value::Array(calls.iter().map(|c| c.to_json()).collect()),
                expected,
                "{reply}"
            ),
            other => panic!("{reply}: {other:?}"),
        }
    }
    // an unlisted name, part of a longer word, an object after no name, or
    // one of two objects without one: as before, no call is read
    for reply in [
        "rm {\"path\": \"a\"}",
        "xls {\"path\": \"a\"}",
        "{\"path\": \"a\"}",
        "ls {\"path\": \"a\"} and {\"path\": \"b\"}",
    ] {
        assert!(
            matches!(read_calls_with(reply, &tools), Reading::Unreadable { .. }),
            "{reply}"
        );
    }
    assert!(matches!(
        read_calls("ls {\"path\": \"a\"}"),
        Reading::Unreadable { .. }
    ));
}

/// A call in an XML form no reader takes is unreadable, never "no call"
/// (which would take the call for the model's answer): the older Anthropic
/// form, and with a tool list an element named after a listed tool.
#[test]
fn an_xml_call_in_a_form_not_read_is_unreadable() {
    let tools = [ToolSpec::new(
        "ls",
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )];
    for (reply, with_tools_only) in [
        (
            "<function_calls>\n<invoke>\n<tool_name>ls</tool_name>\n<parameters>\n<path>src</path>\n</parameters>\n</invoke>\n</function_calls>",
            false,
        ),
        ("<ls>\n<path>src</path>\n</ls>", true),
    ] {
        match read_calls_with(reply, &tools) {
            Reading::Unreadable { reason } => {
                assert!(reason.to_string().contains("<invoke name="), "{reason}");
            }
            other => panic!("{reply}: {other:?}"),
        }
        let without = read_calls(reply);
        assert_eq!(
            matches!(without, Reading::NoCall),
            with_tools_only,
            "{reply}: {without:?}"
        );
    }
    // a tool named in prose, its element never closed, is no call
    assert!(matches!(
        read_calls_with("Use <ls> to list.", &tools),
        Reading::NoCall
    ));
}

#[test]
fn typing_by_schema_and_unknown_names() {
    let tools = [ToolSpec::new(
        "head",
        json!({"type": "object", "properties": {
            "lines": {"type": "integer"}, "path": {"type": "string"},
            "follow": {"type": "boolean"}, "ratio": {"type": "number"}
        }}),
    )];
    let text = "<tool_call>\n<function=head>\n<parameter=lines>\n42\n</parameter>\n<parameter=path>\n007\n</parameter>\n<parameter=follow>\ntrue\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n</function>\n</tool_call>";
    match read_calls_with(text, &tools) {
        Reading::Calls(calls) => assert_eq!(
            calls[0].to_json(),
            call(
                "head",
                json!({"lines": 42, "path": "007", "follow": true, "ratio": 0.5})
            )
        ),
        other => panic!("{other:?}"),
    }
    // without a schema, text stays text
    assert_eq!(
        calls(text),
        json!([call(
            "head",
            json!({"lines": "42", "path": "007", "follow": "true", "ratio": "0.5"})
        )])
    );
    // an unknown name is reported with the tools there are
    match read_calls_with("[tail(path='x')]", &tools) {
        Reading::Unreadable { reason } => insta::assert_snapshot!(reason.to_string()),
        other => panic!("{other:?}"),
    }
    // a pythonic call in prose is read when it names a given tool, its
    // arguments by keyword or as one object
    for reply in [
        "Let me look: head(path='a.txt', lines=3) first.",
        "Let me look: head({\"path\": \"a.txt\", \"lines\": 3}) first.",
    ] {
        match read_calls_with(reply, &tools) {
            Reading::Calls(calls) => assert_eq!(
                calls[0].to_json(),
                call("head", json!({"path": "a.txt", "lines": 3}))
            ),
            other => panic!("{reply}: {other:?}"),
        }
    }
}

/// A reply in which one call cannot be read runs nothing (SPEC §8, issue
/// 13: all or nothing): the reading is a typed failure, never the calls
/// that could be read. Regression: with a tool list, a broken second
/// pythonic call was dropped and the first one returned alone; a second
/// `<tool_call>` or list item that is not a call was dropped too.
#[test]
fn nothing_outside_xml_parameters_is_lost() {
    // a JSON object as the whole body of an invoke or a MiniCPM function
    // is the arguments, as after Functionary's <function=name>
    for text in [
        "<invoke name=\"cat\">{\"path\": \"a\"}</invoke>",
        "<function name=\"cat\">\n{\"path\": \"a\"}\n</function>",
        "<function=cat>{\"path\": \"a\"}</function>",
    ] {
        assert_eq!(
            calls(text),
            json!([call("cat", json!({"path": "a"}))]),
            "{text}"
        );
    }
    // layout around the parameters is no argument: line breaks, wrapper
    // tags, a call left unclosed before the reply's prose
    for (text, expected) in [
        (
            "<tool_call>\n<function=pwd>\n</tool_call>\nLet me see where I am.",
            json!([call("pwd", json!({}))]),
        ),
        (
            "<tool_call>\n<function=cat>\n<parameter=path>\na\n</parameter>\n</tool_call>\nNow I wait.",
            json!([call("cat", json!({"path": "a"}))]),
        ),
    ] {
        assert_eq!(calls(text), expected, "{text}");
    }
    // anything else written outside the parameters would be an argument
    // lost: the reply is unreadable, never a call without it
    for text in [
        "<invoke name=\"cat\"><parameter name=\"path\">a</parameter>{\"lines\": 5}</invoke>",
        "<invoke name=\"cat\"><parameter>a</parameter></invoke>",
        "<invoke name=\"cat\">\npath=a\n</invoke>",
        "<function=cat>\npath: a\n</function>",
        "<function=cat><parameter=path>a</parameter> lines=5 </function>",
        "<function=cat>\npath: a\n",
        "<function name=\"cat\"><param name=\"path\">a</param>lines=5</function>",
        "<tool_call>cat\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\nlines=5\n</tool_call>",
        "<tool_call>cat\n<arg_key>path</arg_key> lines=5 <arg_value>a</arg_value></tool_call>",
    ] {
        match read_calls(text) {
            Reading::Unreadable { reason } => assert!(
                reason.to_string().contains("outside its parameters"),
                "{text}: {reason}"
            ),
            other => panic!("{text}: read as {other:?}"),
        }
    }
}

#[test]
fn a_broken_call_beside_a_good_one_makes_the_reply_unreadable() {
    let tools = [
        ToolSpec::new(
            "ls",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        ),
        ToolSpec::new(
            "cat",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        ),
    ];
    // (shape, reply, also without a tool list)
    let cases = [
        // pythonic: a bracketed list, one call a line, calls of given tools in prose
        ("pythonic", "[ls(path=\"a\"), cat(path=)]", true),
        ("pythonic", "ls(path=\"a\")\ncat(path=", true),
        ("pythonic", "ls(path=\"a\"); cat(\"b\")", true),
        (
            "pythonic",
            "First ls(path=\"a\"), then cat(path=) on it.",
            false,
        ),
        (
            "pythonic",
            "<|tool_call_start|>[ls(path=\"a\"), cat(path=)]<|tool_call_end|>",
            true,
        ),
        (
            "pythonic",
            "```tool_code\nls(path=\"a\")\nprint(cat(\"b\"))\n```",
            true,
        ),
        // a pythonic call in the prose beside JSON calls in markers: an
        // example, or a call that lost its markers, never taken instead
        (
            "json",
            "<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>\nThen maybe [cat(path=\"a\")].",
            true,
        ),
        // JSON in markers: a second call with no name, or not JSON at all
        (
            "json",
            "<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>\n<tool_call>{\"arguments\": {\"path\": \"a\"}}</tool_call>",
            true,
        ),
        (
            "json",
            "<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>\n<tool_call>cat the file</tool_call>",
            true,
        ),
        (
            "json",
            "[TOOL_CALLS][{\"name\": \"ls\", \"arguments\": {}}, {\"arguments\": {\"path\": \"a\"}}]",
            true,
        ),
        (
            "json",
            "<|python_tag|>{\"name\": \"ls\", \"parameters\": {}}; {\"parameters\": {\"path\": \"a\"}}",
            true,
        ),
        // the shapes that already ran nothing: kept so
        (
            "named",
            "[TOOL_CALLS]ls[ARGS]{\"path\": \"a\"}[TOOL_CALLS]cat[ARGS]not json",
            true,
        ),
        (
            "named",
            "Action: ls\nAction Input: {\"path\": \"a\"}\nAction: cat\nAction Input: the file",
            true,
        ),
        (
            "json",
            "{\"tool_calls\": [{\"name\": \"ls\", \"arguments\": {}}, {\"arguments\": {\"path\": \"a\"}}]}",
            true,
        ),
        (
            "xml",
            "<function=ls><parameter=path>a</parameter></function>\n<function=cat><parameter=path",
            true,
        ),
        (
            "gemma",
            "<start_function_call>call:ls{path:<escape>a<escape>}<end_function_call><start_function_call>call:cat{path:}<end_function_call>",
            true,
        ),
    ];
    let mut wrong = Vec::new();
    for (shape, reply, without_tools) in cases {
        let mut readings = vec![("with tools", read_calls_with(reply, &tools))];
        if without_tools {
            readings.push(("without tools", read_calls(reply)));
        }
        for (how, reading) in readings {
            if !matches!(reading, Reading::Unreadable { .. }) {
                wrong.push(format!("{shape} {how}: {reply:?} read as {reading:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Calls written in a format whose arguments are JSON read back exactly,
/// whatever their text quotes: another format's markers, a reasoning tag,
/// a tool result, a call (data never becomes structure).
mod quoted_markers {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::calls;

    /// What a value is made of: plain text and every kind of marker.
    const PIECES: &[&str] = &[
        "a",
        " ",
        "\n",
        "\"",
        "'",
        "\\",
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
        "<tool_response>",
        "[TOOL_CALLS]",
        "[TOOL_RESULTS]",
        "[ARGS]",
        "<|python_tag|>",
        "<function=x>",
        "</function>",
        "<parameter=y>",
        "<function_calls>",
        "<invoke name=\"z\">",
        "to=functions.z",
        "<|call|>",
        "<|observation|>",
        "<|im_start|>tool",
        "Action: rm\nAction Input: {}",
        "Observation:",
        "\u{273f}FUNCTION\u{273f}: rm\n\u{273f}ARGS\u{273f}: {}",
        "\u{273f}RESULT\u{273f}",
        "{\"name\": \"rm\", \"arguments\": {}}",
        "[rm(path='/')]",
        "<start_function_call>call:rm{}<end_function_call>",
    ];

    fn value() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..6)
            .prop_map(|pieces| pieces.concat())
    }

    fn render(format: usize, calls: &[(String, Value)]) -> String {
        let object = |(name, arguments): &(String, Value)| {
            json!({"name": name, "arguments": arguments}).to_string()
        };
        match format {
            0 => calls
                .iter()
                .map(|call| format!("<tool_call>\n{}\n</tool_call>", object(call)))
                .collect::<Vec<_>>()
                .join("\n"),
            1 => calls
                .iter()
                .map(|(name, arguments)| format!("[TOOL_CALLS]{name}[ARGS]{arguments}"))
                .collect(),
            2 => format!(
                "[TOOL_CALLS]{}",
                Value::Array(
                    calls
                        .iter()
                        .map(|(n, a)| json!({"name": n, "arguments": a}))
                        .collect()
                )
            ),
            3 => calls
                .iter()
                .map(|(name, arguments)| {
                    format!("\u{273f}FUNCTION\u{273f}: {name}\n\u{273f}ARGS\u{273f}: {arguments}\n")
                })
                .collect(),
            4 => format!(
                "<|python_tag|>{}",
                json!({"name": calls[0].0, "parameters": calls[0].1})
            ),
            5 => object(&calls[0]),
            _ => format!(
                "Thought: go\nAction: {}\nAction Input: {}",
                calls[0].0, calls[0].1
            ),
        }
    }

    proptest! {
        #[test]
        fn calls_read_back_exactly(
            format in 0usize..7,
            written in proptest::collection::vec(
                (
                    proptest::sample::select(&["write", "grep", "ls"][..]),
                    value(),
                    value(),
                ),
                1..4,
            ),
        ) {
            let written: Vec<(String, Value)> = written
                .into_iter()
                .map(|(name, text, path)| (name.to_owned(), json!({"text": text, "path": path})))
                .collect();
            // the formats that hold one call a reply
            let written = if format >= 4 { written[..1].to_vec() } else { written };
            let text = render(format, &written);
            let expected: Vec<Value> = written
                .iter()
                .map(|(name, arguments)| json!({"name": name, "arguments": arguments}))
                .collect();
            prop_assert_eq!(calls(&text), Value::Array(expected), "{}", text);
        }
    }
}
