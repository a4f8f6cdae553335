//! "Diagnose" on a network's page: the layered diagnosis (its Beacons, then
//! the Agents running its components, then its services), in the order an
//! operator should fix things, each line with what to do next.

use crate::api::diagnose_network;
use crate::i18n::{texts, Lang};
use crate::use_lang;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
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

/// Diagnose is a plain form (GET): the page at `?diagnose=1` runs the
/// diagnosis while the server draws it, and streams it in when done (the
/// rest of the page shows first, with "Diagnosing…" here). Pressed again,
/// it runs again. No WebAssembly.
#[component]
pub fn DiagnoseSection(id: String) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let query = use_query_map();
    let action = format!("/networks/{id}#diagnose");
    let asked = move || query.read().get_str("diagnose").is_some();
    let diagnosis = Resource::new(
        move || asked().then(|| id.clone()),
        |id| async move {
            match id {
                Some(id) => diagnose_network(id).await.map(Some),
                None => Ok(None),
            }
        },
    );
    view! {
        <section class="card" id="diagnose">
            <h2>{t.diagnose_title}</h2>
            <p class="muted">{t.diagnose_intro}</p>
            <form method="get" action=action>
                <input type="hidden" name="diagnose" value="1" />
                <button type="submit" id="diagnose-run">{t.diagnose}</button>
            </form>
            <div aria-live="polite">
                <Suspense fallback=move || view! { <p class="muted">{t.diagnosing}</p> }>
                    {move || Suspend::new(async move {
                        match diagnosis.await {
                            Ok(None) => ().into_any(),
                            Ok(Some(diagnosis)) => diagnosis_view(diagnosis, lang),
                            Err(e) => view! { <p class="alert error" role="alert">{e.message(lang)}</p> }.into_any(),
                        }
                    })}
                </Suspense>
            </div>
        </section>
    }
}

/// The diagnosis, a line per check in the order to fix things.
fn diagnosis_view(diagnosis: protocol::diagnostics::Diagnosis, lang: Lang) -> AnyView {
    let t = texts(lang);
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
