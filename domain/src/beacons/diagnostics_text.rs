//! What each diagnostic finding means and what to do about it, in English
//! and Russian (a missing translation is a compile error: every arm has both).

use protocol::beacons::CheckClass;
use protocol::services::AddressPending;
use protocol::Lang;

/// One finding, with the facts its sentences need.
pub enum Found {
    NoBeacon,
    Resolved {
        host: String,
        addresses: Vec<String>,
    },
    /// `detail` is the resolver's whole sentence (it names the host).
    DnsFailed {
        detail: String,
    },
    LinkLocal {
        host: String,
    },
    /// A private address, and KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=false
    /// or (`by_asker`) the one asking may not point Control at one.
    PrivateRefused {
        host: String,
        by_asker: bool,
    },
    PortOpen {
        address: String,
    },
    PortClosed {
        host: String,
        port: u16,
        detail: String,
    },
    Healthy {
        latency_ms: u32,
        https: bool,
    },
    HealthzFailed {
        class: CheckClass,
        detail: String,
    },
    RelayOpen {
        address: String,
    },
    RelayClosed {
        host: String,
        port: u16,
        assumed: bool,
        detail: String,
    },
    /// The Beacon's diagnosis ran out of time at this step.
    GaveUp {
        secs: u64,
    },
    NoAgents,
    AgentOnline,
    AgentAway {
        status: protocol::AgentStatus,
        why: String,
    },
    Docker {
        version: String,
    },
    NoDocker,
    Running {
        agent: String,
    },
    NotRunning {
        agent: String,
        status: protocol::ComponentStatus,
        error: String,
    },
    Address {
        address: String,
    },
    NoAddress {
        why: AddressPending,
    },
}

/// The reason, then the next step (empty when there is nothing to do).
pub fn describe(found: &Found, lang: Lang) -> (String, String) {
    let en = lang == Lang::En;
    let pick = |e: String, r: String| if en { e } else { r };
    let none = String::new;
    match found {
        Found::NoBeacon => (
            pick("The profile lists no Beacon URL: clients and sidecars have no bootstrap path.".into(),
                 "В профиле нет адреса Beacon: у клиентов и sidecar нет пути подключения.".into()),
            pick("Add an existing Beacon or deploy one on Infrastructure → Beacons.".into(),
                 "Добавьте существующий Beacon или разверните новый: Инфраструктура → Beacons.".into()),
        ),
        Found::Resolved { host, addresses } => (
            pick(format!("{host} resolves to {}.", addresses.join(", ")),
                 format!("{host} разрешается в {}.", addresses.join(", "))),
            none(),
        ),
        Found::DnsFailed { detail } => (
            pick(format!("The name does not resolve: {detail}."), format!("Имя не разрешается: {detail}.")),
            pick("Check the DNS record of the Beacon's host, or the spelling of the Beacon URL.".into(),
                 "Проверьте DNS-запись узла Beacon или написание адреса Beacon.".into()),
        ),
        Found::LinkLocal { host } => (
            pick(format!("{host} resolves to a link-local, unspecified or cloud metadata address; Control never connects there."),
                 format!("{host} разрешается в локальный адрес канала, неопределённый адрес или адрес метаданных облака; Control туда не подключается.")),
            pick("Use the Beacon's real public or private address.".into(),
                 "Укажите настоящий публичный или частный адрес Beacon.".into()),
        ),
        Found::PrivateRefused { host, by_asker: false } => (
            pick(format!("{host} resolves to a private, loopback or shared address, and this Control is set not to connect to those."),
                 format!("{host} разрешается в частный, локальный или общий (CGNAT) адрес, а этому Control запрещено к ним подключаться.")),
            pick("Use the Beacon's public address, or set KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=true.".into(),
                 "Укажите публичный адрес Beacon или задайте KNOTROUTE_CONTROL_ALLOW_PRIVATE_BEACONS=true.".into()),
        ),
        Found::PrivateRefused { host, by_asker: true } => (
            pick(format!("{host} resolves to a private, loopback or shared address: only someone who may change Control-wide settings may point Control at one."),
                 format!("{host} разрешается в частный, локальный или общий (CGNAT) адрес: направлять на него Control может только тот, кому разрешено менять общие настройки Control.")),
            pick("Ask an owner or an admin who sees every network to run the diagnosis, or use the Beacon's public address.".into(),
                 "Попросите владельца или администратора, которому видны все сети, запустить диагностику, или укажите публичный адрес Beacon.".into()),
        ),
        Found::PortOpen { address } => (
            pick(format!("TCP connection to {address} accepted."), format!("TCP-соединение с {address} принято.")),
            none(),
        ),
        Found::PortClosed { host, port, detail } => (
            pick(format!("Nothing accepts TCP connections on {host}:{port} ({detail})."),
                 format!("На {host}:{port} никто не принимает TCP-соединения ({detail}).")),
            pick(format!("Check that the Beacon (or the reverse proxy in front of it) runs and that port {port} is open in the firewall."),
                 format!("Проверьте, что Beacon (или обратный прокси перед ним) работает и порт {port} открыт в файрволе.")),
        ),
        Found::GaveUp { secs } => (
            pick(format!("No answer within {secs} s; the diagnosis of this Beacon stopped here."),
                 format!("Нет ответа за {secs} с; диагностика этого Beacon остановлена на этом шаге.")),
            pick("The Beacon's host or a firewall in front of it drops packets instead of refusing them: check that it runs and that the port is open.".into(),
                 "Хост Beacon или файрвол перед ним отбрасывает пакеты, а не отклоняет их: проверьте, что Beacon работает и порт открыт.".into()),
        ),
        Found::Healthy { latency_ms, https } => (
            match (en, https) {
                (true, true) => format!("/healthz answered over HTTPS in {latency_ms} ms; the certificate is trusted."),
                (true, false) => format!("/healthz answered over plain HTTP in {latency_ms} ms."),
                (false, true) => format!("/healthz ответил по HTTPS за {latency_ms} мс; сертификат доверенный."),
                (false, false) => format!("/healthz ответил по HTTP без шифрования за {latency_ms} мс."),
            },
            if *https { none() } else {
                pick("Put the Beacon behind HTTPS so clients' traffic to it is encrypted.".into(),
                     "Поставьте Beacon за HTTPS, чтобы трафик клиентов к нему шифровался.".into())
            },
        ),
        Found::HealthzFailed { class, detail } => {
            let next = match (class, en) {
                (CheckClass::Tls, true) => "The TLS handshake failed: use a certificate from a public CA (or one the clients trust) that names this host.",
                (CheckClass::Tls, false) => "TLS-рукопожатие не удалось: нужен сертификат публичного центра (или доверенный клиентами) на это имя.",
                (CheckClass::Timeout, true) => "The port answers but /healthz does not: check the Beacon's logs and the proxy's upstream.",
                (CheckClass::Timeout, false) => "Порт открыт, но /healthz не отвечает: проверьте журналы Beacon и upstream прокси.",
                (CheckClass::HttpStatus, true) => "Something answers, but not a healthy Beacon: check that the URL points at the Beacon API, and the Beacon's logs.",
                (CheckClass::HttpStatus, false) => "Отвечает что-то, но не исправный Beacon: проверьте, что адрес ведёт на API Beacon, и журналы Beacon.",
                (_, true) => "Check the Beacon URL and that the Beacon runs.",
                (_, false) => "Проверьте адрес Beacon и что Beacon работает.",
            };
            (
                pick(format!("/healthz failed ({}): {detail}", class.as_str()),
                     format!("/healthz не прошёл ({}): {detail}", class.as_str())),
                next.to_string(),
            )
        }
        Found::RelayOpen { address } => (
            pick(format!("The relay transport port answers at {address}."), format!("Порт релея отвечает на {address}.")),
            none(),
        ),
        Found::RelayClosed { host, port, assumed, detail } => (
            match (en, assumed) {
                (true, false) => format!("Clients can discover peers through this Beacon but cannot relay: nothing accepts connections on its advertised relay address {host}:{port} ({detail})."),
                (true, true) => format!("Nothing accepts connections on {host}:{port}, where the relay usually listens ({detail}): if this Beacon relays, clients can discover peers but cannot relay."),
                (false, false) => format!("Клиенты находят узлы через этот Beacon, но не могут идти через релей: объявленный адрес релея {host}:{port} не принимает соединения ({detail})."),
                (false, true) => format!("{host}:{port}, где обычно слушает релей, не принимает соединения ({detail}): если Beacon работает релеем, клиенты найдут узлы, но не смогут идти через релей."),
            },
            pick(format!("Open TCP {port} on {host} in the firewall (it is the relay transport, not the Beacon API) and check the Beacon container publishes it."),
                 format!("Откройте TCP {port} на {host} в файрволе (это транспорт релея, не API Beacon) и проверьте, что контейнер Beacon его публикует.")),
        ),
        Found::NoAgents => (
            pick("No Agent runs a component of this network (clients alone need none).".into(),
                 "Ни один Agent не запускает компоненты этой сети (одним клиентам они не нужны).".into()),
            none(),
        ),
        Found::AgentOnline => (pick("Online: heartbeats arrive on time.".into(), "В сети: пульс приходит вовремя.".into()), none()),
        Found::AgentAway { status, why } => (
            pick(format!("{status}: {why}"), format!("{status}: {why}")),
            pick("Check the Agent's host and its knotroute-agent service; its components cannot be deployed or reported meanwhile.".into(),
                 "Проверьте узел Agent и службу knotroute-agent; до тех пор его компоненты не разворачиваются и не сообщают о себе.".into()),
        ),
        Found::Docker { version } => (pick(format!("Docker available ({version})."), format!("Docker доступен ({version}).")), none()),
        Found::NoDocker => (
            pick("Docker is not available to the Agent.".into(), "Docker недоступен для Agent.".into()),
            pick("Install or start Docker on the host and give the Agent access to its socket.".into(),
                 "Установите или запустите Docker на узле и дайте Agent доступ к сокету Docker.".into()),
        ),
        Found::Running { agent } => (
            pick(format!("Container running on {agent}."), format!("Контейнер работает на {agent}.")),
            none(),
        ),
        Found::NotRunning { agent, status, error } => {
            let state = if status.is_reported() { status.as_str() } else if en { "not reported" } else { "нет сведений" };
            (
                pick(format!("Container not running on {agent} ({state}) {error}"), format!("Контейнер не работает на {agent} ({state}) {error}")),
                pick("See the service's last job on Jobs; check the target and the Docker network.".into(),
                     "Посмотрите последнюю задачу сервиса в разделе «Задачи»; проверьте цель и сеть Docker.".into()),
            )
        }
        Found::Address { address } => (
            pick(format!("Reachable as {address}."), format!("Доступен как {address}.")),
            none(),
        ),
        Found::NoAddress { why } => (
            pick("No .knot address yet.".into(), "Адреса .knot пока нет.".into()),
            why.explained(lang).to_string(),
        ),
    }
}
