//! "Diagnose" on a network's page: the layered diagnosis (its Beacons, then
//! the Agents running its components, then its services), in the order an
//! operator should fix things, each line with what to do next.

use crate::api::diagnose_network;
use crate::i18n::{texts, Lang};
use crate::use_lang;
use leptos::prelude::*;
use protocol::diagnostics::{Severity, Step};

fn step_label(step: Step, lang: Lang) -> &'static str {
    match (step, lang) {
        (Step::BeaconUrls, Lang::En) => "Beacon URLs",
        (Step::BeaconUrls, Lang::Ru) => "Адреса Beacon",
        (Step::Dns, _) => "DNS",
        (Step::Connect, _) => "TCP",
        (Step::Healthz, _) => "/healthz",
        (Step::Relay, Lang::En) => "relay",
        (Step::Relay, Lang::Ru) => "релей",
        (Step::Agents, Lang::En) => "Agents",
        (Step::Agents, Lang::Ru) => "Agent",
        (Step::Online, Lang::En) => "online",
        (Step::Online, Lang::Ru) => "в сети",
        (Step::Docker, _) => "Docker",
        (Step::Container, Lang::En) => "container",
        (Step::Container, Lang::Ru) => "контейнер",
        (Step::KnotAddress, _) => ".knot",
    }
}

fn badge(severity: Severity) -> &'static str {
    match severity {
        Severity::Ok => "badge ok",
        Severity::Warning => "badge warn",
        Severity::Error => "badge bad",
    }
}

/// An island (crate::islands), lazy: its code comes only to a network's
/// page, which names it among its preloads (it renders under a Suspense).
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
pub fn DiagnoseSection(id: String) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    // Each press runs the diagnosis again. The result's rendering is
    // fetched with the first press (a #[lazy] function).
    let runs = RwSignal::new(0u32);
    // A second press while one runs would only queue the same work again.
    let running = RwSignal::new(false);
    view! {
        <section class="card" id="diagnose">
            <h2>{t.diagnose_title}</h2>
            <p class="muted">{t.diagnose_intro}</p>
            <button type="button" id="diagnose-run" disabled=move || running.get()
                on:click=move |_| runs.update(|n| *n += 1)>
                {move || if running.get() { t.diagnosing } else { t.diagnose }}
            </button>
            <div aria-live="polite">
                {move || (runs.get() > 0).then(|| {
                    let id = id.clone();
                    view! {
                        <Transition set_pending=running fallback=move || view! { <p class="muted">{t.diagnosing}</p> }>
                            {move || {
                                runs.track();
                                Suspend::new(diagnosis_view(id.clone(), lang))
                            }}
                        </Transition>
                    }
                })}
            </div>
        </section>
    }
}

/// The diagnosis as its own WebAssembly chunk, loaded when Diagnose is first
/// pressed: the Network page loads without it.
#[lazy]
async fn diagnosis_view(id: String, lang: Lang) -> AnyView {
    let t = texts(lang);
    match diagnose_network(id).await {
        Err(e) => view! { <p class="alert error" role="alert">{e.message(lang)}</p> }.into_any(),
        Ok(diagnosis) => {
            let worst = diagnosis.worst().as_str();
            let lines = diagnosis
                .lines
                .into_iter()
                .map(|l| {
                    let subject = l.subject.clone();
                    view! {
                        <li class="diag-line" data-severity=l.severity.as_str() data-subject=subject>
                            <span class=badge(l.severity)>{step_label(l.step, lang)}</span>
                            " " <strong class="diag-subject">{l.subject}</strong>
                            " " <span class="diag-reason">{l.reason}</span>
                            {(!l.next_step.is_empty()).then(|| view! {
                                <br /><span class="diag-next">{t.next_step}" "{l.next_step}</span>
                            })}
                        </li>
                    }
                })
                .collect_view();
            view! { <ol class="diagnosis" id="diagnosis" data-worst=worst>{lines}</ol> }.into_any()
        }
    }
}
