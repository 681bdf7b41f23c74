//! Templates: parsing, tokens, and every refusal (snapshotted).

use jig_lineage::{Template, Token};

#[test]
fn valid_templates() {
    // (template, token count, slots in order of first use)
    let cases: &[(&str, usize, &[&str])] = &[
        ("grep -rn {pattern} {path}", 4, &["pattern", "path"]),
        ("find {path} -name {pattern}", 4, &["path", "pattern"]),
        ("sed -n {range}p {path}", 4, &["range", "path"]),
        ("git status", 2, &[]),
        ("/usr/bin/wc -l {path}", 3, &["path"]),
        ("cp {file} {file}.bak", 3, &["file"]),
        ("tool --level={level} x", 3, &["level"]),
        ("find . -name {{}} {x}", 5, &["x"]),
        ("  echo\t{a}\u{a0}{b}  ", 3, &["a", "b"]),
        ("echo caf\u{e9}", 2, &[]),
    ];
    for (source, count, slots) in cases {
        let template = Template::parse(source).unwrap();
        assert_eq!(template.tokens().len(), *count, "{source}");
        let names: Vec<&str> = template.slot_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(names, *slots, "{source}");
        assert!(
            matches!(template.tokens()[0], Token::Literal(_)),
            "{source}"
        );
        assert_eq!(template.as_str(), *source);
    }
}

#[test]
fn affixes_surround_the_value() {
    let template = Template::parse("sed -n {range}p --x={{{v}}}").unwrap();
    let argv = template.fill(|name| match name.as_str() {
        "range" => "1,2",
        _ => "V",
    });
    assert_eq!(argv, ["sed", "-n", "1,2p", "--x={V}"]);
}

#[test]
fn refused_templates() {
    let cases = [
        "",
        "   ",
        "{prog} -x",
        "x{prog}",
        "grep -rn \"{pattern}\" {path}",
        "grep -rn '{pattern}' {path}",
        "grep -rn {pattern} {path} | head",
        "grep x; rm -rf /",
        "grep x && id",
        "echo $HOME",
        "echo `id`",
        "sort < in",
        "echo x > out",
        "echo a\u{7}b",
        "echo {a",
        "echo a}",
        "echo {a}{b}",
        "echo {a-b}",
        "echo {}",
        "echo {1x}",
        "ls&",
    ];
    let mut report = String::new();
    for source in cases {
        let error = Template::parse(source).unwrap_err();
        let offset = error.offset();
        assert!(
            source.get(offset..).is_some(),
            "{source:?}: offset {offset}"
        );
        assert!(source[offset..].starts_with(error.token()), "{source:?}");
        report.push_str(&format!("{source:?}\n  at {offset}: {error}\n"));
    }
    insta::assert_snapshot!("template_errors", report);
}
