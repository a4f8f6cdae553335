//! Admin side of the job queue: queue a job, read one.

use super::error::ApiError;
use super::extract::ApiJson;
use crate::domain::jobs::view;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use protocol::api::{JobView, NewJob};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/jobs", post(create_job))
        .route("/jobs/{id}", get(get_job))
}

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

async fn get_job(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(view(&state.jobs.get(&id).await?)))
}
