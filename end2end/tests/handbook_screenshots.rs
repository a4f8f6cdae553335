//! The screenshots in the README and the handbook (docs/src/images/), taken
//! from the release build in Chromium with a small network set up: made again
//! by `scripts/screenshots.sh`. Ignored by the test command, which has no
//! reason to rewrite documentation images.

mod common;

use playwright_rs::ScreenshotOptions;
use serde_json::json;
use std::path::PathBuf;

#[tokio::test]
#[ignore = "writes docs/src/images: run by scripts/screenshots.sh"]
async fn handbook_screenshots() {
    let out = std::env::var("KNOTROUTE_SCREENSHOTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| common::workspace_root().join("docs/src/images"));
    std::fs::create_dir_all(&out).unwrap();

    let control = common::start_control().await;
    let network = common::create_network(
        &control.base,
        "home-lab",
        &[
            "https://beacon-1.example.net",
            "https://beacon-2.example.net",
        ],
    )
    .await;
    common::create_network(
        &control.base,
        "office",
        &["https://beacon.office.example.net"],
    )
    .await;
    let edge = common::SimAgent::enrolled(&control, 41, "edge-1").await;
    edge.report_components(json!([{"id": "beacon-home-lab", "kind": "beacon", "name": "home-lab",
        "container": "kr-beacon-home-lab-beacon-1", "image": "ghcr.io/localzet/knotroute-beacon:1.0.0",
        "status": "running", "version": "1.0.0", "address": "https://beacon-1.example.net",
        "labels": {"io.knotroute.managed": "true"}}]))
    .await;
    common::SimAgent::enrolled(&control, 42, "nas").await;

    for (width, height, suffix, locale) in [
        (1280, 800, "", "en-US"),
        (390, 844, "-phone", "en-US"),
        (1280, 800, "-ru", "ru-RU"),
    ] {
        let b = common::open_browser("handbook", width, height, locale).await;
        b.sign_in(&control.base).await;
        for (path, name) in [
            ("/".to_string(), "overview"),
            (format!("/networks/{network}/setup"), "first-network"),
            ("/infrastructure".to_string(), "infrastructure"),
        ] {
            b.goto(&format!("{}{path}", control.base)).await;
            b.hydrated().await;
            b.page
                .screenshot_to_file(
                    &out.join(format!("{name}{suffix}.png")),
                    ScreenshotOptions::builder().full_page(false).build(),
                )
                .await
                .unwrap();
        }
        b.close().await;
    }
}
