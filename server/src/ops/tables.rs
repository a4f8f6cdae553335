//! The tables a backup holds, in an order that satisfies foreign keys, and the
//! generic read/write of one table's rows as JSON (the entities' serde form,
//! the same on SQLite and PostgreSQL).

use crate::entities as e;
use async_trait::async_trait;
use futures_util::TryStreamExt;
use sea_orm::{
    ActiveModelTrait, ConnectionTrait, DatabaseTransaction, DbBackend, DbErr, EntityTrait,
    IntoActiveModel, PaginatorTrait, QueryOrder,
};
use serde::{de::DeserializeOwned, Deserialize as _, Serialize};
use std::marker::PhantomData;

/// Rows inserted per statement: well under both databases' bound-parameter
/// limits for our widest table (about 20 columns).
const INSERT_BATCH: usize = 200;

/// One backed-up table.
#[async_trait]
pub trait Table: Send + Sync {
    fn name(&self) -> &str;
    async fn count(&self, db: &DatabaseTransaction) -> Result<u64, DbErr>;
    /// Sends every row, in primary-key order, to `sink`.
    async fn dump(
        &self,
        db: &DatabaseTransaction,
        sink: &mut (dyn FnMut(serde_json::Value) -> Result<(), DbErr> + Send),
    ) -> Result<u64, DbErr>;
    /// Checks that a row has this table's shape without writing it.
    fn check(&self, row: &serde_json::Value) -> Result<(), String>;
    async fn insert(
        &self,
        db: &DatabaseTransaction,
        rows: Vec<serde_json::Value>,
    ) -> Result<(), DbErr>;
    async fn clear(&self, db: &DatabaseTransaction) -> Result<(), DbErr>;
    /// After rows with explicit ids went into a PostgreSQL serial column, its
    /// sequence must move past them or the next insert collides.
    async fn advance_sequence(&self, db: &DatabaseTransaction) -> Result<(), DbErr>;
}

struct EntityTable<E> {
    name: String,
    /// Tables with an auto-increment `id` (a sequence on PostgreSQL).
    serial_id: bool,
    _entity: PhantomData<fn() -> E>,
}

fn table<E>(serial_id: bool) -> Box<dyn Table>
where
    E: EntityTrait + Default,
    E::Model: Serialize + DeserializeOwned + IntoActiveModel<E::ActiveModel> + Send + Sync,
    E::ActiveModel: ActiveModelTrait<Entity = E> + Send,
{
    Box::new(EntityTable::<E> {
        name: E::default().table_name().to_string(),
        serial_id,
        _entity: PhantomData,
    })
}

/// Every table that holds inventory, history or settings, parents first.
/// Left out on purpose: admin sessions, failed sign-ins and known sign-in
/// browsers (a restore must not revive a signed-out session), the replay
/// cache of Agent signatures (its entries are only valid for minutes) and the
/// schedule leases of replicas, and invitations for people (one-time
/// links, meant to be used within days, not revived by a restore).
pub fn backed_up() -> Vec<Box<dyn Table>> {
    vec![
        table::<e::network::Entity>(false),
        table::<e::agent::Entity>(false),
        table::<e::agent_control_trust::Entity>(false),
        table::<e::component::Entity>(true),
        table::<e::install_token::Entity>(false),
        table::<e::invite::Entity>(false),
        table::<e::invite_open::Entity>(false),
        table::<e::identity_backup::Entity>(false),
        table::<e::identity_restart::Entity>(true),
        table::<e::network_probe::Entity>(false),
        table::<e::probe_run::Entity>(true),
        table::<e::job::Entity>(false),
        table::<e::job_stage::Entity>(false),
        table::<e::job_log_line::Entity>(false),
        table::<e::audit_entry::Entity>(true),
        table::<e::enrollment_log::Entity>(true),
        table::<e::beacon_check::Entity>(true),
        table::<e::beacon_status::Entity>(false),
        table::<e::beacon_check_hour::Entity>(false),
        table::<e::beacon_diagnosis::Entity>(false),
        table::<e::alert_state::Entity>(false),
        table::<e::alert::Entity>(true),
        table::<e::setting::Entity>(false),
        table::<e::setup_skip::Entity>(false),
        table::<e::user::Entity>(false),
        table::<e::user_network::Entity>(false),
        // People's second factors: without them a restored Control would
        // let their passwords alone in.
        table::<e::user_second_factor::Entity>(false),
        table::<e::user_recovery_code::Entity>(false),
        table::<e::api_token::Entity>(false),
        table::<e::revoked_key::Entity>(false),
        // Control's identity: a restore onto a new server keeps it, so the
        // Agents that pinned it go on working there without enrolling again.
        table::<e::control_key::Entity>(false),
    ]
}

#[async_trait]
impl<E> Table for EntityTable<E>
where
    E: EntityTrait + Default,
    E::Model: Serialize + DeserializeOwned + IntoActiveModel<E::ActiveModel> + Send + Sync,
    E::ActiveModel: ActiveModelTrait<Entity = E> + Send,
{
    fn name(&self) -> &str {
        &self.name
    }

    async fn count(&self, db: &DatabaseTransaction) -> Result<u64, DbErr> {
        E::find().count(db).await
    }

    async fn dump(
        &self,
        db: &DatabaseTransaction,
        sink: &mut (dyn FnMut(serde_json::Value) -> Result<(), DbErr> + Send),
    ) -> Result<u64, DbErr> {
        let mut query = E::find();
        for key in <E::PrimaryKey as sea_orm::Iterable>::iter() {
            query = query.order_by_asc(sea_orm::PrimaryKeyToColumn::into_column(key));
        }
        // Streamed: the check history can hold millions of rows.
        let mut rows = query.stream(db).await?;
        let mut n = 0;
        while let Some(model) = rows.try_next().await? {
            let value = serde_json::to_value(&model).map_err(|e| DbErr::Custom(e.to_string()))?;
            sink(value)?;
            n += 1;
        }
        Ok(n)
    }

    fn check(&self, row: &serde_json::Value) -> Result<(), String> {
        E::Model::deserialize(row)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    async fn insert(
        &self,
        db: &DatabaseTransaction,
        rows: Vec<serde_json::Value>,
    ) -> Result<(), DbErr> {
        let mut models = Vec::with_capacity(rows.len().min(INSERT_BATCH));
        for row in rows {
            let model = E::Model::deserialize(&row).map_err(|e| DbErr::Custom(e.to_string()))?;
            // reset_all marks every field as set, ids included.
            models.push(model.into_active_model().reset_all());
            if models.len() == INSERT_BATCH {
                E::insert_many(std::mem::take(&mut models))
                    .exec_without_returning(db)
                    .await?;
            }
        }
        if !models.is_empty() {
            E::insert_many(models).exec_without_returning(db).await?;
        }
        Ok(())
    }

    async fn clear(&self, db: &DatabaseTransaction) -> Result<(), DbErr> {
        E::delete_many().exec(db).await.map(|_| ())
    }

    async fn advance_sequence(&self, db: &DatabaseTransaction) -> Result<(), DbErr> {
        if !self.serial_id || db.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let name = self.name();
        db.execute_unprepared(&format!(
            "SELECT setval(pg_get_serial_sequence('\"{name}\"', 'id'), \
             COALESCE((SELECT MAX(id) FROM \"{name}\"), 0) + 1, false)"
        ))
        .await
        .map(|_| ())
    }
}
