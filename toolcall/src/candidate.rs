//! A JSON value read as a possible tool call.
//!
//! [`ToolCall::from_json`](crate::ToolCall::from_json) looks a few keys up
//! in the object of a call and its wrappers, then drops that object: only
//! the name and the arguments are kept. Building it as a
//! [`serde_json::Map`] (an `IndexMap`: a hash table and a hashed key per
//! member, hashed again for every key looked up) cost more than reading
//! it. So the objects where a call may be (the top level, the items of a
//! top-level list, the values under wrapper keys, as deep as wrappers are
//! looked through) are read as their members in order, and every other
//! value, the arguments first of all, straight into the [`Value`] it ends
//! up as.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Keys under which a call may be wrapped: `{"function": {...}}`,
/// `{"tool_calls": [{...}]}`, Gemini's `{"functionCall": {"name": ...,
/// "args": {...}}}`, Bedrock's `{"toolUse": {"toolUseId": ..., "name":
/// ..., "input": {...}}}`.
pub(crate) const WRAPPER_KEYS: [&str; 9] = [
    "function",
    "function_call",
    "functionCall",
    "tool_call",
    "tool_calls",
    "call",
    "action",
    "tool_uses",
    "toolUse",
];

/// How many wrappers (arrays, wrapper keys) are looked through.
pub(crate) const MAX_WRAPPERS: usize = 4;

/// A member's key: the keys a call is read by are not copied.
pub(crate) type Key = Cow<'static, str>;

/// The key, borrowed from the keys a call is read by when it is one.
fn known(key: &str) -> Option<&'static str> {
    Some(match key {
        "name" => "name",
        "arguments" => "arguments",
        "tool" => "tool",
        "tool_name" => "tool_name",
        "function" => "function",
        "action" => "action",
        "args" => "args",
        "parameters" => "parameters",
        "params" => "params",
        "input" => "input",
        "action_input" => "action_input",
        "tool_input" => "tool_input",
        "tool_arguments" => "tool_arguments",
        "tool_args" => "tool_args",
        "recipient_name" => "recipient_name",
        "tool_uses" => "tool_uses",
        "toolUse" => "toolUse",
        "function_call" => "function_call",
        "functionCall" => "functionCall",
        "tool_call" => "tool_call",
        "tool_calls" => "tool_calls",
        "call" => "call",
        "id" => "id",
        "type" => "type",
        "call_id" => "call_id",
        "tool_call_id" => "tool_call_id",
        "index" => "index",
        "status" => "status",
        "toolUseId" => "toolUseId",
        _ => return None,
    })
}

/// A JSON value where a call may be.
#[derive(Debug)]
pub(crate) enum Candidate {
    /// An object's members, in the order written; a key written twice is
    /// there twice (the last one counts, as in a [`Map`]).
    Object(Vec<(Key, Candidate)>),
    /// An array's items.
    Array(Vec<Candidate>),
    /// Any other value, or a value no call is looked for in.
    Other(Value),
}

impl Candidate {
    /// The value as the [`Value`] it stands for.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Candidate::Object(members) => Value::Object(into_map(members)),
            Candidate::Array(items) => {
                Value::Array(items.into_iter().map(Candidate::into_value).collect())
            }
            Candidate::Other(value) => value,
        }
    }

    /// Whether it is an object or an array.
    pub(crate) fn is_container(&self) -> bool {
        matches!(
            self,
            Candidate::Object(_)
                | Candidate::Array(_)
                | Candidate::Other(Value::Object(_) | Value::Array(_))
        )
    }

    /// Whether it is an object.
    pub(crate) fn is_object(&self) -> bool {
        matches!(
            self,
            Candidate::Object(_) | Candidate::Other(Value::Object(_))
        )
    }

    /// A value read as it would have been deserialized, `depth` wrappers
    /// down.
    fn from_value(value: Value, depth: usize) -> Candidate {
        if depth >= MAX_WRAPPERS {
            return Candidate::Other(value);
        }
        match value {
            Value::Object(map) => Candidate::Object(
                map.into_iter()
                    .map(|(key, value)| {
                        let value = if WRAPPER_KEYS.contains(&key.as_str()) {
                            Candidate::from_value(value, depth + 1)
                        } else {
                            Candidate::Other(value)
                        };
                        (known(&key).map_or(Cow::Owned(key), Cow::Borrowed), value)
                    })
                    .collect(),
            ),
            Value::Array(items) => Candidate::Array(
                items
                    .into_iter()
                    .map(|item| Candidate::from_value(item, depth + 1))
                    .collect(),
            ),
            other => Candidate::Other(other),
        }
    }
}

impl From<Value> for Candidate {
    fn from(value: Value) -> Candidate {
        Candidate::from_value(value, 0)
    }
}

/// Members as a [`Map`]: a key written twice keeps its first place and its
/// last value, as when the object is read into a map.
pub(crate) fn into_map(members: Vec<(Key, Candidate)>) -> Map<String, Value> {
    let mut map = Map::with_capacity(members.len());
    for (key, value) in members {
        map.insert(key.into_owned(), value.into_value());
    }
    map
}

/// Reads a member's key.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(known(key).map_or_else(|| Cow::Owned(key.to_owned()), Cow::Borrowed))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Key, E> {
        Ok(known(&key).map_or(Cow::Owned(key), Cow::Borrowed))
    }
}

/// Reads a [`Candidate`] `depth` wrappers down.
#[derive(Clone, Copy)]
struct Seed {
    depth: usize,
}

impl Seed {
    /// The seed of a value one wrapper down: a [`Candidate`] while wrappers
    /// are still looked through, else a plain value.
    fn below(self) -> Option<Seed> {
        (self.depth + 1 < MAX_WRAPPERS).then_some(Seed {
            depth: self.depth + 1,
        })
    }
}

impl<'de> de::Deserialize<'de> for Candidate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Candidate, D::Error> {
        Seed { depth: 0 }.deserialize(deserializer)
    }
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Candidate;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Candidate, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Reads one value `Seed::below` or as a plain [`Value`].
struct Below(Option<Seed>);

impl<'de> DeserializeSeed<'de> for Below {
    type Value = Candidate;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Candidate, D::Error> {
        match self.0 {
            Some(seed) => seed.deserialize(deserializer),
            None => de::Deserialize::deserialize(deserializer).map(Candidate::Other),
        }
    }
}

impl<'de> Visitor<'de> for Seed {
    type Value = Candidate;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::Bool(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::from(value)))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::from(value)))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Candidate, E> {
        Ok(Candidate::Other(
            serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::String(value.to_owned())))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::String(value)))
    }

    fn visit_none<E: de::Error>(self) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::Null))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Candidate, E> {
        Ok(Candidate::Other(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Candidate, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
        while let Some(item) = seq.next_element_seed(Below(self.below()))? {
            items.push(item);
        }
        Ok(Candidate::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Candidate, A::Error> {
        let mut members = Vec::with_capacity(4);
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let below = if WRAPPER_KEYS.contains(&key.as_ref()) {
                self.below()
            } else {
                None
            };
            let value = map.next_value_seed(Below(below))?;
            members.push((key, value));
        }
        Ok(Candidate::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::Candidate;

    /// Values nested like calls in wrappers, and values that only look so.
    fn values() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e9f64..1e9).prop_map(Value::from),
            "[a-z\"\\\\é]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 48, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(
                    (
                        prop_oneof![
                            Just("function".to_owned()),
                            Just("tool_calls".to_owned()),
                            Just("name".to_owned()),
                            Just("arguments".to_owned()),
                            "[a-z]{1,3}",
                        ],
                        inner
                    ),
                    0..4
                )
                .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn a_key_written_twice_keeps_its_first_place_and_last_value() {
        let text = r#"{"a": 1, "function": {"x": 1}, "a": 2, "function": {"y": 2}}"#;
        let candidate: Candidate = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&candidate.into_value()).unwrap(),
            r#"{"a":2,"function":{"y":2}}"#
        );
    }

    proptest! {
        /// Read as a candidate and turned back, any JSON is the value
        /// serde_json reads, in the same order; and a value turned into a
        /// candidate and back is itself.
        #[test]
        fn a_candidate_stands_for_the_value_read(value in values()) {
            let text = value.to_string();
            let expected = serde_json::from_str::<Value>(&text).unwrap().to_string();
            let read: Candidate = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(read.into_value().to_string(), expected);
            let converted = Candidate::from(value).into_value();
            prop_assert_eq!(converted.to_string(), text);
        }
    }

    #[test]
    fn deep_values_are_read_whole() {
        let mut value = json!({"name": "ls"});
        for _ in 0..10 {
            value = json!({ "call": [value] });
        }
        let read: Candidate = serde_json::from_str(&value.to_string()).unwrap();
        assert_eq!(read.into_value(), value);
    }
}
