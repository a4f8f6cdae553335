//! The stand-in image programs as the Agent meets them: started with the
//! environment the Compose files give them, on free loopback ports.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const NETWORK: &str = "kn_aeaqcaibaeaqcaibaeaqcaibaeaqcaibaeaqcaibaeaqcaibaeaq";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Program(Child);

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(binary: &str, env: &[(&str, String)]) -> Program {
    let mut command = Command::new(binary);
    command
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    Program(command.spawn().unwrap())
}

/// Stdout lines as they come, read on a thread.
fn lines(program: &mut Program) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    let stdout = program.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    receive
}

/// Status and body of `GET path` on 127.0.0.1:port, retried while it starts.
fn get(port: u16, host: &str, path: &str) -> (u16, String) {
    for _ in 0..50 {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
        let body = response.split_once("\r\n\r\n").unwrap().1.to_string();
        return (status, body);
    }
    panic!("nothing answers on port {port}");
}

fn exits_with_stderr(binary: &str, env: &[(&str, String)]) -> String {
    let mut command = Command::new(binary);
    command.env_clear();
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

fn beacon_env(api: u16, relay: u16) -> Vec<(&'static str, String)> {
    vec![
        ("KNOTROUTE_NETWORK_ID", NETWORK.into()),
        ("KNOTROUTE_BEACON_LISTEN", format!("127.0.0.1:{api}")),
        ("KNOTROUTE_BEACON_RELAY", "true".into()),
        (
            "KNOTROUTE_BEACON_RELAY_LISTEN",
            format!("127.0.0.1:{relay}"),
        ),
        ("KNOTROUTE_BEACON_DATA", "/nonexistent".into()),
    ]
}

#[test]
fn the_beacon_answers_healthz_advertises_its_relay_and_refuses_a_bad_network_id() {
    let beacon = env!("CARGO_BIN_EXE_standin-beacon");
    let (api, relay) = (free_port(), free_port());
    let _running = start(beacon, &beacon_env(api, relay));
    let (status, body) = get(api, "beacon.test:18080", "/healthz");
    assert_eq!(status, 200, "{body}");
    let health: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health["ok"], true);
    assert!(health["version"].as_str().unwrap().ends_with("-standin"));
    assert_eq!(health["standin"], true);
    assert_eq!(health["relay_advertise"], format!("beacon.test:{relay}"));
    assert_eq!(get(api, "x", "/other").0, 404);
    TcpStream::connect(("127.0.0.1", relay)).expect("the relay accepts TCP");

    let mut fixed = beacon_env(free_port(), free_port());
    fixed.push((
        "KNOTROUTE_BEACON_RELAY_ADVERTISE",
        "relay.example.net:7447".into(),
    ));
    let port = free_port();
    fixed[1].1 = format!("127.0.0.1:{port}");
    let _fixed = start(beacon, &fixed);
    let (_, body) = get(port, "beacon.test", "/healthz");
    assert!(
        body.contains(r#""relay_advertise":"relay.example.net:7447""#),
        "{body}"
    );

    let mut bad = beacon_env(free_port(), free_port());
    bad[0].1 = "kn_short".into();
    assert!(exits_with_stderr(beacon, &bad).starts_with("knotroute-beacon: KNOTROUTE_NETWORK_ID"));
    bad.remove(0);
    assert!(exits_with_stderr(beacon, &bad).contains("KNOTROUTE_NETWORK_ID is required"));
}

fn sidecar_env(
    data: &std::path::Path,
    health: u16,
    beacons: String,
) -> Vec<(&'static str, String)> {
    vec![
        ("KNOTROUTE_CONFIG_FROM_ENV", "true".into()),
        ("KNOTROUTE_NETWORK_ID", NETWORK.into()),
        ("KNOTROUTE_BEACONS", beacons),
        ("KNOTROUTE_SERVICE_NAME", "web".into()),
        ("KNOTROUTE_SERVICE_TARGET", "app:8080".into()),
        ("KNOTROUTE_SERVICE_TITLE", "Wiki".into()),
        ("KNOTROUTE_SERVICE_TAGS", "docs,team".into()),
        ("KNOTROUTE_SIDECAR_DATA", data.display().to_string()),
        (
            "KNOTROUTE_SIDECAR_HEALTH_LISTEN",
            format!("127.0.0.1:{health}"),
        ),
    ]
}

fn is_address(label: &str) -> bool {
    label.len() == 56
        && label
            .chars()
            .all(|c| c.is_ascii_lowercase() || ('2'..='7').contains(&c))
}

fn next(lines: &mpsc::Receiver<String>) -> String {
    lines
        .recv_timeout(Duration::from_secs(10))
        .expect("a line on stdout")
}

#[test]
fn the_sidecar_announces_a_kept_address_and_is_ready_once_a_beacon_answers() {
    let (api, relay) = (free_port(), free_port());
    let _beacon = start(
        env!("CARGO_BIN_EXE_standin-beacon"),
        &beacon_env(api, relay),
    );
    assert_eq!(get(api, "b", "/healthz").0, 200);
    let sidecar = env!("CARGO_BIN_EXE_standin-sidecar");
    let data = std::env::temp_dir().join(format!("standin-sidecar-{}", std::process::id()));
    let beacons = format!("http://127.0.0.1:{},http://127.0.0.1:{api}", free_port());
    let health = free_port();
    let mut first = start(sidecar, &sidecar_env(&data, health, beacons.clone()));
    let out = lines(&mut first);
    let node = next(&out);
    let node = node
        .strip_prefix("node ")
        .and_then(|n| n.strip_suffix(".knot"))
        .unwrap();
    assert!(is_address(node), "{node}");
    let catalog = next(&out);
    assert!(
        catalog.contains(r#"title="Wiki""#) && catalog.contains(r#"tags="docs,team""#),
        "{catalog}"
    );
    let publishing = next(&out);
    let address = publishing
        .strip_prefix("publishing web as ")
        .and_then(|rest| rest.strip_suffix(".knot -> app:8080 (waiting for introduction points)"))
        .unwrap_or_else(|| panic!("{publishing}"));
    assert!(is_address(address), "{address}");
    assert_eq!(get(health, "s", "/healthz").0, 200);
    assert_eq!(get(health, "s", "/readyz").0, 503);
    assert_eq!(
        next(&out),
        format!("service web ready as {address}.knot with 1 introduction point(s)")
    );
    assert_eq!(get(health, "s", "/readyz").0, 200);
    drop(first);

    // Same data directory, same address.
    let health = free_port();
    let mut again = start(sidecar, &sidecar_env(&data, health, beacons));
    let out = lines(&mut again);
    // node, catalog, then publishing.
    let (_, _, publishing) = (next(&out), next(&out), next(&out));
    assert!(
        publishing.contains(&format!(" as {address}.knot ")),
        "{publishing}"
    );
    drop(again);
    std::fs::remove_dir_all(&data).unwrap();
}

#[test]
fn a_sidecar_without_a_reachable_beacon_keeps_retrying_and_is_never_ready() {
    let data = std::env::temp_dir().join(format!("standin-unready-{}", std::process::id()));
    let health = free_port();
    let beacon = format!("http://127.0.0.1:{}", free_port());
    let mut sidecar = start(
        env!("CARGO_BIN_EXE_standin-sidecar"),
        &sidecar_env(&data, health, beacon.clone()),
    );
    let stderr = sidecar.0.stderr.take().unwrap();
    let complaint = BufReader::new(stderr).lines().next().unwrap().unwrap();
    assert!(
        complaint.starts_with(&format!("knotroute-sidecar: Beacon {beacon} unreachable")),
        "{complaint}"
    );
    let out = lines(&mut sidecar);
    std::thread::sleep(Duration::from_secs(3));
    let printed: Vec<String> = out.try_iter().collect();
    assert!(printed.iter().all(|l| !l.contains("ready")), "{printed:?}");
    assert_eq!(get(health, "s", "/readyz").0, 503);
    assert!(sidecar.0.try_wait().unwrap().is_none(), "it exited");
    drop(sidecar);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn a_sidecar_with_bad_settings_exits_with_one_line() {
    let sidecar = env!("CARGO_BIN_EXE_standin-sidecar");
    let data = std::env::temp_dir();
    let base = sidecar_env(&data, free_port(), "http://127.0.0.1:1".into());
    for (name, value, says) in [
        (
            "KNOTROUTE_SERVICE_NAME",
            "Web Site",
            "is not a service name",
        ),
        (
            "KNOTROUTE_NETWORK_ID",
            "kn_nope",
            "KNOTROUTE_NETWORK_ID is not",
        ),
        ("KNOTROUTE_BEACONS", "", "KNOTROUTE_BEACONS is required"),
        ("KNOTROUTE_BEACONS", "ftp://b", "is not an http(s) URL"),
        ("KNOTROUTE_SERVICE_TARGET", "app", "is not host:port"),
    ] {
        let mut env = base.clone();
        env.iter_mut().find(|(n, _)| *n == name).unwrap().1 = value.into();
        let stderr = exits_with_stderr(sidecar, &env);
        assert!(
            stderr.starts_with("knotroute-sidecar: ") && stderr.contains(says),
            "{name}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}
