//! The public invite page `/join/<token>`: what an end user opens on a phone.
//! Plain server-rendered HTML (no WebAssembly, readable without JavaScript;
//! a few lines of script only add copy buttons), mobile-first, small, in the
//! visitor's language, never indexed and rate-limited per client address.
//! Link previews and HEAD requests use up no open, so they get the title
//! only: nothing to join the network with.

use super::extract::{came_over_https, client_address, cookie_value};
use super::invite_text::{invite_texts, InviteTexts};
use super::lang::request_lang;
use super::security::CspNonce;
use super::throttle::AddressThrottle;
use crate::domain::onboarding::guide::{guide_text, qr_svg};
use crate::domain::onboarding::guide_text::{qr_label, qr_too_long};
use crate::domain::onboarding::invites::{
    InvitePreview, InviteRefusal, OpenError, OpenedInvite, Visit,
};
use crate::http::extract::{FromPathText, PathParam};
use crate::state::AppState;
use app::i18n::onboarding::platform_label;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use cookie::{Cookie, SameSite};
use leptos::prelude::*;
use leptos::tachys::view::RenderHtml;
use protocol::onboarding::Platform;
use protocol::Lang;
use serde::Deserialize;
use std::net::SocketAddr;
use std::num::NonZeroU32;

/// Page views per client address: a burst of this many, refilled one per second.
const PAGES_PER_MINUTE: u32 = 60;
/// Marks a browser this invite already counted (value: the invite's visitor
/// key), so reloads and language switches do not use up its opens.
const COUNTED_COOKIE: &str = "kr_invite_counted";

/// Robots that fetch a link pasted into a chat to draw its preview: they must
/// not use up an invite meant for a person. Only the fetchers' own tokens
/// count: the in-app browsers of the same apps (`Telegram-Android/…`,
/// `WhatsApp` inside a `Mozilla/…` string) and phones named `…bot` carry
/// people, who must see the invite.
fn is_link_preview(user_agent: &str) -> bool {
    const FETCHERS: [&str; 8] = [
        "facebookexternalhit",
        "skypeuripreview",
        "vkshare",
        "embedly",
        "crawler",
        "spider",
        "slack-imgproxy",
        "preview",
    ];
    let ua = user_agent.to_ascii_lowercase();
    if FETCHERS.iter().any(|p| ua.contains(p)) {
        return true;
    }
    // WhatsApp's fetcher says `WhatsApp/2.23…` and nothing of a browser.
    if ua.starts_with("whatsapp/") && !ua.contains("mozilla") {
        return true;
    }
    // `Googlebot/2.1`, `TelegramBot (like TwitterBot)`, `Slackbot-LinkExpanding`,
    // `Discordbot/2.0`: a word ending in "bot" followed by a version, a dash,
    // a space and a parenthesis, or the end. `CUBOT X30` is a phone.
    ua.match_indices("bot").any(|(at, _)| {
        // "bot" ends a longer word (`googlebot`), not stands alone.
        let ends_a_word = ua[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphabetic());
        let rest = &ua[at + 3..];
        ends_a_word
            && (rest.is_empty()
                || rest.starts_with('/')
                || rest.starts_with('-')
                || rest.starts_with(" (")
                || rest.starts_with(';'))
    })
}

/// The per-address limiter for invite pages (in memory, per replica).
pub fn invite_throttle() -> AddressThrottle {
    AddressThrottle::per_minute(NonZeroU32::new(PAGES_PER_MINUTE).expect("non-zero"))
}

/// What a visit is shown: a person the invite, a preview its title.
enum Shown {
    Page(Box<OpenedInvite>),
    Preview(InvitePreview),
}

#[derive(Deserialize)]
pub struct PageQuery {
    lang: Option<String>,
    /// Set by the preview page's link: a person asks for the invite itself
    /// (and uses up an open), whatever their browser calls itself.
    open: Option<String>,
}

/// An invite link's secret as `/join/{token}` carries it: 43 URL-safe
/// characters when Control made it. Anything else cannot match, so it is
/// answered as an unknown link without being looked up.
pub struct LinkToken(String);

impl FromPathText for LinkToken {
    fn from_path_text(text: &str) -> Option<Self> {
        let plausible = !text.is_empty()
            && text.len() <= 64
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        plausible.then(|| LinkToken(text.to_string()))
    }
}

/// `GET /join/{token}`.
pub async fn show(
    method: Method,
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Extension(nonce): Extension<CspNonce>,
    PathParam(token): PathParam<LinkToken>,
    Query(query): Query<PageQuery>,
    headers: HeaderMap,
) -> Response {
    let lang = query
        .lang
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or_else(|| request_lang(&headers));
    let t = invite_texts(lang);
    let client = client_address(&headers, Some(peer), &state.config.trusted_proxies);
    if let Err(wait) = state.invite_throttle.check(&client) {
        let mut response = refusal_page(
            StatusCode::TOO_MANY_REQUESTS,
            t.busy_title,
            t.busy_body,
            "",
            lang,
            &nonce,
        );
        if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return response;
    }
    let mark = cookie_value(&headers, COUNTED_COOKIE);
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // axum sends HEAD the headers of this answer without its body; it is
    // the preview all the same, so that no route to the content is uncounted.
    let asked_to_open = query.open.is_some();
    let preview = method == Method::HEAD || (is_link_preview(user_agent) && !asked_to_open);
    let token = token.map(|t| t.0).unwrap_or_default();
    let opened = if token.is_empty() {
        Err(OpenError::Refused(InviteRefusal::Unknown))
    } else if preview {
        state.invites.preview(&token).await.map(Shown::Preview)
    } else {
        let visit = Visit {
            mark: mark.as_deref(),
            platform: Platform::detect(user_agent),
        };
        let opened = state.invites.open(&token, visit).await;
        opened.map(|o| Shown::Page(Box::new(o)))
    };
    match opened {
        Ok(Shown::Preview(preview)) => preview_page(&preview, &token, lang, &nonce),
        Ok(Shown::Page(opened)) => {
            let mut response = invite_page(&opened, Platform::detect(user_agent), lang, &nonce);
            if let Some(mark) = &opened.counted_mark {
                let cookie = Cookie::build((COUNTED_COOKIE, mark.clone()))
                    .path(format!("/join/{token}"))
                    .http_only(true)
                    .same_site(SameSite::Lax)
                    .secure(came_over_https(&headers, Some(peer), &state.config))
                    .max_age(cookie::time::Duration::days(366))
                    .build()
                    .to_string();
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    response.headers_mut().append(header::SET_COOKIE, v);
                }
            }
            response
        }
        Err(OpenError::Refused(why)) => {
            let (status, title, body) = match why {
                InviteRefusal::Unknown => (StatusCode::NOT_FOUND, t.unknown_title, t.unknown_body),
                InviteRefusal::Expired => (StatusCode::GONE, t.expired_title, t.expired_body),
                InviteRefusal::Revoked => (StatusCode::GONE, t.revoked_title, t.revoked_body),
                InviteRefusal::UsedUp => (StatusCode::GONE, t.used_up_title, t.used_up_body),
            };
            refusal_page(status, title, body, t.ask, lang, &nonce)
        }
        Err(OpenError::Store(e)) => {
            tracing::error!(error = %e, "opening an invite failed");
            refusal_page(
                StatusCode::SERVICE_UNAVAILABLE,
                t.unavailable_title,
                t.unavailable,
                t.ask,
                lang,
                &nonce,
            )
        }
    }
}

/// Small, self-contained styles: the page needs no other request.
const STYLE: &str = "body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1f24;background:#f6f7f9}\
main{max-width:40rem;margin:0 auto;padding:1rem}h1{font-size:1.5rem;margin:.5rem 0}\
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}.lang{text-align:right;margin:0}.lang a{margin-left:.75rem}\
a{color:#0b57d0}.open{display:block;text-align:center;padding:.9rem;border-radius:.5rem;background:#0b57d0;color:#fff;font-weight:600;text-decoration:none;font-size:1.1rem}\
.open:focus-visible,summary:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #e8a400;outline-offset:2px}\
details{background:#fff;border:1px solid #d0d5dd;border-radius:.5rem;margin:.5rem 0;padding:.25rem .75rem}\
summary{cursor:pointer;font-weight:600;padding:.5rem 0}ol{padding-left:1.25rem}li{margin:.5rem 0}\
pre,code{font-family:ui-monospace,monospace;font-size:.85rem}pre{background:#eef0f3;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:.25rem 0}\
.qr{max-width:16rem;margin:0 auto;background:#fff;padding:.5rem}.qr svg{width:100%;height:auto;display:block}\
#beacons{padding:0;list-style:none}.value{display:flex;gap:.5rem;align-items:flex-start}.value code{flex:1;word-break:break-all;background:#fff;border:1px solid #d0d5dd;padding:.4rem;border-radius:.25rem}\
button{font:inherit;padding:.35rem .75rem;border-radius:.25rem;border:1px solid #8a94a6;background:#fff}\
.note,.muted{color:#4a5363;font-size:.9rem}.warn{background:#fff4d6;border:1px solid #e8a400;padding:.5rem;border-radius:.25rem}\
@media(prefers-color-scheme:dark){body{background:#111418;color:#e6e8eb}details,.value code,button{background:#1b1f24;color:#e6e8eb;border-color:#3a414c}pre{background:#22272e}a{color:#8ab4f8}.open{background:#1a73e8;color:#fff}.note,.muted{color:#a8b0bd}.warn{background:#3b2f0b}}";

/// Turns the hidden copy buttons on: without JavaScript the values stay selectable text.
const SCRIPT: &str = "if(navigator.clipboard)document.querySelectorAll('button[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){navigator.clipboard.writeText(b.getAttribute('data-copy')).then(function(){var t=b.textContent;b.textContent=b.getAttribute('data-done');setTimeout(function(){b.textContent=t},1500)})})})";

/// A public page's answer: HTML, never indexed (the welcome page uses it too).
pub(super) fn html_response(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        "x-robots-tag",
        HeaderValue::from_static("noindex, nofollow"),
    );
    response
}

/// The document around a page body: language, noindex, the title also for
/// link previews (og:title), styles, copy script.
fn document(lang: Lang, title: &str, nonce: &CspNonce, body: impl RenderHtml) -> String {
    let nonce = nonce.0.clone();
    view! {
        <!DOCTYPE html>
        <html lang=lang.code()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="robots" content="noindex, nofollow" />
                <meta name="referrer" content="no-referrer" />
                <title>{title.to_string()}</title>
                {leptos::tachys::html::element::meta().attr("property", "og:title").content(title.to_string())}
                <style nonce=nonce.clone() inner_html=STYLE></style>
            </head>
            <body>
                <main>
                    <p class="lang">
                        <a href="?lang=en" hreflang="en" lang="en" aria-current=(lang == Lang::En).then_some("true")>"English"</a>
                        <a href="?lang=ru" hreflang="ru" lang="ru" aria-current=(lang == Lang::Ru).then_some("true")>"Русский"</a>
                    </p>
                    {body}
                </main>
                <script nonce=nonce inner_html=SCRIPT></script>
            </body>
        </html>
    }
    .to_html()
}

/// A copy button for `value`, named after what it copies; hidden until the
/// script finds a clipboard (plain-HTTP pages have none).
fn copy_button(t: &InviteTexts, what: &str, value: &str) -> impl RenderHtml {
    view! {
        <button type="button" hidden data-copy=value.to_string() data-done=t.copied
            aria-label=format!("{} {what}", t.copy) aria-live="polite">{t.copy}</button>
    }
}

fn invite_page(
    opened: &OpenedInvite,
    detected: Option<Platform>,
    lang: Lang,
    nonce: &CspNonce,
) -> Response {
    let t = invite_texts(lang);
    let invite = &opened.invite;
    let profile = &opened.profile;
    let heading = format!("{} {}{}{}", t.join, t.quotes.0, invite.name, t.quotes.1);
    let order = Platform::end_user_order(detected);
    // Each platform's steps once; the visitor's own (the first) also gives the
    // link, the QR code and the profile's warning.
    let guides: Vec<_> = order
        .iter()
        .map(|p| guide_text(profile, &invite.name, *p, lang))
        .collect();
    let (uri, warning) = (guides[0].uri.clone(), guides[0].warning.clone());
    let platforms = guides
        .into_iter()
        .enumerate()
        .map(|(i, g)| {
            let platform = g.platform;
            let steps = g
                .steps
                .into_iter()
                .map(|s| view! { <li>{s.text}{s.code.map(|c| view! { <pre>{c}</pre> })}</li> })
                .collect_view();
            let heading = (i == 1).then(|| view! { <h2>{t.other_devices}</h2> });
            let open = i == 0;
            view! {
                {heading}
                <details id=format!("platform-{}", platform.slug()) class="platform" data-platform=platform.slug() open=open>
                    <summary>{platform_label(platform)}</summary>
                    <ol>{steps}</ol>
                </details>
            }
        })
        .collect_view();
    let beacons = profile
        .beacons
        .iter()
        .map(|b| view! { <li class="value"><code class="beacon">{b.clone()}</code>{copy_button(t, b, b)}</li> })
        .collect_view();
    let expires = invite
        .expires_at
        .map(|at| view! { <p class="muted" id="expires">{format!("{} {}.", t.expires, at.format("%Y-%m-%d %H:%M UTC"))}</p> });
    let body = view! {
        <h1>{heading.clone()}</h1>
        <p>{t.intro}</p>
        {warning.map(|w| view! { <p class="warn" role="note">{w}</p> })}
        <a class="open" id="open-app" href=uri.clone()>{t.open_app}</a>
        <p class="muted">{t.open_hint}</p>
        <h2>{t.your_device}</h2>
        {platforms}
        <h2>{t.scan_title}</h2>
        <p class="muted">{t.scan_hint}</p>
        {match qr_svg(&uri, qr_label(lang)) {
            Some(svg) => view! { <div class="qr" id="qr" inner_html=svg></div> }.into_any(),
            None => view! { <p class="warn">{qr_too_long(lang)}</p> }.into_any(),
        }}
        <h2>{t.details_title}</h2>
        <p>{t.network_id}</p>
        <p class="value"><code id="network-id">{profile.id.to_string()}</code>{copy_button(t, t.network_id, profile.id.as_str())}</p>
        {(!profile.beacons.is_empty()).then(|| view! { <p>{t.beacons}</p><ul id="beacons">{beacons}</ul> })}
        <p class="note" id="no-secrets">{t.no_secrets}</p>
        {expires}
    };
    html_response(StatusCode::OK, document(lang, &heading, nonce, body))
}

/// The title and a line saying where the rest is: no Network ID, Beacon,
/// deep link or QR code, since nothing was counted.
fn preview_page(preview: &InvitePreview, token: &str, lang: Lang, nonce: &CspNonce) -> Response {
    let t = invite_texts(lang);
    let heading = format!("{} {}{}{}", t.join, t.quotes.0, preview.name, t.quotes.1);
    // A person taken for a robot follows this; preview fetchers follow no links.
    let open = format!("/join/{token}?open=1&lang={}", lang.code());
    let body = view! {
        <h1>{heading.clone()}</h1>
        <p id="preview">{t.preview_body}</p>
        <p><a id="show-invite" href=open rel="nofollow">{t.preview_open}</a></p>
    };
    html_response(StatusCode::OK, document(lang, &heading, nonce, body))
}

fn refusal_page(
    status: StatusCode,
    title: &str,
    body: &str,
    ask: &str,
    lang: Lang,
    nonce: &CspNonce,
) -> Response {
    let content = view! {
        <h1 id="refusal" data-status=status.as_u16()>{title.to_string()}</h1>
        <p>{body.to_string()}</p>
        <p>{ask.to_string()}</p>
    };
    html_response(status, document(lang, title, nonce, content))
}

#[cfg(test)]
mod tests {
    use super::is_link_preview;

    #[test]
    fn preview_fetchers_are_told_from_people_in_in_app_browsers() {
        for fetcher in [
            "TelegramBot (like TwitterBot)",
            "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
            "Slack-ImgProxy (+https://api.slack.com/robots)",
            "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
            "WhatsApp/2.23.20.0",
            "facebookexternalhit/1.1",
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "Twitterbot/1.0",
            "SkypeUriPreview Preview/0.5",
            "Googlebot",
        ] {
            assert!(is_link_preview(fetcher), "{fetcher}");
        }
        for person in [
            "Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0 Mobile Safari/537.36 Telegram-Android/10.5.0 (Google Pixel 7; Android 13; SDK 33; HIGH)",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 WhatsApp/2.23.20.0",
            "Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Mobile Safari/537.36",
            "Mozilla/5.0 (Linux; Android 12; KINGKONG 9) AppleWebKit/537.36 Chrome/118.0 Mobile Safari/537.36 Discord/205.15",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
            "",
        ] {
            assert!(!is_link_preview(person), "{person}");
        }
    }
}
