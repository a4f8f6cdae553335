//! STAND-IN for the KnotRoute Beacon image (`standin-beacon`), which comes
//! from a registry the tests cannot reach. It honours what the Agent and
//! Control rely on: `KNOTROUTE_NETWORK_ID` must be a valid Network ID (else
//! one line on stderr and exit 1); `GET /healthz` on `KNOTROUTE_BEACON_LISTEN`
//! (default 0.0.0.0:8080) answers 200 `{"ok":true,"version":…}`; the relay
//! accepts TCP on `KNOTROUTE_BEACON_RELAY_LISTEN` (default 0.0.0.0:7447).
//! The relay carries connections to published `.knot` addresses by the
//! stand-in's own little protocol (`relay`). `/healthz` also says `"standin": true`
//! and the relay address it advertises: `KNOTROUTE_BEACON_RELAY_ADVERTISE`,
//! or without it `<request Host>:<relay port in the container>`, as the real
//! Beacon does.

use crate::http;
use serde_json::json;
use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};

pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "-standin");

/// A started Beacon: where it listens.
#[derive(Debug)]
pub struct Started {
    pub api: SocketAddr,
    pub relay: Option<SocketAddr>,
}

/// Starts the API and relay listeners on background threads, from `env`
/// (the process environment in the image). `Err` is the stderr line.
pub fn start(env: &HashMap<String, String>) -> Result<Started, String> {
    let get = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let network = get("KNOTROUTE_NETWORK_ID").ok_or(
        "KNOTROUTE_NETWORK_ID is required: the Network ID this Beacon serves (kn_ and 52 base32 characters)",
    )?;
    protocol::NetworkId::parse(network).map_err(|_| {
        "KNOTROUTE_NETWORK_ID is not a Network ID: write kn_ followed by 52 base32 characters"
            .to_string()
    })?;
    let listen = get("KNOTROUTE_BEACON_LISTEN").unwrap_or("0.0.0.0:8080");
    let api = TcpListener::bind(listen)
        .map_err(|e| format!("cannot listen on KNOTROUTE_BEACON_LISTEN={listen}: {e}"))?;
    let relay_on = get("KNOTROUTE_BEACON_RELAY").is_none_or(|v| v != "false");
    let relay = if relay_on {
        let at = get("KNOTROUTE_BEACON_RELAY_LISTEN").unwrap_or("0.0.0.0:7447");
        let listener = TcpListener::bind(at)
            .map_err(|e| format!("cannot listen on KNOTROUTE_BEACON_RELAY_LISTEN={at}: {e}"))?;
        Some(listener)
    } else {
        None
    };
    let started = Started {
        api: api.local_addr().map_err(|e| e.to_string())?,
        relay: relay.as_ref().and_then(|l| l.local_addr().ok()),
    };
    if let Some(listener) = relay {
        crate::relay::serve(listener);
    }
    let advertise = get("KNOTROUTE_BEACON_RELAY_ADVERTISE").map(str::to_string);
    let relay_port = started.relay.map(|a| a.port());
    http::serve(api, move |request| match request.path.as_str() {
        "/healthz" if request.method == "GET" => {
            let advertised = relay_port.map(|port| match &advertise {
                Some(fixed) => fixed.clone(),
                None => {
                    let host = request.host.as_deref().unwrap_or("localhost");
                    format!("{}:{port}", http::host_without_port(host))
                }
            });
            (
                200,
                json!({"ok": true, "version": VERSION, "standin": true, "relay_advertise": advertised}),
            )
        }
        _ => (404, json!({"error": "not found"})),
    });
    Ok(started)
}
