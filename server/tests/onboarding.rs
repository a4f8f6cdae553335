//! Onboarding through the JSON API and the public invite pages, as an admin's
//! script and an end user's phone would use them: guides per platform with a
//! deep link whose QR code decodes back to it, invites (created once, stored
//! hashed, counted, limited, expiring, revoked) and the page's refusals.

mod common;

use common::qr::decode_qr;

use protocol::onboarding::JoinLink;
use reqwest::header::{ACCEPT_LANGUAGE, USER_AGENT};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use server::entities::invite;

const ANDROID: &str =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile Safari/537.36";
const IPHONE: &str =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

/// A browser without a session: what an invited end user has.
fn visitor() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn network(c: &common::Control, name: &str, beacons: &[&str]) -> String {
    let r = c
        .create_network(json!({"name": name, "beacons": beacons}))
        .await;
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn create_invite(c: &common::Control, body: Value) -> Value {
    let r = c.post_json("/api/v1/invites", body).await;
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

/// The path of an invite's page, from the URL shown at creation.
fn page_path(created: &Value) -> String {
    let url = created["url"].as_str().unwrap();
    url[url.find("/join/").unwrap()..].to_string()
}

async fn open(
    c: &common::Control,
    client: &reqwest::Client,
    path: &str,
    ua: &str,
) -> (u16, String) {
    let r = client
        .get(c.url(path))
        .header(USER_AGENT, ua)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.text().await.unwrap())
}

on_both_databases!(
    each_platforms_guide_carries_the_deep_link_and_its_qr_code,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let beacons = ["https://b1.example.net", "http://10.0.0.2:8080"];
        let id = network(&c, "Дом & офис #1", &beacons).await;
        for platform in ["windows", "android", "ios", "linux", "docker", "raw"] {
            for lang in ["en", "ru"] {
                let g: Value = c
                    .get_json(&format!(
                        "/api/v1/networks/{id}/onboarding?platform={platform}&lang={lang}"
                    ))
                    .await;
                let uri = g["uri"].as_str().unwrap();
                let link = JoinLink::parse(uri).unwrap();
                assert_eq!(link.name, "Дом & офис #1");
                assert_eq!(link.network_id, id);
                assert_eq!(link.beacons, beacons);
                assert!(g["title"].as_str().unwrap().contains("Дом & офис #1"));
                assert!(g["instructions"].as_str().unwrap().len() > 50, "{platform}");
                if platform == "docker" {
                    // The sidecar's catalog title, shown by the KnotRoute apps.
                    assert!(
                        g["instructions"]
                            .as_str()
                            .unwrap()
                            .contains("KNOTROUTE_SERVICE_TITLE="),
                        "{g}"
                    );
                }
                assert!(g.get("warning").is_none());
                assert_eq!(decode_qr(g["qr_svg"].as_str().unwrap()), uri);
            }
        }
        let ru: Value = c
            .get_json(&format!(
                "/api/v1/networks/{id}/onboarding?platform=windows&lang=ru"
            ))
            .await;
        assert!(ru["instructions"]
            .as_str()
            .unwrap()
            .contains("Интеграцию .knot"));

        // A profile without a Beacon warns that users need another bootstrap path.
        let bare = network(&c, "Bare", &[]).await;
        let g: Value = c
            .get_json(&format!(
                "/api/v1/networks/{bare}/onboarding?platform=android&lang=en"
            ))
            .await;
        assert!(g["warning"]
            .as_str()
            .unwrap()
            .contains("another bootstrap path"));
        assert!(!g["uri"].as_str().unwrap().contains("beacon="));

        // Refusals name the parameter and what to send.
        let r = c
            .get(&format!(
                "/api/v1/networks/{id}/onboarding?platform=symbian"
            ))
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["field"], "platform");
        assert!(body["hint"].as_str().unwrap().contains("android"));
        let r = c
            .get(&format!(
                "/api/v1/networks/{id}/onboarding?platform=raw&lang=de"
            ))
            .await;
        assert_eq!(r.status(), 400);
        let r = c
            .get(&format!(
                "/api/v1/networks/{}/onboarding?platform=raw",
                protocol::NetworkId::from_random_bytes([9; 32])
            ))
            .await;
        assert_eq!(r.status(), 404);
        // The guide is an admin resource.
        let r = visitor()
            .get(c.url(&format!("/api/v1/networks/{id}/onboarding?platform=raw")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
    }
);

on_both_databases!(
    an_invite_page_shows_the_visitors_platform_first_and_counts_each_visitor_once,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = network(&c, "Family", &["https://beacon.example.net"]).await;
        let created = create_invite(&c, json!({"network_id": id, "name": "Petrov family"})).await;
        let path = page_path(&created);
        let token = path.trim_start_matches("/join/").to_string();
        assert!(token.len() >= 43, "at least 256 bits, URL-safe: {token}");
        assert_eq!(created["state"], "active");
        assert_eq!(created["opens"], 0);

        // Only the hash is stored.
        let row = invite::Entity::find_by_id(created["id"].as_str().unwrap())
            .one(&c.state.db)
            .await
            .unwrap()
            .unwrap();
        assert_ne!(row.token_hash, token);
        assert_eq!(
            row.token_hash,
            server::domain::access::secrets::token_hash(&token)
        );
        let listed: Vec<Value> = c.get_json("/api/v1/invites").await;
        assert!(!serde_json::to_string(&listed).unwrap().contains(&token));

        let phone = visitor();
        let r = phone
            .get(c.url(&path))
            .header(USER_AGENT, ANDROID)
            .header(ACCEPT_LANGUAGE, "en-US,en;q=0.9")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["x-robots-tag"], "noindex, nofollow");
        assert!(r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("script-src 'self' 'nonce-"));
        let html = r.text().await.unwrap();
        assert!(html.contains(r#"<meta name="robots" content="noindex, nofollow""#));
        // Readable without WebAssembly: no hydration script, the content is in the HTML.
        assert!(!html.contains(".wasm") && !html.contains("/pkg/"));
        let android = html.find(r#"id="platform-android""#).unwrap();
        for other in ["ios", "windows", "linux"] {
            assert!(android < html.find(&format!(r#"id="platform-{other}""#)).unwrap());
        }
        let is_open = |platform: &str| {
            let at = html.find(&format!(r#"id="platform-{platform}""#)).unwrap();
            let tag = &html[at..at + html[at..].find('>').unwrap()];
            tag.split_whitespace()
                .any(|a| a == "open" || a.starts_with("open="))
        };
        assert!(is_open("android"), "the visitor's own platform is open");
        assert!(
            !is_open("windows") && !is_open("ios"),
            "the others are one tap away"
        );
        assert!(html.contains("Petrov family"));
        assert!(html.contains("no keys, passwords or other secrets"));
        assert!(html.contains(&id));
        // The "Open in KnotRoute" button is the deep link (HTML-escaped `&`).
        let uri = JoinLink {
            network_id: id.clone(),
            name: "Petrov family".into(),
            beacons: vec!["https://beacon.example.net".into()],
        }
        .to_uri();
        assert!(
            html.contains(&format!(r#"href="{}""#, uri.replace('&', "&amp;"))),
            "{html}"
        );
        let svg_start = html.find("<svg").unwrap();
        let svg_end = html.find("</svg>").unwrap() + "</svg>".len();
        assert_eq!(decode_qr(&html[svg_start..svg_end]), uri);
        // Small: under 30 KB without the QR image.
        let without_qr = html.len() - (svg_end - svg_start);
        eprintln!(
            "invite page: {without_qr} bytes without the QR code, {} with it",
            html.len()
        );
        assert!(without_qr < 30 * 1024, "{without_qr} bytes");

        // What a phone transfers, QR code included, with the compression browsers ask for.
        let r = phone
            .get(c.url(&path))
            .header(USER_AGENT, ANDROID)
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(r.headers()["content-encoding"], "gzip");
        let transferred = r.bytes().await.unwrap().len();
        eprintln!("invite page: {transferred} bytes transferred gzip, QR code included");
        assert!(transferred < 30 * 1024, "{transferred} bytes");

        // Reloading and switching language do not count again; another visitor does.
        let (status, ru) = open(&c, &phone, &format!("{path}?lang=ru"), ANDROID).await;
        assert_eq!(status, 200);
        assert!(ru.contains("Открыть в KnotRoute"));
        let (status, ios) = open(&c, &visitor(), &path, IPHONE).await;
        assert_eq!(status, 200);
        assert!(
            ios.find(r#"id="platform-ios""#).unwrap()
                < ios.find(r#"id="platform-android""#).unwrap()
        );
        let listed: Vec<Value> = c.get_json("/api/v1/invites").await;
        assert_eq!(listed[0]["opens"], 2);
        assert_eq!(listed[0]["network_name"], "Family");
        assert!(listed[0]["last_opened_at"].is_string());

        // Revoked: 410 and says so; the admin still sees it listed as revoked.
        let r = c
            .delete(&format!(
                "/api/v1/invites/{}",
                created["id"].as_str().unwrap()
            ))
            .await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["state"], "revoked");
        let (status, html) = open(&c, &phone, &path, ANDROID).await;
        assert_eq!(status, 410);
        assert!(html.contains("This invite was withdrawn"));
        assert!(html.contains("Ask the person who sent you the link"));
        assert!(
            !html.contains(&id),
            "a refused invite shows nothing of the network"
        );

        // Unknown tokens: 404, the same page whatever the token looks like.
        for bogus in [
            "/join/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "/join/not-a-token_at.all",
        ] {
            let (status, html) = open(&c, &visitor(), bogus, ANDROID).await;
            assert_eq!(status, 404);
            assert!(html.contains("This invite link does not work"));
        }
        // A mangled link (escapes, which no token holds) is refused before any
        // page: nothing is looked up and nothing of a network is shown.
        let (status, body) = open(&c, &visitor(), "/join/not%20a%20token", ANDROID).await;
        assert_eq!(status, 400);
        assert!(!body.contains(&id));
    }
);

on_both_databases!(
    limited_and_expired_invites_refuse_new_visitors,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = network(&c, "Limited", &["https://beacon.example.net"]).await;
        let once = create_invite(
            &c,
            json!({"network_id": id, "max_opens": 1, "expires_in_hours": 24}),
        )
        .await;
        assert_eq!(once["name"], "Limited", "the profile's name by default");
        assert!(once["expires_at"].is_string());
        let path = page_path(&once);
        let first = visitor();
        assert_eq!(open(&c, &first, &path, ANDROID).await.0, 200);
        let (status, html) = open(&c, &visitor(), &path, ANDROID).await;
        assert_eq!(status, 410);
        assert!(html.contains("used up"));
        // The one counted visitor may come back; a made-up mark does not pass.
        assert_eq!(open(&c, &first, &path, ANDROID).await.0, 200);
        let r = visitor()
            .get(c.url(&path))
            .header("cookie", "kr_invite_counted=1")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 410);

        let later = create_invite(&c, json!({"network_id": id, "expires_in_hours": 1})).await;
        invite::Entity::update_many()
            .col_expr(
                invite::Column::ExpiresAt,
                Some(chrono::Utc::now() - chrono::Duration::minutes(1)).into(),
            )
            .filter(invite::Column::Id.eq(later["id"].as_str().unwrap()))
            .exec(&c.state.db)
            .await
            .unwrap();
        let (status, html) = open(&c, &visitor(), &page_path(&later), ANDROID).await;
        assert_eq!(status, 410);
        assert!(html.contains("This invite has expired"));
        let listed: Vec<Value> = c
            .get_json(&format!("/api/v1/invites?network_id={id}"))
            .await;
        let states: Vec<&str> = listed
            .iter()
            .map(|i| i["state"].as_str().unwrap())
            .collect();
        assert_eq!(states, ["expired", "used_up"]);

        // Deleting the profile takes its invites with it.
        let r = c.delete(&format!("/api/v1/networks/{id}")).await;
        assert_eq!(r.status(), 204);
        assert_eq!(open(&c, &first, &path, ANDROID).await.0, 404);
    }
);

on_both_databases!(
    previews_and_head_requests_do_not_use_up_an_invite_and_the_last_open_goes_to_one_visitor,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = network(&c, "Once", &["https://beacon.example.net"]).await;
        let created = create_invite(&c, json!({"network_id": id, "max_opens": 1})).await;
        let path = page_path(&created);
        // A chat app drawing the link's preview, and a HEAD request, see the page uncounted.
        let (status, _) = open(&c, &visitor(), &path, "TelegramBot (like TwitterBot)").await;
        assert_eq!(status, 200);
        let r = visitor().head(c.url(&path)).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let listed: Vec<Value> = c.get_json("/api/v1/invites").await;
        assert_eq!(listed[0]["opens"], 0);
        // Eight people at once for the last open: exactly one gets it.
        let statuses = futures_util::future::join_all(
            (0..8).map(|_| async { open(&c, &visitor(), &path, ANDROID).await.0 }),
        )
        .await;
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            1,
            "{statuses:?}"
        );
        assert_eq!(
            statuses.iter().filter(|s| **s == 410).count(),
            7,
            "{statuses:?}"
        );
        let listed: Vec<Value> = c.get_json("/api/v1/invites").await;
        assert_eq!(listed[0]["opens"], 1);
        assert_eq!(listed[0]["state"], "used_up");
    }
);

on_both_databases!(
    the_invite_page_speaks_the_visitors_language_and_escapes_names,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = network(&c, "Escaped", &["https://beacon.example.net"]).await;
        let created = create_invite(
            &c,
            json!({"network_id": id, "name": "<script>alert(1)</script> & \"co\""}),
        )
        .await;
        let r = visitor()
            .get(c.url(&page_path(&created)))
            .header(ACCEPT_LANGUAGE, "ru-RU,ru;q=0.9,en;q=0.5")
            .send()
            .await
            .unwrap();
        let html = r.text().await.unwrap();
        assert!(html.contains(r#"<html lang="ru""#));
        assert!(html.contains("Открыть в KnotRoute"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp;"));
        assert!(!html.contains("<script>alert(1)"));
        // An unknown page cursor names the parameter.
        let r = c.get("/api/v1/invites?after=inv_gone").await;
        assert_eq!(r.status(), 400);
        assert_eq!(r.json::<Value>().await.unwrap()["field"], "after");
    }
);

on_both_databases!(
    invite_requests_name_the_refused_field,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = network(&c, "Checked", &[]).await;
        let cases = [
            (json!({"name": "x"}), "network_id"),
            (json!({"network_id": "kn_nope"}), "network_id"),
            (
                json!({"network_id": protocol::NetworkId::from_random_bytes([1; 32])}),
                "network_id",
            ),
            (
                json!({"network_id": id, "expires_in_hours": 0}),
                "expires_in_hours",
            ),
            (json!({"network_id": id, "max_opens": 0}), "max_opens"),
            (json!({"network_id": id, "name": "x".repeat(200)}), "name"),
        ];
        for (body, field) in cases {
            let r = c.post_json("/api/v1/invites", body.clone()).await;
            assert_eq!(r.status(), 400, "{body}");
            let e: Value = r.json().await.unwrap();
            assert_eq!(e["field"], field, "{body}: {e}");
            assert!(e["error"].is_string());
        }
        let r = c.delete("/api/v1/invites/inv_unknown").await;
        assert_eq!(r.status(), 404);
        // Anonymous visitors cannot create invites.
        let r = visitor()
            .post(c.url("/api/v1/invites"))
            .header("origin", c.base.clone())
            .json(&json!({"network_id": id}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
    }
);

#[tokio::test]
async fn a_flood_of_invite_page_requests_gets_429() {
    let c = common::start(common::Backend::Sqlite).await;
    let client = visitor();
    let mut statuses = Vec::new();
    for _ in 0..80 {
        let r = client
            .get(c.url("/join/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"))
            .send()
            .await
            .unwrap();
        statuses.push((
            r.status().as_u16(),
            r.headers().get("retry-after").is_some(),
        ));
    }
    assert_eq!(statuses[0], (404, false));
    let limited = statuses.iter().filter(|(s, _)| *s == 429).count();
    assert!((10..=25).contains(&limited), "{statuses:?}");
    assert!(statuses
        .iter()
        .filter(|(s, _)| *s == 429)
        .all(|(_, retry)| *retry));
}
