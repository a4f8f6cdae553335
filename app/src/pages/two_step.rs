//! Two-step sign-in on screen: adding Control to an authenticator app (the
//! QR code, the key to type, a link for an app on the same device), the
//! recovery codes shown once, and the Settings section where a person turns
//! it on or off and renews their recovery codes.

use crate::api::settings::SettingsScreen;
use crate::api::two_step::{BeginTwoStep, ConfirmTwoStep, RenewRecoveryCodes, TurnOffTwoStep};
use crate::error::UiError;
use crate::i18n::two_step::two_step_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::second_factor::{Enrollment, RecoveryCodes, SecondFactorStatus};

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

/// The Settings section: the signed-in person's own two-step sign-in.
#[component]
pub fn TwoStepSection(settings: Resource<Result<SettingsScreen, UiError>>) -> impl IntoView {
    let lang = use_lang();
    let tt = two_step_texts(lang);
    let begin = ServerAction::<BeginTwoStep>::new();
    let confirm = ServerAction::<ConfirmTwoStep>::new();
    let renew = ServerAction::<RenewRecoveryCodes>::new();
    let turn_off = ServerAction::<TurnOffTwoStep>::new();
    let code = RwSignal::new(String::new());
    // Set-up begun and not yet confirmed or cancelled.
    let setting_up = RwSignal::new(None::<Enrollment>);
    // Codes just handed out (turned on, or renewed).
    let shown_codes = RwSignal::new(Vec::<String>::new());
    Effect::new(move |_| {
        if let Some(Ok(e)) = begin.value().get() {
            code.set(String::new());
            setting_up.set(Some(e));
        }
    });
    // Codes handed out (turned on, or renewed), each action watched on its own.
    let show_codes = move |handed_out: Option<Result<RecoveryCodes, UiError>>| {
        if let Some(Ok(codes)) = handed_out {
            setting_up.set(None);
            code.set(String::new());
            shown_codes.set(codes.codes);
            settings.refetch();
        }
    };
    Effect::new(move |_| show_codes(confirm.value().get()));
    Effect::new(move |_| show_codes(renew.value().get()));
    Effect::new(move |_| {
        if let Some(Ok(())) = turn_off.value().get() {
            code.set(String::new());
            shown_codes.set(Vec::new());
            settings.refetch();
        }
    });
    // A refusal of any of the four, shown by the code field.
    let refusal = move || {
        [
            begin.value().get().and_then(|r| r.err()),
            confirm.value().get().and_then(|r| r.err()),
            renew.value().get().and_then(|r| r.err()),
            turn_off.value().get().and_then(|r| r.err()),
        ]
        .into_iter()
        .flatten()
        .next()
        .map(|e| e.message(lang))
    };
    let pending = move || {
        begin.pending().get()
            || confirm.pending().get()
            || renew.pending().get()
            || turn_off.pending().get()
    };
    let code_field = move |label: &'static str| {
        view! {
            <label for="two-step-code">{label}</label>
            <input id="two-step-code" name="code" autocomplete="one-time-code"
                autocapitalize="none" spellcheck="false"
                prop:value=move || code.get()
                on:input=move |ev| code.set(event_target_value(&ev))
                aria-describedby="two-step-error" />
            <p class="field-error" role="alert" id="two-step-error">{refusal}</p>
        }
    };
    let body = move |status: SecondFactorStatus| {
        if !status.applies {
            return view! { <p class="muted" id="two-step-not-applicable">{tt.not_applicable}</p> }
                .into_any();
        }
        let required = status
            .required
            .then(|| view! { <p class="muted" id="two-step-required">{tt.required_note}</p> });
        if let Some(enrollment) = setting_up.get() {
            return view! {
                <EnrollmentView enrollment />
                <form id="two-step-confirm" on:submit=move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    confirm.dispatch(ConfirmTwoStep { code: code.get_untracked() });
                }>
                    {code_field(tt.code)}
                    <div class="actions">
                        <button type="submit" class="primary" id="two-step-confirm-button" disabled=pending>{tt.confirm}</button>
                        <button type="button" id="two-step-cancel" on:click=move |_| setting_up.set(None)>{tt.cancel}</button>
                    </div>
                </form>
            }.into_any();
        }
        if !status.enabled {
            return view! {
                <p id="two-step-state">{tt.state_off}</p>
                {required}
                <p class="field-error" role="alert" id="two-step-error">{refusal}</p>
                <div class="actions">
                    <button type="button" class="primary" id="two-step-turn-on" disabled=pending
                        on:click=move |_| { begin.dispatch(BeginTwoStep {}); }>{tt.turn_on}</button>
                </div>
            }
            .into_any();
        }
        let left = tt
            .codes_left
            .replace("{n}", &status.recovery_codes_left.to_string());
        view! {
            <p id="two-step-state"><span class="badge ok">{tt.badge}</span>" "{tt.state_on}</p>
            {required}
            <p class="muted" id="recovery-codes-left">{left}</p>
            <form id="two-step-manage" on:submit=|ev: leptos::ev::SubmitEvent| ev.prevent_default()>
                {code_field(tt.code_to_act)}
                <div class="actions">
                    <button type="button" id="two-step-new-codes" disabled=pending
                        on:click=move |_| { renew.dispatch(RenewRecoveryCodes { code: code.get_untracked() }); }>{tt.new_codes}</button>
                    {(!status.required).then(|| view! {
                        <button type="button" class="danger" id="two-step-turn-off" disabled=pending
                            on:click=move |_| { turn_off.dispatch(TurnOffTwoStep { code: code.get_untracked() }); }>{tt.turn_off}</button>
                    })}
                </div>
            </form>
        }.into_any()
    };
    view! {
        <section class="card" id="two-step">
            <h2>{tt.title}</h2>
            <p class="muted">{tt.intro}</p>
            <Show when=move || !shown_codes.get().is_empty()>
                <RecoveryCodesView codes=shown_codes.get() />
            </Show>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(screen) => {
                            let status = screen.second_factor;
                            // Reactive inside: set-up begun or cancelled redraws it.
                            (move || body(status.clone())).into_any()
                        }
                        Err(e) => view! { <super::LoadError error=e /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
