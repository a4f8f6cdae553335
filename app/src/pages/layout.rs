//! The frame around every signed-in screen: navigation, language switch, sign-out.

use crate::api::SignOut;
use crate::i18n::{texts, Lang};
use crate::islands::provide_client_router;
use crate::use_lang;
use leptos::prelude::*;
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

/// Scrolls the navigation row (not the page) so that the link marked as the
/// current screen is fully visible.
fn scroll_current_link_into_view() {
    use wasm_bindgen::JsCast;
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let find = |selector: &str| {
        document
            .query_selector(selector)
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    };
    let (Some(nav), Some(link)) = (
        find("nav.mainnav"),
        find("nav.mainnav a[aria-current=\"page\"]"),
    ) else {
        return;
    };
    let left = link.offset_left() - nav.offset_left();
    let right = left + link.offset_width();
    let (shown_from, width) = (nav.scroll_left(), nav.client_width());
    if left < shown_from || right > shown_from + width {
        nav.set_scroll_left((left - 16).max(0));
    }
}

/// Signs out; whatever the answer, the session is no longer usable from
/// this page, so the sign-in page is loaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island)]
fn SignOutButton() -> impl IntoView {
    let t = texts(use_lang());
    let sign_out = ServerAction::<SignOut>::new();
    Effect::new(move |_| {
        if sign_out.value().get().is_some() {
            if let Some(w) = web_sys::window() {
                let _ = w.location().set_href("/login");
            }
        }
    });
    view! {
        <button
            type="button"
            class="link-button"
            id="sign-out"
            on:click=move |_| {
                sign_out.dispatch(SignOut {});
            }
        >
            {t.sign_out}
        </button>
    }
}

/// The screens, the one at `path` marked as current. On a phone the row
/// scrolls sideways: the current screen's link is kept in view.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island)]
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
    // Reads no signal: runs once, after hydration (each screen has its own frame).
    Effect::new(move |_| scroll_current_link_into_view());
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
