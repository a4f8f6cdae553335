//! What the Control at KNOTROUTE_CONTROL_URL speaks beyond version 1, as it
//! announces in `X-Knot-Extensions` on its answers (protocol::extensions).
//! The Agent sends a field, query parameter or endpoint of an extension only
//! once Control has announced it; a Control that announces nothing gets
//! exactly the version-1 shapes of PROTOCOL.md (the first Control refuses a
//! body with a field it does not know).
//!
//! Two extensions are guarantees: `nonce` (replays refused) and
//! `signed-answers` (answers signed by the pinned key). Once this Agent has
//! seen its Control announce them, or has pinned its key, it never drops
//! them on its own: an answer without them is refused, logged, and the
//! Agent waits. Otherwise anyone who can answer in Control's place could
//! strip replay protection by answering like an old Control. Falling back to
//! version 1 is only for a Control that never announced extensions to this
//! Agent.

use crate::identity::{self, Identity};
use protocol::extensions::{Extension, Extensions, HEADER_EXTENSIONS};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What a Control that once announced them may not take back.
pub const GUARANTEES: Extensions = Extensions::NONE
    .with(Extension::Nonce)
    .with(Extension::SignedAnswers);

/// An answer that takes back a guarantee this Agent holds its Control to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Control answered without announcing {missing} (X-Knot-Extensions: {announced}), which this Agent holds it to since it {since}. REFUSING to fall back to version 1: that would give up replay protection and Control's signatures. A server pretending to be Control, or a proxy dropping headers, may be in between. Nothing was sent in version-1 form; the Agent tries again. If Control was really replaced by a first-version Control, enroll this host again (delete agent-identity.json and start with an enrollment token)")]
pub struct Downgrade {
    pub missing: String,
    pub announced: String,
    pub since: &'static str,
}

struct State {
    /// What Control announced last: the shapes the Agent sends.
    announced: Extensions,
    /// The guarantees Control may not take back.
    held: Extensions,
    /// Why they are held, for the log.
    since: &'static str,
}

#[derive(Clone)]
pub struct ControlSpeaks {
    data: PathBuf,
    state: Arc<Mutex<State>>,
}

impl ControlSpeaks {
    /// Before anything was heard: what the stored identity recorded (none
    /// before the first enrollment). A pinned key, or one set in advance
    /// (KNOTROUTE_AGENT_CONTROL_KEY), holds Control to both guarantees: our
    /// Controls have given them together since they first signed answers.
    pub fn new(data: PathBuf, identity: Option<&Identity>, preset_key: bool) -> Self {
        let recorded = identity.and_then(|i| i.control_extensions);
        let pinned = preset_key || identity.is_some_and(|i| i.control_key.is_some());
        let (held, since) = if pinned {
            (GUARANTEES, "pinned Control's key")
        } else {
            (
                recorded.unwrap_or_default().intersection(GUARANTEES),
                "saw Control announce them",
            )
        };
        let announced = recorded.unwrap_or_default().union(held);
        Self {
            data,
            state: Arc::new(Mutex::new(State {
                announced,
                held,
                since,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("not poisoned")
    }

    /// Whether Control announced `extension`.
    pub fn has(&self, extension: Extension) -> bool {
        self.lock().announced.has(extension)
    }

    /// What Control announced last.
    pub fn announced(&self) -> Extensions {
        self.lock().announced
    }

    /// Takes in an answer's announcement. `None`: the answer carries no
    /// `X-Knot-Extensions` (a version-1 Control, or not Control at all).
    /// Refused when it lacks a guarantee this Agent holds Control to; then
    /// nothing changes.
    pub fn observe(&self, announced: Option<Extensions>) -> Result<(), Downgrade> {
        let announced = announced.unwrap_or_default();
        let mut state = self.lock();
        let missing = state.held.without(announced);
        if !missing.is_empty() {
            return Err(Downgrade {
                missing: missing.header_value(),
                announced: if announced.is_empty() {
                    "none".to_string()
                } else {
                    announced.header_value()
                },
                since: state.since,
            });
        }
        if state.announced != announced {
            tracing::info!(extensions = %announced, "Control announced what it speaks; this Agent uses exactly that");
            state.announced = announced;
            let gained = announced.intersection(GUARANTEES).without(state.held);
            if !gained.is_empty() {
                state.held = state.held.union(gained);
                state.since = "saw Control announce them";
            }
            // Only an enrolled Agent has a file to keep it in; enrollment
            // stores it with the identity.
            if identity::path(&self.data).exists() {
                if let Err(e) = identity::store_control_extensions(&self.data, announced) {
                    tracing::warn!(error = %e, "could not record Control's extensions on disk");
                }
            }
        }
        Ok(())
    }

    /// [`ControlSpeaks::observe`] on an answer's headers.
    pub fn observe_headers(&self, headers: &reqwest::header::HeaderMap) -> Result<(), Downgrade> {
        self.observe(announcement(headers))
    }
}

/// The extensions an answer announces, or `None` without the header.
pub fn announcement(headers: &reqwest::header::HeaderMap) -> Option<Extensions> {
    Extensions::from_header_values(
        headers
            .get_all(HEADER_EXTENSIONS)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::control_identity::ControlKey;

    fn ours() -> Option<Extensions> {
        Some(Extensions::all())
    }

    #[test]
    fn a_control_that_never_announced_gets_version_one_and_may_start_announcing() {
        let dir = tempfile::tempdir().unwrap();
        let speaks = ControlSpeaks::new(dir.path().to_path_buf(), None, false);
        assert_eq!(speaks.announced(), Extensions::NONE);
        assert_eq!(speaks.observe(None), Ok(()));
        assert!(!speaks.has(Extension::Nonce));
        // Upgraded to ours: from now on it is held to the guarantees.
        assert_eq!(speaks.observe(ours()), Ok(()));
        assert!(speaks.has(Extension::Nonce) && speaks.has(Extension::Progress));
        let refused = speaks.observe(None).unwrap_err();
        assert_eq!(refused.missing, "nonce, signed-answers");
        assert!(speaks.has(Extension::Nonce), "nothing changed");
        // Other extensions may come and go.
        assert_eq!(speaks.observe(Some(GUARANTEES)), Ok(()));
        assert!(!speaks.has(Extension::Progress));
    }

    #[test]
    fn a_pinned_or_preset_key_holds_control_to_the_guarantees_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let speaks = ControlSpeaks::new(dir.path().to_path_buf(), None, true);
        let refused = speaks.observe(None).unwrap_err();
        assert!(
            refused.to_string().contains("pinned Control's key"),
            "{refused}"
        );
        let refused = speaks
            .observe(Some(Extensions::NONE.with(Extension::Nonce)))
            .unwrap_err();
        assert_eq!(refused.missing, "signed-answers");

        let mut stored = identity::generate();
        stored.control_key = Some(ControlKey::from_seed([1; 32]).public_key());
        let speaks = ControlSpeaks::new(dir.path().to_path_buf(), Some(&stored), false);
        assert!(speaks.has(Extension::Nonce), "sends the nonce at once");
        assert!(speaks.observe(None).is_err());
    }

    #[test]
    fn what_control_announced_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        identity::store(dir.path(), &identity::generate()).unwrap();
        let speaks = ControlSpeaks::new(dir.path().to_path_buf(), None, false);
        speaks.observe(ours()).unwrap();
        let stored = identity::load(dir.path()).unwrap().unwrap();
        assert_eq!(stored.control_extensions, ours());
        let again = ControlSpeaks::new(dir.path().to_path_buf(), Some(&stored), false);
        assert_eq!(again.announced(), Extensions::all());
        assert!(
            again.observe(None).is_err(),
            "a look-alike without them is refused"
        );
    }
}
