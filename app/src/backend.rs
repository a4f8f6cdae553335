//! What server functions reach on the server: the domain services, given
//! only to a request whose admin session the server verified, and the
//! session port for signing in and out, which needs the server's HTTP
//! details (the client's address behind proxies, cookies) and so stays a
//! trait the server implements.

use crate::error::{ui_error, UiError};
use async_trait::async_trait;
use domain::access::principal::{Granted, Principal};
use domain::access::roles::Action;
use domain::services::Services;
use std::sync::Arc;

/// Provided by the server only to requests whose admin session (or token)
/// it verified: who is acting. Admin data is reachable only through
/// [`services`], which asks for it, so a page rendered for a request the
/// gate mistook for public shows no data.
#[derive(Clone, Debug)]
pub struct SignedIn(pub Principal);

/// The domain services: refused unless this request's session was verified.
pub fn services() -> Result<Services, UiError> {
    signed_in()?;
    leptos::prelude::use_context::<Services>().ok_or(UiError::Internal)
}

/// The domain services and who asks: for reads, which show only what the
/// principal sees (its networks).
pub fn services_and_reader() -> Result<(Services, Principal), UiError> {
    let reader = signed_in()?;
    let services = leptos::prelude::use_context::<Services>().ok_or(UiError::Internal)?;
    Ok((services, reader))
}

fn signed_in() -> Result<Principal, UiError> {
    leptos::prelude::use_context::<SignedIn>()
        .map(|SignedIn(principal)| principal)
        .ok_or(UiError::Unauthenticated)
}

/// The capability to take action `A` for this request's principal: what a
/// domain method that changes something asks for. Refused (403) when the
/// principal's role does not allow it.
pub fn granted<A: Action>() -> Result<Granted<A>, UiError> {
    signed_in()?.may::<A>().map_err(ui_error)
}

/// Like [`granted`], but a role that does not allow `A` is `None` rather
/// than a refusal: for reads that show a part of a screen only to those who
/// may act on it.
pub fn granted_or_none<A: Action>() -> Result<Option<Granted<A>>, UiError> {
    Ok(signed_in()?.may::<A>().ok())
}

/// Signing in and out, which need no verified session.
#[async_trait]
pub trait SessionPort: Send + Sync + 'static {
    /// Checks the name (empty: the owner account), password and, for a
    /// person with a second factor, `code` for the requesting client.
    async fn sign_in(
        &self,
        name: String,
        password: String,
        code: Option<String>,
        request: &http::request::Parts,
    ) -> Result<SessionCookies, UiError>;
    /// Ends the request's session; returns the `Set-Cookie` value that clears it.
    async fn sign_out(&self, request: &http::request::Parts) -> Result<String, UiError>;
}

/// A sign-in that opened a session.
pub struct SessionCookies {
    /// The `Set-Cookie` values.
    pub cookies: Vec<String>,
    /// Recovery codes, when this sign-in set up the second factor the owner
    /// requires: shown once.
    pub recovery_codes: Vec<String>,
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
        use domain::access::roles::RunJobs;
        let owner = leptos::prelude::Owner::new();
        owner.with(|| {
            assert!(matches!(services(), Err(UiError::Unauthenticated)));
            assert!(matches!(
                granted::<RunJobs>(),
                Err(UiError::Unauthenticated)
            ));
            leptos::prelude::provide_context(SignedIn(Principal::owner()));
            // Past the check it asks for the services themselves (none in this test).
            assert!(matches!(services(), Err(UiError::Internal)));
            assert!(granted::<RunJobs>().is_ok());
            assert!(matches!(granted_or_none::<RunJobs>(), Ok(Some(_))));
        });
    }

    #[test]
    fn a_role_that_does_not_allow_an_action_is_refused_it() {
        use domain::access::roles::RunJobs;
        use protocol::refusals::Refusal;
        use protocol::tokens::TokenScope;
        let owner = leptos::prelude::Owner::new();
        owner.with(|| {
            leptos::prelude::provide_context(SignedIn(Principal::api_token(
                "reader",
                TokenScope::Read,
            )));
            assert!(matches!(
                granted::<RunJobs>(),
                Err(UiError::Refused(Refusal::NotAllowed { role })) if role == "viewer"
            ));
            // A part of a screen only for those who may act is simply absent.
            assert!(matches!(granted_or_none::<RunJobs>(), Ok(None)));
        });
    }
}
