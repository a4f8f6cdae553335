//! The operations policy: one record per installation.
//! Control fills in what it knows from its own data each time it is read
//! (people and roles, backups, the Agents' release channel, alerts); the
//! admin writes how relays are added and how a compromised host is revoked,
//! starting from a template. Kept as a row of `settings`; every save is
//! audited; exported as Markdown for the runbook folder.

use crate::access::principal::Granted;
use crate::access::roles::ChangeSettings;
use crate::access::user_networks;
use crate::alerts::settings::Alerts;
use crate::entities::agent::Retirement;
use crate::entities::{agent, setting, user};
use crate::text::say;
use crate::{audit, StoreError};
use protocol::policy::{KnownPart, OperationsPolicy, PolicyInput, PolicyPerson};
use protocol::users::Role;
use protocol::{FieldError, Lang};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::BTreeMap;

const SETTING: &str = "operations_policy";
/// People listed at most; the access sentence counts everyone.
const PEOPLE_SHOWN: u64 = 200;

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("invalid policy")]
    Invalid(Vec<FieldError>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for PolicyError {
    fn from(e: sea_orm::DbErr) -> Self {
        PolicyError::Store(StoreError(e))
    }
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Stored {
    relays: String,
    revocation: String,
    updated_by: String,
}

async fn stored(
    db: &DatabaseConnection,
) -> Result<Option<(Stored, chrono::DateTime<chrono::Utc>)>, StoreError> {
    Ok(setting::Entity::find_by_id(SETTING)
        .one(db)
        .await?
        .map(|row| {
            (
                serde_json::from_str(&row.value).unwrap_or_default(),
                row.updated_at,
            )
        }))
}

impl Stored {
    fn written(&self) -> PolicyInput {
        PolicyInput {
            relays: self.relays.clone(),
            revocation: self.revocation.clone(),
        }
    }
}

/// What the admin wrote (empty parts until then): the checklist's step 10.
pub(crate) async fn written(db: &DatabaseConnection) -> Result<PolicyInput, StoreError> {
    Ok(stored(db)
        .await?
        .map(|(s, _)| s.written())
        .unwrap_or_default())
}

#[derive(Clone)]
pub struct OperationsPolicies {
    db: DatabaseConnection,
    alerts: Alerts,
}

impl OperationsPolicies {
    pub fn new(db: DatabaseConnection, alerts: Alerts) -> Self {
        Self { db, alerts }
    }

    /// The policy with what Control knows filled in. For those who may
    /// change settings (they see every network and every Agent).
    pub async fn read(
        &self,
        _by: &Granted<ChangeSettings>,
        lang: Lang,
    ) -> Result<OperationsPolicy, PolicyError> {
        let db = &self.db;
        let people = people(db).await?;
        let saved = stored(db).await?;
        let written = saved.as_ref().map(|(s, _)| s.written()).unwrap_or_default();
        Ok(OperationsPolicy {
            access: access(&roles_of_everyone(db).await?, lang),
            people,
            backups: backups(db, lang).await?,
            release_channel: release_channel(db, lang).await?,
            alerts: alerts(self.alerts.webhook().await?, lang),
            filled_in: written.filled_in(),
            written,
            template: template(lang),
            updated_at: saved.as_ref().map(|(_, at)| crate::rfc3339(*at)),
            updated_by: saved.map(|(s, _)| s.updated_by),
        })
    }

    /// Saves the written parts. Audited.
    pub async fn write(
        &self,
        by: &Granted<ChangeSettings>,
        input: &PolicyInput,
        lang: Lang,
    ) -> Result<OperationsPolicy, PolicyError> {
        let valid = input.validate().map_err(PolicyError::Invalid)?;
        let actor = by.actor();
        let value = serde_json::to_string(&Stored {
            relays: valid.relays,
            revocation: valid.revocation,
            updated_by: actor.clone(),
        })
        .expect("strings serialise");
        setting::put(&self.db, SETTING, value).await?;
        audit::record(&self.db, &actor, "policy.updated", "operations policy", "").await;
        self.read(by, lang).await
    }
}

async fn people(db: &DatabaseConnection) -> Result<Vec<PolicyPerson>, StoreError> {
    let networks = user_networks::of_everyone(db).await?;
    Ok(user::Entity::find()
        .filter(user::Column::PendingSince.is_null())
        .order_by_asc(user::Column::Name)
        .limit(PEOPLE_SHOWN)
        .all(db)
        .await?
        .into_iter()
        .map(|u| PolicyPerson {
            role: Role::parse("role", &u.role).unwrap_or(Role::Viewer),
            networks: networks.get(&u.id).cloned().unwrap_or_default(),
            disabled: u.disabled_at.is_some(),
            name: u.name,
        })
        .collect())
}

/// How many enabled people hold each role (however many there are).
async fn roles_of_everyone(db: &DatabaseConnection) -> Result<BTreeMap<Role, usize>, StoreError> {
    let roles: Vec<String> = user::Entity::find()
        .select_only()
        .column(user::Column::Role)
        .filter(user::Column::PendingSince.is_null())
        .filter(user::Column::DisabledAt.is_null())
        .into_tuple()
        .all(db)
        .await?;
    let mut by_role: BTreeMap<Role, usize> = BTreeMap::new();
    for role in roles {
        let role = Role::parse("role", &role).unwrap_or(Role::Viewer);
        *by_role.entry(role).or_default() += 1;
    }
    Ok(by_role)
}

fn access(by_role: &BTreeMap<Role, usize>, lang: Lang) -> KnownPart {
    let counts: Vec<String> = by_role
        .iter()
        .rev()
        .map(|(role, n)| format!("{role}: {n}"))
        .collect();
    let text = if counts.is_empty() {
        say(
            lang,
            "Only the owner account (the admin password) has access; nobody else has an enabled account.",
            "Доступ есть только у учётной записи владельца (пароль администратора); других включённых учётных записей нет.",
        )
    } else {
        let counts = counts.join(", ");
        say(
            lang,
            format!("The owner account (the admin password, for emergencies) and these people ({counts})."),
            format!("Учётная запись владельца (пароль администратора, на крайний случай) и эти люди ({counts})."),
        )
    };
    KnownPart {
        text,
        warning: None,
    }
}

async fn release_channel(db: &DatabaseConnection, lang: Lang) -> Result<KnownPart, StoreError> {
    let mut versions: BTreeMap<String, usize> = BTreeMap::new();
    for a in agent::Entity::find()
        .filter(agent::Column::Retired.eq(Retirement::Active))
        .all(db)
        .await?
    {
        let v = if a.version.is_empty() {
            "?".to_string()
        } else {
            a.version
        };
        *versions.entry(v).or_default() += 1;
    }
    let list = versions
        .iter()
        .map(|(v, n)| format!("{v} ({n})"))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(match versions.len() {
        0 => KnownPart {
            text: say(lang, "No Agent is enrolled yet.", "Ни один Agent ещё не зарегистрирован."),
            warning: None,
        },
        1 => KnownPart {
            text: say(
                lang,
                format!("Every Agent runs the same release: {list}."),
                format!("Все Agent работают на одном выпуске: {list}."),
            ),
            warning: None,
        },
        _ => KnownPart {
            text: say(lang, format!("Agents run: {list}."), format!("Версии Agent: {list}.")),
            warning: Some(say(
                lang,
                "Agents run different releases: keep them on one release channel (KNOTROUTE_AGENT_IMAGE_TAG) so that deployments behave alike.",
                "Agent работают на разных выпусках: держите их на одном канале выпусков (KNOTROUTE_AGENT_IMAGE_TAG), чтобы развёртывания вели себя одинаково.",
            )),
        },
    })
}

fn alerts(webhook: Option<String>, lang: Lang) -> KnownPart {
    match webhook {
        Some(url) => {
            let shown = protocol::alerts::redacted(&url);
            KnownPart {
                text: say(
                    lang,
                    format!("Alerts go to the webhook at {shown}; whoever reads that channel receives them."),
                    format!("Оповещения уходят на webhook {shown}; их получает тот, кто читает этот канал."),
                ),
                warning: None,
            }
        }
        None => KnownPart {
            text: say(lang, "No alert webhook is set.", "Webhook для оповещений не задан."),
            warning: Some(say(
                lang,
                "Nobody is told when an Agent, a Beacon or a service goes down: set a webhook in Settings.",
                "Никто не узнает, если Agent, Beacon или сервис упадёт: задайте webhook в настройках.",
            )),
        },
    }
}

fn template(lang: Lang) -> PolicyInput {
    PolicyInput {
        relays: say(
            lang,
            "1. Pick a host in another failure domain (another provider or site).\n2. Enroll an Agent there with Docker allowed.\n3. Infrastructure → Beacons → Deploy a new Beacon, with the relay's public host:port.\n4. Open TCP 7447 to it; put its port 8080 behind HTTPS.\n5. Add its https:// URL to the network profile, then run Diagnose until the relay answers.",
            "1. Выберите хост в другом домене отказа (другой провайдер или площадка).\n2. Зарегистрируйте на нём Agent с разрешённым Docker.\n3. «Инфраструктура» → Beacons → «Развернуть новый Beacon» с публичным host:port relay.\n4. Откройте к нему TCP 7447; поставьте его порт 8080 за HTTPS.\n5. Добавьте его адрес https:// в профиль сети и запускайте диагностику, пока relay не ответит.",
        ),
        revocation: say(
            lang,
            "1. Infrastructure → the host's Agent → Revoke: its key stops working at once and its queued jobs are cancelled.\n2. Rotate the enrollment token (KNOTROUTE_CONTROL_ENROLL_TOKEN) and revoke open install tokens.\n3. Move its services: deploy them on another Agent, restoring each sidecar's /data from its backup so the .knot addresses stay.\n4. Rebuild the host before it enrolls again.\nRunbook: the KnotRoute Control handbook, \"Agent lifecycle\" and \"Backup and restore\".",
            "1. «Инфраструктура» → Agent этого хоста → «Отозвать»: его ключ сразу перестаёт работать, задачи в очереди отменяются.\n2. Смените токен регистрации (KNOTROUTE_CONTROL_ENROLL_TOKEN) и отзовите открытые токены установки.\n3. Перенесите его сервисы: разверните их на другом Agent, восстановив /data каждого sidecar из резервной копии, чтобы адреса .knot сохранились.\n4. Переустановите хост, прежде чем он зарегистрируется снова.\nИнструкция: справочник KnotRoute Control, разделы «Agent lifecycle» и «Backup and restore».",
        ),
    }
}

/// The policy as a Markdown document: headings, Control's facts, then what
/// the admin wrote (their own Markdown, kept as written).
pub fn markdown(policy: &OperationsPolicy, lang: Lang) -> String {
    let h = |en: &str, ru: &str| say(lang, en.to_string(), ru.to_string());
    let mut out = format!("# {}\n\n", h("Operations policy", "Политика эксплуатации"));
    if let (Some(at), Some(by)) = (&policy.updated_at, &policy.updated_by) {
        out.push_str(&format!(
            "_{} {at}, {by}_\n\n",
            h("Last changed", "Изменено")
        ));
    }
    let part = |out: &mut String, title: String, p: &KnownPart| {
        out.push_str(&format!("## {title}\n\n{}\n", escape(&p.text)));
        if let Some(w) = &p.warning {
            out.push_str(&format!("\n> {}\n", escape(w)));
        }
        out.push('\n');
    };
    part(
        &mut out,
        h("Who has access", "У кого есть доступ"),
        &policy.access,
    );
    for p in &policy.people {
        let networks = if p.networks.is_empty() {
            h("all networks", "все сети")
        } else {
            escape(&p.networks.join(", "))
        };
        let disabled = if p.disabled {
            h(" (disabled)", " (отключён)")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "- {} — {}, {networks}{disabled}\n",
            escape(&p.name),
            p.role
        ));
    }
    if !policy.people.is_empty() {
        out.push('\n');
    }
    part(
        &mut out,
        h(
            "Where identity backups are kept",
            "Где хранятся резервные копии идентичностей",
        ),
        &policy.backups,
    );
    part(
        &mut out,
        h("Release channel", "Канал выпусков"),
        &policy.release_channel,
    );
    part(
        &mut out,
        h("Who receives alerts", "Кто получает оповещения"),
        &policy.alerts,
    );
    let written = |text: &str| {
        if text.is_empty() {
            h("_Not written yet._", "_Ещё не записано._")
        } else {
            text.to_string()
        }
    };
    out.push_str(&format!(
        "## {}\n\n{}\n\n## {}\n\n{}\n",
        h("How relays are added", "Как добавляются relay"),
        written(&policy.written.relays),
        h(
            "How a compromised host is revoked",
            "Как отзывается скомпрометированный хост"
        ),
        written(&policy.written.revocation),
    ));
    out
}

/// Control's own sentences quote names people chose: they must not turn
/// into links, emphasis or HTML in a Markdown viewer.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '!'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Where identity backups are, from what the Agents reported: host and
/// directory, never the archives themselves.
async fn backups(db: &DatabaseConnection, lang: Lang) -> Result<KnownPart, StoreError> {
    let places = crate::backups::directories(db).await?;
    let ids: Vec<&str> = places.iter().map(|(agent, _)| agent.as_str()).collect();
    // A revoked, moved or deleted Agent's host is no longer one of ours.
    let names: std::collections::HashMap<String, String> = agent::Entity::find()
        .filter(agent::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .filter(|a| !a.retired.is_retired())
        .map(|a| (a.id, a.name))
        .collect();
    let lines: Vec<String> = places
        .iter()
        .filter_map(|(agent, dir)| Some(format!("{}: {dir}", names.get(agent)?)))
        .collect();
    if lines.is_empty() {
        return Ok(KnownPart {
            text: say(
                lang,
                "Service identities are backed up on their own hosts, never in Control. No Agent has reported a backup yet.",
                "Идентичности сервисов копируются на их же хостах и никогда не попадают в Control. Ни один Agent ещё не сообщил о резервной копии.",
            ),
            warning: Some(say(
                lang,
                "No service is backed up: back up each published service on the Services screen.",
                "Ни один сервис не скопирован: сделайте резервную копию каждого опубликованного сервиса в разделе «Сервисы».",
            )),
        });
    }
    Ok(KnownPart {
        text: say(
            lang,
            format!(
                "On each service's own host, never in Control (Agent: directory): {}.",
                lines.join("; ")
            ),
            format!(
                "На хосте каждого сервиса, никогда не в Control (Agent: каталог): {}.",
                lines.join("; ")
            ),
        ),
        warning: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_become_markdown_links_or_html() {
        assert_eq!(escape("[x](http://a) <b>"), "\\[x\\](http://a) \\<b\\>");
    }
}
