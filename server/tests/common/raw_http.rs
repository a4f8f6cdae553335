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

/// A form post as a browser sends it: from `origin` and `referer`, taking
/// HTML, with the session `cookie` (none when empty).
pub async fn post_form(
    addr: SocketAddr,
    origin: &str,
    cookie: &str,
    path: &str,
    referer: &str,
    body: &str,
) -> RawAnswer {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nReferer: {referer}\r\n\
         {}Accept: text/html,application/xhtml+xml\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        cookie_line(cookie),
        body.len()
    );
    raw_http(addr, request.as_bytes()).await
}

/// A page as a browser asks for it, with the session `cookie` (none when empty).
pub async fn get_page(addr: SocketAddr, cookie: &str, target: &str) -> RawAnswer {
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\n{}Accept: text/html\r\nConnection: close\r\n\r\n",
        cookie_line(cookie)
    );
    raw_http(addr, request.as_bytes()).await
}

/// The text of a page's alert line (`<p … id="{id}">`).
pub fn alert_line(html: &str, id: &str) -> String {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no {id} in {html}"));
    let open = start + html[start..].find('>').unwrap() + 1;
    let close = open + html[open..].find("</p>").unwrap();
    html[open..close].replace("<!>", "").trim().to_string()
}

/// Whether `html` holds a plain form that posts to `action` with these
/// hidden fields (app::pages::plain_action::RowAction).
pub fn offers_form(html: &str, action: &str, fields: &[(&str, &str)]) -> bool {
    html.contains(&format!("action=\"{action}\""))
        && fields.iter().all(|(name, value)| {
            html.contains(&format!(
                "<input type=\"hidden\" name=\"{name}\" value=\"{value}\""
            ))
        })
}

fn cookie_line(cookie: &str) -> String {
    if cookie.is_empty() {
        String::new()
    } else {
        format!("Cookie: {cookie}\r\n")
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
