//! Parts of a page that the server renders and that follow live updates
//! without WebAssembly. In the islands build, a screen that only shows what
//! the server read (the Overview; the lists of Jobs and Infrastructure, whose
//! row actions are plain forms, `pages::plain_action`) needs no island for
//! it: its part is drawn again
//! from the server's HTML by the page's early script
//! (assets/live_regions.js). When a change names one of the region's topics,
//! the script fetches the page again and puts the region's new contents in
//! place. The page then loads only the main module, and is interactive as
//! soon as the frame is.
//!
//! An island's action that the live stream does not announce (a new install
//! token) asks for the regions to be drawn again: [`crate::live::Live::changed_here`],
//! or, for what no topic covers (an API token), [`crate::live::Live::changed_on_page`]
//! with a word the region names in `local`.
//!
//! The full build hydrates the whole page, so there the region's contents
//! are ordinary components that re-read on live updates (crate::live), and
//! the region is a plain `<div>` the script leaves alone.
//!
//! A page with a region is rendered whole before it is sent (the route's
//! `SsrMode::Async`; `server/tests/pages.rs` checks each). The script reads the region from the fetched HTML and
//! does not run Leptos' streaming scripts.

use crate::islands::IslandsBuild;
use leptos::prelude::*;
use protocol::live::LiveTopic;

/// A live region: `children`, drawn again from the server's HTML when one of
/// `topics` changes, or a change made on the page names one of `local`
/// (islands build). `id` must be unique on the page: the script finds the
/// region's new contents by it.
#[component]
pub fn LiveRegion(
    id: &'static str,
    #[prop(optional)] topics: &'static [LiveTopic],
    #[prop(optional)] local: &'static [&'static str],
    children: Children,
) -> impl IntoView {
    // Only the server knows which build the page is for. The full build's
    // browser hydrates without the attribute, and its server renders none.
    let words = use_context::<IslandsBuild>().map(|_| {
        topics
            .iter()
            .map(|topic| topic.word())
            .chain(local.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    });
    // The topics it follows, as the stream's events name them.
    view! { <div id=id data-live-region=words>{children()}</div> }
}

#[cfg(test)]
mod tests {
    /// The script looks for the attribute the component writes, listens to
    /// the stream's change events and reads their topics.
    #[test]
    fn the_early_script_redraws_the_regions_the_component_marks() {
        let script = include_str!("assets/live_regions.js");
        assert!(script.contains("\"[data-live-region]\""));
        assert!(script.contains("getAttribute(\"data-live-region\")"));
        let event = protocol::live::CHANGE_EVENT;
        assert!(script.contains(&format!("addEventListener(\"{event}\"")));
        assert!(script.contains(".topics"));
    }
}
