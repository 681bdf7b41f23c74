//! XML parameters: Qwen3-Coder, Seed-OSS and Step-3.5
//! (`<function=name><parameter=key>value</parameter></function>`), MiniMax,
//! DeepSeek DSML and Step-3 (`<invoke name="name"><parameter name="key">`,
//! with any namespace prefix), GLM (`<tool_call>name<arg_key>key</arg_key>
//! <arg_value>value</arg_value></tool_call>`) and MiniCPM (`<function
//! name="name"><param name="key">`, CDATA allowed).
//!
//! Values are text: the format carries no types (a tool list types them by
//! schema), except DSML's `string="false"`, which marks a JSON value.

use serde_json::{Map, Value};

use super::json::arguments;
use super::make_call;
use super::marks::{Marker, Marks};
use super::scan::{Next, Scan, find_short, skip_space};
use crate::call::{CallError, ToolCall};
use crate::repair::repair_value;

pub(super) const SHAPE: &str = "xml-parameters";

pub(super) fn read(text: &str, marks: &Marks, scan: &mut Scan) -> Result<Vec<ToolCall>, CallError> {
    let mut found: Vec<(usize, ToolCall)> = Vec::new();
    if marks.has(Marker::FunctionEq) {
        qwen(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::InvokeName) {
        invoke(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::ArgKey) {
        glm(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::FunctionName) {
        minicpm(text, marks, scan, &mut found)?;
    }
    found.sort_by_key(|(at, _)| *at);
    Ok(found.into_iter().map(|(_, call)| call).collect())
}

fn malformed(detail: String) -> CallError {
    CallError::Malformed {
        shape: SHAPE,
        detail,
    }
}

/// Checks what a call's text holds outside its parameters (`gap`, from
/// `at`): it must be layout, blanks and bare tags (`</tool_call>`, a tag a
/// model left open). Anything else is an argument written in a form the
/// reader does not know (a JSON object after the parameters, a parameter
/// without a name, `key: value`): the call read without it would run with
/// an argument lost, so the reply is unreadable instead. After a call left
/// unclosed (`closed` false) only the text before the first tag is its own:
/// what follows a tag may be the reply's prose.
fn layout_only(name: &str, gap: &str, closed: bool, scan: &mut Scan) -> Result<(), CallError> {
    let own = if closed {
        gap
    } else {
        &gap[..gap.find('<').unwrap_or(gap.len())]
    };
    scan.count(own.len());
    let mut rest = own.trim_start();
    while !rest.is_empty() {
        let tag = rest
            .strip_prefix('<')
            .and_then(|after| after.find('>').map(|end| &after[..end]))
            .filter(|inner| {
                inner
                    .strip_prefix('/')
                    .unwrap_or(inner)
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
            });
        let Some(tag) = tag else {
            return Err(malformed(format!(
                "`{name}` holds `{}` outside its parameters: write every argument as a \
                 parameter of its own, with its name",
                super::scan::shorten(rest.trim_end())
            )));
        };
        rest = rest[tag.len() + 2..].trim_start();
    }
    Ok(())
}

/// A value as written: one line break after the opening tag and one before
/// the closing tag are layout, not value (Qwen3-Coder's `<parameter=k>\nv\n`);
/// a value written right after its opening tag keeps its last line break
/// (Seed-OSS's `<parameter=k>line\n</parameter>`: code ends with one).
/// CDATA is unwrapped.
fn text_value(raw: &str) -> String {
    let after_break = raw.strip_prefix("\r\n").or_else(|| raw.strip_prefix('\n'));
    let raw = match after_break {
        Some(value) => value
            .strip_suffix("\r\n")
            .or_else(|| value.strip_suffix('\n'))
            .unwrap_or(value),
        None => raw,
    };
    let trimmed = raw.trim();
    if let Some(inner) = trimmed
        .strip_prefix("<![CDATA[")
        .and_then(|r| r.strip_suffix("]]>"))
    {
        return inner.to_owned();
    }
    raw.to_owned()
}

/// The searches of one reader's parameter values: the closing tag, the
/// next opening tag, the end of CDATA. Each is memoised ([`Next`]), so that
/// a text with many values, and many CDATA sections that are never closed,
/// is still read in linear time.
struct Values {
    close: Next,
    next: Next,
    cdata_end: Next,
}

impl Values {
    fn new(close: Next, next: Next) -> Values {
        Values {
            close,
            next,
            cdata_end: Next::Marked(Marker::CdataEnd),
        }
    }
}

/// The end of a parameter's value: its closing tag, or the next opening one
/// when that comes first (a model that left a value unclosed has begun the
/// next: the value is not read across it), else the end of the call. CDATA
/// holds either tag as text.
fn value_end(
    text: &str,
    from: usize,
    values: &mut Values,
    limit: usize,
    marks: &Marks,
    scan: &mut Scan,
) -> (usize, usize) {
    let Values {
        close,
        next,
        cdata_end,
    } = values;
    // CDATA may hold the closing tag itself
    let at = skip_space(text, from);
    let search_from = if text[at..].starts_with("<![CDATA[") {
        cdata_end
            .find(marks, scan, text, at)
            .map_or(from, |end| end + 3)
    } else {
        from
    };
    let opening = next
        .find(marks, scan, text, search_from)
        .filter(|end| *end <= limit);
    match close
        .find(marks, scan, text, search_from)
        .filter(|end| *end <= limit)
    {
        Some(end) if opening.is_none_or(|open| end <= open) => (end, end + close.needle_len()),
        _ => {
            let end = opening.unwrap_or(limit);
            (end, end)
        }
    }
}

/// `<function=name>` calls (also Functionary's `<function=name>{json}`).
fn qwen(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    let mut values = Values::new(
        Next::Marked(Marker::ParameterEnd),
        Next::Marked(Marker::ParameterEq),
    );
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::FunctionEq, from) {
        let start = at + Marker::FunctionEq.text().len();
        let Some(gt) = scan.find_byte(text, start, b'>') else {
            return Err(CallError::IncompleteName {
                partial: text[start..].to_owned(),
            });
        };
        let name = text[start..gt].trim();
        let limit = marks
            .first_of(scan, &[Marker::FunctionEnd, Marker::FunctionEq], gt)
            .unwrap_or(text.len());
        let closed = text[limit..].starts_with(Marker::FunctionEnd.text());
        let body = &text[gt + 1..limit];
        let args = if body.trim_start().starts_with('{') {
            arguments(name, body, scan)?
        } else {
            let mut args = Map::new();
            let mut pos = gt + 1;
            while let Some(p) = marks
                .find(scan, Marker::ParameterEq, pos)
                .filter(|p| *p < limit)
            {
                layout_only(name, &text[pos..p], true, scan)?;
                let key_start = p + Marker::ParameterEq.text().len();
                let key_end = scan
                    .find_byte(text, key_start, b'>')
                    .filter(|e| *e < limit)
                    .ok_or_else(|| malformed(format!("a parameter of `{name}` has no `>`")))?;
                let key = text[key_start..key_end].trim().to_owned();
                let (end, next) = value_end(text, key_end + 1, &mut values, limit, marks, scan);
                args.insert(key, Value::String(text_value(&text[key_end + 1..end])));
                pos = next.max(key_end + 1);
            }
            layout_only(name, &text[pos.min(limit)..limit], closed, scan)?;
            args
        };
        found.push((at, make_call(SHAPE, name, args)?));
        from = limit.max(start);
    }
    Ok(())
}

/// An attribute's value, `name="value"`, in a tag.
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let mut from = 0;
    let at = loop {
        let found = from + find_short(tag.get(from..)?, name)?;
        let value = found + name.len();
        if tag.get(value..)?.starts_with("=\"") {
            break value + 2;
        }
        from = found + 1;
    };
    let end = tag.get(at..)?.find('"')?;
    tag.get(at..at + end)
}

/// `<PREFIXinvoke name="...">` calls with `<PREFIXparameter name="...">`.
fn invoke(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const INVOKE: &str = Marker::InvokeName.text();
    // the searches of one namespace prefix, kept while the prefix is the same
    let mut searches: Option<(String, Next, Next, Values)> = None;
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::InvokeName, from) {
        // the `<` of the tag, at most 16 bytes before (looked for there
        // only: searching the whole text before each tag was quadratic)
        let window = at.saturating_sub(16);
        let lt = text
            .as_bytes()
            .get(window..at)
            .and_then(|before| memchr::memrchr(b'<', before))
            .map_or(at, |lt| window + lt);
        let prefix = text.get(lt + 1..at).unwrap_or("");
        let Some(gt) = scan.find_byte(text, at, b'>') else {
            return Err(CallError::IncompleteName {
                partial: text[at + INVOKE.len()..].trim_matches('"').to_owned(),
            });
        };
        let tag = &text[at..gt];
        let name = attribute(tag, "name").unwrap_or("").to_owned();
        if searches.as_ref().is_none_or(|(known, ..)| known != prefix) {
            let open_parameter = ["<", prefix, "parameter "].concat();
            searches = Some((
                prefix.to_owned(),
                Next::new(["</", prefix, "invoke>"].concat()),
                Next::new(open_parameter.clone()),
                Values::new(
                    Next::new(["</", prefix, "parameter>"].concat()),
                    Next::new(open_parameter),
                ),
            ));
        }
        let Some((_, close, open_p, values)) = searches.as_mut() else {
            return Ok(());
        };
        let end_tag = close.find(marks, scan, text, gt);
        let limit = end_tag.unwrap_or(text.len());
        let body = &text[gt + 1..limit];
        if body.trim_start().starts_with('{') {
            found.push((at, make_call(SHAPE, &name, arguments(&name, body, scan)?)?));
            from = limit.max(gt);
            continue;
        }
        let mut args = Map::new();
        let mut pos = gt + 1;
        while let Some(p) = open_p.find(marks, scan, text, pos).filter(|p| *p < limit) {
            layout_only(&name, &text[pos..p], true, scan)?;
            let tag_end = scan
                .find_byte(text, p, b'>')
                .filter(|e| *e < limit)
                .ok_or_else(|| malformed(format!("a parameter of `{name}` has no `>`")))?;
            let tag = &text[p..tag_end];
            let key = attribute(tag, "name").unwrap_or("").to_owned();
            let (end, next) = value_end(text, tag_end + 1, values, limit, marks, scan);
            let raw = text_value(&text[tag_end + 1..end]);
            let value = match attribute(tag, "string") {
                Some("false") => repair_value(&raw).unwrap_or(Value::String(raw)),
                _ => Value::String(raw),
            };
            args.insert(key, value);
            pos = next.max(tag_end + 1);
        }
        layout_only(&name, &text[pos.min(limit)..limit], end_tag.is_some(), scan)?;
        found.push((at, make_call(SHAPE, &name, unwrapped(args))?));
        from = limit.max(gt);
    }
    Ok(())
}

/// The arguments of an invoke whose one parameter is `arguments` holding an
/// object (`<parameter name="arguments" string="false">{...}</parameter>`,
/// as DeepSeek's DSML models write now and then): that object. A tool whose
/// one argument is itself named `arguments` and takes an object is rare
/// beside this slip.
fn unwrapped(mut args: Map<String, Value>) -> Map<String, Value> {
    if args.len() == 1
        && let Some(Value::Object(_)) = args.get("arguments")
        && let Some(Value::Object(inner)) = args.remove("arguments")
    {
        return inner;
    }
    args
}

/// GLM: `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`.
fn glm(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const VALUE: &str = Marker::ArgValue.text();
    const ARG_KEY_END: &str = Marker::ArgKeyEnd.text();
    let mut values = Values::new(
        Next::Marked(Marker::ArgValueEnd),
        Next::Marked(Marker::ArgKey),
    );
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::ToolCall, from) {
        let start = at + Marker::ToolCall.text().len();
        let limit = marks
            .find(scan, Marker::ToolCallEnd, start)
            .unwrap_or(text.len());
        let body = &text[start..limit];
        let name_stop = body.find('<').unwrap_or(body.len());
        let name = body[..name_stop].trim();
        if body.trim_start().starts_with('<') || body.trim_start().starts_with('{') {
            from = limit.max(start);
            continue;
        }
        let mut args = Map::new();
        let mut pos = start + name_stop;
        while let Some(k) = marks.find(scan, Marker::ArgKey, pos).filter(|k| *k < limit) {
            layout_only(name, &text[pos..k], true, scan)?;
            let key_start = k + Marker::ArgKey.text().len();
            let key_end = marks
                .find(scan, Marker::ArgKeyEnd, key_start)
                .filter(|e| *e < limit)
                .ok_or_else(|| malformed(format!("an argument key of `{name}` is not closed")))?;
            let key = text[key_start..key_end].trim().to_owned();
            let Some(v) = marks
                .find(scan, Marker::ArgValue, key_end)
                .filter(|v| *v < limit)
            else {
                return Err(malformed(format!(
                    "the argument `{key}` of `{name}` has no value"
                )));
            };
            let (end, next) = value_end(text, v + VALUE.len(), &mut values, limit, marks, scan);
            let between = text.get(key_end + ARG_KEY_END.len()..v).unwrap_or("");
            layout_only(name, between, true, scan)?;
            args.insert(key, Value::String(text_value(&text[v + VALUE.len()..end])));
            pos = next.max(key_end);
        }
        let closed = limit < text.len();
        layout_only(name, &text[pos.min(limit)..limit], closed, scan)?;
        found.push((at, make_call(SHAPE, name, args)?));
        from = limit.max(start);
    }
    Ok(())
}

/// MiniCPM: `<function name="..."><param name="...">value</param></function>`.
fn minicpm(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const OPEN: &str = Marker::FunctionName.text();
    let mut values = Values::new(Next::Marked(Marker::ParamEnd), Next::Marked(Marker::Param));
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::FunctionName, from) {
        let Some(gt) = scan.find_byte(text, at, b'>') else {
            return Err(CallError::IncompleteName {
                partial: text[at + OPEN.len()..].trim_matches('"').to_owned(),
            });
        };
        let name = attribute(&text[at..gt], "name").unwrap_or("").to_owned();
        let mut args = Map::new();
        let mut pos = gt + 1;
        let mut limit = marks
            .find(scan, Marker::FunctionEnd, gt)
            .unwrap_or(text.len());
        let body = &text[gt + 1..limit];
        if body.trim_start().starts_with('{') {
            found.push((at, make_call(SHAPE, &name, arguments(&name, body, scan)?)?));
            from = limit.max(gt);
            continue;
        }
        while let Some(p) = marks.find(scan, Marker::Param, pos).filter(|p| *p < limit) {
            layout_only(&name, &text[pos..p], true, scan)?;
            let tag_end = scan
                .find_byte(text, p, b'>')
                .ok_or_else(|| malformed(format!("a parameter of `{name}` has no `>`")))?;
            let key = attribute(&text[p..tag_end], "name")
                .unwrap_or("")
                .to_owned();
            let (end, next) = value_end(text, tag_end + 1, &mut values, text.len(), marks, scan);
            args.insert(key, Value::String(text_value(&text[tag_end + 1..end])));
            pos = next.max(tag_end + 1);
            if pos > limit {
                limit = marks
                    .find(scan, Marker::FunctionEnd, pos)
                    .unwrap_or(text.len());
            }
        }
        let closed = limit < text.len();
        layout_only(&name, &text[pos.min(limit)..limit], closed, scan)?;
        found.push((at, make_call(SHAPE, &name, args)?));
        from = limit.max(gt);
    }
    Ok(())
}
