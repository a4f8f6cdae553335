//! What leaves this host as job output: secrets removed, length bounded.
//!
//! Command output is sent to Control and shown to admins, so the Agent's own
//! secrets (its private key, the enrollment token) and anything that looks
//! like `TOKEN=…`, `password: …` or `Authorization: …` are replaced first.

/// Job results are cut to this many bytes; the head and the tail survive,
/// because errors are usually at the end.
pub const OUTPUT_MAX: usize = 16 * 1024;
const HEAD: usize = 4 * 1024;
const MASK: &str = "[redacted]";

/// Names whose values are secret when they appear as `name=value` / `name: value`.
const SECRET_NAMES: [&str; 6] = [
    "token",
    "password",
    "secret",
    "private_key",
    "authorization",
    "api_key",
];

/// The Agent's known secrets: every occurrence is masked.
#[derive(Clone, Debug, Default)]
pub struct Secrets(Vec<String>);

impl Secrets {
    pub fn new(known: impl IntoIterator<Item = String>) -> Self {
        // Short strings would mask ordinary words; real secrets are long.
        Self(known.into_iter().filter(|s| s.len() >= 8).collect())
    }

    /// `text` with secrets masked and its length bounded to [`OUTPUT_MAX`].
    pub fn clean(&self, text: &str) -> String {
        let masked: Vec<String> = self
            .known_masked(text)
            .lines()
            .map(mask_assignment)
            .collect();
        bound(&masked.join("\n"))
    }

    /// One line of output with secrets masked, as it is sent while a job runs.
    pub fn mask_line(&self, line: &str) -> String {
        mask_assignment(&self.known_masked(line))
    }

    fn known_masked(&self, text: &str) -> String {
        let mut text = text.to_string();
        for secret in &self.0 {
            text = text.replace(secret.as_str(), MASK);
        }
        text
    }
}

/// Masks the value in `NAME=value`, `NAME: value` or `"name": "value"` when the
/// name says it is secret.
fn mask_assignment(line: &str) -> String {
    let lower = line.to_ascii_lowercase();
    for name in SECRET_NAMES {
        let Some(at) = lower.find(name) else { continue };
        let rest = &line[at + name.len()..];
        // Allow the name to continue (`KNOTROUTE_CONTROL_ENROLL_TOKEN`), then a separator.
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after_name = &rest[name_end..];
        let separator = after_name
            .char_indices()
            .take_while(|(_, c)| matches!(c, '"' | '\'' | ' ' | '=' | ':'))
            .last();
        let Some((sep_at, _)) = separator else {
            continue;
        };
        let sep_text = &after_name[..=sep_at];
        if !sep_text.contains(['=', ':']) {
            continue;
        }
        let value_start = at + name.len() + name_end + sep_at + 1;
        if value_start >= line.len() {
            continue;
        }
        return format!("{}{MASK}", &line[..value_start]);
    }
    line.to_string()
}

/// `text` cut to [`OUTPUT_MAX`] bytes on character boundaries, keeping its head and tail.
pub fn bound(text: &str) -> String {
    if text.len() <= OUTPUT_MAX {
        return text.to_string();
    }
    let head_end = floor_char_boundary(text, HEAD);
    let tail_start = ceil_char_boundary(text, text.len() - (OUTPUT_MAX - HEAD - 64));
    format!(
        "{}\n… {} bytes left out …\n{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    )
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_secrets_and_secret_assignments_are_masked() {
        let secrets = Secrets::new(["krit_abcdefghijklmnop".to_string(), "short".to_string()]);
        let out = secrets.clean(
            "using token krit_abcdefghijklmnop here\n\
             KNOTROUTE_CONTROL_ENROLL_TOKEN=shared-secret-value\n\
             {\"password\": \"hunter2\"}\n\
             Authorization: Bearer abc.def\n\
             a short word stays; tokens are counted\n\
             Pulling knotroute (ghcr.io/localzet/knotroute-beacon:latest)...",
        );
        assert!(!out.contains("krit_abcdefghijklmnop"), "{out}");
        assert!(!out.contains("shared-secret-value"), "{out}");
        assert!(!out.contains("hunter2"), "{out}");
        assert!(!out.contains("abc.def"), "{out}");
        assert!(
            out.contains("KNOTROUTE_CONTROL_ENROLL_TOKEN=[redacted]"),
            "{out}"
        );
        assert!(
            out.contains("a short word stays; tokens are counted"),
            "{out}"
        );
        assert!(out.contains("knotroute-beacon:latest"), "{out}");
    }

    #[test]
    fn long_output_keeps_head_and_tail_on_char_boundaries() {
        let text = format!("{}{}END", "я".repeat(10_000), "x".repeat(20_000));
        let out = bound(&text);
        assert!(out.len() <= OUTPUT_MAX + 64, "{}", out.len());
        assert!(out.starts_with('я'));
        assert!(out.ends_with("END"));
        assert!(out.contains("bytes left out"));
        assert_eq!(bound("short"), "short");
    }
}
