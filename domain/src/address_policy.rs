//! Which addresses Control may connect to for Beacon checks, Diagnose and
//! alert webhooks: one function, [`refused_address`], that every outbound
//! path asks before it connects.
//!
//! An IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-compatible,
//! SIIT, NAT64, 6to4, Teredo) is judged as the IPv4 address it carries, so
//! `[::ffff:169.254.169.254]` or `[64:ff9b::a9fe:a9fe]` is refused like
//! `169.254.169.254`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which addresses Beacon checks, Diagnose and webhooks may contact besides
/// public ones (KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS), and for whom.
///
/// Private addresses are Control's own surroundings: a check's answer
/// (status, body excerpt) read from one tells what runs there. So only
/// someone who may change Control-wide settings points Control at them; for
/// anyone else a check or diagnosis runs as if private addresses were
/// refused ([`AddressPolicy::for_asker`]), and so do Control's own checks of
/// a profile whose Beacons such a person listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressPolicy {
    /// Private, loopback and shared (CGNAT) addresses: allowed by default,
    /// as self-hosted Beacons often live on them.
    pub allow_private: bool,
    /// Refused not by the setting but because of who asked (or listed the
    /// Beacon): what a refusal then says.
    pub refused_for_asker: bool,
}

impl Default for AddressPolicy {
    fn default() -> Self {
        Self::setting(true)
    }
}

impl AddressPolicy {
    /// The policy KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS sets.
    pub const fn setting(allow_private: bool) -> Self {
        Self {
            allow_private,
            refused_for_asker: false,
        }
    }

    /// This policy for something asked (or listed) by someone who may, or
    /// may not, point Control at private addresses.
    pub fn for_asker(self, may_reach_private: bool) -> Self {
        if may_reach_private || !self.allow_private {
            self
        } else {
            Self {
                allow_private: false,
                refused_for_asker: true,
            }
        }
    }

    /// Why a private address is refused, as a message goes on.
    pub fn private_refusal(&self) -> &'static str {
        if self.refused_for_asker {
            "only someone who may change Control-wide settings may point Control at private, loopback and shared addresses"
        } else {
            "KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=false refuses private, loopback and shared addresses"
        }
    }
}

/// Whether the URL's host is one that is private whatever DNS says: a
/// private, loopback or shared IP literal (in any of its IPv6 forms), or
/// `localhost`. Saving such a Beacon URL needs what a check of it needs.
pub fn names_private_host(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) => is_private(canonical(IpAddr::V4(ip))),
        Some(url::Host::Ipv6(ip)) => is_private(canonical(IpAddr::V6(ip))),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// Cloud metadata services outside 169.254.0.0/16: Alibaba's and AWS's IPv6 one.
const METADATA: [IpAddr; 2] = [
    IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)),
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)),
];

fn v4(hi: u16, lo: u16) -> Ipv4Addr {
    let [a, b] = hi.to_be_bytes();
    let [c, d] = lo.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// The address a connection to `ip` reaches in the end, as far as the
/// address itself says: the IPv4 address an IPv6 form carries, else `ip`.
pub fn canonical(ip: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = ip else {
        return ip;
    };
    let s = v6.segments();
    let carried = match s {
        // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (SIIT, RFC 6145).
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0xffff, 0, hi, lo] => v4(hi, lo),
        // ::a.b.c.d (compatible, deprecated); :: and ::1 are IPv6's own.
        [0, 0, 0, 0, 0, 0, hi, lo] if !v6.is_unspecified() && !v6.is_loopback() => v4(hi, lo),
        // 64:ff9b::a.b.c.d, the well-known NAT64 prefix (RFC 6052).
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => v4(hi, lo),
        // 2002:AABB:CCDD::/48, 6to4 (RFC 3056).
        [0x2002, hi, lo, ..] => v4(hi, lo),
        // 2001:0::/32, Teredo (RFC 4380): the client's address, inverted.
        [0x2001, 0, _, _, _, _, hi, lo] => v4(!hi, !lo),
        _ => return ip,
    };
    IpAddr::V4(carried)
}

/// 169.254.0.0/16 (where cloud metadata services answer) and fe80::/10.
fn is_link_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80,
    }
}

/// 0.0.0.0/8 ("this network": 0.0.0.0 reaches this host) and `::`.
fn is_unspecified(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.octets()[0] == 0,
        IpAddr::V6(v6) => v6.is_unspecified(),
    }
}

/// RFC 1918, loopback, 100.64.0.0/10 (shared address space), IPv6 loopback,
/// unique-local fc00::/7 and the local-use NAT64 prefix 64:ff9b:1::/48 (it
/// translates to IPv4 addresses that cannot be read from the address).
fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_private() || v4.is_loopback() || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            v6.is_loopback() || (s[0] & 0xfe00) == 0xfc00 || s[..3] == [0x64, 0xff9b, 1]
        }
    }
}

/// Why Control never connects to `ip`, if it must not: link-local addresses,
/// the unspecified ones (they reach this host) and the cloud metadata
/// services, whatever the policy; private addresses when the policy refuses
/// them. Every IPv6 form of an IPv4 address is judged as that address.
pub fn refused_address(ip: IpAddr, policy: AddressPolicy) -> Option<&'static str> {
    let ip = canonical(ip);
    if is_link_local(ip) {
        Some("link-local")
    } else if is_unspecified(ip) {
        Some("unspecified")
    } else if METADATA.contains(&ip) {
        Some("cloud metadata")
    } else if !policy.allow_private && is_private(ip) {
        Some("private")
    } else {
        None
    }
}

/// `ip` for a message, with the IPv4 address it carries when it carries one.
pub fn shown(ip: IpAddr) -> String {
    match canonical(ip) {
        carried if carried != ip => format!("{ip} (that is {carried})"),
        _ => ip.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: AddressPolicy = AddressPolicy::setting(false);
    const OPEN: AddressPolicy = AddressPolicy::setting(true);

    #[test]
    fn someone_who_may_not_change_settings_is_held_to_public_addresses() {
        let for_them = OPEN.for_asker(false);
        let ip: IpAddr = "10.0.0.5".parse().unwrap();
        assert_eq!(refused_address(ip, for_them), Some("private"));
        assert!(for_them.private_refusal().contains("Control-wide settings"));
        assert_eq!(refused_address(ip, OPEN.for_asker(true)), None);
        // The setting's own refusal stays the setting's.
        assert!(STRICT
            .for_asker(false)
            .private_refusal()
            .contains("ALLOW_PRIVATE"));
    }

    #[test]
    fn private_hosts_are_told_from_the_url_alone_in_every_spelling() {
        for url in [
            "http://10.0.0.5:8080",
            "http://127.0.0.1",
            "http://[::1]:8080",
            "http://[::ffff:192.168.1.1]",
            "http://[::ffff:c0a8:101]",
            "https://100.64.3.4",
            "http://localhost:8080",
            "http://LOCALHOST.",
            "http://beacon.localhost",
            "http://[fd12::1]",
            "http://0x7f.1",
            "http://2130706433",
        ] {
            assert!(names_private_host(url), "{url}");
        }
        for url in [
            "https://beacon.example.net",
            "http://203.0.113.5:8080",
            "http://[2001:db8::1]",
            "http://localhost.example.net",
            "not a url",
        ] {
            assert!(!names_private_host(url), "{url}");
        }
    }

    /// Every IPv6 spelling of an IPv4 address that Control could be led to.
    fn forms(v4: Ipv4Addr) -> Vec<IpAddr> {
        let [a, b, c, d] = v4.octets();
        let (hi, lo) = (u16::from_be_bytes([a, b]), u16::from_be_bytes([c, d]));
        let v6 = |s: [u16; 8]| IpAddr::V6(Ipv6Addr::from(s));
        vec![
            IpAddr::V4(v4),
            v6([0, 0, 0, 0, 0, 0xffff, hi, lo]),
            v6([0, 0, 0, 0, 0xffff, 0, hi, lo]),
            v6([0, 0, 0, 0, 0, 0, hi, lo]),
            v6([0x64, 0xff9b, 0, 0, 0, 0, hi, lo]),
            v6([0x2002, hi, lo, 0, 0, 0, 0, 1]),
            v6([0x2001, 0, 0x4136, 0xe378, 0x8000, 0x63bf, !hi, !lo]),
        ]
    }

    #[test]
    fn every_form_of_a_metadata_or_unspecified_address_is_refused_whatever_the_policy() {
        for (address, why) in [
            ("169.254.169.254", "link-local"),
            ("169.254.0.1", "link-local"),
            ("100.100.100.200", "cloud metadata"),
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
        ] {
            for ip in forms(address.parse().unwrap()) {
                assert_eq!(refused_address(ip, OPEN), Some(why), "{ip} ({address})");
                assert_eq!(refused_address(ip, STRICT), Some(why), "{ip} ({address})");
            }
        }
        for (address, why) in [
            ("fd00:ec2::254", "cloud metadata"),
            ("fe80::1", "link-local"),
            ("febf::1", "link-local"),
            ("::", "unspecified"),
        ] {
            let ip: IpAddr = address.parse().unwrap();
            assert_eq!(refused_address(ip, OPEN), Some(why), "{ip}");
            assert_eq!(refused_address(ip, STRICT), Some(why), "{ip}");
        }
    }

    #[test]
    fn every_form_of_a_private_address_follows_the_policy() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "100.64.0.1",
        ] {
            for ip in forms(address.parse().unwrap()) {
                assert_eq!(refused_address(ip, STRICT), Some("private"), "{ip}");
                assert_eq!(refused_address(ip, OPEN), None, "{ip}");
            }
        }
        for address in ["::1", "fd12::1", "fc00::1", "64:ff9b:1::a9fe:a9fe"] {
            let ip: IpAddr = address.parse().unwrap();
            assert_eq!(refused_address(ip, STRICT), Some("private"), "{ip}");
            assert_eq!(refused_address(ip, OPEN), None, "{ip}");
        }
    }

    #[test]
    fn ordinary_public_addresses_stay_allowed_in_every_form() {
        for address in ["203.0.113.5", "8.8.8.8", "100.128.0.1", "1.1.1.1"] {
            for ip in forms(address.parse().unwrap()) {
                assert_eq!(refused_address(ip, STRICT), None, "{ip}");
                assert_eq!(refused_address(ip, OPEN), None, "{ip}");
            }
        }
        for address in [
            "2001:db8::1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "fec0::1",
        ] {
            let ip: IpAddr = address.parse().unwrap();
            assert_eq!(refused_address(ip, STRICT), None, "{ip}");
        }
    }

    #[test]
    fn the_carried_address_is_named_in_messages() {
        let ip: IpAddr = "64:ff9b::a9fe:a9fe".parse().unwrap();
        assert_eq!(shown(ip), "64:ff9b::a9fe:a9fe (that is 169.254.169.254)");
        assert_eq!(shown("10.0.0.1".parse().unwrap()), "10.0.0.1");
    }
}
