//! Each step of the checklist worked out from the facts: its state and the
//! sentence that says why, in the reader's language. No I/O, so every state
//! is pinned by a unit test below as well as by the integration tests.

use super::facts::{BeaconFacts, Facts, Relay};
use crate::text::say;
use protocol::setup::{ChecklistStep, SetupStep, StepState};
use protocol::Lang;

/// A step's outcome before its fixed texts are added.
pub(crate) struct Outcome {
    pub state: StepState,
    pub detail: String,
    pub warning: Option<String>,
}

fn outcome(state: StepState, detail: String) -> Outcome {
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
                SetupStep::FirstBeacon => first_beacon(facts, lang),
                SetupStep::SecondBeacon => second_beacon(facts, lang),
                SetupStep::Relays => relays(facts, lang),
                SetupStep::ControlHttps => control_https(facts, lang),
                SetupStep::Agents => agents(facts, lang),
                SetupStep::FirstService => first_service(facts, lang),
                SetupStep::Onboarding => onboarding(facts, lang),
                SetupStep::Monitoring => monitoring(lang),
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

fn healthy(b: &BeaconFacts) -> bool {
    b.check.as_ref().is_some_and(|c| c.ok())
}

fn first_beacon(facts: &Facts, lang: Lang) -> Outcome {
    if facts.beacons.is_empty() {
        return outcome(
            StepState::NotYet,
            say(
                lang,
                "The profile lists no Beacon URL: add one, or deploy a Beacon with an Agent.",
                "В профиле нет ни одного адреса Beacon: добавьте его или разверните Beacon через Agent.",
            ),
        );
    }
    let ready = |b: &&BeaconFacts| healthy(b) && b.https;
    if let Some(b) = facts.beacons.iter().find(|b| {
        ready(b) && matches!(b.diagnosis.as_ref().map(|d| &d.relay), Some(Relay::Open(_)))
    }) {
        let relay = match b.diagnosis.as_ref().map(|d| &d.relay) {
            Some(Relay::Open(address)) => address.clone(),
            _ => String::new(),
        };
        let ms = b.check.as_ref().and_then(|c| c.latency_ms).unwrap_or(0);
        return outcome(
            StepState::Done,
            say(
                lang,
                format!("{} answers over HTTPS ({ms} ms), and its relay accepted a connection at {relay}.", b.url),
                format!("{} отвечает по HTTPS ({ms} мс), а его relay принял соединение на {relay}.", b.url),
            ),
        );
    }
    if let Some(b) = facts.beacons.iter().find(ready) {
        return match b.diagnosis.as_ref().map(|d| &d.relay) {
            Some(Relay::Closed(why)) => outcome(
                StepState::NotYet,
                say(
                    lang,
                    format!("{} answers over HTTPS, but its relay did not accept a connection ({why}): open TCP 7447 to it.", b.url),
                    format!("{} отвечает по HTTPS, но его relay не принял соединение ({why}): откройте к нему TCP 7447.", b.url),
                ),
            ),
            _ => outcome(
                StepState::CantTell,
                say(
                    lang,
                    format!("{} answers over HTTPS, but its relay port has not been tested: run Diagnose on the network page.", b.url),
                    format!("{} отвечает по HTTPS, но порт его relay ещё не проверялся: запустите диагностику на странице сети.", b.url),
                ),
            ),
        };
    }
    if let Some(b) = facts.beacons.iter().find(|b| healthy(b)) {
        return outcome(
            StepState::NotYet,
            say(
                lang,
                format!("{} answers, but over plain HTTP: put its port 8080 behind an HTTPS proxy and list the https:// URL.", b.url),
                format!("{} отвечает, но по обычному HTTP: поставьте его порт 8080 за HTTPS-прокси и укажите адрес https://.", b.url),
            ),
        );
    }
    match facts.beacons.iter().find(|b| b.check.is_some()) {
        Some(b) => {
            let check = b.check.as_ref().expect("found with a check");
            outcome(
                StepState::NotYet,
                say(
                    lang,
                    format!(
                        "The last check of {} failed ({}): {}",
                        b.url,
                        check.class.as_str(),
                        check.detail
                    ),
                    format!(
                        "Последняя проверка {} не прошла ({}): {}",
                        b.url,
                        check.class.as_str(),
                        check.detail
                    ),
                ),
            )
        }
        None => outcome(
            StepState::CantTell,
            say(
                lang,
                "No Beacon of this profile has been checked yet: check them on the Beacons tab.",
                "Ни один Beacon этого профиля ещё не проверялся: проверьте их на вкладке Beacons.",
            ),
        ),
    }
}

fn second_beacon(facts: &Facts, lang: Lang) -> Outcome {
    let healthy: Vec<&BeaconFacts> = facts.beacons.iter().filter(|b| healthy(b)).collect();
    if facts.beacons.len() < 2 {
        return outcome(
            StepState::NotYet,
            say(
                lang,
                "The profile has fewer than two Beacons: add a second one on another host or provider.",
                "В профиле меньше двух Beacon: добавьте второй на другом хосте или у другого провайдера.",
            ),
        );
    }
    if healthy.len() < 2 {
        let (n, m) = (healthy.len(), facts.beacons.len());
        return outcome(
            StepState::NotYet,
            say(
                lang,
                format!("{n} of {m} Beacons answered their last check: two must answer."),
                format!(
                    "На последнюю проверку ответили {n} из {m} Beacon: нужно, чтобы ответили два."
                ),
            ),
        );
    }
    let resolved: Vec<(&str, &Vec<String>)> = healthy
        .iter()
        .filter_map(|b| {
            b.diagnosis
                .as_ref()
                .filter(|d| !d.addresses.is_empty())
                .map(|d| (b.url.as_str(), &d.addresses))
        })
        .collect();
    // Two Beacons on two hosts: some pair shares no address.
    let apart = resolved.iter().enumerate().find_map(|(i, (a, a_addr))| {
        resolved[i + 1..]
            .iter()
            .find(|(_, b_addr)| !a_addr.iter().any(|x| b_addr.contains(x)))
            .map(|(b, _)| (*a, *b))
    });
    if let Some((a, b)) = apart {
        return outcome(
            StepState::Done,
            say(
                lang,
                format!("{a} and {b} answer and resolve to different addresses."),
                format!("{a} и {b} отвечают и указывают на разные адреса."),
            ),
        );
    }
    if resolved.len() >= 2 {
        let shared = resolved[0].1.join(", ");
        let mut found = outcome(
            StepState::NotYet,
            say(
                lang,
                format!("The Beacons that answer all resolve to one host ({shared})."),
                format!("Все отвечающие Beacon указывают на один хост ({shared})."),
            ),
        );
        found.warning = Some(super::text::single_host(lang).to_string());
        return found;
    }
    outcome(
        StepState::CantTell,
        say(
            lang,
            "Two Beacons answer, but Control has not compared their addresses: run Diagnose on the network page.",
            "Два Beacon отвечают, но Control ещё не сравнил их адреса: запустите диагностику на странице сети.",
        ),
    )
}

fn relays(facts: &Facts, lang: Lang) -> Outcome {
    let mut known: Vec<String> = facts.managed_relays.clone();
    let mut untested = 0;
    for b in facts.beacons.iter().filter(|b| !b.managed) {
        match b.diagnosis.as_ref().map(|d| &d.relay) {
            Some(Relay::Open(_)) => known.push(b.url.clone()),
            Some(Relay::Closed(_)) => {}
            _ => untested += 1,
        }
    }
    known.extend(facts.sidecar_relays.iter().cloned());
    let n = known.len();
    let list = known.join(", ");
    if n >= 2 {
        return outcome(
            StepState::Done,
            say(
                lang,
                format!("{n} always-on relays: {list}."),
                format!("Постоянных relay: {n} ({list})."),
            ),
        );
    }
    if untested > 0 {
        return outcome(
            StepState::CantTell,
            say(
                lang,
                format!("{n} relays known; the relay ports of {untested} Beacons run by hand have not been tested: run Diagnose on the network page."),
                format!("Известно relay: {n}; порты relay у {untested} Beacon, запущенных вручную, не проверялись: запустите диагностику на странице сети."),
            ),
        );
    }
    let mut found = outcome(
        StepState::NotYet,
        if n == 1 {
            say(
                lang,
                format!("Only one always-on relay ({list}): add another Beacon, or a sidecar with an advertised address."),
                format!("Постоянный relay только один ({list}): добавьте ещё Beacon или sidecar с объявленным адресом."),
            )
        } else {
            say(
                lang,
                "No always-on relay yet: deploy a Beacon (it runs a relay on TCP 7447).",
                "Постоянных relay пока нет: разверните Beacon (он запускает relay на TCP 7447).",
            )
        },
    );
    found.warning = Some(say(
        lang,
        "Fewer than two stable relays mean little route diversity: when one goes, nodes that cannot see each other directly lose their way.",
        "Меньше двух стабильных relay — мало разнообразия маршрутов: если один пропадёт, узлы, не видящие друг друга напрямую, потеряют связь.",
    ));
    found
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
    if let Some(s) = facts.services.iter().find(|s| !s.address.is_empty()) {
        return outcome(
            StepState::CantTell,
            say(
                lang,
                format!("{} is published as {}. Control does not back up service identities yet: copy its sidecar's /data volume on its host now, and keep the copy there.", s.name, s.address),
                format!("{} опубликован как {}. Control пока не делает резервных копий идентичностей: скопируйте том /data его sidecar на его хосте сейчас и храните копию там же.", s.name, s.address),
            ),
        );
    }
    match facts.services.first() {
        Some(s) => {
            let why = s
                .pending
                .map(|p| p.explained(lang).to_string())
                .unwrap_or_default();
            outcome(
                StepState::NotYet,
                say(
                    lang,
                    format!("{} has no .knot address yet: {why}", s.name),
                    format!("У {} ещё нет адреса .knot: {why}", s.name),
                ),
            )
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
        let mut detail = say(
            lang,
            format!("{n} invites were opened, {opens} times in all, on: {on}."),
            format!("Открыто приглашений: {n}, всего открытий: {opens}; платформы: {on}."),
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
                format!("{n} invites wait, none opened yet: send one to a first user."),
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

fn monitoring(lang: Lang) -> Outcome {
    outcome(
        StepState::CantTell,
        say(
            lang,
            "Control cannot see a monitor outside it yet. Run one from another failure domain that opens a test .knot service every few minutes, then mark this step as skipped by choice.",
            "Control пока не видит внешний мониторинг. Запустите его из другого домена отказа — пусть он открывает тестовый сервис .knot раз в несколько минут, — затем отметьте шаг как пропущенный по выбору.",
        ),
    )
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
