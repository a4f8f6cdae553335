//! Configuration: defaults → environment (`KNOTROUTE_CONTROL_…`, `*_FILE` for
//! secrets) → flags. Start-up fails fast with one line that says what to fix.

mod sso;

use crate::http::forwarded::TrustedProxies;
use clap::{Args, Parser, Subcommand};
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

/// The shortest admin password or enrollment token we accept.
pub const MIN_SECRET_LEN: usize = 16;

#[derive(Parser)]
#[command(
    name = "knotroute-control",
    version,
    about = "KnotRoute Control: the management plane for KnotRoute networks."
)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Run Control (the default).
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Write a consistent backup of the database to FILE, while Control runs.
    Backup {
        /// Where to write the backup (gzip-compressed JSON lines).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Restore a backup into an empty database (Control stopped).
    Restore {
        /// A file written by `knotroute-control backup`.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Replace whatever the database holds now.
        #[arg(long)]
        force: bool,
    },
    /// Print a one-time link (valid 15 minutes) that makes the browser opening
    /// it a known browser, whose sign-in others' failed guesses cannot hold up.
    TrustBrowser,
    /// Print Control's identity key, which Agents pin, or rotate it.
    Identity {
        #[command(subcommand)]
        action: Option<IdentityAction>,
    },
    /// Import the state.json of the single-file KnotRoute Control.
    ImportState {
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// A step of the release build (scripts/build-release.sh), not an
    /// operator's command: compresses the site's chunk batches at brotli's
    /// best quality (http::chunk_batch).
    #[command(hide = true)]
    PrecompressBatches,
}

#[derive(Subcommand, Debug, Clone, PartialEq, Eq)]
pub enum IdentityAction {
    /// Make a new key. The current one keeps signing for --transition, and
    /// Agents that reach Control in that time move to the new key; those
    /// offline for all of it must be re-pinned (handbook, Operations: Re-pinning an Agent).
    Rotate {
        /// How long the old key keeps signing: hours (`36h`) or days (`14d`),
        /// from 1 hour to 365 days.
        #[arg(long, default_value = "14d", value_parser = transition_hours)]
        transition: u32,
    },
}

/// `36h` or `14d` as hours, 1 hour to 365 days.
fn transition_hours(raw: &str) -> Result<u32, String> {
    let raw = raw.trim();
    let (number, unit) = raw.split_at(raw.len().saturating_sub(1));
    let hours = match (number.parse::<u32>(), unit) {
        (Ok(n), "h") => Some(n),
        (Ok(n), "d") => n.checked_mul(24),
        _ => None,
    };
    hours
        .filter(|h| (1..=365 * 24).contains(h))
        .ok_or_else(|| "use hours (36h) or days (14d), from 1h to 365d".into())
}

/// Every setting, each from a flag or its environment variable.
#[derive(Args, Clone)]
pub struct Settings {
    /// Address to listen on.
    #[arg(long, env = "KNOTROUTE_CONTROL_LISTEN", default_value = "0.0.0.0:8080")]
    pub listen: SocketAddr,
    /// Admin password for the UI and API (at least 16 characters).
    #[arg(long, env = "KNOTROUTE_CONTROL_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,
    /// File holding the admin password (instead of the variable).
    #[arg(long, env = "KNOTROUTE_CONTROL_ADMIN_PASSWORD_FILE")]
    pub admin_password_file: Option<PathBuf>,
    /// Shared secret for first Agent enrollment (at least 16 characters, not the admin password).
    #[arg(long, env = "KNOTROUTE_CONTROL_ENROLL_TOKEN", hide_env_values = true)]
    pub enroll_token: Option<String>,
    /// File holding the enrollment token (instead of the variable).
    #[arg(long, env = "KNOTROUTE_CONTROL_ENROLL_TOKEN_FILE")]
    pub enroll_token_file: Option<PathBuf>,
    /// External HTTPS URL of Control; every generated link is built from it.
    #[arg(long, env = "KNOTROUTE_CONTROL_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Data directory (the SQLite database lives here).
    #[arg(long, env = "KNOTROUTE_CONTROL_DATA", default_value = "/data")]
    pub data: PathBuf,
    /// postgres://… to use PostgreSQL; unset uses the embedded SQLite file in the data directory.
    #[arg(long, env = "KNOTROUTE_CONTROL_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Believe X-Forwarded-For/-Proto/-Host, but only from the peers in --trusted-proxies.
    #[arg(long, env = "KNOTROUTE_CONTROL_TRUST_PROXY", default_value_t = false)]
    pub trust_proxy: bool,
    /// Comma-separated CIDRs of your reverse proxies (with --trust-proxy; default loopback only).
    #[arg(long, env = "KNOTROUTE_CONTROL_TRUSTED_PROXIES")]
    pub trusted_proxies: Option<String>,
    /// Seconds without a verified heartbeat after which an Agent counts as offline
    /// (default 45: three missed heartbeats at the Agent's default 15 s interval).
    #[arg(
        long,
        env = "KNOTROUTE_CONTROL_AGENT_OFFLINE_AFTER",
        default_value_t = crate::domain::agents::status::DEFAULT_OFFLINE_AFTER_SECS,
        value_parser = clap::value_parser!(u32).range(15..=86_400)
    )]
    pub agent_offline_after: u32,
    /// Seconds between scheduled checks of every Beacon URL (default 60); 0 turns them off.
    #[arg(
        long,
        env = "KNOTROUTE_CONTROL_BEACON_CHECK_INTERVAL",
        default_value_t = crate::domain::beacons::schedule::DEFAULT_INTERVAL_SECS,
        value_parser = beacon_interval
    )]
    pub beacon_check_interval: u32,
    /// Bearer token that GET /metrics (Prometheus) requires; unset, /metrics is off.
    #[arg(long, env = "KNOTROUTE_CONTROL_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
    /// File holding the metrics token (instead of KNOTROUTE_CONTROL_METRICS_TOKEN).
    #[arg(long, env = "KNOTROUTE_CONTROL_METRICS_TOKEN_FILE")]
    pub metrics_token_file: Option<PathBuf>,
    /// Whether Beacon checks and Diagnose may contact private, loopback and shared (CGNAT)
    /// addresses (default true, for self-hosted Beacons); link-local and cloud metadata
    /// addresses are refused either way.
    #[arg(
        long,
        env = "KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub allow_private_beacons: bool,
    /// Requests a minute one client address may make to /healthz, /readyz, /metrics, the
    /// Agent API and the front end's chunk batches (one or two per page) before it gets 429;
    /// 0 turns the limit off. An Agent makes about ten a minute, so the default lets some
    /// 100 Agents share one NAT address.
    #[arg(
        long,
        env = "KNOTROUTE_CONTROL_MACHINE_RATE_LIMIT",
        default_value_t = 1200
    )]
    pub machine_rate_limit: u32,
    /// Webhook URL that receives alerts as JSON (overrides the settings screen); unset, the screen decides.
    #[arg(long, env = "KNOTROUTE_CONTROL_ALERT_WEBHOOK", hide_env_values = true)]
    pub alert_webhook: Option<String>,
    /// Folder with the compiled front end (pkg/); defaults to ./site next to the binary, else target/site.
    #[arg(long, env = "KNOTROUTE_CONTROL_SITE_ROOT")]
    pub site_root: Option<PathBuf>,
    /// Days the enrollment log and the audit log keep a line (default 90).
    #[arg(
        long,
        env = "KNOTROUTE_CONTROL_LOG_RETENTION_DAYS",
        default_value_t = crate::domain::log_retention::DEFAULT_RETENTION_DAYS,
        value_parser = clap::value_parser!(u32).range(1..=36_500)
    )]
    pub log_retention_days: u32,
    #[command(flatten)]
    pub oidc: sso::OidcSettings,
}

/// 0 (off) or 10 s to a day: a shorter round would only load the Beacons.
fn beacon_interval(raw: &str) -> Result<u32, String> {
    match raw.trim().parse::<u32>() {
        Ok(0) => Ok(0),
        Ok(secs) if (10..=86_400).contains(&secs) => Ok(secs),
        _ => Err("use 0 (off) or 10 to 86400 seconds".into()),
    }
}

/// A secret that never appears in `Debug` output or logs.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatabaseTarget {
    Sqlite(PathBuf),
    Postgres(Secret),
}

/// Validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    pub admin_password: Secret,
    pub enroll_token: Secret,
    pub public_url: Option<url::Url>,
    pub data_dir: PathBuf,
    pub database: DatabaseTarget,
    /// The peers whose forwarded headers are believed; empty unless
    /// KNOTROUTE_CONTROL_TRUST_PROXY is on.
    pub trusted_proxies: TrustedProxies,
    pub site_root: PathBuf,
    pub agent_offline_after: chrono::Duration,
    /// `None`: GET /metrics answers 404.
    pub metrics_token: Option<Secret>,
    /// `None`: no scheduled Beacon checks.
    pub beacon_check_interval: Option<chrono::Duration>,
    /// `None`: the settings screen sets the webhook. A secret: chat services
    /// put their token in the URL.
    pub alert_webhook: Option<Secret>,
    pub allow_private_beacons: bool,
    /// Requests a minute per address to the machine endpoints; `None`: unlimited.
    pub machine_rate_limit: Option<std::num::NonZeroU32>,
    /// How long the enrollment and audit logs keep a line.
    pub log_retention: chrono::Duration,
    /// Single sign-on through an OpenID provider; `None`: passwords only.
    pub sso: Option<crate::domain::access::sso::SsoSettings>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("KNOTROUTE_CONTROL_{0} is not set or empty; set it to a random secret of at least 16 characters")]
    Missing(&'static str),
    #[error("KNOTROUTE_CONTROL_{0} is shorter than 16 characters; use a longer random secret")]
    TooShort(&'static str),
    #[error("KNOTROUTE_CONTROL_ENROLL_TOKEN equals the admin password; use two different secrets so an Agent host never holds the admin login")]
    SameSecrets,
    #[error("cannot read {name} from {path}: {reason}")]
    SecretFile {
        name: &'static str,
        path: String,
        reason: String,
    },
    #[error("set either KNOTROUTE_CONTROL_{0} or KNOTROUTE_CONTROL_{0}_FILE, not both")]
    BothValueAndFile(&'static str),
    #[error("KNOTROUTE_CONTROL_PUBLIC_URL is not usable: {0}")]
    PublicUrl(String),
    #[error("KNOTROUTE_CONTROL_DATABASE_URL must start with postgres:// or postgresql://")]
    DatabaseUrl,
    #[error("KNOTROUTE_CONTROL_METRICS_TOKEN equals another Control secret; give the metrics scraper its own token")]
    MetricsTokenReused,
    #[error("KNOTROUTE_CONTROL_ALERT_WEBHOOK is not usable: {0}")]
    AlertWebhook(String),
    #[error("KNOTROUTE_CONTROL_TRUSTED_PROXIES: `{0}` is not an address or CIDR range (write e.g. 10.0.0.0/8,fd00::/8,192.0.2.7)")]
    TrustedProxies(String),
    /// A single sign-on setting, named in the message.
    #[error("{0}")]
    Oidc(String),
    #[error("KNOTROUTE_CONTROL_TRUSTED_PROXIES is set but KNOTROUTE_CONTROL_TRUST_PROXY is not true: set it to true to believe forwarded headers from those proxies, or unset the list")]
    TrustedProxiesWithoutTrust,
}

/// The peers whose forwarded headers count: none unless `trust_proxy`; then
/// `list`, loopback when unset (a proxy on the same host).
fn trusted_proxies(trust_proxy: bool, list: Option<&str>) -> Result<TrustedProxies, ConfigError> {
    let list = list.map(str::trim).filter(|l| !l.is_empty());
    match (trust_proxy, list) {
        (false, None) => Ok(TrustedProxies::none()),
        (false, Some(_)) => Err(ConfigError::TrustedProxiesWithoutTrust),
        (true, list) => {
            TrustedProxies::parse(list.unwrap_or(crate::http::forwarded::DEFAULT_TRUSTED_PROXIES))
                .map_err(ConfigError::TrustedProxies)
        }
    }
}

fn secret(
    name: &'static str,
    value: &Option<String>,
    file: &Option<PathBuf>,
) -> Result<Secret, ConfigError> {
    let raw = secret_value(name, value, file)?;
    // Padding with spaces must not make a short secret pass the length rule.
    let meaningful = raw.trim();
    if meaningful.is_empty() {
        return Err(ConfigError::Missing(name));
    }
    if meaningful.chars().count() < MIN_SECRET_LEN {
        return Err(ConfigError::TooShort(name));
    }
    Ok(Secret(raw))
}

/// A secret from its variable or its `_FILE` (not both); empty when neither.
fn secret_value(
    name: &'static str,
    value: &Option<String>,
    file: &Option<PathBuf>,
) -> Result<String, ConfigError> {
    Ok(match (value.as_deref().filter(|v| !v.is_empty()), file) {
        (Some(_), Some(_)) => return Err(ConfigError::BothValueAndFile(name)),
        (Some(v), None) => v.to_string(),
        (None, Some(path)) => std::fs::read_to_string(path)
            .map_err(|e| ConfigError::SecretFile {
                name,
                path: path.display().to_string(),
                reason: e.to_string(),
            })?
            .trim_end_matches(['\n', '\r'])
            .to_string(),
        (None, None) => String::new(),
    })
}

/// The public URL must be an http(s) URL with a host; no credentials, query
/// or fragment (every generated link is built from it).
pub(crate) fn public_url(raw: &str) -> Result<url::Url, ConfigError> {
    let url = url::Url::parse(raw).map_err(|e| ConfigError::PublicUrl(e.to_string()))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(ConfigError::PublicUrl(
            "it must start with https:// (or http://)".into(),
        ));
    }
    if url.host_str().is_none() || !url.username().is_empty() || url.password().is_some() {
        return Err(ConfigError::PublicUrl(
            "it needs a host and no user name or password".into(),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ConfigError::PublicUrl("it must not contain ? or #".into()));
    }
    Ok(url)
}

impl Settings {
    /// The folder with the compiled front end: `--site-root`, else the default.
    pub fn site_root(&self) -> PathBuf {
        self.site_root.clone().unwrap_or_else(default_site_root)
    }

    /// Where the data lives; all that `migrate` needs, so it runs without the secrets.
    pub fn database(&self) -> Result<DatabaseTarget, ConfigError> {
        match self
            .database_url
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            None => Ok(DatabaseTarget::Sqlite(
                self.data.join("knotroute-control.sqlite3"),
            )),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(DatabaseTarget::Postgres(Secret(url.to_string())))
            }
            Some(_) => Err(ConfigError::DatabaseUrl),
        }
    }

    /// Checks the settings; the error is the one line start-up prints.
    pub fn validate(&self) -> Result<Config, ConfigError> {
        let admin_password = secret(
            "ADMIN_PASSWORD",
            &self.admin_password,
            &self.admin_password_file,
        )?;
        let enroll_token = secret("ENROLL_TOKEN", &self.enroll_token, &self.enroll_token_file)?;
        if admin_password.expose().trim() == enroll_token.expose().trim() {
            return Err(ConfigError::SameSecrets);
        }
        // Empty counts as unset: /metrics stays off rather than Control refusing to start.
        let metrics_value = self.metrics_token.clone().filter(|v| !v.trim().is_empty());
        let metrics_token = match (&metrics_value, &self.metrics_token_file) {
            (None, None) => None,
            (value, file) => Some(secret("METRICS_TOKEN", value, file)?),
        };
        if metrics_token.as_ref().is_some_and(|m| {
            [&admin_password, &enroll_token]
                .iter()
                .any(|other| other.expose().trim() == m.expose().trim())
        }) {
            return Err(ConfigError::MetricsTokenReused);
        }
        let public_url = match self
            .public_url
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            None => None,
            Some(raw) => Some(public_url(raw)?),
        };
        let alert_webhook =
            protocol::alerts::webhook_url(self.alert_webhook.as_deref().unwrap_or(""))
                .map_err(|e| ConfigError::AlertWebhook(e.problem.message(protocol::Lang::En)))?
                .map(Secret);
        let sso = self.oidc.validate(public_url.as_ref())?;
        Ok(Config {
            listen: self.listen,
            admin_password,
            enroll_token,
            public_url,
            data_dir: self.data.clone(),
            database: self.database()?,
            trusted_proxies: trusted_proxies(self.trust_proxy, self.trusted_proxies.as_deref())?,
            site_root: self.site_root(),
            agent_offline_after: chrono::Duration::seconds(self.agent_offline_after.into()),
            metrics_token,
            beacon_check_interval: (self.beacon_check_interval > 0)
                .then(|| chrono::Duration::seconds(self.beacon_check_interval.into())),
            alert_webhook,
            allow_private_beacons: self.allow_private_beacons,
            machine_rate_limit: std::num::NonZeroU32::new(self.machine_rate_limit),
            log_retention: chrono::Duration::days(self.log_retention_days.into()),
            sso,
        })
    }
}

impl Config {
    /// The warning to print once at start-up about PUBLIC_URL, if any.
    pub fn public_url_warning(&self) -> Option<&'static str> {
        match &self.public_url {
            None => Some("KNOTROUTE_CONTROL_PUBLIC_URL is not set: invite links and Agent install snippets cannot be generated until it is"),
            Some(u) if u.scheme() != "https" => Some("KNOTROUTE_CONTROL_PUBLIC_URL is not https: admins, Agents and invited users would talk to Control unencrypted"),
            Some(_) => None,
        }
    }
}

fn default_site_root() -> PathBuf {
    if let Ok(dir) = std::env::var("LEPTOS_SITE_ROOT") {
        return PathBuf::from(dir);
    }
    if let Some(beside) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("site")))
    {
        if beside.is_dir() {
            return beside;
        }
    }
    PathBuf::from("target/site")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(password: &str, token: &str) -> Settings {
        Cli::parse_from([
            "knotroute-control",
            "--admin-password",
            password,
            "--enroll-token",
            token,
            "--data",
            "/tmp/x",
        ])
        .settings
    }

    #[test]
    fn the_metrics_token_is_optional_but_long_and_its_own() {
        let mut s = settings("admin-password-0123", "enroll-token-0123456789");
        assert!(
            s.validate().unwrap().metrics_token.is_none(),
            "off by default"
        );
        s.metrics_token = Some(String::new());
        assert!(
            s.validate().unwrap().metrics_token.is_none(),
            "empty counts as unset"
        );
        s.metrics_token = Some("short".into());
        assert_eq!(
            s.validate().unwrap_err(),
            ConfigError::TooShort("METRICS_TOKEN")
        );
        s.metrics_token = Some("admin-password-0123".into());
        assert_eq!(s.validate().unwrap_err(), ConfigError::MetricsTokenReused);
        s.metrics_token = Some("metrics-token-0123456789".into());
        let config = s.validate().unwrap();
        assert_eq!(
            config.metrics_token.unwrap().expose(),
            "metrics-token-0123456789"
        );
    }

    #[test]
    fn start_up_refuses_missing_short_or_equal_secrets_with_the_reason() {
        assert_eq!(
            settings("", "enroll-token-0123456789")
                .validate()
                .unwrap_err(),
            ConfigError::Missing("ADMIN_PASSWORD")
        );
        assert_eq!(
            settings("admin-password-0123", "").validate().unwrap_err(),
            ConfigError::Missing("ENROLL_TOKEN")
        );
        assert_eq!(
            settings("short", "enroll-token-0123456789")
                .validate()
                .unwrap_err(),
            ConfigError::TooShort("ADMIN_PASSWORD")
        );
        assert_eq!(
            settings("same-secret-0123456", "same-secret-0123456")
                .validate()
                .unwrap_err(),
            ConfigError::SameSecrets
        );
        assert!(ConfigError::SameSecrets.to_string().contains("different"));
        assert_eq!(
            settings("a               ", "enroll-token-0123456789")
                .validate()
                .unwrap_err(),
            ConfigError::TooShort("ADMIN_PASSWORD"),
            "spaces do not count towards the length"
        );
    }

    #[test]
    fn sqlite_in_the_data_dir_is_the_default_database() {
        let cfg = settings("admin-password-0123", "enroll-token-0123456789")
            .validate()
            .unwrap();
        assert_eq!(
            cfg.database,
            DatabaseTarget::Sqlite(PathBuf::from("/tmp/x/knotroute-control.sqlite3"))
        );
        assert!(cfg.public_url_warning().is_some());
    }

    #[test]
    fn the_public_url_must_be_a_plain_http_origin() {
        let with = |url: &str| {
            Cli::parse_from([
                "knotroute-control",
                "--admin-password",
                "admin-password-0123",
                "--enroll-token",
                "enroll-token-0123456789",
                "--public-url",
                url,
            ])
            .settings
            .validate()
        };
        assert!(with("https://control.example.net").is_ok());
        assert!(with("ftp://control.example.net").is_err());
        assert!(with("https://user:pw@control.example.net").is_err());
        assert!(with("https://control.example.net/?x=1").is_err());
    }

    #[test]
    fn trusted_proxies_default_to_loopback_and_a_bad_range_fails_start_up() {
        let with = |extra: &[&str]| {
            let mut args = vec![
                "knotroute-control",
                "--admin-password",
                "admin-password-0123",
                "--enroll-token",
                "enroll-token-0123456789",
            ];
            args.extend_from_slice(extra);
            Cli::parse_from(args).settings.validate()
        };
        let off = with(&[]).unwrap().trusted_proxies;
        assert!(off.is_empty(), "no proxy is trusted by default");
        let on = with(&["--trust-proxy"]).unwrap().trusted_proxies;
        assert!(on.contains("127.0.0.1".parse().unwrap()) && on.contains("::1".parse().unwrap()));
        assert!(!on.contains("172.17.0.2".parse().unwrap()));
        let listed = with(&["--trust-proxy", "--trusted-proxies", "172.16.0.0/12, ::1"])
            .unwrap()
            .trusted_proxies;
        assert!(listed.contains("172.17.0.2".parse().unwrap()));
        assert!(!listed.contains("127.0.0.1".parse().unwrap()));
        let bad = with(&["--trust-proxy", "--trusted-proxies", "10.0.0.0/8,10.0.0/8"]).unwrap_err();
        assert_eq!(bad, ConfigError::TrustedProxies("10.0.0/8".into()));
        assert!(!bad.to_string().contains('\n'), "one line: {bad}");
        assert_eq!(
            with(&["--trusted-proxies", "10.0.0.0/8"]).unwrap_err(),
            ConfigError::TrustedProxiesWithoutTrust
        );
    }

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let cfg = settings("admin-password-0123", "enroll-token-0123456789")
            .validate()
            .unwrap();
        let shown = format!("{cfg:?}");
        assert!(!shown.contains("admin-password-0123"), "{shown}");
        assert!(!shown.contains("enroll-token-0123456789"), "{shown}");
    }

    #[test]
    fn the_offline_window_is_configurable_within_sane_bounds() {
        let with = |secs: &str| {
            Cli::try_parse_from([
                "knotroute-control",
                "--admin-password",
                "admin-password-0001",
                "--enroll-token",
                "enroll-token-00001",
                "--agent-offline-after",
                secs,
            ])
        };
        let config = with("120").unwrap().settings.validate().unwrap();
        assert_eq!(config.agent_offline_after.num_seconds(), 120);
        let refused = match with("5") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("5 s is refused"),
        };
        assert!(refused.contains("agent-offline-after"), "{refused}");
        let default = settings("admin-password-0001", "enroll-token-00001")
            .validate()
            .unwrap();
        assert_eq!(default.agent_offline_after.num_seconds(), 45);
    }
}
