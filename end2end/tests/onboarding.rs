//! Onboarding in real browsers: the admin picks a profile and platform, copies
//! the guide and creates an invite; an anonymous phone (390×844, Android
//! User-Agent) opens the invite, sees Android first, and the QR code it shows
//! decodes to the deep link; the same with JavaScript off; iPhone, Windows and
//! Linux visitors each get their platform first; revoked and expired invites
//! say so. Screenshots of each step are saved.

mod common;

use playwright_rs::{expect, BrowserContextOptions, Viewport};
use protocol::onboarding::JoinLink;
use std::time::Duration;

const ANDROID: &str =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const WINDOWS: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
const LINUX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// Reads the QR code in a PNG screenshot.
fn decode_qr_png(png_bytes: &[u8]) -> String {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let (w, h) = (info.width as usize, info.height as usize);
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(w, h, |x, y| buf[(y * w + x) * channels]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code on the screenshot");
    grids[0].decode().expect("the QR code decodes").1
}

/// A visitor's browser context: no session, phone or desktop size, a User-Agent.
async fn visitor_page(
    b: &common::Browsing,
    ua: &str,
    width: u32,
    height: u32,
    javascript: bool,
) -> (playwright_rs::BrowserContext, playwright_rs::Page) {
    let context = b
        .browser
        .new_context_with_options(
            BrowserContextOptions::builder()
                .viewport(Viewport { width, height })
                .user_agent(ua.to_string())
                .locale("en-US".to_string())
                .javascript_enabled(javascript)
                .build(),
        )
        .await
        .unwrap();
    let page = context.new_page().await.unwrap();
    (context, page)
}

/// The id of the first platform section on an invite page.
async fn first_platform(page: &playwright_rs::Page) -> String {
    page.locator("details.platform")
        .first()
        .get_attribute("data-platform")
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn an_admin_invites_and_a_phone_joins() {
    let control = common::start_control().await;
    let base = control.base.clone();
    let beacons = ["https://beacon.example.net", "https://b2.example.net:8443"];
    let network_id = common::create_network(&base, "Home & Office", &beacons).await;
    let wait = Duration::from_secs(15);

    // The admin: guide for Android, then Windows; then an invite.
    let b = common::open_browser("onboarding-admin", 1280, 900, "en-US").await;
    let page = &b.page;
    b.sign_in(&base).await;
    b.goto(&format!("{base}/networks/{network_id}")).await;
    page.locator("#onboard-users").click(None).await.unwrap();
    page.wait_for_url(&format!("{base}/onboarding?network={network_id}"), None)
        .await
        .unwrap();
    expect(page.locator("#guide-title"))
        .with_timeout(wait)
        .to_contain_text("Join “Home & Office” on Android")
        .await
        .unwrap();
    let deep_link = page
        .locator("#deep-link")
        .text_content()
        .await
        .unwrap()
        .unwrap();
    let link = JoinLink::parse(deep_link.trim()).expect("the deep link parses");
    assert_eq!(link.network_id, network_id);
    assert_eq!(link.beacons, beacons);
    page.locator("#platform-tabs a[data-platform=windows]")
        .click(None)
        .await
        .unwrap();
    expect(page.locator("#guide[data-platform=windows] #guide-steps"))
        .with_timeout(wait)
        .to_contain_text(".knot integration")
        .await
        .unwrap();
    assert!(
        page.url().contains("platform=windows"),
        "the choice is in the address"
    );
    b.screenshot("guide-windows").await;
    // The guide's copy buttons work without WebAssembly.
    page.locator("#copy-instructions")
        .click(None)
        .await
        .unwrap();
    b.expect_text("#copy-instructions", "Copied").await;

    // The invite form comes behind its button, with the guide's network
    // chosen (the island's start, drawn by the server around it).
    b.open_form("#open-new-invite", "#invite-network").await;
    expect(page.locator("#invite-network"))
        .with_timeout(wait)
        .to_have_value(network_id.as_str())
        .await
        .unwrap();
    b.select("#invite-network", network_id.as_str()).await;
    b.fill("#invite-max-opens", "0").await;
    page.locator("#create-invite").click(None).await.unwrap();
    expect(page.locator("#invite-max-opens-error"))
        .with_timeout(wait)
        .to_contain_text("1")
        .await
        .unwrap();
    b.fill("#invite-max-opens", "10").await;
    b.fill("#invite-name", "Petrov family").await;
    page.locator("#create-invite").click(None).await.unwrap();
    b.wait_visible("#invite-url").await;
    let shown = page
        .locator("#invite-url")
        .text_content()
        .await
        .unwrap()
        .unwrap();
    // Without KNOTROUTE_CONTROL_PUBLIC_URL the link is a path, and the screen says so.
    expect(page.locator("#invite-created"))
        .to_contain_text("PUBLIC_URL")
        .await
        .unwrap();
    let invite_url = format!("{base}{}", shown.trim());
    expect(page.locator(".invite-row .invite-opens"))
        .with_timeout(wait)
        .to_contain_text("0 / 10")
        .await
        .unwrap();
    b.screenshot("invite-created").await;

    let expected_link = JoinLink {
        network_id: network_id.clone(),
        name: "Petrov family".into(),
        beacons: beacons.iter().map(|s| s.to_string()).collect(),
    }
    .to_uri();

    // An Android phone: Android first, the button is the deep link, the QR decodes to it.
    let (phone_ctx, phone) = visitor_page(&b, ANDROID, 390, 844, true).await;
    let r = phone.goto(&invite_url, None).await.unwrap().unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(first_platform(&phone).await, "android");
    assert!(phone
        .locator("#platform-android")
        .get_attribute("open")
        .await
        .unwrap()
        .is_some());
    assert!(phone
        .locator("#platform-windows")
        .get_attribute("open")
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        phone
            .locator("#open-app")
            .get_attribute("href")
            .await
            .unwrap()
            .unwrap(),
        expected_link
    );
    expect(phone.locator("#network-id"))
        .to_contain_text(network_id.as_str())
        .await
        .unwrap();
    expect(phone.locator("#no-secrets"))
        .to_contain_text("no keys")
        .await
        .unwrap();
    // With JavaScript the copy buttons appear.
    expect(phone.locator("button[data-copy]").first())
        .to_be_visible()
        .await
        .unwrap();
    let qr = phone.locator("#qr").screenshot(None).await.unwrap();
    assert_eq!(decode_qr_png(&qr), expected_link);
    common::save_screenshot(&phone, "onboarding-invite-android").await;
    // Another platform is one tap away.
    phone
        .locator("#platform-linux summary")
        .click(None)
        .await
        .unwrap();
    expect(phone.locator("#platform-linux"))
        .to_contain_text("knotroute doctor")
        .await
        .unwrap();
    let _ = phone_ctx.close().await;

    // JavaScript off: the same content, readable; copy buttons stay hidden.
    let (plain_ctx, plain) = visitor_page(&b, ANDROID, 390, 844, false).await;
    let r = plain.goto(&invite_url, None).await.unwrap().unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(first_platform(&plain).await, "android");
    expect(plain.locator("#platform-android"))
        .to_contain_text("Scan the QR code")
        .await
        .unwrap();
    expect(plain.locator("button[data-copy]").first())
        .to_be_hidden()
        .await
        .unwrap();
    let qr = plain.locator("#qr").screenshot(None).await.unwrap();
    assert_eq!(decode_qr_png(&qr), expected_link);
    common::save_screenshot(&plain, "onboarding-invite-no-js").await;
    let _ = plain_ctx.close().await;

    // Each other device gets its own platform first.
    for (ua, platform, size) in [
        (IPHONE, "ios", (390, 844)),
        (WINDOWS, "windows", (1280, 900)),
        (LINUX, "linux", (1280, 900)),
    ] {
        let (ctx, visitor) = visitor_page(&b, ua, size.0, size.1, true).await;
        visitor.goto(&invite_url, None).await.unwrap();
        assert_eq!(first_platform(&visitor).await, platform, "{ua}");
        common::save_screenshot(&visitor, &format!("onboarding-invite-{platform}")).await;
        let _ = ctx.close().await;
    }

    // The admin sees the opens and revokes the invite after confirming.
    b.goto(&format!("{base}/onboarding")).await;
    expect(page.locator(".invite-row .invite-opens"))
        .with_timeout(wait)
        .to_contain_text("5 / 10")
        .await
        .unwrap();
    page.locator(".invite-row .revoke-invite")
        .click(None)
        .await
        .unwrap();
    b.wait_visible("#confirm-revoke-invite").await;
    page.locator("#confirm-revoke-invite")
        .click(None)
        .await
        .unwrap();
    expect(page.locator(".invite-row .invite-state"))
        .with_timeout(wait)
        .to_contain_text("revoked")
        .await
        .unwrap();
    let (ctx, visitor) = visitor_page(&b, ANDROID, 390, 844, true).await;
    let r = visitor.goto(&invite_url, None).await.unwrap().unwrap();
    assert_eq!(r.status(), 410);
    expect(visitor.locator("#refusal"))
        .to_contain_text("withdrawn")
        .await
        .unwrap();
    common::save_screenshot(&visitor, "onboarding-invite-revoked").await;

    // An expired invite (its expiry moved into the past in the database).
    let admin = common::admin_client(&base).await;
    let r = admin
        .post_json(
            "/api/v1/invites",
            serde_json::json!({"network_id": network_id, "expires_in_hours": 1}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: serde_json::Value = r.json().await.unwrap();
    control
        .sql(&format!(
            "UPDATE invites SET expires_at = '2020-01-01 00:00:00+00:00' WHERE id = '{}'",
            created["id"].as_str().unwrap()
        ))
        .await;
    let r = visitor
        .goto(&format!("{base}{}", created["url"].as_str().unwrap()), None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.status(), 410);
    expect(visitor.locator("#refusal"))
        .to_contain_text("expired")
        .await
        .unwrap();
    common::save_screenshot(&visitor, "onboarding-invite-expired").await;
    let _ = ctx.close().await;
    b.close().await;
}
