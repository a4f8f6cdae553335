//! Identity backups (ours, beside PROTOCOL.md's job kinds): a sidecar's
//! `/data` volume holds the private identity its `.knot` address comes from,
//! and it never leaves the host. The Agent archives it on its own disk
//! (`backup_volume`), proves an archive restores to the same address
//! (`verify_backup`), and tells Control only what describes the archive
//! ([`BackupReport`]): never a byte of what is inside.

use crate::jobs::component_id;
use crate::validation::{FieldError, Problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The job kinds that only read a component (reconciliation ignores them).
pub const JOB_KINDS: [&str; 2] = ["backup_volume", "verify_backup"];

/// Archives kept per sidecar when the job does not say.
pub const KEEP_DEFAULT: u32 = 7;
pub const KEEP_MAX: u32 = 100;

/// How often Control backs a sidecar up after this backup (the plan is
/// what the last `backup_volume` job asked for; an Agent ignores it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BackupEvery {
    #[default]
    Day,
    Week,
    /// Only when asked.
    Never,
}

impl BackupEvery {
    pub const ALL: [BackupEvery; 3] = [BackupEvery::Day, BackupEvery::Week, BackupEvery::Never];

    pub fn slug(self) -> &'static str {
        match self {
            BackupEvery::Day => "day",
            BackupEvery::Week => "week",
            BackupEvery::Never => "never",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.slug() == slug)
    }

    /// The time between two scheduled backups, if any.
    pub fn hours(self) -> Option<i64> {
        match self {
            BackupEvery::Day => Some(24),
            BackupEvery::Week => Some(24 * 7),
            BackupEvery::Never => None,
        }
    }
}

/// `backup_volume`: archive the sidecar's `/data`, then keep the newest `keep`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BackupVolume {
    /// `sidecar-<name>`.
    pub component_id: String,
    /// How many archives stay on the host, newest first (1–100, default 7).
    pub keep: u32,
    /// Ours, for Control: how often to back it up from now on (`day`,
    /// `week` or `never`; default `day`).
    #[serde(default)]
    pub every: BackupEvery,
}

/// `verify_backup`: restore an archive into a scratch volume and check that
/// its identity gives the address it was taken with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifyBackup {
    /// `sidecar-<name>`.
    pub component_id: String,
    /// Which archive (as reported); the newest when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
}

/// What an Agent tells Control about one archive, in the job result's
/// `backup` field (sent only to a Control that announced `backups`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BackupReport {
    /// `sidecar-<name>`.
    pub component_id: String,
    /// The archive's file name on the host, e.g. `20261204T120000Z.tar`.
    pub archive: String,
    /// Where the Agent keeps it, for the operations policy.
    pub directory: String,
    pub size_bytes: u64,
    /// Lowercase hex SHA-256 of the archive file.
    pub sha256: String,
    /// RFC 3339 UTC, when the archive was taken.
    pub taken_at: String,
    /// The `.knot` address the identity in the archive gives.
    pub address: String,
    /// Set by `verify_backup` when a restore gave `address` again.
    #[serde(default)]
    pub verified: bool,
    /// Archives on the host for this sidecar after the job.
    #[serde(default)]
    pub kept: u32,
    /// Their names: Control forgets every other archive of this sidecar.
    #[serde(default)]
    pub kept_archives: Vec<String>,
}

/// A sidecar's latest backup or verification job, as the Services screen
/// shows it in the row: still to run, or ended without doing its work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BackupJob {
    pub id: crate::JobId,
    pub status: crate::JobStatus,
}

/// A sidecar's backups as Control knows them, for the Services screen and
/// the setup checklist.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BackupState {
    /// Archives on the host, as last reported.
    pub archives: u32,
    /// Where they are (the Agent's directory for this sidecar).
    pub directory: String,
    pub newest_archive: String,
    /// RFC 3339 UTC.
    pub newest_taken_at: String,
    /// The newest archive a restore proved, and when (RFC 3339 UTC).
    #[serde(default)]
    pub verified_archive: Option<String>,
    #[serde(default)]
    pub verified_at: Option<String>,
    /// The address the verified archive's identity announced.
    #[serde(default)]
    pub verified_address: Option<String>,
    /// Why the newest archive's last verification failed; empty otherwise.
    #[serde(default)]
    pub verify_error: String,
    /// The plan the newest archive was taken with: archives kept, how often.
    #[serde(default)]
    pub keep: u32,
    #[serde(default)]
    pub every: BackupEvery,
}

impl BackupState {
    /// A kept archive was restored and gave `address` again: the proof the
    /// checklist asks for.
    pub fn proves(&self, address: &str) -> bool {
        !address.is_empty() && self.verified_address.as_deref() == Some(address)
    }

    pub fn is_verified(&self) -> bool {
        self.verified_at.is_some()
    }
}

fn sidecar(payload: &Value) -> Result<String, FieldError> {
    let raw = match payload.get("component_id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        _ => return Err(FieldError::new("component_id", Problem::Required)),
    };
    let id = component_id(raw)?;
    if id.starts_with("sidecar-") {
        Ok(id)
    } else {
        Err(FieldError::new("component_id", Problem::BackupSidecarOnly))
    }
}

/// An archive name as the Agent makes them: `YYYYMMDDTHHMMSSZ[-n].tar`. The
/// rule is also what keeps a payload from naming a path outside the
/// sidecar's backup directory.
pub fn archive_name(input: &str) -> Result<String, FieldError> {
    let err = || FieldError::new("archive", Problem::InvalidArchive);
    let stem = input.trim().strip_suffix(".tar").ok_or_else(err)?;
    let stamp = match stem.split_once('-') {
        Some((stamp, n)) if (1..=4).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit()) => {
            stamp
        }
        Some(_) => return Err(err()),
        None => stem,
    };
    let b = stamp.as_bytes();
    let shaped = b.len() == 16
        && b[8] == b'T'
        && b[15] == b'Z'
        && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit);
    if shaped {
        Ok(input.trim().to_string())
    } else {
        Err(err())
    }
}

/// Sorts archive names by when they were taken: `…Z.tar` before `…Z-2.tar`
/// before `…Z-10.tar` (as text, `-10` would come before `-2`).
pub fn archive_order(name: &str) -> (String, u32) {
    let stem = name.trim_end_matches(".tar");
    match stem.split_once('-') {
        Some((stamp, n)) => (stamp.to_string(), n.parse().unwrap_or(0)),
        None => (stem.to_string(), 1),
    }
}

impl BackupVolume {
    pub fn parse(payload: &Value) -> Result<Self, FieldError> {
        let keep = match payload.get("keep") {
            None | Some(Value::Null) => KEEP_DEFAULT,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=u64::from(KEEP_MAX)).contains(n))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    FieldError::new(
                        "keep",
                        Problem::OutOfRange {
                            min: 1,
                            max: KEEP_MAX,
                        },
                    )
                })?,
        };
        let every = match payload.get("every") {
            None | Some(Value::Null) => BackupEvery::default(),
            Some(Value::String(s)) => BackupEvery::from_slug(s.trim())
                .ok_or_else(|| FieldError::new("every", Problem::BackupEvery))?,
            Some(_) => return Err(FieldError::new("every", Problem::BackupEvery)),
        };
        Ok(Self {
            component_id: sidecar(payload)?,
            keep,
            every,
        })
    }
}

impl VerifyBackup {
    pub fn parse(payload: &Value) -> Result<Self, FieldError> {
        let archive = match payload.get("archive") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(archive_name(s)?),
            Some(_) => return Err(FieldError::new("archive", Problem::InvalidArchive)),
        };
        Ok(Self {
            component_id: sidecar(payload)?,
            archive,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn archive_names_are_only_what_an_agent_makes() {
        for good in ["20261204T120000Z.tar", "20261204T120000Z-2.tar"] {
            assert_eq!(archive_name(good).as_deref(), Ok(good));
        }
        for hostile in [
            "../../etc/passwd",
            "20261204T120000Z.tar/../x",
            "/20261204T120000Z.tar",
            "20261204T120000Z",
            "2026120XT120000Z.tar",
            "20261204T120000Z-.tar",
            "20261204T120000Z-1/..tar",
            "20261204T120000Z.tar\0",
            "",
        ] {
            assert_eq!(
                archive_name(hostile).map_err(|e| e.problem),
                Err(Problem::InvalidArchive),
                "{hostile:?}"
            );
        }
    }

    #[test]
    fn archives_of_one_second_sort_by_their_counter() {
        let mut names = vec![
            "20261202T000000Z-10.tar",
            "20261203T000000Z.tar",
            "20261202T000000Z-2.tar",
            "20261202T000000Z.tar",
        ];
        names.sort_by_key(|n| archive_order(n));
        assert_eq!(
            names,
            [
                "20261202T000000Z.tar",
                "20261202T000000Z-2.tar",
                "20261202T000000Z-10.tar",
                "20261203T000000Z.tar"
            ]
        );
    }

    #[test]
    fn backups_are_for_sidecars_and_keep_a_bounded_number() {
        let ok = BackupVolume::parse(&json!({"component_id": "Sidecar-Web"})).unwrap();
        assert_eq!(
            (ok.component_id.as_str(), ok.keep),
            ("sidecar-web", KEEP_DEFAULT)
        );
        let refused = |p: Value| BackupVolume::parse(&p).unwrap_err();
        assert_eq!(
            refused(json!({"component_id": "beacon-edge"})).problem,
            Problem::BackupSidecarOnly
        );
        assert_eq!(refused(json!({})).field, "component_id");
        for keep in [json!(0), json!(101), json!(-1), json!("7"), json!(2.5)] {
            assert_eq!(
                refused(json!({"component_id": "sidecar-web", "keep": keep})).field,
                "keep"
            );
        }
        let verify =
            VerifyBackup::parse(&json!({"component_id": "sidecar-web", "archive": ""})).unwrap();
        assert_eq!(verify.archive, None, "empty means the newest");
        assert_eq!(
            VerifyBackup::parse(&json!({"component_id": "sidecar-web", "archive": "../x.tar"}))
                .unwrap_err()
                .field,
            "archive"
        );
    }
}
