//! Keys an admin revoked. The record outlives the Agent's own row, so a
//! revoked host cannot come back by enrolling again after the Agent was
//! deleted; only the admin's "allow again" removes it.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RevokedKeys {
    Table,
    AgentId,
    PublicKey,
    Name,
    RevokedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(RevokedKeys::Table)
                .col(
                    ColumnDef::new(RevokedKeys::AgentId)
                        .string_len(64)
                        .not_null()
                        .primary_key(),
                )
                .col(
                    ColumnDef::new(RevokedKeys::PublicKey)
                        .string_len(64)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(RevokedKeys::Name)
                        .string_len(320)
                        .not_null()
                        .default(""),
                )
                .col(
                    ColumnDef::new(RevokedKeys::RevokedAt)
                        .timestamp_with_time_zone()
                        .not_null(),
                )
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        // Agents revoked before this table existed: those still on record…
        db.execute_unprepared(
            "INSERT INTO revoked_keys (agent_id, public_key, name, revoked_at) \
             SELECT id, public_key, name, updated_at FROM agents WHERE retired = 'revoked'",
        )
        .await?;
        // …and those revoked then deleted, known only from the audit log (the
        // hole this table closes). A key revoked, deleted and already enrolled
        // again is left alone: it is in use now.
        db.execute_unprepared(
            "INSERT INTO revoked_keys (agent_id, public_key, name, revoked_at) \
             SELECT subject, '', '', MAX(at) FROM audit_log \
             WHERE action = 'agent.revoked' \
               AND subject NOT IN (SELECT id FROM agents) \
             GROUP BY subject",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(RevokedKeys::Table).to_owned())
            .await
    }
}
