//! Which extensions of version 1 a peer speaks (docs/src/agent-protocol.md).
//!
//! Each side names what it speaks in the `X-Knot-Extensions` header: Control
//! on every answer (`GET /healthz` included), the Agent on every request.
//! A version-1 peer sends no such header and ignores ours, so headers are
//! the one thing that may go to any peer. Everything else an extension adds
//! (a field, a query parameter, a job kind, an endpoint) goes only to a peer
//! whose header named that extension: the first Control refuses a body with
//! a field it does not know.

use std::fmt;

/// The header both sides announce their extensions in.
pub const HEADER_EXTENSIONS: &str = "X-Knot-Extensions";

/// One extension of version 1, with what it adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Extension {
    /// A `"nonce"` in every signed body and the enroll body; replays refused.
    Nonce,
    /// Control signs its answers (`X-Knot-Control-*`) and names its key in
    /// the enroll answer; the Agent reports its pin and the answers it
    /// refused (`control_key`, `refused_answers` in heartbeats).
    SignedAnswers,
    /// `?wait=N` on `jobs/next`.
    LongPoll,
    /// `"progress"` on `jobs/next`, `POST /api/v1/agents/jobs/progress`, and
    /// the result status `cancelled`.
    Progress,
    /// `restart_count`, `last_error` and `warnings` per heartbeat component.
    ComponentHealth,
    /// The service catalog fields of `deploy_sidecar` (`title`,
    /// `description`, `tags`, `category`, `scheme`).
    Catalog,
    /// The job kinds `backup_volume` and `verify_backup`, and `backup` in
    /// their results.
    Backups,
    /// The job kind `probe_service`, `remove_component` of a `probe-…`
    /// node, and `probe` in its results.
    Probes,
    /// `restart` (the address before and after) in a `restart_component`
    /// result.
    RestartReport,
}

impl Extension {
    /// Every extension, in the order they are announced.
    pub const ALL: [Extension; 9] = [
        Extension::Nonce,
        Extension::SignedAnswers,
        Extension::LongPoll,
        Extension::Progress,
        Extension::ComponentHealth,
        Extension::Catalog,
        Extension::Backups,
        Extension::Probes,
        Extension::RestartReport,
    ];

    /// Its name in the header.
    pub const fn name(self) -> &'static str {
        match self {
            Extension::Nonce => "nonce",
            Extension::SignedAnswers => "signed-answers",
            Extension::LongPoll => "long-poll",
            Extension::Progress => "progress",
            Extension::ComponentHealth => "component-health",
            Extension::Catalog => "catalog",
            Extension::Backups => "backups",
            Extension::Probes => "probes",
            Extension::RestartReport => "restart-report",
        }
    }

    /// The extension a name in the header stands for; `None` for one this
    /// build does not know (a newer peer's), which is then left out.
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim();
        Self::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name))
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }

    /// The extension a job kind needs, or `None` for a version-1 kind (and
    /// for a kind nobody knows, which validation refuses anyway).
    pub fn of_job_kind(kind: &str) -> Option<Self> {
        match kind {
            "backup_volume" | "verify_backup" => Some(Extension::Backups),
            "probe_service" => Some(Extension::Probes),
            _ => None,
        }
    }

    /// The extension a job needs: as [`Extension::of_job_kind`], and
    /// `remove_component` of an end-to-end probe's node (`probe-…`) needs
    /// [`Extension::Probes`].
    pub fn of_job(job: &crate::jobs::JobPayload) -> Option<Self> {
        match job {
            crate::jobs::JobPayload::RemoveComponent { component_id }
                if component_id.starts_with("probe-") =>
            {
                Some(Extension::Probes)
            }
            job => Self::of_job_kind(job.kind()),
        }
    }
}

impl fmt::Display for Extension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of extensions: what a peer announced, or what this build speaks.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Extensions(u16);

impl Extensions {
    /// A version-1 peer's: nothing.
    pub const NONE: Extensions = Extensions(0);

    /// Every extension this build speaks.
    pub fn all() -> Self {
        Self::ALL_BITS
    }

    const ALL_BITS: Extensions = {
        let mut bits = 0;
        let mut i = 0;
        while i < Extension::ALL.len() {
            bits |= Extension::ALL[i].bit();
            i += 1;
        }
        Extensions(bits)
    };

    /// The set a header value names: comma-separated, any case, spaces
    /// around names ignored, names this build does not know left out.
    pub fn parse(header: &str) -> Self {
        header
            .split(',')
            .filter_map(Extension::parse)
            .fold(Self::NONE, Self::with)
    }

    /// The set named by the header's values, or `None` when there is no
    /// such header (a version-1 peer). Takes every value, since a proxy may
    /// split one header into several.
    pub fn from_header_values<'a>(mut values: impl Iterator<Item = &'a str>) -> Option<Self> {
        let first = values.next()?;
        Some(values.fold(Self::parse(first), |set, v| set.union(Self::parse(v))))
    }

    pub const fn has(self, extension: Extension) -> bool {
        self.0 & extension.bit() != 0
    }

    #[must_use]
    pub const fn with(self, extension: Extension) -> Self {
        Extensions(self.0 | extension.bit())
    }

    #[must_use]
    pub const fn union(self, other: Self) -> Self {
        Extensions(self.0 | other.0)
    }

    #[must_use]
    pub const fn intersection(self, other: Self) -> Self {
        Extensions(self.0 & other.0)
    }

    /// What `self` has that `other` lacks.
    #[must_use]
    pub const fn without(self, other: Self) -> Self {
        Extensions(self.0 & !other.0)
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Extension> {
        Extension::ALL.into_iter().filter(move |e| self.has(*e))
    }

    /// The header value: the names, comma-separated (empty for none).
    pub fn header_value(self) -> String {
        self.iter()
            .map(Extension::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether an Agent that announced `self` may be handed a job of `kind`.
    pub fn takes_job_kind(self, kind: &str) -> bool {
        Extension::of_job_kind(kind).is_none_or(|needed| self.has(needed))
    }

    /// The job kinds an Agent that announced `self` may be handed, of `kinds`.
    pub fn job_kinds<'a>(self, kinds: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
        kinds
            .iter()
            .copied()
            .filter(move |k| self.takes_job_kind(k))
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Extensions[{}]", self.header_value())
    }
}

impl fmt::Display for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none (version 1)")
        } else {
            f.write_str(&self.header_value())
        }
    }
}

impl FromIterator<Extension> for Extensions {
    fn from_iter<I: IntoIterator<Item = Extension>>(iter: I) -> Self {
        iter.into_iter().fold(Self::NONE, Self::with)
    }
}

/// The catalog fields `deploy_sidecar` carries for [`Extension::Catalog`].
pub const CATALOG_FIELDS: [&str; 5] = ["title", "description", "tags", "category", "scheme"];

/// A job payload as an Agent that announced `extensions` may receive it:
/// the fields of an extension it did not announce are left out. (Kinds it
/// cannot take at all are never handed to it: [`Extensions::takes_job_kind`].)
pub fn payload_for(
    kind: &str,
    mut payload: serde_json::Value,
    extensions: Extensions,
) -> serde_json::Value {
    if kind == "deploy_sidecar" && !extensions.has(Extension::Catalog) {
        if let Some(fields) = payload.as_object_mut() {
            for field in CATALOG_FIELDS {
                fields.remove(field);
            }
        }
    }
    payload
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_read_loosely_and_written_canonically() {
        let set = Extensions::parse(" Nonce,signed-answers ,, long-poll, teleport ");
        assert!(set.has(Extension::Nonce));
        assert!(set.has(Extension::SignedAnswers));
        assert!(set.has(Extension::LongPoll));
        assert!(!set.has(Extension::Progress));
        assert_eq!(set.header_value(), "nonce, signed-answers, long-poll");
        assert_eq!(Extensions::parse(&set.header_value()), set);
        assert_eq!(Extensions::parse(""), Extensions::NONE);
        let all = Extensions::all();
        assert_eq!(all.iter().count(), Extension::ALL.len());
        assert_eq!(Extensions::parse(&all.header_value()), all);
    }

    #[test]
    fn no_header_is_version_one_and_split_headers_add_up() {
        assert_eq!(Extensions::from_header_values(std::iter::empty()), None);
        assert_eq!(
            Extensions::from_header_values([""].into_iter()),
            Some(Extensions::NONE)
        );
        let both = Extensions::from_header_values(["nonce", "progress, backups"].into_iter());
        assert_eq!(
            both,
            Some(Extensions::parse("nonce, progress, backups")),
            "{both:?}"
        );
    }

    #[test]
    fn new_job_kinds_and_fields_go_only_to_who_announced_them() {
        let v1 = Extensions::NONE;
        for kind in [
            "deploy_beacon",
            "deploy_sidecar",
            "restart_component",
            "remove_component",
        ] {
            assert!(v1.takes_job_kind(kind), "{kind}");
        }
        for kind in ["backup_volume", "verify_backup", "probe_service"] {
            assert!(!v1.takes_job_kind(kind), "{kind}");
            assert!(Extensions::all().takes_job_kind(kind), "{kind}");
        }
        let payload = serde_json::json!({"name": "web", "network_id": "kn_x", "target": "app:80",
            "docker_network": "apps", "beacons": ["https://b"], "title": "Web", "tags": ["a"],
            "scheme": "https"});
        let stripped = payload_for("deploy_sidecar", payload.clone(), v1);
        assert_eq!(
            stripped,
            serde_json::json!({"name": "web", "network_id": "kn_x", "target": "app:80",
            "docker_network": "apps", "beacons": ["https://b"]})
        );
        let remove = |id: &str| crate::jobs::JobPayload::RemoveComponent {
            component_id: id.into(),
        };
        assert_eq!(
            Extension::of_job(&remove("probe-web")),
            Some(Extension::Probes)
        );
        assert_eq!(Extension::of_job(&remove("sidecar-web")), None);
        let catalog = Extensions::NONE.with(Extension::Catalog);
        assert_eq!(
            payload_for("deploy_sidecar", payload.clone(), catalog),
            payload
        );
    }
}
