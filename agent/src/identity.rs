//! `<data>/agent-identity.json` (PROTOCOL.md): the keypair and the Agent ID,
//! mode 0600, written atomically. Losing it means a new identity and a new
//! enrollment, so it is only ever created when absent.

use protocol::control_identity::ControlPublicKey;
use protocol::extensions::Extensions;
use protocol::signing::AgentKey;
use protocol::AgentId;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "agent-identity.json";
/// A key offered to Control but not yet confirmed: kept so that a restart
/// during enrollment repeats it (Control accepts the same key again) instead
/// of spending a one-time token on a key that is then lost.
pub const PENDING_FILE_NAME: &str = ".agent-identity.pending.json";

#[derive(Serialize, Deserialize)]
struct IdentityFile {
    private_key: String,
    agent_id: String,
    /// Ours: the Control key this Agent trusts (protocol::control_identity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    control_key: Option<String>,
    /// Ours: the extensions Control last announced (protocol::extensions),
    /// so that a restart keeps to them (crate::control_speaks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    control_extensions: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} is not a valid identity file ({reason}); restore it from a backup, or delete it to enroll as a new Agent")]
    Malformed { path: String, reason: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

/// The Agent's key and ID.
pub struct Identity {
    pub key: AgentKey,
    pub agent_id: AgentId,
    /// Whether Control has confirmed this identity (it has an `agent_id` on disk).
    pub enrolled: bool,
    /// The Control key pinned when the identity was stored; `crate::control_pin`
    /// keeps the live one.
    pub control_key: Option<ControlPublicKey>,
    /// What Control announced when the identity was stored (`None`: never
    /// recorded); `crate::control_speaks` keeps the live set.
    pub control_extensions: Option<Extensions>,
}

pub fn path(data: &Path) -> PathBuf {
    data.join(FILE_NAME)
}

/// Reads the stored identity, if there is one.
pub fn load(data: &Path) -> Result<Option<Identity>, IdentityError> {
    read(&path(data), true)
}

/// Reads a key offered to Control before a restart, if there is one.
pub fn load_pending(data: &Path) -> Result<Option<Identity>, IdentityError> {
    read(&data.join(PENDING_FILE_NAME), false)
}

fn read(file: &Path, enrolled: bool) -> Result<Option<Identity>, IdentityError> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(IdentityError::Read {
                path: file.display().to_string(),
                reason: e.to_string(),
            })
        }
    };
    let malformed = |reason: &str| IdentityError::Malformed {
        path: file.display().to_string(),
        reason: reason.to_string(),
    };
    let stored: IdentityFile =
        serde_json::from_str(&text).map_err(|e| malformed(&e.to_string()))?;
    let key = AgentKey::from_identity(&stored.private_key)
        .map_err(|_| malformed("private_key is not a base64 Ed25519 keypair"))?;
    let agent_id = key.public_key().agent_id();
    if stored.agent_id != agent_id.as_str() {
        return Err(malformed("agent_id does not belong to private_key"));
    }
    let control_key = stored
        .control_key
        .as_deref()
        .map(ControlPublicKey::parse)
        .transpose()
        .map_err(|_| malformed("control_key is not a Control public key"))?;
    Ok(Some(Identity {
        key,
        agent_id,
        enrolled,
        control_key,
        control_extensions: stored.control_extensions.as_deref().map(Extensions::parse),
    }))
}

/// A fresh keypair, not yet enrolled (nothing is written until Control accepts it).
pub fn generate() -> Identity {
    let mut seed = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut seed);
    let key = AgentKey::from_seed(seed);
    let agent_id = key.public_key().agent_id();
    Identity {
        key,
        agent_id,
        enrolled: false,
        control_key: None,
        control_extensions: None,
    }
}

/// Writes the identity atomically (temporary file, fsync, rename) with mode 0600.
pub fn store(data: &Path, identity: &Identity) -> Result<(), IdentityError> {
    write_atomically(&path(data), identity)
}

/// Pins `key` in the stored identity file (the rest unchanged).
pub fn store_control_key(data: &Path, key: &ControlPublicKey) -> Result<(), IdentityError> {
    let file = path(data);
    let mut identity = load(data)?.ok_or_else(|| IdentityError::Write {
        path: file.display().to_string(),
        reason: "no identity is stored to pin the Control key in".into(),
    })?;
    identity.control_key = Some(key.clone());
    store(data, &identity)
}

/// Records what Control announced in the stored identity file (the rest unchanged).
pub fn store_control_extensions(data: &Path, announced: Extensions) -> Result<(), IdentityError> {
    let file = path(data);
    let mut identity = load(data)?.ok_or_else(|| IdentityError::Write {
        path: file.display().to_string(),
        reason: "no identity is stored to record Control's extensions in".into(),
    })?;
    identity.control_extensions = Some(announced);
    store(data, &identity)
}

/// Keeps a key about to be offered to Control (see [`PENDING_FILE_NAME`]).
pub fn store_pending(data: &Path, identity: &Identity) -> Result<(), IdentityError> {
    write_atomically(&data.join(PENDING_FILE_NAME), identity)
}

/// Control accepted the pending key: it becomes the identity.
pub fn promote_pending(data: &Path) -> Result<(), IdentityError> {
    let file = path(data);
    std::fs::rename(data.join(PENDING_FILE_NAME), &file).map_err(|e| IdentityError::Write {
        path: file.display().to_string(),
        reason: e.to_string(),
    })?;
    crate::private_file::sync_dir(data);
    Ok(())
}

fn write_atomically(file: &Path, identity: &Identity) -> Result<(), IdentityError> {
    let body = serde_json::to_string_pretty(&IdentityFile {
        private_key: identity.key.to_identity(),
        agent_id: identity.agent_id.to_string(),
        control_key: identity.control_key.as_ref().map(ControlPublicKey::to_wire),
        control_extensions: identity.control_extensions.map(Extensions::header_value),
    })
    .expect("strings serialise");
    crate::private_file::write_atomically(file, body.as_bytes()).map_err(|e| IdentityError::Write {
        path: file.display().to_string(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_survives_a_round_trip_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_none());
        let fresh = generate();
        store(dir.path(), &fresh).unwrap();
        let loaded = load(dir.path()).unwrap().unwrap();
        assert_eq!(loaded.agent_id, fresh.agent_id);
        assert!(loaded.enrolled);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_identity_is_never_written_through_a_file_someone_left_beside_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "not yours").unwrap();
        // The temporary names store() and store_pending() write first.
        std::os::unix::fs::symlink(&victim, dir.path().join(".agent-identity.json.tmp")).unwrap();
        let stale = dir.path().join("..agent-identity.pending.json.tmp");
        std::fs::write(&stale, "left over").unwrap();
        std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o644)).unwrap();
        store(dir.path(), &generate()).unwrap();
        store_pending(dir.path(), &generate()).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not yours");
        for written in [path(dir.path()), dir.path().join(PENDING_FILE_NAME)] {
            let mode = std::fs::symlink_metadata(&written)
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{}", written.display());
        }
    }

    #[test]
    fn a_file_in_the_documented_format_is_read() {
        // Written the way another implementation would, from the independently
        // generated test vectors (protocol/test-vectors/agent-v1.json).
        let vectors: serde_json::Value =
            serde_json::from_str(include_str!("../../protocol/test-vectors/agent-v1.json"))
                .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "{{\"private_key\": \"{}\", \"agent_id\": \"{}\"}}",
            vectors["identity_private_key"].as_str().unwrap(),
            vectors["agent_id"].as_str().unwrap()
        );
        std::fs::write(path(dir.path()), text).unwrap();
        let loaded = load(dir.path()).unwrap().unwrap();
        assert_eq!(loaded.agent_id.as_str(), vectors["agent_id"]);
        let key = loaded.key;
        // A file whose agent_id does not match its key is refused, saying so.
        std::fs::write(
            path(dir.path()),
            format!(
                "{{\"private_key\": \"{}\", \"agent_id\": \"ka_other\"}}",
                key.to_identity()
            ),
        )
        .unwrap();
        let refused = load(dir.path()).err().unwrap().to_string();
        assert!(refused.contains("does not belong"), "{refused}");
    }

    #[test]
    fn a_key_offered_before_a_restart_is_offered_again() {
        let dir = tempfile::tempdir().unwrap();
        let offered = generate();
        store_pending(dir.path(), &offered).unwrap();
        assert!(
            load(dir.path()).unwrap().is_none(),
            "not an identity until Control accepts it"
        );
        let again = load_pending(dir.path()).unwrap().unwrap();
        assert_eq!(again.agent_id, offered.agent_id);
        assert!(!again.enrolled);
        promote_pending(dir.path()).unwrap();
        assert_eq!(
            load(dir.path()).unwrap().unwrap().agent_id,
            offered.agent_id
        );
        assert!(load_pending(dir.path()).unwrap().is_none());
    }
}
