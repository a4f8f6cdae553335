//! Identity backups on this host (`protocol::backups`). A sidecar's `/data`
//! holds the private identity its `.knot` address comes from, so its archive
//! stays here, under `<data>/backups/<component>/` (directory 0700, files
//! 0600), and Control hears only its name, size, hash, time and address.
//!
//! `docker cp` reads and writes the volume through the engine, so no helper
//! image is needed (none could be pulled on an offline host). A restore is
//! proved by starting the sidecar's own image on a scratch volume, without a
//! network, and reading the address it announces.

use super::{Transcript, Workloads};
use crate::docker::{FileSide, QUICK_TIMEOUT, UP_TIMEOUT};
use crate::inventory::{self, Inspected};
use protocol::backups::{archive_name, archive_order, BackupReport, BackupVolume, VerifyBackup};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a restored identity has to announce its address.
const ANNOUNCE_WAIT: Duration = Duration::from_secs(30);

/// Beside each archive, `<archive>.json`: what it was taken from. Never key
/// material; the image and settings let a verify run where the sidecar is gone.
#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    component_id: String,
    archive: String,
    size_bytes: u64,
    sha256: String,
    taken_at: String,
    address: String,
    image: String,
    /// The sidecar's `KNOTROUTE_*` settings (network, Beacons, name, target).
    settings: Vec<String>,
}

impl Workloads {
    /// `<data>/backups/<component_id>`.
    pub fn backup_dir(&self, component_id: &str) -> PathBuf {
        self.backups.join(component_id)
    }

    pub(super) async fn backup(
        &self,
        job: &BackupVolume,
        transcript: &mut Transcript<'_>,
    ) -> Result<(String, BackupReport), String> {
        let id = &job.component_id;
        transcript.stage("find")?;
        let container = self.one_container(id).await?.ok_or_else(|| {
            format!("{id} has no container on this host: deploy it before backing it up")
        })?;
        let address = self.announced_address(&container).await.ok_or_else(|| {
            format!(
                "{id} has not announced its .knot address (is it running?): a backup is taken once the address is known, so that a restore can be checked against it"
            )
        })?;
        let dir = self.backup_dir(id);
        private_dir(&dir)?;
        remove_partials(&dir);
        let taken = chrono::Utc::now();
        let name = free_archive_name(&dir, taken);
        transcript.stage("archive")?;
        let partial = dir.join(format!("{name}.partial"));
        let file = crate::private_file::create_new_private(&partial)
            .map_err(|e| format!("cannot create {}: {e}", partial.display()))?;
        let source = format!("{}:/data", container.id);
        let copied = self
            .docker
            .docker_with_file(
                &["cp", &source, "-"],
                FileSide::Output(file),
                UP_TIMEOUT,
                transcript.journal,
            )
            .await
            .map_err(|e| e.to_string());
        let copied = match copied {
            Ok(out) if out.success => out,
            Ok(out) => {
                let _ = std::fs::remove_file(&partial);
                return Err(format!("`{}` failed: {}", out.command, out.text.trim()));
            }
            Err(why) => {
                let _ = std::fs::remove_file(&partial);
                return Err(why);
            }
        };
        transcript.add(&copied);
        let archive = dir.join(&name);
        std::fs::rename(&partial, &archive)
            .map_err(|e| format!("cannot keep {}: {e}", archive.display()))?;
        let (size_bytes, sha256) = hash_file(&archive)?;
        let manifest = Manifest {
            component_id: id.clone(),
            archive: name.clone(),
            size_bytes,
            sha256,
            taken_at: taken.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            address,
            image: container.config.image.clone(),
            settings: sidecar_settings(&container),
        };
        let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serialises");
        crate::private_file::write_atomically(&manifest_path(&dir, &name), &json)
            .map_err(|e| format!("cannot write the manifest of {name}: {e}"))?;
        transcript.stage("prune")?;
        let kept = prune(&dir, job.keep)?;
        let report = describe(&dir, &manifest, false, kept);
        Ok((
            format!(
                "backed up {id}'s /data to {}: {} bytes, SHA-256 {}, identity of {}; {} archive(s) kept",
                archive.display(),
                report.size_bytes,
                report.sha256,
                report.address,
                report.kept
            ),
            report,
        ))
    }

    /// Restores an archive into a scratch volume and checks the address its
    /// identity announces. A damaged archive fails before anything runs.
    pub(super) async fn verify_backup(
        &self,
        job: &VerifyBackup,
        transcript: &mut Transcript<'_>,
    ) -> Result<(String, BackupReport), String> {
        let id = &job.component_id;
        let dir = self.backup_dir(id);
        transcript.stage("check archive")?;
        let name = match &job.archive {
            Some(name) => name.clone(),
            None => archives(&dir)?.pop().ok_or_else(|| {
                format!("{id} has no backup on this host: run backup_volume first")
            })?,
        };
        let manifest: Manifest = std::fs::read(manifest_path(&dir, &name))
            .map_err(|e| {
                format!(
                    "{name} of {id} is not on this host ({e}): choose one the backup list shows"
                )
            })
            .and_then(|bytes| {
                serde_json::from_slice(&bytes).map_err(|e| {
                    format!("the manifest of {name} is damaged ({e}): take a new backup")
                })
            })?;
        let (size, sha256) = hash_file(&dir.join(&name))?;
        if sha256 != manifest.sha256 || size != manifest.size_bytes {
            return Err(format!(
                "{name} is damaged: its SHA-256 is {sha256} ({size} bytes), but was {} ({} bytes) when taken; do not restore it, take a new backup",
                manifest.sha256, manifest.size_bytes
            ));
        }
        transcript.note(format!("{name}: SHA-256 {sha256} as when taken"));
        let found = self
            .restored_address(&manifest, &dir, &name, transcript)
            .await?;
        let kept = archives(&dir)?;
        if found != manifest.address {
            return Err(format!(
                "{name} restores to {found}, not {}: the identity in it is not the one backed up; take a new backup",
                manifest.address
            ));
        }
        let report = describe(&dir, &manifest, true, kept);
        Ok((
            format!("verified {name} of {id}: restored into a scratch volume, it announces {found} as when taken; the scratch volume is removed"),
            report,
        ))
    }

    /// Starts the sidecar's image, offline, on a scratch volume holding the
    /// archive `name`, and returns the address it announces. Both go
    /// afterwards, whatever happened ([`ScratchGuard`]).
    async fn restored_address(
        &self,
        manifest: &Manifest,
        dir: &Path,
        name: &str,
        transcript: &mut Transcript<'_>,
    ) -> Result<String, String> {
        transcript.stage("restore")?;
        self.remove_scratch_left_by_earlier_runs(&manifest.component_id)
            .await;
        let mut random = [0u8; 6];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut random);
        let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let scratch = format!("{}{suffix}", scratch_prefix(&manifest.component_id));
        // Whatever ends this job (an error, a cancel, the job's deadline
        // dropping it), the scratch container and volume, which hold a copy
        // of the identity, go.
        let _guard = ScratchGuard(scratch.clone());
        let volume = format!("{scratch}:/data");
        let mut create = vec![
            "create",
            "--name",
            &scratch,
            "--network",
            "none",
            "-v",
            &volume,
        ];
        for setting in &manifest.settings {
            create.extend(["-e", setting.as_str()]);
        }
        create.push(manifest.image.as_str());
        let created = self.docker_checked(&create, transcript).await?;
        let container = created.stdout.trim().to_string();
        let archive =
            std::fs::File::open(dir.join(name)).map_err(|e| format!("cannot read {name}: {e}"))?;
        let target = format!("{container}:/");
        let restored = self
            .docker
            .docker_with_file(
                &["cp", "-", &target],
                FileSide::Input(archive),
                UP_TIMEOUT,
                transcript.journal,
            )
            .await
            .map_err(|e| e.to_string())?;
        transcript.add(&restored);
        if !restored.success {
            return Err(format!(
                "`{}` failed: {}",
                restored.command,
                restored.text.trim()
            ));
        }
        transcript.stage("announce")?;
        self.docker_checked(&["start", &container], transcript)
            .await?;
        self.announcement(&container, transcript.journal).await
    }

    /// Scratch containers and volumes of this sidecar that a killed Agent
    /// left (its guard never ran).
    async fn remove_scratch_left_by_earlier_runs(&self, component_id: &str) {
        let name = format!("name={}", scratch_prefix(component_id));
        for (list, remove) in [
            (vec!["ps", "-aq", "--filter", &name], vec!["rm", "-f", "-v"]),
            (
                vec!["volume", "ls", "-q", "--filter", &name],
                vec!["volume", "rm", "-f"],
            ),
        ] {
            let Ok(found) = self.docker.docker(&list, QUICK_TIMEOUT).await else {
                continue;
            };
            let ids: Vec<&str> = found.stdout.split_whitespace().collect();
            if !ids.is_empty() {
                let _ = self
                    .docker
                    .docker(&[remove, ids].concat(), QUICK_TIMEOUT)
                    .await;
            }
        }
    }

    async fn docker_checked(
        &self,
        args: &[&str],
        transcript: &mut Transcript<'_>,
    ) -> Result<crate::docker::Output, String> {
        let out = self
            .docker
            .docker_live(args, UP_TIMEOUT, transcript.journal)
            .await
            .map_err(|e| e.to_string())?;
        transcript.add(&out);
        if out.success {
            Ok(out)
        } else {
            Err(format!("`{}` failed", out.command))
        }
    }

    async fn announcement(
        &self,
        container: &str,
        journal: &crate::progress::Journal,
    ) -> Result<String, String> {
        let deadline = Instant::now() + ANNOUNCE_WAIT;
        loop {
            journal.go_on()?;
            if let Ok(logs) = self
                .docker
                .docker(
                    &["logs", "--tail", super::ANNOUNCE_TAIL, container],
                    QUICK_TIMEOUT,
                )
                .await
            {
                if let Some(address) = inventory::knot_address(&logs.text) {
                    return Ok(address);
                }
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the restored identity announced no .knot address within {} s",
                    ANNOUNCE_WAIT.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
}

/// What Control is told of an archive, and of the archives still kept.
fn describe(dir: &Path, m: &Manifest, verified: bool, kept: Vec<String>) -> BackupReport {
    BackupReport {
        component_id: m.component_id.clone(),
        archive: m.archive.clone(),
        directory: dir.display().to_string(),
        size_bytes: m.size_bytes,
        sha256: m.sha256.clone(),
        taken_at: m.taken_at.clone(),
        address: m.address.clone(),
        verified,
        kept: kept.len() as u32,
        kept_archives: kept,
    }
}

/// Scratch containers and volumes of a sidecar's verifications are named so.
fn scratch_prefix(component_id: &str) -> String {
    format!("kr-verify-{component_id}-")
}

/// Removes a scratch container and volume when dropped, on every path out of
/// a verification (blocking, briefly: it must also run when the job's
/// future is dropped mid-way).
struct ScratchGuard(String);

impl Drop for ScratchGuard {
    fn drop(&mut self) {
        for args in [
            vec!["rm", "-f", "-v", self.0.as_str()],
            vec!["volume", "rm", "-f", self.0.as_str()],
        ] {
            let _ = std::process::Command::new("docker")
                .args(&args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

/// Archives a stopped backup left half-written (they hold the identity too).
fn remove_partials(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".partial") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

fn manifest_path(dir: &Path, archive: &str) -> PathBuf {
    dir.join(format!("{archive}.json"))
}

/// The settings a restored sidecar needs to start, without what Docker adds.
fn sidecar_settings(container: &Inspected) -> Vec<String> {
    container
        .config
        .env
        .iter()
        .flatten()
        .filter(|pair| pair.starts_with("KNOTROUTE_"))
        .cloned()
        .collect()
}

fn private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// `YYYYMMDDTHHMMSSZ.tar`, or `…-2.tar` and on when one was taken that second.
fn free_archive_name(dir: &Path, at: chrono::DateTime<chrono::Utc>) -> String {
    let stamp = at.format("%Y%m%dT%H%M%SZ").to_string();
    let mut name = format!("{stamp}.tar");
    let mut n = 1;
    while dir.join(&name).exists() {
        n += 1;
        name = format!("{stamp}-{n}.tar");
    }
    name
}

/// The archives in `dir`, oldest first (their names sort by time).
fn archives(dir: &Path) -> Result<Vec<String>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot list {}: {e}", dir.display())),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| archive_name(name).is_ok())
        .collect();
    names.sort_by_key(|name| archive_order(name));
    Ok(names)
}

/// Deletes all but the newest `keep` archives and their manifests; the
/// archives kept.
fn prune(dir: &Path, keep: u32) -> Result<Vec<String>, String> {
    let all = archives(dir)?;
    let surplus = all.len().saturating_sub(keep as usize);
    for old in &all[..surplus] {
        for path in [dir.join(old), manifest_path(dir, old)] {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!("cannot delete {}: {e}", path.display()))
                }
                _ => {}
            }
        }
    }
    Ok(all[surplus..].to_vec())
}

/// Size and lowercase hex SHA-256 of a file.
fn hash_file(path: &Path) -> Result<(u64, String), String> {
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buffer[..n]);
    }
    Ok((size, format!("{:x}", hasher.finalize())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_archives_are_kept_and_the_rest_deleted_with_their_manifests() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "20261201T000000Z.tar",
            "20261202T000000Z.tar",
            "20261202T000000Z-2.tar",
            "20261202T000000Z-10.tar",
            "20261203T000000Z.tar",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), b"x").unwrap();
            std::fs::write(manifest_path(dir.path(), name), b"{}").unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), b"not ours").unwrap();
        std::fs::write(dir.path().join("20261204T000000Z.tar.partial"), b"x").unwrap();
        remove_partials(dir.path());
        assert!(!dir.path().join("20261204T000000Z.tar.partial").exists());
        assert_eq!(archives(dir.path()).unwrap(), names.to_vec(), "by time");
        assert_eq!(
            prune(dir.path(), 2).unwrap(),
            vec!["20261202T000000Z-10.tar", "20261203T000000Z.tar"]
        );
        assert_eq!(
            archives(dir.path()).unwrap(),
            vec!["20261202T000000Z-10.tar", "20261203T000000Z.tar"]
        );
        assert!(!manifest_path(dir.path(), "20261201T000000Z.tar").exists());
        assert!(dir.path().join("notes.txt").exists(), "only archives go");
        let at = chrono::DateTime::parse_from_rfc3339("2026-12-03T00:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(free_archive_name(dir.path(), at), "20261203T000000Z-2.tar");
    }
}
