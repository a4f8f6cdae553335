//! Settings, in three tabs with URLs of their own, so that none carries the
//! others' code on a first load (Settings as one screen would be the
//! largest download of all). General: where alerts go (a webhook URL,
//! unless the environment sets it), a test alert, the latest alerts with how
//! their delivery went, the person's own two-step sign-in, and Control's
//! identity key. People (the owner's, `users`) and API tokens (`api_tokens`).
//!
//! The server draws General. The webhook's Save, Turn alerts off (asked
//! first at `?alerts_off`) and Send test alert are plain HTML forms whose
//! answer is this page again, saying what happened or with the refusal in
//! the address (`plain_action`). Only two-step sign-in is an island
//! (`two_step`): its secret and recovery codes are shown once, from an
//! answer, and never go into an address.

use super::badges::alert_badge;
use super::infrastructure::when;
use super::layout::{Frame, TabLinks};
use super::loaded;
use super::plain_action::{confirm_address, refusal_in_address, ConfirmAtAddress};
use super::two_step::TwoStep;
use crate::api::settings::{settings_screen, SaveAgentApproval, SaveAlertWebhook, SendTestAlert};
use crate::error::UiError;
use crate::i18n::settings::{identity_texts, settings_texts, token_texts};
use crate::i18n::texts;
use crate::i18n::users::user_texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::alerts::{AlertSettings, AlertView};
use protocol::api::{AgentApprovalSettings, ControlIdentityView, ControlKeyView};

/// The address's key that asks to confirm turning alerts off.
const ALERTS_OFF_ASKED: &str = "alerts_off";

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
    // Its island renders under the settings' Suspense: its code is named here.
    crate::islands::preload_island("two_step_loader");
    let query = use_query_map();
    let settings = Resource::new(|| (), |_| settings_screen());
    view! {
        <SettingsFrame current="/settings">
            <p>
                <a href="/policy" id="policy-link">{crate::i18n::setup::setup_texts(lang).policy_title}</a>
            </p>
            {loaded(
                move || {
                    // Read here, where it is tracked: the full build's router
                    // changes the address in place.
                    let query = query.read();
                    let said = AlertsSaid {
                        saved: query.get_str("saved").is_some(),
                        tested: query.get_str("tested").map(|t| t == "delivered"),
                        refused: refusal_in_address(
                            &query,
                            &[SaveAlertWebhook::PATH, SendTestAlert::PATH],
                        ),
                        off_asked: query.get_str(ALERTS_OFF_ASKED).is_some(),
                    };
                    let approval_saved = query.get_str("approval_saved").is_some();
                    async move { settings.await.map(|screen| (screen, said, approval_saved)) }
                },
                move |(screen, said, approval_saved)| {
                    provide_context(screen.second_factor);
                    view! {
                        <section class="card" id="alerts">
                            <AlertSettingsView current=screen.alerts said />
                        </section>
                        <NewAgentsSection current=screen.agent_approval saved=approval_saved />
                        <TwoStep />
                        <ControlIdentitySection identity=screen.identity />
                    }
                },
            )}
        </SettingsFrame>
    }
}

/// What the address says about the alerts' forms: saved, a test alert sent
/// (delivered or not), a refusal, or turning alerts off to be confirmed.
#[derive(Clone)]
struct AlertsSaid {
    saved: bool,
    tested: Option<bool>,
    refused: Option<UiError>,
    off_asked: bool,
}

/// Whether Agents enrolled with the shared token wait for approval; those
/// who may change settings change it with a plain form.
#[component]
fn NewAgentsSection(current: AgentApprovalSettings, saved: bool) -> impl IntoView {
    let st = settings_texts(use_lang());
    let state = if current.required {
        st.approval_on
    } else {
        st.approval_off
    };
    let form = may(ActionKind::ChangeSettings).then(|| {
        view! {
            <form method="post" action=SaveAgentApproval::PATH id="agent-approval-form">
                <label class="check">
                    <input type="checkbox" id="agent-approval-required" name="required" value="true"
                        checked=current.required />
                    " "{st.approval_field}
                </label>
                <button type="submit" class="primary" id="save-agent-approval">{st.save}</button>
                <p class="muted" role="status" id="agent-approval-saved">{saved.then_some(st.saved)}</p>
            </form>
        }
    });
    view! {
        <section class="card" id="new-agents">
            <h2>{st.approval_title}</h2>
            <p class="muted">{st.approval_intro}</p>
            <p id="agent-approval-state">{state}</p>
            {form}
        </section>
    }
}

/// Control's public key and fingerprint, which the admin compares with what
/// an install snippet pins and what `knotroute-control identity` prints.
#[component]
fn ControlIdentitySection(identity: ControlIdentityView) -> impl IntoView {
    let it = identity_texts(use_lang());
    let key = move |k: ControlKeyView, id: &'static str| {
        view! {
            <dl class="facts" id=id>
                <dt>{it.public_key}</dt><dd><code class="key">{k.public_key}</code></dd>
                <dt>{it.fingerprint}</dt><dd><code class="fingerprint">{k.fingerprint}</code></dd>
                <dt>{it.since}</dt><dd>{when(&k.created_at)}</dd>
            </dl>
        }
    };
    let previous = identity.previous.map(|p| {
        let until = p.retire_at.clone().unwrap_or_default();
        view! {
            <h3>{it.previous}" "{it.previous_until}" "{when(&until)}</h3>
            {key(p, "control-key-previous")}
        }
    });
    view! {
        <section class="card" id="control-identity">
            <h2>{it.title}</h2>
            <p class="muted">{it.intro}</p>
            {key(identity.current, "control-key-current")}
            {previous}
            <p class="muted">{it.rotate_how}</p>
        </section>
    }
}

#[component]
fn AlertSettingsView(current: AlertSettings, said: AlertsSaid) -> impl IntoView {
    let lang = use_lang();
    let st = settings_texts(lang);
    let AlertsSaid {
        saved,
        tested,
        refused,
        off_asked,
    } = said;
    let field_error = refused
        .as_ref()
        .and_then(|e| e.for_field("webhook_url"))
        .map(|f| f.message(lang));
    let general_error = refused
        .as_ref()
        .filter(|e| e.for_field("webhook_url").is_none())
        .map(|e| e.message(lang));
    let has_webhook = current.webhook.is_some();
    let status_line = match &current.webhook {
        Some(w) => view! {
            <p id="webhook-current">{st.webhook_current}" "<code>{w.clone()}</code></p>
        }
        .into_any(),
        None => view! { <p class="muted" id="webhook-current">{st.webhook_none}</p> }.into_any(),
    };
    let changes_settings = may(ActionKind::ChangeSettings);
    let form = if current.from_environment {
        view! { <p class="muted" id="webhook-from-env">{st.webhook_from_env}</p> }.into_any()
    } else if !changes_settings {
        ().into_any()
    } else {
        let turn_off = has_webhook.then(|| {
            let href = confirm_address("/settings", ALERTS_OFF_ASKED, "1", "alerts-off");
            view! { <a href=href class="button danger" id="turn-alerts-off">{st.turn_off}</a> }
        });
        let confirm = (off_asked && has_webhook).then(|| {
            view! {
                <ConfirmAtAddress id="alerts-off" explain=st.turn_off_explain
                    cancel_href="/settings#alerts" cancel_id="cancel-alerts-off"
                    action=SaveAlertWebhook::PATH field="turn_off" value="true".to_string()
                    confirm_id="confirm-alerts-off" label=st.turn_off>
                    {st.turn_off}
                </ConfirmAtAddress>
            }
        });
        // `novalidate`: the server's message, in the form, says what is
        // wrong with the address, in the page's language.
        view! {
            <form method="post" action=SaveAlertWebhook::PATH novalidate id="webhook-form">
                <label for="webhook-url">{st.webhook_field}</label>
                {has_webhook.then(|| view! { <p class="muted">{st.webhook_replace}</p> })}
                <input id="webhook-url" name="webhook_url" type="url" inputmode="url" autocomplete="off"
                    placeholder="https://hooks.example.net/knotroute" />
                <p class="field-error" role="alert" id="webhook-url-error">{field_error}</p>
                <p class="field-error" role="alert" id="alerts-error">{general_error}</p>
                <div class="actions">
                    <button type="submit" class="primary" id="save-webhook">{st.save}</button>
                    {turn_off}
                </div>
                <p class="muted" role="status" id="webhook-saved">{saved.then_some(st.saved)}</p>
            </form>
            {confirm}
        }
        .into_any()
    };
    let outcome = tested.map(|delivered| {
        if delivered {
            view! { <p class="alert" role="status" id="test-alert-outcome">{st.test_delivered}</p> }
                .into_any()
        } else {
            // With no webhook nothing was sent, and no recent alert says so.
            let why = if has_webhook {
                st.test_failed_see_below
            } else {
                st.webhook_none
            };
            view! {
                <p class="alert warn" role="status" id="test-alert-outcome">
                    {st.test_failed}" "{why}
                </p>
            }
            .into_any()
        }
    });
    let recent = current.recent;
    view! {
        <h2>{st.alerts_title}</h2>
        <p class="muted">{st.alerts_intro}</p>
        {status_line}
        {form}
        {changes_settings.then(|| view! {
            <form method="post" action=SendTestAlert::PATH class="actions">
                <button type="submit" id="send-test-alert" disabled=!has_webhook>{st.send_test}</button>
            </form>
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
