//! The OpenAPI 3 description of the admin and Agent APIs, served at
//! `GET /api/v1/openapi.json`: the routes' own annotations (collected where
//! each route is registered, `super::described_routes`), plus what every
//! operation shares, added here once: the error answer, and the sign-in an
//! admin operation needs. The live-update stream (`/api/v1/events`,
//! server-sent events) is left out: it is for Control's own pages.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use protocol::api::ErrorBody;
use std::sync::OnceLock;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi, ToSchema};

/// Tags whose operations need no admin sign-in: signing in itself, and the
/// Agent protocol (signed by the Agent's key instead).
const UNSIGNED_TAGS: [&str; 2] = ["session", "agent protocol"];

#[derive(OpenApi)]
#[openapi(
    info(
        title = "KnotRoute Control API",
        description = "The admin API (a session cookie from POST /api/v1/session, or a personal API token as Authorization: Bearer) and the Agent protocol (signed requests, see PROTOCOL.md). Errors are JSON: {error, code, field, hint}."
    ),
    components(schemas(ErrorBody)),
    modifiers(&SecuritySchemes)
)]
struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::http::auth::SESSION_COOKIE,
                "Over HTTPS the cookie is named `__Host-kr_session`; send back the one POST /api/v1/session set.",
            ))),
        );
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// What every operation shares: any refusal is the JSON error, and an admin
/// operation takes the session cookie or an API token.
fn add_shared_parts(operation: &mut Operation) {
    let refused = ResponseBuilder::new()
        .description("Refused: the JSON error with code, field and hint")
        .content(
            "application/json",
            utoipa::openapi::ContentBuilder::new()
                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                    ErrorBody::name(),
                ))))
                .build(),
        )
        .build();
    operation
        .responses
        .responses
        .entry("default".to_string())
        .or_insert(RefOr::T(refused));
    let unsigned = operation
        .tags
        .iter()
        .flatten()
        .any(|tag| UNSIGNED_TAGS.contains(&tag.as_str()));
    if !unsigned && operation.security.is_none() {
        operation.security = Some(vec![
            SecurityRequirement::new("session", Vec::<String>::new()),
            SecurityRequirement::new("token", Vec::<String>::new()),
        ]);
    }
}

/// The whole description, built once from the routes.
pub fn description() -> utoipa::openapi::OpenApi {
    let (_, routes) = super::described_routes().split_for_parts();
    let mut doc = ApiDoc::openapi().merge_from(routes);
    for item in doc.paths.paths.values_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            add_shared_parts(operation);
        }
    }
    doc
}

/// `GET /api/v1/openapi.json`: public, like the API's paths themselves.
pub async fn openapi_json() -> Response {
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    let body =
        DOCUMENT.get_or_init(|| description().to_json().expect("the description serialises"));
    ([(header::CONTENT_TYPE, "application/json")], body.clone()).into_response()
}
