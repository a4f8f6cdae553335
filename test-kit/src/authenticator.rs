//! An authenticator app, as tests use one: it reads the `otpauth://` URI a
//! QR code holds and shows the code for a moment in time.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the epoch, now.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs()
}

/// The code the app shows at `unix_secs` for the account in `otpauth_uri`.
pub fn code_at(otpauth_uri: &str, unix_secs: u64) -> String {
    totp_rs::Totp::from_url(otpauth_uri)
        .unwrap_or_else(|e| panic!("an app would refuse {otpauth_uri}: {e}"))
        .generate(unix_secs)
        .to_string()
}

/// The code the app shows now.
pub fn code_now(otpauth_uri: &str) -> String {
    code_at(otpauth_uri, now())
}

/// The code of the next 30-second step: one the server has not seen yet
/// when the current one was just used (it allows one step of clock drift).
pub fn next_code(otpauth_uri: &str) -> String {
    code_at(otpauth_uri, now() + 30)
}
