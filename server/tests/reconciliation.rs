//! Reconciliation: desired components compared with what heartbeats report.
//! Failed deployments are retried, missing or exited components redeployed,
//! both with backoff and in the audit log; components nobody asked for are
//! flagged as unmanaged leftovers.

mod common;

use chrono::{Duration, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use server::entities::component;

fn sidecar_job(agent_id: &str) -> Value {
    json!({"agent_id": agent_id, "kind": "deploy_sidecar", "payload": {
        "name": "web", "network_id": common::lab_network_id(),
        "target": "app:8080", "docker_network": "apps", "beacons": ["https://beacon.example.net"]}})
}

/// A heartbeat with Docker available, reporting components in these states.
fn report_states(states: &[(&str, &str)]) -> Value {
    let components: Vec<Value> = states
        .iter()
        .map(|(id, status)| json!({"id": id, "kind": "sidecar", "name": id, "status": status}))
        .collect();
    json!({"name": "host", "docker_available": true, "components": components})
}

/// A heartbeat with Docker available, reporting `running` components.
fn report(running: &[&str]) -> Value {
    let states: Vec<(&str, &str)> = running.iter().map(|id| (*id, "running")).collect();
    report_states(&states)
}

async fn component_view(c: &common::Control, agent_id: &str, id: &str) -> Value {
    let view: Value = c.get_json(&format!("/api/v1/agents/{agent_id}")).await;
    view["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} in {view}"))
}

/// Signs in, enrolls an Agent with Docker and has it take the deployment
/// of a desired sidecar the admin queued.
async fn claimed_sidecar_deployment(c: &common::Control, seed: u8) -> (common::SimAgent, Value) {
    c.sign_in().await;
    common::lab_network(c).await;
    let a = common::SimAgent::new(c, seed);
    a.enroll_with_docker().await;
    let r = c.post_json("/api/v1/jobs", sidecar_job(&a.id())).await;
    assert_eq!(r.status(), 201);
    let job = a.claim().await.expect("the deployment");
    (a, job)
}

async fn redeploy_audit(c: &common::Control) -> Vec<String> {
    let audit: Value = c
        .get_json("/api/v1/audit?action=component.redeployed")
        .await;
    audit
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["actor"], "control");
            e["detail"].as_str().unwrap().to_string()
        })
        .collect()
}

on_both_databases!(
    failed_deployments_retry_with_backoff_and_missing_components_are_redeployed,
    |backend| async move {
        let c = common::start(backend).await;
        let (a, job) = claimed_sidecar_deployment(&c, 38).await;
        a.finish(
            job["id"].as_str().unwrap(),
            "failed",
            "pull access denied\nmore",
        )
        .await;

        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["status"], "degraded");
        let component = &view["components"][0];
        assert!(component["last_error"]
            .as_str()
            .unwrap()
            .contains("pull access denied"));
        let retry_at =
            chrono::DateTime::parse_from_rfc3339(component["next_retry_at"].as_str().unwrap())
                .unwrap();
        let wait = retry_at.with_timezone(&Utc) - Utc::now();
        assert!(
            wait > Duration::seconds(20) && wait <= Duration::seconds(30),
            "{wait}"
        );

        // Not before the backoff has passed…
        a.post("/api/v1/agents/heartbeat", report(&[])).await;
        assert!(a.claim().await.is_none());
        // …then the same, unchanged report brings the retry, once. (The backoff
        // is moved into the past here rather than waited for.)
        component::Entity::update_many()
            .col_expr(
                component::Column::NextDeployAt,
                Some(Utc::now() - Duration::seconds(1)).into(),
            )
            .filter(component::Column::AgentId.eq(a.id()))
            .exec(&c.state.db)
            .await
            .unwrap();
        a.post("/api/v1/agents/heartbeat", report(&[])).await;
        a.post("/api/v1/agents/heartbeat", report(&[])).await;
        let reconciler = &c.state.reconciler;
        let retry = a.claim().await.expect("the retry");
        assert!(a.claim().await.is_none(), "queued once");
        a.finish(retry["id"].as_str().unwrap(), "failed", "still denied")
            .await;
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        let retry_at = chrono::DateTime::parse_from_rfc3339(
            view["components"][0]["next_retry_at"].as_str().unwrap(),
        )
        .unwrap();
        let wait = retry_at.with_timezone(&Utc) - Utc::now();
        assert!(
            wait > Duration::seconds(50) && wait <= Duration::seconds(60),
            "doubled: {wait}"
        );

        // A success clears the error; a later report without the component redeploys it.
        reconciler
            .reconcile(&a.id(), false, Utc::now() + Duration::seconds(61))
            .await
            .unwrap();
        let third = a.claim().await.unwrap();
        a.finish(third["id"].as_str().unwrap(), "succeeded", "started")
            .await;
        a.post("/api/v1/agents/heartbeat", report(&["sidecar-web"]))
            .await;
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["status"], "online", "{view}");
        a.post("/api/v1/agents/heartbeat", report(&[])).await;
        assert!(
            a.claim().await.is_none(),
            "a heartbeat sent before the deploy may still omit it"
        );
        let queued = reconciler
            .reconcile(&a.id(), false, Utc::now() + Duration::minutes(2))
            .await
            .unwrap();
        assert_eq!(
            queued.len(),
            1,
            "host rebuilt: the missing component is deployed again"
        );

        // Removing it ends the desired state: nothing more is queued.
        let pending = a.claim().await.unwrap();
        a.finish(pending["id"].as_str().unwrap(), "succeeded", "started")
            .await;
        let remove = json!({"agent_id": a.id(), "kind": "remove_component", "payload": {"component_id": "sidecar-web"}});
        assert_eq!(c.post_json("/api/v1/jobs", remove).await.status(), 201);
        let removal = a.claim().await.unwrap();
        a.finish(removal["id"].as_str().unwrap(), "succeeded", "removed")
            .await;
        a.post("/api/v1/agents/heartbeat", report(&[])).await;
        let queued = reconciler
            .reconcile(&a.id(), false, Utc::now() + Duration::minutes(5))
            .await
            .unwrap();
        assert!(queued.is_empty());
        let audit: Value = c.get_json("/api/v1/audit?action=job.created").await;
        assert!(audit
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["actor"] == "control"));
    }
);

on_both_databases!(
    an_exited_component_is_redeployed_with_backoff_and_a_leftover_is_flagged,
    |backend| async move {
        let c = common::start(backend).await;
        let (a, job) = claimed_sidecar_deployment(&c, 39).await;
        a.finish(job["id"].as_str().unwrap(), "succeeded", "started")
            .await;
        let t0 = Utc::now();

        // The container exits; a container nobody deployed runs beside it.
        let exited = report_states(&[("sidecar-web", "exited"), ("sidecar-old", "running")]);
        a.post("/api/v1/agents/heartbeat", exited.clone()).await;
        assert!(
            a.claim().await.is_none(),
            "not while the deployment settles"
        );
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["status"], "degraded", "{view}");
        let leftover = component_view(&c, &a.id(), "sidecar-old").await;
        assert_eq!(leftover["desired"], false);
        assert_eq!(
            leftover["last_error"], "",
            "a leftover is a warning, not an error"
        );

        let reconciler = &c.state.reconciler;
        let queued = reconciler
            .reconcile(&a.id(), false, t0 + Duration::seconds(61))
            .await
            .unwrap();
        assert_eq!(queued.len(), 1, "only the desired component is redeployed");
        assert_eq!(queued[0].component_id.as_deref(), Some("sidecar-web"));
        let web = component_view(&c, &a.id(), "sidecar-web").await;
        assert!(
            web["last_error"].as_str().unwrap().contains("not running"),
            "{web}"
        );
        let audit = redeploy_audit(&c).await;
        assert_eq!(audit.len(), 1);
        assert!(
            audit[0].contains("sidecar-web") && audit[0].contains("attempt 1"),
            "{audit:?}"
        );

        // The redeployment succeeds but the container exits again: the next
        // attempt waits 30 s, then the one after 60 s.
        let second = a.claim().await.unwrap();
        a.finish(second["id"].as_str().unwrap(), "succeeded", "started")
            .await;
        a.post("/api/v1/agents/heartbeat", exited.clone()).await;
        assert!(a.claim().await.is_none());
        let early = reconciler
            .reconcile(&a.id(), false, t0 + Duration::seconds(61 + 25))
            .await
            .unwrap();
        assert!(early.is_empty(), "the backoff has not passed: {early:?}");
        let queued = reconciler
            .reconcile(&a.id(), false, t0 + Duration::seconds(61 + 62))
            .await
            .unwrap();
        assert_eq!(queued.len(), 1);
        let audit = redeploy_audit(&c).await;
        assert!(audit.iter().any(|d| d.contains("attempt 2")), "{audit:?}");
        let web = component_view(&c, &a.id(), "sidecar-web").await;
        assert!(web["next_retry_at"].is_string(), "{web}");

        // Running again past the backoff: healthy, and the backoff starts over.
        let third = a.claim().await.unwrap();
        a.finish(third["id"].as_str().unwrap(), "succeeded", "started")
            .await;
        a.post(
            "/api/v1/agents/heartbeat",
            report_states(&[("sidecar-web", "running"), ("sidecar-old", "running")]),
        )
        .await;
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["status"], "online", "{view}");
        let queued = reconciler
            .reconcile(&a.id(), false, t0 + Duration::minutes(10))
            .await
            .unwrap();
        assert!(queued.is_empty());
        let row = component::Entity::find()
            .filter(component::Column::AgentId.eq(a.id()))
            .filter(component::Column::ComponentId.eq("sidecar-web"))
            .one(&c.state.db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((row.deploy_failures, row.next_deploy_at), (0, None));

        // Removing the leftover is an ordinary removal job for the Agent.
        let remove = json!({"agent_id": a.id(), "kind": "remove_component", "payload": {"component_id": "sidecar-old"}});
        assert_eq!(c.post_json("/api/v1/jobs", remove).await.status(), 201);
        let removal = a.claim().await.unwrap();
        assert_eq!(removal["kind"], "remove_component");
        a.finish(removal["id"].as_str().unwrap(), "succeeded", "removed")
            .await;
        a.post("/api/v1/agents/heartbeat", report(&["sidecar-web"]))
            .await;
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["components"].as_array().unwrap().len(), 1, "{view}");
    }
);
