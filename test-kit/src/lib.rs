//! What the server's tests, the browser tests and the examples share.
//!
//! [`SimAgent`] speaks the Agent protocol and [`signed_in_admin`] is the
//! admin's client (feature `clients`). And local servers standing in for
//! Beacons: one answering with a chosen status, one that never
//! answers, one speaking TLS with a certificate nobody trusts, and a closed
//! port; and a webhook receiver for alerts. Each runs on the caller's tokio
//! runtime on a free loopback port.
//!
//! [`beacon`], [`sidecar`] and [`node`] are the STAND-INS for the real
//! KnotRoute images (which come from a registry tests cannot reach): the
//! `standin-beacon`, `standin-sidecar` and `standin-node` programs that
//! scripts/standin-images.sh builds into local images tagged like the real
//! ones. Their overlay ([`relay`]) is the stand-ins' own.

#[cfg(feature = "clients")]
pub mod authenticator;
pub mod beacon;
#[cfg(feature = "clients")]
mod clients;
mod http;
pub mod node;
#[cfg(feature = "clients")]
pub mod oidc;
pub mod relay;
pub mod sidecar;
#[cfg(feature = "v1-control")]
pub mod v1_control;

#[cfg(feature = "clients")]
pub use clients::{
    browser_like_client, signed_in_admin, signed_post, AdminClient, SimAgent, TestControl,
    TEST_ENROLL_TOKEN,
};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `http://127.0.0.1:<port>` answering every request with `status` and `body`.
pub async fn http_beacon(status: u16, body: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request).await;
                let response = format!(
                    "HTTP/1.1 {status} Stand-in\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    url
}

/// Accepts connections and never answers.
pub async fn silent_beacon() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    url
}

/// HTTPS with a self-signed certificate no client trusts (fixtures/).
pub async fn untrusted_tls_beacon() -> String {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let certs = CertificateDer::pem_file_iter(dir.join("untrusted-test-cert.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("untrusted-test-key.pem")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // The client gives up during the handshake; nothing to serve.
                let _ = acceptor.accept(stream).await;
            });
        }
    });
    url
}

/// A URL whose port nothing listens on (bound, then released).
pub fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// Alert bodies a [`webhook_receiver`] accepted, in order.
pub type Received = Arc<std::sync::Mutex<Vec<String>>>;

/// `http://127.0.0.1:<port>/hook` accepting every POST with 204 and keeping its body.
pub async fn webhook_receiver() -> (String, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let received: Received = Arc::default();
    let kept = received.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut chunk = [0u8; 4096];
                // Headers, then as much body as Content-Length says.
                let body = loop {
                    let Ok(n) = stream.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&request).to_string();
                    let Some(end) = text.find("\r\n\r\n") else {
                        continue;
                    };
                    let length = text[..end]
                        .lines()
                        .find_map(|l| {
                            let (name, value) = l.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break String::from_utf8_lossy(&request[end + 4..end + 4 + length])
                            .to_string();
                    }
                };
                kept.lock().unwrap().push(body);
                let _ = stream
                    .write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    (url, received)
}
