//! The operations policy (issue 25, item 4): what Control knows filled in,
//! the two parts the admin writes (from a template when empty), saved with
//! an audit entry and downloadable as Markdown.

use super::layout::Frame;
use super::loaded;
use crate::api::setup::{load_policy, SavePolicy};
use crate::i18n::setup::setup_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use protocol::actions::ActionKind;
use protocol::policy::{KnownPart, OperationsPolicy, PolicyInput};

#[component]
pub fn PolicyPage() -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let t = texts(lang);
    let allowed = may(ActionKind::ChangeSettings);
    view! {
        <Title text=format!("{} · {}", st.policy_title, t.product) />
        <Frame>
            <h1>{st.policy_title}</h1>
            <p class="muted">{st.policy_intro}</p>
            {if allowed {
                view! { <PolicyBody /> }.into_any()
            } else {
                view! { <p class="alert" id="not-for-role">{st.policy_not_for_role}</p> }.into_any()
            }}
        </Frame>
    }
}

/// The policy and its form. An island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn PolicyBody() -> impl IntoView {
    crate::islands::preload_island("policy_body_loader");
    let policy = Resource::new(|| (), |_| load_policy());
    loaded(
        move || async move { policy.await },
        move |p| view! { <Policy policy=p /> },
    )
}

#[component]
fn Known(title: &'static str, part: KnownPart, id: &'static str) -> impl IntoView {
    view! {
        <div class="policy-part" id=id>
            <h3>{title}</h3>
            <p>{part.text}</p>
            {part.warning.map(|w| view! { <p class="alert" role="status">{w}</p> })}
        </div>
    }
}

#[component]
fn Policy(policy: OperationsPolicy) -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let people = policy
        .people
        .iter()
        .map(|p| {
            let networks = if p.networks.is_empty() {
                st.all_networks.to_string()
            } else {
                p.networks.join(", ")
            };
            let disabled = p.disabled.then(|| format!(" · {}", st.disabled));
            view! { <li>{p.name.clone()}" — "{p.role.as_str()}", "{networks}{disabled}</li> }
        })
        .collect_view();
    let known = view! {
        <section class="card" id="policy-known">
            <h2>{st.policy_known}</h2>
            <Known title=st.policy_access part=policy.access.clone() id="policy-access" />
            <ul class="policy-people">{people}</ul>
            <Known title=st.policy_backups part=policy.backups.clone() id="policy-backups" />
            <Known title=st.policy_release part=policy.release_channel.clone() id="policy-release" />
            <Known title=st.policy_alerts part=policy.alerts.clone() id="policy-alerts" />
        </section>
    }
    .into_any();
    let changed = changed_line(&policy, lang);
    view! {
        {known}
        <PolicyForm written=policy.written template=policy.template changed />
        <p>
            <a href=format!("/api/v1/policy/markdown?lang={}", lang.code()) id="policy-markdown" rel="external" download="operations-policy.md">
                {st.policy_markdown}
            </a>
        </p>
    }
}

/// "Last changed … by …", once saved.
fn changed_line(policy: &OperationsPolicy, lang: crate::i18n::Lang) -> Option<String> {
    let st = setup_texts(lang);
    let (at, by) = policy.updated_at.as_ref().zip(policy.updated_by.as_ref())?;
    Some(st.policy_changed.replace("{at}", at).replace("{by}", by))
}

#[component]
fn PolicyForm(
    written: PolicyInput,
    template: PolicyInput,
    /// As loaded; a save shows its own.
    changed: Option<String>,
) -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let relays = RwSignal::new(written.relays);
    let revocation = RwSignal::new(written.revocation);
    let save = ServerAction::<SavePolicy>::new();
    // The same rule as the server's, checked as the admin types.
    let local_errors = Memo::new(move |_| {
        PolicyInput {
            relays: relays.get(),
            revocation: revocation.get(),
        }
        .validate()
        .err()
        .unwrap_or_default()
    });
    let error_for = move |field: &'static str| {
        move || {
            local_errors
                .with(|errors| {
                    errors
                        .iter()
                        .find(|e| e.field == field)
                        .map(|e| e.message(lang))
                })
                .or_else(|| {
                    save.value().with(|v| {
                        v.as_ref()
                            .and_then(|r| r.as_ref().err())
                            .and_then(|e| e.for_field(field).map(|f| f.message(lang)))
                    })
                })
        }
    };
    let other_error = move || {
        save.value().with(|v| {
            v.as_ref()
                .and_then(|r| r.as_ref().err())
                .filter(|e| e.for_field("relays").is_none() && e.for_field("revocation").is_none())
                .map(|e| e.message(lang))
        })
    };
    let saved = move || matches!(save.value().get(), Some(Ok(_))) && !save.pending().get();
    let fill = move |_| {
        if relays.with(|r| r.trim().is_empty()) {
            relays.set(template.relays.clone());
        }
        if revocation.with(|r| r.trim().is_empty()) {
            revocation.set(template.revocation.clone());
        }
    };
    view! {
        <form
            class="card"
            id="policy-form"
            on:submit=move |ev| {
                ev.prevent_default();
                if local_errors.with(|e| !e.is_empty()) {
                    return;
                }
                save.dispatch(SavePolicy {
                    input: PolicyInput {
                        relays: relays.get_untracked(),
                        revocation: revocation.get_untracked(),
                    },
                });
            }
        >
            <h2>{st.policy_written}</h2>
            <p><button type="button" class="link-button" id="policy-template" on:click=fill>{st.policy_use_template}</button></p>
            <label for="policy-relays">{st.policy_relays}</label>
            <textarea id="policy-relays" name="relays" rows="6" prop:value=move || relays.get()
                on:input=move |ev| relays.set(event_target_value(&ev))></textarea>
            <p class="field-error" role="alert">{error_for("relays")}</p>
            <label for="policy-revocation">{st.policy_revocation}</label>
            <textarea id="policy-revocation" name="revocation" rows="6" prop:value=move || revocation.get()
                on:input=move |ev| revocation.set(event_target_value(&ev))></textarea>
            <p class="field-error" role="alert">{error_for("revocation")}</p>
            <p class="alert error" role="alert" hidden=move || other_error().is_none()>{other_error}</p>
            <button type="submit" id="policy-save" disabled=move || save.pending().get()>
                {move || if save.pending().get() { st.policy_saving } else { st.policy_save }}
            </button>
            <span role="status" id="policy-saved">{move || saved().then_some(st.policy_saved)}</span>
            <p class="muted" id="policy-changed">
                {move || {
                    save.value()
                        .with(|v| v.as_ref().and_then(|r| r.as_ref().ok()).and_then(|p| changed_line(p, lang)))
                        .or_else(|| changed.clone())
                }}
            </p>
        </form>
    }
}
