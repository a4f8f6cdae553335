//! A Beacon or sidecar on an Agent's host: desired by the admin, reported by
//! heartbeats, or both.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize, serde::Deserialize)]
#[sea_orm(table_name = "components")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub agent_id: String,
    /// `beacon-<slug>` or `sidecar-<slug>`.
    pub component_id: String,
    /// `beacon` or `sidecar`.
    pub kind: String,
    pub name: String,
    pub network_id: Option<String>,
    /// Deployed by an admin (as opposed to only seen in a heartbeat).
    pub desired: bool,
    /// Docker's state as last reported.
    pub status: protocol::ComponentStatus,
    /// The canonical `.knot` address, once announced.
    pub service: String,
    /// Container name as last reported.
    pub container: String,
    pub image: String,
    pub version: String,
    pub restart_count: i32,
    /// The Agent's last error for this component, empty when none.
    pub last_error: String,
    /// JSON array of warning strings.
    pub warnings: String,
    pub updated_at: DateTimeUtc,
    /// The deploy payload (JSON) the admin asked for; empty when not desired.
    pub spec: String,
    /// Failed deployments in a row; drives the retry backoff.
    pub deploy_failures: i32,
    /// When reconciliation may queue the next deployment after a failure.
    pub next_deploy_at: Option<DateTimeUtc>,
    /// Why the last deployment failed; empty once one succeeds.
    pub deploy_error: String,
    /// A sidecar's catalog entry as deployed (`protocol::catalog`); each
    /// empty when not given. Shown: the title, else `name`.
    pub title: String,
    pub description: String,
    /// JSON array of tags.
    pub tags: String,
    pub category: String,
    /// `http`, `https` or empty.
    pub scheme: String,
}

impl Model {
    /// `component_id` on `agent_id` with every other column empty: not
    /// desired, nothing deployed, nothing reported. Callers fill in what
    /// they know with `..Model::empty(…)`.
    pub fn empty(agent_id: &str, component_id: &str, now: DateTimeUtc) -> Self {
        Self {
            id: 0,
            agent_id: agent_id.to_string(),
            component_id: component_id.to_string(),
            kind: String::new(),
            name: String::new(),
            network_id: None,
            desired: false,
            status: protocol::ComponentStatus::Unknown,
            service: String::new(),
            container: String::new(),
            image: String::new(),
            version: String::new(),
            restart_count: 0,
            last_error: String::new(),
            warnings: "[]".into(),
            updated_at: now,
            spec: String::new(),
            deploy_failures: 0,
            next_deploy_at: None,
            deploy_error: String::new(),
            title: String::new(),
            description: String::new(),
            tags: "[]".into(),
            category: String::new(),
            scheme: String::new(),
        }
    }

    /// The catalog entry the columns hold.
    pub fn catalog(&self) -> protocol::catalog::Catalog {
        let text = |s: &str| (!s.is_empty()).then(|| s.to_string());
        protocol::catalog::Catalog {
            title: text(&self.title),
            description: text(&self.description),
            tags: serde_json::from_str(&self.tags).unwrap_or_default(),
            category: text(&self.category),
            scheme: protocol::catalog::Scheme::parse(&self.scheme),
        }
    }

    /// Stores `catalog` in the columns.
    pub fn set_catalog(&mut self, catalog: &protocol::catalog::Catalog) {
        [
            self.title,
            self.description,
            self.tags,
            self.category,
            self.scheme,
        ] = catalog_columns(catalog);
    }
}

/// The column values for a catalog entry: title, description, tags (JSON),
/// category, scheme.
pub fn catalog_columns(catalog: &protocol::catalog::Catalog) -> [String; 5] {
    [
        catalog.title.clone().unwrap_or_default(),
        catalog.description.clone().unwrap_or_default(),
        serde_json::to_string(&catalog.tags).expect("strings serialise"),
        catalog.category.clone().unwrap_or_default(),
        catalog
            .scheme
            .map(|s| s.as_str().to_string())
            .unwrap_or_default(),
    ]
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::agent::Entity",
        from = "Column::AgentId",
        to = "super::agent::Column::Id",
        on_delete = "Cascade"
    )]
    Agent,
}

impl Related<super::agent::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Agent.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
