//! The catalogue of refusals: requests Control understood and turned down
//! because of the state of things (invalid input is a [`FieldError`]
//! instead). Each has one stable code, a kind that decides its HTTP status,
//! the field it is about, and its sentence and hint in English and Russian.
//! The server's JSON error (`{"error","code","field","hint"}`, in English)
//! and the UI's message (in the reader's language) are both made from it,
//! so a refusal reads the same everywhere and is translated once.
//!
//! [`FieldError`]: crate::FieldError

use crate::status::{AgentStatus, JobStatus};
use crate::validation::Lang;
use serde::{Deserialize, Serialize};

/// What kind of refusal it is; the HTTP status follows from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// 400: the request cannot be carried out as sent.
    Invalid,
    /// 404: it names nothing Control has.
    NotFound,
    /// 409: it does not fit the current state.
    Conflict,
    /// 403: the one who asked may not do it.
    Forbidden,
}

/// What a request named that Control does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Missing {
    NetworkProfile,
    Agent,
    Job,
    InstallToken,
    RevokedKey,
    Invite,
    ApiToken,
    User,
}

/// One refusal, with what its sentence needs. Externally tagged for the same
/// reason as `Problem`: only server functions carry it as JSON, and the
/// browser decodes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// The ID (in the path) names nothing of its kind.
    NotFound { missing: Missing },
    /// A job was asked for an Agent that is not enrolled.
    AgentNotFound,
    /// A page cursor names nothing (it may have been deleted meanwhile).
    InvalidCursor { missing: Missing },
    /// The profile changed since the version the change is based on.
    StaleProfile,
    /// The profile kept changing while a Beacon was being added to it.
    ProfileBusy,
    /// The URL is not a Beacon of that profile.
    BeaconNotInProfile,
    /// The alert webhook is set by the environment.
    WebhookSetByEnvironment,
    /// The Agent is disabled, so it takes no jobs.
    AgentDisabled,
    /// The Agent waits for an admin's approval, so it takes no jobs.
    AgentPending,
    /// Approving or rejecting an Agent that does not wait for approval.
    AgentNotPending,
    /// The Agent's key no longer works (`revoked` or `moved`): it takes no jobs.
    AgentTakesNoJobs { status: AgentStatus },
    /// The Agent's key no longer works: only deleting it is still possible.
    AgentRetired { status: AgentStatus },
    /// The Agent reports that Docker is not available.
    AgentWithoutDocker,
    /// The job needs an extension of version 1 (protocol::extensions) that
    /// the Agent has not announced: a version-1 Agent, or an older one of ours.
    AgentLacksExtension { extension: String },
    /// Only pending jobs can be cancelled, only failed or expired ones retried.
    JobState { status: JobStatus },
    /// The running job's Agent does not report progress (an older Agent), so
    /// it cannot be told to stop.
    JobCannotStop,
    /// The revoked Agent's record must be deleted before its key is allowed again.
    RevokedAgentExists,
    /// A key rotation is under way until then (RFC 3339).
    RotationInProgress { until: String },
    /// The role of the one who asked does not allow this (named, e.g. `viewer`).
    NotAllowed { role: String },
    /// The action concerns every network (Agents, install tokens, settings,
    /// people) and the one who asked sees only some.
    NeedsAllNetworks,
    /// The change would leave no enabled person with the owner role.
    LastOwner,
    /// A welcome link that is unknown, used or expired.
    UserInviteUnusable,
    /// A second factor belongs to a person's own password: the break-glass
    /// owner account and people who sign in through the provider have none.
    SecondFactorNotApplicable,
    /// Turning on a second factor that is already on.
    SecondFactorAlreadyOn,
    /// Confirming, renewing or turning off a second factor that is not on
    /// (or whose setup was not begun).
    SecondFactorNotOn,
    /// Turning it off while the owner requires one of everybody.
    SecondFactorRequired,
    /// The owner resetting their own second factor, which needs no code: a
    /// person's own is changed in Settings, with a code.
    SecondFactorResetOwn,
    /// The network profile itself is the checklist's first step: it cannot
    /// be skipped.
    StepNotSkippable,
    /// The password was right, the owner requires a second factor, the
    /// person has none, and the sign-in brought no setup link.
    SecondFactorSetupLinkNeeded,
}

impl Refusal {
    /// The stable code clients match on (the JSON error's `code`).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::NotFound { .. } => "not_found",
            Refusal::AgentNotFound => "agent_not_found",
            Refusal::InvalidCursor { .. } => "invalid_cursor",
            Refusal::StaleProfile | Refusal::ProfileBusy => "stale_profile",
            Refusal::BeaconNotInProfile => "beacon_not_in_profile",
            Refusal::WebhookSetByEnvironment => "webhook_set_by_environment",
            Refusal::AgentDisabled => "agent_disabled",
            Refusal::AgentPending => "agent_pending",
            Refusal::AgentNotPending => "agent_not_pending",
            Refusal::AgentTakesNoJobs { .. } | Refusal::AgentRetired { .. } => "agent_retired",
            Refusal::AgentWithoutDocker => "agent_without_docker",
            Refusal::AgentLacksExtension { .. } => "agent_lacks_extension",
            Refusal::JobState { .. } => "job_state",
            Refusal::JobCannotStop => "job_cannot_stop",
            Refusal::RevokedAgentExists => "revoked_agent_exists",
            Refusal::RotationInProgress { .. } => "rotation_in_progress",
            Refusal::NotAllowed { .. } => "forbidden",
            Refusal::NeedsAllNetworks => "needs_all_networks",
            Refusal::LastOwner => "last_owner",
            Refusal::UserInviteUnusable => "invite_unusable",
            Refusal::SecondFactorNotApplicable => "second_factor_not_applicable",
            Refusal::SecondFactorAlreadyOn => "second_factor_already_on",
            Refusal::SecondFactorNotOn => "second_factor_not_on",
            Refusal::SecondFactorRequired => "second_factor_required",
            Refusal::SecondFactorResetOwn => "second_factor_reset_own",
            Refusal::StepNotSkippable => "step_not_skippable",
            Refusal::SecondFactorSetupLinkNeeded => "second_factor_setup_link_needed",
        }
    }

    pub fn kind(&self) -> RefusalKind {
        match self {
            Refusal::NotFound { .. }
            | Refusal::AgentNotFound
            | Refusal::BeaconNotInProfile
            | Refusal::UserInviteUnusable => RefusalKind::NotFound,
            Refusal::InvalidCursor { .. } => RefusalKind::Invalid,
            Refusal::NotAllowed { .. }
            | Refusal::NeedsAllNetworks
            | Refusal::SecondFactorSetupLinkNeeded => RefusalKind::Forbidden,
            _ => RefusalKind::Conflict,
        }
    }

    /// The request field the refusal is about, when it is about one.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Refusal::AgentNotFound => Some("agent_id"),
            Refusal::InvalidCursor { .. } => Some("after"),
            Refusal::StaleProfile => Some("version"),
            Refusal::BeaconNotInProfile => Some("url"),
            Refusal::WebhookSetByEnvironment => Some("webhook_url"),
            Refusal::StepNotSkippable => Some("step"),
            Refusal::AgentLacksExtension { .. } => Some("kind"),
            _ => None,
        }
    }

    /// The sentence for the person (or script) that asked.
    pub fn message(&self, lang: Lang) -> String {
        let en = lang == Lang::En;
        let pick = |en_text: String, ru_text: String| if en { en_text } else { ru_text };
        match self {
            Refusal::NotFound { missing } => missing.not_found(lang).to_string(),
            Refusal::AgentNotFound => Missing::Agent.not_found(lang).to_string(),
            Refusal::InvalidCursor { missing } => pick(
                format!(
                    "The page cursor names no {}; it may have been deleted.",
                    missing.noun(Lang::En)
                ),
                format!(
                    "Курсор страницы не указывает ни на один объект ({}); возможно, его удалили.",
                    missing.noun(Lang::Ru)
                ),
            ),
            Refusal::StaleProfile => pick(
                "Someone else changed this network profile since the version this change is based on; nothing was saved.".into(),
                "Кто-то изменил этот профиль сети после версии, на которой основано изменение; ничего не сохранено.".into(),
            ),
            Refusal::ProfileBusy => pick(
                "The network profile kept changing while the Beacon was being added; nothing was saved.".into(),
                "Профиль сети менялся, пока добавлялся Beacon; ничего не сохранено.".into(),
            ),
            Refusal::BeaconNotInProfile => pick(
                "This URL is not a Beacon of that network profile.".into(),
                "Этот URL не входит в Beacon этого профиля сети.".into(),
            ),
            Refusal::WebhookSetByEnvironment => pick(
                "The webhook URL is set by KNOTROUTE_CONTROL_ALERT_WEBHOOK, so it cannot be changed here.".into(),
                "URL вебхука задан переменной KNOTROUTE_CONTROL_ALERT_WEBHOOK, поэтому здесь его изменить нельзя.".into(),
            ),
            Refusal::AgentDisabled => pick(
                "The Agent is disabled; it takes no jobs until it is enabled again.".into(),
                "Agent отключён; он не получает задачи, пока его снова не включат.".into(),
            ),
            Refusal::AgentPending => pick(
                "The Agent waits for an admin's approval; it takes no jobs until it is approved.".into(),
                "Agent ждёт одобрения администратора; он не получает задачи, пока его не одобрят.".into(),
            ),
            Refusal::AgentNotPending => pick(
                "The Agent is not waiting for approval; nothing was changed.".into(),
                "Agent не ждёт одобрения; ничего не изменено.".into(),
            ),
            Refusal::AgentTakesNoJobs { status } => pick(
                format!("The Agent is {status}: its key no longer works, so it takes no jobs."),
                format!(
                    "Agent {}: его ключ больше не действует, поэтому он не получает задачи.",
                    retired_ru(*status)
                ),
            ),
            Refusal::AgentRetired { status } => pick(
                format!("The Agent is {status}; only deleting it is still possible."),
                format!("Agent {}; его можно только удалить.", retired_ru(*status)),
            ),
            Refusal::AgentWithoutDocker => pick(
                "The Agent reports that Docker is not available, so the job could only fail.".into(),
                "Agent сообщает, что Docker недоступен, поэтому задача могла бы только завершиться ошибкой.".into(),
            ),
            Refusal::JobState { status } => pick(
                format!("The job is {status}: only pending or running jobs can be cancelled, only failed or expired ones retried."),
                format!(
                    "Задача в состоянии «{}»: отменить можно только ожидающую или выполняемую задачу, повторить — только завершившуюся ошибкой или просроченную.",
                    job_status_ru(*status)
                ),
            ),
            Refusal::AgentLacksExtension { extension } => pick(
                format!("This Agent has not announced the protocol extension `{extension}` that this job needs (it is a first-version Agent, or an older one), so it could not run it."),
                format!("Этот Agent не объявил расширение протокола `{extension}`, которое нужно этой задаче (это Agent первой версии или более старый), поэтому он не смог бы её выполнить."),
            ),
            Refusal::JobCannotStop => pick(
                "The Agent running this job is an older one that does not report progress, so it cannot be told to stop. Wait for its result, or for its lease to pass.".into(),
                "Задачу выполняет старый Agent, который не сообщает о ходе работы, поэтому его нельзя остановить. Дождитесь результата или окончания аренды задачи.".into(),
            ),
            Refusal::RevokedAgentExists => pick(
                "The revoked Agent is still on record: delete it first, then allow its key again.".into(),
                "Отозванный Agent ещё есть в списке: сначала удалите его, затем снова разрешите его ключ.".into(),
            ),
            Refusal::RotationInProgress { until } => pick(
                format!("A key rotation is under way until {until}; rotate again after it ends."),
                format!("Смена ключа идёт до {until}; повторите после её окончания."),
            ),
            Refusal::NotAllowed { role } => pick(
                format!("Your role ({role}) does not allow this; nothing was changed."),
                format!("Ваша роль ({role}) этого не позволяет; ничего не изменено."),
            ),
            Refusal::NeedsAllNetworks => pick(
                "This concerns every network, and you see only some of them; nothing was changed.".into(),
                "Это касается всех сетей, а вам доступны только некоторые; ничего не изменено.".into(),
            ),
            Refusal::LastOwner => pick(
                "This is the last enabled person with the owner role; nothing was changed.".into(),
                "Это последний включённый пользователь с ролью owner; ничего не изменено.".into(),
            ),
            Refusal::UserInviteUnusable => pick(
                "This invitation link is unknown, was already used, or has expired.".into(),
                "Эта ссылка-приглашение неизвестна, уже использована или истекла.".into(),
            ),
            Refusal::SecondFactorNotApplicable => pick(
                "A second factor protects a person's own password; this account has none.".into(),
                "Второй фактор защищает собственный пароль пользователя; у этой учётной записи его нет.".into(),
            ),
            Refusal::SecondFactorAlreadyOn => pick(
                "Two-step sign-in is already on.".into(),
                "Двухэтапный вход уже включён.".into(),
            ),
            Refusal::SecondFactorNotOn => pick(
                "Two-step sign-in is not on (or its setup was not begun).".into(),
                "Двухэтапный вход не включён (или его настройка не начата).".into(),
            ),
            Refusal::SecondFactorRequired => pick(
                "The owner requires two-step sign-in of everyone who signs in with a password; it stays on.".into(),
                "Владелец требует двухэтапный вход от всех, кто входит по паролю; он остаётся включённым.".into(),
            ),
            Refusal::SecondFactorResetOwn => pick(
                "This is your own two-step sign-in: change it in Settings, with a code from your app or a recovery code.".into(),
                "Это ваш собственный двухэтапный вход: измените его в настройках, с кодом из приложения или кодом восстановления.".into(),
            ),
            Refusal::StepNotSkippable => pick(
                "The network profile is the first step of its own checklist: it cannot be skipped.".into(),
                "Профиль сети — первый шаг собственного списка: его нельзя пропустить.".into(),
            ),
            Refusal::SecondFactorSetupLinkNeeded => pick(
                "The password is right, but the owner requires two-step sign-in and your account has not set it up: setting it up needs a setup link from the owner, not the password alone.".into(),
                "Пароль верен, но владелец требует двухэтапный вход, а в вашей учётной записи он не настроен: для настройки нужна ссылка от владельца, одного пароля мало.".into(),
            ),
        }
    }

    /// What to do about it, when there is something to say.
    pub fn hint(&self, lang: Lang) -> Option<&'static str> {
        let en = lang == Lang::En;
        let pick =
            |en_text: &'static str, ru_text: &'static str| Some(if en { en_text } else { ru_text });
        match self {
            Refusal::InvalidCursor { .. } => pick(
                "Start again from the first page (leave out `after`).",
                "Начните с первой страницы (без `after`).",
            ),
            Refusal::StaleProfile => pick(
                "GET the profile again, apply the change to it and send its new `version`.",
                "Загрузите профиль заново, внесите изменение ещё раз и отправьте его новую версию.",
            ),
            Refusal::ProfileBusy => pick("Try again.", "Попробуйте ещё раз."),
            Refusal::BeaconNotInProfile => pick(
                "GET /api/v1/beacons lists the Beacon URLs of every profile.",
                "GET /api/v1/beacons перечисляет URL Beacon всех профилей.",
            ),
            Refusal::WebhookSetByEnvironment => pick(
                "Change or unset KNOTROUTE_CONTROL_ALERT_WEBHOOK and restart Control.",
                "Измените или уберите KNOTROUTE_CONTROL_ALERT_WEBHOOK и перезапустите Control.",
            ),
            Refusal::AgentPending => pick(
                "Compare its key fingerprint with the Agent's log, then approve it under Infrastructure → Agents (POST /api/v1/agents/{id}/approve).",
                "Сравните отпечаток его ключа с журналом Agent, затем одобрите его в «Инфраструктура → Agents» (POST /api/v1/agents/{id}/approve).",
            ),
            Refusal::AgentWithoutDocker => pick(
                "Start the Agent with KNOTROUTE_AGENT_DOCKER=true and access to the Docker socket.",
                "Запустите Agent с KNOTROUTE_AGENT_DOCKER=true и доступом к сокету Docker.",
            ),
            Refusal::AgentLacksExtension { .. } => pick(
                "Update the Agent on that host to the KnotRoute Agent that comes with this Control; it announces the extension with its next heartbeat.",
                "Обновите Agent на этом хосте до KnotRoute Agent, который поставляется с этим Control; он объявит расширение со следующим heartbeat.",
            ),
            Refusal::RevokedAgentExists => pick(
                "DELETE /api/v1/agents/{id} (or Delete on the Agent's page) removes the record.",
                "DELETE /api/v1/agents/{id} (или «Удалить» на странице Agent) удаляет запись.",
            ),
            Refusal::NotAllowed { .. } => pick(
                "Ask the owner of this Control for a role that allows it.",
                "Попросите владельца этого Control о роли, которая это позволяет.",
            ),
            Refusal::NeedsAllNetworks => pick(
                "Ask the owner of this Control to let you see all networks, or ask someone who does.",
                "Попросите владельца этого Control открыть вам все сети или обратитесь к тому, кому они доступны.",
            ),
            Refusal::LastOwner => pick(
                "Give another person the owner role first.",
                "Сначала дайте роль owner другому пользователю.",
            ),
            Refusal::UserInviteUnusable => pick(
                "Ask whoever invited you for a new link.",
                "Попросите того, кто вас пригласил, о новой ссылке.",
            ),
            Refusal::SecondFactorNotOn => pick(
                "Begin again with Turn on.",
                "Начните заново с «Включить».",
            ),
            Refusal::SecondFactorSetupLinkNeeded => pick(
                "Ask the owner for a two-step setup link (Settings → People), open it in this browser, then sign in again.",
                "Попросите владельца о ссылке для настройки двухэтапного входа («Настройки → Люди»), откройте её в этом браузере и войдите снова.",
            ),
            Refusal::SecondFactorRequired => pick(
                "Lost the phone? Sign in with a recovery code and set up the new phone, or ask the owner to reset your second factor.",
                "Потеряли телефон? Войдите с кодом восстановления и настройте новый телефон или попросите владельца сбросить второй фактор.",
            ),
            _ => None,
        }
    }
}

impl Missing {
    /// "No … has this ID.", the answer for an ID that names nothing.
    pub fn not_found(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Missing::NetworkProfile, Lang::En) => "No network profile with this ID.",
            (Missing::NetworkProfile, Lang::Ru) => "Профиля сети с таким ID нет.",
            (Missing::Agent, Lang::En) => "No enrolled Agent has this ID.",
            (Missing::Agent, Lang::Ru) => "Подключённого Agent с таким ID нет.",
            (Missing::Job, Lang::En) => "No such job.",
            (Missing::Job, Lang::Ru) => "Такой задачи нет.",
            (Missing::InstallToken, Lang::En) => "No install token has this ID.",
            (Missing::InstallToken, Lang::Ru) => "Токена установки с таким ID нет.",
            (Missing::RevokedKey, Lang::En) => "No revoked key has this Agent ID.",
            (Missing::RevokedKey, Lang::Ru) => "Отозванного ключа с таким ID Agent нет.",
            (Missing::Invite, Lang::En) => "No invite has this ID.",
            (Missing::Invite, Lang::Ru) => "Приглашения с таким ID нет.",
            (Missing::ApiToken, Lang::En) => "No API token has this ID.",
            (Missing::ApiToken, Lang::Ru) => "API-токена с таким ID нет.",
            (Missing::User, Lang::En) => "No user has this ID.",
            (Missing::User, Lang::Ru) => "Пользователя с таким ID нет.",
        }
    }

    fn noun(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Missing::NetworkProfile, Lang::En) => "profile",
            (Missing::NetworkProfile, Lang::Ru) => "профиль",
            (Missing::Agent, Lang::En) => "Agent",
            (Missing::Agent, Lang::Ru) => "Agent",
            (Missing::Job, Lang::En) => "job",
            (Missing::Job, Lang::Ru) => "задача",
            (Missing::InstallToken, Lang::En) => "install token",
            (Missing::InstallToken, Lang::Ru) => "токен установки",
            (Missing::RevokedKey, Lang::En) => "revoked key",
            (Missing::RevokedKey, Lang::Ru) => "отозванный ключ",
            (Missing::Invite, Lang::En) => "invite",
            (Missing::Invite, Lang::Ru) => "приглашение",
            (Missing::ApiToken, Lang::En) => "API token",
            (Missing::ApiToken, Lang::Ru) => "API-токен",
            (Missing::User, Lang::En) => "user",
            (Missing::User, Lang::Ru) => "пользователь",
        }
    }
}

fn retired_ru(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Moved => "перенесён на другой узел",
        _ => "отозван",
    }
}

fn job_status_ru(status: JobStatus) -> &'static str {
    match status {
        JobStatus::Pending => "ожидает",
        JobStatus::Running => "выполняется",
        JobStatus::Succeeded => "выполнена",
        JobStatus::Failed => "ошибка",
        JobStatus::Cancelled => "отменена",
        JobStatus::Expired => "просрочена",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_keeps_its_code_and_field_on_the_wire() {
        let refusal = Refusal::JobState {
            status: JobStatus::Succeeded,
        };
        let json = serde_json::to_value(&refusal).unwrap();
        assert_eq!(json["job_state"]["status"], "succeeded");
        assert_eq!(serde_json::from_value::<Refusal>(json).unwrap(), refusal);
        assert_eq!(Refusal::BeaconNotInProfile.field(), Some("url"));
        assert_eq!(Refusal::AgentNotFound.kind(), RefusalKind::NotFound);
    }

    #[test]
    fn every_refusal_reads_in_both_languages() {
        let all = [
            Refusal::NotFound {
                missing: Missing::Job,
            },
            Refusal::AgentNotFound,
            Refusal::InvalidCursor {
                missing: Missing::Invite,
            },
            Refusal::StaleProfile,
            Refusal::ProfileBusy,
            Refusal::BeaconNotInProfile,
            Refusal::WebhookSetByEnvironment,
            Refusal::AgentDisabled,
            Refusal::AgentPending,
            Refusal::AgentNotPending,
            Refusal::AgentTakesNoJobs {
                status: AgentStatus::Moved,
            },
            Refusal::AgentRetired {
                status: AgentStatus::Revoked,
            },
            Refusal::AgentWithoutDocker,
            Refusal::AgentLacksExtension {
                extension: "backups".into(),
            },
            Refusal::JobState {
                status: JobStatus::Running,
            },
            Refusal::JobCannotStop,
            Refusal::RevokedAgentExists,
            Refusal::RotationInProgress {
                until: "2026-12-16T00:00:00Z".into(),
            },
            Refusal::NotAllowed {
                role: "viewer".into(),
            },
            Refusal::NeedsAllNetworks,
            Refusal::LastOwner,
            Refusal::UserInviteUnusable,
            Refusal::SecondFactorNotApplicable,
            Refusal::SecondFactorAlreadyOn,
            Refusal::SecondFactorNotOn,
            Refusal::SecondFactorRequired,
            Refusal::SecondFactorResetOwn,
            Refusal::StepNotSkippable,
            Refusal::SecondFactorSetupLinkNeeded,
        ];
        for refusal in all {
            let (en, ru) = (refusal.message(Lang::En), refusal.message(Lang::Ru));
            assert!(en.is_ascii(), "{en}");
            assert!(ru.chars().any(|c| ('а'..='я').contains(&c)), "{ru}");
            assert_eq!(
                refusal.hint(Lang::En).is_some(),
                refusal.hint(Lang::Ru).is_some()
            );
        }
    }
}
