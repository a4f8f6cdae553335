//! Identity backups as Control records them, on both databases: a simulated
//! Agent takes `backup_volume` and `verify_backup` jobs and answers with the
//! report our Agent sends (agent/tests/identity_backups.rs runs the real one
//! against Docker). The checklist's first-service step, the "backup
//! verified" criterion and the operations policy follow what was reported;
//! archives the Agent pruned are forgotten; a failed verification is shown;
//! a report that does not describe the job's archive is not stored.

mod common;

use serde_json::{json, Value};

const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const ADDRESS: &str = common::WEB_ADDRESS;

/// A signed-in Control with a network, and an Agent whose sidecar `web`
/// runs in it with its address announced.
async fn published(
    backend: common::Backend,
    seed: u8,
) -> (common::Control, String, common::SimAgent) {
    let c = common::signed_in(backend).await;
    let (id, agent) = common::published_web(&c, seed).await;
    (c, id, agent)
}

async fn checklist(c: &common::Control, network: &str) -> Value {
    c.get_json(&format!("/api/v1/networks/{network}/setup"))
        .await
}

fn report(archive: &str, verified: bool, kept: u32) -> Value {
    json!({"component_id": "sidecar-web", "archive": archive,
        "directory": "/var/lib/knotroute-agent/backups/sidecar-web", "size_bytes": 10240,
        "sha256": SHA, "taken_at": "2026-12-04T12:00:00Z", "address": ADDRESS,
        "verified": verified, "kept": kept})
}

/// Queues `kind` for the sidecar, has the Agent claim it and answer.
async fn run(
    c: &common::Control,
    agent: &common::SimAgent,
    kind: &str,
    payload: Value,
    status: &str,
    backup: Option<Value>,
) -> Value {
    let job = c
        .queued_job(json!({"agent_id": agent.id(), "kind": kind, "payload": payload}))
        .await;
    let claimed = agent.claim().await.expect("the job is handed out");
    assert_eq!(claimed["id"], job["id"]);
    let mut body = json!({"job_id": job["id"], "status": status,
        "result": format!("{kind} done\nthe last line says why")});
    if let Some(backup) = backup {
        body["backup"] = backup;
    }
    let r = agent.post("/api/v1/agents/jobs/result", body).await;
    assert_eq!(r.status(), 200);
    c.get_json(&format!("/api/v1/jobs/{}", job["id"].as_str().unwrap()))
        .await
}

/// A `backup_volume` keeping 2 whose Agent reports `archive`, taken at
/// `taken_at`, and the archives it keeps.
async fn backed_up(
    c: &common::Control,
    agent: &common::SimAgent,
    archive: &str,
    taken_at: &str,
    kept: [&str; 2],
) {
    let mut taken = report(archive, false, 2);
    taken["taken_at"] = json!(taken_at);
    taken["kept_archives"] = json!(kept);
    run(
        c,
        agent,
        "backup_volume",
        json!({"component_id": "sidecar-web", "keep": 2}),
        "succeeded",
        Some(taken),
    )
    .await;
}

on_both_databases!(
    backups_reported_by_an_agent_carry_the_first_service_to_done,
    |backend| async move {
        let (c, id, agent) = published(backend, 61).await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("not backed up"), "{detail}");

        // Only sidecars, and only archive names an Agent makes.
        let refused = c
            .post_json(
                "/api/v1/jobs",
                json!({"agent_id": agent.id(), "kind": "backup_volume",
                    "payload": {"component_id": "beacon-edge"}}),
            )
            .await;
        assert_eq!(refused.status(), 400);
        let error: Value = refused.json().await.unwrap();
        assert_eq!(
            (error["field"].as_str(), error["code"].as_str()),
            (Some("component_id"), Some("backup_sidecar_only")),
            "{error}"
        );
        for (payload, field) in [
            (json!({"component_id": "sidecar-web", "keep": 0}), "keep"),
            (json!({"component_id": "sidecar-web", "keep": 101}), "keep"),
        ] {
            let r = c
                .post_json(
                    "/api/v1/jobs",
                    json!({"agent_id": agent.id(), "kind": "backup_volume", "payload": payload}),
                )
                .await;
            assert_eq!(r.status(), 400);
            assert_eq!(r.json::<Value>().await.unwrap()["field"], field);
        }
        for archive in [
            "../../agent-identity.json",
            "/etc/passwd",
            "x.tar",
            "20261204T120000Z.tar/..",
        ] {
            let r = c
                .post_json(
                    "/api/v1/jobs",
                    json!({"agent_id": agent.id(), "kind": "verify_backup",
                        "payload": {"component_id": "sidecar-web", "archive": archive}}),
                )
                .await;
            assert_eq!(r.status(), 400, "{archive}");
            assert_eq!(
                r.json::<Value>().await.unwrap()["field"],
                "archive",
                "{archive}"
            );
        }

        // A report that is not about this job's archive is not stored.
        let mut other = report("20261204T110000Z.tar", false, 1);
        other["component_id"] = json!("sidecar-other");
        let job = run(
            &c,
            &agent,
            "backup_volume",
            json!({"component_id": "sidecar-web"}),
            "succeeded",
            Some(other),
        )
        .await;
        assert_eq!(job["status"], "succeeded", "the job itself stands");
        let mut hostile = report("../../x.tar", false, 1);
        hostile["sha256"] = json!("not a hash");
        run(
            &c,
            &agent,
            "backup_volume",
            json!({"component_id": "sidecar-web"}),
            "succeeded",
            Some(hostile),
        )
        .await;
        // A name with spaces around it (which PostgreSQL's column would not
        // hold): dropped, and the job still finishes.
        let job = run(
            &c,
            &agent,
            "backup_volume",
            json!({"component_id": "sidecar-web"}),
            "succeeded",
            Some(report(" 20261204T110000Z.tar ", false, 1)),
        )
        .await;
        assert_eq!(job["status"], "succeeded", "{job}");
        assert_eq!(
            common::setup_step(&checklist(&c, &id).await, "first_service").0,
            "not_yet"
        );
        assert!(
            common::setup_step(&checklist(&c, &id).await, "first_service")
                .1
                .contains("not backed up")
        );

        // Taken: backed up, not yet proved.
        run(
            &c,
            &agent,
            "backup_volume",
            json!({"component_id": "sidecar-web", "keep": 2}),
            "succeeded",
            Some(report("20261204T120000Z.tar", false, 1)),
        )
        .await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert_eq!(state, "not_yet");
        assert!(
            detail.contains("20261204T120000Z.tar") && detail.contains("no restore"),
            "{detail}"
        );
        let policy: Value = c.get_json("/api/v1/policy").await;
        assert!(
            policy["backups"]["text"]
                .as_str()
                .unwrap()
                .contains("shop-host: /var/lib/knotroute-agent/backups/sidecar-web"),
            "{policy}"
        );
        assert!(policy["backups"]["warning"].is_null(), "{policy}");

        // A verification may only vouch for the archive it was asked about.
        run(
            &c,
            &agent,
            "verify_backup",
            json!({"component_id": "sidecar-web", "archive": "20261204T120000Z.tar"}),
            "succeeded",
            Some(report("20261201T000000Z.tar", true, 1)),
        )
        .await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert_eq!(state, "not_yet", "{detail}");
        assert!(detail.contains("no restore"), "{detail}");

        // A cancelled verification says nothing of the archive.
        let job = c
            .queued_job(json!({"agent_id": agent.id(), "kind": "verify_backup",
                "payload": {"component_id": "sidecar-web"}}))
            .await;
        agent.claim_reporting().await.expect("handed out");
        let r = c
            .post_empty(&format!(
                "/api/v1/jobs/{}/cancel",
                job["id"].as_str().unwrap()
            ))
            .await;
        assert!(r.status().is_success(), "{}", r.status());
        let r = agent
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": job["id"], "status": "cancelled", "result": "restore\nstopped as asked"}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let shown: Value = c
            .get_json(&format!("/api/v1/jobs/{}", job["id"].as_str().unwrap()))
            .await;
        assert_eq!(shown["status"], "cancelled", "{shown}");
        let (_, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert!(!detail.contains("stopped as asked"), "{detail}");

        // A failed verification is shown with its reason.
        run(
            &c,
            &agent,
            "verify_backup",
            json!({"component_id": "sidecar-web"}),
            "failed",
            None,
        )
        .await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert_eq!(state, "not_yet");
        assert!(detail.contains("the last line says why"), "{detail}");

        // Verified: done, and the bootstrap criterion is proven.
        run(
            &c,
            &agent,
            "verify_backup",
            json!({"component_id": "sidecar-web"}),
            "succeeded",
            Some(report("20261204T120000Z.tar", true, 1)),
        )
        .await;
        let list = checklist(&c, &id).await;
        let (state, detail) = common::setup_step(&list, "first_service");
        assert_eq!(state, "done", "{detail}");
        assert!(
            detail.contains(ADDRESS) && detail.contains("1 archive"),
            "{detail}"
        );
        let proven = list["bootstrap"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["criterion"] == "backup_verified")
            .unwrap()
            .clone();
        assert_eq!(proven["knowledge"], "proven", "{proven}");

        // Two newer archives with keep 2: the first is forgotten as the Agent
        // deleted it, so nothing verified is left until one is verified again.
        backed_up(
            &c,
            &agent,
            "20261205T120000Z.tar",
            "2026-12-05T12:00:00Z",
            ["20261204T120000Z.tar", "20261205T120000Z.tar"],
        )
        .await;
        assert_eq!(
            common::setup_step(&checklist(&c, &id).await, "first_service").0,
            "done",
            "the verified one is still kept"
        );
        backed_up(
            &c,
            &agent,
            "20261206T120000Z.tar",
            "2026-12-06T12:00:00Z",
            ["20261205T120000Z.tar", "20261206T120000Z.tar"],
        )
        .await;
        let (state, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert_eq!(
            state, "not_yet",
            "the verified archive was pruned: {detail}"
        );
        assert!(
            detail.contains("20261206T120000Z.tar"),
            "the newest is named: {detail}"
        );

        // Archives of one second (a double click): the Agent's order, where
        // -10 comes after -2, not text order.
        for (archive, kept) in [
            (
                "20261206T120000Z-2.tar",
                ["20261206T120000Z.tar", "20261206T120000Z-2.tar"],
            ),
            (
                "20261206T120000Z-10.tar",
                ["20261206T120000Z-2.tar", "20261206T120000Z-10.tar"],
            ),
        ] {
            backed_up(&c, &agent, archive, "2026-12-06T12:00:00Z", kept).await;
        }
        let (_, detail) = common::setup_step(&checklist(&c, &id).await, "first_service");
        assert!(detail.contains("20261206T120000Z-10.tar"), "{detail}");

        let audit: Value = c.get_json("/api/v1/audit").await;
        assert!(
            audit.to_string().contains("backup_volume sidecar-web"),
            "{audit}"
        );
    }
);

/// As if `hours` had gone by: what Control recorded of backups and jobs
/// moves that far into the past (the schedule reads Control's own times).
async fn age(c: &common::Control, hours: i64) {
    use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
    use server::entities::{identity_backup, job};
    let by = chrono::Duration::hours(hours);
    for row in identity_backup::Entity::find()
        .all(&c.state.db)
        .await
        .unwrap()
    {
        let at = row.recorded_at - by;
        let mut row = row.into_active_model();
        row.recorded_at = Set(at);
        row.update(&c.state.db).await.unwrap();
    }
    for row in job::Entity::find().all(&c.state.db).await.unwrap() {
        let at = row.created_at - by;
        let mut row = row.into_active_model();
        row.created_at = Set(at);
        row.update(&c.state.db).await.unwrap();
    }
}

/// The Agent takes the job the schedule queued and answers it.
async fn answer(agent: &common::SimAgent, status: &str, backup: Option<Value>) -> Value {
    let claimed = agent
        .claim()
        .await
        .expect("the scheduled job is handed out");
    let mut body = json!({"job_id": claimed["id"], "status": status, "result": "the disk is full"});
    if let Some(backup) = backup {
        body["backup"] = backup;
    }
    let r = agent.post("/api/v1/agents/jobs/result", body).await;
    assert_eq!(r.status(), 200);
    claimed
}

on_both_databases!(
    once_a_sidecar_is_backed_up_control_repeats_it_as_planned_and_verifies_each_copy,
    |backend| async move {
        use server::domain::backups::schedule::BackupSchedule;
        let (c, _network, agent) = published(backend, 62).await;
        let schedule = BackupSchedule::new(c.state.db.clone(), c.state.jobs.clone());
        let due = || async { schedule.queue_due(chrono::Utc::now()).await.unwrap() };
        assert!(due().await.is_empty(), "nothing before the first backup");

        // The first backup, asked for by hand, keeping 3, and verified.
        let mut first = report("20261204T120000Z.tar", false, 1);
        run(
            &c,
            &agent,
            "backup_volume",
            json!({"component_id": "sidecar-web", "keep": 3}),
            "succeeded",
            Some(first.clone()),
        )
        .await;
        first["verified"] = json!(true);
        run(
            &c,
            &agent,
            "verify_backup",
            json!({"component_id": "sidecar-web"}),
            "succeeded",
            Some(first),
        )
        .await;
        assert!(due().await.is_empty(), "not due within the day");

        // A day later, a new backup is due, with the same plan, once.
        age(&c, 25).await;
        let queued = due().await;
        assert_eq!(queued.len(), 1, "{queued:?}");
        assert_eq!(queued[0].kind, "backup_volume");
        let payload: Value = serde_json::from_str(&queued[0].payload).unwrap();
        assert_eq!(
            payload,
            json!({"component_id": "sidecar-web", "keep": 3, "every": "day"})
        );
        assert!(due().await.is_empty(), "not twice");
        answer(
            &agent,
            "succeeded",
            Some(report("20261205T120000Z.tar", false, 2)),
        )
        .await;

        // The new archive is verified next, by name; then nothing is due.
        let queued = due().await;
        assert_eq!(queued.len(), 1, "{queued:?}");
        assert_eq!(queued[0].kind, "verify_backup");
        let payload: Value = serde_json::from_str(&queued[0].payload).unwrap();
        assert_eq!(payload["archive"], "20261205T120000Z.tar");
        answer(
            &agent,
            "succeeded",
            Some(report("20261205T120000Z.tar", true, 2)),
        )
        .await;
        assert!(due().await.is_empty(), "all done for the day");

        // Weekly from the next backup on: not due after a day, due after a week.
        run(
            &c,
            &agent,
            "backup_volume",
            json!({"component_id": "sidecar-web", "keep": 3, "every": "week"}),
            "succeeded",
            Some(report("20261206T120000Z.tar", false, 3)),
        )
        .await;
        run(
            &c,
            &agent,
            "verify_backup",
            json!({"component_id": "sidecar-web"}),
            "succeeded",
            Some(report("20261206T120000Z.tar", true, 3)),
        )
        .await;
        age(&c, 25).await;
        assert!(due().await.is_empty(), "weekly: not after a day");
        age(&c, 24 * 6).await;
        let queued = due().await;
        assert_eq!(queued.len(), 1, "weekly: due after a week");
        let payload: Value = serde_json::from_str(&queued[0].payload).unwrap();
        assert_eq!(payload["every"], "week");

        // It fails: tried again a day later, not at every tick.
        answer(&agent, "failed", None).await;
        assert!(due().await.is_empty(), "a failed backup waits a day");
        age(&c, 25).await;
        assert_eq!(due().await.len(), 1, "and is tried again after it");
        answer(&agent, "failed", None).await;

        // Not for a disabled Agent, however late.
        let r = c
            .post_empty(&format!("/api/v1/agents/{}/disable", agent.id()))
            .await;
        assert_eq!(r.status(), 200);
        age(&c, 25).await;
        assert!(due().await.is_empty(), "not for a disabled Agent");
    }
);
