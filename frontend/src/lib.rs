//! Hydrates the server-rendered page in the browser.
#![cfg(target_arch = "wasm32")]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
