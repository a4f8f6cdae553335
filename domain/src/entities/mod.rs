//! sea-orm entities: the persisted rows behind the domain services. Only the
//! domain layer touches them.

pub mod admin_session;
pub mod agent;
pub mod agent_control_trust;
pub mod alert;
pub mod alert_state;
pub mod api_token;
pub mod audit_entry;
pub mod beacon_check;
pub mod beacon_check_hour;
pub mod beacon_diagnosis;
pub mod beacon_status;
pub mod component;
pub mod control_key;
pub mod enrollment_log;
pub mod identity_backup;
pub mod install_token;
pub mod invite;
pub mod invite_open;
pub mod job;
pub mod job_log_line;
pub mod job_stage;
pub mod login_failure;
pub mod network;
pub mod oidc_flow;
pub mod revoked_key;
pub mod schedule_lease;
pub mod seen_signature;
pub mod setting;
pub mod setup_skip;
pub mod signin_device;
pub mod user;
pub mod user_invite;
pub mod user_network;
pub mod user_recovery_code;
pub mod user_second_factor;
