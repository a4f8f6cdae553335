//! Settings, in three tabs with URLs of their own, so that none carries the
//! others' code on a first load (issue 21: Settings in one screen was the
//! largest download of all). General: where alerts go (a webhook URL,
//! unless the environment sets it), a test alert, the latest alerts with how
//! their delivery went, the person's own two-step sign-in, and Control's
//! identity key. People (the owner's, `users`) and API tokens (`api_tokens`).

use super::badges::alert_badge;
use super::confirm::ConfirmDialog;
use super::form_errors::FormErrors;
use super::infrastructure::when;
use super::layout::{Frame, TabLinks};
use super::loaded;
use super::two_step::TwoStepSection;
use crate::api::settings::{settings_screen, SaveAlertWebhook, SendTestAlert, SettingsScreen};
use crate::error::UiError;
use crate::i18n::settings::{identity_texts, settings_texts, token_texts};
use crate::i18n::texts;
use crate::i18n::users::user_texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use protocol::actions::ActionKind;
use protocol::alerts::{AlertSettings, AlertView};
use protocol::api::ControlKeyView;

/// A Settings tab: the page's title and heading, the tabs, and `children`.
/// The People and API tokens tabs are shown to those who may use them.
#[component]
pub fn SettingsFrame(current: &'static str, children: Children) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let st = settings_texts(lang);
    let tabs = [
        ("/settings", st.general_tab, true),
        (
            "/settings/people",
            user_texts(lang).title,
            may(ActionKind::ManageUsers),
        ),
        (
            "/settings/tokens",
            token_texts(lang).title,
            may(ActionKind::ManageOwnApiTokens),
        ),
    ];
    let heading = tabs
        .iter()
        .find(|(href, _, _)| *href == current)
        .map_or(st.title, |(_, label, _)| *label);
    view! {
        <Title text=format!("{heading} · {} · {}", st.title, t.product) />
        <Frame>
            <h1>{st.title}</h1>
            <TabLinks
                label=st.title
                current
                id="settings-tabs"
                tabs=tabs.into_iter().filter(|(_, _, shown)| *shown).map(|(href, label, _)| (href, label)).collect()
            />
            {children()}
        </Frame>
    }
}

#[component]
pub fn SettingsPage() -> impl IntoView {
    let lang = use_lang();
    view! {
        <SettingsFrame current="/settings">
            <p>
                <a href="/policy" id="policy-link">{crate::i18n::setup::setup_texts(lang).policy_title}</a>
            </p>
            <SettingsBody />
        </SettingsFrame>
    }
}

/// Alerts, two-step sign-in and Control's identity, all from one reading of
/// the settings. An island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn SettingsBody() -> impl IntoView {
    crate::islands::preload_island("settings_body_loader");
    let st = settings_texts(use_lang());
    let save = ServerAction::<SaveAlertWebhook>::new();
    let test = ServerAction::<SendTestAlert>::new();
    let settings = Resource::new(
        move || (save.version().get(), test.version().get()),
        |_| settings_screen(),
    );
    view! {
        <section class="card" id="alerts">
            <h2>{st.alerts_title}</h2>
            <p class="muted">{st.alerts_intro}</p>
            {loaded(
                move || async move { settings.await },
                move |screen| {
                    view! { <AlertSettingsView current=screen.alerts save test /> }.into_any()
                },
            )}
        </section>
        <TwoStepSection settings />
        <ControlIdentitySection settings />
    }
}

/// Control's public key and fingerprint, which the admin compares with what
/// an install snippet pins and what `knotroute-control identity` prints.
#[component]
fn ControlIdentitySection(settings: Resource<Result<SettingsScreen, UiError>>) -> impl IntoView {
    let lang = use_lang();
    let it = identity_texts(lang);
    let key = move |k: ControlKeyView, id: &'static str| {
        view! {
            <dl class="facts" id=id>
                <dt>{it.public_key}</dt><dd><code class="key">{k.public_key}</code></dd>
                <dt>{it.fingerprint}</dt><dd><code class="fingerprint">{k.fingerprint}</code></dd>
                <dt>{it.since}</dt><dd>{when(&k.created_at)}</dd>
            </dl>
        }
    };
    view! {
        <section class="card" id="control-identity">
            <h2>{it.title}</h2>
            <p class="muted">{it.intro}</p>
            {loaded(
                move || async move { settings.await.map(|screen| screen.identity) },
                move |id| {
                    let previous = id.previous.map(|p| {
                        let until = p.retire_at.clone().unwrap_or_default();
                        view! {
                            <h3>{it.previous}" "{it.previous_until}" "{when(&until)}</h3>
                            {key(p, "control-key-previous")}
                        }
                    });
                    view! {
                        {key(id.current, "control-key-current")}
                        {previous}
                        <p class="muted">{it.rotate_how}</p>
                    }
                    .into_any()
                },
            )}
        </section>
    }
}

#[component]
fn AlertSettingsView(
    current: AlertSettings,
    save: ServerAction<SaveAlertWebhook>,
    test: ServerAction<SendTestAlert>,
) -> impl IntoView {
    let lang = use_lang();
    let st = settings_texts(lang);
    let url = RwSignal::new(String::new());
    let confirm_off = RwSignal::new(false);
    let errors = FormErrors::of(save, lang);
    let saved = move || {
        save.value()
            .get()
            .is_some_and(|r| r.is_ok())
            .then_some(st.saved)
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let raw = url.get_untracked();
        // An empty field is refused here: turning alerts off has its own button.
        let verdict = match protocol::alerts::webhook_url(&raw) {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(vec![protocol::FieldError::new(
                "webhook_url",
                protocol::Problem::Required,
            )]),
            Err(e) => Err(vec![e]),
        };
        if errors.check(verdict).is_some() {
            save.dispatch(SaveAlertWebhook { webhook_url: raw });
        }
    };
    let off_error = Signal::derive(move || errors.general());
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            confirm_off.set(false);
            url.set(String::new());
        }
    });
    let has_webhook = current.webhook.is_some();
    let status_line = match (&current.webhook, current.from_environment) {
        (Some(w), _) => view! {
            <p id="webhook-current">{st.webhook_current}" "<code>{w.clone()}</code></p>
        }
        .into_any(),
        (None, _) => {
            view! { <p class="muted" id="webhook-current">{st.webhook_none}</p> }.into_any()
        }
    };
    let changes_settings = may(ActionKind::ChangeSettings);
    let form = if current.from_environment {
        view! { <p class="muted" id="webhook-from-env">{st.webhook_from_env}</p> }.into_any()
    } else if !changes_settings {
        ().into_any()
    } else {
        view! {
            <form on:submit=on_submit novalidate id="webhook-form">
                <label for="webhook-url">{st.webhook_field}</label>
                {has_webhook.then(|| view! { <p class="muted">{st.webhook_replace}</p> })}
                <input id="webhook-url" name="webhook_url" inputmode="url" autocomplete="off"
                    placeholder="https://hooks.example.net/knotroute"
                    prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev)) />
                <p class="field-error" id="webhook-url-error">{move || errors.for_field("webhook_url")}</p>
                <p class="field-error" role="alert">{move || errors.general()}</p>
                <div class="actions">
                    <button type="submit" class="primary" id="save-webhook" disabled=move || save.pending().get()>
                        {st.save}
                    </button>
                    {has_webhook.then(|| view! {
                        <button type="button" class="danger" id="turn-alerts-off"
                            on:click=move |_| confirm_off.set(true)>{st.turn_off}</button>
                    })}
                </div>
                <p class="muted" role="status" id="webhook-saved">{saved}</p>
            </form>
            <ConfirmDialog open=confirm_off title=st.turn_off explain=st.turn_off_explain
                confirm_label=st.turn_off confirm_id="confirm-alerts-off"
                error=off_error pending=save.pending()
                on_confirm=move || { save.dispatch(SaveAlertWebhook { webhook_url: String::new() }); } />
        }
        .into_any()
    };
    let outcome = move || {
        test.value().get().map(|r| match r {
            Ok(o) if o.delivered => view! {
                <p class="alert" role="status" id="test-alert-outcome">{st.test_delivered}" "{o.detail}</p>
            }
            .into_any(),
            Ok(o) => view! {
                <p class="alert warn" role="status" id="test-alert-outcome">{st.test_failed}" "{o.detail}</p>
            }
            .into_any(),
            Err(e) => view! {
                <p class="field-error" role="alert" id="test-alert-outcome">{e.message(lang)}</p>
            }
            .into_any(),
        })
    };
    let recent = current.recent;
    view! {
        {status_line}
        {form}
        {changes_settings.then(|| view! {
            <div class="actions">
                <button type="button" id="send-test-alert" disabled=move || test.pending().get() || !has_webhook
                    on:click=move |_| { test.dispatch(SendTestAlert {}); }>
                    {move || if test.pending().get() { st.sending } else { st.send_test }}
                </button>
            </div>
        })}
        {outcome}
        <h3>{st.recent_title}</h3>
        {if recent.is_empty() {
            view! { <p class="empty" id="alerts-empty">{st.recent_empty}</p> }.into_any()
        } else {
            view! {
                <table class="list" id="alerts-table">
                    <thead><tr>
                        <th scope="col">{st.col_when}</th>
                        <th scope="col">{st.col_event}</th>
                        <th scope="col">{st.col_text}</th>
                        <th scope="col">{st.col_status}</th>
                    </tr></thead>
                    <tbody>{recent.into_iter().map(|a| view! { <AlertRow alert=a /> }).collect_view()}</tbody>
                </table>
            }
                .into_any()
        }}
    }
}

#[component]
fn AlertRow(alert: AlertView) -> impl IntoView {
    let st = settings_texts(use_lang());
    let class = alert_badge(alert.status);
    view! {
        <tr class="alert-row">
            <td data-label=st.col_when>{when(&alert.created_at)}</td>
            <td data-label=st.col_event><code>{alert.event.clone()}</code></td>
            <td data-label=st.col_text>{alert.text.clone()}</td>
            <td data-label=st.col_status>
                <span class=class>{alert.status.as_str()}</span>
                " "<span class="muted">{format!("{} {}", alert.attempts, st.attempts)}</span>
                {(!alert.last_error.is_empty()).then(|| view! { <br /><code class="check-detail">{alert.last_error.clone()}</code> })}
            </td>
        </tr>
    }
}
