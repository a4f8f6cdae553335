//! Interface texts in English and Russian. Each language is one value of the
//! same struct, so a missing translation is a compile error, not a blank label.

pub mod audit;
pub mod beacons;
pub mod deploy;
pub mod infra;
pub mod jobs;
pub mod onboarding;
pub mod overview;
pub mod probe;
pub mod services;
pub mod settings;
pub mod setup;
pub mod sso;
pub mod two_step;
pub mod users;

pub use protocol::validation::Lang;

pub struct Texts {
    pub product: &'static str,
    pub nav_overview: &'static str,
    pub nav_networks: &'static str,
    pub nav_infrastructure: &'static str,
    pub nav_services: &'static str,
    pub nav_onboarding: &'static str,
    pub nav_jobs: &'static str,
    pub nav_audit: &'static str,
    pub nav_settings: &'static str,
    pub sign_out: &'static str,
    /// Where a page or form is not for the signed-in person's role.
    pub not_for_role: &'static str,
    pub sign_in_title: &'static str,
    pub sign_in_intro: &'static str,
    pub password: &'static str,
    pub user_name: &'static str,
    pub user_name_hint: &'static str,
    pub sign_in: &'static str,
    pub signing_in: &'static str,
    pub wrong_password: &'static str,
    pub throttled: &'static str,
    pub loading: &'static str,
    pub internal_error: &'static str,
    pub database_unavailable: &'static str,
    pub session_expired: &'static str,
    pub not_found: &'static str,
    pub back_to_networks: &'static str,
    pub overview_title: &'static str,
    pub card_networks: &'static str,
    pub card_agents: &'static str,
    pub card_beacons: &'static str,
    pub card_services: &'static str,
    pub zero_networks: &'static str,
    pub some_networks_without_beacon: &'static str,
    pub zero_agents: &'static str,
    pub zero_beacons: &'static str,
    pub zero_services: &'static str,
    pub online_of: &'static str,
    pub networks_title: &'static str,
    pub networks_intro: &'static str,
    pub new_network: &'static str,
    pub col_name: &'static str,
    pub col_network_id: &'static str,
    pub col_beacons: &'static str,
    pub no_beacon: &'static str,
    pub networks_empty: &'static str,
    pub next_page: &'static str,
    pub first_page: &'static str,
    pub field_name: &'static str,
    pub field_description: &'static str,
    pub field_network_id: &'static str,
    pub network_id_help_new: &'static str,
    pub network_id_help_existing: &'static str,
    pub field_beacons: &'static str,
    pub beacons_help: &'static str,
    pub beacons_none_warning: &'static str,
    pub create: &'static str,
    pub save: &'static str,
    pub saving: &'static str,
    pub saved: &'static str,
    pub stale_profile: &'static str,
    pub reload: &'static str,
    pub cancel: &'static str,
    pub delete: &'static str,
    pub delete_title: &'static str,
    pub delete_explain: &'static str,
    pub edit_network: &'static str,
    pub fix_fields: &'static str,
    pub copy: &'static str,
    pub language: &'static str,
    pub find_agent: &'static str,
    pub find_network: &'static str,
    pub find_hint: &'static str,
    pub no_match: &'static str,
    pub diagnose_title: &'static str,
    pub diagnose_intro: &'static str,
    pub diagnose: &'static str,
    pub diagnosing: &'static str,
    pub next_step: &'static str,
}

pub static EN: Texts = Texts {
    product: "KnotRoute Control",
    nav_overview: "Overview",
    nav_networks: "Networks",
    nav_infrastructure: "Infrastructure",
    nav_services: "Services",
    nav_onboarding: "Onboarding",
    nav_jobs: "Jobs",
    nav_audit: "Audit log",
    nav_settings: "Settings",
    sign_out: "Sign out",
    not_for_role: "Your role does not allow this. An owner or an admin can do it, or give you a role that may.",
    sign_in_title: "Sign in",
    sign_in_intro: "Sign in with your name and password.",
    password: "Password",
    user_name: "Name",
    user_name_hint: "For the owner account, leave the name empty and enter KNOTROUTE_CONTROL_ADMIN_PASSWORD.",
    sign_in: "Sign in",
    signing_in: "Signing in…",
    wrong_password: "Wrong name or password.",
    throttled: "Too many failed attempts from this address. Try again in {n} minutes, or run `knotroute-control trust-browser` on the server and open the link it prints.",
    loading: "Loading…",
    internal_error: "Something went wrong on the server; details are in Control's log. Try again.",
    database_unavailable: "Control cannot reach its database right now. Try again in a few seconds.",
    session_expired: "Your session has ended. Sign in again.",
    not_found: "Not found.",
    back_to_networks: "Back to networks",
    overview_title: "Overview",
    card_networks: "Networks",
    card_agents: "Agents online",
    card_beacons: "Managed Beacons",
    card_services: "Services",
    zero_networks: "No network profiles yet. Create one to get a Network ID to share.",
    some_networks_without_beacon: "{n} without a Beacon URL",
    zero_agents: "No Agents enrolled. An Agent runs on each Docker host you manage.",
    zero_beacons: "None yet: deploy one from Infrastructure → Beacons.",
    zero_services: "No published services yet.",
    online_of: "of {n}",
    networks_title: "Networks",
    networks_intro: "A network profile is a name, a Network ID and the Beacon URLs that clients and sidecars bootstrap from.",
    new_network: "New network",
    col_name: "Name",
    col_network_id: "Network ID",
    col_beacons: "Beacons",
    no_beacon: "no Beacon",
    networks_empty: "No network profiles yet. Create the first one: leave the Network ID blank to generate one, or paste the ID of a network you already run.",
    next_page: "Next page",
    first_page: "First page",
    field_name: "Name",
    field_description: "Description (optional)",
    field_network_id: "Network ID",
    network_id_help_new: "Leave blank to generate a new kn_… ID, or paste the ID of an existing network. It cannot be changed later.",
    network_id_help_existing: "The Network ID cannot be changed after creation.",
    field_beacons: "Beacon URLs",
    beacons_help: "One URL per line: the Beacon's HTTP(S) API root, e.g. https://beacon.example.net (not the relay port 7447).",
    beacons_none_warning: "Without a Beacon URL the profile is saved, but clients need another way to find the network and services cannot be published in it.",
    create: "Create network",
    save: "Save",
    saving: "Saving…",
    saved: "Saved.",
    stale_profile: "Someone else changed this profile since you opened it. Reload to see their changes.",
    reload: "Reload",
    cancel: "Cancel",
    delete: "Delete",
    delete_title: "Delete this network profile?",
    delete_explain: "Control forgets its name, Network ID and Beacon list. Running Beacons, sidecars and clients keep working; this cannot be undone.",
    edit_network: "Edit network",
    fix_fields: "Fix the marked fields and try again.",
    copy: "Copy",
    language: "Language",
    find_agent: "Find an Agent by name",
    find_network: "Find a profile by name",
    find_hint: "The list shows the first ones by name; type part of a name to narrow it.",
    no_match: "Nothing matches this search.",
    diagnose_title: "Diagnose",
    diagnose_intro: "Checks layer by layer: each Beacon (DNS, TCP, /healthz with TLS, the relay port), then this network's Agents (online, Docker), then its services (container, .knot address), in the order to fix them.",
    diagnose: "Diagnose",
    diagnosing: "Checking…",
    next_step: "Next step:",
};

pub static RU: Texts = Texts {
    product: "KnotRoute Control",
    nav_overview: "Обзор",
    nav_networks: "Сети",
    nav_infrastructure: "Инфраструктура",
    nav_services: "Сервисы",
    nav_onboarding: "Подключение",
    nav_jobs: "Задачи",
    nav_audit: "Журнал аудита",
    nav_settings: "Настройки",
    sign_out: "Выйти",
    not_for_role: "Ваша роль этого не позволяет. Это может сделать владелец или администратор, или дать вам подходящую роль.",
    sign_in_title: "Вход",
    sign_in_intro: "Войдите со своим именем и паролем.",
    password: "Пароль",
    user_name: "Имя",
    user_name_hint: "Для учётной записи владельца оставьте имя пустым и введите KNOTROUTE_CONTROL_ADMIN_PASSWORD.",
    sign_in: "Войти",
    signing_in: "Вход…",
    wrong_password: "Неверное имя или пароль.",
    throttled: "Слишком много неудачных попыток с этого адреса. Повторите через {n} мин. или выполните на сервере `knotroute-control trust-browser` и откройте ссылку, которую она выведет.",
    loading: "Загрузка…",
    internal_error: "Ошибка на сервере; подробности в журнале Control. Попробуйте ещё раз.",
    database_unavailable: "Control сейчас не может связаться со своей базой данных. Повторите через несколько секунд.",
    session_expired: "Сеанс завершён. Войдите снова.",
    not_found: "Не найдено.",
    back_to_networks: "К списку сетей",
    overview_title: "Обзор",
    card_networks: "Сети",
    card_agents: "Agent в сети",
    card_beacons: "Управляемые Beacon",
    card_services: "Сервисы",
    zero_networks: "Профилей сетей пока нет. Создайте профиль, чтобы получить Network ID.",
    some_networks_without_beacon: "без Beacon URL: {n}",
    zero_agents: "Нет подключённых Agent. Agent работает на каждом управляемом Docker-хосте.",
    zero_beacons: "Пока нет: разверните Beacon в разделе Инфраструктура → Beacons.",
    zero_services: "Опубликованных сервисов пока нет.",
    online_of: "из {n}",
    networks_title: "Сети",
    networks_intro: "Профиль сети — это имя, Network ID и адреса Beacon, через которые клиенты и sidecar находят сеть.",
    new_network: "Добавить сеть",
    col_name: "Имя",
    col_network_id: "Network ID",
    col_beacons: "Beacon",
    no_beacon: "нет Beacon",
    networks_empty: "Профилей сетей пока нет. Создайте первый: оставьте Network ID пустым, чтобы создать новый, или вставьте ID уже работающей сети.",
    next_page: "Следующая страница",
    first_page: "Первая страница",
    field_name: "Имя",
    field_description: "Описание (необязательно)",
    field_network_id: "Network ID",
    network_id_help_new: "Оставьте пустым, чтобы создать новый ID kn_…, или вставьте ID существующей сети. Изменить его потом нельзя.",
    network_id_help_existing: "Network ID нельзя изменить после создания.",
    field_beacons: "Beacon URL",
    beacons_help: "По одному URL в строке: корень HTTP(S) API Beacon, например https://beacon.example.net (не порт ретранслятора 7447).",
    beacons_none_warning: "Без Beacon URL профиль сохранится, но клиентам понадобится другой способ найти сеть, а публиковать в ней сервисы будет нельзя.",
    create: "Создать сеть",
    save: "Сохранить",
    saving: "Сохранение…",
    saved: "Сохранено.",
    stale_profile: "Кто-то другой изменил этот профиль после того, как вы его открыли. Перезагрузите страницу, чтобы увидеть его изменения.",
    reload: "Перезагрузить",
    cancel: "Отмена",
    delete: "Удалить",
    delete_title: "Удалить этот профиль сети?",
    delete_explain: "Control забудет имя, Network ID и список Beacon. Работающие Beacon, sidecar и клиенты продолжат работать; отменить это нельзя.",
    edit_network: "Изменить сеть",
    fix_fields: "Исправьте отмеченные поля и попробуйте снова.",
    copy: "Копировать",
    language: "Язык",
    find_agent: "Найти Agent по имени",
    find_network: "Найти профиль по имени",
    find_hint: "Список показывает первые по имени; введите часть имени, чтобы сузить его.",
    no_match: "Ничего не найдено.",
    diagnose_title: "Диагностика",
    diagnose_intro: "Проверяет по слоям: каждый Beacon (DNS, TCP, /healthz с TLS, порт релея), затем Agent этой сети (в сети, Docker), затем её сервисы (контейнер, адрес .knot) — в том порядке, в каком стоит исправлять.",
    diagnose: "Диагностировать",
    diagnosing: "Проверка…",
    next_step: "Что делать:",
};

pub fn texts(lang: Lang) -> &'static Texts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

/// The name of the cookie that remembers the chosen language.
pub const LANG_COOKIE: &str = "kr_lang";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::beacons::beacon_texts;
    use crate::i18n::deploy::deploy_texts;
    use crate::i18n::infra::infra_texts;
    use crate::i18n::jobs::jobs_texts;

    /// The Russian guides an administrator follows name these screens and
    /// buttons; the screen must say exactly the same words.
    #[test]
    fn russian_labels_are_the_guide_words() {
        let t = texts(Lang::Ru);
        assert_eq!(t.nav_overview, "Обзор");
        assert_eq!(t.nav_networks, "Сети");
        assert_eq!(t.nav_infrastructure, "Инфраструктура");
        assert_eq!(t.nav_services, "Сервисы");
        assert_eq!(t.nav_onboarding, "Подключение");
        assert_eq!(t.nav_jobs, "Задачи");
        assert_eq!(jobs_texts(Lang::Ru).jobs_title, "Задачи");
        assert_eq!(t.new_network, "Добавить сеть");
        // The Beacons list checks one Beacon per row; the network page's
        // "Diagnose" checks more (Agents, services) and keeps its own word.
        assert_eq!(beacon_texts(Lang::Ru).check, "Проверить Beacon");
        assert_eq!(infra_texts(Lang::Ru).beacons_tab, "Beacons");
        assert_eq!(deploy_texts(Lang::Ru).title, "Развернуть новый Beacon");
        assert_eq!(
            beacon_texts(Lang::Ru).deploy_hint,
            "Развернуть новый Beacon"
        );
    }

    /// The guides keep Beacon, Agent and sidecar in Latin script and call jobs
    /// «задачи». The text tables have no iterator over their fields, so this
    /// reads the sources of the Russian texts instead: everything before each
    /// file's test module (the English halves have no Cyrillic to match).
    #[test]
    fn russian_texts_use_the_guide_words() {
        let sources = [
            ("i18n/mod.rs", include_str!("mod.rs")),
            ("i18n/audit.rs", include_str!("audit.rs")),
            ("i18n/beacons.rs", include_str!("beacons.rs")),
            ("i18n/deploy.rs", include_str!("deploy.rs")),
            ("i18n/infra.rs", include_str!("infra.rs")),
            ("i18n/jobs.rs", include_str!("jobs.rs")),
            ("i18n/onboarding.rs", include_str!("onboarding.rs")),
            ("i18n/overview.rs", include_str!("overview.rs")),
            ("i18n/probe.rs", include_str!("probe.rs")),
            ("i18n/services.rs", include_str!("services.rs")),
            ("i18n/settings.rs", include_str!("settings.rs")),
            ("i18n/sso.rs", include_str!("sso.rs")),
            ("pages/diagnose.rs", include_str!("../pages/diagnose.rs")),
        ];
        for (file, source) in sources {
            // This module names the old words itself; it is not a text.
            let end = source.find("#[cfg(test)]").unwrap_or(source.len());
            let words = source[..end].to_lowercase();
            for old in ["маяк", "задани", "агент", "сайдкар"] {
                assert!(!words.contains(old), "{file} still says «{old}…»");
            }
        }
    }
}
