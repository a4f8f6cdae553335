//! Which Control this Agent trusts (protocol::control_identity): the pinned
//! Control key, kept in agent-identity.json. Every answer the Agent acts on
//! (the enroll answer, a job, a heartbeat answer) must be signed by it; an
//! answer that is not is refused, logged loudly and reported in the next
//! heartbeats, so the real Control shows it once it is reached again.
//!
//! - No pin yet: the first signed answer pins its key (trust on first use),
//!   unless KNOTROUTE_AGENT_CONTROL_KEY pinned one in advance.
//! - A Control that signs nothing (the first Control) is worked with as
//!   before, and the log says once that it cannot be told from an impostor.
//! - A key move signed by the pinned key moves the pin (Control rotated).

use crate::identity;
use protocol::agent::RefusedAnswer;
use protocol::control_identity::{
    verify_answer, AnswerRefusal, AnswerScope, ControlPublicKey, KeyMove, HEADER_CONTROL_KEY_MOVE,
    HEADER_CONTROL_SIGNATURE, HEADER_CONTROL_TIMESTAMP,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Refusals waiting to be reported; older ones beyond this are dropped (the
/// count Control shows is then a lower bound).
const MAX_PENDING: usize = 20;
/// Where refusals wait for a heartbeat that reaches the real Control, so a
/// restart does not lose the evidence.
pub const REFUSALS_FILE: &str = "control-refusals.json";

struct State {
    pinned: Option<ControlPublicKey>,
    pending: Vec<RefusedAnswer>,
    warned_unsigned: bool,
}

#[derive(Clone)]
pub struct ControlPin {
    data: PathBuf,
    state: Arc<Mutex<State>>,
}

/// The signature headers of an answer, as received.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnswerHeaders<'a> {
    pub signature: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub key_move: Option<&'a str>,
}

impl<'a> AnswerHeaders<'a> {
    pub fn of(headers: &'a reqwest::header::HeaderMap) -> Self {
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        Self {
            signature: get(HEADER_CONTROL_SIGNATURE),
            timestamp: get(HEADER_CONTROL_TIMESTAMP),
            key_move: get(HEADER_CONTROL_KEY_MOVE),
        }
    }
}

/// Unix seconds by this host's clock.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The key of the first entry of a signature header, if that entry really
/// signed this answer: what trust on first use pins.
fn self_signed_key(
    headers: &AnswerHeaders,
    scope: &AnswerScope,
    body: &[u8],
) -> Option<ControlPublicKey> {
    let entries = protocol::control_identity::parse_signatures(headers.signature?).ok()?;
    let (key, _) = entries.first()?;
    verify_answer(
        key,
        headers.signature,
        headers.timestamp,
        now(),
        scope,
        body,
    )
    .ok()?;
    Some(key.clone())
}

impl ControlPin {
    /// Starts from the stored identity. A key pinned in advance
    /// (`preset`, from KNOTROUTE_AGENT_CONTROL_KEY) is taken when the file
    /// has none; when the file has another one, the file wins: it may have
    /// moved through a rotation since the install snippet was written.
    pub fn new(
        data: PathBuf,
        stored: Option<ControlPublicKey>,
        preset: Option<ControlPublicKey>,
    ) -> Self {
        let mut pinned = stored.clone();
        match (&stored, preset) {
            (None, Some(preset)) => {
                tracing::info!(fingerprint = %preset.fingerprint(), "pinning the Control key from KNOTROUTE_AGENT_CONTROL_KEY");
                if let Err(e) = identity::store_control_key(&data, &preset) {
                    tracing::error!(error = %e, "could not store the Control pin; it holds until the Agent restarts");
                }
                pinned = Some(preset);
            }
            (Some(stored), Some(preset)) if *stored != preset => {
                tracing::warn!(
                    pinned = %stored.fingerprint(),
                    ignored = %preset.fingerprint(),
                    "KNOTROUTE_AGENT_CONTROL_KEY differs from the key pinned in agent-identity.json (moved by a rotation?); the pinned key is used"
                );
            }
            _ => {}
        }
        let pending = std::fs::read(data.join(REFUSALS_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Self {
            data,
            state: Arc::new(Mutex::new(State {
                pinned,
                pending,
                warned_unsigned: false,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("not poisoned")
    }

    /// The pinned key in its wire form, for heartbeats.
    pub fn pinned(&self) -> Option<String> {
        self.lock().pinned.as_ref().map(|k| k.to_wire())
    }

    /// Whether to act on an answer. `job_kind` names the job it offers, for
    /// the report. A refusal is already logged and queued for reporting.
    pub fn check(
        &self,
        scope: &AnswerScope,
        headers: &AnswerHeaders,
        body: &[u8],
        job_kind: &str,
    ) -> Result<(), AnswerRefusal> {
        let mut state = self.lock();
        let Some(pinned) = state.pinned.clone() else {
            match self_signed_key(headers, scope, body) {
                Some(key) => {
                    tracing::warn!(fingerprint = %key.fingerprint(), "pinned Control's key (trust on first use): answers signed by any other key are refused from now on");
                    self.store(&key);
                    state.pinned = Some(key);
                }
                None if !state.warned_unsigned => {
                    state.warned_unsigned = true;
                    tracing::warn!("Control signs nothing (a first-version Control): this Agent cannot tell it from a server pretending to be Control. Upgrade Control, or set KNOTROUTE_AGENT_CONTROL_KEY");
                }
                None => {}
            }
            return Ok(());
        };
        if let Err(refusal) = verify_answer(
            &pinned,
            headers.signature,
            headers.timestamp,
            now(),
            scope,
            body,
        ) {
            tracing::error!(
                path = scope.path,
                job_kind,
                reason = refusal.code(),
                "REFUSED an answer not signed by the pinned Control key: {refusal}. Nothing was run. A server pretending to be Control, or a proxy changing answers, is between this Agent and Control. If Control's key was rotated while this Agent was offline, re-pin it (handbook, Operations: Re-pinning an Agent)"
            );
            state.pending.push(RefusedAnswer {
                at: now(),
                path: scope.path.to_string(),
                reason: refusal.code().to_string(),
                detail: refusal.to_string(),
                job_kind: job_kind.chars().take(40).collect(),
                signed_by: match &refusal {
                    AnswerRefusal::OtherKey { signed_by, .. } => signed_by.clone(),
                    _ => Vec::new(),
                },
            });
            let excess = state.pending.len().saturating_sub(MAX_PENDING);
            state.pending.drain(..excess);
            self.store_refusals(&state);
            return Err(refusal);
        }
        if let Some(moved) = headers.key_move.and_then(KeyMove::verified) {
            if moved.from == pinned {
                tracing::warn!(from = %moved.from.fingerprint(), to = %moved.to.fingerprint(), "Control rotated its key: the pin moves to the new key");
                self.store(&moved.to);
                state.pinned = Some(moved.to);
            }
        }
        Ok(())
    }

    /// The refusals to report in the next heartbeat.
    pub fn refusals(&self) -> Vec<RefusedAnswer> {
        self.lock().pending.clone()
    }

    /// A heartbeat carrying the first `reported` refusals got an answer
    /// signed by the pinned key: the real Control has them.
    pub fn reported(&self, reported: usize) {
        if reported == 0 {
            return;
        }
        let mut state = self.lock();
        let n = reported.min(state.pending.len());
        state.pending.drain(..n);
        self.store_refusals(&state);
    }

    fn store(&self, key: &ControlPublicKey) {
        if let Err(e) = identity::store_control_key(&self.data, key) {
            tracing::error!(error = %e, "could not store the Control pin; it holds until the Agent restarts");
        }
    }

    fn store_refusals(&self, state: &State) {
        let body = serde_json::to_vec(&state.pending).expect("serialises");
        if let Err(e) = crate::private_file::write_atomically(&self.data.join(REFUSALS_FILE), &body)
        {
            tracing::warn!(error = %e, "could not keep the refused answers on disk");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::control_identity::ControlKey;

    fn scope() -> AnswerScope<'static> {
        AnswerScope {
            path: "/api/v1/agents/jobs/next",
            agent_id: "ka_a",
            nonce: "n",
        }
    }

    fn signed(key: &ControlKey, body: &[u8]) -> (String, String) {
        let ts = now().to_string();
        (key.sign_answer(&scope(), &ts, body), ts)
    }

    fn pin_with(dir: &std::path::Path, key: Option<ControlPublicKey>) -> ControlPin {
        identity::store(dir, &identity::generate()).unwrap();
        let stored = identity::load(dir).unwrap().unwrap().control_key;
        ControlPin::new(dir.to_path_buf(), stored, key)
    }

    #[test]
    fn the_first_signed_answer_pins_its_key_and_others_are_refused_after() {
        let dir = tempfile::tempdir().unwrap();
        let pin = pin_with(dir.path(), None);
        // Unsigned (a first-version Control): acted on, nothing pinned.
        assert_eq!(
            pin.check(&scope(), &AnswerHeaders::default(), b"{}", ""),
            Ok(())
        );
        assert_eq!(pin.pinned(), None);
        let control = ControlKey::from_seed([1; 32]);
        let (sig, ts) = signed(&control, b"{}");
        let h = AnswerHeaders {
            signature: Some(&sig),
            timestamp: Some(&ts),
            key_move: None,
        };
        assert_eq!(pin.check(&scope(), &h, b"{}", ""), Ok(()));
        assert_eq!(pin.pinned(), Some(control.public_key().to_wire()));
        // Kept in the identity file, so a restart keeps it.
        let stored = identity::load(dir.path()).unwrap().unwrap();
        assert_eq!(stored.control_key, Some(control.public_key()));
        // Now an unsigned answer and one by another key are refused and queued.
        let impostor = ControlKey::from_seed([2; 32]);
        let (their, ts2) = signed(&impostor, b"{}");
        assert_eq!(
            pin.check(&scope(), &AnswerHeaders::default(), b"{}", "deploy_beacon"),
            Err(AnswerRefusal::Unsigned)
        );
        let other = AnswerHeaders {
            signature: Some(&their),
            timestamp: Some(&ts2),
            key_move: None,
        };
        assert!(matches!(
            pin.check(&scope(), &other, b"{}", "deploy_sidecar"),
            Err(AnswerRefusal::OtherKey { .. })
        ));
        let queued = pin.refusals();
        assert_eq!(queued.len(), 2);
        assert_eq!(queued[0].job_kind, "deploy_beacon");
        assert_eq!(queued[1].reason, "other_key");
        // They survive a restart until reported.
        let again = ControlPin::new(
            dir.path().to_path_buf(),
            identity::load(dir.path()).unwrap().unwrap().control_key,
            None,
        );
        assert_eq!(again.refusals().len(), 2);
        again.reported(1);
        assert_eq!(again.refusals().len(), 1);
    }

    #[test]
    fn a_key_move_signed_by_the_pinned_key_moves_the_pin_and_no_other_does() {
        let dir = tempfile::tempdir().unwrap();
        let old = ControlKey::from_seed([3; 32]);
        let new = ControlKey::from_seed([4; 32]);
        let pin = pin_with(dir.path(), Some(old.public_key()));
        let (sig, ts) = signed(&old, b"{}");
        // A move endorsed by some other key is ignored.
        let stranger = ControlKey::from_seed([5; 32]).endorse(&new.public_key());
        let h = AnswerHeaders {
            signature: Some(&sig),
            timestamp: Some(&ts),
            key_move: Some(&stranger),
        };
        assert_eq!(pin.check(&scope(), &h, b"{}", ""), Ok(()));
        assert_eq!(pin.pinned(), Some(old.public_key().to_wire()));
        let endorsed = old.endorse(&new.public_key());
        let h = AnswerHeaders {
            key_move: Some(&endorsed),
            ..h
        };
        assert_eq!(pin.check(&scope(), &h, b"{}", ""), Ok(()));
        assert_eq!(pin.pinned(), Some(new.public_key().to_wire()));
        assert_eq!(
            identity::load(dir.path()).unwrap().unwrap().control_key,
            Some(new.public_key())
        );
    }

    #[test]
    fn a_preset_key_pins_an_unpinned_identity_but_not_over_a_moved_pin() {
        let dir = tempfile::tempdir().unwrap();
        let a = ControlKey::from_seed([6; 32]).public_key();
        let b = ControlKey::from_seed([7; 32]).public_key();
        let pin = pin_with(dir.path(), Some(a.clone()));
        assert_eq!(pin.pinned(), Some(a.to_wire()));
        let again = ControlPin::new(
            dir.path().to_path_buf(),
            identity::load(dir.path()).unwrap().unwrap().control_key,
            Some(b),
        );
        assert_eq!(again.pinned(), Some(a.to_wire()));
    }
}
