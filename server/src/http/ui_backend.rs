//! The Leptos side of the server: the session port (signing in and out,
//! which need this crate's HTTP details) and the per-request context
//! (language, nonce, the domain services for a verified session) for pages
//! and server functions.

use crate::domain::access::sign_in::{Attempt, Credentials};
use crate::http::auth::{
    cleared_session_cookie, device_token, session_token, setup_token, sign_in_cookies,
};
use crate::http::extract::{came_over_https, client_address, peer_of, request_transport};
use crate::http::lang::request_lang;
use crate::http::security::CspNonce;
use crate::state::AppState;
use app::backend::{SessionCookies, SessionPort, SharedSessions};
use app::error::{ui_auth_error, UiError};
use async_trait::async_trait;
use leptos::prelude::*;
use std::sync::Arc;

struct Sessions {
    state: AppState,
}

#[async_trait]
impl SessionPort for Sessions {
    async fn sign_in(
        &self,
        name: String,
        password: String,
        code: Option<String>,
        request: &http::request::Parts,
    ) -> Result<SessionCookies, UiError> {
        let peer = peer_of(&request.extensions);
        let config = &self.state.config;
        let client = client_address(&request.headers, peer, &config.trusted_proxies);
        let secure = came_over_https(&request.headers, peer, config);
        let device = device_token(&request.headers, secure);
        let setup = setup_token(&request.headers, secure);
        let from = Attempt {
            client: &client,
            device: device.as_deref(),
        };
        let session = self
            .state
            .auth
            .sign_in(
                Credentials {
                    name: &name,
                    password: &password,
                    code: code.as_deref(),
                    setup: setup.as_deref(),
                },
                from,
            )
            .await
            .map_err(ui_auth_error)?;
        Ok(SessionCookies {
            cookies: sign_in_cookies(&session, secure),
            recovery_codes: session.recovery_codes.clone(),
        })
    }

    async fn sign_out(&self, request: &http::request::Parts) -> Result<String, UiError> {
        let secure = came_over_https(
            &request.headers,
            peer_of(&request.extensions),
            &self.state.config,
        );
        if let Some(token) = session_token(&request.headers, secure) {
            self.state
                .auth
                .sign_out(&token)
                .await
                .map_err(ui_auth_error)?;
        }
        Ok(cleared_session_cookie(secure))
    }
}

/// Runs for every page render and server-function call.
pub fn request_context(state: AppState) -> impl Fn() + Clone + Send + Sync + 'static {
    let preloads = state.chunk_batches.preloads();
    let islands_build = state.islands_build.clone();
    let services = state.services.clone();
    let sso = state
        .sso
        .as_ref()
        .map(|sso| app::SsoOffer(sso.provider_name().to_string()));
    let config = state.config.clone();
    let sessions: SharedSessions = Arc::new(Sessions { state });
    move || {
        if let Some(offer) = &sso {
            provide_context(offer.clone());
        }
        provide_context(sessions.clone());
        provide_context(services.clone());
        provide_context(preloads.for_page());
        if let Some(build) = &islands_build {
            provide_context(build.clone());
        }
        if let Some(parts) = use_context::<http::request::Parts>() {
            provide_context(request_lang(&parts.headers));
            provide_context(request_transport(
                &parts.headers,
                peer_of(&parts.extensions),
                &config,
            ));
            // Only the session gate inserts this, and only after it verified
            // the request's session (see app::backend::services).
            if let Some(principal) = parts
                .extensions
                .get::<crate::domain::access::principal::Principal>()
            {
                provide_context(crate::domain::access::roles::allowed_for(principal));
                provide_context(app::backend::SignedIn(principal.clone()));
            }
            if let Some(nonce) = parts.extensions.get::<CspNonce>() {
                provide_context(leptos::nonce::Nonce::from_value(nonce.0.clone()));
            }
        }
    }
}
