//! The pages and components of Control's web UI. Rendered on the server, then
//! hydrated in the browser by `frontend`.

// Leptos view types nest deeply; the Agent page exceeds the default 128.
#![recursion_limit = "256"]

pub mod api;
pub mod audit_api;
#[cfg(feature = "ssr")]
pub mod backend;
pub mod beacons_api;
pub mod error;
pub mod i18n;
pub mod i18n_audit;
pub mod i18n_beacons;
pub mod i18n_deploy;
pub mod i18n_infra;
pub mod i18n_jobs;
pub mod i18n_onboarding;
pub mod i18n_overview;
pub mod i18n_services;
pub mod infra_api;
pub mod jobs_api;
pub mod live;
pub mod onboarding_api;
pub mod overview_api;
mod pages;

pub use pages::login::safe_next;

use i18n::Lang;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

/// The HTML document around the app; the server renders it for every page.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let lang = use_context::<Lang>().unwrap_or_default();
    view! {
        <!DOCTYPE html>
        <html lang=lang.code()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                <link rel="stylesheet" href="/pkg/knotroute.css" />
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The interface language: provided per request on the server, read back from
/// `<html lang>` in the browser so hydration renders the same words.
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_else(document_lang)
}

fn document_lang() -> Lang {
    #[cfg(not(feature = "ssr"))]
    {
        if let Some(code) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|e| e.get_attribute("lang"))
        {
            return Lang::from_code(&code).unwrap_or_default();
        }
    }
    Lang::default()
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let lang = use_lang();
    provide_context(lang);
    live::provide_live();
    // Browser tests and people on slow links can tell when the page has become interactive.
    Effect::new(move |_| {
        if let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    let t = i18n::texts(lang);
    view! {
        <Title text=t.product />
        <Router>
            <Routes fallback=pages::NotFoundPage>
                <Route path=path!("/login") view=pages::login::LoginPage />
                <Route path=path!("/") view=pages::overview::OverviewPage />
                <Route path=path!("/networks") view=pages::networks::NetworksPage />
                <Route path=path!("/networks/new") view=pages::networks::NewNetworkPage />
                <Route path=path!("/networks/:id") view=pages::networks::NetworkPage />
                <Route path=path!("/infrastructure") view=pages::infrastructure::InfrastructurePage />
                <Route path=path!("/infrastructure/agents/:id") view=pages::agent::AgentPage />
                <Route path=path!("/services") view=pages::services::ServicesPage />
                <Route path=path!("/onboarding") view=pages::onboarding::OnboardingPage />
                <Route path=path!("/jobs") view=pages::jobs::JobsPage />
                <Route path=path!("/jobs/:id") view=pages::job::JobPage />
                <Route path=path!("/audit") view=pages::audit::AuditPage />
            </Routes>
        </Router>
    }
}
