//! Input rules for everything an admin or an Agent sends, with the messages
//! that explain a refusal. The browser runs these for immediate feedback and
//! the server runs them again as the authority.

use serde::{Deserialize, Serialize};
use url::Url;

/// Interface languages. Messages for refused input live next to the rules so a
/// rule and its explanation never drift apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Lang {
    #[default]
    En,
    Ru,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    pub fn from_code(code: &str) -> Option<Self> {
        match code.trim().to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "ru" => Some(Lang::Ru),
            _ => None,
        }
    }

    /// Picks the language from an `Accept-Language` header: the first of our
    /// languages in the visitor's order of preference (q-values respected), else English.
    pub fn from_accept_language(header: &str) -> Self {
        let mut best: Option<(f32, usize, Lang)> = None;
        for (pos, part) in header.split(',').enumerate() {
            let mut pieces = part.split(';');
            let tag = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = pieces
                .find_map(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|v| v.parse::<f32>().ok())
                })
                .unwrap_or(1.0);
            let primary = tag.split('-').next().unwrap_or("");
            let Some(lang) = Lang::from_code(primary) else {
                continue;
            };
            if q <= 0.0 {
                continue;
            }
            let better = match best {
                None => true,
                Some((bq, bpos, _)) => q > bq || (q == bq && pos < bpos),
            };
            if better {
                best = Some((q, pos, lang));
            }
        }
        best.map(|(_, _, l)| l).unwrap_or_default()
    }
}

/// What is wrong with one input field.
///
/// Serde's default (externally tagged) shape on purpose: the browser decodes
/// it from every refused form, and an internally tagged or flattened enum
/// costs tens of KB of WebAssembly. The JSON API does not use
/// this shape; its errors are built from `code()` by the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    Required,
    TooLong {
        max: usize,
    },
    ControlCharacters,
    NetworkIdFormat,
    InvalidId,
    NetworkIdTaken,
    NetworkIdImmutable,
    BeaconNotUrl,
    BeaconNonAscii,
    BeaconScheme,
    BeaconNoHost,
    BeaconHostCharacters,
    BeaconCredentials,
    BeaconPath,
    BeaconQueryOrFragment,
    BeaconRelayPort,
    BeaconDuplicate,
    TooMany {
        max: usize,
    },
    InvalidSlug,
    InvalidHostPort,
    InvalidTarget,
    InvalidPort,
    InvalidImage,
    InvalidComponentId,
    InvalidPayload,
    UnknownJobKind,
    SidecarNeedsBeacon,
    OutOfRange {
        min: u32,
        max: u32,
    },
    WebhookUrl,
    TokenScope,
    /// A Beacon or sidecar name Compose or the sidecar would refuse (see `names`).
    DeployName,
    /// A catalog tag outside its rule (see `catalog`).
    InvalidTag,
    /// A service scheme other than `http` or `https`.
    InvalidScheme,
    /// Not one of the roles (`users::Role`).
    UnknownRole,
    /// Not one of the setup checklist's steps (`setup::SetupStep`).
    UnknownStep,
    /// A backup job for something other than a sidecar (`backups`).
    BackupSidecarOnly,
    /// Not an archive name an Agent gives its backups (`backups::archive_name`).
    InvalidArchive,
    /// Not one of `day`, `week`, `never` (`backups::BackupEvery`).
    BackupEvery,
    /// Not `<56 base32 characters>.knot` (`probes::knot_address`).
    KnotAddress,
    /// No service of this network by that name with a `.knot` address.
    ProbeService,
    /// An Agent that cannot probe: unknown, disabled, retired or without Docker.
    ProbeAgent,
    /// A person's sign-in name outside its rule (`users::user_name`).
    UserName,
    /// Another person already has this name.
    UserNameTaken,
    /// A new password shorter than its minimum.
    PasswordTooShort {
        min: usize,
    },
    /// The password and its repetition differ.
    PasswordsDiffer,
    /// A person in the owner role limited to some networks: the owner sees all.
    OwnerSeesAll,
    /// "Some networks" with none of them chosen.
    NoNetworkChosen,
    /// A chosen network that does not exist (deleted meanwhile, or made up).
    UnknownNetwork,
    /// Neither six digits nor a recovery code (`second_factor::Code`).
    CodeFormat,
    /// A well-formed code that is not the authenticator's current one, was
    /// used already, or is no (unused) recovery code of the person.
    WrongCode,
    /// A Beacon in a job's payload that is not one of its network profile's.
    BeaconNotInNetwork,
    /// A component of this name on this Agent belongs to another network
    /// (or, for someone who sees only some networks, to none).
    NameOfAnotherNetwork,
    /// Another network's sidecar on this Agent uses this Docker network.
    DockerNetworkOfAnotherNetwork,
    /// Another network profile has this name, compared without regard to case.
    NetworkNameTaken,
    /// A private, loopback or shared address, which only someone who may
    /// change Control-wide settings may point Control at.
    PrivateAddress,
}

/// A refused field: which one, which entry of a list (0-based), and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{field}: {}", problem.message(Lang::En))]
pub struct FieldError {
    pub field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub problem: Problem,
}

impl FieldError {
    pub fn new(field: &str, problem: Problem) -> Self {
        Self {
            field: field.to_string(),
            index: None,
            problem,
        }
    }

    pub fn at(field: &str, index: usize, problem: Problem) -> Self {
        Self {
            field: field.to_string(),
            index: Some(index),
            problem,
        }
    }

    /// The message with the list position, e.g. "Beacon URL 2: …".
    pub fn message(&self, lang: Lang) -> String {
        match (self.index, lang) {
            (Some(i), Lang::En) => format!("Beacon URL {}: {}", i + 1, self.problem.message(lang)),
            (Some(i), Lang::Ru) => format!("Beacon URL {}: {}", i + 1, self.problem.message(lang)),
            (None, _) => self.problem.message(lang),
        }
    }
}

impl Problem {
    /// A stable machine slug for API clients.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::Required => "required",
            Problem::TooLong { .. } => "too_long",
            Problem::ControlCharacters => "control_characters",
            Problem::NetworkIdFormat => "invalid_network_id",
            Problem::InvalidId => "invalid_id",
            Problem::NetworkIdTaken => "network_id_taken",
            Problem::NetworkIdImmutable => "network_id_immutable",
            Problem::BeaconNotUrl => "beacon_not_url",
            Problem::BeaconNonAscii => "beacon_non_ascii",
            Problem::BeaconScheme => "beacon_scheme",
            Problem::BeaconNoHost => "beacon_no_host",
            Problem::BeaconHostCharacters => "beacon_host_characters",
            Problem::BeaconCredentials => "beacon_credentials",
            Problem::BeaconPath => "beacon_path",
            Problem::BeaconQueryOrFragment => "beacon_query_or_fragment",
            Problem::BeaconRelayPort => "beacon_relay_port",
            Problem::BeaconDuplicate => "beacon_duplicate",
            Problem::TooMany { .. } => "too_many",
            Problem::InvalidSlug => "invalid_slug",
            Problem::InvalidHostPort => "invalid_host_port",
            Problem::InvalidTarget => "invalid_target",
            Problem::InvalidPort => "invalid_port",
            Problem::InvalidImage => "invalid_image",
            Problem::InvalidComponentId => "invalid_component_id",
            Problem::InvalidPayload => "invalid_payload",
            Problem::UnknownJobKind => "unknown_job_kind",
            Problem::SidecarNeedsBeacon => "sidecar_needs_beacon",
            Problem::OutOfRange { .. } => "out_of_range",
            Problem::WebhookUrl => "invalid_webhook_url",
            Problem::TokenScope => "invalid_token_scope",
            Problem::DeployName => "invalid_deploy_name",
            Problem::InvalidTag => "invalid_tag",
            Problem::InvalidScheme => "invalid_scheme",
            Problem::UnknownRole => "unknown_role",
            Problem::UnknownStep => "unknown_step",
            Problem::BackupSidecarOnly => "backup_sidecar_only",
            Problem::InvalidArchive => "invalid_archive",
            Problem::BackupEvery => "invalid_backup_schedule",
            Problem::KnotAddress => "invalid_knot_address",
            Problem::ProbeService => "probe_service_unknown",
            Problem::ProbeAgent => "probe_agent_unusable",
            Problem::UserName => "invalid_user_name",
            Problem::UserNameTaken => "user_name_taken",
            Problem::PasswordTooShort { .. } => "password_too_short",
            Problem::PasswordsDiffer => "passwords_differ",
            Problem::OwnerSeesAll => "owner_sees_all",
            Problem::NoNetworkChosen => "no_network_chosen",
            Problem::UnknownNetwork => "unknown_network",
            Problem::CodeFormat => "invalid_code",
            Problem::WrongCode => "wrong_code",
            Problem::BeaconNotInNetwork => "beacon_not_in_network",
            Problem::NameOfAnotherNetwork => "name_of_another_network",
            Problem::DockerNetworkOfAnotherNetwork => "docker_network_of_another_network",
            Problem::NetworkNameTaken => "network_name_taken",
            Problem::PrivateAddress => "private_address",
        }
    }

    /// What is wrong, in one sentence.
    pub fn message(&self, lang: Lang) -> String {
        use Lang::*;
        match (self, lang) {
            (Problem::Required, En) => "This field is required.".into(),
            (Problem::Required, Ru) => "Это поле обязательно.".into(),
            (Problem::TooLong { max }, En) => format!("Too long: at most {max} characters."),
            (Problem::TooLong { max }, Ru) => format!("Слишком длинно: не более {max} символов."),
            (Problem::ControlCharacters, En) => "Contains control characters.".into(),
            (Problem::ControlCharacters, Ru) => "Содержит управляющие символы.".into(),
            (Problem::NetworkIdFormat, En) => {
                "Not a Network ID: expected kn_ followed by 52 base32 characters (a–z, 2–7).".into()
            }
            (Problem::NetworkIdFormat, Ru) => {
                "Это не Network ID: ожидается kn_ и 52 символа base32 (a–z, 2–7).".into()
            }
            (Problem::InvalidId, En) => "Not a valid identifier.".into(),
            (Problem::InvalidId, Ru) => "Недопустимый идентификатор.".into(),
            (Problem::NetworkIdTaken, En) => {
                "A network profile with this ID already exists.".into()
            }
            (Problem::NetworkIdTaken, Ru) => "Профиль сети с таким ID уже существует.".into(),
            (Problem::NetworkIdImmutable, En) => {
                "The Network ID cannot be changed after creation.".into()
            }
            (Problem::NetworkIdImmutable, Ru) => {
                "Network ID нельзя изменить после создания.".into()
            }
            (Problem::BeaconNotUrl, En) => "Not a URL.".into(),
            (Problem::BeaconNotUrl, Ru) => "Это не URL.".into(),
            (Problem::BeaconNonAscii, En) => "Write the host name in ASCII letters.".into(),
            (Problem::BeaconNonAscii, Ru) => "Имя хоста нужно записать латиницей (ASCII).".into(),
            (Problem::BeaconScheme, En) => {
                "A Beacon URL must start with https:// or http://.".into()
            }
            (Problem::BeaconScheme, Ru) => {
                "Beacon URL должен начинаться с https:// или http://.".into()
            }
            (Problem::BeaconNoHost, En) => "The URL has no host name.".into(),
            (Problem::BeaconNoHost, Ru) => "В URL нет имени хоста.".into(),
            (Problem::BeaconHostCharacters, En) => {
                "A Beacon host name may contain only letters, digits, '-', '_' and '.'.".into()
            }
            (Problem::BeaconHostCharacters, Ru) => {
                "Имя хоста Beacon может содержать только буквы, цифры, '-', '_' и '.'.".into()
            }
            (Problem::BeaconCredentials, En) => {
                "A Beacon URL must not contain a user name or password.".into()
            }
            (Problem::BeaconCredentials, Ru) => {
                "Beacon URL не должен содержать имя пользователя или пароль.".into()
            }
            (Problem::BeaconPath, En) => {
                "A Beacon URL is the API root: no path after the host.".into()
            }
            (Problem::BeaconPath, Ru) => {
                "Beacon URL — это корень API: без пути после хоста.".into()
            }
            (Problem::BeaconQueryOrFragment, En) => "A Beacon URL must not contain ? or #.".into(),
            (Problem::BeaconQueryOrFragment, Ru) => {
                "Beacon URL не должен содержать ? или #.".into()
            }
            (Problem::BeaconRelayPort, En) => {
                "Port 7447 is the relay transport, not the Beacon HTTP API.".into()
            }
            (Problem::BeaconRelayPort, Ru) => {
                "Порт 7447 — это транспорт ретранслятора, а не HTTP API Beacon.".into()
            }
            (Problem::BeaconDuplicate, En) => "This Beacon URL is already listed.".into(),
            (Problem::BeaconDuplicate, Ru) => "Этот Beacon URL уже есть в списке.".into(),
            (Problem::TooMany { max }, En) => format!("Too many entries: at most {max}."),
            (Problem::TooMany { max }, Ru) => format!("Слишком много записей: не более {max}."),
            (Problem::InvalidSlug, En) => "Use 1–80 letters, digits, '-', '_' or '.'.".into(),
            (Problem::InvalidSlug, Ru) => "Используйте 1–80 латинских букв, цифр, '-', '_' или '.'.".into(),
            (Problem::InvalidHostPort, En) => "Expected host:port, e.g. relay.example.net:7447.".into(),
            (Problem::InvalidHostPort, Ru) => "Ожидается host:port, например relay.example.net:7447.".into(),
            (Problem::InvalidTarget, En) => "Expected container-or-host:port, e.g. app:8080.".into(),
            (Problem::InvalidTarget, Ru) => "Ожидается контейнер-или-хост:порт, например app:8080.".into(),
            (Problem::InvalidPort, En) => "Expected a port from 1 to 65535.".into(),
            (Problem::InvalidPort, Ru) => "Ожидается порт от 1 до 65535.".into(),
            (Problem::InvalidImage, En) => "Only the official KnotRoute images (ghcr.io/localzet/knotroute-…:tag) can be deployed.".into(),
            (Problem::InvalidImage, Ru) => "Разворачивать можно только официальные образы KnotRoute (ghcr.io/localzet/knotroute-…:тег).".into(),
            (Problem::InvalidComponentId, En) => "Expected beacon-<name> or sidecar-<name>.".into(),
            (Problem::InvalidComponentId, Ru) => "Ожидается beacon-<имя> или sidecar-<имя>.".into(),
            (Problem::InvalidPayload, En) => "The payload does not have the expected shape.".into(),
            (Problem::InvalidPayload, Ru) => "Данные задачи имеют неверную структуру.".into(),
            (Problem::UnknownJobKind, En) => "Unknown job kind: use deploy_beacon, deploy_sidecar, restart_component or remove_component.".into(),
            (Problem::UnknownJobKind, Ru) => "Неизвестный вид задачи: deploy_beacon, deploy_sidecar, restart_component или remove_component.".into(),
            (Problem::SidecarNeedsBeacon, En) => "A sidecar needs at least one Beacon URL: the sidecar template passes no static peers.".into(),
            (Problem::SidecarNeedsBeacon, Ru) => "Sidecar нужен хотя бы один Beacon URL: шаблон sidecar не передаёт статических пиров.".into(),
            (Problem::OutOfRange { min, max }, En) => format!("Expected a whole number from {min} to {max}."),
            (Problem::OutOfRange { min, max }, Ru) => format!("Ожидается целое число от {min} до {max}."),
            (Problem::WebhookUrl, En) => "A webhook URL must be an http:// or https:// address with a host name.".into(),
            (Problem::WebhookUrl, Ru) => "URL вебхука должен быть адресом http:// или https:// с именем хоста.".into(),
            (Problem::TokenScope, En) => "Choose read (GET only) or write.".into(),
            (Problem::TokenScope, Ru) => "Выберите read (только GET) или write.".into(),
            (Problem::DeployName, En) => "Docker Compose or the sidecar would refuse this name: use 1–63 lowercase letters, digits, - or _, starting with a letter or digit.".into(),
            (Problem::DeployName, Ru) => "Docker Compose или sidecar не примут это имя: используйте 1–63 строчные латинские буквы, цифры, - или _, начиная с буквы или цифры.".into(),
            (Problem::InvalidTag, En) => "Each tag: 1–32 letters, digits, - or _, starting with a letter or digit; separate tags with commas.".into(),
            (Problem::InvalidTag, Ru) => "Каждый тег: 1–32 буквы, цифры, - или _, начиная с буквы или цифры; теги разделяются запятыми.".into(),
            (Problem::InvalidScheme, En) => "Choose http or https.".into(),
            (Problem::InvalidScheme, Ru) => "Выберите http или https.".into(),
            (Problem::UnknownRole, En) => "Choose owner, admin, operator or viewer.".into(),
            (Problem::UnknownRole, Ru) => "Выберите owner, admin, operator или viewer.".into(),
            (Problem::UnknownStep, En) => "Name a step of the checklist, e.g. monitoring or second_beacon.".into(),
            (Problem::UnknownStep, Ru) => "Укажите шаг списка, например monitoring или second_beacon.".into(),
            (Problem::BackupSidecarOnly, En) => "Only a sidecar's identity is backed up: expected sidecar-<name>.".into(),
            (Problem::BackupSidecarOnly, Ru) => "Резервная копия делается только для идентичности sidecar: ожидается sidecar-<имя>.".into(),
            (Problem::InvalidArchive, En) => "Expected an archive name as the backup list shows it, e.g. 20261204T120000Z.tar.".into(),
            (Problem::BackupEvery, En) => "Choose day, week or never.".into(),
            (Problem::BackupEvery, Ru) => "Выберите day, week или never.".into(),
            (Problem::InvalidArchive, Ru) => "Ожидается имя архива из списка копий, например 20261204T120000Z.tar.".into(),
            (Problem::KnotAddress, En) => "Expected a .knot address: 56 letters a–z and digits 2–7, then .knot.".into(),
            (Problem::KnotAddress, Ru) => "Ожидается адрес .knot: 56 букв a–z и цифр 2–7, затем .knot.".into(),
            (Problem::ProbeService, En) => "Choose a service of this network that has its .knot address.".into(),
            (Problem::ProbeService, Ru) => "Выберите сервис этой сети, у которого есть адрес .knot.".into(),
            (Problem::ProbeAgent, En) => "Choose an enabled Agent with Docker jobs allowed, running the KnotRoute Agent that comes with this Control (a first-version Agent cannot run probes).".into(),
            (Problem::ProbeAgent, Ru) => "Выберите включённый Agent, которому разрешены задачи Docker, с KnotRoute Agent из поставки этого Control (Agent первой версии не умеет проверки).".into(),
            (Problem::UserName, En) => "Use 1–64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit.".into(),
            (Problem::UserName, Ru) => "Используйте 1–64 строчные латинские буквы, цифры, '.', '_' или '-', начиная с буквы или цифры.".into(),
            (Problem::UserNameTaken, En) => "Someone already has this name.".into(),
            (Problem::UserNameTaken, Ru) => "Это имя уже занято.".into(),
            (Problem::PasswordTooShort { min }, En) => format!("Too short: at least {min} characters."),
            (Problem::PasswordTooShort { min }, Ru) => format!("Слишком короткий: не менее {min} символов."),
            (Problem::PasswordsDiffer, En) => "The two passwords differ.".into(),
            (Problem::PasswordsDiffer, Ru) => "Пароли не совпадают.".into(),
            (Problem::OwnerSeesAll, En) => "The owner role sees every network: choose all networks, or another role.".into(),
            (Problem::OwnerSeesAll, Ru) => "Роль owner видит все сети: выберите все сети или другую роль.".into(),
            (Problem::NoNetworkChosen, En) => "Choose at least one network, or all networks.".into(),
            (Problem::NoNetworkChosen, Ru) => "Выберите хотя бы одну сеть или все сети.".into(),
            (Problem::UnknownNetwork, En) => "One of the chosen networks does not exist (any more): choose again.".into(),
            (Problem::UnknownNetwork, Ru) => "Одной из выбранных сетей нет (больше нет): выберите заново.".into(),
            (Problem::CodeFormat, En) => "Enter the 6 digits your authenticator app shows, or one of your recovery codes.".into(),
            (Problem::CodeFormat, Ru) => "Введите 6 цифр из приложения-аутентификатора или один из кодов восстановления.".into(),
            (Problem::WrongCode, En) => "This code is wrong, expired or already used.".into(),
            (Problem::WrongCode, Ru) => "Код неверен, устарел или уже использован.".into(),
            (Problem::BeaconNotInNetwork, En) => "Not a Beacon of this network's profile.".into(),
            (Problem::BeaconNotInNetwork, Ru) => "Это не Beacon из профиля этой сети.".into(),
            (Problem::NameOfAnotherNetwork, En) => "A component with this name on this Agent belongs to another network (or to none you see); it cannot be taken over.".into(),
            (Problem::NameOfAnotherNetwork, Ru) => "Компонент с таким именем на этом Agent принадлежит другой сети (или ни одной из видимых вам); забрать его нельзя.".into(),
            (Problem::DockerNetworkOfAnotherNetwork, En) => "A service of another network on this Agent uses this Docker network, so a service of yours may not join it.".into(),
            (Problem::DockerNetworkOfAnotherNetwork, Ru) => "Эту сеть Docker на этом Agent использует сервис другой сети, поэтому ваш сервис не может к ней подключиться.".into(),
            (Problem::NetworkNameTaken, En) => "Another network profile already has this name (capitals and small letters count as the same).".into(),
            (Problem::NetworkNameTaken, Ru) => "Это имя уже есть у другого профиля сети (заглавные и строчные буквы не различаются).".into(),
            (Problem::PrivateAddress, En) => "This is a private, loopback or shared address: only someone who may change Control-wide settings may point Control at one.".into(),
            (Problem::PrivateAddress, Ru) => "Это частный, локальный или общий адрес: направлять на него Control может только тот, кому разрешено менять общие настройки Control.".into(),
        }
    }

    /// What to do about it, when there is something useful to say.
    pub fn hint(&self, lang: Lang) -> Option<&'static str> {
        use Lang::*;
        Some(match (self, lang) {
            (Problem::NetworkIdFormat, En) => "Leave the field blank to generate a new ID, or paste the whole ID of an existing network.",
            (Problem::NetworkIdFormat, Ru) => "Оставьте поле пустым, чтобы создать новый ID, или вставьте ID существующей сети целиком.",
            (Problem::BeaconScheme | Problem::BeaconNotUrl, En) => "Example: https://beacon.example.net",
            (Problem::BeaconScheme | Problem::BeaconNotUrl, Ru) => "Пример: https://beacon.example.net",
            (Problem::BeaconPath | Problem::BeaconQueryOrFragment | Problem::BeaconCredentials, En) => "Use only scheme, host and optional port, e.g. https://beacon.example.net:8443",
            (Problem::BeaconPath | Problem::BeaconQueryOrFragment | Problem::BeaconCredentials, Ru) => "Укажите только схему, хост и при необходимости порт, например https://beacon.example.net:8443",
            (Problem::BeaconHostCharacters, En) => "Characters such as $, { and } are not part of a host name (Docker Compose would read them as variables), e.g. https://beacon.example.net",
            (Problem::BeaconHostCharacters, Ru) => "Символы вроде $, { и } не бывают в имени хоста (Docker Compose прочёл бы их как переменные), например https://beacon.example.net",
            (Problem::BeaconNonAscii, En) => "For an internationalised name use its xn-- form, e.g. https://xn--80ak6aa92e.example",
            (Problem::BeaconNonAscii, Ru) => "Для национального домена укажите его форму xn--, например https://xn--80ak6aa92e.example",
            (Problem::BeaconRelayPort, En) => "Use the Beacon's HTTP(S) address (usually port 443 behind HTTPS, or 8080); relays on 7447 are announced by the Beacon itself.",
            (Problem::BeaconRelayPort, Ru) => "Укажите HTTP(S)-адрес Beacon (обычно порт 443 за HTTPS или 8080); ретрансляторы на 7447 Beacon сообщает сам.",
            (Problem::WebhookUrl, En) => "Example: https://hooks.example.net/knotroute. Leave it empty to send no alerts.",
            (Problem::WebhookUrl, Ru) => "Пример: https://hooks.example.net/knotroute. Оставьте поле пустым, чтобы не отправлять оповещения.",
            (Problem::DeployName, En) => "1–63 characters: lowercase letters, digits, - and _, starting with a letter or digit (capitals are lowercased), e.g. web or my-app_2. The name becomes the Compose project kr-sidecar-<name> or kr-beacon-<name>, which may not contain dots.",
            (Problem::DeployName, Ru) => "1–63 символа: строчные латинские буквы, цифры, - и _, начиная с буквы или цифры (заглавные становятся строчными), например web или my-app_2. Имя входит в проект Compose kr-sidecar-<имя> или kr-beacon-<имя>, где точки недопустимы.",
            (Problem::InvalidTag, En) => "Example: media, home-lab. At most 10 tags; the KnotRoute apps show them in the service catalog.",
            (Problem::InvalidTag, Ru) => "Пример: media, home-lab. Не более 10 тегов; приложения KnotRoute показывают их в каталоге сервисов.",
            (Problem::InvalidScheme, En) => "The scheme the KnotRoute apps use to open the service; leave it empty to let them choose.",
            (Problem::InvalidScheme, Ru) => "Схема, по которой приложения KnotRoute открывают сервис; оставьте пустым, чтобы они выбрали сами.",
            (Problem::UserName | Problem::UserNameTaken, En) => "This is the name you sign in with, e.g. anna or a.petrova.",
            (Problem::UserName | Problem::UserNameTaken, Ru) => "С этим именем вы будете входить, например anna или a.petrova.",
            (Problem::PasswordTooShort { .. }, En) => "A passphrase of a few words is long and easy to remember.",
            (Problem::PasswordTooShort { .. }, Ru) => "Фраза из нескольких слов длинная и легко запоминается.",
            (Problem::WrongCode, En) => "A code works once and changes every 30 seconds: wait for the next one. Check that the phone's clock is set automatically.",
            (Problem::WrongCode, Ru) => "Код действует один раз и меняется каждые 30 секунд: дождитесь следующего. Проверьте, что часы телефона устанавливаются автоматически.",
            (Problem::BeaconNotInNetwork, En) => "Name the Beacons of the network's profile (GET /api/v1/networks/{id}), or add the Beacon to the profile first.",
            (Problem::BeaconNotInNetwork, Ru) => "Укажите Beacon из профиля сети (GET /api/v1/networks/{id}) или сначала добавьте Beacon в профиль.",
            (Problem::NameOfAnotherNetwork, En) => "Choose another name: names are per Agent, and a component stays with the network that deployed it until it is removed there.",
            (Problem::NameOfAnotherNetwork, Ru) => "Выберите другое имя: имена уникальны в пределах Agent, а компонент остаётся в сети, которая его развернула, пока его там не удалят.",
            (Problem::DockerNetworkOfAnotherNetwork, En) => "Use the Docker network of your own application, or ask someone who sees every network.",
            (Problem::DockerNetworkOfAnotherNetwork, Ru) => "Укажите сеть Docker своего приложения или обратитесь к тому, кому видны все сети.",
            (Problem::NetworkNameTaken, En) => "Choose another name: single sign-on role maps and people name networks by it.",
            (Problem::NetworkNameTaken, Ru) => "Выберите другое имя: по нему сети называют карта ролей единого входа и люди.",
            (Problem::PrivateAddress, En) => "Ask an owner or an admin who sees every network to add it, or use the Beacon's public address.",
            (Problem::PrivateAddress, Ru) => "Попросите владельца или администратора, которому видны все сети, добавить его, или укажите публичный адрес Beacon.",
            _ => return None,
        })
    }
}

pub const NAME_MAX: usize = 80;
pub const DESCRIPTION_MAX: usize = 500;
pub const BEACON_URL_MAX: usize = 2048;
pub const BEACONS_MAX: usize = 16;
/// The relay transport port, which a Beacon URL must never point at.
pub const RELAY_PORT: u16 = 7447;

/// A profile name: trimmed, 1–80 characters, no control characters.
pub fn profile_name(input: &str) -> Result<String, FieldError> {
    let name = input.trim();
    if name.is_empty() {
        return Err(FieldError::new("name", Problem::Required));
    }
    if name.chars().count() > NAME_MAX {
        return Err(FieldError::new("name", Problem::TooLong { max: NAME_MAX }));
    }
    if name.chars().any(char::is_control) {
        return Err(FieldError::new("name", Problem::ControlCharacters));
    }
    Ok(name.to_string())
}

/// An optional one-line label (a pre-set Agent name): trimmed, at most 80
/// characters, no control characters; empty is allowed.
pub fn optional_name(field: &str, input: &str) -> Result<String, FieldError> {
    let name = input.trim();
    if name.chars().count() > NAME_MAX {
        return Err(FieldError::new(field, Problem::TooLong { max: NAME_MAX }));
    }
    if name.chars().any(char::is_control) {
        return Err(FieldError::new(field, Problem::ControlCharacters));
    }
    Ok(name.to_string())
}

pub const TAG_MAX: usize = 64;
pub const TAGS_MAX: usize = 32;

/// Agent tags: each trimmed and non-empty, at most 64 characters, at most 32 of
/// them, duplicates dropped (order kept).
pub fn tags(field: &str, input: &[String]) -> Result<Vec<String>, FieldError> {
    let mut kept: Vec<String> = Vec::new();
    for tag in input.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if tag.chars().count() > TAG_MAX {
            return Err(FieldError::new(field, Problem::TooLong { max: TAG_MAX }));
        }
        if tag.chars().any(char::is_control) {
            return Err(FieldError::new(field, Problem::ControlCharacters));
        }
        if !kept.iter().any(|k| k == tag) {
            kept.push(tag.to_string());
        }
    }
    if kept.len() > TAGS_MAX {
        return Err(FieldError::new(field, Problem::TooMany { max: TAGS_MAX }));
    }
    Ok(kept)
}

/// An optional description: trimmed, up to 500 characters; line breaks and tabs allowed.
pub fn description(input: &str) -> Result<String, FieldError> {
    let text = input.trim();
    if text.chars().count() > DESCRIPTION_MAX {
        return Err(FieldError::new(
            "description",
            Problem::TooLong {
                max: DESCRIPTION_MAX,
            },
        ));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        return Err(FieldError::new("description", Problem::ControlCharacters));
    }
    Ok(text.to_string())
}

/// A Beacon URL as DESIGN.md defines it: an HTTP(S) API root without
/// credentials, path, query or fragment, never on the relay port. Returns the
/// normalised form (`scheme://host[:port]`, lowercase host, no trailing slash).
pub fn beacon_url(input: &str) -> Result<String, Problem> {
    let text = input.trim();
    if text.is_empty() {
        return Err(Problem::Required);
    }
    if text.len() > BEACON_URL_MAX {
        return Err(Problem::TooLong {
            max: BEACON_URL_MAX,
        });
    }
    if !text.is_ascii() {
        return Err(Problem::BeaconNonAscii);
    }
    // "beacon.example.net:8080" would otherwise parse as a URL with scheme "beacon.example.net".
    if !text.contains("://") {
        return Err(Problem::BeaconScheme);
    }
    let url = Url::parse(text).map_err(|e| match e {
        url::ParseError::EmptyHost => Problem::BeaconNoHost,
        _ => Problem::BeaconNotUrl,
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(Problem::BeaconScheme);
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err(Problem::BeaconNoHost);
    };
    // The URL parser lets `$`, `{`, `}` and other punctuation (also when
    // percent-encoded) into a name; a host is a DNS name or an IP literal.
    // The URL reaches Compose files, where `${…}` would be filled in.
    if matches!(url.host(), Some(url::Host::Domain(_)))
        && !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(Problem::BeaconHostCharacters);
    }
    if url.port() == Some(RELAY_PORT) {
        return Err(Problem::BeaconRelayPort);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Problem::BeaconCredentials);
    }
    if url.path() != "/" && !url.path().is_empty() {
        return Err(Problem::BeaconPath);
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(Problem::BeaconQueryOrFragment);
    }
    Ok(match url.port() {
        Some(port) => format!("{}://{}:{}", url.scheme(), host, port),
        None => format!("{}://{}", url.scheme(), host),
    })
}

/// A list of Beacon URLs: each valid, no duplicates after normalisation, at most 16.
pub fn beacon_urls<S: AsRef<str>>(inputs: &[S]) -> Result<Vec<String>, FieldError> {
    if inputs.len() > BEACONS_MAX {
        return Err(FieldError::new(
            "beacons",
            Problem::TooMany { max: BEACONS_MAX },
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(inputs.len());
    for (i, raw) in inputs.iter().enumerate() {
        let url = beacon_url(raw.as_ref()).map_err(|p| FieldError::at("beacons", i, p))?;
        if out.contains(&url) {
            return Err(FieldError::at("beacons", i, Problem::BeaconDuplicate));
        }
        out.push(url);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beacon_urls_are_normalised_to_their_api_root() {
        assert_eq!(
            beacon_url(" https://Beacon.Example.NET/ ").unwrap(),
            "https://beacon.example.net"
        );
        assert_eq!(
            beacon_url("http://10.0.0.5:8080").unwrap(),
            "http://10.0.0.5:8080"
        );
        assert_eq!(
            beacon_url("https://b.example:443").unwrap(),
            "https://b.example"
        );
        assert_eq!(
            beacon_url("http://[::1]:18080").unwrap(),
            "http://[::1]:18080"
        );
    }

    #[test]
    fn the_relay_port_is_refused_with_its_own_explanation() {
        let problem = beacon_url("http://beacon.example.net:7447").unwrap_err();
        assert_eq!(problem, Problem::BeaconRelayPort);
        assert!(problem.message(Lang::En).contains("relay transport"));
        assert!(problem.hint(Lang::En).unwrap().contains("7447"));
        assert_eq!(
            beacon_url("https://beacon.example.net:7447/").unwrap_err(),
            Problem::BeaconRelayPort
        );
    }

    #[test]
    fn beacon_urls_with_more_than_an_api_root_are_refused() {
        let cases = [
            ("beacon.example.net", Problem::BeaconScheme),
            ("beacon.example.net:8080", Problem::BeaconScheme),
            ("ftp://beacon.example.net", Problem::BeaconScheme),
            (
                "https://user:pw@beacon.example.net",
                Problem::BeaconCredentials,
            ),
            ("https://beacon.example.net/api", Problem::BeaconPath),
            (
                "https://beacon.example.net/?x=1",
                Problem::BeaconQueryOrFragment,
            ),
            (
                "https://beacon.example.net/#top",
                Problem::BeaconQueryOrFragment,
            ),
            ("https://", Problem::BeaconNoHost),
            ("https://exa mple.net", Problem::BeaconNotUrl),
            ("https://пример.рф", Problem::BeaconNonAscii),
            ("   ", Problem::Required),
        ];
        for (input, expected) in cases {
            assert_eq!(beacon_url(input).unwrap_err(), expected, "{input}");
        }
    }

    #[test]
    fn beacon_hosts_with_characters_compose_would_interpolate_are_refused() {
        let hostile = [
            "http://${https_proxy}",
            "http://a${",
            "http://$HOME",
            "http://a$b.example.net",
            "http://b.example.net$",
            "https://{b}.example.net",
            "https://b}.example.net:8443",
            "http://a%24%7Bhttps_proxy%7D",
            "http://a%24b",
            "http://$$",
            "http://a!b.example",
            "http://a'b.example",
            "http://a\"b.example",
            "http://a(b).example",
            "http://a*b.example",
            "http://a+b.example",
            "http://a,b.example",
            "http://a;b.example",
            "http://a=b.example",
            "http://a&b.example",
            "http://a~b.example",
            "http://a`b`.example",
        ];
        for input in hostile {
            assert_eq!(
                beacon_url(input),
                Err(Problem::BeaconHostCharacters),
                "{input}"
            );
        }
        let refused = beacon_urls(&["https://ok.example", "http://${https_proxy}"]).unwrap_err();
        assert_eq!(
            refused,
            FieldError::at("beacons", 1, Problem::BeaconHostCharacters)
        );
        assert!(refused.problem.hint(Lang::En).unwrap().contains('$'));
        assert!(refused.problem.hint(Lang::Ru).unwrap().contains('$'));
        for fine in [
            "https://beacon-1.example.net",
            "http://my_beacon.lan:8080",
            "http://10.0.0.5:8080",
            "http://[fd00::1]:8080",
            "https://xn--80ak6aa92e.example",
        ] {
            assert!(beacon_url(fine).is_ok(), "{fine}");
        }
    }

    #[test]
    fn duplicate_beacons_after_normalisation_name_their_position() {
        let err = beacon_urls(&["https://a.example", "https://A.example/"]).unwrap_err();
        assert_eq!(err, FieldError::at("beacons", 1, Problem::BeaconDuplicate));
        assert_eq!(
            err.message(Lang::En),
            "Beacon URL 2: This Beacon URL is already listed."
        );
    }

    #[test]
    fn an_empty_beacon_list_is_allowed_and_a_long_one_is_not() {
        assert_eq!(beacon_urls::<&str>(&[]).unwrap(), Vec::<String>::new());
        let many: Vec<String> = (0..17).map(|i| format!("https://b{i}.example")).collect();
        assert_eq!(
            beacon_urls(&many).unwrap_err().problem,
            Problem::TooMany { max: 16 }
        );
    }

    #[test]
    fn profile_names_are_trimmed_and_bounded_in_characters_not_bytes() {
        assert_eq!(profile_name("  Office  ").unwrap(), "Office");
        assert_eq!(profile_name("").unwrap_err().problem, Problem::Required);
        assert!(profile_name(&"я".repeat(80)).is_ok());
        assert_eq!(
            profile_name(&"я".repeat(81)).unwrap_err().problem,
            Problem::TooLong { max: 80 }
        );
        assert_eq!(
            profile_name("a\u{0}b").unwrap_err().problem,
            Problem::ControlCharacters
        );
    }

    #[test]
    fn descriptions_allow_line_breaks_but_not_other_control_characters() {
        assert_eq!(description(" two\nlines ").unwrap(), "two\nlines");
        assert_eq!(
            description("bell\u{7}").unwrap_err().problem,
            Problem::ControlCharacters
        );
    }

    #[test]
    fn russian_is_chosen_for_a_browser_that_prefers_it() {
        assert_eq!(
            Lang::from_accept_language("ru-RU,ru;q=0.9,en-US;q=0.8"),
            Lang::Ru
        );
        assert_eq!(
            Lang::from_accept_language("en-US,en;q=0.9,ru;q=0.8"),
            Lang::En
        );
        assert_eq!(Lang::from_accept_language("de-DE,ru;q=0.5"), Lang::Ru);
        assert_eq!(Lang::from_accept_language("en;q=0.1,ru;q=0.7"), Lang::Ru);
        assert_eq!(Lang::from_accept_language("fr"), Lang::En);
    }

    #[test]
    fn field_errors_serialise_with_a_problem_slug() {
        let error = FieldError::at("beacons", 0, Problem::TooLong { max: 3 });
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"field": "beacons", "index": 0, "problem": {"too_long": {"max": 3}}})
        );
        assert_eq!(serde_json::from_value::<FieldError>(json).unwrap(), error);
        let plain = serde_json::to_value(FieldError::new("name", Problem::Required)).unwrap();
        assert_eq!(
            plain,
            serde_json::json!({"field": "name", "problem": "required"})
        );
    }
}
