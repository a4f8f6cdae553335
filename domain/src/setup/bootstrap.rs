//! The guide's "bootstrap complete" criteria, each marked by what Control can
//! know of it. Control sees Beacons, Agents and sidecars, never a client: a
//! criterion about clients stays unknown unless a test from outside proves
//! it: a passing end-to-end probe shows that the service resolves by its
//! `.knot` address and that HTTP passes the overlay. A verified backup, and
//! a sidecar announcing the same address before and after a restart its
//! Agent made, Control proves itself.

use super::facts::Facts;
use crate::text::say;
use protocol::setup::{BootstrapCheck, Criterion, Knowledge};
use protocol::Lang;

pub(crate) fn criteria(facts: &Facts, lang: Lang) -> Vec<BootstrapCheck> {
    Criterion::ALL
        .into_iter()
        .map(|criterion| {
            let (knowledge, detail) = match criterion {
                Criterion::ServiceResolves => match probe_passed(facts, lang) {
                    Some(proof) => proof,
                    None => service_announced(facts, lang),
                },
                Criterion::HttpOverOverlay => probe_passed(facts, lang).unwrap_or_else(|| {
                    (
                        Knowledge::Unknown,
                        say(
                            lang,
                            "Only an HTTP request through a node shows this: choose an end-to-end probe, and a pass proves it.",
                            "Это показывает только HTTP-запрос через узел: настройте сквозную проверку — её успех это докажет.",
                        ),
                    )
                }),
                Criterion::BackupVerified => backup_verified(facts, lang),
                Criterion::IdentitySurvivesRestart => identity_kept(facts, lang),
                _ => (
                    Knowledge::Unknown,
                    say(
                        lang,
                        "Only a client can show this; Control sees no client. Test it from two clients on different networks.",
                        "Это может показать только клиент, а Control клиентов не видит. Проверьте с двух клиентов в разных сетях.",
                    ),
                ),
            };
            BootstrapCheck {
                criterion,
                knowledge,
                title: title(criterion, lang).to_string(),
                detail,
            }
        })
        .collect()
}

/// Proven when a sidecar's latest restart kept its address; not yet when
/// one's changed (its identity was lost); unknown before any restart.
fn identity_kept(facts: &Facts, lang: Lang) -> (Knowledge, String) {
    let restarted = || {
        facts
            .services
            .iter()
            .filter_map(|s| Some((s, s.restart.as_ref()?)))
    };
    if let Some((s, (_, after))) = restarted().find(|(_, (before, after))| before == after) {
        return (
            Knowledge::Proven,
            say(
                lang,
                format!(
                    "{} announced {after} before and after its last restart.",
                    s.name
                ),
                format!(
                    "{} объявлял {after} и до, и после последнего перезапуска.",
                    s.name
                ),
            ),
        );
    }
    if let Some((s, (before, after))) = restarted().next() {
        return (
            Knowledge::NotYet,
            say(
                lang,
                format!("{} announced {before} before its last restart and {after} after: its /data volume did not keep the identity. Restore it from a verified backup, or give clients the new address.", s.name),
                format!("{} объявлял {before} до последнего перезапуска и {after} после: том /data не сохранил идентичность. Восстановите его из проверенной копии или сообщите клиентам новый адрес.", s.name),
            ),
        );
    }
    (
        Knowledge::Unknown,
        say(
            lang,
            "No sidecar has been restarted by its Agent yet: restart one on the Services screen, and its Agent compares the address it announces before and after.",
            "Ни один sidecar ещё не перезапускался своим Agent: перезапустите его в разделе «Сервисы», и Agent сравнит адрес, объявленный до и после.",
        ),
    )
}

/// A recent pass of the end-to-end probe: a node on another host opened the
/// service's `.knot` address over HTTP.
fn probe_passed(facts: &Facts, lang: Lang) -> Option<(Knowledge, String)> {
    let probe = facts.probe.as_ref()?;
    let last = probe.passing()?;
    Some((
        Knowledge::Proven,
        say(
            lang,
            format!(
                "The end-to-end probe from Agent {} opened http://{}/ ({}) {} min ago.",
                last.agent_name,
                last.address,
                probe.service,
                last.age.num_minutes()
            ),
            format!(
                "Сквозная проверка с Agent {} открыла http://{}/ ({}) {} мин назад.",
                last.agent_name,
                last.address,
                probe.service,
                last.age.num_minutes()
            ),
        ),
    ))
}

/// A sidecar announcing its address is what Control can see of "the service
/// resolves": necessary, not sufficient, so it is never called proven here.
fn service_announced(facts: &Facts, lang: Lang) -> (Knowledge, String) {
    match facts.services.iter().find(|s| !s.address.is_empty()) {
        Some(s) => (
            Knowledge::Unknown,
            say(
                lang,
                format!("{} announces {}; whether clients resolve it only a client can show.", s.name, s.address),
                format!("{} объявляет {}; разрешается ли адрес у клиентов, может показать только клиент.", s.name, s.address),
            ),
        ),
        None => (
            Knowledge::NotYet,
            say(
                lang,
                "No sidecar of this network has announced a .knot address yet.",
                "Ни один sidecar этой сети ещё не объявил адрес .knot.",
            ),
        ),
    }
}

fn title(criterion: Criterion, lang: Lang) -> &'static str {
    use Criterion::*;
    match (criterion, lang) {
        (RelayDiscovered, Lang::En) => "Two clients find a relay through a Beacon",
        (RelayDiscovered, Lang::Ru) => "Два клиента находят relay через Beacon",
        (Routes, Lang::En) => "Nodes have routes to each other",
        (Routes, Lang::Ru) => "Между узлами есть маршруты",
        (ServiceResolves, Lang::En) => "The service resolves by its .knot address",
        (ServiceResolves, Lang::Ru) => "Сервис находится по адресу .knot",
        (HttpOverOverlay, Lang::En) => "HTTP passes through the overlay",
        (HttpOverOverlay, Lang::Ru) => "HTTP проходит через оверлей",
        (IdentitySurvivesRestart, Lang::En) => "Identities survive restarts",
        (IdentitySurvivesRestart, Lang::Ru) => "Идентичности переживают перезапуск",
        (ClientReconnects, Lang::En) => "A client reconnects by itself",
        (ClientReconnects, Lang::Ru) => "Клиент переподключается сам",
        (BackupVerified, Lang::En) => "A backup was verified",
        (BackupVerified, Lang::Ru) => "Резервная копия проверена",
    }
}

/// Proven when a restore of some service's backup gave its address again.
fn backup_verified(facts: &Facts, lang: Lang) -> (Knowledge, String) {
    let verified = facts.services.iter().find_map(|s| {
        let b = s.backup.as_ref().filter(|b| b.proves(&s.address))?;
        Some((s, b))
    });
    match verified {
        Some((s, b)) => (
            Knowledge::Proven,
            say(
                lang,
                format!("{}'s backup {} restored into a scratch volume announced {} again.", s.name, b.verified_archive.as_deref().unwrap_or_default(), s.address),
                format!("Копия {} сервиса {}, восстановленная во временный том, снова объявила {}.", b.verified_archive.as_deref().unwrap_or_default(), s.name, s.address),
            ),
        ),
        None => (
            Knowledge::NotYet,
            say(
                lang,
                "No backup has been verified yet: back up a service and verify it on the Services screen.",
                "Ни одна копия ещё не проверена: сделайте резервную копию сервиса и проверьте её в разделе «Сервисы».",
            ),
        ),
    }
}
