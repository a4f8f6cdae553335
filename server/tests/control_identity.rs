//! Control's identity on the wire (protocol::control_identity): the enroll
//! answer names Control's key, every answer an Agent acts on is signed with
//! it for exactly that request, `identity rotate` signs with both keys and
//! hands out the key move until the old key retires, the Agents left on a
//! retired key are pointed at the way back, and a restore keeps the key.

mod common;

use common::{ok, SimAgent, Store};
use protocol::control_identity::{
    verify_answer, AnswerRefusal, AnswerScope, ControlPublicKey, KeyMove, HEADER_CONTROL_KEY_MOVE,
    HEADER_CONTROL_SIGNATURE, HEADER_CONTROL_TIMESTAMP,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// An answer as an Agent receives it.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    async fn of(r: reqwest::Response) -> Self {
        Self {
            status: r.status().as_u16(),
            headers: r.headers().clone(),
            body: r.bytes().await.unwrap().to_vec(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// Checks the answer as our Agent does, pinned to `key`.
    fn verify(&self, key: &str, path: &str, agent: &str, nonce: &str) -> Result<(), AnswerRefusal> {
        verify_answer(
            &ControlPublicKey::parse(key).unwrap(),
            self.header(HEADER_CONTROL_SIGNATURE),
            self.header(HEADER_CONTROL_TIMESTAMP),
            chrono::Utc::now().timestamp(),
            &AnswerScope {
                path,
                agent_id: agent,
                nonce,
            },
            &self.body,
        )
    }
}

/// A signed request with the nonce given (so the answer can be checked).
async fn post(a: &SimAgent, path: &str, nonce: &str, mut body: Value) -> Answer {
    body["nonce"] = json!(nonce);
    let bytes = serde_json::to_vec(&body).unwrap();
    Answer::of(a.signed(path, &bytes, 0).send().await.unwrap()).await
}

/// Enrolls `a` with the shared token (the owner then approves it, as it
/// waits for approval); the enroll answer.
async fn enroll(a: &SimAgent, nonce: &str) -> Answer {
    let r = a
        .client
        .post(format!("{}/api/v1/agents/enroll", a.base))
        // Our Agent announces the extension that has Control name its key.
        .header("X-Knot-Extensions", "nonce, signed-answers")
        .json(
            &json!({"name": "edge", "public_key": a.key.public_key().to_wire(),
            "token": common::ENROLL, "tags": [], "nonce": nonce}),
        )
        .send()
        .await
        .unwrap();
    let answer = Answer::of(r).await;
    if answer.status == 201 {
        a.approve().await;
    }
    answer
}

const HEARTBEAT: &str = "/api/v1/agents/heartbeat";
const NEXT: &str = "/api/v1/agents/jobs/next";

async fn run(store: &Store, args: &[&str]) -> std::process::Output {
    let (store, args) = (
        store.clone(),
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
    );
    tokio::task::spawn_blocking(move || {
        store.run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    })
    .await
    .unwrap()
}

on_both_databases!(
    answers_agents_act_on_are_signed_by_controls_key_for_that_request,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let a = SimAgent::new(&c, 41);
        let enrolled = enroll(&a, "enroll-nonce").await;
        assert_eq!(enrolled.status, 201);
        let key = enrolled.json()["control_key"].as_str().unwrap().to_string();
        assert_eq!(
            enrolled.verify(&key, "/api/v1/agents/enroll", &a.id(), "enroll-nonce"),
            Ok(())
        );

        // Settings and the CLI show the same key, with its fingerprint.
        let shown: Value = c.get_json("/api/v1/settings/identity").await;
        assert_eq!(shown["current"]["public_key"], key.as_str());
        let fingerprint = ControlPublicKey::parse(&key).unwrap().fingerprint();
        assert_eq!(shown["current"]["fingerprint"], fingerprint.as_str());
        let printed = ok(&run(&Store::of(&c), &["identity"]).await);
        assert!(
            printed.contains(&key) && printed.contains(&fingerprint),
            "{printed}"
        );

        let beat = post(
            &a,
            HEARTBEAT,
            "beat-1",
            json!({"name": "edge", "docker_available": true}),
        )
        .await;
        assert_eq!(beat.status, 200);
        assert_eq!(beat.verify(&key, HEARTBEAT, &a.id(), "beat-1"), Ok(()));
        // Bound to its request: not valid for another nonce, Agent or path.
        assert_eq!(
            beat.verify(&key, HEARTBEAT, &a.id(), "beat-2"),
            Err(AnswerRefusal::BadSignature)
        );
        assert_eq!(
            beat.verify(&key, HEARTBEAT, &SimAgent::new(&c, 42).id(), "beat-1"),
            Err(AnswerRefusal::BadSignature)
        );
        assert_eq!(
            beat.verify(&key, NEXT, &a.id(), "beat-1"),
            Err(AnswerRefusal::BadSignature)
        );

        // A job offer is signed over its exact bytes: ID, kind and payload.
        c.queued_job(json!({"agent_id": a.id(), "kind": "restart_component",
                    "payload": {"component_id": "sidecar-web"}}))
            .await;
        let offer = post(&a, NEXT, "next-1", json!({})).await;
        assert_eq!(offer.status, 200);
        assert_eq!(offer.json()["kind"], "restart_component");
        assert_eq!(offer.verify(&key, NEXT, &a.id(), "next-1"), Ok(()));
        let mut changed = offer.body.clone();
        let at = changed.windows(4).position(|w| w == b"web\"").unwrap();
        changed[at] = b'W';
        let tampered = Answer {
            body: changed,
            ..offer
        };
        assert_eq!(
            tampered.verify(&key, NEXT, &a.id(), "next-1"),
            Err(AnswerRefusal::BadSignature)
        );
        // No rotation: no key move.
        assert!(beat.header(HEADER_CONTROL_KEY_MOVE).is_none());

        // What the Agent reports about its pin shows on its page.
        let r = post(
            &a,
            HEARTBEAT,
            "beat-3",
            json!({"name": "edge", "docker_available": true,
            "control_key": key}),
        )
        .await;
        assert_eq!(r.status, 200);
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(
            view["control_trust"]["pinned_fingerprint"],
            fingerprint.as_str()
        );
        assert_eq!(view["control_trust"]["pin_state"], "current");
        assert_eq!(view["status"], "online", "{view}");
    }
);

on_both_databases!(
    a_rotation_moves_online_agents_and_points_those_left_behind_at_the_way_back,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let online = SimAgent::new(&c, 51);
        let offline = SimAgent::new(&c, 52);
        let old = enroll(&online, "n").await.json()["control_key"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(enroll(&offline, "n").await.status, 201);
        let store = Store::of(&c);

        // Bad transitions are refused with the rule.
        let out = run(&store, &["identity", "rotate", "--transition", "3w"]).await;
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("days (14d)"));

        let said = ok(&run(&store, &["identity", "rotate", "--transition", "2h"]).await);
        assert!(said.contains("Previous key, still signing until"), "{said}");
        let shown: Value = c.get_json("/api/v1/settings/identity").await;
        let new = shown["current"]["public_key"].as_str().unwrap().to_string();
        assert_ne!(new, old);
        assert_eq!(shown["previous"]["public_key"], old.as_str());
        assert_eq!(shown["current"]["generation"], 2);
        // A second rotation during the transition is refused, saying until when.
        let out = run(&store, &["identity", "rotate"]).await;
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("rotation is still in progress"));

        // Within the reload interval every replica signs with both keys and
        // hands out the move, signed by the old key.
        let deadline = Instant::now() + Duration::from_secs(20);
        let beat = loop {
            let beat = post(&online, HEARTBEAT, "r1", json!({"control_key": old})).await;
            if beat.header(HEADER_CONTROL_KEY_MOVE).is_some() {
                break beat;
            }
            assert!(
                Instant::now() < deadline,
                "the rotation never reached the answers"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        };
        assert_eq!(beat.verify(&old, HEARTBEAT, &online.id(), "r1"), Ok(()));
        assert_eq!(beat.verify(&new, HEARTBEAT, &online.id(), "r1"), Ok(()));
        let moved = KeyMove::verified(beat.header(HEADER_CONTROL_KEY_MOVE).unwrap()).unwrap();
        assert_eq!(
            (moved.from.to_wire(), moved.to.to_wire()),
            (old.clone(), new.clone())
        );

        // The online Agent moved its pin; the other one is still on the old key.
        post(&online, HEARTBEAT, "r2", json!({"control_key": new})).await;
        post(&offline, HEARTBEAT, "r3", json!({"control_key": old})).await;
        let agent = |a: &SimAgent| {
            let path = format!("/api/v1/agents/{}", a.id());
            let c = &c;
            async move { c.get_json::<Value>(&path).await }
        };
        assert_eq!(
            agent(&online).await["control_trust"]["pin_state"],
            "current"
        );
        assert_eq!(
            agent(&offline).await["control_trust"]["pin_state"],
            "previous"
        );

        // The transition ends (as two hours later): only the new key signs,
        // and the Agent still on the old one is shown with the way back.
        {
            use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
            use server::entities::control_key;
            control_key::Entity::update_many()
                .col_expr(
                    control_key::Column::RetireAt,
                    Some(chrono::Utc::now() - chrono::Duration::seconds(1)).into(),
                )
                .filter(control_key::Column::Generation.eq(1i64))
                .exec(&c.state.db)
                .await
                .unwrap();
        }
        c.state.identity.reload();
        let late = post(&offline, HEARTBEAT, "r4", json!({"control_key": old})).await;
        assert_eq!(late.status, 200);
        assert!(matches!(
            late.verify(&old, HEARTBEAT, &offline.id(), "r4"),
            Err(AnswerRefusal::OtherKey { .. })
        ));
        assert!(late.header(HEADER_CONTROL_KEY_MOVE).is_none());
        let left_behind = agent(&offline).await;
        assert_eq!(left_behind["control_trust"]["pin_state"], "retired");
        assert_eq!(left_behind["status"], "degraded");
        assert_eq!(left_behind["reason"], "control_key_retired");
        assert!(
            left_behind["reason_text"]
                .as_str()
                .unwrap()
                .contains("Re-pin it with a move token"),
            "{left_behind}"
        );
        let shown: Value = c.get_json("/api/v1/settings/identity").await;
        assert!(shown["previous"].is_null());
        // The rotation is in the audit log.
        let audit: Value = c.get_json("/api/v1/audit?action=control.key_rotated").await;
        let entries = audit["entries"]
            .as_array()
            .or(audit.as_array())
            .unwrap()
            .clone();
        assert_eq!(entries.len(), 1, "{audit}");
    }
);

on_both_databases!(
    an_agent_reporting_refused_answers_is_shown_as_reached_by_an_impostor,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let a = SimAgent::new(&c, 61);
        let key = enroll(&a, "n").await.json()["control_key"]
            .as_str()
            .unwrap()
            .to_string();
        let at = chrono::Utc::now().timestamp() - 30;
        let r = post(&a, HEARTBEAT, "i1", json!({"control_key": key, "refused_answers": [
            {"at": at - 5, "path": NEXT, "reason": "unsigned", "detail": "the answer carries no Control signature", "job_kind": "deploy_beacon"},
            {"at": at, "path": NEXT, "reason": "other_key", "detail": "the answer is signed by SHA256:abc, not by the pinned Control key", "job_kind": "deploy_sidecar"}
        ]})).await;
        assert_eq!(r.status, 200);
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["status"], "degraded", "{view}");
        assert_eq!(view["reason"], "impostor_control");
        let text = view["reason_text"].as_str().unwrap();
        assert!(text.contains("pretending to be Control"), "{text}");
        assert!(
            text.contains("deploy_sidecar"),
            "the newest refusal: {text}"
        );
        let trust = &view["control_trust"];
        assert_eq!(trust["refused_count"], 2);
        let when = chrono::DateTime::from_timestamp(at, 0).unwrap();
        assert_eq!(
            trust["refused_at"],
            when.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                .as_str()
        );
        // The list shows it as well.
        let list: Value = c.get_json("/api/v1/agents").await;
        assert_eq!(list[0]["reason"], "impostor_control");
        // Later reports add up.
        post(
            &a,
            HEARTBEAT,
            "i2",
            json!({"control_key": key, "refused_answers": [
            {"at": at + 1, "path": HEARTBEAT, "reason": "bad_signature", "detail": "x"}]}),
        )
        .await;
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", a.id())).await;
        assert_eq!(view["control_trust"]["refused_count"], 3);

        // Answers refused because they were signed by Control's own key (an
        // Agent on an out-of-date pin) are no impostor's.
        let stale = SimAgent::new(&c, 62);
        assert_eq!(enroll(&stale, "n").await.status, 201);
        let own = ControlPublicKey::parse(&key).unwrap().fingerprint();
        post(
            &stale,
            HEARTBEAT,
            "s1",
            json!({"control_key": key, "refused_answers": [
            {"at": at, "path": NEXT, "reason": "other_key", "detail": "signed by our own key",
             "signed_by": [own]}]}),
        )
        .await;
        let view: Value = c.get_json(&format!("/api/v1/agents/{}", stale.id())).await;
        assert_eq!(view["status"], "online", "{view}");
        assert!(view["control_trust"]["refused_at"].is_null(), "{view}");
    }
);

on_both_databases!(
    a_restore_onto_a_new_server_keeps_controls_key,
    |backend| async move {
        let c = common::start(backend).await;
        let a = SimAgent::new(&c, 71);
        let key = enroll(&a, "n").await.json()["control_key"]
            .as_str()
            .unwrap()
            .to_string();
        let files = tempfile::tempdir().unwrap();
        let file = files.path().join("identity.backup");
        ok(&run(&Store::of(&c), &["backup", "--out", file.to_str().unwrap()]).await);
        let target = Store::empty(backend, &files, "new-server").await;
        ok(&run(&target, &["restore", file.to_str().unwrap()]).await);
        let (url, settings) = target.serve_settings();
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let restored = common::spawn_control_with(&url, &settings).await;
        // The same Agent, not enrolled again, gets answers signed by the key it pinned.
        let agent = SimAgent::at(&restored.base, 71);
        let beat = post(
            &agent,
            HEARTBEAT,
            "after-restore",
            json!({"control_key": key}),
        )
        .await;
        assert_eq!(beat.status, 200);
        assert_eq!(
            beat.verify(&key, HEARTBEAT, &agent.id(), "after-restore"),
            Ok(())
        );
    }
);
