//! Texts of the Settings screen in English and Russian.

use crate::i18n::Lang;

pub struct SettingsTexts {
    pub title: &'static str,
    /// The first tab: alerts, one's own two-step sign-in, Control's identity.
    pub general_tab: &'static str,
    pub alerts_title: &'static str,
    pub alerts_intro: &'static str,
    pub webhook_field: &'static str,
    pub webhook_current: &'static str,
    pub webhook_none: &'static str,
    pub webhook_from_env: &'static str,
    pub webhook_replace: &'static str,
    pub save: &'static str,
    pub saved: &'static str,
    pub turn_off: &'static str,
    pub turn_off_explain: &'static str,
    pub send_test: &'static str,
    pub test_delivered: &'static str,
    pub test_failed: &'static str,
    /// After "Not delivered:" when the page cannot say why (a plain form's
    /// answer carries no detail: it could hold the webhook's secret).
    pub test_failed_see_below: &'static str,
    pub recent_title: &'static str,
    pub recent_empty: &'static str,
    pub col_when: &'static str,
    pub col_event: &'static str,
    pub col_text: &'static str,
    pub col_status: &'static str,
    pub attempts: &'static str,
    /// New Agents: whether shared-token Agents wait for approval.
    pub approval_title: &'static str,
    pub approval_intro: &'static str,
    pub approval_field: &'static str,
    pub approval_on: &'static str,
    pub approval_off: &'static str,
}

const EN: SettingsTexts = SettingsTexts {
    title: "Settings",
    general_tab: "General",
    alerts_title: "Alerts",
    alerts_intro: "Control can POST a JSON alert to a webhook when an Agent goes offline or comes back, a job fails, a Beacon goes down or up, or a service loses its .knot address. Each thing sends at most one alert per 5 minutes; failed deliveries are retried with backoff.",
    webhook_field: "Webhook URL",
    webhook_current: "Alerts go to",
    webhook_none: "No webhook is set: no alerts are sent.",
    webhook_from_env: "Set by KNOTROUTE_CONTROL_ALERT_WEBHOOK; change it there and restart Control.",
    webhook_replace: "The saved URL is not shown in full (it may hold a token). Enter a URL to replace it.",
    save: "Save",
    saved: "Saved.",
    turn_off: "Turn alerts off",
    turn_off_explain: "The webhook URL is forgotten and no more alerts are sent. Alerts waiting for delivery are not sent either.",
    send_test: "Send test alert",
    test_delivered: "Delivered.",
    test_failed: "Not delivered:",
    test_failed_see_below: "the reason is under Recent alerts.",
    recent_title: "Recent alerts",
    recent_empty: "No alert has been sent yet.",
    col_when: "When",
    col_event: "Event",
    col_text: "Message",
    col_status: "Delivery",
    attempts: "attempts",
    approval_title: "New Agents",
    approval_intro: "Anyone who knows the shared enrollment token (KNOTROUTE_CONTROL_ENROLL_TOKEN) can enroll a host. While approval is on, such an Agent waits until an admin compares its key fingerprint and approves it: until then it gets no jobs and belongs to no network. An Agent enrolled with an install token is approved by the admin who made the token, unless the token was made to need approval.",
    approval_field: "Agents enrolled with the shared token wait for approval",
    approval_on: "On: Agents enrolled with the shared token wait for an admin's approval.",
    approval_off: "Off: Agents enrolled with the shared token are approved at once.",
};

const RU: SettingsTexts = SettingsTexts {
    title: "Настройки",
    general_tab: "Общие",
    alerts_title: "Оповещения",
    alerts_intro: "Control может отправлять JSON-оповещение на вебхук, когда Agent уходит в офлайн или возвращается, задача завершается ошибкой, Beacon падает или восстанавливается, или сервис теряет адрес .knot. По каждому объекту — не чаще одного оповещения в 5 минут; неудачные доставки повторяются с нарастающей паузой.",
    webhook_field: "URL вебхука",
    webhook_current: "Оповещения уходят на",
    webhook_none: "Вебхук не задан: оповещения не отправляются.",
    webhook_from_env: "Задан через KNOTROUTE_CONTROL_ALERT_WEBHOOK; измените его там и перезапустите Control.",
    webhook_replace: "Сохранённый URL не показывается целиком (в нём может быть токен). Введите URL, чтобы заменить его.",
    save: "Сохранить",
    saved: "Сохранено.",
    turn_off: "Отключить оповещения",
    turn_off_explain: "URL вебхука будет забыт, оповещения больше не отправляются. Ожидающие доставки оповещения тоже не будут отправлены.",
    send_test: "Отправить тестовое оповещение",
    test_delivered: "Доставлено.",
    test_failed: "Не доставлено:",
    test_failed_see_below: "причина — в списке последних оповещений.",
    recent_title: "Последние оповещения",
    recent_empty: "Оповещений ещё не было.",
    col_when: "Когда",
    col_event: "Событие",
    col_text: "Сообщение",
    col_status: "Доставка",
    attempts: "попыток",
    approval_title: "Новые Agent",
    approval_intro: "Любой, кто знает общий токен подключения (KNOTROUTE_CONTROL_ENROLL_TOKEN), может подключить хост. Пока одобрение включено, такой Agent ждёт, пока администратор сравнит отпечаток его ключа и одобрит его: до этого он не получает задач и не входит ни в одну сеть. Agent, подключённый по токену установки, одобрен администратором, создавшим токен, если токен не создан с требованием одобрения.",
    approval_field: "Agent, подключённые по общему токену, ждут одобрения",
    approval_on: "Включено: Agent, подключённые по общему токену, ждут одобрения администратора.",
    approval_off: "Выключено: Agent, подключённые по общему токену, одобряются сразу.",
};

/// The API tokens section of the Settings screen.
pub struct TokenTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub name_field: &'static str,
    pub name_placeholder: &'static str,
    pub scope_field: &'static str,
    pub scope_read: &'static str,
    pub scope_write: &'static str,
    pub create: &'static str,
    pub shown_once: &'static str,
    pub usage: &'static str,
    pub empty: &'static str,
    pub col_name: &'static str,
    pub col_token: &'static str,
    pub col_scope: &'static str,
    pub col_created: &'static str,
    pub col_last_used: &'static str,
    pub never: &'static str,
    pub revoke: &'static str,
    pub revoke_explain: &'static str,
    pub revoked: &'static str,
    pub not_for_role: &'static str,
}

const TOKENS_EN: TokenTexts = TokenTexts {
    title: "API tokens",
    intro: "Scripts call the API at /api/v1 with a token instead of the admin password. A read token may only GET; a write token may do what the API allows, except manage tokens.",
    name_field: "Name",
    name_placeholder: "e.g. nightly backup script",
    scope_field: "Scope",
    scope_read: "read: GET only",
    scope_write: "write: read and change",
    create: "Create token",
    shown_once: "Copy the token now: it is shown only this once, and Control keeps only its hash.",
    usage: "Send it as:",
    empty: "No API token yet.",
    col_name: "Name",
    col_token: "Token",
    col_scope: "Scope",
    col_created: "Created",
    col_last_used: "Last used",
    never: "never",
    revoke: "Revoke",
    revoke_explain: "Scripts using this token are refused from now on. This cannot be undone; create a new token if needed.",
    revoked: "revoked",
    not_for_role: "Your role (viewer) only reads, so it has no API tokens.",
};

const TOKENS_RU: TokenTexts = TokenTexts {
    title: "API-токены",
    intro: "Скрипты обращаются к API по /api/v1 с токеном вместо пароля администратора. Токен read может только GET; токен write может всё, что позволяет API, кроме управления токенами.",
    name_field: "Название",
    name_placeholder: "например, скрипт ночного бэкапа",
    scope_field: "Права",
    scope_read: "read: только GET",
    scope_write: "write: чтение и изменение",
    create: "Создать токен",
    shown_once: "Скопируйте токен сейчас: он показывается только один раз, Control хранит лишь его хеш.",
    usage: "Передавайте его так:",
    empty: "API-токенов пока нет.",
    col_name: "Название",
    col_token: "Токен",
    col_scope: "Права",
    col_created: "Создан",
    col_last_used: "Использован",
    never: "никогда",
    revoke: "Отозвать",
    revoke_explain: "Скрипты с этим токеном с этого момента получают отказ. Отменить нельзя; при необходимости создайте новый токен.",
    revoked: "отозван",
    not_for_role: "Ваша роль (viewer) только читает, поэтому API-токенов у неё нет.",
};

/// The Control identity section of Settings.
pub struct IdentityTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub public_key: &'static str,
    pub fingerprint: &'static str,
    pub since: &'static str,
    pub previous: &'static str,
    pub previous_until: &'static str,
    pub rotate_how: &'static str,
}

const IDENTITY_EN: IdentityTexts = IdentityTexts {
    title: "Control identity",
    intro: "Control signs every job and answer it sends to Agents with this key. Agents pin it when they enroll and refuse anything it did not sign, so a server that takes over Control's address cannot run containers on your hosts. Install snippets pin it in advance with KNOTROUTE_AGENT_CONTROL_KEY.",
    public_key: "Public key",
    fingerprint: "Fingerprint",
    since: "Since",
    previous: "Previous key, still signing during the rotation",
    previous_until: "until",
    rotate_how: "To rotate it, run `knotroute-control identity rotate` on the server: online Agents move to the new key by themselves.",
};

const IDENTITY_RU: IdentityTexts = IdentityTexts {
    title: "Идентичность Control",
    intro: "Этим ключом Control подписывает каждую задачу и каждый ответ для Agent. Agent закрепляет этот ключ при подключении и отвергает всё, что не подписано им, поэтому сервер, захвативший адрес Control, не сможет запускать контейнеры на ваших хостах. Сниппеты установки закрепляют его заранее через KNOTROUTE_AGENT_CONTROL_KEY.",
    public_key: "Открытый ключ",
    fingerprint: "Отпечаток",
    since: "С",
    previous: "Предыдущий ключ, ещё подписывает на время смены",
    previous_until: "до",
    rotate_how: "Чтобы сменить ключ, выполните на сервере `knotroute-control identity rotate`: каждый Agent в сети перейдёт на новый ключ сам.",
};

pub fn identity_texts(lang: Lang) -> &'static IdentityTexts {
    match lang {
        Lang::En => &IDENTITY_EN,
        Lang::Ru => &IDENTITY_RU,
    }
}

pub fn token_texts(lang: Lang) -> &'static TokenTexts {
    match lang {
        Lang::En => &TOKENS_EN,
        Lang::Ru => &TOKENS_RU,
    }
}

pub fn settings_texts(lang: Lang) -> &'static SettingsTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}
