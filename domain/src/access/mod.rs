//! Access to Control: admin sign-in and sessions, personal API tokens, who
//! may do what (`roles`, `principal`), Control's own signing keys, and the
//! secrets they are made of.

pub mod api_tokens;
pub mod control_identity;
pub mod principal;
pub mod roles;
pub mod secrets;
pub mod sign_in;
