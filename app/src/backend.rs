//! What server functions reach on the server: the domain services, given
//! only to a request whose admin session the server verified, and the
//! session port for signing in and out, which needs the server's HTTP
//! details (the client's address behind proxies, cookies) and so stays a
//! trait the server implements.

use crate::error::UiError;
use async_trait::async_trait;
use domain::services::Services;
use std::sync::Arc;

/// Provided by the server only to requests whose admin session it verified.
/// Admin data is reachable only through [`services`], which asks for it, so
/// a page rendered for a request the gate mistook for public shows no data.
#[derive(Clone, Copy, Debug)]
pub struct SignedInRequest;

/// The domain services: refused unless this request's session was verified.
pub fn services() -> Result<Services, UiError> {
    if leptos::prelude::use_context::<SignedInRequest>().is_none() {
        return Err(UiError::Unauthenticated);
    }
    leptos::prelude::use_context::<Services>().ok_or(UiError::Internal)
}

/// Signing in and out, which need no verified session.
#[async_trait]
pub trait SessionPort: Send + Sync + 'static {
    /// Checks the password for the requesting client; returns the `Set-Cookie` values.
    async fn sign_in(
        &self,
        password: String,
        request: &http::request::Parts,
    ) -> Result<Vec<String>, UiError>;
    /// Ends the request's session; returns the `Set-Cookie` value that clears it.
    async fn sign_out(&self, request: &http::request::Parts) -> Result<String, UiError>;
}

pub type SharedSessions = Arc<dyn SessionPort>;

pub fn sessions() -> Result<SharedSessions, UiError> {
    leptos::prelude::use_context::<SharedSessions>().ok_or(UiError::Internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_data_is_refused_to_a_request_without_a_verified_session() {
        let owner = leptos::prelude::Owner::new();
        owner.with(|| {
            assert!(matches!(services(), Err(UiError::Unauthenticated)));
            leptos::prelude::provide_context(SignedInRequest);
            // Past the check it asks for the services themselves (none in this test).
            assert!(matches!(services(), Err(UiError::Internal)));
        });
    }
}
