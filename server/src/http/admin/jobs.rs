//! Admin side of the job queue: queue, list, read, cancel, retry.

#[allow(unused_imports)]
use super::openapi::schemas::*;
use crate::domain::jobs::queue::{view, JobFilter};
use crate::http::error::ApiError;
use crate::http::extract::{page, ApiJson, ApiQuery};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use protocol::api::{JobView, NewJob};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/jobs", post(create_job).get(list_jobs))
        .route("/jobs/{id}", get(get_job))
        .route("/jobs/{id}/cancel", post(cancel_job))
        .route("/jobs/{id}/retry", post(retry_job))
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs",
    tag = "jobs",
    params(JobFilter),
    responses((status = 200, body = [JobView], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
/// `GET /api/v1/jobs?status=&agent_id=&after=&limit=`: newest first;
/// `X-Next-Cursor` carries `after` for the next page.
async fn list_jobs(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<JobFilter>,
) -> Result<Response, ApiError> {
    let (rows, next) = state.jobs.list(&filter).await?;
    Ok(page(rows.iter().map(view).collect(), next))
}

#[utoipa::path(
    post,
    path = "/api/v1/jobs/{id}/cancel",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID")),
    responses((status = 200, body = JobView), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn cancel_job(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(view(&state.jobs.cancel(&id).await?)))
}

#[utoipa::path(
    post,
    path = "/api/v1/jobs/{id}/retry",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID")),
    responses((status = 201, body = JobView), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
/// 201 with the new job, linked to the old one by `retry_of`.
async fn retry_job(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(view(&state.jobs.retry(&id).await?)),
    ))
}

#[utoipa::path(
    post,
    path = "/api/v1/jobs",
    tag = "jobs",
    request_body = NewJob,
    responses((status = 201, body = JobView), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
/// `POST /api/v1/jobs` → 201 with the job, as the first Control answers.
async fn create_job(
    State(state): State<AppState>,
    ApiJson(new): ApiJson<NewJob>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    let row = state
        .jobs
        .create(&new.agent_id, &new.kind, &new.payload)
        .await?;
    Ok((StatusCode::CREATED, Json(view(&row))))
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs/{id}",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID")),
    responses((status = 200, body = JobView), (status = "default", description = "Refused: the JSON error with code, field and hint", body = ErrorBody)),
    security(("session" = []), ("token" = []))
)]
async fn get_job(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(view(&state.jobs.get(&id).await?)))
}
