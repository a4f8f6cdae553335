//! What link previews and HEAD requests see of an invite page: its title,
//! never the Network ID, a Beacon URL, the deep link or the QR code, and
//! they use up no open; a person's GET still sees everything and counts.
//! Sent over raw TCP, so the request is exactly what a robot would send.

mod common;

use serde_json::{json, Value};

const ANDROID: &str =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile Safari/537.36";

/// Sends `method path` with `user_agent` as a robot would:
/// (status, header block in lower case, body).
async fn raw(
    c: &common::Control,
    method: &str,
    path: &str,
    user_agent: &str,
) -> (u16, String, String) {
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {user_agent}\r\nConnection: close\r\n\r\n",
        c.addr
    );
    let answer = common::raw_http(c.addr, request.as_bytes()).await;
    (answer.status, answer.head.to_ascii_lowercase(), answer.body)
}

async fn opens(c: &common::Control) -> Value {
    let listed: Vec<Value> = c.get_json("/api/v1/invites").await;
    listed[0]["opens"].clone()
}

on_both_databases!(
    previews_and_head_requests_see_the_title_only_and_count_nothing,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let beacons = ["https://beacon.example.net", "http://10.0.0.2:8080"];
        let network_id = c
            .created_network(json!({"name": "Family", "beacons": beacons}))
            .await;
        let r = c
            .post_json(
                "/api/v1/invites",
                json!({"network_id": network_id, "name": "Petrov family", "max_opens": 1}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let url = r.json::<Value>().await.unwrap()["url"]
            .as_str()
            .unwrap()
            .to_string();
        let path = &url[url.find("/join/").unwrap()..];
        let secret_parts = [
            network_id.as_str(),
            "beacon.example.net",
            "10.0.0.2",
            "knotroute://",
            "<svg",
            r#"id="qr""#,
        ];

        for user_agent in [
            "TelegramBot (like TwitterBot)",
            "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
            "facebookexternalhit/1.1",
            "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
            "WhatsApp/2.23.20.0",
            "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5",
            "Some Link Preview Tool",
            "Googlebot/2.1",
        ] {
            let (status, head, body) = raw(&c, "GET", path, user_agent).await;
            assert_eq!(status, 200, "{user_agent}");
            assert!(head.contains("content-type: text/html"), "{head}");
            assert!(!head.contains("set-cookie"), "{user_agent}: {head}");
            for part in secret_parts {
                assert!(!body.contains(part), "{user_agent} saw {part}: {body}");
            }
            assert!(body.contains("Petrov family"), "{user_agent}: {body}");
            assert!(body.contains(r#"<meta property="og:title""#), "{body}");
        }

        // HEAD, even from a phone: the headers of the preview, no body.
        let (get_status, get_head, get_body) = raw(&c, "GET", path, "TelegramBot").await;
        let (status, head, body) = raw(&c, "HEAD", path, ANDROID).await;
        assert_eq!(status, get_status);
        assert_eq!(body, "", "a HEAD answer has no body");
        assert!(head.contains("content-type: text/html"), "{head}");
        assert!(head.contains("x-robots-tag: noindex, nofollow"), "{head}");
        assert!(!head.contains("set-cookie"), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", get_body.len())),
            "{head} / {get_head}"
        );
        assert_eq!(opens(&c).await, 0, "nothing was counted");

        // A person still sees everything, and is counted.
        let (status, _, body) = raw(&c, "GET", path, ANDROID).await;
        assert_eq!(status, 200);
        for part in secret_parts {
            assert!(body.contains(part), "a person sees {part}");
        }
        assert_eq!(opens(&c).await, 1);
        // The invite is used up now: a preview says so, and shows nothing more.
        let (status, _, body) = raw(&c, "GET", path, "TelegramBot").await;
        assert_eq!(status, 410);
        assert!(!body.contains(&network_id));
        assert_eq!(opens(&c).await, 1);
    }
);

on_both_databases!(
    people_in_in_app_browsers_see_the_invite_and_a_preview_links_to_it,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let network_id = c
            .created_network(json!({"name": "Friends", "beacons": ["https://beacon.example.net"]}))
            .await;
        let r = c
            .post_json(
                "/api/v1/invites",
                json!({"network_id": network_id, "name": "Friends", "max_opens": 5}),
            )
            .await;
        let url = r.json::<Value>().await.unwrap()["url"]
            .as_str()
            .unwrap()
            .to_string();
        let path = &url[url.find("/join/").unwrap()..];
        // Telegram's own browser on a phone carries a person.
        let telegram_browser = "Mozilla/5.0 (Linux; Android 13; Pixel 7; wv) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36 Telegram-Android/10.5.0";
        let (status, _, body) = raw(&c, "GET", path, telegram_browser).await;
        assert_eq!(status, 200);
        assert!(
            body.contains(&network_id),
            "a person in Telegram sees the invite"
        );
        assert_eq!(opens(&c).await, 1);
        // Someone taken for a robot can still ask for the invite, which counts.
        let (_, _, preview) = raw(&c, "GET", path, "TelegramBot (like TwitterBot)").await;
        assert!(!preview.contains(&network_id));
        let link = format!("{path}?open=1&amp;lang=en");
        assert!(
            preview.contains(&link),
            "the preview links to the invite: {preview}"
        );
        let (status, _, body) =
            raw(&c, "GET", &format!("{path}?open=1&lang=en"), "TelegramBot").await;
        assert_eq!(status, 200);
        assert!(body.contains(&network_id));
        assert_eq!(opens(&c).await, 2, "asking for the invite uses up an open");
        // HEAD never counts, even when it asks.
        let (_, _, body) = raw(&c, "HEAD", &format!("{path}?open=1"), ANDROID).await;
        assert_eq!(body, "");
        assert_eq!(opens(&c).await, 2);
    }
);
