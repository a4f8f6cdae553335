//! Network profiles over the JSON API. Paths match the first Control's so
//! existing scripts keep working.

use crate::domain::access::roles::EditNetworks;
use crate::domain::networks::PAGE_MAX;
use crate::http::error::ApiError;
use crate::http::extract::{Allowed, ApiJson, ApiPath, ApiQuery, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::api::{ErrorBody, NetworkInput, NetworkProfile};
use protocol::NetworkId;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_networks, create_network))
        .routes(routes!(get_network, update_network, delete_network))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    after: Option<String>,
    /// Only profiles whose name contains this, ignoring case.
    search: Option<String>,
    limit: Option<u64>,
}

#[utoipa::path(
    get,
    path = "/api/v1/networks",
    tag = "networks",
    params(ListQuery),
    responses((status = 200, body = [NetworkProfile], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))))
)]
/// All profiles (up to `limit`, default and maximum 500) as a JSON array, like
/// the first Control; `X-Next-Cursor` carries `after` for the next page.
async fn list_networks(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Response, ApiError> {
    let page = state
        .networks
        .list(
            who.networks(),
            q.after.as_deref(),
            q.search.as_deref(),
            q.limit.unwrap_or(PAGE_MAX),
        )
        .await?;
    Ok(crate::http::extract::page(page.items, page.next))
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    responses((status = 200, body = NetworkProfile, headers(("ETag" = String, description = "The profile's version as an entity tag, e.g. \"3\", for If-Match"))))
)]
async fn get_network(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<NetworkId>,
) -> Result<Response, ApiError> {
    Ok(with_etag(state.networks.get(who.networks(), &id).await?))
}

/// The profile as JSON with its version as a strong entity tag.
fn with_etag(profile: NetworkProfile) -> Response {
    let etag = format!("\"{}\"", profile.version);
    let mut response = Json(profile).into_response();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, v);
    }
    response
}

/// The version an `If-Match` header asks for: `None` without the header or
/// for `*` (any version; the profile must exist). Only one strong tag of
/// digits (what `ETag` gives) is understood: a weak tag never matches
/// under If-Match, and a list would leave the version ambiguous.
fn if_match_version(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    let mut values = headers.get_all(header::IF_MATCH).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return match headers.contains_key(header::IF_MATCH) {
            true => Err(invalid_if_match()),
            false => Ok(None),
        };
    };
    let text = value.to_str().map_err(|_| invalid_if_match())?.trim();
    if text == "*" {
        return Ok(None);
    }
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
        .map(Some)
        .ok_or_else(invalid_if_match)
}

fn invalid_if_match() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "invalid_if_match",
        "If-Match must be one entity tag as the profile's ETag gives it, e.g. \"3\", or *.",
    )
    .on_field("If-Match")
    .hint("Send the ETag of GET /api/v1/networks/{id}, or `version` in the body instead.")
}

#[utoipa::path(
    post,
    path = "/api/v1/networks",
    tag = "networks",
    request_body = NetworkInput,
    responses((status = 201, body = NetworkProfile))
)]
async fn create_network(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiJson(input): ApiJson<NetworkInput>,
) -> Result<Response, ApiError> {
    let profile = state.networks.create(&by, input).await?;
    Ok((StatusCode::CREATED, Json(profile)).into_response())
}

#[utoipa::path(
    put,
    path = "/api/v1/networks/{id}",
    tag = "networks",
    params(
        ("id" = String, Path, description = "Network ID"),
        ("If-Match" = Option<String>, Header, description = "The profile's ETag (its version, e.g. \"3\"): the same as `version` in the body; both may be given only if they agree. `*` or no header: no version check, unless the body has one"),
    ),
    request_body(content = NetworkInput, description = "The whole profile. With `version` (or If-Match), a profile changed since that version is left as it is and 409 `stale_profile` answers; without, it is replaced whatever its version"),
    responses(
        (status = 200, body = NetworkProfile, headers(("ETag" = String, description = "The new version as an entity tag"))),
        (status = 409, description = "`stale_profile`: the profile changed since the version sent (nothing was saved; read it again and reapply the change)", body = ErrorBody),
    )
)]
async fn update_network(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiPath(id): ApiPath<NetworkId>,
    headers: HeaderMap,
    ApiJson(mut input): ApiJson<NetworkInput>,
) -> Result<Response, ApiError> {
    if let Some(tagged) = if_match_version(&headers)? {
        if input.version.is_some_and(|v| v != tagged) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "version_mismatch",
                "If-Match and `version` name different versions.",
            )
            .on_field("version")
            .hint("Send one of them, or the same version in both."));
        }
        input.version = Some(tagged);
    }
    Ok(with_etag(state.networks.update(&by, &id, input).await?))
}

#[utoipa::path(
    delete,
    path = "/api/v1/networks/{id}",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_network(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiPath(id): ApiPath<NetworkId>,
) -> Result<StatusCode, ApiError> {
    state.networks.delete(&by, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
