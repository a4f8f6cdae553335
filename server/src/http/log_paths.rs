//! The one redaction every log line that names a request path goes through.
//!
//! Some routes carry a one-time secret in their path (an invite's
//! `/join/<token>`, an owner's invitation `/welcome/<token>`, …). They are
//! registered with [`RouteTable::secret_route`], which records them where
//! they are registered, and [`SecretPaths::loggable`] cuts the secret out of
//! any path that reaches them. Paths the router would not even read
//! (`/join/x/../y`, `/%6Aoin/x`: `paths::ambiguity`) are not logged at all,
//! since their spelling could hide a secret; one that only differs in case
//! (`/JOIN/<token>`, a typing slip) is cut as well.

use crate::state::AppState;
use axum::routing::MethodRouter;
use axum::Router;
use std::borrow::Cow;
use std::sync::Arc;

/// How a path that carries a secret, or cannot be read one way, is logged.
const HIDDEN: &str = "…";

/// The routes that carry a secret in their path, as the router registered
/// them (`/join/{token}`); cloned into every request's log redaction.
#[derive(Clone, Debug, Default)]
pub struct SecretPaths {
    patterns: Arc<Vec<&'static str>>,
}

impl SecretPaths {
    /// The route patterns, as registered.
    pub fn patterns(&self) -> &[&'static str] {
        &self.patterns
    }

    /// `path` as a log line may name it: a secret route's path with its
    /// secret cut (`/join/…`), an ambiguous one as `…`, any other as it is
    /// (an unambiguous path holds printable ASCII only, so it cannot forge
    /// a log line).
    pub fn loggable<'a>(&self, path: &'a str) -> Cow<'a, str> {
        if super::paths::ambiguity(path).is_some() {
            return Cow::Borrowed(HIDDEN);
        }
        let lower = path.to_ascii_lowercase();
        for pattern in self.patterns.iter() {
            let prefix = static_prefix(pattern);
            if lower.starts_with(&prefix.to_ascii_lowercase()) {
                return Cow::Owned(format!("{prefix}{HIDDEN}"));
            }
        }
        Cow::Borrowed(path)
    }
}

/// The part of a route pattern before its first parameter (`/join/`).
fn static_prefix(pattern: &str) -> &str {
    &pattern[..pattern.find('{').unwrap_or(pattern.len())]
}

/// The router being built, and which of its routes carry a secret.
pub struct RouteTable {
    router: Router<AppState>,
    secret: Vec<&'static str>,
}

impl Default for RouteTable {
    fn default() -> Self {
        Self {
            router: Router::new(),
            secret: Vec::new(),
        }
    }
}

impl RouteTable {
    /// A route whose path holds nothing secret.
    pub fn route(mut self, path: &str, handler: MethodRouter<AppState>) -> Self {
        self.router = self.router.route(path, handler);
        self
    }

    /// A route whose path holds a secret after its fixed part
    /// (`/join/{token}`): its paths are logged without it. Everything below
    /// the fixed part is cut, so `/join/{token}/{*rest}` needs no entry of
    /// its own.
    pub fn secret_route(mut self, path: &'static str, handler: MethodRouter<AppState>) -> Self {
        assert!(
            path.contains('{'),
            "{path}: a secret route names its secret as a parameter"
        );
        self.secret.push(path);
        self.router = self.router.route(path, handler);
        self
    }

    /// What else the router is made of.
    pub fn merge(mut self, other: Router<AppState>) -> Self {
        self.router = self.router.merge(other);
        self
    }

    /// Changes the router itself (nesting, Leptos' routes).
    pub fn with(mut self, build: impl FnOnce(Router<AppState>) -> Router<AppState>) -> Self {
        self.router = build(self.router);
        self
    }

    pub fn finish(self) -> (Router<AppState>, SecretPaths) {
        (
            self.router,
            SecretPaths {
                patterns: Arc::new(self.secret),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> SecretPaths {
        SecretPaths {
            patterns: Arc::new(vec!["/join/{token}", "/welcome/{token}"]),
        }
    }

    #[test]
    fn a_secret_is_cut_from_every_spelling_of_its_route() {
        let s = secret();
        for (path, logged) in [
            ("/join/tok123", "/join/…"),
            ("/join/tok123/", "/join/…"),
            ("/join/tok123/more/parts", "/join/…"),
            ("/JOIN/tok123", "/join/…"),
            ("/Welcome/tok123", "/welcome/…"),
            ("/join/tok%20123", "…"),
            ("/join/./tok123", "…"),
            ("//join/tok123", "…"),
            ("/join/tok;123", "…"),
            ("/pkg/../join/tok123", "…"),
            ("/join/tok\u{1b}[31m", "…"),
            ("/networks/kn_abc", "/networks/kn_abc"),
            ("/joined", "/joined"),
            ("/join", "/join"),
        ] {
            assert_eq!(s.loggable(path), logged, "{path:?}");
        }
    }
}
