//! Single sign-on settings (`KNOTROUTE_CONTROL_OIDC_…`): unset issuer, no
//! single sign-on; set, everything it needs is checked at start-up, so a
//! typo in the role map stops Control with the entry named rather than
//! leaving people without a role at their first sign-in.

use super::ConfigError;
use crate::domain::access::sso::mapping::{parse_default_role, GroupsClaim, RoleMap};
use crate::domain::access::sso::{SsoSettings, CALLBACK_PATH};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Clone, Default)]
pub struct OidcSettings {
    /// The OpenID provider's issuer URL (https://…); set, the sign-in screen offers single sign-on.
    #[arg(long = "oidc-issuer", env = "KNOTROUTE_CONTROL_OIDC_ISSUER")]
    pub issuer: Option<String>,
    /// Control's client ID at the provider.
    #[arg(long = "oidc-client-id", env = "KNOTROUTE_CONTROL_OIDC_CLIENT_ID")]
    pub client_id: Option<String>,
    /// Control's client secret at the provider.
    #[arg(
        long = "oidc-client-secret",
        env = "KNOTROUTE_CONTROL_OIDC_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub client_secret: Option<String>,
    /// File holding the client secret (instead of the variable).
    #[arg(
        long = "oidc-client-secret-file",
        env = "KNOTROUTE_CONTROL_OIDC_CLIENT_SECRET_FILE"
    )]
    pub client_secret_file: Option<PathBuf>,
    /// Where the groups are among the claims: `groups`, a dotted path
    /// (`realm_access.roles`), or a quoted namespaced claim (`"https://example.com/claims".groups`).
    #[arg(
        long = "oidc-groups-claim",
        env = "KNOTROUTE_CONTROL_OIDC_GROUPS_CLAIM"
    )]
    pub groups_claim: Option<String>,
    /// Groups to roles: `group=role[:network]`, comma separated (e.g. knot-admins=admin,knot-ops=operator:production).
    #[arg(long = "oidc-role-map", env = "KNOTROUTE_CONTROL_OIDC_ROLE_MAP")]
    pub role_map: Option<String>,
    /// The role of people no group maps: `none` (they wait for the owner's approval) or a role.
    #[arg(
        long = "oidc-default-role",
        env = "KNOTROUTE_CONTROL_OIDC_DEFAULT_ROLE",
        default_value = "none"
    )]
    pub default_role: String,
    /// What the sign-in button names ("Sign in with …"); default: the issuer's host.
    #[arg(
        long = "oidc-provider-name",
        env = "KNOTROUTE_CONTROL_OIDC_PROVIDER_NAME"
    )]
    pub provider_name: Option<String>,
    /// Scopes asked for besides openid, space separated (add `groups` where the provider needs it).
    #[arg(
        long = "oidc-scopes",
        env = "KNOTROUTE_CONTROL_OIDC_SCOPES",
        default_value = "profile email"
    )]
    pub scopes: String,
}

fn problem(message: impl Into<String>) -> ConfigError {
    ConfigError::Oidc(message.into())
}

fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

impl OidcSettings {
    /// The checked settings, or `None` when no issuer is set.
    pub fn validate(
        &self,
        public_url: Option<&url::Url>,
    ) -> Result<Option<SsoSettings>, ConfigError> {
        let Some(issuer) = given(&self.issuer) else {
            let stray = [
                given(&self.client_id),
                given(&self.client_secret),
                given(&self.role_map),
            ];
            if stray.iter().any(Option::is_some) || self.client_secret_file.is_some() {
                return Err(problem(
                    "KNOTROUTE_CONTROL_OIDC_ISSUER is not set but other OIDC settings are: set the issuer to turn single sign-on on, or unset the rest",
                ));
            }
            return Ok(None);
        };
        let issuer_url = url::Url::parse(issuer)
            .map_err(|e| problem(format!("KNOTROUTE_CONTROL_OIDC_ISSUER is not a URL: {e}")))?;
        let loopback = matches!(
            issuer_url.host_str(),
            Some("127.0.0.1" | "localhost" | "[::1]")
        );
        if issuer_url.scheme() != "https" && !(issuer_url.scheme() == "http" && loopback) {
            return Err(problem(
                "KNOTROUTE_CONTROL_OIDC_ISSUER must start with https:// (plain http only on loopback, for tests)",
            ));
        }
        let client_id = given(&self.client_id).ok_or_else(|| {
            problem(
                "KNOTROUTE_CONTROL_OIDC_CLIENT_ID is not set; copy the client ID from the provider",
            )
        })?;
        let client_secret = super::secret_value(
            "OIDC_CLIENT_SECRET",
            &self.client_secret,
            &self.client_secret_file,
        )?;
        // The provider chooses its secrets' length; only absence is an error.
        if client_secret.trim().is_empty() {
            return Err(problem(
                "KNOTROUTE_CONTROL_OIDC_CLIENT_SECRET (or …_FILE) is not set; copy the client secret from the provider",
            ));
        }
        let public_url = public_url.ok_or_else(|| {
            problem(format!(
                "single sign-on needs KNOTROUTE_CONTROL_PUBLIC_URL: the provider sends people back to <PUBLIC_URL>{CALLBACK_PATH}"
            ))
        })?;
        let redirect_url = format!(
            "{}{CALLBACK_PATH}",
            public_url.as_str().trim_end_matches('/')
        );
        let role_map = RoleMap::parse(self.role_map.as_deref().unwrap_or(""))
            .map_err(|e| problem(format!("KNOTROUTE_CONTROL_OIDC_ROLE_MAP: {e}")))?;
        let default_role = parse_default_role(&self.default_role)
            .map_err(|e| problem(format!("KNOTROUTE_CONTROL_OIDC_DEFAULT_ROLE: {e}")))?;
        let groups_claim = GroupsClaim::parse(self.groups_claim.as_deref().unwrap_or(""))
            .map_err(|e| problem(format!("KNOTROUTE_CONTROL_OIDC_GROUPS_CLAIM: {e}")))?;
        let provider_name = given(&self.provider_name)
            .map(str::to_string)
            .or_else(|| issuer_url.host_str().map(str::to_string))
            .unwrap_or_else(|| "single sign-on".into());
        if provider_name.chars().count() > 60 {
            return Err(problem(
                "KNOTROUTE_CONTROL_OIDC_PROVIDER_NAME is longer than 60 characters; it is a button's label",
            ));
        }
        Ok(Some(SsoSettings {
            issuer: issuer.to_string(),
            client_id: client_id.to_string(),
            client_secret: client_secret.trim().to_string(),
            redirect_url,
            scopes: self
                .scopes
                .split_whitespace()
                .filter(|s| *s != "openid")
                .map(str::to_string)
                .collect(),
            groups_claim,
            role_map,
            default_role,
            provider_name,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> OidcSettings {
        OidcSettings {
            issuer: Some("https://id.example/realms/knot".into()),
            client_id: Some("knotroute".into()),
            client_secret: Some("s3cret".into()),
            default_role: "none".into(),
            scopes: "profile email groups".into(),
            ..Default::default()
        }
    }

    fn public() -> url::Url {
        url::Url::parse("https://control.example/").unwrap()
    }

    #[test]
    fn unset_issuer_is_no_single_sign_on_and_stray_settings_are_refused() {
        assert!(OidcSettings::default().validate(None).unwrap().is_none());
        let stray = OidcSettings {
            issuer: None,
            ..settings()
        };
        assert!(stray.validate(Some(&public())).is_err());
    }

    #[test]
    fn the_callback_is_below_the_public_url_which_is_required() {
        let sso = settings().validate(Some(&public())).unwrap().unwrap();
        assert_eq!(
            sso.redirect_url,
            "https://control.example/auth/oidc/callback"
        );
        assert_eq!(sso.provider_name, "id.example");
        assert_eq!(sso.scopes, ["profile", "email", "groups"]);
        let err = settings().validate(None).unwrap_err().to_string();
        assert!(err.contains("KNOTROUTE_CONTROL_PUBLIC_URL"), "{err}");
    }

    #[test]
    fn each_bad_setting_is_named() {
        for (change, names) in [
            (
                OidcSettings {
                    issuer: Some("http://id.example".into()),
                    ..settings()
                },
                "OIDC_ISSUER must start with https://",
            ),
            (
                OidcSettings {
                    client_id: None,
                    ..settings()
                },
                "OIDC_CLIENT_ID",
            ),
            (
                OidcSettings {
                    client_secret: None,
                    ..settings()
                },
                "OIDC_CLIENT_SECRET",
            ),
            (
                OidcSettings {
                    role_map: Some("admins=root".into()),
                    ..settings()
                },
                "OIDC_ROLE_MAP: `root` is not a role",
            ),
            (
                OidcSettings {
                    default_role: "boss".into(),
                    ..settings()
                },
                "OIDC_DEFAULT_ROLE",
            ),
            (
                OidcSettings {
                    groups_claim: Some("\"open".into()),
                    ..settings()
                },
                "OIDC_GROUPS_CLAIM",
            ),
        ] {
            let err = change.validate(Some(&public())).unwrap_err().to_string();
            assert!(err.contains(names), "{names}: {err}");
        }
        let loopback = OidcSettings {
            issuer: Some("http://127.0.0.1:9400".into()),
            ..settings()
        };
        assert!(
            loopback.validate(Some(&public())).is_ok(),
            "http on loopback is for tests"
        );
    }

    #[test]
    fn the_client_secret_never_shows_in_debug_output() {
        let sso = settings().validate(Some(&public())).unwrap().unwrap();
        assert!(!format!("{sso:?}").contains("s3cret"));
    }
}
