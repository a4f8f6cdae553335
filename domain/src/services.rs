//! Every domain service of one Control, built once over one database: what
//! the JSON API's handlers and the UI's server functions both call.

use crate::access::api_tokens::ApiTokens;
use crate::access::control_identity::ControlIdentity;
use crate::access::second_factor::SecondFactors;
use crate::access::sign_in::AdminSessions;
use crate::access::sso::{Sso, SsoSettings};
use crate::access::users::Users;
use crate::agents::approval::AgentApproval;
use crate::agents::control_trust::ControlTrust;
use crate::agents::enrollment::Enrollment;
use crate::agents::extensions::AgentExtensions;
use crate::agents::install_tokens::InstallTokens;
use crate::agents::inventory::AgentInventory;
use crate::agents::requests::AgentRequests;
use crate::agents::revoked_keys::RevokedKeys;
use crate::alerts::settings::Alerts;
use crate::beacons::checks::{AddressPolicy, BeaconChecks};
use crate::beacons::diagnostics::Diagnostics;
use crate::jobs::queue::JobQueue;
use crate::jobs::reconcile::Reconciler;
use crate::live::ChangeFeed;
use crate::metrics::Metrics;
use crate::networks::Networks;
use crate::onboarding::invites::Invites;
use crate::overview::Overview;
use crate::policy::OperationsPolicies;
use crate::setup::SetupChecklists;
use sea_orm::DatabaseConnection;

/// The settings the domain's rules depend on (the rest of the
/// configuration is the server's).
pub struct DomainSettings<'a> {
    pub admin_password: &'a str,
    pub enroll_token: &'a str,
    /// Where admins and invitees reach Control, for links in texts.
    pub public_url: Option<url::Url>,
    /// Where alerts are posted; none turns them off until set in the UI.
    pub alert_webhook: Option<String>,
    /// Beacon URLs may name private addresses (a lab, not the Internet).
    pub allow_private_beacons: bool,
    /// Silence after which an Agent counts as offline.
    pub agent_offline_after: chrono::Duration,
    /// Single sign-on through an OpenID provider; `None`: passwords only.
    pub sso: Option<SsoSettings>,
}

#[derive(Clone)]
pub struct Services {
    pub db: DatabaseConnection,
    pub networks: Networks,
    pub beacons: BeaconChecks,
    pub auth: AdminSessions,
    pub agents: AgentRequests,
    pub enrollment: Enrollment,
    pub install_tokens: InstallTokens,
    /// Keys revoked by the admin, refused at enrollment until allowed again.
    pub revoked_keys: RevokedKeys,
    pub invites: Invites,
    pub inventory: AgentInventory,
    pub jobs: JobQueue,
    pub reconciler: Reconciler,
    pub overview: Overview,
    /// What the admin screens' live updates are made of.
    pub live: ChangeFeed,
    pub metrics: Metrics,
    pub diagnostics: Diagnostics,
    /// Each network's setup checklist.
    pub setup: SetupChecklists,
    /// The operations policy.
    pub policy: OperationsPolicies,
    pub alerts: Alerts,
    pub api_tokens: ApiTokens,
    /// People with accounts of their own, and their invitations.
    pub users: Users,
    /// The optional second factor of people's password sign-ins.
    pub second_factors: SecondFactors,
    /// Single sign-on, when an OpenID provider is configured.
    pub sso: Option<Sso>,
    /// Control's signing keys: every answer an Agent acts on is signed.
    pub identity: ControlIdentity,
    /// What Agents report about that key (their pin, refused answers).
    pub control_trust: ControlTrust,
    /// What each Agent announced it speaks beyond version 1.
    pub agent_extensions: AgentExtensions,
    /// New Agents waiting for an admin's approval.
    pub approval: AgentApproval,
}

impl Services {
    pub fn new(db: DatabaseConnection, settings: DomainSettings<'_>) -> Self {
        let policy = AddressPolicy::setting(settings.allow_private_beacons);
        let offline_after = settings.agent_offline_after;
        let alerts = Alerts::new(
            db.clone(),
            settings.alert_webhook,
            settings.public_url.as_ref().map(|u| u.to_string()),
            policy,
        );
        let jobs = JobQueue::new(db.clone(), alerts.clone());
        let reconciler = Reconciler::new(db.clone(), jobs.clone());
        let install_tokens = InstallTokens::new(db.clone(), settings.public_url.clone());
        let networks = Networks::new(db.clone());
        let metrics = Metrics::new();
        let inventory = AgentInventory::new(
            db.clone(),
            reconciler.clone(),
            install_tokens.clone(),
            offline_after,
        );
        let approval = AgentApproval::new(db.clone(), inventory.clone(), alerts.clone());
        let identity = ControlIdentity::new(db.clone());
        let users = Users::new(db.clone(), settings.public_url.clone());
        let second_factors =
            SecondFactors::new(db.clone(), settings.public_url.as_ref()).telling(alerts.clone());
        let auth = AdminSessions::new(
            db.clone(),
            settings.admin_password,
            users.clone(),
            second_factors.clone(),
        );
        let sso = settings
            .sso
            .map(|sso| Sso::new(db.clone(), sso, auth.clone()));
        Self {
            sso,
            second_factors,
            control_trust: ControlTrust::new(db.clone(), identity.clone()),
            agent_extensions: AgentExtensions::new(db.clone()),
            identity,
            beacons: BeaconChecks::new(
                db.clone(),
                networks.clone(),
                metrics.clone(),
                alerts.clone(),
                policy,
            ),
            api_tokens: ApiTokens::new(db.clone(), users.clone()),
            metrics,
            diagnostics: Diagnostics::new(db.clone(), networks.clone(), inventory.clone(), policy),
            setup: SetupChecklists::new(
                db.clone(),
                networks.clone(),
                inventory.clone(),
                settings.public_url.as_ref(),
            ),
            policy: OperationsPolicies::new(db.clone(), alerts.clone()),
            invites: Invites::new(db.clone(), networks.clone(), settings.public_url),
            networks,
            auth,
            users,
            agents: AgentRequests::new(db.clone()),
            enrollment: Enrollment::new(db.clone(), settings.enroll_token, approval.clone()),
            approval,
            inventory,
            install_tokens,
            revoked_keys: RevokedKeys::new(db.clone()),
            jobs,
            reconciler,
            overview: Overview::new(db.clone(), offline_after),
            live: ChangeFeed::new(db.clone(), offline_after),
            alerts,
            db,
        }
    }
}
