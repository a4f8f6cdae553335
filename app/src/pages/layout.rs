//! The frame around every signed-in screen: navigation, language switch, sign-out.

use crate::api::SignOut;
use crate::i18n::{texts, Lang};
use crate::islands::provide_client_router;
use crate::use_lang;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_location;

/// Whether live updates are flowing; `data-live` lets tests wait for it.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island)]
fn LiveMarker() -> impl IntoView {
    let ot = crate::i18n::overview::overview_texts(use_lang());
    let live = crate::live::use_live();
    view! {
        <span
            id="live-status"
            class=move || if live.connected() { "live on" } else { "live off" }
            data-live=move || if live.connected() { "on" } else { "off" }
            title=move || if live.connected() { ot.live_on_hint } else { ot.live_off_hint }
            role="status"
        >
            {move || if live.connected() { ot.live_on } else { ot.live_off }}
        </span>
    }
}

/// Signs out: a plain form, which works before (and without) the
/// WebAssembly and keeps the server-function client out of the main module
/// every page loads. The server function answers a form with a redirect to
/// the sign-in page, whatever the outcome (`api::sign_out`).
#[component]
fn SignOutButton() -> impl IntoView {
    let t = texts(use_lang());
    view! {
        <form class="sign-out" method="post" action=SignOut::PATH>
            <button type="submit" class="link-button" id="sign-out">
                {t.sign_out}
            </button>
        </form>
    }
}

/// The screens, the one at `path` marked as current. On a phone the row
/// scrolls sideways; `assets/main_nav.js` keeps the current screen's link in
/// view, from the server's HTML, before the WebAssembly has arrived.
#[component]
fn MainNav(path: String) -> impl IntoView {
    let t = texts(use_lang());
    let current = |prefix: &str| {
        if prefix == "/" {
            path == "/"
        } else {
            path == prefix || path.starts_with(&format!("{prefix}/"))
        }
    };
    let nav = [
        ("/", t.nav_overview),
        ("/networks", t.nav_networks),
        ("/infrastructure", t.nav_infrastructure),
        ("/services", t.nav_services),
        ("/onboarding", t.nav_onboarding),
        ("/jobs", t.nav_jobs),
        ("/audit", t.nav_audit),
        ("/settings", t.nav_settings),
    ];
    view! {
        <nav class="mainnav" aria-label="Main">
            {nav
                .into_iter()
                .map(|(href, label)| {
                    view! {
                        <a href=href aria-current=current(href).then_some("page")>
                            {label}
                        </a>
                    }
                })
                .collect_view()}
        </nav>
    }
}

#[component]
pub fn Frame(children: Children) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    provide_client_router();
    let location = use_location();
    let path = move || location.pathname.get();
    let switch_to = match lang {
        Lang::En => Lang::Ru,
        Lang::Ru => Lang::En,
    };
    view! {
        <header class="topbar">
            <a class="brand" href="/">{t.product}</a>
            <div class="topbar-actions">
                <LiveMarker />
                <a
                    class="lang-switch"
                    rel="external"
                    hreflang=switch_to.code()
                    title=t.language
                    href=move || format!("/lang/{}?next={}", switch_to.code(), path())
                >
                    {switch_to.code().to_uppercase()}
                </a>
                <SignOutButton />
            </div>
        </header>
        <MainNav path=location.pathname.get_untracked() />
        <main class="content">{children()}</main>
    }
}

/// A screen's tabs, each a page of its own: links, the current one marked for
/// screen readers and the stylesheet (`aria-current`). `id` names the list
/// for tests and the page's script; `tabs` are (path, label) in order.
#[component]
pub fn TabLinks(
    label: &'static str,
    current: &'static str,
    #[prop(optional)] id: Option<&'static str>,
    tabs: Vec<(&'static str, &'static str)>,
) -> impl IntoView {
    view! {
        <nav class="tabs" id=id aria-label=label>
            {tabs
                .into_iter()
                .map(|(href, text)| {
                    view! { <a class="tab" href=href aria-current=(href == current).then_some("page")>{text}</a> }
                })
                .collect_view()}
        </nav>
    }
}
