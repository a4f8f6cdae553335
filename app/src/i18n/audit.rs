//! Texts of the Audit log screen in English and Russian.

use crate::i18n::Lang;

pub struct AuditTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub empty: &'static str,
    pub empty_filtered: &'static str,
    pub filter_action: &'static str,
    pub filter_person: &'static str,
    pub filter_subject: &'static str,
    pub any: &'static str,
    pub apply: &'static str,
    pub col_when: &'static str,
    pub col_who: &'static str,
    pub col_what: &'static str,
    pub col_subject: &'static str,
    pub col_detail: &'static str,
    pub older: &'static str,
    pub newest: &'static str,
}

const EN: AuditTexts = AuditTexts {
    title: "Audit log",
    intro: "Who did what, and when: sign-ins aside, every change to networks, Agents, install tokens and jobs, by an admin, an Agent or Control itself.",
    empty: "Nothing has happened yet.",
    empty_filtered: "No entry matches these filters.",
    filter_action: "Action",
    filter_person: "Person (owner, user:<name>)",
    filter_subject: "Subject (ID)",
    any: "any",
    apply: "Filter",
    col_when: "When",
    col_who: "Who",
    col_what: "What",
    col_subject: "Subject",
    col_detail: "Detail",
    older: "Older entries",
    newest: "Newest entries",
};

const RU: AuditTexts = AuditTexts {
    title: "Журнал аудита",
    intro: "Кто, что и когда сделал: все изменения сетей, Agent, токенов установки и задач — администратором, Agent или самим Control.",
    empty: "Пока ничего не произошло.",
    empty_filtered: "Под эти условия ничего не подходит.",
    filter_action: "Действие",
    filter_person: "Кто (owner, user:<имя>)",
    filter_subject: "Объект (ID)",
    any: "любое",
    apply: "Показать",
    col_when: "Когда",
    col_who: "Кто",
    col_what: "Что",
    col_subject: "Объект",
    col_detail: "Подробности",
    older: "Более ранние записи",
    newest: "Самые новые записи",
};

pub fn audit_texts(lang: Lang) -> &'static AuditTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}
