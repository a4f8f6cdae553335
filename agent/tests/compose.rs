//! Compose files against golden copies, and hostile values staying inert
//! strings that Compose does not interpolate. Set KNOTROUTE_UPDATE_GOLDEN=1 to rewrite the golden files after an
//! intended change (then read the diff).

use agent::compose::{self, to_yaml};
use protocol::catalog::{Catalog, Scheme};
use protocol::jobs::{DeployBeacon, DeploySidecar, JobPayload};
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
fn a_sidecar_without_a_catalog_entry_gets_none_of_its_variables() {
    let payload = json!({"name": "web", "network_id": network(), "target": "app:8080", "docker_network": "apps",
        "beacons": ["https://b1.example.net"]});
    let JobPayload::DeploySidecar(job) = JobPayload::parse("deploy_sidecar", &payload).unwrap()
    else {
        unreachable!()
    };
    let yaml = to_yaml(&compose::sidecar(&job, "latest"));
    assert!(!yaml.contains("KNOTROUTE_SERVICE_TITLE"), "{yaml}");
    for key in ["DESCRIPTION", "TAGS", "CATEGORY", "SCHEME"] {
        assert!(
            !yaml.contains(&format!("KNOTROUTE_SERVICE_{key}")),
            "{yaml}"
        );
    }
}

#[test]
fn a_sidecar_with_a_catalog_entry_matches_its_golden_file() {
    let payload = json!({"name": "photos", "network_id": network(), "target": "photos:2342", "docker_network": "apps",
        "beacons": ["https://b1.example.net"], "title": "Family photos", "description": "Albums: 'summer', \"winter\" & more",
        "tags": ["Photos", "home-lab"], "category": "Media", "scheme": "https"});
    let JobPayload::DeploySidecar(job) = JobPayload::parse("deploy_sidecar", &payload).unwrap()
    else {
        unreachable!()
    };
    let yaml = to_yaml(&compose::sidecar(&job, "latest"));
    golden("sidecar-photos-catalog.yaml", &yaml);
    let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&yaml).unwrap();
    let env = &parsed["services"]["knotroute"]["environment"];
    assert_eq!(
        env["KNOTROUTE_SERVICE_DESCRIPTION"].as_str(),
        Some("Albums: 'summer', \"winter\" & more")
    );
    assert_eq!(
        env["KNOTROUTE_SERVICE_TAGS"].as_str(),
        Some("photos,home-lab")
    );
    assert_eq!(env["KNOTROUTE_SERVICE_SCHEME"].as_str(), Some("https"));
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
        catalog: Default::default(),
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

/// What Compose makes of a value: `$$` is a literal `$`, and any other `$`
/// starts a variable taken from the Agent's environment (refused here).
fn as_compose_reads_it(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
        } else if chars.peek() == Some(&'$') {
            chars.next();
            out.push('$');
        } else {
            return Err(format!("{value:?} would be interpolated"));
        }
    }
    Ok(out)
}

/// Every string value (not key) of a parsed compose file, as Compose reads it.
fn values(value: &serde_yaml_ng::Value, out: &mut Vec<String>) {
    use serde_yaml_ng::Value;
    match value {
        Value::String(s) => out.push(as_compose_reads_it(s).unwrap()),
        Value::Sequence(items) => items.iter().for_each(|v| values(v, out)),
        Value::Mapping(map) => map.values().for_each(|v| values(v, out)),
        _ => {}
    }
}

#[test]
fn dollars_in_any_value_reach_the_container_literally() {
    // Validation refuses these; the file must still keep them literal.
    let hostile = ["${https_proxy}", "$HOME", "$$", "a${", "$", "}{$}"];
    for text in hostile {
        let sidecar = DeploySidecar {
            name: format!("web{text}"),
            network_id: NetworkId::from_random_bytes([7; 32]),
            target: format!("app{text}:8080"),
            docker_network: format!("apps{text}"),
            beacons: vec![format!("https://b{text}.example.net")],
            advertise: Some(format!("web{text}.example.net:17447")),
            image: Some(format!("ghcr.io/localzet/knotroute-sidecar:1{text}")),
            catalog: Catalog {
                title: Some(format!("Photos {text}")),
                description: Some(format!("costs {text} a month")),
                tags: vec![format!("t{text}")],
                category: Some(format!("c{text}")),
                scheme: Some(Scheme::Https),
            },
        };
        let yaml = to_yaml(&compose::sidecar(&sidecar, "latest"));
        let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&yaml).unwrap();
        let mut read = Vec::new();
        values(&parsed, &mut read);
        let service = &parsed["services"]["knotroute"];
        let env = |name: &str| as_compose_reads_it(service["environment"][name].as_str().unwrap());
        assert_eq!(
            env("KNOTROUTE_SERVICE_NAME"),
            Ok(sidecar.name.clone()),
            "{yaml}"
        );
        assert_eq!(env("KNOTROUTE_SERVICE_TARGET"), Ok(sidecar.target.clone()));
        assert_eq!(env("KNOTROUTE_SERVICE_TITLE"), Ok(format!("Photos {text}")));
        assert_eq!(
            env("KNOTROUTE_SERVICE_DESCRIPTION"),
            Ok(format!("costs {text} a month"))
        );
        assert_eq!(env("KNOTROUTE_SERVICE_TAGS"), Ok(format!("t{text}")));
        assert_eq!(env("KNOTROUTE_BEACONS"), Ok(sidecar.beacons[0].clone()));
        assert_eq!(
            env("KNOTROUTE_ADVERTISE"),
            Ok(sidecar.advertise.clone().unwrap())
        );
        let label = |name: &str| as_compose_reads_it(service["labels"][name].as_str().unwrap());
        assert_eq!(label("io.knotroute.service-name"), Ok(sidecar.name.clone()));
        assert_eq!(label("io.knotroute.target"), Ok(sidecar.target.clone()));
        assert_eq!(
            as_compose_reads_it(service["image"].as_str().unwrap()),
            Ok(sidecar.image.clone().unwrap())
        );
        // Keys are not interpolated: the network's key is the name itself,
        // and the service's reference to it reads back to the same name.
        let networks = parsed["networks"].as_mapping().unwrap();
        assert_eq!(
            networks.keys().next().unwrap().as_str(),
            Some(sidecar.docker_network.as_str())
        );
        assert_eq!(
            as_compose_reads_it(service["networks"][0].as_str().unwrap()),
            Ok(sidecar.docker_network.clone())
        );

        let beacon = DeployBeacon {
            name: format!("edge{text}"),
            network_id: NetworkId::from_random_bytes([7; 32]),
            beacon_url: format!("https://edge{text}.example.net"),
            advertise: format!("edge{text}.example.net:7447"),
            http_port: 18080,
            image: Some(format!("ghcr.io/localzet/knotroute-beacon:1{text}")),
        };
        let yaml = to_yaml(&compose::beacon(&beacon, "latest"));
        let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&yaml).unwrap();
        values(&parsed, &mut Vec::new());
        let service = &parsed["services"]["knotroute"];
        assert_eq!(
            as_compose_reads_it(
                service["labels"]["io.knotroute.public-url"]
                    .as_str()
                    .unwrap()
            ),
            Ok(beacon.beacon_url.clone()),
            "{yaml}"
        );
        assert_eq!(
            as_compose_reads_it(
                service["environment"]["KNOTROUTE_BEACON_RELAY_ADVERTISE"]
                    .as_str()
                    .unwrap()
            ),
            Ok(beacon.advertise.clone())
        );
        assert_eq!(
            as_compose_reads_it(service["image"].as_str().unwrap()),
            Ok(beacon.image.clone().unwrap())
        );
    }
}

#[test]
fn ports_are_published_on_one_address_when_the_agent_is_told_so() {
    let payload = json!({"name": "main", "network_id": network(), "beacon_url": "https://beacon.example.net",
        "advertise": "relay.example.net:7447", "http_port": 18080});
    let JobPayload::DeployBeacon(job) = JobPayload::parse("deploy_beacon", &payload).unwrap()
    else {
        unreachable!()
    };
    let on = |address: &str| {
        let file = compose::publish_on(compose::beacon(&job, "1.2.3"), address.parse().unwrap());
        to_yaml(&file)
    };
    let v4 = on("127.0.0.1");
    assert!(
        v4.contains("127.0.0.1:18080:8080") && v4.contains("127.0.0.1:7447:7447"),
        "{v4}"
    );
    let v6 = on("::1");
    assert!(v6.contains("[::1]:18080:8080"), "{v6}");
    // Without the setting every address of the host is used, as before.
    assert!(to_yaml(&compose::beacon(&job, "1.2.3")).contains("- 18080:8080"));
}
