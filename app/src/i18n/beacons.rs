//! Texts of the Beacons section in English and Russian. A missing
//! translation is a compile error.

use crate::i18n::Lang;
use protocol::beacons::CheckClass;

pub struct BeaconTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub empty: &'static str,
    pub col_url: &'static str,
    pub col_network: &'static str,
    pub col_kind: &'static str,
    pub col_check: &'static str,
    pub col_day: &'static str,
    pub last_failure: &'static str,
    pub no_checks_today: &'static str,
    pub day_label: &'static str,
    pub failed_checks: &'static str,
    pub managed: &'static str,
    pub external: &'static str,
    pub never_checked: &'static str,
    pub check: &'static str,
    pub checking: &'static str,
    pub checked_at: &'static str,
    pub add_title: &'static str,
    pub add_intro: &'static str,
    pub field_network: &'static str,
    pub choose_network: &'static str,
    pub field_url: &'static str,
    pub add: &'static str,
    pub added: &'static str,
    pub no_networks: &'static str,
    pub deploy_hint: &'static str,
}

const EN: BeaconTexts = BeaconTexts {
    title: "Beacons",
    intro: "Every Beacon URL of your network profiles. Managed Beacons were deployed by Control on an Agent; external ones run elsewhere, and Control only checks them.",
    empty: "No network profile lists a Beacon yet. Add an existing Beacon below, or deploy a new one with “Deploy new Beacon”.",
    col_url: "Beacon URL",
    col_network: "Network",
    col_kind: "Kind",
    col_check: "Last check",
    col_day: "Last 24 h",
    last_failure: "Last failure",
    no_checks_today: "no checks in 24 h",
    day_label: "Latency over the last 24 hours, hour by hour:",
    failed_checks: "failed checks",
    managed: "managed",
    external: "external, unmanaged",
    never_checked: "not checked yet",
    check: "Check",
    checking: "Checking…",
    checked_at: "checked",
    add_title: "Add existing Beacon",
    add_intro: "For a Beacon that already runs somewhere: its URL is added to the chosen profile. To run a new Beacon in a container on one of your Agents, use “Deploy new Beacon” below instead.",
    field_network: "Network profile",
    choose_network: "Choose a profile",
    field_url: "Beacon URL (http:// or https://, the Beacon API, not the relay port 7447)",
    add: "Add Beacon",
    added: "Added. Check it to see whether Control reaches it.",
    no_networks: "Create a network profile first: a Beacon always belongs to one.",
    deploy_hint: "Deploy a new Beacon",
};

const RU: BeaconTexts = BeaconTexts {
    title: "Beacons",
    intro: "Все адреса Beacon из ваших сетевых профилей. Управляемые Beacon развёрнуты Control на одном из Agent; внешние работают где-то ещё, и Control их только проверяет.",
    empty: "Ни в одном сетевом профиле пока нет Beacon. Добавьте существующий Beacon ниже или разверните новый через «Развернуть новый Beacon».",
    col_url: "Адрес Beacon",
    col_network: "Сеть",
    col_kind: "Вид",
    col_check: "Последняя проверка",
    col_day: "За 24 ч",
    last_failure: "Последний сбой",
    no_checks_today: "за 24 ч проверок не было",
    day_label: "Задержка за последние 24 часа, по часам:",
    failed_checks: "неудачных проверок",
    managed: "управляемый",
    external: "внешний, не управляется",
    never_checked: "ещё не проверялся",
    check: "Проверить Beacon",
    checking: "Проверяем…",
    checked_at: "проверен",
    add_title: "Добавить существующий Beacon",
    add_intro: "Для Beacon, который уже где-то работает: его адрес добавляется в выбранный профиль. Чтобы запустить новый Beacon в контейнере на одном из Agent, используйте «Развернуть новый Beacon» ниже.",
    field_network: "Сетевой профиль",
    choose_network: "Выберите профиль",
    field_url: "Адрес Beacon (http:// или https://, API Beacon, а не порт ретрансляции 7447)",
    add: "Добавить Beacon",
    added: "Добавлено. Проверьте Beacon, чтобы узнать, достаёт ли его Control.",
    no_networks: "Сначала создайте сетевой профиль: Beacon всегда принадлежит профилю.",
    deploy_hint: "Развернуть новый Beacon",
};

pub fn beacon_texts(lang: Lang) -> &'static BeaconTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

/// What a check result means and what to do next, in one sentence.
pub fn check_outcome(class: CheckClass, lang: Lang) -> &'static str {
    use CheckClass::*;
    match (class, lang) {
        (Ok, Lang::En) => "healthy",
        (Ok, Lang::Ru) => "работает",
        (Dns, Lang::En) => "DNS failure: the host name does not resolve. Check the DNS record of this Beacon's host.",
        (Dns, Lang::Ru) => "Ошибка DNS: имя узла не разрешается. Проверьте DNS-запись узла Beacon.",
        (Connect, Lang::En) => "Connection refused: nothing listens on that port. Check that the Beacon runs and the firewall lets Control in.",
        (Connect, Lang::Ru) => "Соединение отклонено: на этом порту никто не слушает. Проверьте, что Beacon запущен и межсетевой экран пропускает Control.",
        (Tls, Lang::En) => "TLS failure: the certificate is not trusted or does not match the name. Fix the certificate or the URL.",
        (Tls, Lang::Ru) => "Ошибка TLS: сертификату нет доверия или он не подходит к имени. Исправьте сертификат или адрес.",
        (Timeout, Lang::En) => "Timed out: no answer within 5 s. Check the network path and whether the Beacon is overloaded.",
        (Timeout, Lang::Ru) => "Нет ответа за 5 с. Проверьте сетевой путь и не перегружен ли Beacon.",
        (HttpStatus, Lang::En) => "HTTP error: something answered, but not a healthy Beacon. Check that the URL points at the Beacon API.",
        (HttpStatus, Lang::Ru) => "Ошибка HTTP: ответ пришёл, но не от исправного Beacon. Проверьте, что адрес ведёт на API Beacon.",
        (Blocked, Lang::En) => "Not checked: the host resolves to a link-local (cloud metadata) address, which Control never contacts.",
        (Blocked, Lang::Ru) => "Не проверен: имя узла указывает на link-local адрес (служба метаданных облака), к которому Control не обращается.",
    }
}
