//! The setup checklist and the operations policy: the screens' own words.
//! (Each step's title, reason and state sentence come from the server.)

use protocol::setup::{Knowledge, StepState};
use protocol::Lang;

pub struct SetupTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub link: &'static str,
    pub back_to_network: &'static str,
    pub why: &'static str,
    pub skip: &'static str,
    pub unskip: &'static str,
    pub skipped_by: &'static str,
    pub bootstrap_title: &'static str,
    pub bootstrap_intro: &'static str,
    /// "{done} of {total} steps done".
    pub progress: &'static str,
    /// "{n} skipped by choice".
    pub progress_skipped: &'static str,
    pub next: &'static str,
    pub overview_title: &'static str,
    pub overview_empty: &'static str,
    pub overview_new: &'static str,
    /// "{n} more networks: open each from the list".
    pub overview_more: &'static str,
    // The operations policy.
    pub policy_title: &'static str,
    pub policy_intro: &'static str,
    pub policy_known: &'static str,
    pub policy_access: &'static str,
    pub policy_backups: &'static str,
    pub policy_release: &'static str,
    pub policy_alerts: &'static str,
    pub policy_written: &'static str,
    pub policy_relays: &'static str,
    pub policy_revocation: &'static str,
    pub policy_use_template: &'static str,
    pub policy_save: &'static str,
    pub policy_saved: &'static str,
    pub policy_markdown: &'static str,
    /// "Last changed {at} by {by}".
    pub policy_changed: &'static str,
    pub policy_not_for_role: &'static str,
    pub all_networks: &'static str,
    pub disabled: &'static str,
}

const EN: SetupTexts = SetupTexts {
    title: "Setup checklist",
    intro: "The ten steps of a first KnotRoute network, each checked against what Control sees. Steps Control cannot see say why; skip the ones you leave out on purpose.",
    link: "Setup checklist",
    back_to_network: "Back to the network",
    why: "Why it matters:",
    skip: "Skip by choice",
    unskip: "Take back into the checklist",
    skipped_by: "Skipped by {by} on {at}.",
    bootstrap_title: "Bootstrap complete?",
    bootstrap_intro: "The guide's final test. Control marks what it has seen and says why it cannot see the rest.",
    progress: "{done} of {total} steps done",
    progress_skipped: "{n} skipped by choice",
    next: "Next:",
    overview_title: "Network setup",
    overview_empty: "No network yet: create one and its setup checklist appears here.",
    overview_new: "Create a network",
    overview_more: "{n} more networks: open each one's checklist from its page",
    policy_title: "Operations policy",
    policy_intro: "What whoever runs this network needs written down. Control fills in what it knows; you write the rest.",
    policy_known: "What Control knows",
    policy_access: "Who has access",
    policy_backups: "Where identity backups are kept",
    policy_release: "Release channel",
    policy_alerts: "Who receives alerts",
    policy_written: "What you write down",
    policy_relays: "How relays are added",
    policy_revocation: "How a compromised host is revoked",
    policy_use_template: "Start from the template",
    policy_save: "Save",
    policy_saved: "Saved.",
    policy_markdown: "Download as Markdown",
    policy_changed: "Last changed {at} by {by}.",
    policy_not_for_role: "Only those who may change settings read and write the operations policy.",
    all_networks: "all networks",
    disabled: "disabled",
};

const RU: SetupTexts = SetupTexts {
    title: "Список настройки",
    intro: "Десять шагов первой сети KnotRoute, каждый сверен с тем, что видит Control. Шаги, которых Control не видит, объясняют почему; пропустите те, что оставляете намеренно.",
    link: "Список настройки",
    back_to_network: "К сети",
    why: "Зачем это нужно:",
    skip: "Пропустить по выбору",
    unskip: "Вернуть в список",
    skipped_by: "Пропущен: {by}, {at}.",
    bootstrap_title: "Запуск завершён?",
    bootstrap_intro: "Итоговая проверка из руководства. Control отмечает то, что видел, и объясняет, почему не видит остального.",
    progress: "Готово шагов: {done} из {total}",
    progress_skipped: "пропущено по выбору: {n}",
    next: "Дальше:",
    overview_title: "Настройка сетей",
    overview_empty: "Сетей пока нет: создайте сеть, и здесь появится её список настройки.",
    overview_new: "Добавить сеть",
    overview_more: "Ещё сетей: {n}; список настройки каждой — на её странице",
    policy_title: "Политика эксплуатации",
    policy_intro: "То, что должен знать тот, кто ведёт эту сеть. Control заполняет то, что знает сам; остальное запишите вы.",
    policy_known: "Что знает Control",
    policy_access: "У кого есть доступ",
    policy_backups: "Где хранятся резервные копии идентичностей",
    policy_release: "Канал выпусков",
    policy_alerts: "Кто получает оповещения",
    policy_written: "Что записываете вы",
    policy_relays: "Как добавляются relay",
    policy_revocation: "Как отзывается скомпрометированный хост",
    policy_use_template: "Начать с шаблона",
    policy_save: "Сохранить",
    policy_saved: "Сохранено.",
    policy_markdown: "Скачать в Markdown",
    policy_changed: "Изменено {at}, {by}.",
    policy_not_for_role: "Политику эксплуатации читают и пишут только те, кто может менять настройки.",
    all_networks: "все сети",
    disabled: "отключён",
};

pub fn setup_texts(lang: Lang) -> &'static SetupTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

pub fn state_label(state: StepState, lang: Lang) -> &'static str {
    match (state, lang) {
        (StepState::Done, Lang::En) => "Done",
        (StepState::Done, Lang::Ru) => "Готово",
        (StepState::NotYet, Lang::En) => "Not yet",
        (StepState::NotYet, Lang::Ru) => "Ещё нет",
        (StepState::CantTell, Lang::En) => "Can't tell",
        (StepState::CantTell, Lang::Ru) => "Не видно",
        (StepState::Skipped, Lang::En) => "Skipped by choice",
        (StepState::Skipped, Lang::Ru) => "Пропущен по выбору",
    }
}

pub fn knowledge_label(knowledge: Knowledge, lang: Lang) -> &'static str {
    match (knowledge, lang) {
        (Knowledge::Proven, Lang::En) => "Seen",
        (Knowledge::Proven, Lang::Ru) => "Видно",
        (Knowledge::NotYet, Lang::En) => "Not yet",
        (Knowledge::NotYet, Lang::Ru) => "Ещё нет",
        (Knowledge::Unknown, Lang::En) => "Unknown to Control",
        (Knowledge::Unknown, Lang::Ru) => "Control не знает",
    }
}
