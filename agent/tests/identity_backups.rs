//! Real Docker: a sidecar's identity is backed up on its host and proved
//! restorable. The Agent archives the sidecar's `/data` under its own data
//! directory (0700/0600), restores it into a scratch volume where the
//! stand-in sidecar image announces the same `.knot` address, keeps only the
//! newest N archives, and refuses a damaged archive before restoring it.
//! Control learns what describes the archives (the setup checklist and the
//! operations policy say so) and never the identity: its database holds no
//! trace of it. Where no engine answers, the test skips (never under CI).

mod common;

use common::docker::*;
use common::*;
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The stand-in sidecar's identity file (`test_kit::sidecar::IDENTITY_FILE`).
const IDENTITY: &str = "data/standin-sidecar-identity";

async fn finished(control: &Control, agent_id: &str, kind: &str, payload: Value) -> Value {
    let id = queue_job(control, agent_id, kind, payload).await;
    finished_job(control, &id, Duration::from_secs(120)).await
}

fn archives(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|e| e == "tar"));
    found.sort();
    found
}

/// The identity file's content, read out of an archive.
fn identity_in(archive: &Path) -> Vec<u8> {
    let mut tar = tar::Archive::new(std::fs::File::open(archive).unwrap());
    for entry in tar.entries().unwrap() {
        let mut entry = entry.unwrap();
        if entry.path().unwrap().to_string_lossy() == IDENTITY {
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).unwrap();
            return bytes;
        }
    }
    panic!("{} holds no {IDENTITY}", archive.display());
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Every file under `dir`, as bytes (the database and its journal).
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            found.push((path, bytes));
        }
    }
    found
}

async fn step(control: &Control, network: &str, which: &str) -> Value {
    let checklist = control
        .get(&format!("/api/v1/networks/{network}/setup"))
        .await;
    checklist["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == which)
        .cloned()
        .unwrap_or_else(|| panic!("no {which} step: {checklist}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sidecars_identity_is_backed_up_on_its_host_and_a_restore_proves_it() {
    if !engine_available_or_skip("identity backups") {
        return;
    }
    let tag = tag();
    standin_images(&tag);
    let suffix = std::process::id();
    let (beacon, sidecar) = (format!("bedge{suffix}"), format!("kept{suffix}"));
    let (beacon_id, sidecar_id) = (format!("beacon-{beacon}"), format!("sidecar-{sidecar}"));
    let docker_network = format!("kr-test-apps-{suffix}b");
    let _cleanup = Cleanup {
        components: vec![beacon_id.clone(), sidecar_id.clone()],
        network: docker_network.clone(),
    };
    docker(&["network", "create", &docker_network]);
    let control = start_control().await;
    let created = control
        .post(
            "/api/v1/networks",
            &json!({"name": "Backed up", "beacons": ["https://beacon.example.net"]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let network = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ((_agent, agent_data), agent_id) = start_docker_agent(&control, &tag).await;

    // A Beacon and a sidecar that reaches it, as in docker_engine.rs.
    let job = finished(
        &control,
        &agent_id,
        "deploy_beacon",
        json!({"name": beacon, "network_id": network, "beacon_url": "https://beacon.example.net",
               "advertise": format!("127.0.0.1:{}", free_port()), "http_port": free_port()}),
    )
    .await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let beacon_container = format!("kr-{beacon_id}-knotroute-1");
    docker(&["network", "connect", &docker_network, &beacon_container]);
    list_beacon(
        &control,
        &network,
        &format!("http://{beacon_container}:8080"),
    )
    .await;
    let job = finished(
        &control,
        &agent_id,
        "deploy_sidecar",
        json!({"name": sidecar, "network_id": network, "target": "app:8080",
               "docker_network": docker_network,
               "beacons": [format!("http://{beacon_container}:8080")]}),
    )
    .await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let address = shown_address(&control, &agent_id, &sidecar_id).await;
    let first = step(&control, &network, "first_service").await;
    assert_eq!(first["state"], "not_yet", "{first}");
    assert!(
        first["detail"].as_str().unwrap().contains("not backed up"),
        "{first}"
    );

    // The backup: on the Agent's disk, private, holding the identity.
    let job = finished(
        &control,
        &agent_id,
        "backup_volume",
        json!({"component_id": sidecar_id, "keep": 2}),
    )
    .await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let dir = agent_data.path().join("backups").join(&sidecar_id);
    let taken = archives(&dir);
    assert_eq!(taken.len(), 1, "{taken:?}");
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&taken[0]), 0o600);
    let identity = identity_in(&taken[0]);
    assert!(identity.len() >= 52, "the stand-in's base32 seed");
    let result = job["result"].as_str().unwrap();
    assert!(result.contains(&address), "{result}");
    let first = step(&control, &network, "first_service").await;
    assert_eq!(
        first["state"], "not_yet",
        "taken, not yet verified: {first}"
    );
    assert!(
        first["detail"].as_str().unwrap().contains("no restore"),
        "{first}"
    );

    // Verified: restored into a scratch volume, the identity announces the same address.
    let job = finished(
        &control,
        &agent_id,
        "verify_backup",
        json!({"component_id": sidecar_id}),
    )
    .await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let result = job["result"].as_str().unwrap();
    assert!(result.contains(&format!("announces {address}")), "{result}");
    let scratch = format!("name=kr-verify-{sidecar_id}-");
    let left = docker(&["volume", "ls", "-q", "--filter", &scratch]);
    assert!(left.trim().is_empty(), "scratch volume left: {left}");
    let left = docker(&["ps", "-aq", "--filter", &scratch]);
    assert!(left.trim().is_empty(), "scratch container left: {left}");
    let first = step(&control, &network, "first_service").await;
    assert_eq!(first["state"], "done", "{first}");
    let checklist = control
        .get(&format!("/api/v1/networks/{network}/setup"))
        .await;
    let criterion = checklist["bootstrap"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["criterion"] == "backup_verified")
        .cloned()
        .unwrap();
    assert_eq!(criterion["knowledge"], "proven", "{criterion}");
    let policy = control.get("/api/v1/policy").await;
    let kept_in = policy["backups"]["text"].as_str().unwrap();
    assert!(
        kept_in.contains(&dir.display().to_string()),
        "the policy says where: {kept_in}"
    );

    // Two more: only the newest two stay, on disk and in Control.
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let job = finished(
            &control,
            &agent_id,
            "backup_volume",
            json!({"component_id": sidecar_id, "keep": 2}),
        )
        .await;
        assert_eq!(job["status"], "succeeded", "{job}");
    }
    let kept = archives(&dir);
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(!kept.contains(&taken[0]), "the oldest went");
    assert!(!PathBuf::from(format!("{}.json", taken[0].display())).exists());

    // A damaged archive is refused before anything is restored.
    let newest = kept.last().unwrap();
    let mut bytes = std::fs::read(newest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(newest, bytes).unwrap();
    let job = finished(
        &control,
        &agent_id,
        "verify_backup",
        json!({"component_id": sidecar_id}),
    )
    .await;
    assert_eq!(job["status"], "failed", "{job}");
    let result = job["result"].as_str().unwrap();
    assert!(result.contains("is damaged"), "{result}");
    let first = step(&control, &network, "first_service").await;
    assert!(
        first["detail"].as_str().unwrap().contains("is damaged"),
        "the failure is shown where the step is: {first}"
    );
    // A path outside the backup directory is refused by the payload rule.
    let refused = control
        .post(
            "/api/v1/jobs",
            &json!({"agent_id": agent_id, "kind": "verify_backup",
                    "payload": {"component_id": sidecar_id, "archive": "../../agent-identity.json"}}),
        )
        .await;
    assert_eq!(refused.status(), 400);
    assert_eq!(refused.json::<Value>().await.unwrap()["field"], "archive");

    // The identity never reached Control: not in its database or journal,
    // in any of the forms it has on disk.
    let text = String::from_utf8(identity.clone()).unwrap();
    let needles = [
        text.trim().to_ascii_uppercase().into_bytes(),
        text.trim().to_ascii_lowercase().into_bytes(),
    ];
    for (path, bytes) in files_under(control.data_dir()) {
        for needle in &needles {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_slice()),
                "the identity is in {}",
                path.display()
            );
        }
    }
    let jobs = control.get("/api/v1/jobs?limit=100").await;
    let listed = jobs.as_array().map_or(0, Vec::len);
    assert!(listed >= 6, "every job of this test is listed: {jobs}");
    assert!(
        !jobs.to_string().contains(text.trim()),
        "a job result holds the identity"
    );
}
