//! The operations policy: what Control knows filled in,
//! the two parts the admin writes (from a template when empty), saved with
//! an audit entry and downloadable as Markdown.
//!
//! The server draws all of it, and the form is a plain HTML form whose
//! answer is this page again (saying so, or with the refusal in the
//! address, `plain_action`). Only "Start from the template", which fills
//! the parts still empty without losing what was typed, is an island.

use super::layout::Frame;
use super::loaded;
use super::plain_action::refusal_in_address;
use super::sparkline::escape;
use crate::api::setup::{load_policy, SavePolicy};
use crate::error::UiError;
use crate::i18n::setup::setup_texts;
use crate::i18n::texts;
use crate::islands::{drawn_attribute, start_from};
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::policy::{KnownPart, OperationsPolicy, PolicyInput, POLICY_TEXT_MAX};

#[component]
pub fn PolicyPage() -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let t = texts(lang);
    let allowed = may(ActionKind::ChangeSettings);
    if allowed {
        // Its island renders under the policy's Suspense, after the
        // page's <head> has gone out: its code is named here.
        crate::islands::preload_island("template_button_loader");
    }
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

/// What the address says about the form: the template asked for, a save
/// just made, or a save refused.
#[derive(Clone, Default)]
struct FormState {
    with_template: bool,
    saved: bool,
    refused: Option<UiError>,
}

#[component]
fn PolicyBody() -> impl IntoView {
    let query = use_query_map();
    let policy = Resource::new(|| (), |_| load_policy());
    loaded(
        move || {
            // Read here, where it is tracked: the full build's router
            // changes the address in place.
            let query = query.read();
            let state = FormState {
                with_template: query.get_str("template").is_some(),
                saved: query.get_str("saved").is_some(),
                refused: refusal_in_address(&query, &[SavePolicy::PATH]),
            };
            async move { policy.await.map(|policy| (policy, state)) }
        },
        move |(p, state)| view! { <Policy policy=p state /> },
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
fn Policy(policy: OperationsPolicy, state: FormState) -> impl IntoView {
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
        <PolicyForm written=policy.written template=policy.template changed state />
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

/// The written parts as a plain HTML form, filled in with what was saved
/// (and, asked for, the template where a part is empty).
#[component]
fn PolicyForm(
    written: PolicyInput,
    template: PolicyInput,
    changed: Option<String>,
    state: FormState,
) -> impl IntoView {
    let lang = use_lang();
    let st = setup_texts(lang);
    let FormState {
        with_template,
        saved,
        refused,
    } = state;
    let shown = |text: String, template: &str| {
        if with_template && text.trim().is_empty() {
            template.to_string()
        } else {
            text
        }
    };
    // Escaped here: Leptos writes a <textarea>'s children as they are (as
    // for <script>), so "</textarea>" in the text would end the field.
    let relays = escape(&shown(written.relays, &template.relays));
    let revocation = escape(&shown(written.revocation, &template.revocation));
    let error_for = |field: &str| {
        refused
            .as_ref()
            .and_then(|e| e.for_field(field))
            .map(|f| f.message(lang))
    };
    let relays_error = error_for("relays");
    let revocation_error = error_for("revocation");
    let other_error = refused
        .as_ref()
        .filter(|e| e.for_field("relays").is_none() && e.for_field("revocation").is_none())
        .map(|e| e.message(lang));
    // Counted as the browser counts (UTF-16), which is never more than the
    // server's count: what fits here is never refused for its length.
    let (max, max_too) = (POLICY_TEXT_MAX.to_string(), POLICY_TEXT_MAX.to_string());
    provide_context(PolicyTemplate(template));
    view! {
        <form class="card" id="policy-form" method="post" action=SavePolicy::PATH>
            <h2>{st.policy_written}</h2>
            <p><TemplateButton /></p>
            <label for="policy-relays">{st.policy_relays}</label>
            <textarea id="policy-relays" name="relays" rows="6" maxlength=max>{relays}</textarea>
            <p class="field-error" role="alert" id="policy-relays-error">{relays_error}</p>
            <label for="policy-revocation">{st.policy_revocation}</label>
            <textarea id="policy-revocation" name="revocation" rows="6" maxlength=max_too>{revocation}</textarea>
            <p class="field-error" role="alert" id="policy-revocation-error">{revocation_error}</p>
            <p class="alert error" role="alert" hidden=other_error.is_none()>{other_error.clone()}</p>
            <button type="submit" id="policy-save">{st.policy_save}</button>
            <span role="status" id="policy-saved">{saved.then_some(st.policy_saved)}</span>
            <p class="muted" id="policy-changed">{changed}</p>
        </form>
    }
}

/// The template's text: what [`TemplateButton`] starts from, as context
/// ([`crate::islands::start_from`]), drawn on the button for the islands
/// build's browser.
#[derive(Clone)]
struct PolicyTemplate(PolicyInput);

const TEMPLATE_BUTTON_ID: &str = "policy-template";

impl PolicyTemplate {
    fn drawn() -> Self {
        let drawn = |name: &str| drawn_attribute(TEMPLATE_BUTTON_ID, name).unwrap_or_default();
        Self(PolicyInput {
            relays: drawn("data-relays"),
            revocation: drawn("data-revocation"),
        })
    }
}

/// "Start from the template": fills the parts still empty with the
/// template's text and keeps what was typed. An island (crate::islands),
/// lazy; [`PolicyPage`] names its code among the preloads. It takes no
/// props, so that its first load carries no JSON decoder: it starts from
/// the page's [`PolicyTemplate`].
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn TemplateButton() -> impl IntoView {
    let st = setup_texts(use_lang());
    let PolicyTemplate(template) = start_from(PolicyTemplate::drawn);
    let (relays, revocation) = (template.relays.clone(), template.revocation.clone());
    let fill = move |_| {
        #[cfg(feature = "hydrate")]
        {
            fill_if_empty("policy-relays", &template.relays);
            fill_if_empty("policy-revocation", &template.revocation);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &template;
    };
    view! {
        <button type="button" class="link-button" id=TEMPLATE_BUTTON_ID
            data-relays=relays data-revocation=revocation on:click=fill>
            {st.policy_use_template}
        </button>
    }
}

/// Puts `text` in the field `id` if it holds only white space.
#[cfg(feature = "hydrate")]
fn fill_if_empty(id: &str, text: &str) {
    let Some(field) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    else {
        return;
    };
    let value = js_sys::Reflect::get(&field, &"value".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    if value.trim().is_empty() {
        let _ = js_sys::Reflect::set(&field, &"value".into(), &text.into());
    }
}
