//! Access to Control: admin sign-in and sessions, people and their
//! passwords (`users`, `passwords`), personal API tokens, who may do what
//! (`roles`, `principal`) and in which networks (`scope`), the optional
//! second factor of password sign-ins (`second_factor`), single sign-on
//! through an OpenID provider (`sso`), Control's own signing keys, and the
//! secrets they are made of.

pub mod api_tokens;
pub mod control_identity;
pub mod passwords;
pub mod principal;
pub mod roles;
pub mod scope;
pub mod second_factor;
pub mod secrets;
pub mod sign_in;
pub mod sso;
pub(crate) mod user_networks;
pub mod users;
