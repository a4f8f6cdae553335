//! Network scope: a person may be limited to some network
//! profiles. `user_networks` holds one row per network a person sees (no
//! rows: all networks); an invitation carries the networks its person will
//! get; audit entries name the network they concern, so a scoped person's
//! audit log can leave the others' out.
//!
//! `user_networks.network_id` has no foreign key to `networks` on purpose:
//! with "no rows = all", a cascade on deleting a network would turn a person
//! limited to that one network into a person who sees every network.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum UserNetworks {
    Table,
    UserId,
    NetworkId,
}

#[derive(DeriveIden)]
enum Users {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum UserInvites {
    Table,
    Networks,
}

#[derive(DeriveIden)]
enum AuditLog {
    Table,
    Id,
    NetworkId,
}

#[derive(DeriveIden)]
enum Components {
    Table,
    NetworkId,
    AgentId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(UserNetworks::Table)
                .col(
                    ColumnDef::new(UserNetworks::UserId)
                        .string_len(32)
                        .not_null(),
                )
                .col(
                    ColumnDef::new(UserNetworks::NetworkId)
                        .string_len(64)
                        .not_null(),
                )
                .primary_key(
                    Index::create()
                        .col(UserNetworks::UserId)
                        .col(UserNetworks::NetworkId),
                )
                .foreign_key(
                    ForeignKey::create()
                        .name("fk_user_networks_user")
                        .from(UserNetworks::Table, UserNetworks::UserId)
                        .to(Users::Table, Users::Id)
                        .on_delete(ForeignKeyAction::Cascade),
                )
                .to_owned(),
        )
        .await?;
        // "Who sees network X", for the network's page and SSO re-mapping.
        m.create_index(
            Index::create()
                .name("idx_user_networks_network")
                .table(UserNetworks::Table)
                .col(UserNetworks::NetworkId)
                .to_owned(),
        )
        .await?;
        // A JSON array of Network IDs; `[]` is all networks.
        m.alter_table(
            Table::alter()
                .table(UserInvites::Table)
                .add_column(
                    ColumnDef::new(UserInvites::Networks)
                        .text()
                        .not_null()
                        .default("[]"),
                )
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(AuditLog::Table)
                .add_column(ColumnDef::new(AuditLog::NetworkId).string_len(64).null())
                .to_owned(),
        )
        .await?;
        m.create_index(
            Index::create()
                .name("idx_audit_log_network")
                .table(AuditLog::Table)
                .col(AuditLog::NetworkId)
                .col(AuditLog::Id)
                .to_owned(),
        )
        .await?;
        // A scoped person's Agents are those running a component of theirs.
        m.create_index(
            Index::create()
                .name("idx_components_network_agent")
                .table(Components::Table)
                .col(Components::NetworkId)
                .col(Components::AgentId)
                .to_owned(),
        )
        .await?;
        file_audit_under_networks(m.get_connection()).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name("idx_components_network_agent")
                .to_owned(),
        )
        .await?;
        m.drop_index(Index::drop().name("idx_audit_log_network").to_owned())
            .await?;
        m.alter_table(
            Table::alter()
                .table(AuditLog::Table)
                .drop_column(AuditLog::NetworkId)
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(UserInvites::Table)
                .drop_column(UserInvites::Networks)
                .to_owned(),
        )
        .await?;
        m.drop_table(Table::drop().table(UserNetworks::Table).to_owned())
            .await
    }
}

/// Files audit entries written before this migration under the network they
/// concern: a network's by its subject, a job's and an invite's through the
/// row they name. Gone rows stay unfiled, which hides them from people who
/// see only some networks: the safe side.
pub async fn file_audit_under_networks(db: &impl ConnectionTrait) -> Result<(), DbErr> {
    db.execute_unprepared(
        "UPDATE audit_log SET network_id = subject \
         WHERE action LIKE 'network.%' AND subject IN (SELECT id FROM networks)",
    )
    .await?;
    db.execute_unprepared(
        "UPDATE audit_log SET network_id = \
           (SELECT jobs.network_id FROM jobs WHERE jobs.id = audit_log.subject) \
         WHERE action LIKE 'job.%'",
    )
    .await?;
    db.execute_unprepared(
        "UPDATE audit_log SET network_id = \
           (SELECT invites.network_id FROM invites WHERE invites.id = audit_log.subject) \
         WHERE action LIKE 'invite.%'",
    )
    .await?;
    Ok(())
}
