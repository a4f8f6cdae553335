//! Hydrates the server-rendered page in the browser.
#![cfg(target_arch = "wasm32")]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
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
