//! The Users section of Settings.

use protocol::Lang;

pub struct UserTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub role_field: &'static str,
    pub invite: &'static str,
    pub link_once: &'static str,
    pub link_expires: &'static str,
    pub empty: &'static str,
    pub col_name: &'static str,
    pub col_role: &'static str,
    pub col_last_sign_in: &'static str,
    pub col_sessions: &'static str,
    pub never: &'static str,
    pub disabled: &'static str,
    pub disable: &'static str,
    pub disable_explain: &'static str,
    pub enable: &'static str,
    pub end_sessions: &'static str,
    pub end_sessions_explain: &'static str,
    pub delete: &'static str,
    pub delete_explain: &'static str,
    pub change_role: &'static str,
    pub change_role_explain: &'static str,
}

const EN: UserTexts = UserTexts {
    title: "Users",
    intro: "People who administer this Control, each with a role: viewer reads, operator runs deployments, jobs, Beacon checks and invites, admin does everything but people, owner everything. The break-glass owner account (the admin password from the environment) always works and is not listed.",
    role_field: "Role",
    invite: "Create invitation link",
    link_once: "Send this link to the person: it works once and is shown only now.",
    link_expires: "Expires",
    empty: "No users yet: invite someone with a link.",
    col_name: "Name",
    col_role: "Role",
    col_last_sign_in: "Last sign-in",
    col_sessions: "Open sessions",
    never: "never",
    disabled: "disabled",
    disable: "Disable",
    disable_explain: "The person is signed out everywhere and their API tokens are revoked at once. They cannot sign in until enabled again.",
    enable: "Enable",
    end_sessions: "Sign out everywhere",
    end_sessions_explain: "Every open session of this person ends now; they can sign in again.",
    delete: "Delete",
    delete_explain: "The person is removed, signed out everywhere, and their API tokens are revoked. This cannot be undone.",
    change_role: "Change role",
    change_role_explain: "The new role takes effect at the person's next request, in every open session.",
};

const RU: UserTexts = UserTexts {
    title: "Пользователи",
    intro: "Люди, которые администрируют этот Control, у каждого своя роль: viewer только смотрит, operator выполняет развёртывания, задачи, проверки Beacon и приглашения, admin может всё, кроме управления людьми, owner — всё. Аварийная учётная запись владельца (пароль администратора из окружения) работает всегда и здесь не показана.",
    role_field: "Роль",
    invite: "Создать ссылку-приглашение",
    link_once: "Отправьте эту ссылку человеку: она работает один раз и показывается только сейчас.",
    link_expires: "Истекает",
    empty: "Пользователей пока нет: пригласите кого-нибудь по ссылке.",
    col_name: "Имя",
    col_role: "Роль",
    col_last_sign_in: "Последний вход",
    col_sessions: "Открытые сеансы",
    never: "никогда",
    disabled: "отключён",
    disable: "Отключить",
    disable_explain: "Пользователь сразу выходит из всех сеансов, его API-токены отзываются. Войти он не сможет, пока его не включат снова.",
    enable: "Включить",
    end_sessions: "Завершить все сеансы",
    end_sessions_explain: "Все открытые сеансы этого пользователя завершатся сейчас; войти снова он сможет.",
    delete: "Удалить",
    delete_explain: "Пользователь удаляется, выходит из всех сеансов, его API-токены отзываются. Отменить нельзя.",
    change_role: "Сменить роль",
    change_role_explain: "Новая роль действует со следующего запроса пользователя во всех его сеансах.",
};

pub fn user_texts(lang: Lang) -> &'static UserTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}
