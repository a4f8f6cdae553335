//! How a screen's code reaches the browser. Each screen is its own split
//! module of the WebAssembly (`--split`), loaded with its route. Its chunk
//! files come in one request (`assets/chunk_batch.js` gathers the loader's
//! fetches; the server answers /pkg/batch/…), and the server-rendered page
//! preloads that request and the loader, so they load beside the main module
//! instead of after it.

use std::collections::HashMap;
use std::sync::Arc;

/// Gathers the split loader's chunk fetches into one request; inlined in
/// the page's `<head>` so it runs before the loader.
pub const CHUNK_BATCH_JS: &str = include_str!("assets/chunk_batch.js");

/// How many chunk files the loader asks for in one request (the script's
/// `MAX_FILES`). The server groups a screen's preloads the same way.
pub const CHUNK_BATCH_FILES: usize = 160;

/// The icon as a `data:` URL (the CSP allows `img-src data:`): a browser asks
/// for the icon on every navigation, and on a phone each request is a round trip.
pub fn favicon_data_url() -> &'static str {
    static URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        let svg = include_str!("../../assets/favicon.svg").trim();
        let mut url = String::from("data:image/svg+xml,");
        for c in svg.chars() {
            match c {
                '#' | '%' | '"' | '<' | '>' | '\n' | '\r' => {
                    url.push_str(&format!("%{:02X}", c as u32))
                }
                c => url.push(c),
            }
        }
        url
    })
}

/// What to preload for each screen's split module, by module name: the
/// batch of its chunk files and the split loader. The server builds it from
/// the build's split manifest (server/src/http/chunk_batch.rs).
#[derive(Clone, Debug, Default)]
pub struct ScreenPreloads(pub Arc<HashMap<String, Vec<String>>>);

/// Names the files of `module` in the page's `<head>` (server side only;
/// nothing when the build was not split).
pub fn preload_screen(module: &str) {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::*;
        use leptos_meta::Link;
        let Some(preloads) = use_context::<ScreenPreloads>() else {
            return;
        };
        for href in preloads.0.get(module).into_iter().flatten() {
            // to_html registers a leptos_meta link with the page's head.
            if href.ends_with(".js") {
                _ = view! { <Link rel="modulepreload" href=href.clone() crossorigin="anonymous" /> }
                    .to_html();
            } else {
                _ = view! {
                    <Link rel="preload" href=href.clone() as_="fetch" crossorigin="anonymous" />
                }
                .to_html();
            }
        }
    }
    #[cfg(not(feature = "ssr"))]
    let _ = module;
}

/// Names the files of the `#[lazy]` function `name` in the page's `<head>`,
/// as [`preload_screen`] does; its module is `name` plus the number the
/// macro adds for each build.
pub fn preload_lazy(name: &str) {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::*;
        let Some(preloads) = use_context::<ScreenPreloads>() else {
            return;
        };
        let prefix = format!("{name}_");
        let module = preloads.0.keys().find(|module| {
            module
                .strip_prefix(&prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        if let Some(module) = module {
            preload_screen(module);
        }
    }
    #[cfg(not(feature = "ssr"))]
    let _ = name;
}

/// A screen whose code is its own split module, named `$module` (the
/// manifest's key for it). Written out rather than with leptos'
/// `#[lazy_route]`, whose module names carry a per-build hash: the server
/// must find a screen's files by a name it can know. `preload` loads the
/// module before the router hydrates the screen; without it the router would
/// render the screen a second time beside the server's markup.
// rustfmt re-indents the attribute below deeper on every run: keep it as written.
#[rustfmt::skip]
macro_rules! lazy_screen {
    ($route:ident, $module:ident, $page:path) => {
        pub struct $route;

        mod $module {
            use super::*;

            // Not in the islands build: nothing there shows a screen, and a
            // split function is an export that would keep all of it.
            #[cfg(all(feature = "hydrate", not(feature = "islands")))]
            #[leptos::wasm_split::wasm_split(
                $module,
                wasm_split_path = ::leptos::wasm_split,
                preload(preload)
            )]
            pub fn view() -> AnyView {
                $page().into_any()
            }

            #[cfg(any(not(feature = "hydrate"), feature = "islands"))]
            pub async fn view() -> AnyView {
                $crate::screen_split::preload_screen(stringify!($module));
                $page().into_any()
            }

            #[cfg(any(not(feature = "hydrate"), feature = "islands"))]
            pub async fn preload() {}
        }

        impl LazyRoute for $route {
            fn data() -> Self {
                Self
            }

            async fn view(_this: Self) -> AnyView {
                $module::view().await
            }

            async fn preload() {
                $module::preload().await;
            }
        }
    };
}
pub(crate) use lazy_screen;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loader_script_batches_as_many_files_as_the_server_preloads() {
        let declared = format!("var MAX_FILES = {CHUNK_BATCH_FILES};");
        assert!(
            CHUNK_BATCH_JS.contains(&declared),
            "assets/chunk_batch.js must say `{declared}`"
        );
    }
}
