//! Two-step sign-in on screen: adding Control to an authenticator app (the
//! QR code, the key to type, a link for an app on the same device), the
//! recovery codes shown once, and the Settings section where a person turns
//! it on or off and renews their recovery codes.

use super::on_demand::OnDemand;
use crate::api::two_step::{BeginTwoStep, ConfirmTwoStep, RenewRecoveryCodes, TurnOffTwoStep};
use crate::i18n::two_step::two_step_texts;
use crate::islands::{drawn_attribute, start_from};
use crate::use_lang;
use leptos::prelude::*;
use protocol::second_factor::{Enrollment, SecondFactorStatus};

/// What an authenticator app needs: scan, type, or open.
#[component]
pub fn EnrollmentView(enrollment: Enrollment) -> impl IntoView {
    let tt = two_step_texts(use_lang());
    view! {
        <div class="two-step-setup" id="two-step-setup">
            <p>{tt.scan}</p>
            // Our own SVG, drawn by the server from the otpauth URI.
            <div class="qr" id="two-step-qr" inner_html=enrollment.qr_svg></div>
            <p class="muted">{tt.or_type}</p>
            <p><code class="key" id="two-step-secret">{enrollment.secret}</code></p>
            <p><a href=enrollment.otpauth_uri id="two-step-open" rel="external">{tt.open_in_app}</a></p>
        </div>
    }
}

/// Recovery codes, shown once.
#[component]
pub fn RecoveryCodesView(codes: Vec<String>) -> impl IntoView {
    let tt = two_step_texts(use_lang());
    view! {
        <div class="alert" role="status" id="recovery-codes-box">
            <h2>{tt.codes_title}</h2>
            <p>{tt.codes_intro}</p>
            <ol class="recovery-codes" id="recovery-codes">
                {codes.into_iter().map(|c| view! { <li><code>{c}</code></li> }).collect_view()}
            </ol>
        </div>
    }
}

/// The Settings section: the signed-in person's own two-step sign-in, as
/// the server read it; Turn on, or New codes or turn off, each a button
/// whose form comes with its first press (`turn_on_form`, `manage_form`).
/// An island (crate::islands), lazy; the Settings page names its code among
/// the preloads. What the forms change, the section shows without reading
/// the settings again: the codes handed out stay on screen above it.
///
/// It starts from the page's [`SecondFactorStatus`], as context
/// ([`crate::islands::start_from`]), drawn on the section for the islands
/// build's browser.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub fn TwoStep() -> impl IntoView {
    let tt = two_step_texts(use_lang());
    let start = start_from(drawn_status);
    let status = RwSignal::new(start.clone());
    // Codes just handed out (turned on, or renewed).
    let codes = RwSignal::new(Vec::<String>::new());
    let body = move || {
        let now = status.get();
        if !now.applies {
            return view! { <p class="muted" id="two-step-not-applicable">{tt.not_applicable}</p> }
                .into_any();
        }
        let required = now
            .required
            .then(|| view! { <p class="muted" id="two-step-required">{tt.required_note}</p> });
        let open = RwSignal::new(false);
        if !now.enabled {
            return view! {
                <p id="two-step-state">{tt.state_off}</p>
                {required}
                <div class="actions">
                    <OnDemand id="two-step-turn-on" label=tt.turn_on open
                        load=move || turn_on_form(status, codes, open) />
                </div>
            }
            .into_any();
        }
        let left = tt
            .codes_left
            .replace("{n}", &now.recovery_codes_left.to_string());
        view! {
            <p id="two-step-state"><span class="badge ok">{tt.badge}</span>" "{tt.state_on}</p>
            {required}
            <p class="muted" id="recovery-codes-left">{left}</p>
            <div class="actions">
                <OnDemand id="two-step-manage-open" label=tt.manage open
                    load=move || manage_form(status, codes) />
            </div>
        }
        .into_any()
    };
    view! {
        <section class="card" id=SECTION_ID data-applies=start.applies data-enabled=start.enabled
            data-required=start.required data-codes-left=start.recovery_codes_left.to_string()>
            <h2>{tt.title}</h2>
            <p class="muted">{tt.intro}</p>
            {move || {
                let handed_out = codes.get();
                (!handed_out.is_empty()).then(|| view! { <RecoveryCodesView codes=handed_out /> })
            }}
            {body}
        </section>
    }
}

const SECTION_ID: &str = "two-step";

/// The status the server drew on the section.
fn drawn_status() -> SecondFactorStatus {
    let drawn = |name: &str| drawn_attribute(SECTION_ID, name);
    SecondFactorStatus {
        applies: drawn("data-applies").is_some(),
        enabled: drawn("data-enabled").is_some(),
        required: drawn("data-required").is_some(),
        recovery_codes_left: drawn("data-codes-left")
            .and_then(|n| n.parse().ok())
            .unwrap_or_default(),
    }
}

/// Turning it on, as its own WebAssembly chunk: set-up begins as the form
/// comes (its button was pressed), and a code from the app confirms it.
#[lazy]
async fn turn_on_form(
    status: RwSignal<SecondFactorStatus>,
    codes: RwSignal<Vec<String>>,
    open: RwSignal<bool>,
) -> AnyView {
    view! { <TurnOn status codes open /> }.into_any()
}

#[component]
fn TurnOn(
    status: RwSignal<SecondFactorStatus>,
    codes: RwSignal<Vec<String>>,
    open: RwSignal<bool>,
) -> impl IntoView {
    let lang = use_lang();
    let tt = two_step_texts(lang);
    let begin = ServerAction::<BeginTwoStep>::new();
    let confirm = ServerAction::<ConfirmTwoStep>::new();
    let code = RwSignal::new(String::new());
    begin.dispatch(BeginTwoStep {});
    Effect::new(move |_| {
        if let Some(Ok(handed_out)) = confirm.value().get() {
            status.update(|s| {
                s.enabled = true;
                s.recovery_codes_left = handed_out.codes.len() as u32;
            });
            codes.set(handed_out.codes);
        }
    });
    let refusal = move || {
        [
            begin.value().get().and_then(|r| r.err()),
            confirm.value().get().and_then(|r| r.err()),
        ]
        .into_iter()
        .flatten()
        .next()
        .map(|e| e.message(lang))
    };
    let pending = move || begin.pending().get() || confirm.pending().get();
    let enrollment = move || match begin.value().get() {
        Some(Ok(enrollment)) => Some(view! { <EnrollmentView enrollment /> }),
        _ => None,
    };
    view! {
        {enrollment}
        <form id="two-step-confirm" on:submit=move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            confirm.dispatch(ConfirmTwoStep { code: code.get_untracked() });
        }>
            <CodeField code label=tt.code refusal=Signal::derive(refusal) />
            <div class="actions">
                <button type="submit" class="primary" id="two-step-confirm-button" disabled=pending>{tt.confirm}</button>
                <button type="button" id="two-step-cancel" on:click=move |_| open.set(false)>{tt.cancel}</button>
            </div>
        </form>
    }
}

/// New recovery codes, or turning it off, as its own WebAssembly chunk:
/// both ask for a code from the app.
#[lazy]
async fn manage_form(
    status: RwSignal<SecondFactorStatus>,
    codes: RwSignal<Vec<String>>,
) -> AnyView {
    view! { <Manage status codes /> }.into_any()
}

#[component]
fn Manage(status: RwSignal<SecondFactorStatus>, codes: RwSignal<Vec<String>>) -> impl IntoView {
    let lang = use_lang();
    let tt = two_step_texts(lang);
    let renew = ServerAction::<RenewRecoveryCodes>::new();
    let turn_off = ServerAction::<TurnOffTwoStep>::new();
    let code = RwSignal::new(String::new());
    Effect::new(move |_| {
        if let Some(Ok(handed_out)) = renew.value().get() {
            code.set(String::new());
            status.update(|s| s.recovery_codes_left = handed_out.codes.len() as u32);
            codes.set(handed_out.codes);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(())) = turn_off.value().get() {
            codes.set(Vec::new());
            status.update(|s| {
                s.enabled = false;
                s.recovery_codes_left = 0;
            });
        }
    });
    let refusal = move || {
        [
            renew.value().get().and_then(|r| r.err()),
            turn_off.value().get().and_then(|r| r.err()),
        ]
        .into_iter()
        .flatten()
        .next()
        .map(|e| e.message(lang))
    };
    let pending = move || renew.pending().get() || turn_off.pending().get();
    let required = status.with_untracked(|s| s.required);
    view! {
        <form id="two-step-manage" on:submit=|ev: leptos::ev::SubmitEvent| ev.prevent_default()>
            <CodeField code label=tt.code_to_act refusal=Signal::derive(refusal) />
            <div class="actions">
                <button type="button" id="two-step-new-codes" disabled=pending
                    on:click=move |_| { renew.dispatch(RenewRecoveryCodes { code: code.get_untracked() }); }>{tt.new_codes}</button>
                {(!required).then(|| view! {
                    <button type="button" class="danger" id="two-step-turn-off" disabled=pending
                        on:click=move |_| { turn_off.dispatch(TurnOffTwoStep { code: code.get_untracked() }); }>{tt.turn_off}</button>
                })}
            </div>
        </form>
    }
}

/// The authenticator's code, with the last refusal under it.
#[component]
fn CodeField(
    code: RwSignal<String>,
    label: &'static str,
    refusal: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <label for="two-step-code">{label}</label>
        <input id="two-step-code" name="code" autocomplete="one-time-code"
            autocapitalize="none" spellcheck="false"
            prop:value=move || code.get()
            on:input=move |ev| code.set(event_target_value(&ev))
            aria-describedby="two-step-error" />
        <p class="field-error" role="alert" id="two-step-error">{move || refusal.get()}</p>
    }
}
