//! A published service's catalog entry: the title, description, tags,
//! category and scheme the sidecar announces (from `KNOTROUTE_SERVICE_*`)
//! and the KnotRoute desktop and Android apps show. Every field is optional
//! and bounded; the rules here serve the publish form, the API and the Agent.

use crate::validation::{FieldError, Problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const TITLE_MAX: usize = 80;
pub const DESCRIPTION_MAX: usize = 500;
pub const CATEGORY_MAX: usize = 40;
pub const TAG_MAX: usize = 32;
pub const TAGS_MAX: usize = 10;

/// How the apps open the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    pub fn parse(input: &str) -> Option<Self> {
        match input.trim().to_ascii_lowercase().as_str() {
            "http" => Some(Scheme::Http),
            "https" => Some(Scheme::Https),
            _ => None,
        }
    }
}

/// The catalog entry of a `deploy_sidecar` job (optional fields of its
/// payload; an Agent that does not know them ignores them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Catalog {
    /// Shown instead of the name; at most 80 characters, one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 80))]
    pub title: Option<String>,
    /// At most 500 characters, one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub description: Option<String>,
    /// At most 10, each 1–32 letters, digits, `-` or `_`, starting with a
    /// letter or digit; lowercased, duplicates dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(max_items = 10))]
    pub tags: Vec<String>,
    /// At most 40 characters, one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<Scheme>,
}

/// Characters refused in catalog text: control characters (line breaks
/// included: each value is one environment variable) and the bidirectional
/// overrides that could make a title read differently from what it is.
fn refused(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// One line of text, trimmed, at most `max` characters; empty is `None`.
pub fn text(field: &str, input: &str, max: usize) -> Result<Option<String>, FieldError> {
    let value = input.trim();
    if value.chars().count() > max {
        return Err(FieldError::new(field, Problem::TooLong { max }));
    }
    if value.chars().any(refused) {
        return Err(FieldError::new(field, Problem::ControlCharacters));
    }
    Ok((!value.is_empty()).then(|| value.to_string()))
}

/// Tags: each trimmed and lowercased, blanks and duplicates dropped (order kept).
pub fn tags<S: AsRef<str>>(input: &[S]) -> Result<Vec<String>, FieldError> {
    let mut kept: Vec<String> = Vec::new();
    for tag in input
        .iter()
        .map(|t| t.as_ref().trim())
        .filter(|t| !t.is_empty())
    {
        let tag = tag.to_lowercase();
        let mut chars = tag.chars();
        let ok = chars.next().is_some_and(char::is_alphanumeric)
            && chars.all(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && tag.chars().count() <= TAG_MAX;
        if !ok {
            return Err(FieldError::new("tags", Problem::InvalidTag));
        }
        if !kept.contains(&tag) {
            kept.push(tag);
        }
    }
    if kept.len() > TAGS_MAX {
        return Err(FieldError::new("tags", Problem::TooMany { max: TAGS_MAX }));
    }
    Ok(kept)
}

/// Tags as a person types them: separated by commas.
pub fn split_tags(input: &str) -> Vec<String> {
    input
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(String::from)
        .collect()
}

/// `http` or `https` (any case); empty is `None`.
pub fn scheme(input: &str) -> Result<Option<Scheme>, FieldError> {
    if input.trim().is_empty() {
        return Ok(None);
    }
    Scheme::parse(input)
        .map(Some)
        .ok_or_else(|| FieldError::new("scheme", Problem::InvalidScheme))
}

fn optional_str<'a>(payload: &'a Value, field: &str) -> Result<&'a str, FieldError> {
    match payload.get(field) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(FieldError::new(field, Problem::InvalidPayload)),
    }
}

impl Catalog {
    /// The catalog fields of a `deploy_sidecar` payload, validated and normalised.
    pub fn from_payload(payload: &Value) -> Result<Self, FieldError> {
        let tags_in: Vec<&str> = match payload.get("tags") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| FieldError::new("tags", Problem::InvalidPayload))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(FieldError::new("tags", Problem::InvalidPayload)),
        };
        Ok(Catalog {
            title: text("title", optional_str(payload, "title")?, TITLE_MAX)?,
            description: text(
                "description",
                optional_str(payload, "description")?,
                DESCRIPTION_MAX,
            )?,
            tags: tags(&tags_in)?,
            category: text("category", optional_str(payload, "category")?, CATEGORY_MAX)?,
            scheme: scheme(optional_str(payload, "scheme")?)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self == &Catalog::default()
    }

    /// The environment variables the sidecar reads, only for the fields given.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        if let Some(title) = &self.title {
            env.push(("KNOTROUTE_SERVICE_TITLE", title.clone()));
        }
        if let Some(description) = &self.description {
            env.push(("KNOTROUTE_SERVICE_DESCRIPTION", description.clone()));
        }
        if !self.tags.is_empty() {
            env.push(("KNOTROUTE_SERVICE_TAGS", self.tags.join(",")));
        }
        if let Some(category) = &self.category {
            env.push(("KNOTROUTE_SERVICE_CATEGORY", category.clone()));
        }
        if let Some(scheme) = self.scheme {
            env.push(("KNOTROUTE_SERVICE_SCHEME", scheme.as_str().to_string()));
        }
        env
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_full_entry_is_normalised_and_becomes_the_sidecars_environment() {
        let catalog = Catalog::from_payload(&json!({
            "title": "  Family photos ", "description": "Shared albums, $5 a month",
            "tags": ["Photos", " home-lab ", "photos", "", "медиа"], "category": "Media", "scheme": "HTTPS"}))
        .unwrap();
        assert_eq!(catalog.title.as_deref(), Some("Family photos"));
        assert_eq!(catalog.tags, ["photos", "home-lab", "медиа"]);
        assert_eq!(catalog.scheme, Some(Scheme::Https));
        assert_eq!(
            catalog.env(),
            vec![
                ("KNOTROUTE_SERVICE_TITLE", "Family photos".to_string()),
                (
                    "KNOTROUTE_SERVICE_DESCRIPTION",
                    "Shared albums, $5 a month".to_string()
                ),
                (
                    "KNOTROUTE_SERVICE_TAGS",
                    "photos,home-lab,медиа".to_string()
                ),
                ("KNOTROUTE_SERVICE_CATEGORY", "Media".to_string()),
                ("KNOTROUTE_SERVICE_SCHEME", "https".to_string()),
            ]
        );
        assert_eq!(
            serde_json::to_value(&catalog).unwrap()["scheme"],
            json!("https")
        );
    }

    #[test]
    fn nothing_given_is_an_empty_entry_with_no_environment() {
        for payload in [
            json!({}),
            json!({"title": null, "tags": null}),
            json!({"title": "  ", "description": "", "tags": [" "], "category": "", "scheme": ""}),
        ] {
            let catalog = Catalog::from_payload(&payload).unwrap();
            assert!(catalog.is_empty(), "{payload}");
            assert!(catalog.env().is_empty());
            assert_eq!(serde_json::to_value(&catalog).unwrap(), json!({}));
        }
    }

    #[test]
    fn entries_outside_their_bounds_name_their_field() {
        let refused = |payload: Value| {
            let e = Catalog::from_payload(&payload).unwrap_err();
            (e.field, e.problem)
        };
        assert!(Catalog::from_payload(&json!({"title": "я".repeat(80)})).is_ok());
        assert_eq!(
            refused(json!({"title": "я".repeat(81)})),
            ("title".into(), Problem::TooLong { max: 80 })
        );
        assert_eq!(
            refused(json!({"title": "two\nlines"})),
            ("title".into(), Problem::ControlCharacters)
        );
        assert_eq!(
            refused(json!({"title": "evil\u{202E}txt.exe"})),
            ("title".into(), Problem::ControlCharacters)
        );
        assert!(Catalog::from_payload(&json!({"description": "d".repeat(500)})).is_ok());
        assert_eq!(
            refused(json!({"description": "d".repeat(501)})),
            ("description".into(), Problem::TooLong { max: 500 })
        );
        assert_eq!(
            refused(json!({"description": "tab\there"})),
            ("description".into(), Problem::ControlCharacters)
        );
        assert_eq!(
            refused(json!({"category": "c".repeat(41)})),
            ("category".into(), Problem::TooLong { max: 40 })
        );
        assert_eq!(
            refused(json!({"scheme": "ftp"})),
            ("scheme".into(), Problem::InvalidScheme)
        );
        assert_eq!(
            refused(json!({"scheme": 443})),
            ("scheme".into(), Problem::InvalidPayload)
        );
        let eleven: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
        assert_eq!(
            refused(json!({ "tags": eleven })),
            ("tags".into(), Problem::TooMany { max: 10 })
        );
        assert!(Catalog::from_payload(&json!({ "tags": &eleven[..10] })).is_ok());
        for bad in [
            "a,b",
            "two words",
            "-lead",
            "_lead",
            "a.b",
            &"t".repeat(33),
            "x\u{0}",
        ] {
            assert_eq!(
                refused(json!({ "tags": [bad] })),
                ("tags".into(), Problem::InvalidTag),
                "{bad:?}"
            );
        }
        assert_eq!(
            refused(json!({"tags": "a,b"})),
            ("tags".into(), Problem::InvalidPayload)
        );
        assert_eq!(
            refused(json!({"tags": [1]})),
            ("tags".into(), Problem::InvalidPayload)
        );
    }

    #[test]
    fn typed_tags_are_split_at_commas() {
        assert_eq!(split_tags(" media, home-lab,,"), ["media", "home-lab"]);
        assert!(split_tags("  ").is_empty());
    }
}
