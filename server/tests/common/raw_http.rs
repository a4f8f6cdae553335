//! One HTTP/1.1 exchange written to the socket byte for byte. Tests of hostile
//! paths and headers use it, because an HTTP client would resolve, refuse or
//! tidy up exactly the input under test before sending it.

use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What came back: the status, the header block as sent (status line
/// included) and the body, de-chunked so that text split across chunks is
/// still found.
pub struct RawAnswer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl RawAnswer {
    /// Every value of header `name` (case-insensitive), in order.
    pub fn header(&self, name: &str) -> Vec<String> {
        self.head
            .lines()
            .skip(1)
            .filter_map(|line| line.split_once(':'))
            .filter(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
            .collect()
    }
}

/// Sends `request` exactly as given (it should say `Connection: close`) and
/// reads the answer to its end. A connection the server keeps open fails the
/// test after a minute, naming the request, instead of hanging the run (a
/// whole CI run once waited 20 minutes here).
pub async fn raw_http(addr: SocketAddr, request: &[u8]) -> RawAnswer {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).await.unwrap();
        bytes
    };
    let bytes = tokio::time::timeout(std::time::Duration::from_secs(60), exchange)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "no complete answer within 60 s to {:?}",
                String::from_utf8_lossy(request)
            )
        });
    let text = String::from_utf8_lossy(&bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    RawAnswer {
        status,
        head: head.to_string(),
        body: if chunked {
            dechunk(body)
        } else {
            body.to_string()
        },
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            out.push_str(&after[..after.len().min(n)]);
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}
