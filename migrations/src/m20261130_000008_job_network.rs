//! Jobs remember their network, so the Jobs screen filters by network; and
//! the indexes that keep the job list and the live-update fingerprint fast
//! with 100,000 jobs (every list is ordered newest first by `(created_at, id)`)
//! and the Agent list with 10,000 Agents (ordered by name).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Jobs {
    Table,
    NetworkId,
    CreatedAt,
    Id,
    Status,
    Kind,
    AgentId,
    StartedAt,
    FinishedAt,
}

#[derive(DeriveIden)]
enum Components {
    Table,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Agents {
    Table,
    UpdatedAt,
    Name,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Jobs::Table)
                .add_column(ColumnDef::new(Jobs::NetworkId).string_len(64).null())
                .to_owned(),
        )
        .await?;
        // Deployments carry the network in their payload; restart and remove
        // act on a component, which knows its network.
        let from_payload = match m.get_database_backend() {
            DbBackend::Postgres => {
                "UPDATE jobs SET network_id = (payload::jsonb ->> 'network_id') \
                 WHERE kind IN ('deploy_beacon', 'deploy_sidecar')"
            }
            _ => {
                "UPDATE jobs SET network_id = json_extract(payload, '$.network_id') \
                 WHERE kind IN ('deploy_beacon', 'deploy_sidecar') AND json_valid(payload)"
            }
        };
        let db = m.get_connection();
        db.execute_unprepared(from_payload).await?;
        db.execute_unprepared(
            "UPDATE jobs SET network_id = (SELECT c.network_id FROM components c \
                 WHERE c.agent_id = jobs.agent_id AND c.component_id = jobs.component_id) \
             WHERE network_id IS NULL",
        )
        .await?;

        let newest_first = |name: &str, first: Option<Jobs>| {
            let mut index = Index::create();
            index.name(name).table(Jobs::Table);
            if let Some(col) = first {
                index.col(col);
            }
            index.col(Jobs::CreatedAt).col(Jobs::Id).to_owned()
        };
        for index in [
            newest_first("jobs_created_id", None),
            newest_first("jobs_status_created_id", Some(Jobs::Status)),
            newest_first("jobs_kind_created_id", Some(Jobs::Kind)),
            newest_first("jobs_agent_created_id", Some(Jobs::AgentId)),
            newest_first("jobs_network_created_id", Some(Jobs::NetworkId)),
            Index::create()
                .name("jobs_started_at")
                .table(Jobs::Table)
                .col(Jobs::StartedAt)
                .to_owned(),
            Index::create()
                .name("jobs_finished_at")
                .table(Jobs::Table)
                .col(Jobs::FinishedAt)
                .to_owned(),
            Index::create()
                .name("components_updated_at")
                .table(Components::Table)
                .col(Components::UpdatedAt)
                .to_owned(),
            Index::create()
                .name("agents_updated_at")
                .table(Agents::Table)
                .col(Agents::UpdatedAt)
                .to_owned(),
            // The Agent list is paged by name.
            Index::create()
                .name("agents_name_id")
                .table(Agents::Table)
                .col(Agents::Name)
                .col(Agents::Id)
                .to_owned(),
        ] {
            m.create_index(index).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (name, table) in [
            ("agents_name_id", "agents"),
            ("agents_updated_at", "agents"),
            ("components_updated_at", "components"),
            ("jobs_finished_at", "jobs"),
            ("jobs_started_at", "jobs"),
            ("jobs_network_created_id", "jobs"),
            ("jobs_agent_created_id", "jobs"),
            ("jobs_kind_created_id", "jobs"),
            ("jobs_status_created_id", "jobs"),
            ("jobs_created_id", "jobs"),
        ] {
            m.drop_index(Index::drop().name(name).table(Alias::new(table)).to_owned())
                .await?;
        }
        m.alter_table(
            Table::alter()
                .table(Jobs::Table)
                .drop_column(Jobs::NetworkId)
                .to_owned(),
        )
        .await
    }
}
