//! Each step of the checklist worked out from the facts: its state and the
//! sentence that says why, in the reader's language (the Beacon and relay
//! steps are in `beacon_steps`). No I/O, so every state is pinned by the
//! unit tests in `setup/tests.rs` as well as by the integration tests.

use super::beacon_steps;
use super::facts::Facts;
use crate::text::say;
use protocol::setup::{ChecklistStep, SetupStep, StepState};
use protocol::Lang;

/// A step's outcome before its fixed texts are added.
pub(crate) struct Outcome {
    pub state: StepState,
    pub detail: String,
    pub warning: Option<String>,
}

pub(crate) fn outcome(state: StepState, detail: String) -> Outcome {
    Outcome {
        state,
        detail,
        warning: None,
    }
}

/// Every step of `facts`' network, in the guide's order; a skipped step says
/// what it would say otherwise.
pub(crate) fn assess(facts: &Facts, lang: Lang) -> Vec<ChecklistStep> {
    SetupStep::ALL
        .into_iter()
        .map(|step| {
            let mut found = match step {
                SetupStep::NetworkId => network_id(facts, lang),
                SetupStep::FirstBeacon => beacon_steps::first_beacon(facts, lang),
                SetupStep::SecondBeacon => beacon_steps::second_beacon(facts, lang),
                SetupStep::Relays => beacon_steps::relays(facts, lang),
                SetupStep::ControlHttps => control_https(facts, lang),
                SetupStep::Agents => agents(facts, lang),
                SetupStep::FirstService => first_service(facts, lang),
                SetupStep::Onboarding => onboarding(facts, lang),
                SetupStep::Monitoring => monitoring(facts, lang),
                SetupStep::Policy => policy(facts, lang),
            };
            let skipped = facts.skips.get(&step).filter(|_| step.skippable());
            // A step done is done, whatever was chosen before.
            if skipped.is_some() && found.state != StepState::Done {
                found.state = StepState::Skipped;
            }
            let (fix_href, fix_label) = super::text::fix(step, &facts.network_id, lang);
            ChecklistStep {
                step,
                state: found.state,
                title: super::text::title(step, lang).to_string(),
                why: super::text::why(step, lang).to_string(),
                detail: found.detail,
                warning: found.warning,
                fix_href,
                fix_label: fix_label.to_string(),
                skipped_by: skipped
                    .filter(|_| found.state == StepState::Skipped)
                    .map(|(by, _)| by.clone()),
                skipped_at: skipped
                    .filter(|_| found.state == StepState::Skipped)
                    .map(|(_, at)| crate::rfc3339(*at)),
            }
        })
        .collect()
}

fn network_id(facts: &Facts, lang: Lang) -> Outcome {
    outcome(
        StepState::Done,
        say(
            lang,
            format!(
                "The profile \u{201c}{}\u{201d} is saved with Network ID {}.",
                facts.network_name, facts.network_id
            ),
            format!(
                "Профиль «{}» сохранён с Network ID {}.",
                facts.network_name, facts.network_id
            ),
        ),
    )
}

fn control_https(facts: &Facts, lang: Lang) -> Outcome {
    let secrets = say(
        lang,
        "Start-up refuses an enrollment token that is short or equal to the admin password.",
        "При запуске Control отказывается от короткого токена регистрации и от токена, равного паролю администратора.",
    );
    match facts.control.public_url.as_deref() {
        None => outcome(
            StepState::NotYet,
            say(
                lang,
                "KNOTROUTE_CONTROL_PUBLIC_URL is not set: set it to Control's https:// address behind your proxy.",
                "KNOTROUTE_CONTROL_PUBLIC_URL не задан: укажите в нём адрес Control https:// за вашим прокси.",
            ),
        ),
        Some(url) if !facts.control.public_https() => outcome(
            StepState::NotYet,
            say(
                lang,
                format!("KNOTROUTE_CONTROL_PUBLIC_URL is {url}, plain HTTP: put Control behind an HTTPS proxy and give its https:// address."),
                format!("KNOTROUTE_CONTROL_PUBLIC_URL — {url}, обычный HTTP: поставьте Control за HTTPS-прокси и укажите адрес https://."),
            ),
        ),
        Some(url) if facts.control.transport.proxy_said_https => outcome(
            StepState::Done,
            say(
                lang,
                format!("Control is at {url}, and this request came over HTTPS (your proxy says so). {secrets}"),
                format!("Control доступен по {url}, и этот запрос пришёл по HTTPS (так говорит ваш прокси). {secrets}"),
            ),
        ),
        Some(url) => outcome(
            StepState::CantTell,
            say(
                lang,
                format!("Control's address is {url}, but no trusted proxy said this request came over HTTPS: have it send X-Forwarded-Proto and list it in KNOTROUTE_CONTROL_TRUSTED_PROXIES."),
                format!("Адрес Control — {url}, но ни один доверенный прокси не сообщил, что запрос пришёл по HTTPS: пусть он передаёт X-Forwarded-Proto, и укажите его в KNOTROUTE_CONTROL_TRUSTED_PROXIES."),
            ),
        ),
    }
}

fn agents(facts: &Facts, lang: Lang) -> Outcome {
    let a = &facts.agents;
    if !a.docker_here.is_empty() {
        let list = a.docker_here.join(", ");
        let mut found = outcome(
            StepState::Done,
            say(
                lang,
                format!("Online with Docker and running this network: {list}."),
                format!("В сети, с Docker и работают на эту сеть: {list}."),
            ),
        );
        if !a.without_docker_here.is_empty() {
            let others = a.without_docker_here.join(", ");
            found.detail.push(' ');
            found.detail.push_str(&say(
                lang,
                format!("Without Docker (no deployments there): {others}."),
                format!("Без Docker (развёртывания там нет): {others}."),
            ));
        }
        return found;
    }
    if !a.docker_elsewhere.is_empty() {
        let list = a.docker_elsewhere.join(", ");
        return outcome(
            StepState::NotYet,
            say(
                lang,
                format!("Online with Docker, but running nothing of this network yet: {list}. Deploy a Beacon or a service with one."),
                format!("В сети с Docker, но пока ничего не запускают для этой сети: {list}. Разверните через один из них Beacon или сервис."),
            ),
        );
    }
    if !a.without_docker_here.is_empty() {
        let list = a.without_docker_here.join(", ");
        return outcome(
            StepState::NotYet,
            say(
                lang,
                format!("Online, but without Docker: {list}. Set KNOTROUTE_AGENT_DOCKER=true on the hosts that may run deployments."),
                format!("В сети, но без Docker: {list}. Задайте KNOTROUTE_AGENT_DOCKER=true на хостах, где развёртывание разрешено."),
            ),
        );
    }
    outcome(
        StepState::NotYet,
        say(
            lang,
            "No Agent is online: enroll one on a Docker host from Infrastructure.",
            "Ни один Agent не в сети: зарегистрируйте его на хосте с Docker в разделе «Инфраструктура».",
        ),
    )
}

fn first_service(facts: &Facts, lang: Lang) -> Outcome {
    let published = || facts.services.iter().filter(|s| !s.address.is_empty());
    if let Some((s, b)) =
        published().find_map(|s| Some((s, s.backup.as_ref().filter(|b| b.proves(&s.address))?)))
    {
        let archive = b.verified_archive.as_deref().unwrap_or_default();
        let at = b.verified_at.as_deref().unwrap_or_default();
        return outcome(
            StepState::Done,
            say(
                lang,
                format!("{} is published as {}; its identity backup {archive} was restored and verified at {at}. {} archive(s) are kept in {} on its host.", s.name, s.address, b.archives, b.directory),
                format!("{} опубликован как {}; его резервная копия идентичности {archive} восстановлена и проверена {at}. Копий на его хосте: {}, в {}.", s.name, s.address, b.archives, b.directory),
            ),
        );
    }
    if let Some((s, b)) = published().find_map(|s| Some((s, s.backup.as_ref()?))) {
        let mut detail = say(
            lang,
            format!("{} is published as {} and backed up ({}, {}), but no restore has proved a backup yet: verify it on the Services screen.", s.name, s.address, b.newest_archive, b.newest_taken_at),
            format!("{} опубликован как {} и скопирован ({}, {}), но ни одно восстановление ещё не подтвердило копию: проверьте её в разделе «Сервисы».", s.name, s.address, b.newest_archive, b.newest_taken_at),
        );
        if let Some(other) = b.verified_address.as_deref().filter(|a| *a != s.address) {
            detail.push(' ');
            detail.push_str(&say(
                lang,
                format!("The verified copy holds {other}, another address: back up the identity the service has now."),
                format!("Проверенная копия содержит {other}, другой адрес: скопируйте нынешнюю идентичность сервиса."),
            ));
        }
        if !b.verify_error.is_empty() {
            detail.push(' ');
            detail.push_str(&say(
                lang,
                format!("The last verification failed: {}", b.verify_error),
                format!("Последняя проверка не прошла: {}", b.verify_error),
            ));
        }
        return outcome(StepState::NotYet, detail);
    }
    if let Some(s) = published().next() {
        return outcome(
            StepState::NotYet,
            say(
                lang,
                format!("{} is published as {}, but its identity is not backed up: back it up on the Services screen now. The copy stays on its host.", s.name, s.address),
                format!("{} опубликован как {}, но его идентичность не скопирована: сделайте резервную копию в разделе «Сервисы» сейчас. Копия остаётся на его хосте.", s.name, s.address),
            ),
        );
    }
    match facts.services.first() {
        Some(s) => {
            let mut detail = say(
                lang,
                format!("{} has no .knot address yet.", s.name),
                format!("У {} ещё нет адреса .knot.", s.name),
            );
            if let Some(pending) = s.pending {
                detail.push(' ');
                detail.push_str(&capitalised(pending.explained(lang)));
            }
            outcome(StepState::NotYet, detail)
        }
        None => outcome(
            StepState::NotYet,
            say(
                lang,
                "No service is published in this network yet: publish one through a sidecar on the Services screen.",
                "В этой сети ещё не опубликован ни один сервис: опубликуйте его через sidecar в разделе «Сервисы».",
            ),
        ),
    }
}

/// `text` with its first letter in upper case (a clause made a sentence).
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A platform as the checklist names it.
fn platform_name(slug: &str, lang: Lang) -> String {
    match slug {
        "windows" => "Windows".into(),
        "android" => "Android".into(),
        "ios" => "iOS".into(),
        "linux" => "Linux".into(),
        "docker" => "Docker".into(),
        "raw" => say(lang, "the raw profile", "сырой профиль"),
        other => other.into(),
    }
}

fn onboarding(facts: &Facts, lang: Lang) -> Outcome {
    let i = &facts.invites;
    if i.opened > 0 {
        let (n, opens) = (i.opened, i.opens);
        let on: Vec<String> = i.platforms.iter().map(|p| platform_name(p, lang)).collect();
        let on = on.join(", ");
        let missing: Vec<String> = ["windows", "android", "linux"]
            .into_iter()
            .filter(|p| !i.platforms.iter().any(|seen| seen == p))
            .map(|p| platform_name(p, lang))
            .collect();
        let on = if on.is_empty() {
            say(lang, "platforms not recognised", "нераспознанные платформы")
        } else {
            on
        };
        let mut detail = say(
            lang,
            format!("Invites opened: {n}; opens in all: {opens}; on: {on}."),
            format!("Открыто приглашений: {n}; всего открытий: {opens}; платформы: {on}."),
        );
        if !missing.is_empty() {
            let missing = missing.join(", ");
            detail.push(' ');
            detail.push_str(&say(
                lang,
                format!("Not opened on {missing} yet; each invite page gives that platform's steps too."),
                format!("Ещё не открывали на: {missing}; страница приглашения показывает шаги и для них."),
            ));
        }
        return outcome(StepState::Done, detail);
    }
    outcome(
        StepState::NotYet,
        if i.usable > 0 {
            let n = i.usable;
            say(
                lang,
                format!("Invites waiting: {n}; none opened yet. Send one to a first user."),
                format!("Ждут приглашения ({n}), но ни одно ещё не открыто: отправьте одно первому пользователю."),
            )
        } else {
            say(
                lang,
                "No usable invite: create one on the Onboarding screen. Its page gives the steps for Windows, Android or Linux, and the raw profile.",
                "Нет действующего приглашения: создайте его в разделе «Подключение». Его страница показывает шаги для Windows, Android или Linux и сырой профиль.",
            )
        },
    )
}

fn monitoring(facts: &Facts, lang: Lang) -> Outcome {
    let Some(probe) = &facts.probe else {
        return outcome(
            StepState::NotYet,
            say(
                lang,
                "No end-to-end probe yet: choose a published service and an Agent on another host to open it every few minutes (Setup → End-to-end probe). Its failures go to the alert webhook.",
                "Сквозной проверки ещё нет: выберите опубликованный сервис и Agent на другом хосте, который будет открывать его каждые несколько минут (Настройка → Сквозная проверка). Её сбои уходят на вебхук оповещений.",
            ),
        );
    };
    if let Some(last) = probe.passing() {
        let mut done = outcome(
            StepState::Done,
            say(
                lang,
                format!("Agent {} opened {} ({}) through the overlay {} min ago, in {} ms; it tries every {} min.", last.agent_name, probe.service, last.address, last.age.num_minutes(), last.latency_ms, probe.every_minutes),
                format!("Agent {} открыл {} ({}) через оверлей {} мин назад за {} мс; проверка идёт каждые {} мин.", last.agent_name, probe.service, last.address, last.age.num_minutes(), last.latency_ms, probe.every_minutes),
            ),
        );
        done.warning = probe.same_host.then(|| {
            say(
                lang,
                "The probe runs on the service's own host, so it shows the overlay works but not that the service is reachable from elsewhere: once there is a second host, probe from its Agent.",
                "Проверка идёт с того же хоста, где работает сервис: она показывает, что оверлей работает, но не что сервис доступен извне. Когда появится второй хост, проверяйте с его Agent.",
            )
        });
        return done;
    }
    let detail = match &probe.last {
        None => say(
            lang,
            format!("The probe of {} has not reported yet: its Agent runs it within a minute while it is online.", probe.service),
            format!("Проверка {} ещё не отчиталась: её Agent выполняет её в течение минуты, если он в сети.", probe.service),
        ),
        Some(last) if last.ok => say(
            lang,
            format!("The last pass of {} is {} min old: is the probing Agent {} online?", probe.service, last.age.num_minutes(), last.agent_name),
            format!("Последнему успеху проверки {} уже {} мин: в сети ли Agent {}?", probe.service, last.age.num_minutes(), last.agent_name),
        ),
        Some(last) => say(
            lang,
            format!("The probe from Agent {} cannot open {}: it stopped at {} ({}).", last.agent_name, probe.service, last.stage, last.detail),
            format!("Проверка с Agent {} не может открыть {}: она остановилась на этапе {} ({}).", last.agent_name, probe.service, last.stage, last.detail),
        ),
    };
    outcome(StepState::NotYet, detail)
}

fn policy(facts: &Facts, lang: Lang) -> Outcome {
    if facts.policy_filled_in {
        outcome(
            StepState::Done,
            say(
                lang,
                "The operations policy is written down; export it as Markdown to keep a copy with your runbooks.",
                "Политика эксплуатации записана; экспортируйте её в Markdown, чтобы хранить копию рядом с инструкциями.",
            ),
        )
    } else {
        outcome(
            StepState::NotYet,
            say(
                lang,
                "How relays are added and how a compromised host is revoked are not written down yet.",
                "Ещё не записано, как добавляются relay и как отзывается скомпрометированный хост.",
            ),
        )
    }
}
