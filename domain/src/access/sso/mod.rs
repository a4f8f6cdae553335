//! Single sign-on through an OpenID Connect provider: the authorization code
//! flow with PKCE (`openidconnect`), state, nonce, issuer, audience and
//! signature checked by the library.
//!
//! - **Any replica can finish a sign-in.** What the callback needs (nonce,
//!   PKCE verifier, where to go after) is kept in `oidc_flows`, found by the
//!   SHA-256 of the `state` the provider hands back, and deleted when used:
//!   a callback works once, and only within [`FLOW_LIFETIME`].
//! - **The provider's documents are cached.** Discovery and the signing keys
//!   are fetched at most every [`PROVIDER_TTL`], and again at once when an ID
//!   token names a key not among them (the provider rotated its keys).
//! - **The HTTP client follows no redirects**, so a provider endpoint cannot
//!   send Control's requests (with the client secret) elsewhere.
//! - Who a provider account is, and its role, is `accounts`; how groups map
//!   to roles is `mapping`.

mod accounts;
pub mod mapping;

pub use accounts::{AccountState, ProviderAccount};
use mapping::{Grant, GrantSpec, GroupsClaim, RoleMap};

use super::secrets::token_hash;
use super::sign_in::{AdminSessions, NewSession};
use crate::entities::oidc_flow;
use crate::StoreError;
use chrono::{Duration, Utc};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreIdToken, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, IssuerUrl,
    Nonce, OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    SignatureVerificationError, TokenResponse,
};
use sea_orm::{ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio::sync::RwLock;

/// How long a sign-in begun may take at the provider.
pub const FLOW_LIFETIME: Duration = Duration::minutes(10);
/// How long discovery and the signing keys are kept before fetched again.
pub const PROVIDER_TTL: std::time::Duration = std::time::Duration::from_secs(600);
/// Where the provider sends the browser back: below `PUBLIC_URL`.
pub const CALLBACK_PATH: &str = "/auth/oidc/callback";
/// Where a sign-in through the provider begins.
pub const START_PATH: &str = "/auth/oidc/start";

/// Single sign-on, as configured (`KNOTROUTE_CONTROL_OIDC_…`).
#[derive(Clone)]
pub struct SsoSettings {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    /// `PUBLIC_URL` + [`CALLBACK_PATH`]; registered at the provider.
    pub redirect_url: String,
    /// Scopes asked for besides `openid`.
    pub scopes: Vec<String>,
    pub groups_claim: GroupsClaim,
    pub role_map: RoleMap,
    /// The role of a person no group maps; `None`: they wait for approval.
    pub default_role: Option<GrantSpec>,
    /// What the sign-in button says after "Sign in with".
    pub provider_name: String,
}

impl std::fmt::Debug for SsoSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("redirect_url", &self.redirect_url)
            .field("scopes", &self.scopes)
            .field("groups_claim", &self.groups_claim)
            .field("role_map", &self.role_map)
            .field("default_role", &self.default_role)
            .field("provider_name", &self.provider_name)
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SsoError {
    /// The callback's `state` is unknown, used or too old: begin again.
    #[error("this sign-in is unknown, was already used or took longer than 10 minutes")]
    FlowUnknown,
    /// The provider could not be reached or answered something unusable.
    #[error("the identity provider: {0}")]
    Provider(String),
    /// The provider's answer did not pass the checks (signature, issuer,
    /// audience, nonce, expiry): nobody is signed in.
    #[error("the identity provider's ID token was refused: {0}")]
    Token(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for SsoError {
    fn from(e: sea_orm::DbErr) -> Self {
        SsoError::Store(StoreError(e))
    }
}

/// A sign-in begun: where to send the browser, and the `state` it must
/// come back with.
pub struct Begun {
    pub url: String,
    pub state: String,
}

impl std::fmt::Debug for Begun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Begun { .. }")
    }
}

/// How a callback ended.
#[derive(Debug)]
pub enum SsoOutcome {
    /// Signed in: the session and the local path to open.
    SignedIn { session: NewSession, next: String },
    /// Known now, waits for the owner's approval.
    Pending { name: String },
    /// The owner disabled this person.
    Disabled,
}

/// The client `from_provider_metadata` makes: authorization endpoint set,
/// token and userinfo endpoints as the provider's metadata says.
type ProviderClient = CoreClient<
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
>;

struct Cached {
    metadata: CoreProviderMetadata,
    fetched: std::time::Instant,
}

#[derive(Clone)]
pub struct Sso {
    inner: Arc<Inner>,
}

struct Inner {
    settings: SsoSettings,
    db: DatabaseConnection,
    sessions: AdminSessions,
    http: openidconnect::reqwest::Client,
    provider: RwLock<Option<Cached>>,
}

impl Sso {
    pub fn new(db: DatabaseConnection, settings: SsoSettings, sessions: AdminSessions) -> Self {
        let http = openidconnect::reqwest::ClientBuilder::new()
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .expect("an HTTP client with rustls builds");
        Self {
            inner: Arc::new(Inner {
                settings,
                db,
                sessions,
                http,
                provider: RwLock::new(None),
            }),
        }
    }

    /// What the sign-in button names.
    pub fn provider_name(&self) -> &str {
        &self.inner.settings.provider_name
    }

    /// The provider's metadata and keys, fetched when missing, older than
    /// [`PROVIDER_TTL`], or when `refresh` (a key was not found).
    async fn metadata(&self, refresh: bool) -> Result<CoreProviderMetadata, SsoError> {
        if !refresh {
            if let Some(c) = self.inner.provider.read().await.as_ref() {
                if c.fetched.elapsed() < PROVIDER_TTL {
                    return Ok(c.metadata.clone());
                }
            }
        }
        let mut slot = self.inner.provider.write().await;
        // Another request may have fetched them while this one waited.
        if let Some(c) = slot.as_ref() {
            let fresh = if refresh {
                std::time::Duration::from_secs(5)
            } else {
                PROVIDER_TTL
            };
            if c.fetched.elapsed() < fresh {
                return Ok(c.metadata.clone());
            }
        }
        let issuer = IssuerUrl::new(self.inner.settings.issuer.clone())
            .map_err(|e| SsoError::Provider(format!("issuer URL: {e}")))?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.inner.http)
            .await
            .map_err(|e| SsoError::Provider(format!("discovery failed: {}", chain(&e))))?;
        *slot = Some(Cached {
            metadata: metadata.clone(),
            fetched: std::time::Instant::now(),
        });
        Ok(metadata)
    }

    fn client(&self, metadata: CoreProviderMetadata) -> Result<ProviderClient, SsoError> {
        let s = &self.inner.settings;
        let redirect = RedirectUrl::new(s.redirect_url.clone())
            .map_err(|e| SsoError::Provider(format!("redirect URL: {e}")))?;
        Ok(CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(s.client_id.clone()),
            Some(ClientSecret::new(s.client_secret.clone())),
        )
        .set_redirect_uri(redirect))
    }

    /// Begins a sign-in: the provider's authorization URL to send the
    /// browser to, and its `state` (the browser keeps it, so that only the
    /// browser that began a sign-in can finish it). `next` is where to go
    /// after (a checked local path).
    pub async fn begin(&self, next: &str) -> Result<Begun, SsoError> {
        let client = self.client(self.metadata(false).await?)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge);
        for scope in &self.inner.settings.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.url();
        let now = Utc::now();
        oidc_flow::ActiveModel {
            state_hash: Set(token_hash(state.secret())),
            nonce: Set(nonce.secret().clone()),
            pkce_verifier: Set(verifier.secret().clone()),
            next: Set(next.to_string()),
            created_at: Set(now),
            expires_at: Set(now + FLOW_LIFETIME),
        }
        .insert(&self.inner.db)
        .await?;
        Ok(Begun {
            url: url.to_string(),
            state: state.secret().clone(),
        })
    }

    /// Finishes a sign-in from the provider's callback: the code is
    /// exchanged, the ID token checked, the person found or created and
    /// their role synced from their groups.
    pub async fn finish(
        &self,
        state: &str,
        code: &str,
        client_address: &str,
    ) -> Result<SsoOutcome, SsoError> {
        let flow = self.take_flow(state).await?;
        let metadata = self.metadata(false).await?;
        let userinfo_url = metadata.userinfo_endpoint().map(|u| u.url().clone());
        let client = self.client(metadata)?;
        let response = client
            .exchange_code(AuthorizationCode::new(code.to_string()))
            .map_err(|e| SsoError::Provider(format!("no token endpoint: {e}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(flow.pkce_verifier.clone()))
            .request_async(&self.inner.http)
            .await
            .map_err(|e| SsoError::Provider(format!("code exchange failed: {}", chain(&e))))?;
        let id_token = response
            .id_token()
            .ok_or_else(|| SsoError::Token("the token response has no ID token".into()))?;
        let nonce = Nonce::new(flow.nonce.clone());
        let (issuer, subject) = match self.verify(&client, id_token, &nonce) {
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                // Keys rotated since they were cached: fetch them once more.
                let client = self.client(self.metadata(true).await?)?;
                self.verify(&client, id_token, &nonce)
            }
            other => other,
        }
        .map_err(|e| SsoError::Token(e.to_string()))?;
        // Verified above: its payload is the provider's word.
        let mut claims = token_payload(id_token)?;
        let claim = &self.inner.settings.groups_claim;
        let groups = match claim.groups_in(&claims) {
            Some(groups) => groups,
            None => match userinfo_url {
                Some(url) => {
                    let info = self
                        .userinfo(url, response.access_token().secret(), &subject)
                        .await?;
                    let groups = claim.groups_in(&info).unwrap_or_default();
                    for (k, v) in info {
                        claims.entry(k).or_insert(v);
                    }
                    groups
                }
                None => Vec::new(),
            },
        };
        let account = ProviderAccount {
            issuer,
            subject,
            suggested_name: ["preferred_username", "email", "name"]
                .iter()
                .find_map(|k| claims.get(*k).and_then(Value::as_str))
                .map(str::to_string),
            groups,
        };
        let grant = self.grant_for(&account.groups);
        match accounts::sign_in_as(&self.inner.db, &account, grant).await? {
            AccountState::Active { id, name } => {
                let session = self
                    .inner
                    .sessions
                    .open_for_person(&id, client_address)
                    .await
                    .map_err(|e| match e {
                        super::sign_in::AuthError::Store(s) => SsoError::Store(s),
                        other => SsoError::Provider(other.to_string()),
                    })?;
                tracing::info!(
                    client = client_address,
                    user = name.as_str(),
                    "person signed in through single sign-on"
                );
                Ok(SsoOutcome::SignedIn {
                    session,
                    next: flow.next,
                })
            }
            AccountState::Pending { name } => Ok(SsoOutcome::Pending { name }),
            AccountState::Disabled => Ok(SsoOutcome::Disabled),
        }
    }

    /// What the role map (or else the default role) grants `groups`.
    fn grant_for(&self, groups: &[String]) -> Option<Grant> {
        let s = &self.inner.settings;
        s.role_map
            .grant_for(groups)
            .or_else(|| s.default_role.as_ref().map(Grant::from))
    }

    /// The issuer and subject of a valid ID token.
    fn verify(
        &self,
        client: &ProviderClient,
        token: &CoreIdToken,
        nonce: &Nonce,
    ) -> Result<(String, String), ClaimsVerificationError> {
        let claims = token.claims(&client.id_token_verifier(), nonce)?;
        Ok((
            claims.issuer().as_str().to_string(),
            claims.subject().as_str().to_string(),
        ))
    }

    /// Userinfo's claims, when the ID token has no groups: only for the
    /// same subject (OpenID Connect Core 5.3.2).
    async fn userinfo(
        &self,
        url: url::Url,
        access_token: &str,
        subject: &str,
    ) -> Result<Map<String, Value>, SsoError> {
        let answer = self
            .inner
            .http
            .get(url)
            .bearer_auth(access_token)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| SsoError::Provider(format!("userinfo: {}", chain(&e))))?;
        if !answer.status().is_success() {
            return Err(SsoError::Provider(format!(
                "userinfo answered {}",
                answer.status()
            )));
        }
        let info: Map<String, Value> = answer
            .json()
            .await
            .map_err(|e| SsoError::Provider(format!("userinfo is not JSON: {e}")))?;
        if info.get("sub").and_then(Value::as_str) != Some(subject) {
            return Err(SsoError::Token(
                "userinfo names another subject than the ID token".into(),
            ));
        }
        Ok(info)
    }

    /// Uses up the flow `state` names: one-time, also across replicas (the
    /// delete decides which of two racing callbacks gets it).
    async fn take_flow(&self, state: &str) -> Result<oidc_flow::Model, SsoError> {
        let hash = token_hash(state);
        let Some(flow) = oidc_flow::Entity::find_by_id(hash.as_str())
            .filter(oidc_flow::Column::ExpiresAt.gt(Utc::now()))
            .one(&self.inner.db)
            .await?
        else {
            return Err(SsoError::FlowUnknown);
        };
        let taken = oidc_flow::Entity::delete_by_id(hash.as_str())
            .exec(&self.inner.db)
            .await?;
        if taken.rows_affected != 1 {
            return Err(SsoError::FlowUnknown);
        }
        Ok(flow)
    }

    /// Forgets sign-ins begun and never finished.
    pub async fn prune(&self) -> Result<(), SsoError> {
        oidc_flow::Entity::delete_many()
            .filter(oidc_flow::Column::ExpiresAt.lte(Utc::now()))
            .exec(&self.inner.db)
            .await?;
        Ok(())
    }
}

/// The JSON payload of a compact JWT (already verified by the caller).
fn token_payload(token: &CoreIdToken) -> Result<Map<String, Value>, SsoError> {
    let compact = token.to_string();
    let payload = compact
        .split('.')
        .nth(1)
        .ok_or_else(|| SsoError::Token("the ID token is not a compact JWT".into()))?;
    let bytes = data_encoding::BASE64URL_NOPAD
        .decode(payload.trim_end_matches('=').as_bytes())
        .map_err(|e| SsoError::Token(format!("the ID token's payload: {e}")))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| SsoError::Token(format!("the ID token's payload: {e}")))
}

/// An error with its causes, on one line (reqwest's say little alone).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}
