//! The sign-in screen.

use crate::api::{SignIn, SIGN_IN_PATH};
use crate::error::UiError;
use crate::i18n::sso::sso_texts;
use crate::i18n::texts;
use crate::i18n::two_step::two_step_texts;
use crate::pages::plain_action::refusal_in_address;
use crate::pages::two_step::{EnrollmentView, RecoveryCodesView};
use crate::{use_lang, use_sso_offer};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// Only local paths are followed after sign-in, so a crafted link cannot send
/// the admin to another site.
pub fn safe_next(next: Option<String>) -> String {
    match next {
        Some(n) if is_local_path(&n) => n,
        _ => "/".to_string(),
    }
}

/// A path on this site: starts with one `/`, not `//` or `/\` (which browsers
/// read as another host), and no control characters (browsers strip tabs and
/// line breaks, so `/\t/evil` would become `//evil`).
fn is_local_path(n: &str) -> bool {
    let mut chars = n.chars();
    // Kept with a sign-in through the provider, in 2048 characters at most.
    n.len() <= 2000
        && chars.next() == Some('/')
        && !matches!(chars.next(), Some('/') | Some('\\'))
        && !n.chars().any(|c| c.is_control() || c == '\\')
}

/// Where a sign-in through the OpenID provider begins (the server's
/// `domain::access::sso::START_PATH`).
const SSO_START_PATH: &str = "/auth/oidc/start";

/// `s` as one query value.
fn urlencoded(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[component]
pub fn LoginPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let query = use_query_map();
    let query = query.read_untracked();
    // A sign-in sent as a plain form (before or without WebAssembly) comes
    // back here with its refusal in the address.
    let refused = refusal_in_address(&query, &[SIGN_IN_PATH]).map(|refusal| refusal.message(lang));
    let next = safe_next(query.get("next"));
    let sso_start = use_sso_offer().map(|offer| {
        let href = format!("{SSO_START_PATH}?next={}", urlencoded(&next));
        (offer.0, href)
    });
    view! {
        <Title text=format!("{} · {}", t.sign_in_title, t.product) />
        <main class="login">
            <SignInForm
                next
                welcome_set_up=query.get("two_step").as_deref() == Some("setup")
                sso_why=query.get("sso")
                sso_start
                refused
            />
        </main>
    }
}

/// The sign-in form with its second step (a code, or setting up an
/// authenticator app) and the recovery codes handed out by that set-up.
/// An island (crate::islands), lazy and preloaded, so that the main module
/// of every other screen does not carry it: `next` is where to go once
/// signed in (already checked by [`safe_next`]), `sso_why` why a sign-in
/// through the provider came back here, `sso_start` the provider's name and
/// where its sign-in begins, `refused` why a sign-in sent as a plain form
/// was turned down.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn SignInForm(
    next: String,
    welcome_set_up: bool,
    sso_why: Option<String>,
    sso_start: Option<(String, String)>,
    refused: Option<String>,
) -> impl IntoView {
    crate::islands::preload_island("sign_in_form_loader");
    let lang = use_lang();
    let t = texts(lang);
    let sign_in = ServerAction::<SignIn>::new();
    let name = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let code = RwSignal::new(String::new());
    let tt = two_step_texts(lang);
    // Once the password was right and a code is asked for, the code field
    // stays (a wrong code is answered on it); with set-up, so does the QR.
    let asked_for_code = RwSignal::new(false);
    let enrollment = RwSignal::new(None);
    // Recovery codes from a sign-in that set up the second factor: shown
    // before going on, since they are never shown again.
    let recovery_codes = RwSignal::new(Vec::<String>::new());
    let next = StoredValue::new(next);
    let go_on = move || {
        if let Some(w) = web_sys::window() {
            // A full load, so every page is rendered with the new session.
            next.with_value(|next| w.location().set_href(next)).ok();
        }
    };
    Effect::new(move |_| match sign_in.value().get() {
        Some(Ok(codes)) if codes.is_empty() => go_on(),
        Some(Ok(codes)) => recovery_codes.set(codes),
        Some(Err(UiError::CodeNeeded)) => asked_for_code.set(true),
        Some(Err(UiError::SetUpSecondFactor(e))) => {
            asked_for_code.set(true);
            enrollment.set(Some(*e));
        }
        _ => {}
    });
    let refused = StoredValue::new(refused);
    let error = move || match sign_in.value().get() {
        // Until this form is sent, the plain form's refusal, if any.
        None => refused.get_value(),
        Some(answer) => answer
            .err()
            .filter(|e| e.for_field("code").is_none())
            .map(|e| e.message(lang)),
    };
    let code_error = move || {
        sign_in
            .value()
            .get()
            .and_then(|r| r.err())
            .and_then(|e| e.for_field("code").map(|f| f.message(lang)))
    };
    let welcome_says = welcome_set_up.then(
        || view! { <p class="alert" id="two-step-notice" role="status">{tt.welcome_set_up}</p> },
    );
    let st = sso_texts(lang);
    let sso_says = sso_why.and_then(|why| st.why(&why));
    let sso = sso_start.map(|(provider, start)| {
        view! {
            // `rel="external"`: a full page load to the server, not a route of the app.
            <a class="button primary sso-sign-in" id="sso-sign-in" href=start rel="external">
                {format!("{} {}", st.sign_in_with, provider)}
            </a>
            <p class="muted sso-or">{st.or_password}</p>
        }
    });
    // Built apart and type-erased: nested in the form's view, their types
    // exceed the compiler's depth limit.
    let codes_panel = view! {
            <Show when=move || !recovery_codes.get().is_empty()>
                <section class="card login-card" id="recovery-codes-after-sign-in">
                    <RecoveryCodesView codes=recovery_codes.get() />
                    <button type="button" class="primary" id="codes-saved" on:click=move |_| go_on()>
                        {tt.codes_saved}
                    </button>
                </section>
            </Show>
    }
    .into_any();
    let code_step = view! {
                <Show when=move || asked_for_code.get()>
                    {move || enrollment.get().map(|e| view! { <EnrollmentView enrollment=e /> })}
                    <label for="code">{tt.code}</label>
                    <input
                        id="code"
                        name="code"
                        autocomplete="one-time-code"
                        autocapitalize="none"
                        spellcheck="false"
                        required
                        autofocus
                        prop:value=move || code.get()
                        on:input=move |ev| code.set(event_target_value(&ev))
                        aria-invalid=move || code_error().is_some().then_some("true")
                        aria-describedby="code-hint code-error"
                    />
                    <p id="code-hint" class="muted">{tt.code_hint}</p>
                    <p id="code-error" class="field-error" role="alert">{code_error}</p>
                </Show>
    }
    .into_any();
    view! {
        {codes_panel}
        // method/action matter only if someone submits before the page has
        // hydrated: the password then goes in a POST body to the sign-in
        // function, never into the URL of a GET.
        <form
            hidden=move || !recovery_codes.get().is_empty()
            class="card login-card"
            method="post"
            action=SIGN_IN_PATH
            on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                sign_in.dispatch(SignIn {
                    name: name.get_untracked(),
                    password: password.get_untracked(),
                    code: asked_for_code.get_untracked().then(|| code.get_untracked()),
                });
            }
        >
            <h1>{t.product}</h1>
            {sso_says.map(|says| view! { <p class="alert" id="sso-notice" role="status">{says}</p> })}
            {welcome_says}
            {sso}
            <p class="muted">{t.sign_in_intro}</p>
            <label for="name">{t.user_name}</label>
            <input
                id="name"
                name="name"
                autocomplete="username"
                autocapitalize="none"
                spellcheck="false"
                autofocus
                prop:value=move || name.get()
                on:input=move |ev| name.set(event_target_value(&ev))
                aria-describedby="name-hint"
            />
            <p id="name-hint" class="muted">{t.user_name_hint}</p>
            <label for="password">{t.password}</label>
            <input
                id="password"
                name="password"
                type="password"
                autocomplete="current-password"
                required
                prop:value=move || password.get()
                on:input=move |ev| password.set(event_target_value(&ev))
                // Not when the password was right and a code is what is missing.
                aria-invalid=move || {
                    let asks_for_code = matches!(
                        sign_in.value().get(),
                        Some(Err(UiError::CodeNeeded | UiError::SetUpSecondFactor(_)))
                    );
                    (error().is_some() && !asks_for_code).then_some("true")
                }
                aria-describedby="login-error"
            />
            <p id="login-error" class="field-error" role="alert">
                {error}
            </p>
            {code_step}
            <button type="submit" class="primary" disabled=move || sign_in.pending().get()>
                {move || match (sign_in.pending().get(), asked_for_code.get()) {
                    (true, _) => t.signing_in,
                    (false, true) => tt.verify,
                    (false, false) => t.sign_in,
                }}
            </button>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::safe_next;

    #[test]
    fn only_local_paths_are_followed_after_sign_in() {
        assert_eq!(safe_next(Some("/networks".into())), "/networks");
        assert_eq!(safe_next(Some("//evil.example".into())), "/");
        assert_eq!(safe_next(Some("https://evil.example".into())), "/");
        assert_eq!(safe_next(Some("/\\evil.example".into())), "/");
        assert_eq!(safe_next(None), "/");
        assert_eq!(safe_next(Some("/\t/evil.example".into())), "/");
        assert_eq!(safe_next(Some("/\n/evil.example".into())), "/");
        let long = format!("/jobs?q={}", "x".repeat(2000));
        assert_eq!(safe_next(Some(long)), "/", "too long to keep for a sign-in");
        assert_eq!(
            safe_next(Some("/networks?after=kn_x".into())),
            "/networks?after=kn_x"
        );
    }

    #[test]
    fn the_next_path_travels_to_the_provider_as_one_query_value() {
        assert_eq!(
            super::urlencoded("/jobs?state=failed&x=1 2"),
            "/jobs%3Fstate%3Dfailed%26x%3D1%202"
        );
    }
}
