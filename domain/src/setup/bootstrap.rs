//! The guide's "bootstrap complete" criteria, each marked by what Control can
//! know of it. Control sees Beacons, Agents and sidecars, never a client: a
//! criterion about clients stays unknown until a test from outside (the
//! end-to-end probe, not built yet) can prove it.

use super::facts::Facts;
use crate::text::say;
use protocol::setup::{BootstrapCheck, Criterion, Knowledge};
use protocol::Lang;

pub(crate) fn criteria(facts: &Facts, lang: Lang) -> Vec<BootstrapCheck> {
    Criterion::ALL
        .into_iter()
        .map(|criterion| {
            let (knowledge, detail) = match criterion {
                Criterion::ServiceResolves => service_announced(facts, lang),
                Criterion::BackupVerified => (
                    Knowledge::Unknown,
                    say(
                        lang,
                        "Control does not back up or verify service identities yet: restore a copy of a sidecar's /data into a scratch volume by hand and compare the .knot address.",
                        "Control пока не делает и не проверяет резервные копии идентичностей: восстановите копию /data sidecar во временный том вручную и сравните адрес .knot.",
                    ),
                ),
                Criterion::IdentitySurvivesRestart => (
                    Knowledge::Unknown,
                    say(
                        lang,
                        "Control keeps only each sidecar's current address, so it cannot yet tell whether one changed across a restart: restart a sidecar and compare its address.",
                        "Control хранит только текущий адрес каждого sidecar и пока не может сказать, менялся ли он после перезапуска: перезапустите sidecar и сравните адрес.",
                    ),
                ),
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
