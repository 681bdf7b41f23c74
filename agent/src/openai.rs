//! A [`ChatModel`] for OpenAI-compatible chat completions endpoints
//! (`POST {base}/chat/completions`): llama.cpp's server, Ollama, vLLM and
//! hosted APIs.

use std::time::Duration;

use jig_lineage::SchemaFormat;
use serde_json::{Map, Value, json};

use crate::{ChatError, ChatModel, Message, NativeCall, Role, ToolInfo};

/// The default time allowed to connect to the endpoint.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time allowed for one request, answer included: local models
/// on a CPU can take minutes.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// The default maximum size of an answer.
const DEFAULT_MAX_RESPONSE_BYTES: u64 = 8 * 1024 * 1024;
/// How much of an error answer's body goes into [`ChatError::Status`].
const ERROR_BODY_CHARS: usize = 500;

/// An API key, sent as `Authorization: Bearer ...` and shown nowhere.
#[derive(Clone)]
struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<hidden>)")
    }
}

/// Where and how to reach an OpenAI-compatible endpoint.
///
/// The library reads no environment variable: the caller passes the key
/// (the `jig` binary reads it from the variable named by `--api-key-env`).
/// No proxy is used unless [`with_env_proxy`](Self::with_env_proxy) asks for
/// the `HTTP(S)_PROXY` variables to be read.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    endpoint: String,
    model: String,
    api_key: Option<ApiKey>,
    connect_timeout: Duration,
    timeout: Duration,
    max_response_bytes: u64,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    env_proxy: bool,
}

impl OpenAiConfig {
    /// An endpoint and a model name. `endpoint` is the API's base URL, such
    /// as `http://127.0.0.1:8080/v1`, or the full URL ending in
    /// `/chat/completions`.
    pub fn new(endpoint: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            model: model.into(),
            api_key: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            temperature: None,
            max_tokens: None,
            env_proxy: false,
        }
    }

    /// Sends `key` as a bearer token.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(ApiKey(key.into()));
        self
    }

    /// Sets the time allowed to connect [default: 10 s].
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the time allowed for one request, answer included [default:
    /// 300 s].
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the largest answer read, in bytes [default: 8 MiB].
    pub fn with_max_response_bytes(mut self, bytes: u64) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Sends a sampling temperature [default: the endpoint's].
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sends a maximum number of tokens per reply [default: the
    /// endpoint's].
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Uses the proxy named by the `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`
    /// and `NO_PROXY` environment variables.
    pub fn with_env_proxy(mut self) -> Self {
        self.env_proxy = true;
        self
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        let base = self.endpoint.trim().trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_owned()
        } else {
            format!("{base}/chat/completions")
        }
    }
}

/// A client of an OpenAI-compatible chat completions endpoint (blocking).
///
/// In prompt mode (no tools given) it sends only the messages; in native
/// mode it also sends the tools (`tools`, `tool_choice: "auto"`), reads the
/// reply's `tool_calls`, and sends results back as `tool` messages with
/// their `tool_call_id`.
#[derive(Debug)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    url: String,
    agent: ureq::Agent,
}

impl OpenAiClient {
    /// A client for `config`.
    pub fn new(config: OpenAiConfig) -> Self {
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(config.connect_timeout))
            .timeout_global(Some(config.timeout))
            // A redirect is answered, not followed: ureq would send the
            // request again elsewhere (a 302 as a GET without its body,
            // then read that answer as the model's).
            .max_redirects(0)
            .user_agent(concat!("jig-agent/", env!("CARGO_PKG_VERSION")));
        if !config.env_proxy {
            builder = builder.proxy(None);
        }
        let agent = builder.build().new_agent();
        Self {
            url: config.url(),
            config,
            agent,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The body of a request for `messages` and `tools`.
    pub fn request_body(&self, messages: &[Message], tools: &[ToolInfo]) -> Value {
        let mut body = Map::new();
        body.insert("model".to_owned(), json!(self.config.model));
        body.insert(
            "messages".to_owned(),
            messages.iter().map(message_json).collect(),
        );
        if !tools.is_empty() {
            body.insert(
                "tools".to_owned(),
                tools
                    .iter()
                    .map(|tool| tool.export(SchemaFormat::OpenAi))
                    .collect(),
            );
            body.insert("tool_choice".to_owned(), json!("auto"));
        }
        if let Some(temperature) = self.config.temperature {
            body.insert("temperature".to_owned(), json!(temperature));
        }
        if let Some(tokens) = self.config.max_tokens {
            body.insert("max_tokens".to_owned(), json!(tokens));
        }
        body.insert("stream".to_owned(), json!(false));
        Value::Object(body)
    }

    fn transport(&self, error: &ureq::Error) -> ChatError {
        ChatError::Transport {
            endpoint: self.url.clone(),
            message: error.to_string(),
        }
    }

    fn bad(&self, reason: impl Into<String>) -> ChatError {
        ChatError::BadResponse {
            endpoint: self.url.clone(),
            reason: reason.into(),
        }
    }
}

impl ChatModel for OpenAiClient {
    fn complete(&mut self, messages: &[Message], tools: &[ToolInfo]) -> Result<Message, ChatError> {
        let body = self.request_body(messages, tools).to_string();
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some(ApiKey(key)) = &self.config.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(&body).map_err(|e| self.transport(&e))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let to = response
                .headers()
                .get("location")
                .and_then(|to| to.to_str().ok())
                .unwrap_or("nowhere");
            return Err(ChatError::Status {
                endpoint: self.url.clone(),
                status,
                body: format!(
                    "a redirect to {}, not followed: give the endpoint's own address",
                    to.chars().take(ERROR_BODY_CHARS).collect::<String>()
                ),
            });
        }
        let text = response
            .body_mut()
            .with_config()
            .limit(self.config.max_response_bytes)
            .read_to_string()
            .map_err(|e| self.transport(&e))?;
        if !(200..300).contains(&status) {
            return Err(ChatError::Status {
                endpoint: self.url.clone(),
                status,
                body: text.chars().take(ERROR_BODY_CHARS).collect(),
            });
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| self.bad(format!("the body is not JSON ({e})")))?;
        parse_reply(&value).map_err(|reason| self.bad(reason))
    }
}

/// One message in the chat completions shape.
fn message_json(message: &Message) -> Value {
    let mut map = Map::new();
    map.insert("role".to_owned(), json!(message.role.as_str()));
    let content = if message.role == Role::Assistant
        && message.content.is_empty()
        && !message.tool_calls.is_empty()
    {
        Value::Null
    } else {
        json!(message.content)
    };
    map.insert("content".to_owned(), content);
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                })
            })
            .collect();
        map.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    if let Some(id) = &message.tool_call_id {
        map.insert("tool_call_id".to_owned(), json!(id));
    }
    Value::Object(map)
}

/// The assistant message of a chat completion.
fn parse_reply(value: &Value) -> Result<Message, String> {
    if let Some(error) = value.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_owned);
        return Err(format!("it holds an error: {message}"));
    }
    let message = value
        .get("choices")
        .and_then(|choices| choices.get(0))
        .and_then(|choice| choice.get("message"))
        .ok_or("it has no `choices[0].message`")?;
    let content = match message.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        // content parts: [{"type": "text", "text": "..."}]
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        Some(other) => return Err(format!("its content is not text: {other}")),
    };
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls.iter().map(native_call).collect(),
        Some(_) => return Err("its `tool_calls` is not an array".to_owned()),
    };
    Ok(Message::assistant(content).with_tool_calls(calls))
}

/// A native call as sent; anything missing is left empty for the loop to
/// correct (a missing id is filled in by the loop).
fn native_call(value: &Value) -> NativeCall {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
    let function = value.get("function");
    let arguments = match function.and_then(|f| f.get("arguments")) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        // some servers send the arguments as an object
        Some(other) => other.to_string(),
    };
    NativeCall::new(
        text(value.get("id")),
        text(function.and_then(|f| f.get("name"))),
        arguments,
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{OpenAiConfig, parse_reply};

    #[test]
    fn urls_accept_a_base_or_the_full_path() {
        for (endpoint, url) in [
            (
                "http://127.0.0.1:8080/v1",
                "http://127.0.0.1:8080/v1/chat/completions",
            ),
            (
                "http://127.0.0.1:8080/v1/",
                "http://127.0.0.1:8080/v1/chat/completions",
            ),
            (
                "http://h/v1/chat/completions",
                "http://h/v1/chat/completions",
            ),
        ] {
            assert_eq!(OpenAiConfig::new(endpoint, "m").url(), url);
        }
    }

    #[test]
    fn the_key_is_not_shown() {
        let config = OpenAiConfig::new("http://h", "m").with_api_key("sk-secret");
        assert!(!format!("{config:?}").contains("sk-secret"));
    }

    #[test]
    fn replies_in_their_shapes() {
        let parts = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]});
        assert_eq!(parse_reply(&parts).unwrap().content, "ab");
        let object_arguments = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"function": {"name": "ls", "arguments": {"path": "."}}}
        ]}}]});
        let reply = parse_reply(&object_arguments).unwrap();
        assert_eq!(reply.tool_calls[0].arguments, r#"{"path":"."}"#);
        assert_eq!(reply.tool_calls[0].id, "");
        for bad in [
            json!({}),
            json!({"choices": []}),
            json!({"error": {"message": "no such model"}}),
            json!({"choices": [{"message": {"content": 3}}]}),
            json!({"choices": [{"message": {"tool_calls": {}}}]}),
        ] {
            assert!(parse_reply(&bad).is_err(), "{bad}");
        }
    }
}
