//! Becoming an Agent of Control: the stored identity, or a new key enrolled
//! with the enrollment token. What Control speaks is asked first
//! (crate::control_speaks), since the enroll body and the pinning of
//! Control's key depend on it; while Control is unreachable the Agent
//! retries with backoff.

use crate::client::{CallError, ControlClient};
use crate::config::Config;
use crate::identity::{self, Identity, IdentityError};
use crate::run::wait_before_retry;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Identity(#[from] IdentityError),
    #[error("no identity is stored in {0} and KNOTROUTE_CONTROL_ENROLL_TOKEN is not set: set it to the enrollment or install token shown in Control")]
    TokenNeeded(String),
    #[error("Control refused the enrollment ({code}): {message}")]
    EnrollRefused { code: String, message: String },
    #[error("Control answered Agent ID {answered}, but this key is {expected}: refusing to continue with a Control that does not derive IDs as PROTOCOL.md says")]
    WrongAgentId { expected: String, answered: String },
    #[error("the enrollment answer is not from the Control this Agent trusts ({0}); nothing was stored. Check KNOTROUTE_CONTROL_URL and KNOTROUTE_AGENT_CONTROL_KEY against Control's Settings: a server pretending to be Control may be at that address")]
    NotFromControl(String),
    #[error("{0}")]
    Client(String),
}

/// Loads the identity or enrolls a new one, retrying while Control is unreachable.
pub async fn identity(config: &Config, client: &ControlClient) -> Result<Identity, StartError> {
    if let Some(stored) = identity::load(&config.data)? {
        // What an admin compares before approving this Agent in Control.
        tracing::info!(agent_id = %stored.agent_id, key = %stored.key.public_key().fingerprint(), "Agent identity");
        return Ok(stored);
    }
    let token = config
        .enroll_token
        .clone()
        .ok_or_else(|| StartError::TokenNeeded(config.data.display().to_string()))?;
    // A key offered before a restart is offered again: Control accepts the same
    // key twice, while a one-time token would refuse a new one.
    let mut fresh = match identity::load_pending(&config.data)? {
        Some(pending) => pending,
        None => {
            let generated = identity::generate();
            identity::store_pending(&config.data, &generated)?;
            generated
        }
    };
    let mut failures = 0;
    // What Control speaks decides the enroll body and whether its key is
    // pinned, so it is asked first.
    let announced = loop {
        match client.discover().await {
            Ok(announced) => break announced,
            Err(why) => {
                let wait = wait_before_retry(&why, failures);
                failures += 1;
                log_unavailable(&why, wait, "asking Control what it speaks");
                tokio::time::sleep(wait).await;
            }
        }
    };
    tracing::info!(extensions = %announced, "Control announced what it speaks");
    failures = 0;
    let pin = loop {
        match client
            .enroll(&fresh, &token, config.control_key.as_ref())
            .await
        {
            Ok(enrolled) if enrolled.agent_id == fresh.agent_id => break enrolled.control_key,
            Ok(enrolled) => {
                return Err(StartError::WrongAgentId {
                    expected: fresh.agent_id.to_string(),
                    answered: enrolled.agent_id.to_string(),
                })
            }
            Err(CallError::Refused { code, message, .. }) => {
                return Err(StartError::EnrollRefused { code, message })
            }
            Err(CallError::NotFromControl(why)) => {
                return Err(StartError::NotFromControl(why.to_string()))
            }
            Err(why) => {
                let wait = wait_before_retry(&why, failures);
                failures += 1;
                log_unavailable(&why, wait, "enrollment");
                tokio::time::sleep(wait).await;
            }
        }
    };
    identity::promote_pending(&config.data)?;
    identity::store_control_extensions(&config.data, client.speaks().announced())?;
    fresh.enrolled = true;
    // An Agent enrolled with the shared token waits for an admin's approval
    // in Control, who compares this fingerprint with the one Control shows.
    tracing::info!(agent_id = %fresh.agent_id, key = %fresh.key.public_key().fingerprint(), "Agent identity");
    match &pin {
        Some(key) => {
            identity::store_control_key(&config.data, key)?;
            tracing::info!(agent_id = %fresh.agent_id, control_key = %key.fingerprint(), "enrolled with Control; its key is pinned");
        }
        None => {
            tracing::warn!(agent_id = %fresh.agent_id, "enrolled with a Control that gave no key of its own: this Agent cannot tell it from a server pretending to be Control")
        }
    }
    fresh.control_key = pin;
    fresh.control_extensions = Some(client.speaks().announced());
    Ok(fresh)
}

/// Logs why a call to Control will be tried again after `wait`: loudly
/// when the answer took back an extension (see control_speaks).
pub(crate) fn log_unavailable(why: &CallError, wait: Duration, doing: &str) {
    let wait_ms = wait.as_millis() as u64;
    match why {
        CallError::Downgraded(_) => tracing::error!(%why, wait_ms, "{doing}: refused the answer"),
        _ => tracing::warn!(%why, wait_ms, "{doing}: Control unavailable; retrying"),
    }
}
