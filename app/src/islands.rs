//! The islands build of the front end (light enough for a phone's first
//! load), the one shipped (`scripts/build-release.sh`, frontend feature `islands`):
//! only the components marked `#[island]` hydrate; the rest of the page
//! stays the server's HTML, and a link loads a page.
//!
//! Every screen's interactive parts are islands: a screen's body that reads,
//! re-reads on live updates or acts is one lazy island, preloaded by the page.
//! Where a screen only shows what the server read and acts by plain forms
//! (Overview, Jobs, Infrastructure), its lists are live regions instead
//! (crate::live_region), and only its forms are islands.
//! The full build (`scripts/build-release.sh --full`) hydrates the whole page
//! and routes in the browser; it was the one shipped until the islands build
//! was faster on a phone (BENCHMARKS.md). Its WebAssembly compiles the
//! islands as components (cfg `hydrate_whole_page`, set by app/build.rs), so
//! that it carries no island entry points it never calls:
//!
//! ```ignore
//! #[cfg_attr(hydrate_whole_page, component)]
//! #[cfg_attr(not(hydrate_whole_page), island)]
//! fn LiveMarker() -> impl IntoView { … }
//! ```
//!
//! So that one source serves both builds, an island keeps these rules:
//! - its props serialise (they travel in the page as JSON); texts come from
//!   [`crate::use_lang`], not as props. Better still, it takes no props: what
//!   it starts from comes through [`start_from`], drawn by the server on an
//!   element of the island (its own, or a wrapper `class="island-start"`
//!   that adds no box), so that its first load carries no JSON decoder.
//!   What only its on-demand form needs is drawn as JSON ([`DrawnJson`])
//!   and decoded by that form's chunk;
//! - no router hooks and no context from around it, except what
//!   [`crate::use_lang`], [`crate::use_allowed`], [`crate::live::use_live`]
//!   and [`start_from`] read back from the document. The page around it
//!   reads the path and query and passes them on, and draws the island again
//!   when they change (the full build's client router changes them in place);
//! - it goes elsewhere with [`navigator`];
//! - it makes its resources in its body, never under a Suspense of its own:
//!   the server numbers for the browser only the resources made while the
//!   island's body runs, and one made later, when a Suspense resolves, would
//!   leave the browser reading another resource's answer (a hydration panic).
//!
//! The server tells the builds apart by the front end's main script
//! ([`IslandsBuild`]) and gives the islands build its own hydration script
//! (`assets/islands.js`).

use leptos::prelude::*;

/// Provided by the server when the site's front end is the islands build:
/// the paths of its main script and WebAssembly module, which the server
/// reads from the build's hash list once, at start-up.
#[derive(Clone, Debug)]
pub struct IslandsBuild {
    pub main_script: String,
    pub main_module: String,
}

/// The name the islands build's main script exports (frontend crate), by
/// which the server recognises that build.
pub const ISLANDS_BUILD_EXPORT: &str = "export function islands_build(";

/// The islands build's hydration script; called with the paths of the main
/// script and WebAssembly module.
const ISLANDS_JS: &str = include_str!("assets/islands.js");

/// The `<head>`'s hydration scripts for the site's build.
#[component]
pub fn FrontendScripts(options: LeptosOptions) -> impl IntoView {
    let Some(IslandsBuild {
        main_script,
        main_module,
    }) = use_context::<IslandsBuild>()
    else {
        return view! { <HydrationScripts options /> }.into_any();
    };
    // As Leptos' own islands script does: from here on only the islands'
    // resources are numbered for the browser, which hydrates nothing else
    // and numbers them in the islands' order.
    if let Some(shared) = leptos::reactive::owner::Owner::current_shared_context() {
        shared.set_is_hydrating(false);
    }
    let script = format!(
        "{}({main_script:?}, {main_module:?});",
        ISLANDS_JS.trim_end()
    );
    view! {
        <link rel="modulepreload" href=main_script crossorigin="anonymous" />
        <link rel="preload" href=main_module r#as="fetch" r#type="application/wasm" crossorigin="anonymous" />
        // Marked for the early script (assets/before_hydration.js): in this
        // build, what is outside an island never hydrates.
        <script type="module" data-islands="" nonce=leptos::nonce::use_nonce() inner_html=script></script>
    }
    .into_any()
}

/// In the full build the server renders an island as the component that
/// build's WebAssembly hydrates: without an element of its own, which that
/// hydration could not step back out of (Leptos' `Island` marks itself only
/// where no `IsHydrating` is provided). Called at the root of the app.
pub fn islands_as_components() {
    if use_context::<IslandsBuild>().is_none() {
        provide_context(leptos::reactive::owner::IsHydrating(true));
    }
}

/// In the islands build, names the code of the lazy island whose loader is
/// `loader` (`<island in snake case>_loader`) among the page's preloads, so
/// that it loads beside the main module instead of after it. The full build
/// hydrates the island with its screen and never loads that code. Only a
/// call made before the `<head>` has gone out counts: an island rendered
/// under a Suspense is named by its page, up front ([`preload_islands`]),
/// and its own call then adds nothing (a page names each chunk once).
pub fn preload_island(loader: &str) {
    preload_islands(&[loader]);
}

/// [`preload_island`] for several islands of one page: the code they share
/// comes once, in the same batches.
pub fn preload_islands(loaders: &[&str]) {
    if use_context::<IslandsBuild>().is_some() {
        crate::screen_split::preload_lazy(loaders);
    }
}

/// What an island starts from, without props. An island's props travel in
/// the page as JSON, and the JSON decoder (with its error messages, which
/// format floats) was a fifth of a form island's first load: the code a
/// phone fetches before the island reacts. So an island may take its start
/// as context instead, provided by the page around it on the server (and in
/// the full build, in the browser too); in the islands build's browser, where
/// no context reaches an island, `drawn` reads it back from what the server
/// drew, as [`crate::use_lang`] reads the language.
pub fn start_from<T: Clone + Send + Sync + 'static>(drawn: impl FnOnce() -> T) -> T {
    use_context::<T>().unwrap_or_else(drawn)
}

/// The attribute `name` of the element `id` as the server drew it; none on
/// the server, or if the page has no such element or attribute.
pub fn drawn_attribute(id: &str, name: &str) -> Option<String> {
    #[cfg(not(feature = "ssr"))]
    {
        web_sys::window()?
            .document()?
            .get_element_by_id(id)?
            .get_attribute(name)
    }
    #[cfg(feature = "ssr")]
    {
        let _ = (id, name);
        None
    }
}

/// A value an island hands on to its on-demand chunk (`#[lazy]`) without
/// decoding it: JSON text, encoded by the page on the server (context for
/// [`start_from`]) and drawn as the attribute `data-start` of the element
/// `id` for the islands build's browser. Only the chunk that needs the value
/// decodes it ([`DrawnJson::value`]), so the island's first load carries no
/// JSON decoder; that chunk's server-function client has one anyway.
pub struct DrawnJson<T> {
    text: String,
    of: std::marker::PhantomData<fn() -> T>,
}

// By hand: derived, they would ask the same of `T`.
impl<T> Default for DrawnJson<T> {
    /// No text: its value is `T`'s default.
    fn default() -> Self {
        Self::from_text(String::new())
    }
}

impl<T> Clone for DrawnJson<T> {
    fn clone(&self) -> Self {
        Self {
            text: self.text.clone(),
            of: std::marker::PhantomData,
        }
    }
}

impl<T> DrawnJson<T> {
    /// `value` as JSON (on the server, or in the full build's browser).
    pub fn of(value: &T) -> Self
    where
        T: serde::Serialize,
    {
        Self::from_text(serde_json::to_string(value).unwrap_or_default())
    }

    /// What the server drew on the element `id`; none if it drew nothing.
    pub fn drawn(id: &str) -> Option<Self> {
        drawn_attribute(id, "data-start").map(Self::from_text)
    }

    fn from_text(text: String) -> Self {
        Self {
            text,
            of: std::marker::PhantomData,
        }
    }

    /// The JSON text, to draw as `data-start`.
    pub fn text(&self) -> String {
        self.text.clone()
    }

    /// The value; its default if the text is not one (never from a page
    /// this server drew).
    pub fn value(&self) -> T
    where
        T: serde::de::DeserializeOwned + Default,
    {
        serde_json::from_str(&self.text).unwrap_or_default()
    }
}

/// An island's prop as a `Copy` reader: an island's body hands its props to
/// several closures (resources, views, handlers), and an owned value could
/// move into only one of them.
pub fn prop_reader<T>(value: T) -> impl Fn() -> T + Copy + Send + Sync + 'static
where
    T: Clone + Send + Sync + 'static,
{
    let stored = StoredValue::new(value);
    move || stored.get_value()
}

/// How the full build's client router goes to a path, for the islands that
/// cannot use router hooks; provided by the frame around every screen.
#[derive(Clone, Copy)]
pub struct ClientRouter(Callback<String>);

/// Provides [`ClientRouter`]; call inside the `<Router>`.
pub fn provide_client_router() {
    let navigate = leptos_router::hooks::use_navigate();
    provide_context(ClientRouter(Callback::new(move |path: String| {
        navigate(&path, Default::default())
    })));
}

/// Goes to a path: through the client router of the full build, else (an
/// island of the islands build) by loading the page.
pub fn navigator() -> impl Fn(&str) + Clone + 'static {
    let router = use_context::<ClientRouter>();
    move |path: &str| match router {
        Some(ClientRouter(go)) => go.run(path.to_string()),
        None => load_page(path),
    }
}

fn load_page(path: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.location().set_href(path);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = path;
}
