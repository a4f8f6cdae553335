//! One-time install tokens: created by the admin (Infrastructure → Add agent,
//! or by moving an Agent), used by exactly one enrollment, expiring, revocable.
//! Only a hash is stored; the token is shown once, inside copy-ready snippets.

use crate::access::principal::Granted;
use crate::access::roles::ManageInstallTokens;
use crate::access::scope::NetworkScope;
use crate::access::secrets::{new_token, token_hash};
use crate::entities::install_token;
use crate::rfc3339;
use crate::{audit, split_page, StoreError};
use chrono::{DateTime, Duration, Utc};
use protocol::api::{CreatedInstallToken, InstallTokenView, NewInstallToken};
use protocol::FieldError;
use protocol::InstallTokenState;
use protocol::{Id, InstallTokenId};
use rand::RngCore;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};

/// Install tokens carry a prefix so an operator can tell them from the shared token.
pub const TOKEN_PREFIX: &str = "krit_";
/// The Agent image the snippets run.
pub const AGENT_IMAGE: &str = "ghcr.io/localzet/knotroute-agent:latest";

#[derive(Debug, thiserror::Error)]
pub enum InstallTokenError {
    #[error("invalid install token request")]
    Invalid(Vec<FieldError>),
    #[error("no such install token")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a token can still do at `now`.
pub fn state(row: &install_token::Model, now: DateTime<Utc>) -> InstallTokenState {
    if row.revoked_at.is_some() {
        InstallTokenState::Revoked
    } else if row.used_at.is_some() {
        InstallTokenState::Used
    } else if row.expires_at <= now {
        InstallTokenState::Expired
    } else {
        InstallTokenState::Active
    }
}

pub fn view(row: &install_token::Model, now: DateTime<Utc>) -> InstallTokenView {
    InstallTokenView {
        id: InstallTokenId::from_stored(row.id.clone()),
        name: row.name.clone(),
        tags: serde_json::from_str(&row.tags).unwrap_or_default(),
        state: state(row, now),
        created_at: rfc3339(row.created_at),
        expires_at: rfc3339(row.expires_at),
        used_at: row.used_at.map(rfc3339),
        used_by: row.used_by.clone(),
        replaces_agent: row.replaces_agent.clone(),
        needs_approval: row.needs_approval,
    }
}

/// Single-quotes `text` for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The `docker run` command and compose file that start an Agent enrolling
/// (as an unprivileged user in the Docker socket's group, like compose.agent.yaml)
/// with `token`, pinning `control_key` in advance so that even the first
/// contact is verified, and a warning when PUBLIC_URL is unset (the URL is
/// then a placeholder the operator must replace).
pub fn agent_snippets(
    public_url: Option<&url::Url>,
    token: &str,
    control_key: &str,
) -> (String, String, Option<String>) {
    let (control_url, warning) = match public_url {
        Some(url) => (url.as_str().trim_end_matches('/').to_string(), None),
        None => (
            "https://control.example.net".to_string(),
            Some(
                "KNOTROUTE_CONTROL_PUBLIC_URL is not set, so the snippets use https://control.example.net: replace it with the address Agents reach Control at, or set PUBLIC_URL and create a new token."
                    .to_string(),
            ),
        ),
    };
    let docker_run = format!(
        "docker run -d --name knotroute-agent --restart unless-stopped --stop-timeout 300 \\\n  \
         -v /var/run/docker.sock:/var/run/docker.sock \\\n  \
         -v knotroute-agent:/data \\\n  \
         --group-add \"$(stat -c %g /var/run/docker.sock)\" \\\n  \
         -e KNOTROUTE_CONTROL_URL={} \\\n  \
         -e KNOTROUTE_CONTROL_ENROLL_TOKEN={} \\\n  \
         -e KNOTROUTE_AGENT_CONTROL_KEY={} \\\n  \
         -e KNOTROUTE_AGENT_DOCKER=true \\\n  \
         {AGENT_IMAGE}",
        shell_quote(&control_url),
        shell_quote(token),
        shell_quote(control_key),
    );
    // Both values are JSON strings, which YAML reads as the same strings.
    let quoted = |s: &str| serde_json::to_string(s).expect("strings serialise");
    let compose = format!(
        "services:\n  \
         knotroute-agent:\n    \
         image: {AGENT_IMAGE}\n    \
         restart: unless-stopped\n    \
         # A deploy under way is finished before the Agent stops.\n    \
         stop_grace_period: 5m\n    \
         environment:\n      \
         KNOTROUTE_CONTROL_URL: {}\n      \
         KNOTROUTE_CONTROL_ENROLL_TOKEN: {}\n      \
         # Control's identity key: the Agent refuses jobs it did not sign.\n      \
         KNOTROUTE_AGENT_CONTROL_KEY: {}\n      \
         KNOTROUTE_AGENT_DOCKER: \"true\"\n    \
         # The Agent is not root: it joins the Docker socket's group.\n    \
         group_add:\n      \
         - \"${{DOCKER_GID:?run with DOCKER_GID=$(stat -c %g /var/run/docker.sock)}}\"\n    \
         volumes:\n      \
         - /var/run/docker.sock:/var/run/docker.sock\n      \
         - knotroute-agent:/data\n\
         volumes:\n  \
         knotroute-agent: {{}}\n",
        quoted(&control_url),
        quoted(token),
        quoted(control_key),
    );
    (docker_run, compose, warning)
}

#[derive(Clone)]
pub struct InstallTokens {
    db: DatabaseConnection,
    public_url: Option<url::Url>,
}

/// A token about to be issued.
pub(crate) struct Issued<'a> {
    pub name: &'a str,
    pub tags_json: &'a str,
    pub lifetime: Duration,
    /// Makes it a move token for that Agent record.
    pub replaces_agent: Option<&'a str>,
    /// Its Agent waits for approval once enrolled.
    pub needs_approval: bool,
}

impl InstallTokens {
    pub fn new(db: DatabaseConnection, public_url: Option<url::Url>) -> Self {
        Self { db, public_url }
    }

    /// Creates a token from the admin's form.
    pub async fn create(
        &self,
        by: &Granted<ManageInstallTokens>,
        input: &NewInstallToken,
    ) -> Result<CreatedInstallToken, InstallTokenError> {
        let valid = input.validate().map_err(InstallTokenError::Invalid)?;
        let tags = serde_json::to_string(&valid.tags).expect("strings serialise");
        self.issue(
            &self.db,
            Issued {
                name: &valid.name,
                tags_json: &tags,
                lifetime: Duration::hours(valid.expires_in_hours.into()),
                replaces_agent: None,
                needs_approval: valid.needs_approval,
            },
            &by.actor(),
        )
        .await
    }

    /// Stores a new token and returns it with its snippets. `actor` asked
    /// for it (the audit log's spelling).
    pub(crate) async fn issue(
        &self,
        db: &impl ConnectionTrait,
        issued: Issued<'_>,
        actor: &str,
    ) -> Result<CreatedInstallToken, InstallTokenError> {
        let Issued {
            name,
            tags_json,
            lifetime,
            replaces_agent,
            needs_approval,
        } = issued;
        let now = Utc::now();
        let token = format!("{TOKEN_PREFIX}{}", new_token());
        let mut id_bytes = [0u8; 8];
        rand::rngs::OsRng.fill_bytes(&mut id_bytes);
        let row = install_token::ActiveModel {
            id: Set(format!("it_{}", data_encoding::HEXLOWER.encode(&id_bytes))),
            token_hash: Set(token_hash(&token)),
            name: Set(name.to_string()),
            tags: Set(tags_json.to_string()),
            created_at: Set(now),
            expires_at: Set(now + lifetime),
            used_at: Set(None),
            used_by: Set(None),
            revoked_at: Set(None),
            replaces_agent: Set(replaces_agent.map(str::to_string)),
            needs_approval: Set(needs_approval),
        }
        .insert(db)
        .await?;
        let mut detail = match replaces_agent {
            Some(agent) => format!("moves {agent}; expires {}", rfc3339(row.expires_at)),
            None => format!("expires {}", rfc3339(row.expires_at)),
        };
        if needs_approval {
            detail.push_str("; its Agent waits for approval");
        }
        audit::record(db, actor, "install_token.created", &row.id, &detail).await;
        let control_key = crate::access::control_identity::describe(db)
            .await
            .map_err(StoreError::from)?
            .current
            .public_key;
        let (docker_run, compose, warning) =
            agent_snippets(self.public_url.as_ref(), &token, &control_key);
        Ok(CreatedInstallToken {
            view: view(&row, now),
            token,
            docker_run,
            compose,
            warning,
        })
    }

    /// Tokens newest first; `after` is the last ID of the previous page.
    /// Tokens belong to no network: someone who sees only some has none.
    pub async fn list(
        &self,
        scope: &NetworkScope,
        after: Option<&str>,
        limit: u64,
    ) -> Result<(Vec<InstallTokenView>, Option<String>), InstallTokenError> {
        if !scope.is_all() {
            return Ok((Vec::new(), None));
        }
        let limit = limit.clamp(1, 500);
        let mut query = install_token::Entity::find()
            .order_by_desc(install_token::Column::CreatedAt)
            .order_by_desc(install_token::Column::Id)
            .limit(limit + 1);
        if let Some(after) = after {
            let anchor = install_token::Entity::find_by_id(after)
                .one(&self.db)
                .await?
                .ok_or(InstallTokenError::NotFound)?;
            query = query.filter(crate::older_than(
                install_token::Column::CreatedAt,
                install_token::Column::Id,
                anchor.created_at,
                anchor.id,
            ));
        }
        let mut rows = query.all(&self.db).await?;
        let next = split_page(&mut rows, limit, |r| r.id.clone());
        let now = Utc::now();
        Ok((rows.iter().map(|r| view(r, now)).collect(), next))
    }

    /// Revokes the unused move tokens of an Agent record (moved again, revoked
    /// or deleted), in the caller's transaction.
    pub async fn revoke_move_tokens(
        db: &impl ConnectionTrait,
        agent_id: &str,
    ) -> Result<u64, StoreError> {
        let done = install_token::Entity::update_many()
            .col_expr(install_token::Column::RevokedAt, Some(Utc::now()).into())
            .filter(install_token::Column::ReplacesAgent.eq(agent_id))
            .filter(install_token::Column::UsedAt.is_null())
            .filter(install_token::Column::RevokedAt.is_null())
            .exec(db)
            .await?;
        Ok(done.rows_affected)
    }

    /// Revokes a token; revoking twice is harmless. A used token can be
    /// revoked too: that ends its repeat grace for the key that used it.
    pub async fn revoke(
        &self,
        by: &Granted<ManageInstallTokens>,
        id: &InstallTokenId,
    ) -> Result<InstallTokenView, InstallTokenError> {
        let id = id.as_str();
        let now = Utc::now();
        let done = install_token::Entity::update_many()
            .col_expr(install_token::Column::RevokedAt, Some(now).into())
            .filter(install_token::Column::Id.eq(id))
            .filter(install_token::Column::RevokedAt.is_null())
            .exec(&self.db)
            .await?;
        let row = install_token::Entity::find_by_id(id)
            .one(&self.db)
            .await?
            .ok_or(InstallTokenError::NotFound)?;
        if done.rows_affected == 1 {
            audit::record(&self.db, &by.actor(), "install_token.revoked", id, "").await;
        }
        Ok(view(&row, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_use_public_url_and_quote_what_they_embed() {
        let url = url::Url::parse("https://control.example.org/").unwrap();
        let key = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo";
        let (run, compose, warning) = agent_snippets(Some(&url), "krit_abc", key);
        assert!(run.contains(&format!("KNOTROUTE_AGENT_CONTROL_KEY='{key}'")));
        assert!(run.contains("KNOTROUTE_CONTROL_URL='https://control.example.org'"));
        assert!(run.contains("KNOTROUTE_CONTROL_ENROLL_TOKEN='krit_abc'"));
        assert!(compose.contains("KNOTROUTE_CONTROL_URL: \"https://control.example.org\""));
        assert!(warning.is_none());
        // The unprivileged Agent can use the socket only in its group.
        assert!(run.contains("--group-add \"$(stat -c %g /var/run/docker.sock)\""));
        assert!(run.contains("--stop-timeout 300"));
        let parsed: serde_json::Value = serde_yaml_ng::from_str(&compose).unwrap();
        assert_eq!(
            parsed["services"]["knotroute-agent"]["group_add"][0],
            "${DOCKER_GID:?run with DOCKER_GID=$(stat -c %g /var/run/docker.sock)}"
        );
        assert_eq!(
            parsed["services"]["knotroute-agent"]["stop_grace_period"],
            "5m"
        );
        assert_eq!(
            parsed["services"]["knotroute-agent"]["environment"]["KNOTROUTE_AGENT_CONTROL_KEY"],
            key
        );
        let (run, _, warning) = agent_snippets(None, "it's", key);
        assert!(run.contains(r"'it'\''s'"));
        assert!(warning.unwrap().contains("PUBLIC_URL"));
    }
}
