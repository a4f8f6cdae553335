//! Names Docker Compose or the sidecar would refuse are refused before any
//! job exists: for a new deployment, a retry and reconciliation. Components
//! stored under such names earlier are still listed and can be removed.

mod common;

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::{json, Value};
use server::domain::access::scope::NetworkScope;
use server::entities::{component, job};

fn network() -> String {
    common::lab_network_id()
}

fn deploy(agent_id: &str, kind: &str, name: &str) -> Value {
    let payload = if kind == "deploy_sidecar" {
        json!({"name": name, "network_id": network(), "target": "app:8080",
            "docker_network": "apps", "beacons": ["https://beacon.example.net"]})
    } else {
        json!({"name": name, "network_id": network(), "beacon_url": "https://beacon.example.net",
            "advertise": "beacon.example.net:7447"})
    };
    json!({"agent_id": agent_id, "kind": kind, "payload": payload})
}

async fn job_count(c: &common::Control) -> usize {
    job::Entity::find().all(&c.state.db).await.unwrap().len()
}

on_both_databases!(
    hostile_and_edge_names_are_refused_with_the_rule_and_no_job,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 31).await;
        let too_long = "a".repeat(64);
        let refused: &[(&str, &str)] = &[
            ("-web", "invalid_deploy_name"),
            ("_web", "invalid_deploy_name"),
            (".web", "invalid_deploy_name"),
            ("my.app", "invalid_deploy_name"),
            ("web.", "invalid_deploy_name"),
            (&too_long, "invalid_deploy_name"),
            ("wéb", "invalid_deploy_name"),
            ("сервис", "invalid_deploy_name"),
            ("web\u{212A}", "invalid_deploy_name"),
            ("my app", "invalid_deploy_name"),
            ("a/b", "invalid_deploy_name"),
            ("web\nimage: evil", "invalid_deploy_name"),
            ("", "required"),
            ("   ", "required"),
        ];
        for kind in ["deploy_sidecar", "deploy_beacon"] {
            for (name, code) in refused {
                let r = c
                    .post_json("/api/v1/jobs", deploy(&a.id(), kind, name))
                    .await;
                assert_eq!(r.status(), 400, "{kind} {name:?}");
                let body: Value = r.json().await.unwrap();
                assert_eq!(
                    (body["field"].as_str(), body["code"].as_str()),
                    (Some("name"), Some(*code)),
                    "{kind} {name:?}: {body}"
                );
                if *code == "invalid_deploy_name" {
                    let hint = body["hint"].as_str().unwrap();
                    assert!(hint.contains("1–63 characters: lowercase letters, digits, - and _, starting with a letter or digit"), "{hint}");
                }
            }
        }
        assert_eq!(job_count(&c).await, 0, "no job was queued");
        let components = component::Entity::find().all(&c.state.db).await.unwrap();
        assert!(
            components.is_empty(),
            "nothing became desired: {components:?}"
        );

        // Capitals are lowercased (PROTOCOL.md: slugs are lowercased); 63 characters fit.
        let longest = "b".repeat(63);
        for (kind, name, stored) in [
            ("deploy_sidecar", "Web", "web"),
            ("deploy_beacon", "Edge-1", "edge-1"),
            ("deploy_sidecar", longest.as_str(), longest.as_str()),
            ("deploy_sidecar", "my-app_2", "my-app_2"),
        ] {
            let r = c
                .post_json("/api/v1/jobs", deploy(&a.id(), kind, name))
                .await;
            assert_eq!(r.status(), 201, "{kind} {name}");
            let body: Value = r.json().await.unwrap();
            assert_eq!(body["payload"]["name"], stored);
        }
    }
);

on_both_databases!(
    a_retry_of_a_deployment_under_a_refused_name_is_refused,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 32).await;
        // A failed job from before the rule, as an older Control stored it.
        let mut old = deploy(&a.id(), "deploy_sidecar", "my.app")["payload"].clone();
        old["name"] = json!("my.app");
        let id = "job_aaaaaaaaaaaaaaaaaaaaaaaaaa";
        job::ActiveModel {
            id: Set(id.into()),
            agent_id: Set(a.id()),
            kind: Set("deploy_sidecar".into()),
            payload: Set(old.to_string()),
            status: Set(protocol::JobStatus::Failed),
            result: Set("invalid project name".into()),
            created_at: Set(chrono::Utc::now()),
            started_at: Set(None),
            finished_at: Set(Some(chrono::Utc::now())),
            lease_expires_at: Set(None),
            retry_of: Set(None),
            component_id: Set(Some("sidecar-my.app".into())),
            network_id: Set(None),
            ..Default::default()
        }
        .insert(&c.state.db)
        .await
        .unwrap();
        let r = c
            .post_json(&format!("/api/v1/jobs/{id}/retry"), json!({}))
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            (body["field"].as_str(), body["code"].as_str()),
            (Some("name"), Some("invalid_deploy_name"))
        );
        assert_eq!(job_count(&c).await, 1, "only the old job");
    }
);

on_both_databases!(
    a_component_stored_under_an_older_name_is_listed_not_redeployed_and_can_be_removed,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 33).await;
        let r = c
            .post_json("/api/v1/jobs", deploy(&a.id(), "deploy_sidecar", "web"))
            .await;
        assert_eq!(r.status(), 201);
        let offer = a.claim().await.unwrap();
        a.finish(
            offer["id"].as_str().unwrap(),
            "failed",
            "invalid project name",
        )
        .await;
        // As an older Control would have stored it: a dot in the name.
        let row = component::Entity::find()
            .filter(component::Column::AgentId.eq(a.id()))
            .one(&c.state.db)
            .await
            .unwrap()
            .unwrap();
        let mut spec: Value = serde_json::from_str(&row.spec).unwrap();
        spec["name"] = json!("my.app");
        let mut legacy: component::ActiveModel = row.into();
        legacy.component_id = Set("sidecar-my.app".into());
        legacy.name = Set("my.app".into());
        legacy.spec = Set(spec.to_string());
        legacy.update(&c.state.db).await.unwrap();
        let before = job_count(&c).await;

        let queued = c.state.reconciler.resend(&a.id()).await.unwrap();
        assert!(
            queued.is_empty(),
            "reconciliation queues nothing Compose would refuse"
        );
        let heartbeat = json!({"name": "docker-host", "docker_available": true,
            "components": [{"id": "sidecar-my.app", "kind": "sidecar", "name": "my.app", "status": "exited"}]});
        assert_eq!(
            a.post("/api/v1/agents/heartbeat", heartbeat).await.status(),
            200
        );
        assert_eq!(job_count(&c).await, before);

        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        let listed = &view["components"][0];
        assert_eq!(listed["id"], "sidecar-my.app");
        let error = listed["last_error"].as_str().unwrap();
        assert!(
            error.contains("not redeployed") && error.contains("Remove it"),
            "{error}"
        );
        let (services, _) = c
            .state
            .inventory
            .sidecars_page(&NetworkScope::all(), None, 10)
            .await
            .unwrap();
        assert_eq!(
            services[0].sidecar.display_name(),
            "my.app",
            "the Services screen lists it"
        );

        let remove = json!({"agent_id": a.id(), "kind": "remove_component",
            "payload": {"component_id": "sidecar-my.app"}});
        let r = c.post_json("/api/v1/jobs", remove).await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    }
);
