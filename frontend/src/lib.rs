//! Hydrates the server-rendered page in the browser.
#![cfg(target_arch = "wasm32")]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    #[cfg(feature = "islands")]
    // The page's script (app/src/assets/islands.js) hydrates each island
    // after this and then marks the page interactive.
    leptos::mount::hydrate_islands();
    #[cfg(not(feature = "islands"))]
    // Lazy: a screen's split-out code is fetched before its part of the page
    // hydrates. What `leptos::mount::hydrate_lazy` does, plus marking the page
    // interactive once all of it, the screen included, has hydrated.
    wasm_bindgen_futures::spawn_local(async {
        let body = leptos::tachys::dom::body();
        let mounted = leptos::mount::hydrate_from_async(body, app::App).await;
        app::mark_hydrated();
        mounted.forget();
    });
}

// Nothing of `app` is called by name in the islands build: its islands are
// reached from the page's script. Linked explicitly, or they would be left out.
#[cfg(feature = "islands")]
extern crate app;

/// Present only in the islands build: the server reads it from the main
/// script to choose the page's hydration script (`app::islands`).
#[cfg(feature = "islands")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn islands_build() {}
