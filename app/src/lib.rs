//! The pages and components of Control's web UI. Rendered on the server, then
//! hydrated in the browser by `frontend`.

// Leptos view types nest deeply; the Agent page exceeds the default 128.
#![recursion_limit = "256"]

pub mod api;
#[cfg(feature = "ssr")]
pub mod backend;
pub mod error;
pub mod i18n;
pub mod islands;
pub mod live;
pub mod live_region;
mod pages;
pub mod screen_split;

pub use pages::login::safe_next;

use i18n::Lang;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, Lazy, LazyRoute, SsrMode};
use protocol::actions::{ActionKind, Allowed};

/// Holds the presses and form submissions made before the page has
/// hydrated, and makes them again once it has, with what was typed meanwhile;
/// fills the text boxes drawn empty (`data-value`) once the page is parsed;
/// keeps the current screen's link in view in the main navigation; opens the
/// live updates' stream (crate::live); draws again the parts of a page
/// that follow it without WebAssembly (crate::live_region); and copies for
/// the copy buttons (pages::copy); and backs out of a confirmation at its
/// address on Escape (pages::plain_action). All of it works
/// before the WebAssembly arrives, so it comes with the server's HTML, in one
/// script.
const EARLY_PAGE_JS: &str = concat!(
    include_str!("assets/after_hydration.js"),
    include_str!("assets/before_hydration.js"),
    include_str!("assets/main_nav.js"),
    include_str!("assets/live_stream.js"),
    include_str!("assets/live_regions.js"),
    include_str!("assets/copy_buttons.js"),
    include_str!("assets/confirm_escape.js")
);

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
                <HashedStylesheet options=options.clone() />
                // Before the hydration scripts: it must see the split loader's first fetch.
                <script nonce=leptos::nonce::use_nonce() inner_html=screen_split::CHUNK_BATCH_JS></script>
                // Listening before the first press a person can make.
                <script nonce=leptos::nonce::use_nonce() inner_html=EARLY_PAGE_JS></script>
                <link rel="icon" href=screen_split::favicon_data_url() type="image/svg+xml" />
                <meta name=ALLOWED_META content=use_allowed().to_words() />
                {use_context::<SsoOffer>().map(|offer| view! { <meta name=SSO_META content=offer.0 /> })}
                <islands::FrontendScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// A named moment in the page's performance timeline: scripts/bench-phone.sh
/// reads when the page became interactive from it (and so can DevTools).
#[cfg(feature = "hydrate")]
pub(crate) fn mark_timing(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(name);
    }
}

/// Marks the page interactive: `<body data-hydrated="true">` and the timing
/// mark `knotroute-hydrated`, for browser tests and people on slow links.
/// The front end calls it once hydration has finished, the lazily loaded
/// screen included; an effect in `App` would run while the screen's module
/// was still loading, and a click then would reach a button with no handler.
#[cfg(feature = "hydrate")]
pub fn mark_hydrated() {
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-hydrated", "true");
    }
    mark_timing("knotroute-hydrated");
}

/// The interface language: provided per request on the server, read back from
/// `<html lang>` in the browser so hydration renders the same words.
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_else(document_lang)
}

/// The `<meta name>` that carries what the signed-in person may do.
const ALLOWED_META: &str = "knotroute-allowed";

/// What the signed-in person may do, to leave out the controls the server
/// would refuse them. Provided per request on the server (nothing on the
/// sign-in page), read back from the page's `<meta>` in the browser: no
/// request of its own, and sign-in and sign-out load a whole page, so it is
/// never stale across them. A role changed by the owner meanwhile shows at
/// the next page load; the server refuses in between.
pub fn use_allowed() -> Allowed {
    use_context::<Allowed>().unwrap_or_else(document_allowed)
}

/// Whether to show a control for `action`.
pub fn may(action: ActionKind) -> bool {
    use_allowed().may(action)
}

/// The `<meta name>` that carries the single sign-on provider's name.
const SSO_META: &str = "knotroute-sso";

/// Single sign-on is configured: the sign-in screen offers "Sign in with
/// <provider>". Provided per request on the server, read back from the
/// page's `<meta>` in the browser, like [`use_allowed`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsoOffer(pub String);

pub fn use_sso_offer() -> Option<SsoOffer> {
    use_context::<SsoOffer>().or_else(document_sso_offer)
}

fn document_sso_offer() -> Option<SsoOffer> {
    #[cfg(not(feature = "ssr"))]
    {
        if let Some(name) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| {
                d.query_selector(&format!("meta[name={SSO_META}]"))
                    .ok()
                    .flatten()
            })
            .and_then(|e| e.get_attribute("content"))
        {
            return Some(SsoOffer(name));
        }
    }
    None
}

fn document_allowed() -> Allowed {
    #[cfg(not(feature = "ssr"))]
    {
        if let Some(words) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| {
                d.query_selector(&format!("meta[name={ALLOWED_META}]"))
                    .ok()
                    .flatten()
            })
            .and_then(|e| e.get_attribute("content"))
        {
            return Allowed::from_words(&words);
        }
    }
    Allowed::default()
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

use screen_split::lazy_screen;

lazy_screen!(
    OverviewScreen,
    overview_screen,
    pages::overview::OverviewPage
);
lazy_screen!(
    NetworksScreen,
    networks_screen,
    pages::networks::NetworksPage
);
lazy_screen!(
    NewNetworkScreen,
    new_network_screen,
    pages::networks::NewNetworkPage
);
lazy_screen!(NetworkScreen, network_screen, pages::networks::NetworkPage);
lazy_screen!(SetupScreen, setup_screen, pages::setup::SetupPage);
lazy_screen!(
    InfrastructureScreen,
    infrastructure_screen,
    pages::infrastructure::InfrastructurePage
);
lazy_screen!(BeaconsScreen, beacons_screen, pages::beacons::BeaconsPage);
lazy_screen!(AgentScreen, agent_screen, pages::agent::AgentPage);
lazy_screen!(
    ServicesScreen,
    services_screen,
    pages::services::ServicesPage
);
lazy_screen!(
    OnboardingScreen,
    onboarding_screen,
    pages::onboarding::OnboardingPage
);
lazy_screen!(JobsScreen, jobs_screen, pages::jobs::JobsPage);
lazy_screen!(JobScreen, job_screen, pages::job::JobPage);
lazy_screen!(AuditScreen, audit_screen, pages::audit::AuditPage);
lazy_screen!(PolicyScreen, policy_screen, pages::policy::PolicyPage);
lazy_screen!(
    SettingsScreen,
    settings_screen,
    pages::settings::SettingsPage
);
lazy_screen!(PeopleScreen, people_screen, pages::users::PeoplePage);
lazy_screen!(TokensScreen, tokens_screen, pages::api_tokens::TokensPage);

#[component]
pub fn App() -> impl IntoView {
    islands::islands_as_components();
    provide_meta_context();
    let lang = use_lang();
    provide_context(lang);
    provide_context(use_allowed());
    live::provide_live();
    let t = i18n::texts(lang);
    view! {
        <Title text=t.product />
        <Router>
            <Routes fallback=pages::NotFoundPage>
                <Route path=path!("/login") view=pages::login::LoginPage />
                // Rendered whole before it is sent: its live region is drawn again from the page's HTML (crate::live_region).
                <Route path=path!("/") view={Lazy::<OverviewScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/networks") view={Lazy::<NetworksScreen>::new()} />
                <Route path=path!("/networks/new") view={Lazy::<NewNetworkScreen>::new()} />
                <Route path=path!("/networks/:id") view={Lazy::<NetworkScreen>::new()} />
                <Route path=path!("/networks/:id/setup") view={Lazy::<SetupScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/infrastructure") view={Lazy::<InfrastructureScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/infrastructure/beacons") view={Lazy::<BeaconsScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/infrastructure/agents/:id") view={Lazy::<AgentScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/services") view={Lazy::<ServicesScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/onboarding") view={Lazy::<OnboardingScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/jobs") view={Lazy::<JobsScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/jobs/:id") view={Lazy::<JobScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/audit") view={Lazy::<AuditScreen>::new()} />
                <Route path=path!("/settings") view={Lazy::<SettingsScreen>::new()} />
                <Route path=path!("/settings/people") view={Lazy::<PeopleScreen>::new()} />
                <Route path=path!("/settings/tokens") view={Lazy::<TokensScreen>::new()} ssr=SsrMode::Async />
                <Route path=path!("/policy") view={Lazy::<PolicyScreen>::new()} />
            </Routes>
        </Router>
    }
}
