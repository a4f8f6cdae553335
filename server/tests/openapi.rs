//! GET /api/v1/openapi.json: public, OpenAPI 3, and describing every route
//! of the admin and Agent APIs that the code declares.

mod common;

use std::collections::BTreeSet;

/// The API's operations, as a reader of the description should find them.
/// Routes are registered together with their descriptions
/// (`utoipa_axum::routes!`), so a route cannot go undescribed; this list
/// catches one that went missing, or one added by mistake.
const API_PATHS: [&str; 50] = [
    "/api/v1/agents",
    "/api/v1/agents/enroll",
    "/api/v1/agents/heartbeat",
    "/api/v1/agents/jobs/next",
    "/api/v1/agents/jobs/progress",
    "/api/v1/agents/jobs/result",
    "/api/v1/agents/{id}",
    "/api/v1/agents/{id}/approve",
    "/api/v1/agents/{id}/disable",
    "/api/v1/agents/{id}/enable",
    "/api/v1/agents/{id}/move",
    "/api/v1/agents/{id}/reject",
    "/api/v1/agents/{id}/revoke",
    "/api/v1/audit",
    "/api/v1/beacons",
    "/api/v1/beacons/check",
    "/api/v1/enrollments",
    "/api/v1/install-tokens",
    "/api/v1/install-tokens/{id}/revoke",
    "/api/v1/invites",
    "/api/v1/invites/{id}",
    "/api/v1/jobs",
    "/api/v1/jobs/{id}",
    "/api/v1/jobs/{id}/cancel",
    "/api/v1/jobs/{id}/log",
    "/api/v1/jobs/{id}/retry",
    "/api/v1/networks",
    "/api/v1/networks/{id}",
    "/api/v1/networks/{id}/diagnostics",
    "/api/v1/networks/{id}/onboarding",
    "/api/v1/networks/{id}/probe",
    "/api/v1/networks/{id}/setup",
    "/api/v1/policy",
    "/api/v1/policy/markdown",
    "/api/v1/revoked-keys",
    "/api/v1/revoked-keys/{agent_id}/allow",
    "/api/v1/session",
    "/api/v1/settings/agents",
    "/api/v1/settings/alerts",
    "/api/v1/settings/alerts/test",
    "/api/v1/settings/identity",
    "/api/v1/tokens",
    "/api/v1/tokens/{id}/revoke",
    "/api/v1/users",
    "/api/v1/users/invites",
    "/api/v1/users/second-factor",
    "/api/v1/users/{id}",
    "/api/v1/users/{id}/second-factor",
    "/api/v1/users/{id}/second-factor/setup-link",
    "/api/v1/users/{id}/sessions/end",
];

#[tokio::test]
async fn the_description_is_public_and_covers_every_route() {
    let c = common::start(common::Backend::Sqlite).await;
    let r = reqwest::get(c.url("/api/v1/openapi.json")).await.unwrap();
    assert_eq!(r.status(), 200, "no session needed");
    let doc: serde_json::Value = r.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let described: BTreeSet<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    let expected: BTreeSet<String> = API_PATHS.iter().map(|p| p.to_string()).collect();
    assert_eq!(described, expected);
    // Every operation says how it refuses; every admin operation how to sign in.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let name = format!("{method} {path}");
            assert!(
                op["responses"]["default"].is_object(),
                "{name} has no error answer"
            );
            let unsigned = path.starts_with("/api/v1/agents/") && !path.contains('{')
                || path == "/api/v1/session";
            assert_eq!(op["security"].is_array(), !unsigned, "{name}: security");
        }
    }
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
