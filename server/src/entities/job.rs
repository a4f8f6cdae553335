//! A deployment job for one Agent: `pending → running → succeeded | failed`,
//! or `cancelled` (while pending) or `expired` (lease passed without a result).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "jobs")]
pub struct Model {
    /// `job_…`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub agent_id: String,
    /// deploy_beacon, deploy_sidecar, restart_component or remove_component.
    pub kind: String,
    /// The validated, normalised payload as JSON text.
    pub payload: String,
    pub status: protocol::JobStatus,
    /// The Agent's result text (bounded), or why Control ended the job.
    pub result: String,
    pub created_at: DateTimeUtc,
    /// When an Agent claimed it.
    pub started_at: Option<DateTimeUtc>,
    pub finished_at: Option<DateTimeUtc>,
    /// A running job without a result by then becomes `expired`.
    pub lease_expires_at: Option<DateTimeUtc>,
    /// The failed or expired job this one retries.
    pub retry_of: Option<String>,
    /// The component the job acts on (`beacon-…`/`sidecar-…`).
    pub component_id: Option<String>,
    /// The network the job's component belongs to, for filtering.
    pub network_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
