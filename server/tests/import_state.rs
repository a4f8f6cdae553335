//! `knotroute-control import-state`: the old single-file Control's state.json
//! comes in once, odd records are skipped with a reason, and its Agents keep
//! working without enrolling again.

mod common;

use common::{SimAgent, Store};
use protocol::{JobId, NetworkId};
use serde_json::{json, Value};

fn job_id(n: u8) -> String {
    JobId::from_random_bytes([n; 16]).to_string()
}

/// A state.json as the old Control writes it (Go's encoding: maps keyed by
/// id, RFC 3339 times with nanoseconds, year 1 for "never"), with odd records.
fn old_state(kept: &SimAgent, stranger: &SimAgent, network: &str) -> Value {
    let long_name = NetworkId::from_random_bytes([8; 32]).to_string();
    let nameless = NetworkId::from_random_bytes([9; 32]).to_string();
    let sidecar = json!({"name": "web", "network_id": network, "target": "app:8080",
        "docker_network": "apps", "beacons": ["https://beacon.example.net"]});
    json!({
        "networks": {
            network: {"id": network, "name": "Office", "description": "from the old Control",
                "beacons": ["https://beacon.example.net"],
                "created_at": "2025-01-02T03:04:05.123456789Z", "updated_at": "2025-03-01T00:00:00+02:00"},
            "kn_short": {"id": "kn_short", "name": "Broken id", "beacons": []},
            long_name.clone(): {"id": long_name, "name": "n".repeat(5000), "beacons": []},
            nameless.clone(): {"id": nameless}
        },
        "agents": {
            kept.id(): {"id": kept.id(), "name": "edge-01", "public_key": kept.key.public_key().to_wire(),
                "hostname": "edge", "version": "0.9.0", "docker_available": true,
                "docker_version": "27.1.1", "tags": ["prod", "x".repeat(300)],
                "components": [
                    {"id": "sidecar-web", "kind": "sidecar", "name": "web", "status": "running",
                     "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot", "image": "i".repeat(10_000),
                     "labels": {"io.knotroute.network-id": network}},
                    {"id": "Not A Component!!", "kind": "weird"}
                ],
                "enrolled_at": "2025-01-01T00:00:00Z", "last_seen": "0001-01-01T00:00:00Z"},
            "ka_notderivedfromanykey": {"id": "ka_notderivedfromanykey", "name": "impostor",
                "public_key": stranger.key.public_key().to_wire()},
            stranger.id(): {"id": stranger.id(), "name": "broken key", "public_key": "not-a-key"}
        },
        "jobs": {
            job_id(1): {"id": job_id(1), "agent_id": kept.id(), "kind": "deploy_sidecar",
                "payload": sidecar, "status": "succeeded", "result": "r".repeat(100_000),
                "created_at": "2025-02-01T10:00:00Z", "started_at": "2025-02-01T10:00:01Z",
                "ended_at": "2025-02-01T10:00:09Z"},
            job_id(2): {"id": job_id(2), "agent_id": kept.id(), "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}, "status": "pending",
                "created_at": "2025-02-02T10:00:00Z"},
            job_id(3): {"id": job_id(3), "agent_id": kept.id(), "kind": "reboot_host",
                "payload": {}, "status": "pending"},
            job_id(4): {"id": job_id(4), "agent_id": "ka_gone", "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}, "status": "failed"},
            job_id(5): {"id": job_id(5), "agent_id": kept.id(), "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}, "status": "running",
                "created_at": "2025-02-01T09:00:00Z", "started_at": "2025-02-01T09:00:01Z"},
            job_id(6): {}
        }
    })
}

fn run(store: &Store, file: &std::path::Path) -> String {
    let out = store.run(&["import-state", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

on_both_databases!(
    an_old_state_imports_once_and_its_agents_keep_working,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let kept = SimAgent::new(&c, 70);
        let stranger = SimAgent::new(&c, 71);
        let network = NetworkId::from_random_bytes([7; 32]).to_string();
        let files = tempfile::tempdir().unwrap();
        let file = files.path().join("state.json");
        std::fs::write(&file, old_state(&kept, &stranger, &network).to_string()).unwrap();
        let store = Store::of(&c);

        let said = run(&store, &file);
        for line in [
            "networks: 1 imported, 0 already present, 3 skipped",
            "agents: 1 imported, 0 already present, 2 skipped",
            "components: 1 imported, 0 already present, 1 skipped",
            "jobs: 3 imported, 0 already present, 3 skipped",
            "unknown job kind \"reboot_host\"",
            "its Agent ka_gone is not among the imported Agents",
            "skipped network kn_short: id:",
            "name: Too long: at most 80 characters",
            "skipped agent ka_notderivedfromanykey: the id is not the one its public key derives",
            "public_key is not an Ed25519 public key",
            "the id is not beacon-<name> or sidecar-<name>",
        ] {
            assert!(said.contains(line), "report says {line:?}:\n{said}");
        }

        // Running it again changes nothing: every table is as it was.
        let before = files.path().join("before.backup");
        assert!(store
            .run(&["backup", "--out", before.to_str().unwrap()])
            .status
            .success());
        let said = run(&store, &file);
        assert!(
            said.contains("networks: 0 imported, 1 already present, 3 skipped"),
            "{said}"
        );
        assert!(
            said.contains("agents: 0 imported, 1 already present, 2 skipped"),
            "{said}"
        );
        assert!(
            said.contains("jobs: 0 imported, 3 already present, 3 skipped"),
            "{said}"
        );
        let after = files.path().join("after.backup");
        assert!(store
            .run(&["backup", "--out", after.to_str().unwrap()])
            .status
            .success());
        assert_eq!(
            rows(&before),
            rows(&after),
            "a second import changed nothing"
        );

        // What came in reads as it did in the old Control.
        let profile: Value = c.get_json(&format!("/api/v1/networks/{network}")).await;
        assert_eq!(profile["name"], "Office");
        assert_eq!(profile["beacons"], json!(["https://beacon.example.net"]));
        let agent: Value = c.get_json(&format!("/api/v1/agents/{}", kept.id())).await;
        assert_eq!(agent["name"], "edge-01");
        assert_eq!(agent["tags"][0], "prod");
        assert_eq!(
            agent["tags"][1].as_str().unwrap().len(),
            64,
            "tags bounded as a heartbeat's"
        );
        let web = &agent["components"][0];
        assert_eq!(web["id"], "sidecar-web");
        assert_eq!(
            web["desired"], true,
            "deployed by the old Control: desired here"
        );
        assert_eq!(web["spec"]["target"], "app:8080");
        let running: Value = c.get_json(&format!("/api/v1/jobs/{}", job_id(5))).await;
        assert_eq!(running["status"], "expired");

        // The Agent, enrolled only in the old Control, is accepted as it is.
        let r = kept
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "edge-01", "docker_available": true,
                "components": [{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                    "status": "running", "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot"}]}),
            )
            .await;
        assert_eq!(r.status(), 200, "a signed heartbeat from an imported Agent");
        let agent: Value = c.get_json(&format!("/api/v1/agents/{}", kept.id())).await;
        assert_eq!(agent["status"], "online");
        let job = kept.claim().await.expect("the old Control's pending job");
        assert_eq!(job["id"], job_id(2));
    }
);

#[tokio::test]
async fn a_file_that_is_not_a_state_is_refused_with_a_reason() {
    let data = tempfile::tempdir().unwrap();
    let store = Store::Sqlite(data.path().join("data"));
    let file = data.path().join("state.json");
    std::fs::write(&file, "[1, 2, 3]").unwrap();
    let out = store.run(&["import-state", file.to_str().unwrap()]);
    assert!(!out.status.success());
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains("is not a KnotRoute Control state.json"),
        "{said}"
    );
}

fn rows(path: &std::path::Path) -> Vec<(String, Value)> {
    let mut reader = server::ops::backup::BackupReader::open(path).unwrap();
    let mut rows = Vec::new();
    while let Some(line) = reader.next_line().unwrap() {
        if let server::ops::backup::Line::Row { table, row } = line {
            rows.push((table, row));
        }
    }
    rows
}
