//! The Agent's settings, from the environment exactly as PROTOCOL.md lists
//! them (each also a flag), plus our KNOTROUTE_AGENT_PULL and _CA_FILE.

use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "knotroute-agent",
    version,
    about = "KnotRoute Agent: enrolls with Control, sends signed heartbeats and takes jobs."
)]
pub struct Settings {
    /// Control's URL, e.g. https://control.example.net (plain http only when written so).
    #[arg(long, env = "KNOTROUTE_CONTROL_URL")]
    pub control_url: String,
    /// Enrollment token (shared or one-time); needed only while no identity is stored.
    #[arg(long, env = "KNOTROUTE_CONTROL_ENROLL_TOKEN", hide_env_values = true)]
    pub enroll_token: Option<String>,
    /// Data directory: agent-identity.json and the Compose stacks live here.
    #[arg(long, env = "KNOTROUTE_AGENT_DATA", default_value = "/data")]
    pub data: PathBuf,
    /// Name shown in Control (default: this host's name).
    #[arg(long, env = "KNOTROUTE_AGENT_NAME")]
    pub name: Option<String>,
    /// Tags, comma-separated.
    #[arg(long, env = "KNOTROUTE_AGENT_TAGS", default_value = "")]
    pub tags: String,
    /// Heartbeat and job-poll interval, Go-style (10s, 1500ms), 1s to 30s.
    #[arg(long, env = "KNOTROUTE_AGENT_POLL", default_value = "10s", value_parser = parse_duration)]
    pub poll: Duration,
    /// `true` to allow Docker jobs (the Agent then needs the Docker socket).
    #[arg(long, env = "KNOTROUTE_AGENT_DOCKER", default_value_t = false, action = clap::ArgAction::Set)]
    pub docker: bool,
    /// Image tag for Beacons and sidecars when a job names none (default: this Agent's release channel).
    #[arg(long, env = "KNOTROUTE_AGENT_IMAGE_TAG")]
    pub image_tag: Option<String>,
    /// How long a deployed container must keep running, without restarts, before the deploy counts as done (0s–120s).
    #[arg(long, env = "KNOTROUTE_AGENT_SETTLE", default_value = "5s", value_parser = parse_duration)]
    pub settle: Duration,
    /// How long, after settling, a deployed Beacon has to answer /healthz on its host port and a sidecar to say it is ready (1s–300s).
    #[arg(long, env = "KNOTROUTE_AGENT_HEALTH_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub health_timeout: Duration,
    /// Publish the ports of deployed Beacons and sidecars on this one host
    /// address (e.g. 127.0.0.1, or a private interface) instead of all of them.
    #[arg(long, env = "KNOTROUTE_AGENT_PUBLISH_ADDRESS")]
    pub publish_address: Option<std::net::IpAddr>,
    /// When to pull images before deploying.
    #[arg(long, env = "KNOTROUTE_AGENT_PULL", value_enum, default_value_t = PullPolicy::Always)]
    pub pull: PullPolicy,
    /// Control's identity key (base64, as Settings and `knotroute-control
    /// identity` show it): pins it before the first contact, so even the
    /// enrollment answer must be signed by it. Without it the Agent pins the
    /// key Control gives at enrollment (trust on first use).
    #[arg(long, env = "KNOTROUTE_AGENT_CONTROL_KEY")]
    pub control_key: Option<String>,
    /// Extra PEM root certificates, for a Control behind a private CA.
    #[arg(long, env = "KNOTROUTE_AGENT_CA_FILE")]
    pub ca_file: Option<PathBuf>,
    /// Check health and exit: 0 when Control accepted a heartbeat within three poll
    /// intervals (at least 45 s), 1 otherwise. For container health checks.
    #[arg(long)]
    pub health_check: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PullPolicy {
    Always,
    Missing,
    Never,
}

/// Validated settings.
#[derive(Clone, Debug)]
pub struct Config {
    pub control_url: url::Url,
    pub enroll_token: Option<String>,
    pub data: PathBuf,
    pub name: String,
    pub tags: Vec<String>,
    pub poll: Duration,
    pub docker: bool,
    pub image_tag: Option<String>,
    pub pull: PullPolicy,
    pub settle: Duration,
    pub health_timeout: Duration,
    pub publish_address: Option<std::net::IpAddr>,
    pub ca_file: Option<PathBuf>,
    pub control_key: Option<protocol::control_identity::ControlPublicKey>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("KNOTROUTE_CONTROL_URL {0:?} is not a URL; write it like https://control.example.net")]
    BadUrl(String),
    #[error("KNOTROUTE_CONTROL_URL must start with https:// (or http:// for a Control on a trusted network)")]
    BadScheme,
    #[error("KNOTROUTE_AGENT_POLL must be between 1s and 30s: Control counts an Agent offline after 45 s without a heartbeat")]
    PollOutOfRange,
    #[error("KNOTROUTE_AGENT_SETTLE must be between 0s and 120s")]
    SettleOutOfRange,
    #[error("KNOTROUTE_AGENT_HEALTH_TIMEOUT must be between 1s and 300s")]
    HealthTimeoutOutOfRange,
    #[error("KNOTROUTE_CONTROL_URL must be Control's root (no path, query or credentials), e.g. https://control.example.net")]
    NotRoot,
    #[error("KNOTROUTE_AGENT_CONTROL_KEY is not a Control key: copy the public key from Control's Settings (43 characters of base64)")]
    BadControlKey,
}

/// Parses a Go-style duration: a sequence of number+unit (h, m, s, ms), e.g. `1m30s`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let bad = || format!("{text:?} is not a duration; write e.g. 10s, 1m30s or 500ms");
    if text.is_empty() {
        return Err(bad());
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        if digits == 0 {
            return Err(bad());
        }
        let value: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "h" => Duration::from_secs(3600),
            "m" => Duration::from_secs(60),
            "s" => Duration::from_secs(1),
            "ms" => Duration::from_millis(1),
            _ => return Err(bad()),
        };
        total += unit * u32::try_from(value).map_err(|_| bad())?;
        rest = &rest[unit_len..];
    }
    Ok(total)
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "agent".into())
}

impl Settings {
    pub fn validate(&self) -> Result<Config, ConfigError> {
        let url = url::Url::parse(self.control_url.trim())
            .map_err(|_| ConfigError::BadUrl(self.control_url.clone()))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(ConfigError::BadScheme);
        }
        // Requests are signed over their path (PROTOCOL.md), which Control sees as
        // /api/v1/…; credentials would end up in logs.
        let root = url.path() == "/" || url.path().is_empty();
        if !root || url.query().is_some() || !url.username().is_empty() || url.password().is_some()
        {
            return Err(ConfigError::NotRoot);
        }
        if self.poll < Duration::from_secs(1) || self.poll > Duration::from_secs(30) {
            return Err(ConfigError::PollOutOfRange);
        }
        if self.settle > Duration::from_secs(120) {
            return Err(ConfigError::SettleOutOfRange);
        }
        if !(Duration::from_secs(1)..=Duration::from_secs(300)).contains(&self.health_timeout) {
            return Err(ConfigError::HealthTimeoutOutOfRange);
        }
        let control_key = match self.control_key.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(
                protocol::control_identity::ControlPublicKey::parse(text)
                    .map_err(|_| ConfigError::BadControlKey)?,
            ),
        };
        Ok(Config {
            control_key,
            control_url: url,
            enroll_token: self
                .enroll_token
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            data: self.data.clone(),
            name: self
                .name
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .unwrap_or_else(host_name),
            tags: self
                .tags
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect(),
            poll: self.poll,
            docker: self.docker,
            image_tag: self.image_tag.clone().filter(|t| !t.trim().is_empty()),
            pull: self.pull,
            settle: self.settle,
            health_timeout: self.health_timeout,
            publish_address: self.publish_address,
            ca_file: self.ca_file.clone(),
        })
    }
}

/// The release channel this Agent was built for: release builds set
/// KNOTROUTE_RELEASE_CHANNEL at compile time; development builds use `latest`.
pub const RELEASE_CHANNEL: &str = match option_env!("KNOTROUTE_RELEASE_CHANNEL") {
    Some(channel) => channel,
    None => "latest",
};

impl Config {
    /// The image tag for Beacons and sidecars when a job names no image.
    pub fn image_tag(&self) -> String {
        self.image_tag
            .clone()
            .unwrap_or_else(|| RELEASE_CHANNEL.to_string())
    }

    /// The URL of a Control path (`/api/v1/…`).
    pub fn endpoint(&self, path: &str) -> url::Url {
        let mut url = self.control_url.clone();
        url.set_path(path);
        url
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, String> {
        let mut all = vec!["knotroute-agent"];
        all.extend_from_slice(args);
        let settings = Settings::try_parse_from(all).map_err(|e| e.to_string())?;
        settings.validate().map_err(|e| e.to_string())
    }

    #[test]
    fn go_style_durations_parse() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        for bad in ["", "10", "s", "10x", "-5s", "1.5s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn settings_have_the_documented_defaults_and_are_checked() {
        let config = parse(&["--control-url", "https://control.example.net"]).unwrap();
        assert_eq!(config.poll, Duration::from_secs(10));
        assert_eq!(config.data, PathBuf::from("/data"));
        assert!(!config.docker);
        assert_eq!(config.pull, PullPolicy::Always);
        assert_eq!(config.settle, Duration::from_secs(5));
        assert_eq!(config.health_timeout, Duration::from_secs(60));
        assert_eq!(config.image_tag(), RELEASE_CHANNEL);
        assert!(!config.name.is_empty());
        let config = parse(&[
            "--control-url",
            "http://10.0.0.5:8080/",
            "--tags",
            " edge, eu ,,",
            "--docker",
            "true",
            "--pull",
            "missing",
        ])
        .unwrap();
        assert_eq!(config.tags, ["edge", "eu"]);
        assert!(config.docker);
        assert!(parse(&["--control-url", "https://c", "--settle", "5m"])
            .unwrap_err()
            .contains("KNOTROUTE_AGENT_SETTLE"));
        let tagged = parse(&["--control-url", "https://c", "--image-tag", "1.4.0"]).unwrap();
        assert_eq!(tagged.image_tag(), "1.4.0");
        assert_eq!(
            config.endpoint("/api/v1/agents/heartbeat").as_str(),
            "http://10.0.0.5:8080/api/v1/agents/heartbeat"
        );
        for not_root in [
            "https://c.example/control",
            "https://user:pw@c.example",
            "https://c.example/?a=1",
        ] {
            assert!(
                parse(&["--control-url", not_root])
                    .unwrap_err()
                    .contains("root"),
                "{not_root}"
            );
        }
        assert!(parse(&["--control-url", "https://c", "--poll", "1m"])
            .unwrap_err()
            .contains("between"));
        assert!(parse(&["--control-url", "ftp://x"])
            .unwrap_err()
            .contains("https://"));
        assert!(parse(&["--control-url", "https://c", "--poll", "0s"])
            .unwrap_err()
            .contains("between"));
        assert!(parse(&["--control-url", "https://c", "--poll", "ten"])
            .unwrap_err()
            .contains("not a duration"));
    }
}
