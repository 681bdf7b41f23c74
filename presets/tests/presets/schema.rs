use jig_presets::SchemaFormat;

use crate::Fixture;

#[test]
fn schemas_in_each_format() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    for (name, format) in [
        ("openai", SchemaFormat::OpenAi),
        ("anthropic", SchemaFormat::Anthropic),
        ("mcp", SchemaFormat::Mcp),
    ] {
        insta::assert_json_snapshot!(name, registry.schemas(format));
    }
}

#[test]
fn format_names_parse() {
    assert_eq!(SchemaFormat::parse("openai"), Some(SchemaFormat::OpenAi));
    assert_eq!(SchemaFormat::parse("mcp"), Some(SchemaFormat::Mcp));
    assert_eq!(SchemaFormat::parse("yaml"), None);
}
