//! Live job progress (docs/src/agent-protocol.md): stages and output recorded in
//! order and once, bounded per message and per job, the lease extended by
//! each message on the database's clock, expiry when the Agent goes silent,
//! and a running job asked to stop.

mod common;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use server::entities::job;

fn sidecar_job(agent_id: &str) -> Value {
    json!({"agent_id": agent_id, "kind": "deploy_sidecar", "payload": {
        "name": "web", "network_id": common::lab_network_id(),
        "target": "app:8080", "docker_network": "apps", "beacons": ["https://beacon.example.net"]}})
}

fn stage(index: u32, name: &str, status: &str, lines: &[&str]) -> Value {
    json!({"index": index, "name": name, "status": status,
        "started_at": "2026-12-02T10:00:00Z", "lines": lines})
}

/// A job queued for a fresh Agent and taken by it announcing progress.
async fn running_job(c: &common::Control, seed: u8) -> (common::SimAgent, String) {
    let agent = common::SimAgent::with_docker(c, seed).await;
    c.queued_job(sidecar_job(&agent.id())).await;
    let offer = agent.claim_reporting().await.expect("the job is waiting");
    (agent, offer["id"].as_str().unwrap().to_string())
}

async fn row(c: &common::Control, id: &str) -> job::Model {
    job::Entity::find_by_id(id)
        .one(&c.state.db)
        .await
        .unwrap()
        .unwrap()
}

/// Moves the job's lease to `seconds` from now by the database's clock.
async fn set_lease(c: &common::Control, id: &str, seconds: i64) {
    let now = server::domain::database_now(&c.state.db).await;
    job::Entity::update_many()
        .col_expr(
            job::Column::LeaseExpiresAt,
            Some(now + chrono::Duration::seconds(seconds)).into(),
        )
        .filter(job::Column::Id.eq(id))
        .exec(&c.state.db)
        .await
        .unwrap();
}

async fn first_stage(c: &common::Control, id: &str) -> Value {
    let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
    view["stages"][0].clone()
}

async fn log_texts(c: &common::Control, id: &str, after: u64) -> Vec<String> {
    let page: Value = c
        .get_json(&format!("/api/v1/jobs/{id}/log?after={after}"))
        .await;
    page["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect()
}

on_both_databases!(
    progress_is_kept_in_order_once_and_read_back_by_stage,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 41).await;
        let send = |seq: u64, stages: Value| agent.progress(&id, seq, stages);
        let r = send(1, json!([stage(0, "validate", "running", &["payload ok"])])).await;
        assert_eq!(r.status(), 200);
        let answer: Value = r.json().await.unwrap();
        assert_eq!(
            (answer["ok"].as_bool(), answer["cancel"].as_bool()),
            (Some(true), Some(false))
        );
        assert!(answer["lease_seconds"].as_u64().unwrap() <= 60);
        let second = json!([
            stage(0, "validate", "succeeded", &[]),
            stage(1, "pull", "running", &["layer 1", "layer 2", "layer 3"]),
        ]);
        assert_eq!(send(2, second).await.status(), 200);
        // Sent again after a lost answer, and an older one arriving late: ignored.
        assert_eq!(
            send(2, json!([stage(1, "pull", "running", &["layer 1"])]))
                .await
                .status(),
            200
        );
        assert_eq!(
            send(1, json!([stage(0, "validate", "running", &["again"])]))
                .await
                .status(),
            200
        );

        let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(view["reports_progress"], true);
        let stages: Vec<(&str, &str)> = view["stages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["name"].as_str().unwrap(), s["status"].as_str().unwrap()))
            .collect();
        assert_eq!(stages, vec![("validate", "succeeded"), ("pull", "running")]);
        assert_eq!(
            log_texts(&c, &id, 0).await,
            vec!["payload ok", "layer 1", "layer 2", "layer 3"]
        );
        assert_eq!(log_texts(&c, &id, 2).await, vec!["layer 2", "layer 3"]);
        // The list says which stage a running job is in.
        let listed: Value = c.get_json("/api/v1/jobs").await;
        assert_eq!(listed[0]["stage"], "pull");
        assert!(listed[0].get("stages").is_none(), "lists leave stages out");

        // The result closes a stage the Agent left running.
        agent.finish(&id, "succeeded", "done").await;
        let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(view["status"], "succeeded");
        assert_eq!(view["stages"][1]["status"], "succeeded");
        // Progress for a job that ended is refused, so the Agent stops sending it.
        let late = send(3, json!([])).await;
        assert_eq!(late.status(), 409);
        assert_eq!(late.json::<Value>().await.unwrap()["code"], "job_state");
    }
);

on_both_databases!(
    a_stage_keeps_its_start_end_and_command_when_later_messages_leave_them_out,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 38).await;
        let mut first = stage(0, "pull", "running", &[]);
        first["command"] = json!("docker compose pull");
        assert_eq!(agent.progress(&id, 1, json!([first])).await.status(), 200);
        let running = first_stage(&c, &id).await;
        assert_eq!(running["ended_at"], Value::Null, "{running}");

        // Failed, with no end time, command or start of its own: it ends
        // when Control hears it, keeps its start and its command.
        let mut failed = stage(0, "pull", "failed", &[]);
        failed["started_at"] = json!("2026-12-02T10:09:00Z");
        failed["exit_code"] = json!(1);
        assert_eq!(
            agent
                .progress(&id, 2, json!([failed.clone()]))
                .await
                .status(),
            200
        );
        let ended = first_stage(&c, &id).await;
        assert_eq!(ended["status"], "failed");
        assert_eq!(ended["started_at"], "2026-12-02T10:00:00Z");
        assert_eq!(ended["command"], "docker compose pull");
        assert_eq!(ended["exit_code"], 1);
        assert!(ended["ended_at"].is_string(), "{ended}");

        // Said again later, it keeps the end it had (its time stops growing).
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        failed["exit_code"] = Value::Null;
        assert_eq!(agent.progress(&id, 3, json!([failed])).await.status(), 200);
        let again = first_stage(&c, &id).await;
        assert_eq!(again["ended_at"], ended["ended_at"]);
        assert_eq!(again["exit_code"], 1, "an exit code left out is kept");

        // An end time the Agent gives wins; running again clears it.
        let mut timed = stage(0, "pull", "succeeded", &[]);
        timed["ended_at"] = json!("2026-12-02T10:07:00Z");
        assert_eq!(agent.progress(&id, 4, json!([timed])).await.status(), 200);
        let timed = first_stage(&c, &id).await;
        assert_eq!(timed["ended_at"], "2026-12-02T10:07:00Z");
        assert_eq!(timed["elapsed_secs"], 420);
        assert_eq!(
            agent
                .progress(&id, 5, json!([stage(0, "pull", "running", &[])]))
                .await
                .status(),
            200
        );
        assert_eq!(first_stage(&c, &id).await["ended_at"], Value::Null);
    }
);

on_both_databases!(
    a_message_outside_the_bounds_is_refused_naming_the_field,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 42).await;
        let many = vec!["x"; protocol::progress::LINES_PER_MESSAGE + 1];
        let hostile = [
            (
                json!({"job_id": id, "seq": 1, "stages": [stage(0, "pull", "running", &many)]}),
                "stages.lines",
            ),
            (json!({"job_id": id, "seq": 0, "stages": []}), "seq"),
            (
                json!({"job_id": id, "seq": 1, "stages": [stage(64, "pull", "running", &[])]}),
                "stages.index",
            ),
            (
                json!({"job_id": id, "seq": 1, "stages": [stage(0, "", "running", &[])]}),
                "stages.name",
            ),
            (
                json!({"job_id": id, "seq": 1, "stages": [stage(0, "pull\u{7}", "running", &[])]}),
                "stages.name",
            ),
            (
                json!({"job_id": id, "seq": 1, "stages": [
                {"index": 0, "name": "pull", "status": "running", "started_at": "soon"}]}),
                "stages.started_at",
            ),
        ];
        for (body, field) in hostile {
            let r = agent.post("/api/v1/agents/jobs/progress", body).await;
            assert_eq!(r.status(), 400, "{field}");
            let error: Value = r.json().await.unwrap();
            assert_eq!(error["field"], field, "{error}");
        }
        // Unknown statuses and malformed IDs are malformed JSON for this body.
        let r = agent
            .post(
                "/api/v1/agents/jobs/progress",
                json!({"job_id": id, "seq": 1, "stages": [stage(0, "pull", "exploded", &[])]}),
            )
            .await;
        assert_eq!(r.status(), 400);
        // Nothing of the refused messages was kept.
        assert!(log_texts(&c, &id, 0).await.is_empty());
        // Another Agent's job is not found; an unsigned message is not let in.
        let stranger = common::SimAgent::with_docker(&c, 43).await;
        let r = stranger.progress(&id, 1, json!([])).await;
        assert_eq!(r.status(), 404);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "not_found");
        let unsigned = c
            .client
            .post(c.url("/api/v1/agents/jobs/progress"))
            .json(&json!({"job_id": id, "seq": 1}))
            .send()
            .await
            .unwrap();
        assert_eq!(unsigned.status(), 401);
    }
);

on_both_databases!(
    output_past_the_bound_keeps_its_start_and_its_end,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 44).await;
        let max = protocol::progress::LINES_PER_MESSAGE;
        // Four messages of 400 lines of 1 KiB: 1.6 MiB, past the 1 MiB bound.
        for seq in 1..=4u64 {
            let lines: Vec<String> = (0..max)
                .map(|i| format!("{seq}:{i:03} {}", "x".repeat(1000)))
                .collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let r = agent
                .progress(&id, seq, json!([stage(0, "pull", "running", &lines)]))
                .await;
            assert_eq!(r.status(), 200);
        }
        let stored = row(&c, &id).await;
        assert!(
            stored.log_bytes <= protocol::progress::JOB_LOG_MAX_BYTES as i64,
            "{} bytes kept",
            stored.log_bytes
        );
        assert_eq!(stored.log_lines, 4 * max as i64);
        // Read it all, page by page.
        let mut lines = Vec::new();
        let mut after = 0;
        loop {
            let page: Value = c
                .get_json(&format!("/api/v1/jobs/{id}/log?after={after}"))
                .await;
            lines.extend(page["lines"].as_array().unwrap().iter().cloned());
            match page["next"].as_u64() {
                Some(next) => after = next,
                None => break,
            }
        }
        let text = |l: &Value| l["text"].as_str().unwrap().to_string();
        assert!(text(&lines[0]).starts_with("1:000 "), "the start is kept");
        assert!(
            text(lines.last().unwrap()).starts_with(&format!("4:{:03} ", max - 1)),
            "the end is kept"
        );
        let cuts: Vec<&Value> = lines.iter().filter(|l| l["cut"] == true).collect();
        assert_eq!(cuts.len(), 1, "one marker where the middle went");
        assert!(text(cuts[0]).contains("lines cut"), "{}", cuts[0]);
        // A line longer than the bound is cut, not refused.
        let long = "y".repeat(10_000);
        let r = agent
            .progress(
                &id,
                5,
                json!([stage(0, "pull", "running", &[long.as_str()])]),
            )
            .await;
        assert_eq!(r.status(), 200);
        let last = log_texts(&c, &id, stored.log_lines as u64).await;
        assert!(last[0].len() <= protocol::progress::LINE_MAX && last[0].ends_with('…'));
    }
);

on_both_databases!(
    each_message_extends_the_lease_and_a_silent_agent_loses_the_job_within_a_minute,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 45).await;
        // Taken announcing progress: a one-minute lease, not ten.
        let claimed = row(&c, &id).await;
        let lease = claimed.lease_expires_at.unwrap() - claimed.started_at.unwrap();
        assert_eq!(lease, chrono::Duration::seconds(60));
        assert!(claimed.reports_progress);
        // A keep-alive with five seconds left moves it a minute on, by the database's clock.
        set_lease(&c, &id, 5).await;
        assert_eq!(agent.progress(&id, 1, json!([])).await.status(), 200);
        let now = server::domain::database_now(&c.state.db).await;
        let left = row(&c, &id).await.lease_expires_at.unwrap() - now;
        assert!(left > chrono::Duration::seconds(50), "{left}");
        // The Agent goes silent: within the minute the job is expired, saying why.
        set_lease(&c, &id, -1).await;
        assert_eq!(c.state.jobs.expire_overdue().await.unwrap(), 1);
        let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(view["status"], "expired");
        assert!(
            view["result"]
                .as_str()
                .unwrap()
                .contains("no progress for a minute"),
            "{view}"
        );

        // A version-1 claim keeps its ten minutes even if progress comes.
        c.queued_job(sidecar_job(&agent.id())).await;
        let offer = agent.next_job().await;
        let v1 = offer["id"].as_str().unwrap();
        assert_eq!(agent.progress(v1, 1, json!([])).await.status(), 200);
        let stored = row(&c, v1).await;
        let lease = stored.lease_expires_at.unwrap() - stored.started_at.unwrap();
        assert!(lease >= chrono::Duration::minutes(10), "{lease}");
        assert!(!stored.reports_progress);
    }
);

on_both_databases!(
    a_deploy_longer_than_the_base_lease_succeeds_and_is_not_redeployed,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 46).await;
        // Fifteen minutes of work, reported all along: the clock moves the
        // start back five minutes a round, the messages move the lease on.
        for seq in 1..=3u64 {
            let r = agent
                .progress(
                    &id,
                    seq,
                    json!([stage(0, "pull", "running", &["still pulling"])]),
                )
                .await;
            assert_eq!(r.status(), 200);
            let started = row(&c, &id).await.started_at.unwrap();
            job::Entity::update_many()
                .col_expr(
                    job::Column::StartedAt,
                    Some(started - chrono::Duration::minutes(5)).into(),
                )
                .filter(job::Column::Id.eq(id.as_str()))
                .exec(&c.state.db)
                .await
                .unwrap();
            assert_eq!(c.state.jobs.expire_overdue().await.unwrap(), 0);
        }
        agent.finish(&id, "succeeded", "verified").await;
        let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(view["status"], "succeeded");
        let jobs: Value = c
            .get_json(&format!("/api/v1/jobs?agent_id={}", agent.id()))
            .await;
        assert_eq!(
            jobs.as_array().unwrap().len(),
            1,
            "nothing was queued again: {jobs}"
        );
    }
);

on_both_databases!(
    a_running_job_is_asked_to_stop_and_reports_cancelled,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 47).await;
        assert_eq!(
            agent
                .progress(&id, 1, json!([stage(0, "pull", "running", &["pulling"])]))
                .await
                .status(),
            200
        );
        let r = c.post_empty(&format!("/api/v1/jobs/{id}/cancel")).await;
        assert_eq!(r.status(), 200);
        let view: Value = r.json().await.unwrap();
        assert_eq!(
            (view["status"].as_str(), view["cancel_requested"].as_bool()),
            (Some("running"), Some(true))
        );
        let answer: Value = agent
            .progress(&id, 2, json!([]))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            answer["cancel"], true,
            "the Agent hears it in the next answer"
        );
        agent
            .progress(&id, 3, json!([stage(0, "pull", "cancelled", &["stopped"])]))
            .await;
        agent
            .finish(&id, "cancelled", "cancelled by an admin")
            .await;
        let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(view["status"], "cancelled");
        assert_eq!(view["stages"][0]["status"], "cancelled");
        let audit: Value = c.get_json("/api/v1/audit?action=job.stop_requested").await;
        assert_eq!(audit[0]["subject"], id.as_str());

        // A job an older Agent runs (no progress) cannot be told to stop.
        c.queued_job(sidecar_job(&agent.id())).await;
        let v1 = agent.next_job().await;
        let r = c
            .post_empty(&format!(
                "/api/v1/jobs/{}/cancel",
                v1["id"].as_str().unwrap()
            ))
            .await;
        assert_eq!(r.status(), 409);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "job_cannot_stop");
        // `cancelled` without a request is recorded as failed.
        agent
            .finish(v1["id"].as_str().unwrap(), "cancelled", "stopped by itself")
            .await;
        let view: Value = c
            .get_json(&format!("/api/v1/jobs/{}", v1["id"].as_str().unwrap()))
            .await;
        assert_eq!(view["status"], "failed");
    }
);

on_both_databases!(
    the_output_of_jobs_past_the_retention_goes_and_their_stages_stay,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (agent, id) = running_job(&c, 48).await;
        let first = json!([stage(0, "up", "running", &["Started"])]);
        assert_eq!(agent.progress(&id, 1, first).await.status(), 200);
        agent.finish(&id, "succeeded", "verified").await;
        let now = chrono::Utc::now();
        let retention = chrono::Duration::days(90);
        server::domain::log_retention::prune(&c.state.db, now, retention)
            .await
            .unwrap();
        assert_eq!(log_texts(&c, &id, 0).await, vec!["Started"], "recent: kept");
        // Ninety-one days later.
        let later = now + chrono::Duration::days(91);
        server::domain::log_retention::prune(&c.state.db, later, retention)
            .await
            .unwrap();
        assert!(log_texts(&c, &id, 0).await.is_empty());
        let view: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(view["stages"][0]["name"], "up");
        assert_eq!(view["result"], "verified");
    }
);

on_both_databases!(
    a_starting_control_gives_running_jobs_a_minute_to_report_again,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        let (_agent, id) = running_job(&c, 49).await;
        // Control was down for two minutes: the Agent's messages did not arrive.
        set_lease(&c, &id, -60).await;
        assert_eq!(c.state.jobs.renew_progress_leases().await.unwrap(), 1);
        assert_eq!(c.state.jobs.expire_overdue().await.unwrap(), 0);
        let now = server::domain::database_now(&c.state.db).await;
        let left = row(&c, &id).await.lease_expires_at.unwrap() - now;
        assert!(left > chrono::Duration::seconds(50), "{left}");
    }
);
