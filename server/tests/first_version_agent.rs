//! Our Control with a first-version Agent, which announces no extensions
//! (no `X-Knot-Extensions` header) and sends exactly version 1: it gets
//! exactly version 1 back. No Control key in the enroll answer, no job kind
//! or payload field of an extension; a job that needs one is refused when
//! queued, naming it. Control announces what it speaks on every answer.
//! And an Agent that stops announcing an extension loses the pending jobs
//! that need it, with the reason. On both databases, over real HTTP.

mod common;

use protocol::extensions::Extensions;
use protocol::signing::AgentKey;
use serde_json::{json, Value};

/// A first-version Agent: version-1 bodies, signed, no header of ours.
struct FirstAgent {
    key: AgentKey,
    base: String,
    http: reqwest::Client,
}

impl FirstAgent {
    fn new(c: &common::Control, seed: u8) -> Self {
        Self {
            key: AgentKey::from_seed([seed; 32]),
            base: c.base.clone(),
            http: reqwest::Client::new(),
        }
    }

    fn id(&self) -> String {
        self.key.public_key().agent_id().to_string()
    }

    async fn enroll(&self) -> reqwest::Response {
        self.http
            .post(format!("{}/api/v1/agents/enroll", self.base))
            .json(
                &json!({"name": "old-host", "public_key": self.key.public_key().to_wire(),
                "token": common::ENROLL, "tags": []}),
            )
            .send()
            .await
            .unwrap()
    }

    /// A signed POST as PROTOCOL.md says, and nothing of ours: no nonce, no
    /// `X-Knot-Extensions`.
    async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        let bytes = serde_json::to_vec(&body).unwrap();
        let timestamp = chrono::Utc::now().timestamp().to_string();
        let signature = self.key.sign("POST", path, &timestamp, &bytes);
        self.http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .header("X-Knot-Agent", self.id())
            .header("X-Knot-Timestamp", timestamp)
            .header("X-Knot-Signature", signature)
            .body(bytes)
            .send()
            .await
            .unwrap()
    }
}

fn announced(r: &reqwest::Response) -> Extensions {
    let value = r
        .headers()
        .get("x-knot-extensions")
        .unwrap_or_else(|| panic!("no X-Knot-Extensions on {} {}", r.status(), r.url()));
    Extensions::parse(value.to_str().unwrap())
}

on_both_databases!(
    a_first_version_agent_gets_exactly_version_one,
    |backend| async move {
        let c = common::signed_in(backend).await;
        common::lab_network(&c).await;
        // Control announces everything it speaks, refusals included.
        let health = reqwest::get(format!("{}/healthz", c.base)).await.unwrap();
        assert_eq!(announced(&health), Extensions::all());
        let old = FirstAgent::new(&c, 61);
        let refused = old.post("/api/v1/agents/heartbeat", json!({})).await;
        assert_eq!(refused.status(), 401);
        assert_eq!(announced(&refused), Extensions::all());

        let enrolled = old.enroll().await;
        assert_eq!(enrolled.status(), 201);
        let body: Value = enrolled.json().await.unwrap();
        assert_eq!(body, json!({"agent_id": old.id()}), "no Control key");
        let r = c
            .post_empty(&format!("/api/v1/agents/{}/approve", old.id()))
            .await;
        assert_eq!(r.status(), 200);
        let beat = old
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "old-host", "hostname": "old", "version": "1.0.0",
                "docker_available": true, "docker_version": "27.1.1", "tags": [], "components": []}),
            )
            .await;
        assert_eq!(beat.status(), 200);
        assert_eq!(beat.json::<Value>().await.unwrap(), json!({"ok": true}));

        // A job of an extension is refused, naming it and what to do.
        let r = c
            .post_json(
                "/api/v1/jobs",
                json!({"agent_id": old.id(), "kind": "backup_volume",
                "payload": {"component_id": "sidecar-web"}}),
            )
            .await;
        assert_eq!(r.status(), 409);
        let error: Value = r.json().await.unwrap();
        assert_eq!(error["code"], "agent_lacks_extension", "{error}");
        assert_eq!(error["field"], "kind", "{error}");
        assert!(
            error["error"].as_str().unwrap().contains("`backups`"),
            "{error}"
        );
        assert!(
            error["hint"].as_str().unwrap().contains("Update"),
            "{error}"
        );

        // A sidecar with a catalog entry: the old Agent gets the version-1 payload.
        let queued = c
            .queued_job(json!({"agent_id": old.id(), "kind": "deploy_sidecar",
                "payload": {"name": "photos", "network_id": common::lab_network_id(),
                "target": "photos:2342", "docker_network": "apps",
                "beacons": ["https://beacon.example.net"], "title": "Family photos",
                "tags": ["photos"], "scheme": "https"}}))
            .await;
        let offer = old.post("/api/v1/agents/jobs/next", json!({})).await;
        assert_eq!(offer.status(), 200);
        let offer: Value = offer.json().await.unwrap();
        assert_eq!(offer["id"], queued["id"]);
        assert_eq!(
            offer["payload"],
            json!({"name": "photos", "network_id": common::lab_network_id(),
                "target": "photos:2342", "docker_network": "apps",
                "beacons": ["https://beacon.example.net"]})
        );
        let mut keys: Vec<&String> = offer.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "agent_id",
                "created_at",
                "id",
                "kind",
                "payload",
                "started_at",
                "status"
            ]
        );
        let done = old
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": queued["id"], "status": "succeeded", "result": "up"}),
            )
            .await;
        assert_eq!(done.status(), 200);
    }
);

on_both_databases!(
    an_agent_that_stops_announcing_an_extension_loses_its_pending_jobs_of_it,
    |backend| async move {
        let c = common::signed_in(backend).await;
        // Ours (it announces everything) gets a backup job queued...
        let ours = common::SimAgent::with_docker(&c, 62).await;
        let queued = c
            .queued_job(json!({"agent_id": ours.id(), "kind": "backup_volume",
                "payload": {"component_id": "sidecar-web"}}))
            .await;
        let restart = c
            .queued_job(json!({"agent_id": ours.id(), "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}}))
            .await;
        // ...then a first-version Agent runs on the same identity.
        let old = FirstAgent::new(&c, 62);
        let beat = old
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "docker-host", "docker_available": true}),
            )
            .await;
        assert_eq!(beat.status(), 200);
        let job: Value = c
            .get_json(&format!("/api/v1/jobs/{}", queued["id"].as_str().unwrap()))
            .await;
        assert_eq!(job["status"], "failed", "{job}");
        assert!(
            job["result"]
                .as_str()
                .unwrap()
                .contains("no longer announces backups"),
            "{job}"
        );
        // It is handed the version-1 job, and nothing else.
        let offer: Value = old
            .post("/api/v1/agents/jobs/next", json!({}))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(offer["id"], restart["id"]);
        // The same `{}` inside the same second would be a replay.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        assert_eq!(
            old.post("/api/v1/agents/jobs/next", json!({}))
                .await
                .status(),
            204
        );
    }
);
