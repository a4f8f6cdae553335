//! Admin side of the job queue: queue, list, read (with stages and output),
//! cancel, retry.

use crate::domain::access::roles::RunJobs;
use crate::domain::jobs::queue::{view, JobFilter};
use crate::http::error::ApiError;
use crate::http::extract::{page, Allowed, ApiJson, ApiPath, ApiQuery, Reader};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use protocol::api::{JobView, NewJob};
use protocol::progress::JobLogPage;
use protocol::JobId;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_job, list_jobs))
        .routes(routes!(get_job))
        .routes(routes!(job_log))
        .routes(routes!(cancel_job))
        .routes(routes!(retry_job))
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs",
    tag = "jobs",
    params(JobFilter),
    responses((status = 200, body = [JobView], headers(("X-Next-Cursor" = String, description = "Cursor for the next page, when there is one"))))
)]
/// `GET /api/v1/jobs?status=&agent_id=&after=&limit=`: newest first;
/// `X-Next-Cursor` carries `after` for the next page.
async fn list_jobs(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiQuery(filter): ApiQuery<JobFilter>,
) -> Result<Response, ApiError> {
    let (views, next) = state.jobs.list_views(who.networks(), &filter).await?;
    Ok(page(views, next))
}

#[utoipa::path(
    post,
    path = "/api/v1/jobs/{id}/cancel",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID")),
    responses((status = 200, body = JobView))
)]
async fn cancel_job(
    State(state): State<AppState>,
    Allowed(by): Allowed<RunJobs>,
    ApiPath(id): ApiPath<JobId>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(view(&state.jobs.cancel(&by, &id).await?)))
}

#[utoipa::path(
    post,
    path = "/api/v1/jobs/{id}/retry",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID")),
    responses((status = 201, body = JobView))
)]
/// 201 with the new job, linked to the old one by `retry_of`.
async fn retry_job(
    State(state): State<AppState>,
    Allowed(by): Allowed<RunJobs>,
    ApiPath(id): ApiPath<JobId>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(view(&state.jobs.retry(&by, &id).await?)),
    ))
}

#[utoipa::path(
    post,
    path = "/api/v1/jobs",
    tag = "jobs",
    request_body = NewJob,
    responses((status = 201, body = JobView))
)]
/// `POST /api/v1/jobs` → 201 with the job, as the first Control answers.
async fn create_job(
    State(state): State<AppState>,
    Allowed(by): Allowed<RunJobs>,
    ApiJson(new): ApiJson<NewJob>,
) -> Result<(StatusCode, Json<JobView>), ApiError> {
    let row = state
        .jobs
        .create(&by, &new.agent_id, &new.kind, &new.payload)
        .await?;
    Ok((StatusCode::CREATED, Json(view(&row))))
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs/{id}",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID")),
    responses((status = 200, body = JobView))
)]
/// The job with its stages (when its Agent reports progress).
async fn get_job(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<JobId>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(state.jobs.view_of(who.networks(), &id).await?))
}

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct LogQuery {
    /// The last line already read (`next` of the previous page); 0 or absent
    /// for the start.
    #[serde(default)]
    after: u64,
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs/{id}/log",
    tag = "jobs",
    params(("id" = String, Path, description = "Job ID"), LogQuery),
    responses((status = 200, body = JobLogPage))
)]
/// `GET /api/v1/jobs/{id}/log?after=<line>`: the job's output, a page at a time.
async fn job_log(
    State(state): State<AppState>,
    Reader(who): Reader,
    ApiPath(id): ApiPath<JobId>,
    ApiQuery(query): ApiQuery<LogQuery>,
) -> Result<Json<JobLogPage>, ApiError> {
    Ok(Json(
        state
            .jobs
            .journal()
            .lines(who.networks(), &id, query.after)
            .await?,
    ))
}
