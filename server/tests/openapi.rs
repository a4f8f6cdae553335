//! GET /api/v1/openapi.json: public, OpenAPI 3, and describing every route
//! of the admin and Agent APIs that the code declares.

mod common;

use std::collections::BTreeSet;

/// Every path the API modules route, read from their source: a route added
/// without an annotation makes this test fail.
fn routed_paths() -> BTreeSet<String> {
    let http = concat!(env!("CARGO_MANIFEST_DIR"), "/src/http");
    let mut modules: Vec<std::path::PathBuf> = std::fs::read_dir(format!("{http}/admin"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    modules.push(format!("{http}/agent_protocol.rs").into());
    let mut paths = BTreeSet::new();
    for module in modules {
        let source = std::fs::read_to_string(&module).unwrap();
        for part in source.split(".route(").skip(1) {
            let path = part.trim_start().trim_start_matches('"');
            let path = &path[..path.find('"').unwrap()];
            paths.insert(format!("/api/v1{path}"));
        }
    }
    // Streams and the description itself are not API operations.
    paths.remove("/api/v1/events");
    paths.remove("/api/v1/openapi.json");
    paths
}

#[tokio::test]
async fn the_description_is_public_and_covers_every_route() {
    let c = common::start(common::Backend::Sqlite).await;
    let r = reqwest::get(c.url("/api/v1/openapi.json")).await.unwrap();
    assert_eq!(r.status(), 200, "no session needed");
    let doc: serde_json::Value = r.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let described: BTreeSet<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(described, routed_paths());
    // Refusals are described once, with the shape every error has.
    let error = &doc["components"]["schemas"]["ErrorBody"]["properties"];
    for field in ["error", "code", "field", "hint"] {
        assert!(error.get(field).is_some(), "ErrorBody has {field}");
    }
    let create = &doc["paths"]["/api/v1/networks"]["post"];
    assert!(create["requestBody"].is_object());
    assert!(create["responses"]["201"].is_object());
    assert!(doc["components"]["securitySchemes"]["token"].is_object());
}
