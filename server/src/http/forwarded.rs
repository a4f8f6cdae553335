//! The trusted-proxy rule: what a request's forwarded headers may say about
//! its client. Every place that wants the client's address, whether it came
//! over HTTPS, or the host it asked for reads the request through
//! [`Forwarded::of`], so a client that reaches Control's port directly can
//! never choose its own address (and with it a fresh sign-in budget).
//!
//! `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` count only
//! when the direct peer is in `KNOTROUTE_CONTROL_TRUSTED_PROXIES`. The client
//! is then the rightmost `X-Forwarded-For` entry that is not itself a trusted
//! proxy: each proxy appends the address it saw, so everything left of the
//! first untrusted entry may have been written by the client. RFC 7239
//! `Forwarded` is not read.

use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// The reverse proxies whose forwarded headers are believed; empty: none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

/// Loopback only: a proxy on the same host (or in the same network namespace).
pub const DEFAULT_TRUSTED_PROXIES: &str = "127.0.0.0/8,::1/128";

impl TrustedProxies {
    /// Trusts no peer: forwarded headers are ignored.
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// A comma-separated list of CIDRs (`10.0.0.0/8`, `fd00::/8`) or single
    /// addresses; empty items (a trailing comma) are skipped. The error is
    /// the first item that is neither.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut nets = Vec::new();
        for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let net = match item.parse::<IpNet>() {
                Ok(net) => net,
                Err(_) => match item.parse::<IpAddr>() {
                    Ok(ip) => IpNet::from(ip),
                    Err(_) => return Err(item.chars().take(80).collect()),
                },
            };
            nets.push(net.trunc());
        }
        Ok(Self(nets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// Whether `peer` may speak for the client through forwarded headers.
    pub fn trusts(&self, peer: Option<SocketAddr>) -> bool {
        peer.is_some_and(|p| self.contains(p.ip()))
    }
}

impl std::fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list: Vec<String> = self.0.iter().map(IpNet::to_string).collect();
        f.write_str(&list.join(","))
    }
}

/// What a request says about its origin, after the trusted-proxy rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forwarded {
    /// The client: the direct peer, or the address a trusted proxy reported.
    pub client: Option<IpAddr>,
    /// A trusted proxy said the client used HTTPS (`X-Forwarded-Proto`).
    pub https: bool,
    /// `X-Forwarded-For` was present but not believed (for a one-time hint).
    pub ignored_forwarded_for: bool,
}

/// All values of a header that may be repeated, joined as one list.
fn joined(headers: &HeaderMap, name: &str) -> Option<String> {
    let mut values = headers.get_all(name).iter().peekable();
    values.peek()?;
    let mut out = Vec::new();
    for v in values {
        // A value that is not visible ASCII cannot be read: treat the header
        // as unusable rather than guess which part to believe.
        out.push(v.to_str().ok()?.to_string());
    }
    Some(out.join(","))
}

/// One `X-Forwarded-For` item: `ip`, `ip:port`, `[v6]` or `[v6]:port`.
fn entry_ip(item: &str) -> Option<IpAddr> {
    let item = item.trim();
    if let Ok(ip) = item.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(sock) = item.parse::<SocketAddr>() {
        return Some(sock.ip().to_canonical());
    }
    item.strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|inner| inner.parse::<std::net::Ipv6Addr>().ok())
        .map(|v6| IpAddr::V6(v6).to_canonical())
}

impl Forwarded {
    /// Reads `headers` as sent by `peer` under `trusted`.
    pub fn of(headers: &HeaderMap, peer: Option<SocketAddr>, trusted: &TrustedProxies) -> Self {
        let peer_ip = peer.map(|p| p.ip().to_canonical());
        if !trusted.trusts(peer) {
            return Self {
                client: peer_ip,
                https: false,
                ignored_forwarded_for: headers.contains_key("x-forwarded-for"),
            };
        }
        Self {
            client: joined(headers, "x-forwarded-for")
                .as_deref()
                .and_then(|list| rightmost_untrusted(list, trusted))
                .or(peer_ip),
            https: joined(headers, "x-forwarded-proto").is_some_and(|list| {
                // The nearest proxy's word: the last value (a chain may append).
                list.rsplit(',')
                    .next()
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
            }),
            ignored_forwarded_for: false,
        }
    }
}

/// The rightmost entry that is not a trusted proxy. An unreadable entry met
/// on the way means a trusted hop wrote something we cannot use: `None`, so
/// the caller falls back to the peer (all such clients share its address,
/// which can only make their limit tighter, never looser). When every entry
/// is trusted, the client itself is inside a trusted network: the leftmost.
fn rightmost_untrusted(list: &str, trusted: &TrustedProxies) -> Option<IpAddr> {
    let mut leftmost = None;
    for item in list.rsplit(',') {
        let ip = entry_ip(item)?;
        if !trusted.contains(ip) {
            return Some(ip);
        }
        leftmost = Some(ip);
    }
    leftmost
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn loopback() -> TrustedProxies {
        TrustedProxies::parse(DEFAULT_TRUSTED_PROXIES).unwrap()
    }

    fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_bytes(v).unwrap(),
            );
        }
        h
    }

    fn client(pairs: &[(&str, &[u8])], peer: &str, trusted: &TrustedProxies) -> Option<String> {
        Forwarded::of(&headers(pairs), Some(peer.parse().unwrap()), trusted)
            .client
            .map(|ip| ip.to_string())
    }

    #[test]
    fn the_list_takes_cidrs_and_single_addresses_and_names_a_bad_item() {
        let t = TrustedProxies::parse(" 10.0.0.0/8, 192.0.2.7 ,fd00::/8,, ").unwrap();
        assert!(t.contains("10.1.2.3".parse().unwrap()));
        assert!(t.contains("192.0.2.7".parse().unwrap()));
        assert!(!t.contains("192.0.2.8".parse().unwrap()));
        assert!(t.contains("fd12::1".parse().unwrap()));
        assert!(
            t.contains("::ffff:10.0.0.1".parse().unwrap()),
            "mapped IPv4"
        );
        // Host bits are dropped, not refused.
        assert_eq!(
            TrustedProxies::parse("10.1.2.3/8").unwrap().to_string(),
            "10.0.0.0/8"
        );
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        for bad in [
            "10.0.0/8",
            "10.0.0.0/33",
            "::1/129",
            "localhost",
            "10.0.0.0/8;192.0.2.0/24",
            "*",
            "10.0.0.0 /8",
            "fe80::1%eth0",
        ] {
            assert!(TrustedProxies::parse(bad).is_err(), "{bad} is refused");
        }
        assert_eq!(
            TrustedProxies::parse("127.0.0.0/8,nonsense").unwrap_err(),
            "nonsense"
        );
    }

    #[test]
    fn forwarded_headers_from_an_untrusted_peer_are_ignored() {
        let t = loopback();
        let spoof: &[(&str, &[u8])] = &[
            ("x-forwarded-for", b"127.0.0.1"),
            ("x-forwarded-proto", b"https"),
        ];
        let seen = Forwarded::of(
            &headers(spoof),
            Some("203.0.113.5:999".parse().unwrap()),
            &t,
        );
        assert_eq!(seen.client, Some("203.0.113.5".parse().unwrap()));
        assert!(!seen.https && !t.trusts(Some("203.0.113.5:999".parse().unwrap())));
        assert!(seen.ignored_forwarded_for);
        // No trust configured at all: even loopback peers are not believed.
        let none = TrustedProxies::none();
        assert_eq!(
            client(
                &[("x-forwarded-for", b"198.51.100.1")],
                "127.0.0.1:1",
                &none
            )
            .as_deref(),
            Some("127.0.0.1")
        );
        // No peer known: nothing to trust.
        assert_eq!(Forwarded::of(&headers(spoof), None, &t).client, None);
    }

    #[test]
    fn behind_trusted_proxies_the_rightmost_untrusted_entry_is_the_client() {
        let t = TrustedProxies::parse("127.0.0.0/8,10.0.0.0/8").unwrap();
        let peer = "127.0.0.1:4000";
        // (X-Forwarded-For as received, the client we must take)
        let table: &[(&[u8], &str)] = &[
            (b"198.51.100.7", "198.51.100.7"),
            // The client prepended a lie; the proxy appended the truth.
            (b"127.0.0.1, 198.51.100.7", "198.51.100.7"),
            (b"1.1.1.1,2.2.2.2, 198.51.100.7", "198.51.100.7"),
            // Two trusted hops between the client and us.
            (b"198.51.100.7, 10.0.0.5, 10.0.0.6", "198.51.100.7"),
            (b"evil, 198.51.100.7, 10.0.0.5", "198.51.100.7"),
            // Ports and brackets as some proxies write them.
            (b"198.51.100.7:5555", "198.51.100.7"),
            (b"[2001:db8::7]:5555", "2001:db8::7"),
            (b"[2001:db8::7]", "2001:db8::7"),
            (b"::ffff:198.51.100.7", "198.51.100.7"),
            // Unreadable where a trusted hop wrote: fall back to the peer.
            (b"198.51.100.7, garbage", "127.0.0.1"),
            (b"198.51.100.7, 10.0.0.5, unknown", "127.0.0.1"),
            (b"", "127.0.0.1"),
            (b" , ", "127.0.0.1"),
            (b"198.51.100.7,", "127.0.0.1"),
            (b"fe80::1%eth0", "127.0.0.1"),
            (b"999.1.1.1", "127.0.0.1"),
            (b"198.51.100.7\t", "198.51.100.7"),
            // Every hop trusted: the client is inside the trusted network.
            (b"10.0.0.9, 10.0.0.5", "10.0.0.9"),
            // Non-ASCII bytes make the header unusable.
            (b"198.51.100.7, \xff10.0.0.5", "127.0.0.1"),
        ];
        for (xff, want) in table {
            assert_eq!(
                client(&[("x-forwarded-for", xff)], peer, &t).as_deref(),
                Some(*want),
                "X-Forwarded-For {:?}",
                String::from_utf8_lossy(xff)
            );
        }
        // Repeated headers form one list, in order.
        assert_eq!(
            client(
                &[
                    ("x-forwarded-for", b"127.0.0.1"),
                    ("x-forwarded-for", b"198.51.100.7")
                ],
                peer,
                &t
            )
            .as_deref(),
            Some("198.51.100.7")
        );
        // A dual-stack listener reports IPv4 peers as mapped addresses.
        assert_eq!(
            client(
                &[("x-forwarded-for", b"198.51.100.7")],
                "[::ffff:127.0.0.1]:4000",
                &t
            )
            .as_deref(),
            Some("198.51.100.7")
        );
    }

    #[test]
    fn the_scheme_is_the_nearest_trusted_proxys_word() {
        let t = loopback();
        let https = |proto: &[u8]| {
            Forwarded::of(
                &headers(&[("x-forwarded-proto", proto)]),
                Some("127.0.0.1:1".parse().unwrap()),
                &t,
            )
            .https
        };
        assert!(https(b"https"));
        assert!(https(b"HTTPS"));
        assert!(https(b"http, https"));
        assert!(!https(b"https, http"));
        assert!(!https(b"http"));
        assert!(!https(b"https2"));
        assert!(!https(b""));
        assert!(!https(b"\xffhttps"));
    }
}
