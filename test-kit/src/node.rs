//! STAND-IN for the KnotRoute node image (`standin-node`,
//! `ghcr.io/localzet/knotroute:<test tag>`), which comes from a registry the
//! tests cannot reach. What the Agent's probe relies on is real: an HTTP
//! proxy on `KNOTROUTE_HTTP_PROXY_LISTEN` (default `0.0.0.0:8118`) that
//! opens `http://<address>.knot/…` across the overlay. Only the overlay is
//! the stand-in's own (`relay`): the node asks each Beacon of
//! `KNOTROUTE_BEACONS` for its relay and opens the address there.
//!
//! A request for anything but a `.knot` host, or for an address no Beacon
//! can reach, is answered `502 Bad Gateway` saying why. Bad settings: one
//! `knotroute-node: …` line on stderr, exit 1.

use crate::{http, relay};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub beacons: Vec<String>,
    pub proxy_listen: String,
}

impl Settings {
    pub fn from_env(env: &HashMap<String, String>) -> Result<Self, String> {
        let get = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
        crate::sidecar::configured_from_env(env, "node")?;
        let beacons: Vec<String> = get("KNOTROUTE_BEACONS")
            .ok_or("KNOTROUTE_BEACONS is required: comma-separated Beacon URLs")?
            .split(',')
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(str::to_string)
            .collect();
        Ok(Self {
            beacons,
            proxy_listen: get("KNOTROUTE_HTTP_PROXY_LISTEN")
                .unwrap_or("0.0.0.0:8118")
                .to_string(),
        })
    }
}

/// Serves the proxy until killed.
pub fn run(settings: &Settings) -> Result<(), String> {
    let listener = TcpListener::bind(&settings.proxy_listen).map_err(|e| {
        format!(
            "cannot listen on KNOTROUTE_HTTP_PROXY_LISTEN={}: {e}",
            settings.proxy_listen
        )
    })?;
    println!(
        "knotroute node (STAND-IN): HTTP proxy on {}",
        settings.proxy_listen
    );
    for stream in listener.incoming().flatten() {
        let beacons = settings.beacons.clone();
        std::thread::spawn(move || proxy(stream, &beacons));
    }
    Ok(())
}

/// The request head, up to its blank line (at most 16 KiB).
fn read_head(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while head.len() < 16 * 1024 {
        match stream.read(&mut byte) {
            Ok(1) => {
                head.push(byte[0]);
                if head.ends_with(b"\r\n\r\n") {
                    return Some(head);
                }
            }
            _ => return None,
        }
    }
    None
}

fn refuse(mut client: TcpStream, why: &str) {
    let body = format!("knotroute node (STAND-IN): {why}\n");
    let _ = write!(
        client,
        "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// One proxied request: `GET http://<address>.knot/path HTTP/1.1` is sent on
/// as `GET /path HTTP/1.1` over the overlay, and the answer comes back.
fn proxy(mut client: TcpStream, beacons: &[String]) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(10)));
    let Some(head) = read_head(&mut client) else {
        return;
    };
    let text = String::from_utf8_lossy(&head).to_string();
    let (first, rest) = text.split_once("\r\n").unwrap_or((&text, ""));
    let mut parts = first.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return refuse(client, "not an HTTP request");
    };
    let Some(url) = url::Url::parse(target)
        .ok()
        .filter(|u| u.scheme() == "http")
    else {
        return refuse(client, "only http://<address>.knot/ URLs are proxied");
    };
    let Some(host) = url.host_str().filter(|h| h.ends_with(".knot")) else {
        return refuse(client, "only .knot addresses are proxied by the stand-in");
    };
    let mut why = "no Beacon is configured".to_string();
    for beacon in beacons {
        let opened = http::beacon_relay(beacon, Duration::from_secs(3))
            .and_then(|relay| relay::open(&relay, host));
        match opened {
            Ok(mut service) => {
                let mut path = url.path().to_string();
                if let Some(query) = url.query() {
                    path = format!("{path}?{query}");
                }
                let forwarded = format!("{method} {path} {version}\r\n{rest}");
                if service.write_all(forwarded.as_bytes()).is_err() {
                    return refuse(client, "the overlay connection closed");
                }
                let _ = client.set_read_timeout(None);
                return relay::splice(client, service);
            }
            Err(e) => why = format!("{host} is not reachable through {beacon}: {e}"),
        }
    }
    refuse(client, &why)
}
