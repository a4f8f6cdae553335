//! Live updates in the browser: one `EventSource` per loaded document, opened
//! by the page's early script (assets/live_stream.js), listens to
//! `GET /api/v1/events`; the front end bumps a counter per topic. Screens read the
//! counters in their resources' sources, so a change re-reads just what the
//! screen shows, without a reload. On the server both counters stay 0, so the
//! first render in the browser matches the server's.
//!
//! While a confirmation dialog is open, changes are held back and applied
//! when it closes: redrawing the screen under the dialog would close it.

use leptos::prelude::*;
use protocol::live::LiveTopic;

#[derive(Clone, Copy)]
pub struct Live {
    agents: RwSignal<u64>,
    jobs: RwSignal<u64>,
    progress: RwSignal<u64>,
    /// Changes made on this page that no topic of the stream covers.
    on_page: RwSignal<u64>,
    /// Whether the stream is open; shown in the top bar.
    connected: RwSignal<bool>,
    /// Open dialogs holding changes back, and the topics that changed meanwhile.
    held: RwSignal<u32>,
    missed: RwSignal<Vec<LiveTopic>>,
}

impl Live {
    /// Changes when Agents or their components change (tracked).
    pub fn agents(&self) -> u64 {
        self.agents.get()
    }

    /// Changes when a job is queued, claimed or ends (tracked).
    pub fn jobs(&self) -> u64 {
        self.jobs.get()
    }

    /// Changes when a running job reports progress (tracked).
    pub fn progress(&self) -> u64 {
        self.progress.get()
    }

    /// Changes when this page made a change that no topic of the stream
    /// covers (an API token created), [`Live::changed_on_page`] (tracked).
    pub fn on_page(&self) -> u64 {
        self.on_page.get()
    }

    fn counter(&self, topic: LiveTopic) -> RwSignal<u64> {
        match topic {
            LiveTopic::Agents => self.agents,
            LiveTopic::Jobs => self.jobs,
            LiveTopic::Progress => self.progress,
        }
    }

    pub fn connected(&self) -> bool {
        self.connected.get()
    }

    #[cfg(feature = "hydrate")]
    fn bump(&self, topic: LiveTopic) {
        if self.held.get_untracked() > 0 {
            self.missed.update(|missed| {
                if !missed.contains(&topic) {
                    missed.push(topic);
                }
            });
            return;
        }
        self.counter(topic).update(|n| *n += 1);
    }

    /// Counts a change the stream does not announce (a new install token)
    /// as one of `topic`, so that what follows that topic is drawn again
    /// now: in the full build the parts that read it, in the islands build
    /// the page's live regions that name it (crate::live_region).
    pub fn changed_here(&self, topic: LiveTopic) {
        #[cfg(feature = "hydrate")]
        {
            self.bump(topic);
            redraw_regions(topic.word());
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = topic;
    }

    /// Counts a change made on this page that no topic of the stream covers
    /// (an API token created), so that what shows it is drawn again now: in
    /// the full build the parts that read [`Live::on_page`], in the islands
    /// build the page's live regions that name `region_word`
    /// (crate::live_region).
    pub fn changed_on_page(&self, region_word: &'static str) {
        #[cfg(feature = "hydrate")]
        {
            self.on_page.update(|n| *n += 1);
            redraw_regions(region_word);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = region_word;
    }

    /// Holds changes back (a dialog opened).
    pub fn hold(&self) {
        self.held.update(|n| *n += 1);
    }

    /// Ends one hold; the last one applies what changed meanwhile.
    pub fn release(&self) {
        self.held.update(|n| *n = n.saturating_sub(1));
        if self.held.get_untracked() == 0 {
            for topic in self.missed.get_untracked() {
                self.counter(topic).update(|n| *n += 1);
            }
            self.missed.set(Vec::new());
        }
    }
}

fn new_live() -> Live {
    Live {
        agents: RwSignal::new(0),
        jobs: RwSignal::new(0),
        progress: RwSignal::new(0),
        on_page: RwSignal::new(0),
        connected: RwSignal::new(false),
        held: RwSignal::new(0),
        missed: RwSignal::new(Vec::new()),
    }
}

/// Provides the counters to every screen; in the browser also takes on the
/// stream the page opened early, except on screens seen signed out.
pub fn provide_live() {
    let live = new_live();
    provide_context(live);
    #[cfg(feature = "hydrate")]
    // Reads no signal, so it runs once, after hydration.
    Effect::new(move |_| connect(live));
}

/// The counters. Outside the app's root, in an island of the islands build
/// (crate::islands), the document's one set, its stream taken on first use;
/// on the server outside the app (tests of single components) counters that
/// never change.
pub fn use_live() -> Live {
    use_context::<Live>().unwrap_or_else(document_live)
}

#[cfg(feature = "hydrate")]
fn document_live() -> Live {
    thread_local! {
        static LIVE: std::cell::OnceCell<Live> = const { std::cell::OnceCell::new() };
    }
    LIVE.with(|cell| {
        *cell.get_or_init(|| {
            // Its own root, kept for the document's life: no island owns it.
            let owner = Owner::new_root(None);
            let live = owner.with(new_live);
            std::mem::forget(owner);
            connect(live);
            live
        })
    })
}

#[cfg(not(feature = "hydrate"))]
fn document_live() -> Live {
    new_live()
}

/// The topics a change event names ([`protocol::live::LiveChange`]), read
/// with the browser's JSON parser: every page's main module listens to the
/// stream, and serde_json's decoder would be there for this alone.
#[cfg(feature = "hydrate")]
fn changed_topics(text: &str) -> Vec<LiveTopic> {
    let Ok(change) = js_sys::JSON::parse(text) else {
        return Vec::new();
    };
    let Ok(topics) = js_sys::Reflect::get(&change, &"topics".into()) else {
        return Vec::new();
    };
    if !js_sys::Array::is_array(&topics) {
        return Vec::new();
    }
    js_sys::Array::from(&topics)
        .iter()
        .filter_map(|word| word.as_string())
        .filter_map(|word| LiveTopic::from_word(&word))
        .collect()
}

/// Asks the page's early script (assets/live_regions.js) to draw again
/// the live regions that name `word`; none in the full build.
#[cfg(feature = "hydrate")]
fn redraw_regions(word: &str) {
    use wasm_bindgen::JsCast;
    let redraw = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"knotrouteRedrawRegions".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(redraw) = redraw {
        let topics = js_sys::Array::of1(&word.into());
        let _ = redraw.call1(&wasm_bindgen::JsValue::NULL, &topics);
    }
}

/// Listens to the stream the page's early script opened
/// (assets/live_stream.js), which the document keeps for its life:
/// `window.knotrouteLive.source`, absent on pages seen signed out. The browser
/// reconnects on its own after an interruption, and every reconnection
/// re-reads all topics, since changes may have been missed meanwhile.
#[cfg(feature = "hydrate")]
fn connect(live: Live) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Some(source) = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"knotrouteLive".into()).ok())
        .filter(|early| early.is_object())
        .and_then(|early| js_sys::Reflect::get(&early, &"source".into()).ok())
        .and_then(|source| source.dyn_into::<web_sys::EventSource>().ok())
    else {
        return;
    };
    let on_change =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let Some(text) = e.data().as_string() else {
                return;
            };
            for topic in changed_topics(&text) {
                live.bump(topic);
            }
        });
    let opened = move |again: bool| {
        live.connected.set(true);
        crate::mark_timing("knotroute-live");
        if again {
            for topic in [LiveTopic::Agents, LiveTopic::Jobs, LiveTopic::Progress] {
                live.bump(topic);
            }
        }
    };
    // Opened already, before this module was loaded: what changed since is
    // told again once the page has hydrated, so nothing is re-read. Shown
    // once the part being hydrated now is done, as an open event would be.
    let mut opened_before = source.ready_state() == web_sys::EventSource::OPEN;
    if opened_before {
        leptos::task::spawn_local(async move { opened(false) });
    }
    let on_open = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        opened(opened_before);
        opened_before = true;
    });
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        live.connected.set(false);
    });
    let _ = source.add_event_listener_with_callback(
        protocol::live::CHANGE_EVENT,
        on_change.as_ref().unchecked_ref(),
    );
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // One stream per document, kept until the page unloads.
    on_change.forget();
    on_open.forget();
    on_error.forget();
}

#[cfg(test)]
mod tests {
    /// The page's early script (assets/live_stream.js) opens the stream the
    /// server serves, and keeps and tells again the events the front end reads.
    #[test]
    fn the_early_script_opens_the_servers_stream() {
        let script = include_str!("assets/live_stream.js");
        let path = protocol::live::EVENTS_PATH;
        let event = protocol::live::CHANGE_EVENT;
        assert!(script.contains(&format!("new EventSource(\"{path}\")")));
        assert!(script.contains(&format!("addEventListener(\"{event}\"")));
        assert!(script.contains(&format!("new MessageEvent(\"{event}\"")));
    }
}
