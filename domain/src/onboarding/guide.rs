//! Onboarding guides: for a network profile and a platform, the steps an end
//! user follows, the `knotroute://join` deep link and its QR code (SVG, drawn
//! here by the `qrcode` crate, no external program). The admin screen, the
//! admin API and the public invite pages all use this one generator.

use crate::onboarding::guide_text::{guide_steps, no_beacon_warning, qr_label, qr_too_long};
use protocol::api::NetworkProfile;
use protocol::onboarding::{GuideStep, JoinLink, OnboardingGuide, Platform};
use protocol::Lang;
use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};

/// The values a guide quotes.
pub struct GuideFacts {
    pub name: String,
    pub network_id: String,
    pub beacons: Vec<String>,
    pub uri: String,
    pub raw_profile: String,
}

impl GuideFacts {
    pub fn new(profile: &NetworkProfile, display_name: &str) -> Self {
        let name = if display_name.trim().is_empty() {
            profile.name.clone()
        } else {
            display_name.trim().to_string()
        };
        let link = JoinLink {
            network_id: profile.id.to_string(),
            name: name.clone(),
            beacons: profile.beacons.clone(),
        };
        let raw_profile = serde_json::to_string_pretty(&link).expect("strings serialise");
        Self {
            uri: link.to_uri(),
            name,
            network_id: link.network_id,
            beacons: link.beacons,
            raw_profile,
        }
    }

    pub fn beacon_lines(&self) -> String {
        self.beacons.join("\n")
    }

    /// The sidecar's environment per PROTOCOL.md; the service values are
    /// placeholders the operator fills in (the title is what the KnotRoute
    /// clients' service catalog shows; it may be left out).
    pub fn sidecar_env(&self) -> String {
        format!(
            "KNOTROUTE_CONFIG_FROM_ENV=true\nKNOTROUTE_NETWORK_ID={}\nKNOTROUTE_BEACONS={}\nKNOTROUTE_SERVICE_NAME=my-service\nKNOTROUTE_SERVICE_TITLE=My service\nKNOTROUTE_SERVICE_TARGET=my-container:8080",
            self.network_id,
            self.beacons.join(",")
        )
    }
}

/// The deep link as a QR code: an SVG element, ready to inline in HTML (no
/// XML prolog), scaling to its container, described by `label`. Medium error
/// correction survives a phone camera at an angle; `None` when the text is
/// too long for any QR code (many long Beacon URLs).
pub fn qr_svg(text: &str, label: &str) -> Option<String> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
        .or_else(|_| QrCode::with_error_correction_level(text.as_bytes(), EcLevel::L))
        .ok()?;
    let image = code
        .render::<svg::Color>()
        .min_dimensions(256, 256)
        .quiet_zone(true)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .build();
    let start = image.find("<svg").unwrap_or(0);
    // The label is ours (a fixed text per language), but quotes would end the attribute.
    let label = label.replace(['"', '<', '&'], "");
    Some(image[start..].replacen(
        "<svg ",
        &format!("<svg role=\"img\" aria-label=\"{label}\" "),
        1,
    ))
}

/// The whole guide for one platform, QR code included.
pub fn guide(
    profile: &NetworkProfile,
    display_name: &str,
    platform: Platform,
    lang: Lang,
) -> OnboardingGuide {
    let mut guide = guide_text(profile, display_name, platform, lang);
    match qr_svg(&guide.uri, qr_label(lang)) {
        Some(svg) => guide.qr_svg = svg,
        None => {
            let more = qr_too_long(lang);
            guide.warning = Some(match guide.warning.take() {
                Some(w) => format!("{w} {more}"),
                None => more.to_string(),
            });
            guide.instructions = plain_text(&guide.title, &guide.steps, guide.warning.as_deref());
        }
    }
    guide
}

/// A guide without its QR code (`qr_svg` empty): the invite page draws the
/// code once, not once per platform it lists.
pub fn guide_text(
    profile: &NetworkProfile,
    display_name: &str,
    platform: Platform,
    lang: Lang,
) -> OnboardingGuide {
    let facts = GuideFacts::new(profile, display_name);
    let (title, steps) = guide_steps(platform, lang, &facts);
    let warning = profile
        .beacons
        .is_empty()
        .then(|| no_beacon_warning(lang).to_string());
    OnboardingGuide {
        network_id: profile.id.clone(),
        platform,
        instructions: plain_text(&title, &steps, warning.as_deref()),
        title,
        qr_svg: String::new(),
        uri: facts.uri,
        steps,
        beacons: facts.beacons,
        warning,
    }
}

/// The guide as one text to paste into a message: numbered steps, code indented.
fn plain_text(title: &str, steps: &[GuideStep], warning: Option<&str>) -> String {
    let mut text = format!("{title}\n\n");
    for (n, step) in steps.iter().enumerate() {
        text.push_str(&format!("{}. {}\n", n + 1, step.text));
        if let Some(code) = &step.code {
            for line in code.lines() {
                text.push_str(&format!("    {line}\n"));
            }
        }
    }
    if let Some(w) = warning {
        text.push_str(&format!("\n{w}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::NetworkId;

    fn profile(beacons: &[&str]) -> NetworkProfile {
        NetworkProfile {
            id: NetworkId::from_random_bytes([3; 32]),
            name: "Дом & офис".into(),
            description: String::new(),
            beacons: beacons.iter().map(|b| b.to_string()).collect(),
            created_at: String::new(),
            updated_at: String::new(),
            version: 1,
        }
    }

    #[test]
    fn every_platform_quotes_the_profiles_values() {
        let p = profile(&["https://b1.example.net", "https://b2.example.net"]);
        for lang in [Lang::En, Lang::Ru] {
            for platform in Platform::ALL {
                let g = guide(&p, "", platform, lang);
                assert!(g.title.contains("Дом & офис"), "{platform:?} {lang:?}");
                assert!(g.warning.is_none());
                assert_eq!(JoinLink::parse(&g.uri).unwrap().beacons, p.beacons);
                assert!(g.instructions.starts_with(&g.title));
                let quoted = g.instructions.contains(p.id.as_str())
                    || matches!(platform, Platform::Android | Platform::Ios);
                assert!(quoted, "{platform:?} {lang:?} names the Network ID");
            }
        }
        let docker = guide(&p, "", Platform::Docker, Lang::En);
        assert!(docker
            .instructions
            .contains("KNOTROUTE_BEACONS=https://b1.example.net,https://b2.example.net"));
        let raw = guide(&p, "Friends", Platform::Raw, Lang::En);
        let json: serde_json::Value =
            serde_json::from_str(raw.steps[0].code.as_deref().unwrap()).unwrap();
        assert_eq!(json["name"], "Friends");
        assert_eq!(json["beacons"][1], "https://b2.example.net");
    }

    #[test]
    fn a_profile_without_beacon_warns_in_both_languages() {
        let p = profile(&[]);
        assert!(guide(&p, "", Platform::Android, Lang::En)
            .warning
            .unwrap()
            .contains("another bootstrap path"));
        assert!(guide(&p, "", Platform::Android, Lang::Ru)
            .instructions
            .contains("другой способ"));
    }

    #[test]
    fn the_qr_code_is_an_inline_svg() {
        let svg = qr_svg("knotroute://join?network_id=x", "QR \"code\"").unwrap();
        assert!(svg.starts_with("<svg role=\"img\" aria-label=\"QR code\""));
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn a_link_too_long_for_a_qr_code_is_said_instead_of_failing() {
        let long: Vec<String> = (0..16)
            .map(|i| format!("https://beacon-{i}-{}.example.net", "x".repeat(180)))
            .collect();
        let refs: Vec<&str> = long.iter().map(String::as_str).collect();
        let g = guide(&profile(&refs), "", Platform::Android, Lang::En);
        assert!(g.qr_svg.is_empty());
        assert!(g.warning.unwrap().contains("too long for a QR code"));
        assert_eq!(JoinLink::parse(&g.uri).unwrap().beacons.len(), 16);
    }
}
