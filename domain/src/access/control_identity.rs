//! Control's identity: the Ed25519 keys it signs Agent answers with
//! (protocol::control_identity). They live in the database, so every replica
//! signs with the same key and a backup carries it. The first key is made
//! when first needed; `rotate` adds a newer one and sets when the old one
//! stops signing, and until then answers carry both signatures and the key
//! move (the old key endorsing the new), which moves the Agents' pins.

use crate::audit;
use crate::entities::control_key;
use crate::rfc3339;
use crate::StoreError;
use chrono::{DateTime, Utc};
use protocol::control_identity::{
    AnswerScope, ControlKey, ControlPublicKey, HEADER_CONTROL_KEY_MOVE, HEADER_CONTROL_SIGNATURE,
    HEADER_CONTROL_TIMESTAMP,
};
use rand::RngCore;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, Set,
};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a replica signs with the keys it read before reading them again:
/// a rotation made by the CLI reaches every replica within this time.
const RELOAD_AFTER: Duration = Duration::from_secs(10);
/// The transition when the admin gives none.
pub const DEFAULT_TRANSITION: chrono::Duration = chrono::Duration::days(14);

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a rotation is still in progress: the previous key signs until {until}. Rotate again after that")]
    RotationInProgress { until: String },
    #[error("a stored Control key is damaged (generation {0}); restore it from a backup")]
    Damaged(i64),
}

/// For callers whose own errors carry only store failures: a damaged key or
/// a refused rotation becomes an internal store error there.
impl From<IdentityError> for StoreError {
    fn from(e: IdentityError) -> Self {
        match e {
            IdentityError::Store(e) => e,
            other => StoreError(sea_orm::DbErr::Custom(other.to_string())),
        }
    }
}

pub use protocol::api::{ControlIdentityView as IdentityView, ControlKeyView as KeyView};

/// The keys that sign now, newest first, and the key move while there are two.
struct SigningSet {
    keys: Vec<ControlKey>,
    key_move: Option<String>,
    /// Every key Control ever had, retired ones too.
    known: Vec<String>,
    read_at: Instant,
}

#[derive(Clone)]
pub struct ControlIdentity {
    db: DatabaseConnection,
    cache: Arc<Mutex<Option<Arc<SigningSet>>>>,
}

fn view(row: &control_key::Model) -> KeyView {
    KeyView {
        generation: row.generation,
        public_key: row.public_key.clone(),
        fingerprint: protocol::control_identity::fingerprint(&row.public_key),
        created_at: rfc3339(row.created_at),
        retire_at: row.retire_at.map(rfc3339),
    }
}

fn new_key() -> ControlKey {
    let mut seed = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut seed);
    ControlKey::from_seed(seed)
}

fn key_row(generation: i64, key: &ControlKey, now: DateTime<Utc>) -> control_key::ActiveModel {
    control_key::ActiveModel {
        generation: Set(generation),
        public_key: Set(key.public_key().to_wire()),
        private_key: Set(key.to_stored()),
        created_at: Set(now),
        retire_at: Set(None),
    }
}

/// Whether a key still signs: its private half is kept until it retires.
fn signs(row: &control_key::Model) -> bool {
    !row.private_key.is_empty()
}

/// Every key Control has had, newest first, after forgetting the private
/// half of keys whose transition has ended at `now`; makes the first key
/// when there is none (two replicas racing agree on generation 1).
async fn key_rows(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
) -> Result<Vec<control_key::Model>, IdentityError> {
    control_key::Entity::update_many()
        .col_expr(control_key::Column::PrivateKey, "".into())
        .filter(control_key::Column::RetireAt.lte(now))
        .filter(control_key::Column::PrivateKey.ne(""))
        .exec(db)
        .await?;
    let all = || {
        control_key::Entity::find()
            .order_by_desc(control_key::Column::Generation)
            .all(db)
    };
    let mut rows = all().await?;
    if rows.is_empty() {
        let key = new_key();
        match key_row(1, &key, now).insert(db).await {
            Ok(_) => {
                tracing::info!(fingerprint = %key.public_key().fingerprint(), "Control identity key created");
            }
            // Another replica made it at the same moment: use theirs.
            Err(e) if crate::is_unique_violation(&e) => {}
            Err(e) => return Err(e.into()),
        }
        rows = all().await?;
    }
    // Every key retired and none newer cannot come from `rotate`, which adds
    // the new key first: the database was changed by hand or damaged.
    if !rows.iter().any(signs) {
        return Err(IdentityError::Damaged(0));
    }
    Ok(rows)
}

/// The keys that still sign at `now`, newest first (see [`key_rows`]).
async fn signing_rows(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
) -> Result<Vec<control_key::Model>, IdentityError> {
    Ok(key_rows(db, now).await?.into_iter().filter(signs).collect())
}

impl ControlIdentity {
    pub fn new(db: DatabaseConnection) -> Self {
        Self {
            db,
            cache: Arc::new(Mutex::new(None)),
        }
    }

    async fn signing_set(&self) -> Result<Arc<SigningSet>, IdentityError> {
        if let Some(set) = self.cache.lock().expect("not poisoned").as_ref() {
            if set.read_at.elapsed() < RELOAD_AFTER {
                return Ok(set.clone());
            }
        }
        let rows = key_rows(&self.db, Utc::now()).await?;
        let keys = rows
            .iter()
            .filter(|r| signs(r))
            .map(|r| {
                ControlKey::from_stored(&r.private_key)
                    .map_err(|_| IdentityError::Damaged(r.generation))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let key_move = match keys.as_slice() {
            [newest, .., oldest] => Some(oldest.endorse(&newest.public_key())),
            _ => None,
        };
        let known = rows.into_iter().map(|r| r.public_key).collect();
        let set = Arc::new(SigningSet {
            keys,
            key_move,
            known,
            read_at: Instant::now(),
        });
        *self.cache.lock().expect("not poisoned") = Some(set.clone());
        Ok(set)
    }

    /// Reads the keys again at the next use, instead of up to
    /// `RELOAD_AFTER` later (after a change made in this process).
    pub fn reload(&self) {
        *self.cache.lock().expect("not poisoned") = None;
    }

    /// The key an Agent should pin now (the newest).
    pub async fn current_key(&self) -> Result<ControlPublicKey, IdentityError> {
        Ok(self.signing_set().await?.keys[0].public_key())
    }

    /// The headers that sign `body` as the answer to the request `scope`.
    pub async fn sign(
        &self,
        scope: &AnswerScope<'_>,
        body: &[u8],
    ) -> Result<Vec<(&'static str, String)>, IdentityError> {
        let set = self.signing_set().await?;
        let timestamp = Utc::now().timestamp().to_string();
        let signatures: Vec<String> = set
            .keys
            .iter()
            .map(|k| k.sign_answer(scope, &timestamp, body))
            .collect();
        let mut headers = vec![
            (HEADER_CONTROL_TIMESTAMP, timestamp),
            (HEADER_CONTROL_SIGNATURE, signatures.join(", ")),
        ];
        if let Some(m) = &set.key_move {
            headers.push((HEADER_CONTROL_KEY_MOVE, m.clone()));
        }
        Ok(headers)
    }

    /// How a pin an Agent reported stands: `current` (the newest key),
    /// `previous` (still signing during a rotation), `retired` (a key whose
    /// transition ended: the Agent refuses every answer now), `unknown` (not
    /// a key of this Control) or '' (no pin).
    pub async fn pin_state(&self, pinned: &str) -> Result<&'static str, IdentityError> {
        if pinned.is_empty() {
            return Ok("");
        }
        let set = self.signing_set().await?;
        let wire = |k: &ControlKey| k.public_key().to_wire();
        Ok(if wire(&set.keys[0]) == pinned {
            "current"
        } else if set.keys[1..].iter().any(|k| wire(k) == pinned) {
            "previous"
        } else if set.known.iter().any(|k| k == pinned) {
            "retired"
        } else {
            "unknown"
        })
    }

    /// Whether `fingerprint` is one of the keys Control ever had.
    pub async fn is_own_fingerprint(&self, fingerprint: &str) -> Result<bool, IdentityError> {
        let set = self.signing_set().await?;
        Ok(set
            .known
            .iter()
            .any(|k| protocol::control_identity::fingerprint(k) == fingerprint))
    }

    /// What Settings and `knotroute-control identity` show.
    pub async fn describe(&self) -> Result<IdentityView, IdentityError> {
        describe(&self.db).await
    }
}

/// The current key and, during a rotation, the previous one.
pub async fn describe(db: &impl ConnectionTrait) -> Result<IdentityView, IdentityError> {
    let rows = signing_rows(db, Utc::now()).await?;
    Ok(IdentityView {
        current: view(&rows[0]),
        previous: rows.get(1).map(view),
    })
}

/// Makes a new key that signs from now on; the current one keeps signing for
/// `transition` so Agents online in that time move their pins. Refused while
/// an earlier rotation's transition has not ended (Agents would need two moves).
pub async fn rotate(
    db: &DatabaseConnection,
    transition: chrono::Duration,
    actor: &str,
) -> Result<IdentityView, IdentityError> {
    let now = Utc::now();
    let txn = crate::begin_write(db).await?;
    let rows = signing_rows(&txn, now).await?;
    if let Some(previous) = rows.get(1) {
        return Err(IdentityError::RotationInProgress {
            until: previous.retire_at.map(rfc3339).unwrap_or_default(),
        });
    }
    let current = &rows[0];
    let key = new_key();
    key_row(current.generation + 1, &key, now)
        .insert(&txn)
        .await?;
    let retire_at = now + transition;
    control_key::Entity::update_many()
        .col_expr(control_key::Column::RetireAt, Some(retire_at).into())
        .filter(control_key::Column::Generation.eq(current.generation))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    let detail = format!(
        "new key {} (generation {}); the previous key {} signs until {}",
        key.public_key().fingerprint(),
        current.generation + 1,
        protocol::control_identity::fingerprint(&current.public_key),
        rfc3339(retire_at)
    );
    audit::record(db, actor, "control.key_rotated", "control", &detail).await;
    tracing::warn!("{detail}");
    describe(db).await
}
