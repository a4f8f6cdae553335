//! `GET /api/v1/events`: the admin screens' live updates as server-sent
//! events. Each event names the topics that changed (never the data itself),
//! so a screen re-reads what it shows through the usual, authorised calls.

use crate::domain::access::scope::NetworkScope;
use crate::domain::live::{ChangeFeed, Fingerprint};
use crate::http::extract::Reader;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use protocol::live::{LiveChange, CHANGE_EVENT};
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::watch;

/// A stream ends after this long and the browser reconnects (after
/// `RECONNECT`); the reconnect passes the session check again, so a signed-out
/// or expired session stops receiving events.
const STREAM_LIFETIME: Duration = Duration::from_secs(300);
const RECONNECT: Duration = Duration::from_millis(1000);

/// Changes of what the caller sees: someone who sees only some networks is
/// not told when another network changes.
pub async fn events(State(state): State<AppState>, Reader(who): Reader) -> Response {
    let stream = change_stream(state.live.clone(), who.networks());
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(20)))
        .into_response();
    // Reverse proxies (nginx) would otherwise buffer the stream.
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

struct Listening {
    feed: ChangeFeed,
    receiver: watch::Receiver<Fingerprint>,
    /// What this client's screen reflects. Starts at the value current when
    /// it connected; when that value is stale (nobody was listening), the
    /// first fresh reading causes one needless re-read, never a missed change.
    seen: Fingerprint,
    deadline: tokio::time::Instant,
    greeted: bool,
}

fn change_stream(
    feed: ChangeFeed,
    scope: &NetworkScope,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let mut receiver = feed.subscribe(scope);
    let seen = receiver.borrow_and_update().clone();
    let start = Listening {
        feed,
        receiver,
        seen,
        deadline: tokio::time::Instant::now() + STREAM_LIFETIME,
        greeted: false,
    };
    stream::unfold(start, |mut s| async move {
        if !s.greeted {
            // Tells the browser how soon to come back after the stream ends.
            s.greeted = true;
            let hello = Event::default().comment("live").retry(RECONNECT);
            return Some((Ok(hello), s));
        }
        loop {
            if s.feed.is_closed() {
                return None;
            }
            tokio::select! {
                changed = s.receiver.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
                _ = tokio::time::sleep_until(s.deadline) => return None,
                _ = s.feed.closing() => return None,
            }
            let current = s.receiver.borrow_and_update().clone();
            let topics = current.changed_since(&s.seen);
            s.seen = current;
            if topics.is_empty() {
                continue;
            }
            let data = serde_json::to_string(&LiveChange { topics }).unwrap_or_default();
            return Some((Ok(Event::default().event(CHANGE_EVENT).data(data)), s));
        }
    })
}
