//! STAND-IN for the KnotRoute sidecar image (`standin-sidecar`), which comes
//! from a registry the tests cannot reach. It prints what the real sidecar
//! prints on stdout (no timestamps):
//!
//! ```text
//! node <56 base32>.knot
//! publishing <name> as <address>.knot -> <target> (waiting for introduction points)
//! service <name> ready as <address>.knot with <n> introduction point(s)
//! ```
//!
//! Once a Beacon answers, the address is published on the relay each
//! `http://` Beacon advertises (the stand-in overlay, `relay`), so a
//! stand-in node can open it. The last line comes about a second after the second, and only once a
//! Beacon of `KNOTROUTE_BEACONS` is reached (`http://`: `GET /healthz`
//! answers 200; `https://`: a TCP connect, as the stand-in speaks no TLS);
//! until then it retries, saying why on stderr. The address derives from a
//! random identity kept in the data directory, so it stays while the volume
//! does. Health on :9090: `/healthz` 200, `/readyz` 503 until ready, then 200.
//! Bad settings: one `knotroute-sidecar: …` line on stderr, exit 1.
//!
//! Two settings exist only in the stand-in, for tests outside a container:
//! `KNOTROUTE_SIDECAR_DATA` (default `/data`) and
//! `KNOTROUTE_SIDECAR_HEALTH_LISTEN` (default `0.0.0.0:9090`).

use crate::http;
use data_encoding::BASE32_NOPAD;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const IDENTITY_FILE: &str = "standin-sidecar-identity";
/// Between "publishing" and "ready", as the real sidecar takes about a second.
const INTRODUCTION: Duration = Duration::from_secs(1);
const RETRY: Duration = Duration::from_secs(2);

/// The settings, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub name: String,
    pub target: String,
    pub beacons: Vec<String>,
    pub data: String,
    pub health_listen: String,
    /// Catalog metadata, printed as given.
    pub catalog: Vec<(&'static str, String)>,
}

const CATALOG: [(&str, &str); 5] = [
    ("title", "KNOTROUTE_SERVICE_TITLE"),
    ("description", "KNOTROUTE_SERVICE_DESCRIPTION"),
    ("tags", "KNOTROUTE_SERVICE_TAGS"),
    ("category", "KNOTROUTE_SERVICE_CATEGORY"),
    ("scheme", "KNOTROUTE_SERVICE_SCHEME"),
];

/// `^[a-z0-9][a-z0-9._-]{0,62}$`, as the real sidecar accepts.
pub fn valid_service_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.len() <= 63
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

fn host_port(value: &str) -> bool {
    value
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0))
}

/// What the sidecar and the node both require: configuration from the
/// environment, and a valid `KNOTROUTE_NETWORK_ID`.
pub(crate) fn configured_from_env(env: &HashMap<String, String>, what: &str) -> Result<(), String> {
    let get = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    if get("KNOTROUTE_CONFIG_FROM_ENV") != Some("true") {
        return Err(format!(
            "KNOTROUTE_CONFIG_FROM_ENV must be true: this {what} is configured from its environment"
        ));
    }
    let network = get("KNOTROUTE_NETWORK_ID").ok_or("KNOTROUTE_NETWORK_ID is required")?;
    protocol::NetworkId::parse(network).map_err(|_| {
        "KNOTROUTE_NETWORK_ID is not a Network ID: write kn_ followed by 52 base32 characters"
            .to_string()
    })?;
    Ok(())
}

impl Settings {
    /// From the environment; `Err` is the stderr line without its prefix.
    pub fn from_env(env: &HashMap<String, String>) -> Result<Self, String> {
        let get = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
        configured_from_env(env, "sidecar")?;
        let name = get("KNOTROUTE_SERVICE_NAME").ok_or("KNOTROUTE_SERVICE_NAME is required")?;
        if !valid_service_name(name) {
            return Err(format!(
                "KNOTROUTE_SERVICE_NAME {name:?} is not a service name: 1-63 of a-z 0-9 . _ -, starting with a letter or digit"
            ));
        }
        let target =
            get("KNOTROUTE_SERVICE_TARGET").ok_or("KNOTROUTE_SERVICE_TARGET is required")?;
        if !host_port(target) {
            return Err(format!(
                "KNOTROUTE_SERVICE_TARGET {target:?} is not host:port"
            ));
        }
        let beacons: Vec<String> = get("KNOTROUTE_BEACONS")
            .ok_or("KNOTROUTE_BEACONS is required: comma-separated Beacon URLs")?
            .split(',')
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(str::to_string)
            .collect();
        for beacon in &beacons {
            let ok = url::Url::parse(beacon)
                .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
            if !ok {
                return Err(format!(
                    "KNOTROUTE_BEACONS: {beacon:?} is not an http(s) URL"
                ));
            }
        }
        if let Some(advertise) = get("KNOTROUTE_ADVERTISE") {
            if !host_port(advertise) {
                return Err(format!(
                    "KNOTROUTE_ADVERTISE {advertise:?} is not host:port"
                ));
            }
        }
        Ok(Self {
            name: name.to_string(),
            target: target.to_string(),
            beacons,
            data: get("KNOTROUTE_SIDECAR_DATA").unwrap_or("/data").to_string(),
            health_listen: get("KNOTROUTE_SIDECAR_HEALTH_LISTEN")
                .unwrap_or("0.0.0.0:9090")
                .to_string(),
            catalog: CATALOG
                .iter()
                .map(|(key, var)| (*key, get(var).unwrap_or_default().to_string()))
                .collect(),
        })
    }
}

/// A 56-character lowercase base32 label (35 bytes: key, checksum, version,
/// shaped like an onion address) derived from the identity seed.
pub fn address(seed: &[u8; 32], purpose: &str) -> String {
    let key = Sha256::new()
        .chain_update(b"knotroute-standin/")
        .chain_update(purpose.as_bytes())
        .chain_update(b"|")
        .chain_update(seed)
        .finalize();
    let checksum = Sha256::new()
        .chain_update(b".knot checksum")
        .chain_update(key)
        .finalize();
    let mut bytes = key.to_vec();
    bytes.extend_from_slice(&checksum[..2]);
    bytes.push(3);
    BASE32_NOPAD.encode(&bytes).to_ascii_lowercase()
}

/// The identity seed in `<data>/standin-sidecar-identity`, created when missing.
pub fn identity(data: &Path) -> Result<[u8; 32], String> {
    let path = data.join(IDENTITY_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => BASE32_NOPAD
            .decode(text.trim().as_bytes())
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
            .ok_or_else(|| {
                format!(
                    "{} is damaged: remove it for a new identity (a new address)",
                    path.display()
                )
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let seed: [u8; 32] = rand::random();
            let partial = data.join(format!("{IDENTITY_FILE}.tmp"));
            std::fs::create_dir_all(data)
                .and_then(|()| std::fs::write(&partial, BASE32_NOPAD.encode(&seed)))
                .and_then(|()| std::fs::rename(&partial, &path))
                .map_err(|e| format!("cannot store the identity in {}: {e}", data.display()))?;
            Ok(seed)
        }
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Runs until killed: health server, announcement, Beacon retries, ready.
pub fn run(settings: &Settings) -> Result<(), String> {
    let seed = identity(Path::new(&settings.data))?;
    let service = address(&seed, "service");
    let ready = Arc::new(AtomicBool::new(false));
    let listener = std::net::TcpListener::bind(&settings.health_listen).map_err(|e| {
        format!(
            "cannot listen on {} for health: {e}",
            settings.health_listen
        )
    })?;
    let seen = ready.clone();
    let knot = format!("{service}.knot");
    let knot_address = knot.clone();
    http::serve(listener, move |request| match request.path.as_str() {
        "/healthz" => (200, json!({"ok": true, "standin": true})),
        "/readyz" if seen.load(Ordering::SeqCst) => (200, json!({"ready": true, "address": knot})),
        "/readyz" => (503, json!({"ready": false})),
        _ => (404, json!({"error": "not found"})),
    });
    println!("node {}.knot", address(&seed, "node"));
    let catalog: Vec<String> = settings
        .catalog
        .iter()
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    println!("catalog {}", catalog.join(" "));
    println!(
        "publishing {} as {service}.knot -> {} (waiting for introduction points)",
        settings.name, settings.target
    );
    let published = Instant::now();
    let mut last_complaint = String::new();
    loop {
        let mut reached = 0;
        let mut complaints = Vec::new();
        for beacon in &settings.beacons {
            match http::beacon_reachable(beacon, Duration::from_secs(2)) {
                Ok(()) => reached += 1,
                Err(why) => complaints.push(format!("Beacon {beacon} unreachable: {why}")),
            }
        }
        if reached > 0 {
            // Offered on every relay a Beacon advertises, so a stand-in node
            // can open the address through any of them.
            for beacon in &settings.beacons {
                if let Ok(relay) = http::beacon_relay(beacon, Duration::from_secs(2)) {
                    crate::relay::publish(relay, knot_address.clone(), settings.target.clone());
                }
            }
            std::thread::sleep(INTRODUCTION.saturating_sub(published.elapsed()));
            ready.store(true, Ordering::SeqCst);
            println!(
                "service {} ready as {service}.knot with {reached} introduction point(s)",
                settings.name
            );
            loop {
                std::thread::park();
            }
        }
        // Said once per change of reason, not on every retry.
        let complaint = complaints.join("; ");
        if complaint != last_complaint {
            eprintln!(
                "knotroute-sidecar: {complaint}; retrying every {} s",
                RETRY.as_secs()
            );
            last_complaint = complaint;
        }
        std::thread::sleep(RETRY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_names_follow_the_real_sidecars_rule() {
        for good in ["web", "0", "a.b_c-d", &"a".repeat(63)] {
            assert!(valid_service_name(good), "{good}");
        }
        for bad in ["", "Web", "-web", ".web", "we b", "web/1", &"a".repeat(64)] {
            assert!(!valid_service_name(bad), "{bad}");
        }
    }

    #[test]
    fn addresses_are_56_base32_characters_and_stable_per_seed() {
        let one = address(&[1; 32], "service");
        assert_eq!(one.len(), 56);
        assert!(one
            .chars()
            .all(|c| c.is_ascii_lowercase() || ('2'..='7').contains(&c)));
        assert_eq!(one, address(&[1; 32], "service"));
        assert_ne!(one, address(&[2; 32], "service"));
        assert_ne!(one, address(&[1; 32], "node"));
    }

    #[test]
    fn the_identity_is_created_once_and_kept() {
        let dir = std::env::temp_dir().join(format!("standin-identity-{}", std::process::id()));
        let first = identity(&dir).unwrap();
        assert_eq!(identity(&dir).unwrap(), first);
        std::fs::write(dir.join(IDENTITY_FILE), "damaged").unwrap();
        assert!(identity(&dir).unwrap_err().contains("damaged"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
