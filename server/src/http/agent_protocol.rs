//! The agent API under /api/v1/agents (PROTOCOL.md): enrollment with a token,
//! then requests signed with the Agent's key.

use super::error::ApiError;
use super::extract::{client_address, ApiJson, ApiQuery};
use crate::domain::agents::requests::{Purpose, SignedHeaders};
use crate::domain::jobs::queue::offer;
use crate::entities::agent;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, OriginalUri, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::agent::{
    Ack, EnrollRequest, EnrollResponse, Heartbeat, JobNextRequest, JobOffer, JobResult,
};
use protocol::control_identity::AnswerScope;
use protocol::extensions::{Extension, Extensions, HEADER_EXTENSIONS};
use protocol::progress::{JobProgress, ProgressAnswer};
use protocol::signing::{HEADER_AGENT, HEADER_SIGNATURE, HEADER_TIMESTAMP};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::net::SocketAddr;
use utoipa_axum::{router::OpenApiRouter, routes};

/// The paths Agents call. They authenticate by token or signature, so the
/// admin session gate and the browser same-origin check do not apply to them
/// (and only to them: the admin's /api/v1/agents/{id} needs a session).
pub const AGENT_PROTOCOL_PATHS: [&str; 5] = [
    "/api/v1/agents/enroll",
    "/api/v1/agents/heartbeat",
    "/api/v1/agents/jobs/next",
    "/api/v1/agents/jobs/result",
    protocol::progress::PROGRESS_PATH,
];

pub fn is_agent_protocol_path(path: &str) -> bool {
    AGENT_PROTOCOL_PATHS.contains(&path)
}

/// Adds `X-Knot-Extensions` (what this Control speaks) to an answer.
pub async fn announce_extensions(request: Request, next: axum::middleware::Next) -> Response {
    static ANNOUNCED: std::sync::LazyLock<HeaderValue> = std::sync::LazyLock::new(|| {
        HeaderValue::from_str(&Extensions::all().header_value()).expect("names are ASCII")
    });
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .insert(HEADER_EXTENSIONS, ANNOUNCED.clone());
    response
}

/// What the Agent announced in its request (`X-Knot-Extensions`); none
/// from a version-1 Agent.
pub fn announced(headers: &HeaderMap) -> Extensions {
    Extensions::from_header_values(
        headers
            .get_all(HEADER_EXTENSIONS)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
    .unwrap_or(Extensions::NONE)
}

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(enroll))
        .routes(routes!(heartbeat))
        .routes(routes!(next_job))
        .routes(routes!(job_result))
        .routes(routes!(job_progress))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/enroll",
    tag = "agent protocol",
    request_body = EnrollRequest,
    responses((status = 201, body = EnrollResponse))
)]
async fn enroll(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiJson(request): ApiJson<EnrollRequest>,
) -> Result<Response, ApiError> {
    let client = client_address(&headers, Some(peer), &state.config.trusted_proxies);
    let announced = announced(&headers);
    let agent_id = state
        .enrollment
        .enroll(&request, &client, announced)
        .await?;
    // A version-1 Agent gets exactly `{"agent_id"}`; the signature headers
    // go to every Agent, since a version-1 peer ignores headers.
    let control_key = if announced.has(Extension::SignedAnswers) {
        Some(state.identity.current_key().await?.to_wire())
    } else {
        None
    };
    let answer = EnrollResponse {
        control_key,
        agent_id: agent_id.clone(),
    };
    let scope = AnswerScope {
        path: "/api/v1/agents/enroll",
        agent_id: agent_id.as_str(),
        nonce: request.nonce.as_deref().unwrap_or(""),
    };
    signed_answer(&state, StatusCode::CREATED, &scope, &answer).await
}

/// `value` as JSON, signed with Control's key(s) as the answer to `scope`
/// (protocol::control_identity), so an Agent that pinned the key can tell it
/// from an answer of anyone else.
async fn signed_answer<T: serde::Serialize>(
    state: &AppState,
    status: StatusCode,
    scope: &AnswerScope<'_>,
    value: &T,
) -> Result<Response, ApiError> {
    let body = serde_json::to_vec(value).expect("answers serialise");
    let signature = state.identity.sign(scope, &body).await?;
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    for (name, value) in signature {
        // Base64, digits and separators only: always a valid header value.
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, value);
        }
    }
    Ok(response)
}

/// A request signed by an enrolled Agent: who sent it, the path it was sent
/// to (answers are signed for it), and its body parsed as `T`. Extracting it
/// checks Content-Type, then the signature and replay, then parses the body:
/// the order in which a hostile request is turned away most cheaply.
pub struct Signed<T> {
    pub agent: agent::Model,
    pub path: String,
    pub body: T,
    /// What the Agent announced it speaks with this request.
    pub announced: Extensions,
}

/// A body Agents send signed, and what its signature may be used for.
pub trait SignedBody: DeserializeOwned {
    const PURPOSE: Purpose;
}

impl SignedBody for Heartbeat {
    const PURPOSE: Purpose = Purpose::Heartbeat;
}

impl SignedBody for JobNextRequest {
    const PURPOSE: Purpose = Purpose::Jobs;
}

impl SignedBody for JobResult {
    const PURPOSE: Purpose = Purpose::Jobs;
}

impl SignedBody for JobProgress {
    const PURPOSE: Purpose = Purpose::Jobs;
}

impl<T: SignedBody> FromRequest<AppState> for Signed<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Response> {
        let refuse = |e: ApiError| e.into_response();
        if !is_json(request.headers()) {
            return Err(refuse(
                ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_media_type",
                    "Send the body as JSON.",
                )
                .hint("Set Content-Type: application/json."),
            ));
        }
        let method = request.method().clone();
        // The path the Agent signed: as sent, before any nesting rewrote it.
        let path = request
            .extensions()
            .get::<OriginalUri>()
            .map_or_else(|| request.uri().path(), |uri| uri.0.path())
            .to_owned();
        let headers = request.headers().clone();
        let body = Bytes::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
        };
        let signed = SignedHeaders {
            agent: header(HEADER_AGENT),
            timestamp: header(HEADER_TIMESTAMP),
            signature: header(HEADER_SIGNATURE),
        };
        let agent = state
            .agents
            .authenticate(method.as_str(), &path, signed, &body, T::PURPOSE)
            .await
            .map_err(|e| refuse(e.into()))?;
        tracing::Span::current().record("agent_id", agent.id.as_str());
        let body = serde_json::from_slice(&body).map_err(|e| {
            refuse(ApiError::new(
                StatusCode::BAD_REQUEST,
                "malformed_json",
                format!("The body is not the expected JSON: {e}"),
            ))
        })?;
        Ok(Signed {
            agent,
            path,
            body,
            announced: announced(&headers),
        })
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        })
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/heartbeat",
    tag = "agent protocol",
    params(SignatureHeaders),
    request_body = Heartbeat,
    responses((status = 200, body = Ack))
)]
async fn heartbeat(
    State(state): State<AppState>,
    Signed {
        agent,
        path,
        body: heartbeat,
        announced,
    }: Signed<Heartbeat>,
) -> Result<Response, ApiError> {
    state.metrics.heartbeat();
    state.agent_extensions.record(&agent, announced).await?;
    // `None`: the report is unchanged and nothing awaits reconciliation.
    if let Some(components) = state.agents.record_heartbeat(&agent, &heartbeat).await? {
        state.alerts.services_reported(&agent, &components).await;
        // The heartbeat is stored; failing to queue a redeployment must not refuse it.
        if let Err(e) = state
            .reconciler
            .after_heartbeat(&agent.id, &components)
            .await
        {
            tracing::error!(error = %e, agent_id = %agent.id, "reconciliation failed");
        }
    }
    if let Err(e) = state.control_trust.record(&agent.id, &heartbeat).await {
        tracing::error!(error = %e, agent_id = %agent.id, "could not record the Agent's Control pin");
    }
    // Signed, and during a rotation carrying the key move: heartbeats are how
    // Agents without jobs learn the new key.
    let scope = AnswerScope {
        path: &path,
        agent_id: &agent.id,
        nonce: heartbeat.nonce.as_deref().unwrap_or(""),
    };
    signed_answer(&state, StatusCode::OK, &scope, &Ack { ok: true }).await
}

/// The headers that sign every Agent request (PROTOCOL.md); here only to
/// describe them in the OpenAPI document.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
struct SignatureHeaders {
    /// The Agent ID.
    #[serde(rename = "X-Knot-Agent")]
    agent: String,
    /// Unix seconds, within 3 minutes of Control's clock.
    #[serde(rename = "X-Knot-Timestamp")]
    timestamp: String,
    /// Ed25519 signature of the request, base64 without padding.
    #[serde(rename = "X-Knot-Signature")]
    signature: String,
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct WaitQuery {
    /// Ours: hold the request up to this many seconds (at most 30) until a job exists.
    wait: Option<u64>,
}

pub const MAX_WAIT_SECS: u64 = 30;

#[utoipa::path(
    post,
    path = "/api/v1/agents/jobs/next",
    tag = "agent protocol",
    params(SignatureHeaders, WaitQuery),
    request_body = JobNextRequest,
    responses((status = 200, body = JobOffer), (status = 204, description = "No job"))
)]
/// `POST /api/v1/agents/jobs/next[?wait=N]`: 200 with the claimed job, or 204.
async fn next_job(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<WaitQuery>,
    Signed {
        agent,
        path,
        body: request,
        announced,
    }: Signed<JobNextRequest>,
) -> Result<Response, ApiError> {
    let wait = std::time::Duration::from_secs(query.wait.unwrap_or(0).min(MAX_WAIT_SECS));
    let claimed = state
        .jobs
        .claim_next_waiting(&agent, request.progress, announced, wait)
        .await?;
    match claimed.as_ref().and_then(|job| offer(job, announced)) {
        Some(job) => {
            let scope = AnswerScope {
                path: &path,
                agent_id: &agent.id,
                nonce: request.nonce.as_deref().unwrap_or(""),
            };
            signed_answer(&state, StatusCode::OK, &scope, &job).await
        }
        None => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/jobs/result",
    tag = "agent protocol",
    params(SignatureHeaders),
    request_body = JobResult,
    responses((status = 200, body = Ack))
)]
/// `POST /api/v1/agents/jobs/result`.
async fn job_result(
    State(state): State<AppState>,
    Signed {
        agent,
        body: result,
        ..
    }: Signed<JobResult>,
) -> Result<Json<Ack>, ApiError> {
    if let Some(finished) = state.jobs.report_result(&agent.id, &result).await? {
        if let Some(ran_for) = finished.ran_for {
            state
                .metrics
                .job_finished(&finished.kind, finished.status, ran_for.as_secs_f64());
        }
    }
    Ok(Json(Ack { ok: true }))
}

#[utoipa::path(
    post,
    path = "/api/v1/agents/jobs/progress",
    tag = "agent protocol",
    params(SignatureHeaders),
    request_body = JobProgress,
    responses(
        (status = 200, body = ProgressAnswer),
        (status = 404, description = "Not this Agent's job (code `not_found`)"),
        (status = 409, description = "The job is no longer running (code `job_state`): stop sending progress for it")
    )
)]
/// Ours: `POST /api/v1/agents/jobs/progress` (docs/src/agent-protocol.md). The
/// answer is signed like the others, since it can tell the Agent to stop.
async fn job_progress(
    State(state): State<AppState>,
    Signed {
        agent,
        path,
        body: progress,
        ..
    }: Signed<JobProgress>,
) -> Result<Response, ApiError> {
    let answer = state.jobs.journal().record(&agent.id, &progress).await?;
    let scope = AnswerScope {
        path: &path,
        agent_id: &agent.id,
        nonce: progress.nonce.as_deref().unwrap_or(""),
    };
    signed_answer(&state, StatusCode::OK, &scope, &answer).await
}
