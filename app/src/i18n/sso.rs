//! Single sign-on on the sign-in screen: the button, and what the screen
//! says when a sign-in through the provider comes back without a session
//! (`?sso=<why>`, set by the server's `http::sso`).

use protocol::Lang;

pub struct SsoTexts {
    /// Before the provider's name on the button.
    pub sign_in_with: &'static str,
    /// Between the button and the password form.
    pub or_password: &'static str,
    pub pending: &'static str,
    pub disabled: &'static str,
    pub expired: &'static str,
    pub refused: &'static str,
    pub failed: &'static str,
    pub unavailable: &'static str,
}

const EN: SsoTexts = SsoTexts {
    sign_in_with: "Sign in with",
    or_password: "or with a name and password",
    pending: "You are signed in at the provider, but your account has no role here yet. The owner of this Control has been asked to approve it; sign in again once they have.",
    disabled: "Your account is disabled in this Control. Ask its owner.",
    expired: "That sign-in took too long or was already used. Start again.",
    refused: "The identity provider did not sign you in. Start again, or ask your administrator.",
    failed: "Signing in through the identity provider failed. Try again; if it keeps failing, the server's log says why.",
    unavailable: "The identity provider cannot be reached right now. Try again in a minute, or sign in with a password.",
};

const RU: SsoTexts = SsoTexts {
    sign_in_with: "Войти через",
    or_password: "или по имени и паролю",
    pending: "Вы вошли у провайдера, но у вашей учётной записи здесь пока нет роли. Владельцу этого Control отправлен запрос на одобрение; войдите снова, когда он одобрит.",
    disabled: "Ваша учётная запись в этом Control отключена. Обратитесь к его владельцу.",
    expired: "Вход занял слишком много времени или уже был использован. Начните заново.",
    refused: "Провайдер удостоверений не выполнил вход. Начните заново или обратитесь к администратору.",
    failed: "Вход через провайдера удостоверений не удался. Повторите; если ошибка повторяется, причина — в журнале сервера.",
    unavailable: "Провайдер удостоверений сейчас недоступен. Повторите через минуту или войдите с паролем.",
};

pub fn sso_texts(lang: Lang) -> &'static SsoTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

impl SsoTexts {
    /// What the sign-in screen says for `?sso=<why>`; nothing for a word
    /// it does not know (a hand-made link shows no made-up message).
    pub fn why(&self, why: &str) -> Option<&'static str> {
        Some(match why {
            "pending" => self.pending,
            "disabled" => self.disabled,
            "expired" => self.expired,
            "refused" => self.refused,
            "failed" => self.failed,
            "unavailable" => self.unavailable,
            _ => return None,
        })
    }
}
