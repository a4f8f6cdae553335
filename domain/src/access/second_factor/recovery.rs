//! Recovery codes: ten per person, single-use, kept as SHA-256 bound to
//! their person; and the queries the rest of `access` needs about a
//! person's second factor.

use crate::access::secrets::token_hash;
use crate::entities::{user_recovery_code, user_second_factor};
use crate::StoreError;
use chrono::{DateTime, Utc};
use protocol::second_factor::{recovery_code, Code, RECOVERY_CODES, RECOVERY_CODE_LEN};
use rand::RngCore;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

/// How a recovery code is stored: bound to its person, so equal codes of two
/// people never collide and one person's code opens nothing of another's.
pub(super) fn recovery_hash(user_id: &str, normal: &str) -> String {
    token_hash(&format!("recovery:{user_id}:{normal}"))
}

/// Replaces person `id`'s recovery codes with new ones, returned as shown.
pub(super) async fn new_recovery_codes(
    txn: &impl ConnectionTrait,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    user_recovery_code::Entity::delete_many()
        .filter(user_recovery_code::Column::UserId.eq(id))
        .exec(txn)
        .await?;
    let mut codes = Vec::with_capacity(RECOVERY_CODES);
    for _ in 0..RECOVERY_CODES {
        let mut bytes = [0u8; RECOVERY_CODE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let shown = recovery_code(bytes);
        let Ok(Code::Recovery(normal)) = Code::parse(&shown) else {
            unreachable!("a recovery code reads back as one");
        };
        user_recovery_code::ActiveModel {
            code_hash: Set(recovery_hash(id, &normal)),
            user_id: Set(id.to_string()),
            created_at: Set(now),
            used_at: Set(None),
        }
        .insert(txn)
        .await?;
        codes.push(shown);
    }
    Ok(codes)
}

/// Which of `ids` have a second factor turned on (the Users screen).
pub(crate) async fn enabled_among(
    db: &impl ConnectionTrait,
    ids: &[String],
) -> Result<std::collections::HashSet<String>, StoreError> {
    Ok(user_second_factor::Entity::find()
        .filter(user_second_factor::Column::UserId.is_in(ids.iter().cloned()))
        .filter(user_second_factor::Column::ConfirmedAt.is_not_null())
        .all(db)
        .await?
        .into_iter()
        .map(|f| f.user_id)
        .collect())
}

/// Deletes person `id`'s second factor and recovery codes (turned off, reset,
/// or the person deleted).
pub(crate) async fn forget(txn: &impl ConnectionTrait, id: &str) -> Result<(), StoreError> {
    user_second_factor::Entity::delete_by_id(id)
        .exec(txn)
        .await?;
    user_recovery_code::Entity::delete_many()
        .filter(user_recovery_code::Column::UserId.eq(id))
        .exec(txn)
        .await?;
    Ok(())
}
