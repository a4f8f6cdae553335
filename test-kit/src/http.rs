//! The little HTTP/1.1 the stand-in images speak, on std threads: read one
//! request line and its headers, answer with JSON, close. And the one GET
//! the sidecar sends to a Beacon's `/healthz`. No TLS, no keep-alive.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

/// What a handler sees of a request.
#[derive(Debug, Default)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The `Host` header as sent, e.g. `beacon.example.net:18080`.
    pub host: Option<String>,
}

/// A response: status and a JSON body.
pub type Response = (u16, serde_json::Value);

/// Serves `listener` forever on a thread per connection.
pub fn serve(
    listener: TcpListener,
    handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
) {
    let handler = Arc::new(handler);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let handler = handler.clone();
            std::thread::spawn(move || answer(stream, &*handler));
        }
    });
}

fn answer(mut stream: TcpStream, handler: &(dyn Fn(&Request) -> Response + Send + Sync)) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let Some(request) = read_request(&stream) else {
        return;
    };
    let (status, body) = handler(&request);
    let body = body.to_string();
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        503 => "Service Unavailable",
        _ => "Stand-in",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    // At most 8 KiB of request head; a stand-in needs no more.
    let mut reader = BufReader::new(stream.take(8192));
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let mut request = Request {
        method: parts.next()?.to_string(),
        path: parts.next()?.to_string(),
        host: None,
    };
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 || line.trim().is_empty() {
            return Some(request);
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("host") {
                request.host = Some(value.trim().to_string());
            }
        }
    }
}

/// The host part of a `Host` header (`[::1]:80` → `[::1]`, `a.example:80` → `a.example`).
pub fn host_without_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    host.rsplit_once(':').map_or(host, |(h, _)| h)
}

/// Whether a Beacon answers: for `http://` a GET of `<url>/healthz` that
/// answers 200; for `https://` a TCP connect (the stand-in speaks no TLS).
/// `Err` says why not, in a few words.
pub fn beacon_reachable(beacon: &str, timeout: Duration) -> Result<(), String> {
    healthz(beacon, timeout).map(|_| ())
}

/// The relay a Beacon advertises on its `/healthz` (`host:port`); only for
/// `http://` Beacons, as the stand-ins speak no TLS.
pub fn beacon_relay(beacon: &str, timeout: Duration) -> Result<String, String> {
    let body = healthz(beacon, timeout)?.ok_or("an https Beacon: the stand-in speaks no TLS")?;
    let value: serde_json::Value =
        serde_json::from_str(&body).map_err(|_| "/healthz did not answer JSON".to_string())?;
    value["relay_advertise"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "the Beacon advertises no relay".to_string())
}

/// `GET <beacon>/healthz`: its body when it answered 200 (`None` for an
/// `https://` Beacon that accepted a connection).
fn healthz(beacon: &str, timeout: Duration) -> Result<Option<String>, String> {
    let url = url::Url::parse(beacon).map_err(|_| "not a URL".to_string())?;
    let host = url.host_str().ok_or("no host")?.to_string();
    let port = url.port_or_known_default().ok_or("no port")?;
    let addrs: Vec<_> = (host.trim_matches(['[', ']']), port)
        .to_socket_addrs()
        .map_err(|e| format!("{host} does not resolve ({e})"))?
        .collect();
    let mut why = format!("{host} has no address");
    for addr in addrs {
        let mut stream = match TcpStream::connect_timeout(&addr, timeout) {
            Ok(stream) => stream,
            Err(e) => {
                why = format!("cannot connect to {addr}: {e}");
                continue;
            }
        };
        if url.scheme() == "https" {
            return Ok(None);
        }
        let _ = stream.set_read_timeout(Some(timeout));
        let authority = url.port().map_or(host.clone(), |p| format!("{host}:{p}"));
        let sent = write!(
            stream,
            "GET /healthz HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
        );
        if let Err(e) = sent {
            why = format!("{addr}: {e}");
            continue;
        }
        let mut answer = String::new();
        let _ = stream.take(65536).read_to_string(&mut answer);
        let status = answer.lines().next().unwrap_or_default();
        match status.split_whitespace().nth(1) {
            Some("200") => {
                let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
                return Ok(Some(body.to_string()));
            }
            Some(code) => why = format!("/healthz answered HTTP {code}"),
            None => why = format!("{addr} did not answer HTTP"),
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_headers_lose_their_port() {
        assert_eq!(
            host_without_port("beacon.example.net:18080"),
            "beacon.example.net"
        );
        assert_eq!(host_without_port("localhost"), "localhost");
        assert_eq!(host_without_port("[::1]:8080"), "[::1]");
    }
}
