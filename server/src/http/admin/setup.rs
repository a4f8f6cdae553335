//! The setup checklist and the operations policy:
//! `GET`/`PUT /api/v1/networks/{id}/setup` (the checklist; skip a step by
//! choice or take it back), `GET`/`PUT /api/v1/policy` and
//! `GET /api/v1/policy/markdown` (the policy as a Markdown file).

use crate::domain::access::roles::{ChangeSettings, EditNetworks};
use crate::http::error::ApiError;
use crate::http::extract::{request_transport, Allowed, ApiJson, ApiPath, ApiQuery, Reader};
use crate::http::lang::chosen_lang;
use crate::state::AppState;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::policy::{OperationsPolicy, PolicyInput};
use protocol::setup::{SetupChecklist, SkipInput};
use protocol::NetworkId;
use serde::Deserialize;
use std::net::SocketAddr;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(setup_checklist, skip_step))
        .routes(routes!(policy, write_policy))
        .routes(routes!(policy_markdown))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct LangQuery {
    /// `en` or `ru`; the `Accept-Language` header otherwise.
    lang: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/networks/{id}/setup",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID"), LangQuery),
    responses((status = 200, body = SetupChecklist))
)]
/// The network's setup checklist: each of the guide's ten steps worked out
/// from what Control sees, then the "bootstrap complete" criteria.
async fn setup_checklist(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<NetworkId>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<LangQuery>,
) -> Result<Json<SetupChecklist>, ApiError> {
    let lang = chosen_lang(q.lang.as_deref(), &headers)?;
    let transport = request_transport(&headers, Some(peer), &state.config);
    Ok(Json(
        state
            .setup
            .checklist(who.networks(), &id, transport, lang)
            .await?,
    ))
}

#[utoipa::path(
    put,
    path = "/api/v1/networks/{id}/setup",
    tag = "networks",
    params(("id" = String, Path, description = "Network ID")),
    request_body = SkipInput,
    responses((status = 200, body = SetupChecklist))
)]
/// Skips a step by choice (`"skipped": true`) or takes it back; answers the
/// checklist as it now stands. The profile step cannot be skipped (409).
async fn skip_step(
    State(state): State<AppState>,
    Allowed(by): Allowed<EditNetworks>,
    ApiPath(id): ApiPath<NetworkId>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiJson(input): ApiJson<SkipInput>,
) -> Result<Json<SetupChecklist>, ApiError> {
    state.setup.skip(&by, &id, &input).await?;
    let lang = chosen_lang(None, &headers)?;
    let transport = request_transport(&headers, Some(peer), &state.config);
    Ok(Json(
        state
            .setup
            .checklist(by.scope(), &id, transport, lang)
            .await?,
    ))
}

#[utoipa::path(
    get,
    path = "/api/v1/policy",
    tag = "settings",
    params(LangQuery),
    responses((status = 200, body = OperationsPolicy))
)]
/// The operations policy: what Control knows filled in, what the admin wrote.
async fn policy(
    State(state): State<AppState>,
    Allowed(by): Allowed<ChangeSettings>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<LangQuery>,
) -> Result<Json<OperationsPolicy>, ApiError> {
    let lang = chosen_lang(q.lang.as_deref(), &headers)?;
    Ok(Json(state.policy.read(&by, lang).await?))
}

#[utoipa::path(
    put,
    path = "/api/v1/policy",
    tag = "settings",
    request_body = PolicyInput,
    responses((status = 200, body = OperationsPolicy))
)]
/// Saves the written parts (how relays are added, how a compromised host is
/// revoked), each at most 4000 characters. Audited.
async fn write_policy(
    State(state): State<AppState>,
    Allowed(by): Allowed<ChangeSettings>,
    headers: HeaderMap,
    ApiJson(input): ApiJson<PolicyInput>,
) -> Result<Json<OperationsPolicy>, ApiError> {
    let lang = chosen_lang(None, &headers)?;
    Ok(Json(state.policy.write(&by, &input, lang).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/policy/markdown",
    tag = "settings",
    params(LangQuery),
    responses((status = 200, content_type = "text/markdown", body = String))
)]
/// The policy as a Markdown file to keep with the runbooks.
async fn policy_markdown(
    State(state): State<AppState>,
    Allowed(by): Allowed<ChangeSettings>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<LangQuery>,
) -> Result<Response, ApiError> {
    let lang = chosen_lang(q.lang.as_deref(), &headers)?;
    let policy = state.policy.read(&by, lang).await?;
    let text = crate::domain::policy::markdown(&policy, lang);
    Ok((
        [
            (header::CONTENT_TYPE, "text/markdown; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"operations-policy.md\"",
            ),
        ],
        text,
    )
        .into_response())
}
