//! Compose files against golden copies, and hostile values staying inert
//! strings. Set KNOTROUTE_UPDATE_GOLDEN=1 to rewrite the golden files after an
//! intended change (then read the diff).

use agent::compose::{self, to_yaml};
use protocol::jobs::{DeploySidecar, JobPayload};
use protocol::NetworkId;
use serde_json::json;
use std::path::PathBuf;

fn network() -> String {
    NetworkId::from_random_bytes([7; 32]).to_string()
}

fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("KNOTROUTE_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} is missing: run with KNOTROUTE_UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert_eq!(actual, expected, "{name} differs from its golden copy");
}

#[test]
fn a_beacon_stack_matches_its_golden_file() {
    let payload = json!({"name": "Main", "network_id": network(), "beacon_url": "https://beacon.example.net",
        "advertise": "relay.example.net:7447", "http_port": 18080});
    let JobPayload::DeployBeacon(job) = JobPayload::parse("deploy_beacon", &payload).unwrap()
    else {
        unreachable!()
    };
    golden(
        "beacon-main.yaml",
        &to_yaml(&compose::beacon(&job, "1.2.3")),
    );
    assert_eq!(compose::project_name("beacon-main"), "kr-beacon-main");
}

#[test]
fn a_sidecar_stack_matches_its_golden_file() {
    let payload = json!({"name": "web", "network_id": network(), "target": "app:8080", "docker_network": "apps",
        "beacons": ["https://b1.example.net", "https://b2.example.net:8443"], "advertise": "web.example.net:17447"});
    let JobPayload::DeploySidecar(job) = JobPayload::parse("deploy_sidecar", &payload).unwrap()
    else {
        unreachable!()
    };
    golden(
        "sidecar-web.yaml",
        &to_yaml(&compose::sidecar(&job, "latest")),
    );
}

#[test]
fn hostile_values_stay_strings_and_add_nothing() {
    // Validation would refuse these; the serializer must still keep them inert.
    let hostile = "app:8080\n    privileged: true\nservices:\n  evil:\n    image: evil";
    let job = DeploySidecar {
        name: "web\"\n  evil: {image: x}".into(),
        network_id: NetworkId::from_random_bytes([7; 32]),
        target: hostile.into(),
        docker_network: "apps: {external: false}\n# ".into(),
        beacons: vec!["https://b.example.net\n      - /:/host".into()],
        advertise: None,
        image: Some("ghcr.io/localzet/knotroute-sidecar:1 # comment".into()),
    };
    let yaml = to_yaml(&compose::sidecar(&job, "latest"));
    let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&yaml).unwrap();
    let services = parsed["services"].as_mapping().unwrap();
    assert_eq!(services.len(), 1, "{yaml}");
    let service = &parsed["services"]["knotroute"];
    assert_eq!(
        service["environment"]["KNOTROUTE_SERVICE_TARGET"].as_str(),
        Some(hostile)
    );
    assert!(service.get("privileged").is_none());
    assert_eq!(service["volumes"].as_sequence().unwrap().len(), 1);
    assert_eq!(service["image"].as_str(), job.image.as_deref());
    assert_eq!(parsed["networks"].as_mapping().unwrap().len(), 1);
}
