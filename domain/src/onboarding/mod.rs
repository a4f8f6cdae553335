//! Onboarding: the ready-to-share guides for each platform and the public
//! invite links.

pub mod guide;
pub mod guide_text;
pub mod invites;
