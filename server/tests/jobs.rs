//! The job queue end to end: an admin queues, a simulated Agent claims
//! (long-polling), reports, and the rules around leases and ownership hold.

mod common;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use server::entities::job;
use std::time::{Duration, Instant};

fn sidecar_job(agent_id: &str) -> Value {
    json!({"agent_id": agent_id, "kind": "deploy_sidecar", "payload": {
        "name": "Web", "network_id": common::lab_network_id(),
        "target": "app:8080", "docker_network": "apps", "beacons": ["https://beacon.example.net"]}})
}

async fn queue(c: &common::Control, body: Value) -> reqwest::Response {
    c.post_json("/api/v1/jobs", body).await
}

on_both_databases!(
    a_job_goes_from_pending_to_running_to_succeeded_once,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 11).await;
        let job = c.queued_job(sidecar_job(&a.id())).await;
        assert_eq!(job["status"], "pending");
        assert_eq!(
            job["payload"]["name"], "web",
            "the stored payload is normalised"
        );

        let r = a.post("/api/v1/agents/jobs/next", json!({})).await;
        assert_eq!(r.status(), 200);
        let offer: Value = r.json().await.unwrap();
        assert_eq!(
            (offer["id"].clone(), offer["status"].as_str()),
            (job["id"].clone(), Some("running"))
        );
        assert_eq!(offer["agent_id"], a.id());
        assert_eq!(
            offer["payload"]["beacons"],
            json!(["https://beacon.example.net"])
        );
        // Handed out once only.
        assert_eq!(
            a.post("/api/v1/agents/jobs/next", json!({})).await.status(),
            204
        );

        let id = job["id"].as_str().unwrap();
        let result =
            json!({"job_id": id, "status": "succeeded", "result": "started kr-sidecar-web"});
        assert_eq!(
            a.post("/api/v1/agents/jobs/result", result.clone())
                .await
                .status(),
            200
        );
        // The same result again, and a contradicting one, change nothing.
        assert_eq!(
            a.post("/api/v1/agents/jobs/result", result).await.status(),
            200
        );
        let late = json!({"job_id": id, "status": "failed", "result": "late"});
        assert_eq!(
            a.post("/api/v1/agents/jobs/result", late).await.status(),
            200
        );
        let stored: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(
            (stored["status"].as_str(), stored["result"].as_str()),
            (Some("succeeded"), Some("started kr-sidecar-web"))
        );
        assert!(stored["finished_at"].is_string());
    }
);

on_both_databases!(
    a_result_for_another_agents_job_is_not_found,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (owner, other) = (
            common::SimAgent::with_docker(&c, 12).await,
            common::SimAgent::with_docker(&c, 13).await,
        );
        let job = c.queued_job(sidecar_job(&owner.id())).await;
        owner.post("/api/v1/agents/jobs/next", json!({})).await;
        let r = other
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": job["id"], "status": "failed", "result": "x"}),
            )
            .await;
        assert_eq!(r.status(), 404);
        // The other agent's queue is empty: jobs go only to their own agent.
        assert_eq!(
            other
                .post("/api/v1/agents/jobs/next", json!({}))
                .await
                .status(),
            204
        );
    }
);

on_both_databases!(
    a_long_poll_wakes_within_a_second_of_the_job_being_queued,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 14).await;
        let waiting = {
            let a = common::SimAgent::new(&c, 14);
            tokio::spawn(async move {
                let r = a.post("/api/v1/agents/jobs/next?wait=10", json!({})).await;
                (r.status(), Instant::now())
            })
        };
        tokio::time::sleep(Duration::from_millis(400)).await;
        let queued_at = Instant::now();
        assert_eq!(queue(&c, sidecar_job(&a.id())).await.status(), 201);
        let (status, answered_at) = waiting.await.unwrap();
        assert_eq!(status, 200);
        let delay = answered_at.duration_since(queued_at);
        assert!(delay < Duration::from_secs(1), "woke after {delay:?}");
        // Without a job the wait ends with 204 after the requested time.
        let start = Instant::now();
        assert_eq!(
            a.post("/api/v1/agents/jobs/next?wait=1", json!({}))
                .await
                .status(),
            204
        );
        assert!(start.elapsed() >= Duration::from_millis(900));
    }
);

on_both_databases!(
    a_running_job_without_a_result_expires_after_its_lease,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 15).await;
        let job = c.queued_job(sidecar_job(&a.id())).await;
        a.post("/api/v1/agents/jobs/next", json!({})).await;
        let id = job["id"].as_str().unwrap();
        // The lease is ten minutes from the claim, both read off the
        // database's clock, which every replica shares.
        let claimed = job::Entity::find_by_id(id)
            .one(&c.state.db)
            .await
            .unwrap()
            .unwrap();
        let lease = claimed.lease_expires_at.unwrap() - claimed.started_at.unwrap();
        assert_eq!(lease, chrono::Duration::minutes(10));
        assert_eq!(
            c.state.jobs.expire_overdue().await.unwrap(),
            0,
            "still within its lease"
        );
        // Ten minutes pass for the database: the lease is judged by its clock.
        let database_now = server::domain::database_now(&c.state.db).await;
        job::Entity::update_many()
            .col_expr(
                job::Column::LeaseExpiresAt,
                Some(database_now - chrono::Duration::seconds(1)).into(),
            )
            .filter(job::Column::Id.eq(id))
            .exec(&c.state.db)
            .await
            .unwrap();
        assert_eq!(c.state.jobs.expire_overdue().await.unwrap(), 1);
        let stored: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(stored["status"], "expired");
        assert!(stored["result"].as_str().unwrap().contains("lease"));
        let audit: Value = c.get_json("/api/v1/audit?action=job.expired").await;
        assert_eq!(audit[0]["subject"], id);
        // A result arriving after expiry does not resurrect the job.
        a.post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": id, "status": "succeeded", "result": "late"}),
        )
        .await;
        let stored: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(stored["status"], "expired");
    }
);

on_both_databases!(
    jobs_that_could_only_fail_are_refused_with_the_reason,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 16).await;
        let expect = |r: reqwest::Response,
                      status: u16,
                      field: Option<&'static str>,
                      code: &'static str| async move {
            assert_eq!(r.status(), status);
            let body: Value = r.json().await.unwrap();
            assert_eq!(body["code"], code, "{body}");
            if let Some(f) = field {
                assert_eq!(body["field"], f, "{body}");
            }
        };
        expect(
            queue(
                &c,
                json!({"agent_id": a.id(), "kind": "format_disk", "payload": {}}),
            )
            .await,
            400,
            Some("kind"),
            "unknown_job_kind",
        )
        .await;
        let mut no_beacon = sidecar_job(&a.id());
        no_beacon["payload"]["beacons"] = json!([]);
        expect(
            queue(&c, no_beacon).await,
            400,
            Some("beacons"),
            "sidecar_needs_beacon",
        )
        .await;
        let mut injected = sidecar_job(&a.id());
        injected["payload"]["target"] = json!("app:8080\n    privileged: true");
        expect(
            queue(&c, injected).await,
            400,
            Some("target"),
            "invalid_target",
        )
        .await;
        let stranger = common::SimAgent::new(&c, 17);
        expect(
            queue(&c, sidecar_job(&stranger.id())).await,
            404,
            Some("agent_id"),
            "agent_not_found",
        )
        .await;
        // An Agent that reported no Docker gets no Docker jobs.
        let no_docker = common::SimAgent::new(&c, 18);
        no_docker.enroll(common::ENROLL, "plain").await;
        no_docker.approve().await;
        no_docker
            .post(
                "/api/v1/agents/heartbeat",
                json!({"docker_available": false}),
            )
            .await;
        expect(
            queue(&c, sidecar_job(&no_docker.id())).await,
            409,
            None,
            "agent_without_docker",
        )
        .await;
    }
);

on_both_databases!(
    a_job_for_an_agent_that_never_checked_in_waits_for_it,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::new(&c, 19);
        assert_eq!(a.enroll(common::ENROLL, "later").await.status(), 201);
        a.approve().await;
        let job = c.queued_job(sidecar_job(&a.id())).await;
        assert_eq!(job["status"], "pending");
        let offer = a.next_job().await;
        assert_eq!(offer["id"], job["id"]);
    }
);

on_both_databases!(
    pending_jobs_can_be_cancelled_and_failed_ones_retried,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 20).await;
        let first = c.queued_job(sidecar_job(&a.id())).await;
        let id = first["id"].as_str().unwrap();
        let r = c.post_empty(&format!("/api/v1/jobs/{id}/cancel")).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["status"], "cancelled");
        assert_eq!(
            a.post("/api/v1/agents/jobs/next", json!({})).await.status(),
            204,
            "a cancelled job is never handed out"
        );
        // Only pending jobs can be cancelled.
        let again = c.post_empty(&format!("/api/v1/jobs/{id}/cancel")).await;
        assert_eq!(again.status(), 409);

        let second = c.queued_job(sidecar_job(&a.id())).await;
        let id2 = second["id"].as_str().unwrap();
        assert_eq!(
            c.post_empty(&format!("/api/v1/jobs/{id2}/retry"))
                .await
                .status(),
            409,
            "not failed yet"
        );
        a.post("/api/v1/agents/jobs/next", json!({})).await;
        a.post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": id2, "status": "failed", "result": "pull denied"}),
        )
        .await;
        let r = c.post_empty(&format!("/api/v1/jobs/{id2}/retry")).await;
        assert_eq!(r.status(), 201);
        let retry: Value = r.json().await.unwrap();
        assert_eq!(
            (retry["retry_of"].as_str(), retry["status"].as_str()),
            (Some(id2), Some("pending"))
        );
        assert_eq!(retry["payload"], second["payload"]);
    }
);

on_both_databases!(
    the_job_list_filters_and_pages_newest_first,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (a, b) = (
            common::SimAgent::with_docker(&c, 21).await,
            common::SimAgent::with_docker(&c, 22).await,
        );
        let mut created = Vec::new();
        for i in 0..7 {
            let agent = if i % 2 == 0 { &a } else { &b };
            let job = c.queued_job(sidecar_job(&agent.id())).await;
            created.push(job["id"].as_str().unwrap().to_string());
        }
        let mut seen = Vec::new();
        let mut after = String::new();
        loop {
            let r = c.get(&format!("/api/v1/jobs?limit=3{after}")).await;
            let next = r
                .headers()
                .get("x-next-cursor")
                .map(|v| v.to_str().unwrap().to_string());
            let page: Vec<Value> = r.json().await.unwrap();
            seen.extend(page.iter().map(|j| j["id"].as_str().unwrap().to_string()));
            match next {
                Some(n) => after = format!("&after={n}"),
                None => break,
            }
        }
        let mut expected = created.clone();
        expected.reverse();
        assert_eq!(seen, expected, "every job once, newest first");
        let only_a: Vec<Value> = c
            .get_json(&format!("/api/v1/jobs?agent_id={}&status=pending", a.id()))
            .await;
        assert_eq!(only_a.len(), 4);
        assert!(only_a.iter().all(|j| j["agent_id"] == a.id().as_str()));
    }
);

on_both_databases!(
    a_disabled_agent_gets_no_jobs_until_enabled,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 23).await;
        let job = c.queued_job(sidecar_job(&a.id())).await;
        let r = c
            .post_empty(&format!("/api/v1/agents/{}/disable", a.id()))
            .await;
        assert_eq!(r.json::<Value>().await.unwrap()["status"], "disabled");
        let refused = a.post("/api/v1/agents/jobs/next", json!({})).await;
        assert_eq!(refused.status(), 401);
        assert_eq!(
            refused.json::<Value>().await.unwrap()["code"],
            "agent_disabled"
        );
        assert_eq!(queue(&c, sidecar_job(&a.id())).await.status(), 409);
        c.post_empty(&format!("/api/v1/agents/{}/enable", a.id()))
            .await;
        let offer = a.next_job().await;
        assert_eq!(
            offer["id"], job["id"],
            "the job queued before disabling is still delivered"
        );
    }
);

on_both_databases!(
    enrollments_state_changes_jobs_and_results_are_audited,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 24).await;
        let job = c.queued_job(sidecar_job(&a.id())).await;
        let id = job["id"].as_str().unwrap();
        a.post("/api/v1/agents/jobs/next", json!({})).await;
        a.post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": id, "status": "failed", "result": "x"}),
        )
        .await;
        c.post_empty(&format!("/api/v1/agents/{}/disable", a.id()))
            .await;
        c.create_network(json!({"name": "Audited"})).await;
        let log: Vec<Value> = c.get_json("/api/v1/audit").await;
        let actions: Vec<&str> = log.iter().map(|l| l["action"].as_str().unwrap()).collect();
        assert_eq!(
            actions,
            [
                "network.created",
                "agent.disabled",
                "job.finished",
                "job.created",
                "agent.approved",
                "agent.enrolled",
                "network.created"
            ]
        );
        let finished = &log[2];
        assert_eq!(
            (
                finished["actor"].as_str().unwrap(),
                finished["subject"].as_str(),
                finished["detail"].as_str()
            ),
            (
                format!("agent:{}", a.id()).as_str(),
                Some(id),
                Some("failed")
            )
        );
        let only_jobs: Vec<Value> = c.get_json(&format!("/api/v1/audit?subject={id}")).await;
        assert_eq!(only_jobs.len(), 2);
        // Paging: the next page starts below the last id seen.
        let older: Vec<Value> = c
            .get_json(&format!("/api/v1/audit?before={}", log[1]["id"]))
            .await;
        // Below "agent.disabled": the five entries listed under it.
        assert_eq!(older.len(), 5);
    }
);

on_both_databases!(
    the_job_list_filters_by_kind_and_agent_together,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (a, b) = (
            common::SimAgent::with_docker(&c, 21).await,
            common::SimAgent::with_docker(&c, 22).await,
        );
        for agent in [&a, &b] {
            assert_eq!(queue(&c, sidecar_job(&agent.id())).await.status(), 201);
            let restart = json!({"agent_id": agent.id(), "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}});
            assert_eq!(queue(&c, restart).await.status(), 201);
        }
        let restarts: Vec<Value> = c.get_json("/api/v1/jobs?kind=restart_component").await;
        assert_eq!(restarts.len(), 2);
        assert!(restarts.iter().all(|j| j["kind"] == "restart_component"));
        let one: Vec<Value> = c
            .get_json(&format!(
                "/api/v1/jobs?kind=deploy_sidecar&agent_id={}",
                a.id()
            ))
            .await;
        assert_eq!(one.len(), 1);
        assert_eq!(one[0]["agent_id"], a.id());
        assert_eq!(one[0]["kind"], "deploy_sidecar");
    }
);

on_both_databases!(
    jobs_queued_while_agents_claim_and_report_are_all_taken_never_503,
    |backend| async move {
        // On SQLite a transaction that read and then wrote failed at once
        // ("database is locked", answered 503) whenever an Agent's claim
        // committed in between; every write now waits its turn instead.
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let a = common::SimAgent::with_docker(&c, 12).await;
        let restart = json!({"agent_id": a.id(), "kind": "restart_component",
                             "payload": {"component_id": "sidecar-web"}});
        let admin = futures_util::future::join_all(
            (0..30).map(|_| async { queue(&c, restart.clone()).await.status().as_u16() }),
        );
        let agent = async {
            let mut claimed = 0;
            for _ in 0..60 {
                if let Some(job) = a.claim().await {
                    let r = a
                        .post(
                            "/api/v1/agents/jobs/result",
                            json!({"job_id": job["id"], "status": "succeeded", "result": "ok"}),
                        )
                        .await;
                    assert_eq!(r.status(), 200);
                    claimed += 1;
                }
            }
            claimed
        };
        let (statuses, claimed) = tokio::join!(admin, agent);
        assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
        let left: Vec<Value> = c
            .get_json(&format!("/api/v1/jobs?agent_id={}&status=pending", a.id()))
            .await;
        assert_eq!(claimed + left.len(), 30);
    }
);
