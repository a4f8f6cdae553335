//! A published service's catalog entry (title, description, tags, category,
//! scheme): taken by the API, bounded, stored and shown, handed to the Agent
//! in the job payload, and changed by a redeploy of the same component (the
//! same volume, so the same `.knot` address).

mod common;

use serde_json::{json, Value};
use server::domain::access::scope::NetworkScope;

fn sidecar(agent_id: &str, extra: Value) -> Value {
    let mut payload = json!({"name": "photos", "network_id": common::lab_network_id(),
        "target": "photos:2342", "docker_network": "apps", "beacons": ["https://beacon.example.net"]});
    for (key, value) in extra.as_object().unwrap() {
        payload[key] = value.clone();
    }
    json!({"agent_id": agent_id, "kind": "deploy_sidecar", "payload": payload})
}

async fn agent_component(c: &common::Control, agent_id: &str) -> Value {
    let view: Value = c.get_json(&format!("/api/v1/agents/{agent_id}")).await;
    view["components"][0].clone()
}

on_both_databases!(
    a_catalog_entry_is_stored_shown_and_changed_by_redeploying_the_same_component,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 41).await;
        let entry = json!({"title": " Family photos ", "description": "Albums of the whole family",
            "tags": ["Photos", "home-lab", "photos"], "category": "Media", "scheme": "HTTPS"});
        let r = c.post_json("/api/v1/jobs", sidecar(&a.id(), entry)).await;
        assert_eq!(r.status(), 201);
        let first: Value = r.json().await.unwrap();
        assert_eq!(
            first["payload"]["title"], "Family photos",
            "stored normalised"
        );
        assert_eq!(first["payload"]["tags"], json!(["photos", "home-lab"]));
        assert_eq!(first["payload"]["scheme"], "https");

        let shown = agent_component(&c, &a.id()).await;
        assert_eq!(
            shown["catalog"],
            json!({"title": "Family photos", "description": "Albums of the whole family",
                "tags": ["photos", "home-lab"], "category": "Media", "scheme": "https"})
        );
        let (services, _) = c
            .state
            .inventory
            .sidecars_page(&NetworkScope::all(), None, 10)
            .await
            .unwrap();
        assert_eq!(services[0].sidecar.display_name(), "Family photos");

        // The Agent gets the entry as optional payload fields.
        let offer = a.claim().await.unwrap();
        assert_eq!(offer["payload"]["title"], "Family photos");
        assert_eq!(offer["payload"]["category"], "Media");
        a.finish(offer["id"].as_str().unwrap(), "succeeded", "started")
            .await;

        // "Change": a new title, the tags and category dropped.
        let changed = json!({"title": "Photos", "scheme": "http"});
        let r = c.post_json("/api/v1/jobs", sidecar(&a.id(), changed)).await;
        assert_eq!(r.status(), 201);
        let second: Value = r.json().await.unwrap();
        assert_eq!(
            second["component_id"], first["component_id"],
            "the same component: its volume, and so its .knot address, stays"
        );
        assert_eq!(second["component_id"], "sidecar-photos");
        assert!(second["payload"].get("tags").is_none());
        let offer = a.claim().await.unwrap();
        assert_eq!(offer["payload"]["name"], "photos");
        assert_eq!(offer["payload"]["title"], "Photos");
        assert!(offer["payload"].get("category").is_none());
        let shown = agent_component(&c, &a.id()).await;
        assert_eq!(
            shown["catalog"],
            json!({"title": "Photos", "scheme": "http"})
        );
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(
            view["components"].as_array().unwrap().len(),
            1,
            "no second component"
        );

        // Removed: the entry goes with it.
        let remove = json!({"agent_id": a.id(), "kind": "remove_component", "payload": {"component_id": "sidecar-photos"}});
        assert_eq!(c.post_json("/api/v1/jobs", remove).await.status(), 201);
        assert_eq!(agent_component(&c, &a.id()).await["catalog"], json!({}));
    }
);

on_both_databases!(
    catalog_fields_outside_their_bounds_are_refused_at_their_field_without_a_job,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 42).await;
        let eleven: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
        let cases = [
            (json!({"title": "t".repeat(81)}), "title", "too_long"),
            (
                json!({"title": "two\nlines"}),
                "title",
                "control_characters",
            ),
            (
                json!({"description": "d".repeat(501)}),
                "description",
                "too_long",
            ),
            (
                json!({"description": "bell\u{7}"}),
                "description",
                "control_characters",
            ),
            (json!({ "tags": eleven }), "tags", "too_many"),
            (json!({"tags": ["a,b"]}), "tags", "invalid_tag"),
            (json!({"tags": ["t".repeat(33)]}), "tags", "invalid_tag"),
            (json!({"tags": "a,b"}), "tags", "invalid_payload"),
            (json!({"category": "c".repeat(41)}), "category", "too_long"),
            (json!({"scheme": "ftp"}), "scheme", "invalid_scheme"),
            (json!({"scheme": true}), "scheme", "invalid_payload"),
        ];
        for (extra, field, code) in cases {
            let r = c
                .post_json("/api/v1/jobs", sidecar(&a.id(), extra.clone()))
                .await;
            assert_eq!(r.status(), 400, "{extra}");
            let body: Value = r.json().await.unwrap();
            assert_eq!(
                (body["field"].as_str(), body["code"].as_str()),
                (Some(field), Some(code)),
                "{extra}: {body}"
            );
            assert!(!body["error"].as_str().unwrap().is_empty());
        }
        let jobs: Vec<Value> = c.get_json("/api/v1/jobs").await;
        assert!(jobs.is_empty(), "no job was queued");
        // At the bounds exactly, all is taken.
        let ten: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
        let full = json!({"title": "t".repeat(80), "description": "d".repeat(500),
            "tags": ten, "category": "c".repeat(40), "scheme": "https"});
        assert_eq!(
            c.post_json("/api/v1/jobs", sidecar(&a.id(), full))
                .await
                .status(),
            201
        );
    }
);

#[tokio::test]
async fn the_api_description_names_the_catalog_fields_of_a_sidecar_job() {
    let c = common::start(common::Backend::Sqlite).await;
    let doc: Value = reqwest::get(c.url("/api/v1/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let schemas = &doc["components"]["schemas"];
    let catalog = &schemas["Catalog"]["properties"];
    for field in ["title", "description", "tags", "category", "scheme"] {
        assert!(
            catalog.get(field).is_some(),
            "Catalog has {field}: {catalog}"
        );
    }
    assert_eq!(catalog["title"]["maxLength"], 80);
    assert_eq!(catalog["tags"]["maxItems"], 10);
    let text = doc.to_string();
    assert!(
        text.contains("#/components/schemas/DeploySidecar"),
        "the job payload refers to DeploySidecar"
    );
    assert!(schemas["DeploySidecar"]
        .to_string()
        .contains("#/components/schemas/Catalog"));
    assert!(schemas["ComponentView"]["properties"]
        .get("catalog")
        .is_some());
}
