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

/// Room for the split tool to lay out each module's read-only data apart.
///
/// `--split` gives every split module the data its code reads, at new
/// addresses within the read-only segment's range; where that layout comes
/// out longer than the segment (strings the compiler overlapped, now kept
/// whole in two modules; alignment between modules: about 15 KB here), the
/// tool gives up and leaves the whole segment, every island's texts in both
/// languages, in the main module.
/// These bytes lengthen the segment; nothing reads them, so the split puts
/// them in no module and the page never downloads them.
/// `scripts/build-release.sh` fails (scripts/split-data-check.py) if the
/// main module's data grows back to the whole segment.
#[used]
static SPLIT_DATA_SLACK: [u8; 64 * 1024] = [0x5a; 64 * 1024];

// Nothing of `app` is called by name in the islands build: its islands are
// reached from the page's script. Linked explicitly, or they would be left out.
#[cfg(feature = "islands")]
extern crate app;

/// Present only in the islands build: the server reads it from the main
/// script to choose the page's hydration script (`app::islands`).
#[cfg(feature = "islands")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn islands_build() {}
