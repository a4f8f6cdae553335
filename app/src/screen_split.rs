//! How a page's code reaches the browser. In the islands build (the one
//! shipped) each lazy island is its own split module of the WebAssembly
//! (`--split`); in the full build each screen is, loaded with its route. A
//! module's chunk files come in one request (`assets/chunk_batch.js` gathers
//! the loader's fetches; the server answers /pkg/batch/…), and the
//! server-rendered page preloads that request and the loader, so they load
//! beside the main module instead of after it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Gathers the split loader's chunk fetches into one request; inlined in
/// the page's `<head>` so it runs before the loader.
pub const CHUNK_BATCH_JS: &str = include_str!("assets/chunk_batch.js");

/// How many chunk files the loader asks for in one request (the script's
/// `MAX_FILES`). The server groups a screen's preloads the same way. The
/// largest island has about 340; with [`BATCH_KEY_CHARS`] a list of 400 is a
/// URL of about 4.8 KB, within what proxies take (nginx: 8 KB a line).
pub const CHUNK_BATCH_FILES: usize = 400;

/// A chunk's name in a batch URL: the first characters of its content hash
/// (the script's `KEY_CHARS`). 66 bits tell a build's few hundred chunks
/// apart, and what a URL once meant, since browsers keep it for good; the
/// server refuses a key two files of its build share.
pub const BATCH_KEY_CHARS: usize = 11;

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

/// What the pages preload, from the build's split manifest
/// (server/src/http/chunk_batch.rs): each split module's chunk files, by
/// content hash, and the split loader's path. Empty when the build was not
/// split.
#[derive(Clone, Debug, Default)]
pub struct ScreenPreloads {
    pub chunks: Arc<HashMap<String, Vec<String>>>,
    pub loader: Option<String>,
    /// The chunk keys one page has named so far ([`Self::for_page`]).
    named: Arc<Mutex<HashSet<String>>>,
}

impl ScreenPreloads {
    pub fn new(chunks: HashMap<String, Vec<String>>, loader: Option<String>) -> Self {
        Self {
            chunks: Arc::new(chunks),
            loader,
            named: Arc::default(),
        }
    }

    /// The same build's preloads for one page, which has named nothing yet.
    pub fn for_page(&self) -> Self {
        Self {
            named: Arc::default(),
            ..self.clone()
        }
    }

    /// Of `hashes`, those whose chunks the page has not named yet; they
    /// count as named from now on. A page names a chunk once: an island that
    /// names its own code (for the screens that show it outside a Suspense)
    /// adds nothing where its page named it up front. Otherwise whether that
    /// second, smaller batch made it into the `<head>` would depend on how
    /// fast the Suspense resolved, and a page would preload one batch on one
    /// visit and another on the next, fetching it again.
    pub fn not_yet_named(&self, hashes: Vec<String>) -> Vec<String> {
        // A panic elsewhere while holding it leaves a set that is still usable.
        let mut named = self.named.lock().unwrap_or_else(|e| e.into_inner());
        hashes
            .into_iter()
            .filter(|h| named.insert(batch_key(h).to_string()))
            .collect()
    }
}

/// A chunk's key in batch URLs, from its content hash.
pub fn batch_key(hash: &str) -> &str {
    hash.get(..BATCH_KEY_CHARS).unwrap_or(hash)
}

/// The batch URLs the page's loader asks for when it needs these chunks
/// (content hashes): the grouping of assets/chunk_batch.js (keys sorted,
/// each chunk once, [`CHUNK_BATCH_FILES`] per request), or a preload would
/// name a URL the page never fetches while the page fetches one not named.
pub fn batch_urls(hashes: Vec<String>) -> Vec<String> {
    let mut keys: Vec<&str> = hashes.iter().map(|h| batch_key(h)).collect();
    // Chunks with the same bytes share a hash: a batch carries them once.
    keys.sort();
    keys.dedup();
    keys.chunks(CHUNK_BATCH_FILES)
        .map(|group| format!("/pkg/batch/{}", group.join(".")))
        .collect()
}

/// Names the files of the split `modules` in the page's `<head>`: their
/// chunks in as few batches as the loader takes them in (a chunk two modules
/// share comes once), and the split loader (server side only; nothing when
/// the build was not split).
pub fn preload_modules(modules: &[&str]) {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::*;
        use leptos_meta::Link;
        let Some(preloads) = use_context::<ScreenPreloads>() else {
            return;
        };
        let (Some(loader), false) = (&preloads.loader, modules.is_empty()) else {
            return;
        };
        let chunks: Vec<String> = modules
            .iter()
            .filter_map(|module| preloads.chunks.get(*module))
            .flatten()
            .cloned()
            .collect();
        let chunks = preloads.not_yet_named(chunks);
        if chunks.is_empty() {
            return;
        }
        // to_html registers a leptos_meta link with the page's head.
        for href in batch_urls(chunks) {
            _ = view! { <Link rel="preload" href=href as_="fetch" crossorigin="anonymous" /> }
                .to_html();
        }
        _ = view! { <Link rel="modulepreload" href=loader.clone() crossorigin="anonymous" /> }
            .to_html();
    }
    #[cfg(not(feature = "ssr"))]
    let _ = modules;
}

/// Names the files of the `#[lazy]` functions `names` in the page's
/// `<head>`, as [`preload_modules`] does; a function's module is its name
/// plus the number the macro adds for each build.
pub fn preload_lazy(names: &[&str]) {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::*;
        let Some(preloads) = use_context::<ScreenPreloads>() else {
            return;
        };
        let modules: Vec<&str> = names
            .iter()
            .filter_map(|name| {
                let prefix = format!("{name}_");
                let found = preloads.chunks.keys().find(|module| {
                    module
                        .strip_prefix(&prefix)
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                });
                // A misspelt name costs a phone a round trip, silently:
                // say so where the developer looks.
                if found.is_none() {
                    tracing::warn!(name, "no split module of this name to preload");
                }
                found
            })
            .map(String::as_str)
            .collect();
        preload_modules(&modules);
    }
    #[cfg(not(feature = "ssr"))]
    let _ = names;
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
                $crate::screen_split::preload_modules(&[stringify!($module)]);
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

    /// A content hash whose key is `n`, with more after it.
    fn hash(n: usize) -> String {
        format!("{n:0>11}tail{n:0>7}")
    }

    fn key(n: usize) -> String {
        format!("{n:0>11}")
    }

    #[test]
    fn a_page_preloads_the_batches_its_loader_asks_for() {
        // Unsorted, one chunk twice: one batch of keys, sorted, each chunk once.
        let few = batch_urls(vec![hash(3), hash(1), hash(3), hash(2)]);
        assert_eq!(
            few,
            [format!("/pkg/batch/{}.{}.{}", key(1), key(2), key(3))]
        );
        // More than a request carries: split where the loader splits.
        let many = batch_urls((0..CHUNK_BATCH_FILES + 10).rev().map(hash).collect());
        assert_eq!(many.len(), 2, "{many:?}");
        let first: Vec<String> = (0..CHUNK_BATCH_FILES).map(key).collect();
        assert_eq!(many[0], format!("/pkg/batch/{}", first.join(".")));
        assert_eq!(many[1].matches('.').count(), 9);
        assert!(batch_urls(Vec::new()).is_empty());
    }

    #[test]
    fn a_page_names_each_chunk_once() {
        let build = ScreenPreloads::new(HashMap::new(), None);
        let page = build.for_page();
        // The page names two islands up front; one of them later names its own code.
        assert_eq!(
            page.not_yet_named(vec![hash(1), hash(2), hash(3)]),
            [hash(1), hash(2), hash(3)]
        );
        assert!(page.not_yet_named(vec![hash(2), hash(1)]).is_empty());
        // Code the page had not named is named, without what it shares.
        assert_eq!(page.not_yet_named(vec![hash(3), hash(4)]), [hash(4)]);
        // The next page starts afresh.
        assert_eq!(build.for_page().not_yet_named(vec![hash(1)]), [hash(1)]);
    }

    #[test]
    fn the_loader_script_batches_as_the_server_preloads() {
        for declared in [
            format!("var MAX_FILES = {CHUNK_BATCH_FILES};"),
            format!("var KEY_CHARS = {BATCH_KEY_CHARS};"),
        ] {
            assert!(
                CHUNK_BATCH_JS.contains(&declared),
                "assets/chunk_batch.js must say `{declared}`"
            );
        }
    }
}
