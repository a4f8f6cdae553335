//! Texts of the Settings screen in English and Russian.

use crate::i18n::Lang;

pub struct SettingsTexts {
    pub title: &'static str,
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
    pub sending: &'static str,
    pub test_delivered: &'static str,
    pub test_failed: &'static str,
    pub recent_title: &'static str,
    pub recent_empty: &'static str,
    pub col_when: &'static str,
    pub col_event: &'static str,
    pub col_text: &'static str,
    pub col_status: &'static str,
    pub attempts: &'static str,
}

const EN: SettingsTexts = SettingsTexts {
    title: "Settings",
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
    sending: "Sending…",
    test_delivered: "Delivered.",
    test_failed: "Not delivered:",
    recent_title: "Recent alerts",
    recent_empty: "No alert has been sent yet.",
    col_when: "When",
    col_event: "Event",
    col_text: "Message",
    col_status: "Delivery",
    attempts: "attempts",
};

const RU: SettingsTexts = SettingsTexts {
    title: "Настройки",
    alerts_title: "Оповещения",
    alerts_intro: "Control может отправлять JSON-оповещение на вебхук, когда агент уходит в офлайн или возвращается, задание завершается ошибкой, Beacon падает или восстанавливается, или сервис теряет адрес .knot. По каждому объекту — не чаще одного оповещения в 5 минут; неудачные доставки повторяются с нарастающей паузой.",
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
    sending: "Отправка…",
    test_delivered: "Доставлено.",
    test_failed: "Не доставлено:",
    recent_title: "Последние оповещения",
    recent_empty: "Оповещений ещё не было.",
    col_when: "Когда",
    col_event: "Событие",
    col_text: "Сообщение",
    col_status: "Доставка",
    attempts: "попыток",
};

pub fn settings_texts(lang: Lang) -> &'static SettingsTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}
