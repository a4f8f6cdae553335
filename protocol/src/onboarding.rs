//! Onboarding end users: the `knotroute://join` deep link the apps read (its
//! format is a contract with them, like the Agent protocol), the platforms
//! instructions are written for, and the shapes of the invite API.

use crate::validation::{optional_name, FieldError, Problem};
use crate::{InviteId, NetworkId};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::{Deserialize, Serialize};

/// Everything but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`) is
/// escaped: stricter than a query needs, so no app's parser can misread a
/// value. Spaces become `%20`, not `+`: not every parser reads `+` as a space.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What an app needs to join a network: exactly the profile's public
/// connection metadata, never a key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JoinLink {
    pub network_id: String,
    pub name: String,
    pub beacons: Vec<String>,
}

impl JoinLink {
    /// `knotroute://join?network_id=…&name=…&beacon=…` with one `beacon` per URL.
    pub fn to_uri(&self) -> String {
        let enc = |v: &str| utf8_percent_encode(v, QUERY_VALUE).to_string();
        let mut uri = format!(
            "knotroute://join?network_id={}&name={}",
            enc(&self.network_id),
            enc(&self.name)
        );
        for beacon in &self.beacons {
            uri.push_str("&beacon=");
            uri.push_str(&enc(beacon));
        }
        uri
    }

    /// Reads a join link back, as an app would; `None` when it is not one.
    pub fn parse(uri: &str) -> Option<Self> {
        let url = url::Url::parse(uri).ok()?;
        if url.scheme() != "knotroute" || url.host_str() != Some("join") {
            return None;
        }
        let mut link = JoinLink {
            network_id: String::new(),
            name: String::new(),
            beacons: Vec::new(),
        };
        for (key, value) in url.query_pairs() {
            match key.as_ref() {
                "network_id" => link.network_id = value.into_owned(),
                "name" => link.name = value.into_owned(),
                "beacon" => link.beacons.push(value.into_owned()),
                _ => {}
            }
        }
        (!link.network_id.is_empty()).then_some(link)
    }
}

/// Who the instructions are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    Windows,
    Android,
    Ios,
    Linux,
    Docker,
    Raw,
}

impl Platform {
    /// Every platform, in the order the admin screen offers them.
    pub const ALL: [Platform; 6] = [
        Platform::Windows,
        Platform::Android,
        Platform::Ios,
        Platform::Linux,
        Platform::Docker,
        Platform::Raw,
    ];
    /// What an end user's device can be, in the order an invite page lists them
    /// when the visitor's device is not recognised.
    pub const END_USER: [Platform; 4] = [
        Platform::Android,
        Platform::Ios,
        Platform::Windows,
        Platform::Linux,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            Platform::Windows => "windows",
            Platform::Android => "android",
            Platform::Ios => "ios",
            Platform::Linux => "linux",
            Platform::Docker => "docker",
            Platform::Raw => "raw",
        }
    }

    pub fn parse(slug: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|p| p.slug() == slug.trim().to_ascii_lowercase())
    }

    /// The visitor's platform from a `User-Agent` header, when it is one of ours.
    /// Android and iOS are tested before Linux and macOS, whose names their
    /// User-Agents also contain.
    pub fn detect(user_agent: &str) -> Option<Self> {
        let ua = user_agent.to_ascii_lowercase();
        if ua.contains("android") {
            Some(Platform::Android)
        } else if ua.contains("iphone") || ua.contains("ipad") || ua.contains("ipod") {
            // (iPadOS Safari says "Macintosh" and is not recognised: all platforms are listed.)
            Some(Platform::Ios)
        } else if ua.contains("windows") {
            Some(Platform::Windows)
        } else if ua.contains("linux") || ua.contains("x11") {
            Some(Platform::Linux)
        } else {
            None
        }
    }

    /// The end-user platforms with the visitor's own first.
    pub fn end_user_order(detected: Option<Platform>) -> Vec<Platform> {
        let mut order: Vec<Platform> = detected
            .filter(|p| Self::END_USER.contains(p))
            .into_iter()
            .collect();
        order.extend(Self::END_USER.into_iter().filter(|p| Some(*p) != detected));
        order
    }
}

/// One step of a guide; `code` is text to copy exactly (a command, a config file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GuideStep {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `GET /api/v1/networks/{id}/onboarding?platform=&lang=`: ready-to-share
/// instructions for one platform of one profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OnboardingGuide {
    pub network_id: NetworkId,
    pub platform: Platform,
    pub title: String,
    /// The whole guide as plain text, ready to paste into a message.
    pub instructions: String,
    /// The deep link.
    pub uri: String,
    /// The deep link's QR code as an SVG document.
    pub qr_svg: String,
    pub steps: Vec<GuideStep>,
    pub beacons: Vec<String>,
    /// Set when users will need something more (no Beacon in the profile, or
    /// a link too long for a QR code, whose `qr_svg` is then empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Invite expiry: at most a year.
pub const INVITE_MAX_HOURS: u32 = 24 * 365;
/// Opens an invite can be limited to.
pub const INVITE_MAX_OPENS: u32 = 1_000_000;

/// `POST /api/v1/invites`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewInvite {
    #[serde(default)]
    pub network_id: String,
    /// What the invite page calls the network; empty = the profile's name.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub expires_in_hours: Option<u32>,
    #[serde(default)]
    pub max_opens: Option<u32>,
}

/// A [`NewInvite`] that passed validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidInvite {
    pub network_id: NetworkId,
    pub name: String,
    pub expires_in_hours: Option<u32>,
    pub max_opens: Option<u32>,
}

impl NewInvite {
    pub fn validate(&self) -> Result<ValidInvite, Vec<FieldError>> {
        let mut errors = Vec::new();
        let network_id = match self.network_id.trim() {
            "" => {
                errors.push(FieldError::new("network_id", Problem::Required));
                None
            }
            id => NetworkId::parse(id)
                .map_err(|e| errors.push(FieldError::new("network_id", e.problem)))
                .ok(),
        };
        let name = optional_name("name", &self.name)
            .map_err(|e| errors.push(e))
            .unwrap_or_default();
        let mut in_range = |field: &str, value: Option<u32>, max: u32| {
            if value.is_some_and(|v| !(1..=max).contains(&v)) {
                errors.push(FieldError::new(field, Problem::OutOfRange { min: 1, max }));
            }
        };
        in_range("expires_in_hours", self.expires_in_hours, INVITE_MAX_HOURS);
        in_range("max_opens", self.max_opens, INVITE_MAX_OPENS);
        match network_id {
            Some(network_id) if errors.is_empty() => Ok(ValidInvite {
                network_id,
                name,
                expires_in_hours: self.expires_in_hours,
                max_opens: self.max_opens,
            }),
            _ => Err(errors),
        }
    }
}

/// An invite as the admin sees it. The link itself is shown only at creation:
/// Control keeps only a hash of its token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct InviteView {
    pub id: InviteId,
    pub network_id: NetworkId,
    /// The profile's name.
    pub network_name: String,
    /// What the invite page calls the network.
    pub name: String,
    pub state: crate::status::InviteState,
    pub opens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_opens: Option<u32>,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_opened_at: Option<String>,
}

/// `201` answer to `POST /api/v1/invites`: the only time the link is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedInvite {
    #[serde(flatten)]
    pub view: InviteView,
    pub url: String,
    /// Set when `KNOTROUTE_CONTROL_PUBLIC_URL` is missing and the link is relative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network_id() -> String {
        NetworkId::from_random_bytes([7; 32]).to_string()
    }

    fn link(name: &str, beacons: &[&str]) -> JoinLink {
        JoinLink {
            network_id: network_id(),
            name: name.into(),
            beacons: beacons.iter().map(|b| b.to_string()).collect(),
        }
    }

    #[test]
    fn tricky_names_are_escaped_and_read_back_unchanged() {
        for name in [
            "Home & Office",
            "a=b",
            "tag #1",
            "Сеть Петрова",
            "100% + more?",
            "  spaced  ",
        ] {
            let l = link(name, &["https://beacon.example.net"]);
            let uri = l.to_uri();
            // Nothing that would end or split the value survives unescaped.
            let query = uri.split_once('?').unwrap().1;
            for part in query.split('&') {
                let (_, value) = part.split_once('=').unwrap();
                assert!(
                    !value.contains([' ', '&', '=', '#', '+', '?']),
                    "{name}: {uri}"
                );
            }
            assert_eq!(JoinLink::parse(&uri), Some(l), "{name}");
        }
        assert!(link("Home Office", &[])
            .to_uri()
            .contains("name=Home%20Office"));
        assert!(link("Сеть", &[])
            .to_uri()
            .contains("name=%D0%A1%D0%B5%D1%82%D1%8C"));
    }

    #[test]
    fn each_beacon_is_its_own_parameter_in_order() {
        let l = link(
            "n",
            &[
                "https://b1.example.net",
                "http://10.0.0.2:8080",
                "https://b3.example.net:8443",
            ],
        );
        let uri = l.to_uri();
        assert_eq!(
            uri,
            format!(
                "knotroute://join?network_id={}&name=n\
                 &beacon=https%3A%2F%2Fb1.example.net&beacon=http%3A%2F%2F10.0.0.2%3A8080\
                 &beacon=https%3A%2F%2Fb3.example.net%3A8443",
                network_id()
            )
        );
        assert_eq!(JoinLink::parse(&uri).unwrap().beacons, l.beacons);
        assert!(!link("n", &[]).to_uri().contains("beacon="));
    }

    #[test]
    fn only_join_links_parse() {
        assert!(JoinLink::parse("https://join?network_id=x").is_none());
        assert!(JoinLink::parse("knotroute://leave?network_id=x").is_none());
        assert!(JoinLink::parse("knotroute://join?name=x").is_none());
    }

    #[test]
    fn the_visitors_platform_is_recognised_and_listed_first() {
        let cases = [
            ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile", Platform::Android),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", Platform::Ios),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126", Platform::Windows),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", Platform::Linux),
        ];
        for (ua, platform) in cases {
            assert_eq!(Platform::detect(ua), Some(platform), "{ua}");
            let order = Platform::end_user_order(Some(platform));
            assert_eq!(order[0], platform);
            assert_eq!(order.len(), Platform::END_USER.len());
        }
        assert_eq!(Platform::detect("curl/8.5"), None);
        assert_eq!(Platform::end_user_order(None), Platform::END_USER.to_vec());
    }

    #[test]
    fn invite_input_names_the_refused_field() {
        let ok = NewInvite {
            network_id: network_id(),
            name: "Friends".into(),
            expires_in_hours: Some(48),
            max_opens: Some(10),
        };
        assert!(ok.validate().is_ok());
        let fields = |input: NewInvite| -> Vec<String> {
            input
                .validate()
                .unwrap_err()
                .into_iter()
                .map(|e| e.field)
                .collect()
        };
        assert_eq!(
            fields(NewInvite {
                network_id: String::new(),
                ..ok.clone()
            }),
            ["network_id"]
        );
        assert_eq!(
            fields(NewInvite {
                expires_in_hours: Some(0),
                ..ok.clone()
            }),
            ["expires_in_hours"]
        );
        assert_eq!(
            fields(NewInvite {
                max_opens: Some(0),
                ..ok.clone()
            }),
            ["max_opens"]
        );
        assert_eq!(
            fields(NewInvite {
                name: "x".repeat(500),
                ..ok.clone()
            }),
            ["name"]
        );
    }
}
