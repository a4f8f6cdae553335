//! The fixed words of each step, in English and Russian: its title, why it
//! matters (in our own words, not the guide's), and the screen that does it.
//! Screen names are the guide's («Сети», «Инфраструктура», «Сервисы»,
//! «Подключение»), so the guide and the screen match.

use protocol::setup::SetupStep;
use protocol::Lang;

pub(crate) fn title(step: SetupStep, lang: Lang) -> &'static str {
    use SetupStep::*;
    match (step, lang) {
        (NetworkId, Lang::En) => "Network profile and Network ID",
        (NetworkId, Lang::Ru) => "Профиль сети и Network ID",
        (FirstBeacon, Lang::En) => "First Beacon and its relay",
        (FirstBeacon, Lang::Ru) => "Первый Beacon и его relay",
        (SecondBeacon, Lang::En) => "A second Beacon on another host",
        (SecondBeacon, Lang::Ru) => "Второй Beacon на другом хосте",
        (Relays, Lang::En) => "Always-on relays",
        (Relays, Lang::Ru) => "Постоянные relay",
        (ControlHttps, Lang::En) => "Control behind HTTPS",
        (ControlHttps, Lang::Ru) => "Control за HTTPS",
        (Agents, Lang::En) => "Agents with Docker",
        (Agents, Lang::Ru) => "Agent с Docker",
        (FirstService, Lang::En) => "First service, backed up",
        (FirstService, Lang::Ru) => "Первый сервис и его резервная копия",
        (Onboarding, Lang::En) => "Client onboarding",
        (Onboarding, Lang::Ru) => "Подключение клиентов",
        (Monitoring, Lang::En) => "End-to-end monitoring",
        (Monitoring, Lang::Ru) => "Сквозной мониторинг",
        (Policy, Lang::En) => "Operations policy",
        (Policy, Lang::Ru) => "Политика эксплуатации",
    }
}

pub(crate) fn why(step: SetupStep, lang: Lang) -> &'static str {
    use SetupStep::*;
    match (step, lang) {
        (NetworkId, Lang::En) => "Every node, client and invite joins by this ID, so it stays the same once clients use it.",
        (NetworkId, Lang::Ru) => "По этому ID присоединяются все узлы, клиенты и приглашения, поэтому после подключения клиентов он не меняется.",
        (FirstBeacon, Lang::En) => "Nodes find each other through a Beacon's HTTPS API and pass traffic through its relay on TCP 7447: without both, nothing connects.",
        (FirstBeacon, Lang::Ru) => "Узлы находят друг друга через HTTPS API Beacon и передают трафик через его relay на TCP 7447: без обоих ничего не соединится.",
        (SecondBeacon, Lang::En) => "With one Beacon, one outage leaves a network nobody can join; a second on another host or provider keeps discovery up.",
        (SecondBeacon, Lang::Ru) => "С одним Beacon один сбой — и к сети никто не подключится; второй на другом хосте или у другого провайдера сохраняет обнаружение.",
        (Relays, Lang::En) => "Relays carry traffic between nodes that cannot reach each other directly; fewer stable relays mean fewer routes to choose from.",
        (Relays, Lang::Ru) => "Relay передают трафик между узлами, которые не видят друг друга напрямую; чем меньше стабильных relay, тем меньше маршрутов.",
        (ControlHttps, Lang::En) => "Control holds the admin and enrollment secrets; over plain HTTP anyone on the path can read them.",
        (ControlHttps, Lang::Ru) => "Control хранит секреты администратора и регистрации; по обычному HTTP их может прочитать любой на пути.",
        (Agents, Lang::En) => "Agents deploy and watch the network's parts; only hosts that may run deployments should hand theirs the Docker socket.",
        (Agents, Lang::Ru) => "Agent разворачивают части сети и следят за ними; Docker-сокет стоит давать только там, где развёртывание разрешено.",
        (FirstService, Lang::En) => "A service's .knot address is a private identity in its sidecar's /data volume: lose the volume without a backup and the address is gone for good.",
        (FirstService, Lang::Ru) => "Адрес .knot сервиса — это закрытая идентичность в томе /data его sidecar: потеряете том без резервной копии — адрес потерян навсегда.",
        (Onboarding, Lang::En) => "People join from Windows, Android and Linux with an invite; the raw profile serves everything else.",
        (Onboarding, Lang::Ru) => "Люди подключаются с Windows, Android и Linux по приглашению; для остального есть сырой профиль.",
        (Monitoring, Lang::En) => "A Beacon's /healthz says the Beacon is up, not that a client reaches a service; only opening a .knot service from another failure domain shows that.",
        (Monitoring, Lang::Ru) => "/healthz у Beacon говорит, что Beacon работает, а не что клиент дойдёт до сервиса; это показывает только открытие сервиса .knot из другого домена отказа.",
        (Policy, Lang::En) => "When something breaks at night, whoever is on call needs to know who has access, where the backups are and how to revoke a host.",
        (Policy, Lang::Ru) => "Когда что-то ломается ночью, дежурному нужно знать, у кого есть доступ, где резервные копии и как отозвать хост.",
    }
}

/// The screen that does `step` for network `id`, and its link's words.
pub(crate) fn fix(step: SetupStep, id: &str, lang: Lang) -> (String, &'static str) {
    use SetupStep::*;
    let en = lang == Lang::En;
    let pick = |e: &'static str, r: &'static str| if en { e } else { r };
    match step {
        NetworkId => (
            format!("/networks/{id}"),
            pick("Edit the profile", "Изменить профиль"),
        ),
        FirstBeacon | SecondBeacon | Relays => (
            "/infrastructure/beacons".to_string(),
            pick("Deploy a new Beacon", "Развернуть новый Beacon"),
        ),
        ControlHttps => ("/settings".to_string(), pick("Settings", "Настройки")),
        Agents => (
            "/infrastructure".to_string(),
            pick("Infrastructure", "Инфраструктура"),
        ),
        FirstService => ("/services".to_string(), pick("Services", "Сервисы")),
        Onboarding => (
            format!("/onboarding?network={id}"),
            pick("Onboarding", "Подключение"),
        ),
        Monitoring => (
            format!("/networks/{id}/setup#probe"),
            pick("End-to-end probe", "Сквозная проверка"),
        ),
        Policy => (
            "/policy".to_string(),
            pick("Operations policy", "Политика эксплуатации"),
        ),
    }
}

/// The caution over a network whose Beacons all run on one host.
pub(crate) fn single_host(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "This network runs on a single host: fine for a first network, but that host is a single point of failure. Once an end-to-end test passes, move the second Beacon to another host or provider.",
        Lang::Ru => "Эта сеть работает на одном хосте: для первой сети это допустимо, но хост — единая точка отказа. Когда сквозная проверка пройдёт, перенесите второй Beacon на другой хост или к другому провайдеру.",
    }
}
