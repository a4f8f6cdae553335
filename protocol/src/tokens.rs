//! Personal API tokens for scripts: the form's rules (shared by the browser
//! and the server) and what the API shows of a token.

use crate::validation::{profile_name, FieldError, Problem};
use serde::{Deserialize, Serialize};

/// What a token may do on /api/v1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TokenScope {
    /// GET and HEAD only.
    Read,
    /// Everything an admin can do through the API, but managing tokens.
    Write,
}

impl TokenScope {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenScope::Read => "read",
            TokenScope::Write => "write",
        }
    }

    pub fn parse(input: &str) -> Option<Self> {
        match input.trim() {
            "read" => Some(TokenScope::Read),
            "write" => Some(TokenScope::Write),
            _ => None,
        }
    }
}

/// `POST /api/v1/tokens`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenInput {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub scope: String,
}

impl TokenInput {
    /// The trimmed name (1–80 characters) and the scope; every refused field.
    pub fn validate(&self) -> Result<(String, TokenScope), Vec<FieldError>> {
        let mut errors = Vec::new();
        let name = profile_name(&self.name)
            .map_err(|e| errors.push(e))
            .unwrap_or_default();
        let scope = TokenScope::parse(&self.scope);
        if scope.is_none() {
            errors.push(FieldError::new("scope", Problem::TokenScope));
        }
        match scope {
            Some(scope) if errors.is_empty() => Ok((name, scope)),
            _ => Err(errors),
        }
    }
}

/// A token as listed: never the token itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenView {
    pub id: crate::ApiTokenId,
    pub name: String,
    /// The token's first characters, to tell tokens apart.
    pub prefix: String,
    pub scope: TokenScope,
    /// RFC 3339.
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// The answer to a creation: the only time the token is shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedToken {
    pub token: String,
    #[serde(flatten)]
    pub view: TokenView,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_needs_a_name_and_a_known_scope() {
        let ok = TokenInput {
            name: "  backup script ".into(),
            scope: "read".into(),
        };
        assert_eq!(
            ok.validate(),
            Ok(("backup script".into(), TokenScope::Read))
        );
        let bad = TokenInput {
            name: " ".into(),
            scope: "admin".into(),
        };
        let errors = bad.validate().unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["name", "scope"]);
    }
}
