//! "Identities survive restarts" as Control records it, on both databases: a
//! simulated Agent answers `restart_component` jobs for a sidecar with the
//! addresses it announced before and after (our Agent's report; the real one
//! runs in end2end/tests/containers.rs). The same address proves the
//! criterion; a changed one says the identity was lost; a report that is not
//! about the job's sidecar, or comes with a failed job, is not kept.

mod common;

use serde_json::{json, Value};

const ADDRESS: &str = common::WEB_ADDRESS;
const OTHER: &str = "aaaaz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot";

async fn criterion(c: &common::Control, network: &str) -> (String, String) {
    let list: Value = c
        .get_json(&format!("/api/v1/networks/{network}/setup"))
        .await;
    let found = list["bootstrap"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["criterion"] == "identity_survives_restart")
        .cloned()
        .unwrap();
    (
        found["knowledge"].as_str().unwrap().to_string(),
        found["detail"].as_str().unwrap().to_string(),
    )
}

/// Queues a restart of the sidecar; the Agent answers with `report`.
async fn restarted(c: &common::Control, agent: &common::SimAgent, status: &str, report: Value) {
    let job = c
        .queued_job(json!({"agent_id": agent.id(), "kind": "restart_component",
                           "payload": {"component_id": "sidecar-web"}}))
        .await;
    let claimed = agent.claim().await.expect("the restart is handed out");
    assert_eq!(claimed["id"], job["id"]);
    let r = agent
        .post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": job["id"], "status": status, "result": "restarted",
                   "restart": report}),
        )
        .await;
    assert_eq!(r.status(), 200);
}

on_both_databases!(
    a_sidecar_restarted_by_its_agent_proves_or_disproves_that_its_identity_survives,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let (id, agent) = common::published_web(&c, 81).await;
        let (knowledge, detail) = criterion(&c, &id).await;
        assert_eq!(knowledge, "unknown", "{detail}");

        // Not kept: another component, a made-up address, a failed restart.
        let other = json!({"component_id": "sidecar-shop", "address_before": ADDRESS, "address_after": ADDRESS});
        restarted(&c, &agent, "succeeded", other).await;
        let bad = json!({"component_id": "sidecar-web", "address_before": "../x", "address_after": ADDRESS});
        restarted(&c, &agent, "succeeded", bad).await;
        let same = json!({"component_id": "sidecar-web", "address_before": ADDRESS, "address_after": ADDRESS});
        restarted(&c, &agent, "failed", same.clone()).await;
        assert_eq!(criterion(&c, &id).await.0, "unknown");

        restarted(&c, &agent, "succeeded", same).await;
        let (knowledge, detail) = criterion(&c, &id).await;
        assert_eq!(knowledge, "proven", "{detail}");
        assert!(detail.contains(ADDRESS), "{detail}");

        let changed = json!({"component_id": "sidecar-web", "address_before": ADDRESS, "address_after": OTHER});
        restarted(&c, &agent, "succeeded", changed).await;
        let (knowledge, detail) = criterion(&c, &id).await;
        assert_eq!(knowledge, "not_yet", "{detail}");
        assert!(
            detail.contains(OTHER) && detail.contains("did not keep"),
            "{detail}"
        );
    }
);
