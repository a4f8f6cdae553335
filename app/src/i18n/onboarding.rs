//! Texts of the Onboarding screen in English and Russian. A missing
//! translation is a compile error.

use crate::i18n::Lang;
use protocol::onboarding::Platform;
use protocol::InviteState;

pub struct OnboardingTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub onboard_users: &'static str,
    pub field_network: &'static str,
    pub choose_network: &'static str,
    pub field_text_lang: &'static str,
    pub show: &'static str,
    pub no_networks: &'static str,
    pub pick_network: &'static str,
    pub platforms: &'static str,
    pub deep_link: &'static str,
    pub qr_title: &'static str,
    pub copy_all: &'static str,
    pub copied: &'static str,
    pub select_to_copy: &'static str,
    pub invites_title: &'static str,
    pub invites_intro: &'static str,
    pub field_invite_name: &'static str,
    pub field_expires: &'static str,
    pub field_max_opens: &'static str,
    pub limits_hint: &'static str,
    pub create_invite: &'static str,
    pub invite_once: &'static str,
    pub invites_empty: &'static str,
    pub col_network: &'static str,
    pub col_state: &'static str,
    pub col_opens: &'static str,
    pub col_expires: &'static str,
    pub never: &'static str,
    pub revoke: &'static str,
    pub revoke_title: &'static str,
    pub revoke_explain: &'static str,
}

const EN: OnboardingTexts = OnboardingTexts {
    title: "Onboarding",
    intro: "Hand a network to its users: pick a profile and a platform, then share the steps, the link or the QR code — or create an invite page that shows them everything on their phone.",
    onboard_users: "Onboard users to this network →",
    field_network: "Network profile",
    choose_network: "Choose a profile",
    field_text_lang: "Language of the instructions",
    show: "Show",
    no_networks: "Create a network profile first: onboarding hands a profile to its users.",
    pick_network: "Choose a network profile above to see its instructions.",
    platforms: "Platform",
    deep_link: "Deep link (opens the KnotRoute app)",
    qr_title: "QR code of the deep link",
    copy_all: "Copy all instructions",
    copied: "Copied",
    select_to_copy: "No clipboard over plain HTTP: select the text and copy it",
    invites_title: "Invites",
    invites_intro: "An invite is a public page at …/join/<token> with the steps for the visitor's device, the link and the QR code. It holds connection metadata only — Network ID, Beacon URLs, name — never keys.",
    field_invite_name: "Name shown to users (empty: the profile's name)",
    field_expires: "Expires after hours (empty: never)",
    field_max_opens: "Maximum opens (empty: unlimited)",
    limits_hint: "Opens count distinct browsers; a visitor's reloads count once.",
    create_invite: "Create invite",
    invite_once: "Copy the link now: Control keeps only a hash of it and cannot show it again.",
    invites_empty: "No invites yet.",
    col_network: "Network",
    col_state: "State",
    col_opens: "Opens",
    col_expires: "Expires",
    never: "never",
    revoke: "Revoke",
    revoke_title: "Revoke this invite?",
    revoke_explain: "The invite page stops opening at once and tells visitors the invite was withdrawn; devices that already joined keep working.",
};

const RU: OnboardingTexts = OnboardingTexts {
    title: "Подключение",
    intro: "Передайте сеть пользователям: выберите профиль и платформу и поделитесь шагами, ссылкой или QR-кодом — или создайте страницу-приглашение, которая покажет всё это на телефоне.",
    onboard_users: "Подключить пользователей к этой сети →",
    field_network: "Сетевой профиль",
    choose_network: "Выберите профиль",
    field_text_lang: "Язык инструкций",
    show: "Показать",
    no_networks: "Сначала создайте сетевой профиль: подключение передаёт пользователям профиль.",
    pick_network: "Выберите сетевой профиль выше, чтобы увидеть инструкции.",
    platforms: "Платформа",
    deep_link: "Ссылка для приложения KnotRoute",
    qr_title: "QR-код ссылки",
    copy_all: "Копировать все инструкции",
    copied: "Скопировано",
    select_to_copy: "Без HTTPS буфер обмена недоступен: выделите текст и скопируйте",
    invites_title: "Приглашения",
    invites_intro: "Приглашение — публичная страница …/join/<токен> с шагами для устройства посетителя, ссылкой и QR-кодом. Она содержит только параметры подключения — Network ID, адреса Beacon, имя — и никогда не содержит ключей.",
    field_invite_name: "Имя для пользователей (пусто: имя профиля)",
    field_expires: "Срок действия в часах (пусто: бессрочно)",
    field_max_opens: "Максимум открытий (пусто: без ограничения)",
    limits_hint: "Открытия считаются по браузерам; повторные загрузки одного посетителя считаются один раз.",
    create_invite: "Создать приглашение",
    invite_once: "Скопируйте ссылку сейчас: Control хранит только её хеш и не сможет показать её снова.",
    invites_empty: "Приглашений пока нет.",
    col_network: "Сеть",
    col_state: "Состояние",
    col_opens: "Открытия",
    col_expires: "Истекает",
    never: "никогда",
    revoke: "Отозвать",
    revoke_title: "Отозвать приглашение?",
    revoke_explain: "Страница приглашения сразу перестанет открываться и сообщит посетителям, что приглашение отозвано; уже подключённые устройства продолжат работать.",
};

pub fn onboarding_texts(lang: Lang) -> &'static OnboardingTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

/// How a platform is called on the screen.
pub fn platform_label(platform: Platform) -> &'static str {
    match platform {
        Platform::Windows => "Windows",
        Platform::Android => "Android",
        Platform::Ios => "iPhone / iPad",
        Platform::Linux => "Linux",
        Platform::Docker => "Docker",
        Platform::Raw => "JSON",
    }
}

/// An invite's state in words.
pub fn invite_state(state: InviteState, lang: Lang) -> &'static str {
    match (state, lang) {
        (InviteState::Active, Lang::En) => "active",
        (InviteState::Active, Lang::Ru) => "действует",
        (InviteState::Expired, Lang::En) => "expired",
        (InviteState::Expired, Lang::Ru) => "истекло",
        (InviteState::Revoked, Lang::En) => "revoked",
        (InviteState::Revoked, Lang::Ru) => "отозвано",
        (InviteState::UsedUp, Lang::En) => "used up",
        (InviteState::UsedUp, Lang::Ru) => "исчерпано",
    }
}
