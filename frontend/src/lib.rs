//! Hydrates the server-rendered page in the browser.
#![cfg(target_arch = "wasm32")]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Lazy: a screen's split-out code is fetched before its part of the page hydrates.
    leptos::mount::hydrate_lazy(app::App);
}
