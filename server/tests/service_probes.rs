//! The end-to-end probe as Control runs it, on both databases: the admin
//! chooses a service and an Agent (refusals named by field, sent raw), the
//! first `probe_service` job is queued at once, a simulated
//! Agent answers with the report our Agent sends (end2end/tests/containers.rs
//! runs the real one through a node container), the history keeps each run,
//! the alert webhook hears `probe.failed` once and `probe.ok` after it, and
//! the checklist's monitoring step and the bootstrap criteria follow; a
//! node no probe wants any more is removed by its Agent, once.

mod common;

use chrono::{Duration, Utc};
use serde_json::{json, Value};

const ADDRESS: &str = "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot";

async fn checklist(c: &common::Control, network: &str) -> Value {
    c.get_json(&format!("/api/v1/networks/{network}/setup"))
        .await
}

fn criterion<'a>(list: &'a Value, slug: &str) -> &'a Value {
    list["bootstrap"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["criterion"] == slug)
        .unwrap_or_else(|| panic!("no criterion {slug} in {list}"))
}

async fn put_raw(c: &common::Control, network: &str, body: &str) -> reqwest::Response {
    c.client
        .put(c.url(&format!("/api/v1/networks/{network}/probe")))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// The prober claims the queued probe and answers with `report`.
async fn answer(prober: &common::SimAgent, status: &str, report: Value, text: &str) -> Value {
    let job = prober.claim().await.expect("a probe job is handed out");
    assert_eq!(job["kind"], "probe_service", "{job}");
    let r = prober
        .post(
            "/api/v1/agents/jobs/result",
            json!({"job_id": job["id"], "status": status, "result": text, "probe": report}),
        )
        .await;
    assert_eq!(r.status(), 200);
    job
}

fn events(received: &test_kit::Received) -> Vec<String> {
    received
        .lock()
        .unwrap()
        .iter()
        .map(|body| {
            serde_json::from_str::<Value>(body).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

on_both_databases!(
    a_probe_from_another_host_alerts_once_keeps_its_history_and_proves_the_overlay,
    |backend| async move {
        let (c, received) = common::signed_in_with_webhook(backend).await;
        let id = c
            .created_network(json!({"name": "Home", "beacons": ["https://b.example"]}))
            .await;
        common::on_host_deployed(
            &c,
            71,
            "shop-host",
            json!([{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                    "status": "running", "service": ADDRESS,
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": id}}]),
        )
        .await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "monitoring");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("No end-to-end probe"), "{detail}");
        let view: Value = c.get_json(&format!("/api/v1/networks/{id}/probe")).await;
        assert!(view["settings"].is_null(), "{view}");
        assert_eq!(view["runs"], json!([]));

        let prober = common::on_host_deployed(&c, 72, "probe-host", json!([])).await;
        let prober_id = prober.id();
        // Both hosts waited for approval when they enrolled: that news is out.
        c.state.alerts.deliver_due(Utc::now()).await.unwrap();
        assert_eq!(events(&received), ["agent.pending", "agent.pending"]);
        received.lock().unwrap().clear();
        // Each refusal names its field, whatever the body looks like.
        let hostile: Vec<(String, u16, &str)> = vec![
            (
                json!({"service": "shop", "agent_id": prober_id}).to_string(),
                400,
                "service",
            ),
            (
                json!({"service": "../web", "agent_id": prober_id}).to_string(),
                400,
                "service",
            ),
            (
                json!({"service": "web", "agent_id": "nobody"}).to_string(),
                400,
                "agent_id",
            ),
            (
                json!({"service": "web", "agent_id": ""}).to_string(),
                400,
                "agent_id",
            ),
            (
                json!({"service": "web", "agent_id": prober_id, "every_minutes": 0}).to_string(),
                400,
                "every_minutes",
            ),
            (
                json!({"service": "web", "agent_id": prober_id, "every_minutes": 1441}).to_string(),
                400,
                "every_minutes",
            ),
            (
                json!({"service": "web", "agent_id": prober_id, "every_minutes": -5}).to_string(),
                400,
                "",
            ),
            (
                json!({"service": "web", "agent_id": prober_id, "every_minutes": "5; drop"})
                    .to_string(),
                400,
                "",
            ),
            ("{\"service\": \"web\", \"agent_id\": ".to_string(), 400, ""),
            ("[]".to_string(), 400, ""),
        ];
        for (body, status, field) in &hostile {
            let r = put_raw(&c, &id, body).await;
            assert_eq!(r.status(), *status, "{body}");
            let error: Value = r.json().await.unwrap();
            assert!(
                error["hint"].is_string() || error["error"].is_string(),
                "{error}"
            );
            if !field.is_empty() {
                assert_eq!(error["field"], *field, "{body}: {error}");
            }
        }
        assert!(c
            .get_json::<Value>(&format!("/api/v1/networks/{id}/probe"))
            .await["settings"]
            .is_null());

        // Chosen: the first probe is queued at once, with the address and Beacons.
        let r = put_raw(
            &c,
            &id,
            &json!({"service": "web", "agent_id": prober_id}).to_string(),
        )
        .await;
        assert_eq!(r.status(), 200);
        let saved: Value = r.json().await.unwrap();
        assert_eq!(saved["settings"]["every_minutes"], 5, "{saved}");
        let job = answer(
            &prober,
            "failed",
            json!({"address": ADDRESS, "ok": false, "latency_ms": 0, "stage": "overlay", "status": 502}),
            &format!("$ docker compose up -d\nhttp://{ADDRESS}/ (web) through the node's proxy at 127.0.0.1:20001: HTTP 502: no Beacon knows it\nthe probe stopped at: overlay"),
        )
        .await;
        assert_eq!(job["payload"]["address"], ADDRESS);
        assert_eq!(job["payload"]["beacons"], json!(["https://b.example"]));
        let view: Value = c.get_json(&format!("/api/v1/networks/{id}/probe")).await;
        let run = &view["runs"][0];
        assert_eq!(
            (run["ok"].as_bool(), run["stage"].as_str()),
            (Some(false), Some("overlay")),
            "{view}"
        );
        assert!(
            run["detail"].as_str().unwrap().contains("HTTP 502"),
            "{run}"
        );
        assert_eq!(run["agent_name"], "probe-host");
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "monitoring");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("overlay"), "{detail}");

        // The failure is news once, as probe.failed, not as a failed job.
        let t0 = Utc::now();
        let alerts = &c.state.alerts;
        assert_eq!(
            alerts.deliver_due(t0 + Duration::seconds(1)).await.unwrap(),
            1
        );
        assert_eq!(events(&received), ["probe.failed"]);
        let failed: Value = serde_json::from_str(&received.lock().unwrap()[0]).unwrap();
        assert_eq!(failed["subject"]["stage"], "overlay");
        assert_eq!(failed["subject"]["network_id"], id.as_str());

        // Not again within the interval; due after it.
        let schedule = server::domain::probes::schedule::ProbeSchedule::new(
            c.state.db.clone(),
            c.state.jobs.clone(),
        );
        assert!(schedule.queue_due(Utc::now()).await.unwrap().is_empty());
        let queued = schedule
            .queue_due(Utc::now() + Duration::minutes(6))
            .await
            .unwrap();
        assert_eq!(queued.len(), 1);
        assert!(
            schedule
                .queue_due(Utc::now() + Duration::minutes(12))
                .await
                .unwrap()
                .is_empty(),
            "one probe in flight at most"
        );
        // A report about another address is not the job's finding.
        let other = ADDRESS.replace("umux", "aaaa");
        answer(
            &prober,
            "succeeded",
            json!({"address": other, "ok": true, "latency_ms": 3}),
            "opened",
        )
        .await;
        let view: Value = c.get_json(&format!("/api/v1/networks/{id}/probe")).await;
        assert_eq!(view["runs"].as_array().unwrap().len(), 1, "{view}");

        schedule
            .queue_due(Utc::now() + Duration::minutes(6))
            .await
            .unwrap();
        answer(
            &prober,
            "succeeded",
            json!({"address": ADDRESS, "ok": true, "latency_ms": 42, "status": 200}),
            &format!("http://{ADDRESS}/ (web) through the node's proxy: HTTP 200 in 42 ms"),
        )
        .await;
        assert_eq!(
            alerts
                .deliver_due(t0 + Duration::seconds(400))
                .await
                .unwrap(),
            1
        );
        assert_eq!(events(&received), ["probe.failed", "probe.ok"]);
        let view: Value = c.get_json(&format!("/api/v1/networks/{id}/probe")).await;
        assert_eq!(view["runs"][0]["ok"], true);
        assert_eq!(view["runs"][0]["latency_ms"], 42);
        assert_eq!(view["runs"].as_array().unwrap().len(), 2);

        let list = checklist(&c, &id).await;
        let (state, detail) = common::setup_step(&list, "monitoring");
        assert_eq!(state, "done", "{detail}");
        assert!(
            detail.contains("probe-host") && detail.contains("42 ms"),
            "{detail}"
        );
        let step = list["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == "monitoring")
            .unwrap();
        assert!(
            step["warning"].is_null(),
            "another host: no warning: {step}"
        );
        for slug in ["service_resolves", "http_over_overlay"] {
            assert_eq!(criterion(&list, slug)["knowledge"], "proven", "{list}");
        }

        // Stopping it: nothing more is queued, the history stays, both audited.
        let r = c.delete(&format!("/api/v1/networks/{id}/probe")).await;
        assert_eq!(r.status(), 200);
        let view: Value = r.json().await.unwrap();
        assert!(view["settings"].is_null());
        assert_eq!(view["runs"].as_array().unwrap().len(), 2);
        assert!(schedule
            .queue_due(Utc::now() + Duration::days(1))
            .await
            .unwrap()
            .is_empty());
        // The prober is asked to remove its node.
        let removal = prober.claim().await.expect("the prober removes its node");
        assert_eq!(removal["kind"], "remove_component", "{removal}");
        assert_eq!(removal["payload"], json!({"component_id": "probe-web"}));
        let (state, _) = common::setup_step(&checklist(&c, &id).await, "monitoring");
        assert_eq!(state, "not_yet");
        let audit: Value = c.get_json("/api/v1/audit?action=probe.saved").await;
        assert!(
            audit
                .to_string()
                .contains("web from Agent probe-host every 5 min"),
            "{audit}"
        );
        let audit: Value = c.get_json("/api/v1/audit?action=probe.removed").await;
        assert!(audit.to_string().contains(&id), "{audit}");
    }
);

on_both_databases!(
    a_probe_from_the_services_own_host_is_warned_about_and_a_stale_pass_no_longer_counts,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = c
            .created_network(json!({"name": "Lab", "beacons": ["https://b.example"]}))
            .await;
        // A one-host network: the only Agent probes its own service.
        let prober = common::on_host_deployed(
            &c,
            73,
            "lab-host",
            json!([{"id": "sidecar-api", "kind": "sidecar", "name": "api",
                    "status": "running", "service": ADDRESS,
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": id}}]),
        )
        .await;
        let r = put_raw(
            &c,
            &id,
            &json!({"service": "api", "agent_id": prober.id(), "every_minutes": 2}).to_string(),
        )
        .await;
        assert_eq!(r.status(), 200);
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "monitoring");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("has not reported yet"), "{detail}");
        answer(
            &prober,
            "succeeded",
            json!({"address": ADDRESS, "ok": true, "latency_ms": 7}),
            "opened",
        )
        .await;
        let list = checklist(&c, &id).await;
        assert_eq!(common::setup_step(&list, "monitoring").0, "done");
        let step = list["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == "monitoring")
            .unwrap();
        assert!(
            step["warning"]
                .as_str()
                .unwrap_or_default()
                .contains("own host"),
            "{step}"
        );
        // Aged past three intervals (6 minutes), as if the prober went quiet.
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        use server::entities::probe_run;
        probe_run::Entity::update_many()
            .col_expr(
                probe_run::Column::At,
                (Utc::now() - Duration::minutes(7)).into(),
            )
            .filter(probe_run::Column::NetworkId.eq(id.as_str()))
            .exec(&c.state.db)
            .await
            .unwrap();
        let list = checklist(&c, &id).await;
        let (state, detail) = common::setup_step(&list, "monitoring");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("lab-host"), "{detail}");
        assert_ne!(criterion(&list, "http_over_overlay")["knowledge"], "proven");

        // Deleting the network stops its probe.
        assert_eq!(
            c.delete(&format!("/api/v1/networks/{id}")).await.status(),
            204
        );
        let schedule = server::domain::probes::schedule::ProbeSchedule::new(
            c.state.db.clone(),
            c.state.jobs.clone(),
        );
        assert!(schedule
            .queue_due(Utc::now() + Duration::days(1))
            .await
            .unwrap()
            .is_empty());
        let left = server::entities::network_probe::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        assert!(left.is_empty(), "{left:?}");
    }
);

/// Chooses `agent` to probe the service `web` of `network`.
async fn probe_web(c: &common::Control, network: &str, agent: &common::SimAgent) -> u16 {
    let body = json!({"service": "web", "agent_id": agent.id()}).to_string();
    put_raw(c, network, &body).await.status().as_u16()
}

/// `remove_component` jobs queued for `agent`, as the Jobs API lists them.
async fn node_removals(c: &common::Control, agent: &common::SimAgent) -> Vec<Value> {
    c.get_json(&format!(
        "/api/v1/jobs?agent_id={}&kind=remove_component",
        agent.id()
    ))
    .await
}

on_both_databases!(
    a_node_no_probe_wants_is_removed_by_its_agent_once_whichever_way_the_probe_ended,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let home = c
            .created_network(json!({"name": "Home", "beacons": ["https://b.example"]}))
            .await;
        let work = c
            .created_network(json!({"name": "Work", "beacons": ["https://w.example"]}))
            .await;
        let sidecar = |network: &str| {
            json!([{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                    "status": "running", "service": ADDRESS,
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": network}}])
        };
        common::on_host_deployed(&c, 81, "home-host", sidecar(&home)).await;
        common::on_host_deployed(&c, 82, "work-host", sidecar(&work)).await;
        let first = common::on_host_deployed(&c, 83, "first-prober", json!([])).await;
        let second = common::on_host_deployed(&c, 84, "second-prober", json!([])).await;
        let passed = json!({"address": ADDRESS, "ok": true, "latency_ms": 9});

        // Home probes from the first Agent, which starts its node.
        assert_eq!(probe_web(&c, &home, &first).await, 200);
        answer(&first, "succeeded", passed.clone(), "opened").await;
        assert!(node_removals(&c, &first).await.is_empty());

        // Moved to the second Agent: the first removes its node, and is
        // asked once, however often Control looks.
        assert_eq!(probe_web(&c, &home, &second).await, 200);
        let removal = first
            .claim()
            .await
            .expect("the first Agent removes its node");
        assert_eq!(removal["kind"], "remove_component", "{removal}");
        assert_eq!(removal["payload"], json!({"component_id": "probe-web"}));
        let r = first
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": removal["id"], "status": "succeeded", "result": "removed probe-web"}),
            )
            .await;
        assert_eq!(r.status(), 200);
        answer(&second, "succeeded", passed.clone(), "opened").await;
        let later = Utc::now() + Duration::minutes(10);
        let again = server::domain::probes::nodes::remove_unused(&c.state.db, &c.state.jobs, later)
            .await
            .unwrap();
        assert!(again.is_empty(), "{again:?}");
        assert_eq!(node_removals(&c, &first).await.len(), 1);
        assert!(node_removals(&c, &second).await.is_empty());

        // Work probes the same service name from the second Agent: they
        // share its node, so stopping Home's probe leaves the node running.
        assert_eq!(probe_web(&c, &work, &second).await, 200);
        answer(&second, "succeeded", passed.clone(), "opened").await;
        let r = c.delete(&format!("/api/v1/networks/{home}/probe")).await;
        assert_eq!(r.status(), 200);
        assert!(node_removals(&c, &second).await.is_empty());

        // Deleting Work, the last network that probes from it: Control's
        // next look asks the second Agent to remove its node.
        assert_eq!(
            c.delete(&format!("/api/v1/networks/{work}")).await.status(),
            204
        );
        let queued =
            server::domain::probes::nodes::remove_unused(&c.state.db, &c.state.jobs, Utc::now())
                .await
                .unwrap();
        assert_eq!(queued.len(), 1, "{queued:?}");
        let removal = second
            .claim()
            .await
            .expect("the second Agent removes its node");
        assert_eq!(removal["kind"], "remove_component", "{removal}");
        assert_eq!(removal["payload"], json!({"component_id": "probe-web"}));
        assert!(first.claim().await.is_none());
    }
);

on_both_databases!(
    a_person_limited_to_a_network_chooses_only_its_agents_as_prober,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let home = c
            .created_network(json!({"name": "Home", "beacons": ["https://b.example"]}))
            .await;
        let other = c
            .created_network(json!({"name": "Other", "beacons": ["https://o.example"]}))
            .await;
        let sidecar = |network: &str, name: &str| {
            json!([{"id": format!("sidecar-{name}"), "kind": "sidecar", "name": name,
                    "status": "running", "service": ADDRESS,
                    "labels": {"io.knotroute.managed": "true",
                               "io.knotroute.network-id": network}}])
        };
        let home_host = common::on_host_deployed(&c, 91, "home-host", sidecar(&home, "web")).await;
        let other_host =
            common::on_host_deployed(&c, 92, "other-host", sidecar(&other, "shop")).await;
        let fresh_host = common::on_host_deployed(&c, 93, "fresh-host", json!([])).await;
        let admin =
            common::people::join_limited(&c, "admin", "adm-home", std::slice::from_ref(&home))
                .await;
        let put = |agent: String| {
            let (admin, url) = (&admin, c.url(&format!("/api/v1/networks/{home}/probe")));
            async move {
                let r = admin
                    .put(url)
                    .json(&json!({"service": "web", "agent_id": agent}))
                    .send()
                    .await
                    .unwrap();
                (r.status().as_u16(), r.json::<Value>().await.unwrap())
            }
        };

        // Another network's host, and a host of no network, are refused as
        // if they did not exist: nothing is saved and no node is started.
        for agent in [other_host.id(), fresh_host.id()] {
            let (status, error) = put(agent).await;
            assert_eq!(status, 400, "{error}");
            assert_eq!(error["field"], "agent_id", "{error}");
        }
        let view: Value = c.get_json(&format!("/api/v1/networks/{home}/probe")).await;
        assert!(view["settings"].is_null(), "{view}");
        assert!(other_host.claim().await.is_none());
        assert!(fresh_host.claim().await.is_none());

        // A host of their own network is theirs to choose.
        let (status, saved) = put(home_host.id()).await;
        assert_eq!(status, 200, "{saved}");
        assert_eq!(saved["settings"]["agent_id"], home_host.id().as_str());
        // The owner, who sees every network, may probe from any host.
        let r = put_raw(
            &c,
            &home,
            &json!({"service": "web", "agent_id": other_host.id()}).to_string(),
        )
        .await;
        assert_eq!(r.status(), 200);
    }
);

/// The kinds of the jobs a list holds, sorted (two jobs queued in the
/// same instant may list either way round).
fn kinds(jobs: &Value) -> Vec<&str> {
    let mut kinds: Vec<&str> = jobs
        .as_array()
        .unwrap_or_else(|| panic!("a list of jobs: {jobs}"))
        .iter()
        .map(|j| j["kind"].as_str().unwrap())
        .collect();
    kinds.sort_unstable();
    kinds
}

on_both_databases!(
    the_probes_runs_stay_out_of_the_job_lists_unless_asked_for,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let home = c
            .created_network(json!({"name": "Home", "beacons": ["https://b.example"]}))
            .await;
        let shop = common::on_host_deployed(
            &c,
            94,
            "shop-host",
            json!([{"id": "sidecar-web", "kind": "sidecar", "name": "web",
                    "status": "running", "service": ADDRESS,
                    "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": home}}]),
        )
        .await;
        let prober = common::on_host_deployed(&c, 95, "probe-host", json!([])).await;
        c.queued_job(json!({"agent_id": shop.id(), "kind": "restart_component",
                            "payload": {"component_id": "sidecar-web"}}))
            .await;
        // Saving the probe queues its first run.
        assert_eq!(probe_web(&c, &home, &prober).await, 200);

        // The API lists every job unless told to leave the runs out.
        let every: Value = c.get_json("/api/v1/jobs").await;
        assert_eq!(
            kinds(&every),
            ["deploy_sidecar", "probe_service", "restart_component"]
        );
        let without: Value = c.get_json("/api/v1/jobs?hide_probe_runs=true").await;
        assert_eq!(kinds(&without), ["deploy_sidecar", "restart_component"]);
        let asked: Value = c
            .get_json("/api/v1/jobs?hide_probe_runs=true&kind=probe_service")
            .await;
        assert_eq!(kinds(&asked), ["probe_service"]);
        let r = c
            .client
            .get(c.url("/api/v1/jobs?hide_probe_runs=maybe"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);

        // The Jobs screen leaves them out until "Show probe runs" is ticked,
        // and so does the Overview's list of recent jobs.
        let screen = |query: Value| {
            let request = c
                .client
                .post(c.url("/ui/list_jobs"))
                .json(&json!({"query": query}));
            async move {
                let r = request.send().await.unwrap();
                assert_eq!(r.status(), 200);
                r.json::<Value>().await.unwrap()
            }
        };
        let page = screen(json!({})).await;
        assert_eq!(
            kinds(&page["items"]),
            ["deploy_sidecar", "restart_component"],
            "{page}"
        );
        let page = screen(json!({"probes": "shown"})).await;
        assert_eq!(
            kinds(&page["items"]),
            ["deploy_sidecar", "probe_service", "restart_component"],
            "{page}"
        );
        let page = screen(json!({"kind": "probe_service"})).await;
        assert_eq!(kinds(&page["items"]), ["probe_service"], "{page}");
        let lists: Value = c
            .client
            .post(c.url("/ui/overview_lists"))
            .form(&[("", "")])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            kinds(&lists["recent_jobs"]),
            ["deploy_sidecar", "restart_component"],
            "{lists}"
        );
    }
);
