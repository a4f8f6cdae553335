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
    // The fields below came with the progress extension; `default` lets
    // backups made before it restore.
    /// Its Agent said, when it took the job, that it reports progress: the
    /// lease is then a minute long and each progress message extends it.
    #[serde(default)]
    pub reports_progress: bool,
    /// The last progress message recorded (repeats and older ones are ignored).
    #[serde(default)]
    pub progress_seq: i64,
    /// When the last progress message came (Control's clock); the live feed
    /// watches it.
    pub progress_at: Option<DateTimeUtc>,
    /// Bytes of output kept (`job_log_lines`), within the job's bound.
    #[serde(default)]
    pub log_bytes: i64,
    /// The number of the last output line.
    #[serde(default)]
    pub log_lines: i64,
    /// Lines from 1 to this are the kept start of the output; cuts come after.
    #[serde(default)]
    pub log_head_lines: i64,
    /// An admin asked the running job to stop; its Agent hears it in the
    /// answer to its next progress message.
    pub cancel_requested_at: Option<DateTimeUtc>,
    /// Queued by Control, or by someone who may point Control at private
    /// addresses: a Beacon it deploys joins its profile as if they listed
    /// it (`networks::add_beacon`). True for jobs queued before the rule.
    #[serde(default = "queued_before_the_rule")]
    pub may_reach_private: bool,
}

fn queued_before_the_rule() -> bool {
    true
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl Model {
    /// The stored payload, read back by its kind's rules; `None` for one no
    /// rule reads (a kind this Control does not know, a hand-edited row).
    pub fn parsed_payload(&self) -> Option<protocol::jobs::JobPayload> {
        let payload = serde_json::from_str(&self.payload).ok()?;
        protocol::jobs::JobPayload::parse(&self.kind, &payload).ok()
    }
}
