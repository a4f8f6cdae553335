//! The Beacon and relay steps (2, 3 and 4) worked out from the Beacons'
//! last checks and what the last Diagnose found of each.

use super::facts::{BeaconFacts, Facts, Relay};
use super::steps::{outcome, Outcome};
use crate::text::say;
use protocol::setup::StepState;
use protocol::Lang;

fn healthy(b: &BeaconFacts) -> bool {
    b.check.as_ref().is_some_and(|c| c.ok())
}

pub(crate) fn first_beacon(facts: &Facts, lang: Lang) -> Outcome {
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

pub(crate) fn second_beacon(facts: &Facts, lang: Lang) -> Outcome {
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
                format!("Of {m} Beacons, {n} answered their last check: two must answer."),
                format!(
                    "Из {m} Beacon на последнюю проверку ответили: {n}. Нужно, чтобы ответили два."
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
    // One host only once every Beacon that answers has been compared.
    if resolved.len() < healthy.len() {
        return outcome(
            StepState::CantTell,
            say(
                lang,
                "Beacons answer, but Control has not compared all their addresses lately: run Diagnose on the network page.",
                "Beacon отвечают, но Control давно не сравнивал все их адреса: запустите диагностику на странице сети.",
            ),
        );
    }
    let mut shared: Vec<&str> = resolved
        .iter()
        .flat_map(|(_, addresses)| addresses.iter().map(String::as_str))
        .collect();
    shared.sort();
    shared.dedup();
    let shared = shared.join(", ");
    let mut found = outcome(
        StepState::NotYet,
        say(
            lang,
            format!("The Beacons that answer all run on one host ({shared})."),
            format!("Все отвечающие Beacon работают на одном хосте ({shared})."),
        ),
    );
    found.warning = Some(super::text::single_host(lang).to_string());
    found
}

pub(crate) fn relays(facts: &Facts, lang: Lang) -> Outcome {
    let relay_of = |url: &str| {
        facts
            .beacons
            .iter()
            .find(|b| b.url == url)
            .and_then(|b| b.diagnosis.as_ref())
            .map(|d| &d.relay)
    };
    // Managed Beacons run a relay; one the last diagnosis found closed does not count.
    let mut known: Vec<String> = facts
        .managed_relays
        .iter()
        .filter(|(_, url)| !matches!(relay_of(url), Some(Relay::Closed(_))))
        .map(|(name, _)| name.clone())
        .collect();
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
                format!("Always-on relays: {n} ({list})."),
                format!("Постоянных relay: {n} ({list})."),
            ),
        );
    }
    if untested > 0 {
        return outcome(
            StepState::CantTell,
            say(
                lang,
                format!("Relays known: {n}. The relay ports of Beacons run by hand ({untested}) have not been tested lately: run Diagnose on the network page."),
                format!("Известно relay: {n}. Порты relay у Beacon, запущенных вручную ({untested}), давно не проверялись: запустите диагностику на странице сети."),
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
                "No always-on relay runs yet: deploy a Beacon (it runs a relay on TCP 7447).",
                "Постоянные relay пока не работают: разверните Beacon (он запускает relay на TCP 7447).",
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
