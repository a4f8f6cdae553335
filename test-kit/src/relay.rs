//! The STAND-IN overlay: how the stand-in Beacon, sidecar and node carry a
//! TCP connection to a `.knot` address. The real KnotRoute relay protocol is
//! not ours and not here; this one only has the same shape (both ends dial
//! out to a Beacon's relay port, nothing dials into the service's host).
//!
//! On the relay port, a connection starts with one line:
//! - `PUBLISH <address>`: a sidecar offering `<address>.knot`; the relay
//!   answers `DIAL <id>` lines on it for each client that wants it.
//! - `OPEN <address>`: a node wanting it; answered `OK` (then the bytes of
//!   the service's connection) or `ERR <why>`.
//! - `ACCEPT <id>`: the sidecar's new connection for client `<id>`; from then
//!   on the relay splices the two.
//!
//! Anything else is held until the peer closes it, as before (a port check).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a client waits for the service's side to come.
const ACCEPT_WITHIN: Duration = Duration::from_secs(10);
const DIAL_RETRY: Duration = Duration::from_secs(2);

#[derive(Default)]
struct Table {
    /// Each published address's control connection.
    published: HashMap<String, TcpStream>,
    /// Clients waiting for their `ACCEPT`, by id.
    waiting: HashMap<u64, TcpStream>,
    next: u64,
}

/// Reads one `\n`-ended line byte by byte (what follows is payload, so no
/// buffered reader may take it), at most 256 bytes.
pub fn read_line(stream: &mut TcpStream) -> Option<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 256 {
        match stream.read(&mut byte) {
            Ok(1) if byte[0] == b'\n' => {
                return String::from_utf8(line).ok().map(|l| l.trim().to_string());
            }
            Ok(1) => line.push(byte[0]),
            _ => return None,
        }
    }
    None
}

/// Copies both ways until each side is done, then closes both.
pub fn splice(a: TcpStream, b: TcpStream) {
    let (Ok(a2), Ok(b2)) = (a.try_clone(), b.try_clone()) else {
        return;
    };
    let one_way = |mut from: TcpStream, mut to: TcpStream| {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Write);
    };
    let forth = std::thread::spawn(move || one_way(a, b2));
    one_way(b, a2);
    let _ = forth.join();
}

/// Serves the relay port forever (the stand-in Beacon's).
pub fn serve(listener: TcpListener) {
    let table = Arc::new(Mutex::new(Table::default()));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let table = table.clone();
            std::thread::spawn(move || handle(stream, &table));
        }
    });
}

fn handle(mut stream: TcpStream, table: &Arc<Mutex<Table>>) {
    let Some(line) = read_line(&mut stream) else {
        return;
    };
    let (verb, arg) = line.split_once(' ').unwrap_or((line.as_str(), ""));
    match verb {
        "PUBLISH" if !arg.is_empty() => {
            let Ok(control) = stream.try_clone() else {
                return;
            };
            table
                .lock()
                .unwrap()
                .published
                .insert(arg.to_string(), control);
            // Held until the sidecar goes away.
            let _ = std::io::copy(&mut stream, &mut std::io::sink());
            let mut t = table.lock().unwrap();
            let ours =
                t.published.get(arg).and_then(|c| c.peer_addr().ok()) == stream.peer_addr().ok();
            if ours {
                t.published.remove(arg);
            }
        }
        "OPEN" => {
            let id = {
                let mut t = table.lock().unwrap();
                let Some(mut control) = t.published.get(arg).and_then(|c| c.try_clone().ok())
                else {
                    drop(t);
                    let _ = stream
                        .write_all(b"ERR no sidecar has published this address on this Beacon\n");
                    return;
                };
                t.next += 1;
                let id = t.next;
                if control
                    .write_all(format!("DIAL {id}\n").as_bytes())
                    .is_err()
                {
                    t.published.remove(arg);
                    drop(t);
                    let _ = stream.write_all(b"ERR the sidecar went away\n");
                    return;
                }
                t.waiting.insert(id, stream);
                id
            };
            std::thread::sleep(ACCEPT_WITHIN);
            if let Some(mut late) = table.lock().unwrap().waiting.remove(&id) {
                let _ = late.write_all(b"ERR the sidecar did not answer\n");
            }
        }
        "ACCEPT" => {
            let client = arg
                .parse::<u64>()
                .ok()
                .and_then(|id| table.lock().unwrap().waiting.remove(&id));
            if let Some(mut client) = client {
                if client.write_all(b"OK\n").is_ok() {
                    splice(client, stream);
                }
            }
        }
        _ => {
            let _ = std::io::copy(&mut stream, &mut std::io::sink());
        }
    }
}

fn connect(relay: &str) -> Result<TcpStream, String> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<_> = relay
        .to_socket_addrs()
        .map_err(|e| format!("relay {relay} does not resolve ({e})"))?
        .collect();
    let mut why = format!("relay {relay} has no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(3)) {
            Ok(stream) => return Ok(stream),
            Err(e) => why = format!("cannot connect to relay {addr}: {e}"),
        }
    }
    Err(why)
}

/// A node's connection to `address` through `relay` (`host:port`).
pub fn open(relay: &str, address: &str) -> Result<TcpStream, String> {
    let mut stream = connect(relay)?;
    stream
        .write_all(format!("OPEN {address}\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let _ = stream.set_read_timeout(Some(ACCEPT_WITHIN + Duration::from_secs(2)));
    match read_line(&mut stream) {
        Some(ok) if ok == "OK" => {
            let _ = stream.set_read_timeout(None);
            Ok(stream)
        }
        Some(err) => Err(err.trim_start_matches("ERR ").to_string()),
        None => Err(format!("relay {relay} closed the connection")),
    }
}

/// A sidecar's side: offers `address` on `relay` until the process ends,
/// dialling `target` (`host:port`) for each client. Reconnects when the
/// relay goes away.
pub fn publish(relay: String, address: String, target: String) {
    std::thread::spawn(move || loop {
        if let Ok(mut control) = connect(&relay) {
            if control
                .write_all(format!("PUBLISH {address}\n").as_bytes())
                .is_ok()
            {
                while let Some(line) = read_line(&mut control) {
                    let Some(id) = line.strip_prefix("DIAL ") else {
                        continue;
                    };
                    let (relay, target, id) = (relay.clone(), target.clone(), id.to_string());
                    std::thread::spawn(move || {
                        let Ok(service) = TcpStream::connect(&target) else {
                            eprintln!("knotroute-sidecar: cannot connect to the target {target}");
                            return;
                        };
                        if let Ok(mut back) = connect(&relay) {
                            if back.write_all(format!("ACCEPT {id}\n").as_bytes()).is_ok() {
                                splice(back, service);
                            }
                        }
                    });
                }
            }
        }
        std::thread::sleep(DIAL_RETRY);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_reaches_the_published_target_through_the_relay() {
        let relay = TcpListener::bind("127.0.0.1:0").unwrap();
        let relay_at = relay.local_addr().unwrap().to_string();
        serve(relay);
        let target = TcpListener::bind("127.0.0.1:0").unwrap();
        let target_at = target.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            for mut s in target.incoming().flatten() {
                let mut buf = [0u8; 5];
                s.read_exact(&mut buf).unwrap();
                s.write_all(&buf.map(|b| b.to_ascii_uppercase())).unwrap();
            }
        });
        let unknown = open(&relay_at, "nobody").unwrap_err();
        assert!(unknown.contains("no sidecar"), "{unknown}");
        publish(relay_at.clone(), "svc".into(), target_at);
        let mut stream = (0..50)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(100));
                open(&relay_at, "svc").ok()
            })
            .expect("the published address opens");
        stream.write_all(b"hello").unwrap();
        let mut back = [0u8; 5];
        stream.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"HELLO");
    }
}
