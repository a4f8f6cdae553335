//! How a provider's groups become a role: the role map and the groups claim
//! of the configuration (`KNOTROUTE_CONTROL_OIDC_ROLE_MAP`, `…_GROUPS_CLAIM`,
//! `…_DEFAULT_ROLE`), parsed once at start-up and applied at every sign-in.
//!
//! When several groups map, the person gets the **highest** role among them,
//! in the networks of the entries that grant that role (all networks if one
//! of them names none). Entries granting a lower role add nothing: joining
//! two grants into one role over the union of their networks would give
//! more than either entry said.

use super::super::roles::Role;
use serde_json::Value;

/// One `group=role[:network]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MapEntry {
    group: String,
    grant: GrantSpec,
}

/// A role, and the network it is limited to (a Network ID or a network's
/// name), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantSpec {
    pub role: Role,
    pub network: Option<String>,
}

impl GrantSpec {
    /// `role` or `role:network`.
    fn parse(raw: &str) -> Result<Self, String> {
        let (role, network) = match raw.split_once(':') {
            Some((role, network)) => (role, Some(network.trim())),
            None => (raw, None),
        };
        let role = Role::parse("role", role).map_err(|_| {
            format!(
                "`{}` is not a role (use owner, admin, operator or viewer)",
                role.trim()
            )
        })?;
        match network {
            Some("") => Err(format!(
                "`{raw}` names no network after `:` (write role:network or just role)"
            )),
            Some(n) => Ok(Self {
                role,
                network: Some(n.to_string()),
            }),
            None => Ok(Self {
                role,
                network: None,
            }),
        }
    }
}

/// `KNOTROUTE_CONTROL_OIDC_ROLE_MAP`: `group=role[:network]`, comma
/// separated, e.g. `knot-admins=admin,knot-ops=operator:production`. A group
/// may appear more than once to reach several networks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoleMap(Vec<MapEntry>);

impl RoleMap {
    pub fn parse(raw: &str) -> Result<Self, String> {
        let mut entries = Vec::new();
        for item in raw.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            // The last `=`: group names (paths, URLs) may hold one; roles do not.
            let Some((group, spec)) = item.rsplit_once('=') else {
                return Err(format!(
                    "`{item}` has no `=` (write group=role or group=role:network)"
                ));
            };
            let group = group.trim();
            if group.is_empty() {
                return Err(format!("`{item}` names no group before `=`"));
            }
            entries.push(MapEntry {
                group: group.to_string(),
                grant: GrantSpec::parse(spec.trim())?,
            });
        }
        Ok(Self(entries))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What `groups` grant: the highest role among the entries that match,
    /// with those entries' networks; `None` when no entry matches.
    pub fn grant_for(&self, groups: &[String]) -> Option<Grant> {
        let matched: Vec<&MapEntry> = self
            .0
            .iter()
            .filter(|e| groups.contains(&e.group))
            .collect();
        let role = matched.iter().map(|e| e.grant.role).max()?;
        let top: Vec<&MapEntry> = matched
            .into_iter()
            .filter(|e| e.grant.role == role)
            .collect();
        let networks = if top.iter().any(|e| e.grant.network.is_none()) {
            Vec::new()
        } else {
            let mut names: Vec<String> =
                top.iter().filter_map(|e| e.grant.network.clone()).collect();
            names.sort();
            names.dedup();
            names
        };
        Some(Grant {
            role,
            networks,
            groups: top.iter().map(|e| e.group.clone()).collect(),
        })
    }
}

/// A role the provider's answer gives a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub role: Role,
    /// Network IDs or names; empty: every network.
    pub networks: Vec<String>,
    /// The groups that granted it; empty for the default role.
    pub groups: Vec<String>,
}

/// `KNOTROUTE_CONTROL_OIDC_DEFAULT_ROLE`: `none` (people with no mapped group
/// wait for approval) or a role, optionally `role:network`.
pub fn parse_default_role(raw: &str) -> Result<Option<GrantSpec>, String> {
    match raw.trim() {
        "" | "none" => Ok(None),
        spec => GrantSpec::parse(spec).map(Some),
    }
}

impl From<&GrantSpec> for Grant {
    fn from(spec: &GrantSpec) -> Self {
        Grant {
            role: spec.role,
            networks: spec.network.clone().into_iter().collect(),
            groups: Vec::new(),
        }
    }
}

/// `KNOTROUTE_CONTROL_OIDC_GROUPS_CLAIM`: where the groups are in the
/// provider's claims. A dotted path into nested objects (`realm_access.roles`);
/// a segment with dots of its own, like a namespaced claim, is quoted:
/// `"https://example.com/claims".groups`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupsClaim(Vec<String>);

impl Default for GroupsClaim {
    fn default() -> Self {
        Self(vec!["groups".into()])
    }
}

impl GroupsClaim {
    pub fn parse(raw: &str) -> Result<Self, String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(Self::default());
        }
        let mut segments = Vec::new();
        let mut rest = raw;
        loop {
            let (segment, after) = if let Some(quoted) = rest.strip_prefix('"') {
                let end = quoted
                    .find('"')
                    .ok_or_else(|| format!("`{raw}` opens a quote it does not close"))?;
                (&quoted[..end], &quoted[end + 1..])
            } else {
                match rest.find('.') {
                    Some(dot) => (&rest[..dot], &rest[dot..]),
                    None => (rest, ""),
                }
            };
            if segment.is_empty() {
                return Err(format!("`{raw}` has an empty segment"));
            }
            segments.push(segment.to_string());
            if after.is_empty() {
                break;
            }
            rest = after
                .strip_prefix('.')
                .ok_or_else(|| format!("`{raw}`: write a `.` between segments"))?;
        }
        Ok(Self(segments))
    }

    /// The groups in `claims` (the ID token's or userinfo's, as JSON), or
    /// `None` when the claim is absent. A single string counts as one
    /// group; anything else that is not strings is no group.
    pub fn groups_in(&self, claims: &serde_json::Map<String, Value>) -> Option<Vec<String>> {
        let (first, rest) = self.0.split_first()?;
        let mut value = claims.get(first)?;
        for segment in rest {
            value = value.as_object()?.get(segment)?;
        }
        Some(match value {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        })
    }
}

impl std::fmt::Display for GroupsClaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: Vec<String> = self
            .0
            .iter()
            .map(|s| {
                if s.contains('.') {
                    format!("\"{s}\"")
                } else {
                    s.clone()
                }
            })
            .collect();
        f.write_str(&shown.join("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn groups(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_highest_mapped_role_wins_with_only_its_own_networks() {
        let map = RoleMap::parse(
            "knot-admins=admin, knot-ops=operator:production,knot-ops=operator:staging,viewers=viewer",
        )
        .unwrap();
        let ops = map.grant_for(&groups(&["knot-ops", "other"])).unwrap();
        assert_eq!(ops.role, Role::Operator);
        assert_eq!(ops.networks, ["production", "staging"]);
        // Admin everywhere beats operator in production: the operator
        // entry's network must not narrow it, nor widen anything.
        let both = map
            .grant_for(&groups(&["knot-ops", "knot-admins"]))
            .unwrap();
        assert_eq!((both.role, both.networks.len()), (Role::Admin, 0));
        assert_eq!(both.groups, ["knot-admins"]);
        // A lower role elsewhere adds no network to a higher one.
        let map = RoleMap::parse("a=admin:prod,b=viewer:staging").unwrap();
        let g = map.grant_for(&groups(&["a", "b"])).unwrap();
        assert_eq!((g.role, g.networks), (Role::Admin, groups(&["prod"])));
        assert_eq!(map.grant_for(&groups(&["nobody"])), None);
        assert_eq!(map.grant_for(&[]), None);
    }

    #[test]
    fn group_names_with_slashes_and_equals_signs_are_kept_whole() {
        let map = RoleMap::parse("/teams/ops=operator,ou=admins=admin").unwrap();
        let g = map.grant_for(&groups(&["/teams/ops"])).unwrap();
        assert_eq!(g.role, Role::Operator);
        assert_eq!(
            map.grant_for(&groups(&["ou=admins"])).unwrap().role,
            Role::Admin
        );
        // A comma always splits entries, so a DN with commas cannot be a group here.
        assert!(RoleMap::parse("cn=admins,dc=example=admin").is_err());
    }

    #[test]
    fn a_malformed_role_map_is_refused_with_the_entry_named() {
        for (raw, says) in [
            ("knot-admins", "no `=`"),
            ("=admin", "no group"),
            ("ops=superuser", "`superuser` is not a role"),
            ("ops=operator:", "names no network"),
        ] {
            let err = RoleMap::parse(raw).unwrap_err();
            assert!(err.contains(says), "{raw}: {err}");
        }
        assert!(RoleMap::parse("").unwrap().is_empty());
    }

    #[test]
    fn the_default_role_is_none_or_a_role_with_an_optional_network() {
        assert_eq!(parse_default_role("none").unwrap(), None);
        assert_eq!(parse_default_role("").unwrap(), None);
        assert_eq!(
            parse_default_role("viewer:lab").unwrap(),
            Some(GrantSpec {
                role: Role::Viewer,
                network: Some("lab".into())
            })
        );
        assert!(parse_default_role("root").is_err());
    }

    #[test]
    fn the_groups_claim_reaches_nested_and_namespaced_claims() {
        let claims = json!({
            "groups": ["a", "b"],
            "realm_access": {"roles": ["ops"]},
            "https://knotroute.example/claims": {"groups": ["ns"]},
            "single": "only-one",
            "odd": [1, "x", null],
        });
        let claims = claims.as_object().unwrap();
        let find = |path: &str| GroupsClaim::parse(path).unwrap().groups_in(claims);
        assert_eq!(find(""), Some(groups(&["a", "b"])));
        assert_eq!(find("realm_access.roles"), Some(groups(&["ops"])));
        assert_eq!(
            find("\"https://knotroute.example/claims\".groups"),
            Some(groups(&["ns"]))
        );
        assert_eq!(find("single"), Some(groups(&["only-one"])));
        assert_eq!(find("odd"), Some(groups(&["x"])));
        assert_eq!(find("missing"), None);
        assert_eq!(find("realm_access.missing"), None);
        assert_eq!(find("groups.deeper"), None, "an array has no members");
        for bad in ["\"unclosed", "a..b", "\"x\"y"] {
            assert!(GroupsClaim::parse(bad).is_err(), "{bad}");
        }
        let shown = GroupsClaim::parse("\"https://x.example/c\".groups").unwrap();
        assert_eq!(shown.to_string(), "\"https://x.example/c\".groups");
    }
}
