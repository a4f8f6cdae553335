//! HTTP adapters: the router, middleware, the JSON API and the Leptos pages.

pub mod admin;
pub mod agent_protocol;
pub mod assets;
pub mod auth;
pub mod chunk_batch;
pub mod error;
pub mod extract;
pub mod forwarded;
pub mod health;
pub mod invite_page;
mod invite_text;
pub mod lang;
pub mod log_paths;
pub mod metrics;
pub mod paths;
mod plain_forms;
pub mod security;
pub mod sso;
pub mod throttle;
pub mod trust_browser;
pub mod two_step_setup;
pub mod ui_backend;
pub mod welcome_page;

use crate::state::AppState;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{any, get};
use axum::{Extension, Router};
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
pub use log_paths::{RouteTable, SecretPaths};
use std::sync::OnceLock;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::TraceLayer;
pub use trust_browser::TRUST_BROWSER_PREFIX;

/// Largest request body accepted anywhere; larger ones get 413.
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// The span of a request, with the path only, through the one redaction
/// (`log_paths`): a secret route's path is logged without its secret.
fn request_span(request: &axum::extract::Request, secret: &SecretPaths) -> tracing::Span {
    let path = secret.loggable(request.uri().path());
    // An ID per request, so the lines one request logs can be told apart
    // from the rest; `agent_id` is filled in once a signature names the Agent.
    let request_id = format!("{:016x}", rand::random::<u64>());
    tracing::info_span!(
        "request",
        request_id,
        method = %request.method(),
        path = %path,
        agent_id = tracing::field::Empty,
    )
}

async fn plain_not_found() -> StatusCode {
    StatusCode::NOT_FOUND
}

/// The app's routes, generated once per process. Generating them holds
/// Leptos' process-wide `SuppressResourceLoad` flag, and a page rendered
/// meanwhile on another thread gets resources that never load: its request
/// never answers (leptos#4773). Only tests build several routers in one
/// process, but there it hung a page now and then.
fn app_routes() -> Vec<AxumRouteListing> {
    static ROUTES: OnceLock<Vec<AxumRouteListing>> = OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(app::App)).clone()
}

pub fn router(state: AppState) -> Router {
    router_with_secret_paths(state).0
}

/// The router, and the routes of it that carry a secret in their path, as
/// it registered them: what its log lines redact, and what a test can walk.
pub fn router_with_secret_paths(state: AppState) -> (Router, SecretPaths) {
    let routes = app_routes();
    let context = ui_backend::request_context(state.clone());
    let shell_options = state.leptos.clone();
    let (app, secret) = RouteTable::default()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(metrics::scrape))
        .route("/lang/{code}", get(lang::switch_language))
        .secret_route("/join/{token}", get(invite_page::show))
        .secret_route(
            "/trust-browser/{token}",
            get(trust_browser::show).post(trust_browser::claim),
        )
        // Below the public prefixes only their own handlers answer: the app is
        // never rendered for such a path (it would read it differently).
        .secret_route("/join/{token}/{*rest}", any(plain_not_found))
        .route("/lang/{code}/{*rest}", any(plain_not_found))
        .secret_route("/trust-browser/{token}/{*rest}", any(plain_not_found))
        .secret_route(
            "/welcome/{token}",
            get(welcome_page::show).post(welcome_page::accept),
        )
        .secret_route("/welcome/{token}/{*rest}", any(plain_not_found))
        .secret_route("/two-step-setup/{token}", get(two_step_setup::show))
        .secret_route("/two-step-setup/{token}/{*rest}", any(plain_not_found))
        .route(crate::domain::access::sso::START_PATH, get(sso::start))
        .route(
            crate::domain::access::sso::CALLBACK_PATH,
            get(sso::callback),
        )
        .route(chunk_batch::ROUTE, get(chunk_batch::serve))
        .finish();
    let for_spans = secret.clone();
    let app = app
        .nest_service(
            "/pkg",
            assets::service(&state.leptos.site_root, &state.leptos.site_pkg_dir),
        )
        .merge(admin::routes())
        .leptos_routes_with_context(&state, routes, context.clone(), move || {
            app::shell(shell_options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler_with_context::<
            AppState,
            _,
        >(context, app::shell))
        // Innermost first: the session gate sees only same-origin writes; every
        // answer, refusals included, carries the security headers.
        .layer(from_fn(plain_forms::referer_without_old_refusal))
        .layer(from_fn_with_state(state.clone(), auth::require_admin))
        .layer(from_fn_with_state(
            state.clone(),
            security::same_origin_only,
        ))
        .layer(from_fn_with_state(
            state.clone(),
            throttle::limit_machine_endpoints,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(from_fn(error::json_payload_too_large))
        .layer(from_fn(paths::refuse_ambiguous_paths))
        .layer(from_fn_with_state(
            state.clone(),
            security::security_headers,
        ))
        // What Control speaks beyond version 1, on every answer (PROTOCOL.md:
        // a version-1 Agent ignores the header).
        .layer(from_fn(agent_protocol::announce_extensions))
        .layer(from_fn_with_state(state.clone(), metrics::time_requests))
        // gzip for pages, JSON and the WebAssembly when the client accepts it;
        // tower-http's default predicate leaves server-sent events, images and
        // tiny bodies alone, so live updates are not buffered.
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http().make_span_with(
            move |request: &axum::extract::Request| request_span(request, &for_spans),
        ))
        // Outermost, so every layer that logs a path can redact it.
        .layer(Extension(secret.clone()))
        .with_state(state);
    (app, secret)
}
