//! Screens, one module each, and the frame they share.

pub mod agent;
pub mod agent_jobs;
pub mod api_tokens;
pub mod audit;
pub mod badges;
pub mod beacons;
pub mod choice_search;
pub mod copy;
pub mod deploy_beacon;
pub mod diagnose;
pub mod form_errors;
pub mod infrastructure;
pub mod job;
pub mod job_form;
pub mod job_log;
pub mod jobs;
pub mod layout;
pub mod login;
pub mod network_form;
pub mod networks;
pub mod on_demand;
pub mod onboarding;
pub mod overview;
pub mod plain_action;
pub mod policy;
pub mod probe;
pub mod revoked_keys;
pub mod service_backup;
pub mod service_form;
pub mod services;
pub mod settings;
pub mod setup;
pub mod sparkline;
pub mod two_step;
pub mod two_step_link;
pub mod user_invite;
pub mod user_networks;
pub mod users;

use crate::error::UiError;
use crate::i18n::texts;
use crate::use_lang;
use leptos::prelude::*;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    // No admin frame: unknown paths are also reached by people who are not signed in.
    let t = texts(use_lang());
    view! {
        <main class="content">
            <h1>{t.not_found}</h1>
            <p><a href="/">{t.product}</a></p>
        </main>
    }
}

/// How a screen shows what it loads: "Loading…" until the first answer, a
/// refusal as [`LoadError`], else `show` of the answer (its empty state
/// included). A re-read after a live update keeps the last answer on screen
/// until the new one arrives (a `Transition`), so lists do not flicker.
///
/// `load` awaits the resources the part needs, e.g. `move || async move {
/// jobs.await }`; it is called inside the transition, so they are tracked.
pub fn loaded<T, V, Answer>(
    load: impl Fn() -> Answer + Send + Sync + 'static,
    show: impl Fn(T) -> V + Send + Sync + 'static,
) -> impl IntoView
where
    Answer: std::future::Future<Output = Result<T, UiError>> + Send + 'static,
    T: Send + 'static,
    V: IntoView + 'static,
{
    let t = texts(use_lang());
    let show = std::sync::Arc::new(show);
    view! {
        <Transition fallback=move || view! { <p class="muted">{t.loading}</p> }>
            {move || {
                let answer = load();
                let show = show.clone();
                Suspend::new(async move {
                    match answer.await {
                        Err(e) => view! { <LoadError error=e /> }.into_any(),
                        Ok(value) => show(value).into_any(),
                    }
                })
            }}
        </Transition>
    }
}

/// How a page shows a failed load: a sign-in link for an ended session, else the message.
#[component]
pub fn LoadError(error: UiError) -> impl IntoView {
    let lang = use_lang();
    let message = error.message(lang);
    let sign_in = matches!(error, UiError::Unauthenticated);
    view! {
        <p class="alert error" role="alert">
            {message}
            {sign_in.then(|| view! { " " <a href="/login" rel="external">{texts(lang).sign_in}</a> })}
        </p>
    }
}

/// When an Agent was last heard from, as "12 s ago", with the exact time on
/// hover and for screen readers; "never" before its first heartbeat.
#[component]
pub fn LastSeen(
    /// The last heartbeat (RFC 3339).
    at: Option<String>,
    /// Seconds since then, as of the view.
    secs: Option<u64>,
) -> impl IntoView {
    let lang = use_lang();
    match (at, secs) {
        (Some(at), Some(secs)) => {
            let exact = infrastructure::when(&at);
            view! {
                <time class="last-seen" datetime=at title=exact.clone() aria-label=exact>
                    {crate::i18n::overview::ago(lang, secs)}
                </time>
            }
            .into_any()
        }
        _ => view! { <span class="last-seen muted">{crate::i18n::infra::infra_texts(lang).never}</span> }
            .into_any(),
    }
}
