//! The Agent binary trusts only its own Control (control_pin): a real Control
//! on loopback, reached through a proxy in this test that can play the
//! server in the wrong hands. It forwards every request to the real Control
//! and, depending on its mode, passes the answer on, strips Control's
//! signature (as a first-version Control answers), re-signs it with another
//! key, or changes the job. Jobs must run only when the pinned key signed
//! them; refusals must reach the real Control and show on the Agent.

mod common;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use common::*;
use protocol::control_identity::{
    AnswerScope, ControlKey, HEADER_CONTROL_KEY_MOVE, HEADER_CONTROL_SIGNATURE,
    HEADER_CONTROL_TIMESTAMP,
};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Answers as Control gave them.
    Pass,
    /// Without Control's signature or key: what a first-version Control sends.
    Unsigned,
    /// Signed again, correctly, by a key that is not Control's.
    Resigned,
    /// The job changed on the way, Control's signature kept.
    Tampered,
}

struct Proxy {
    upstream: String,
    mode: Mutex<Mode>,
    impostor: ControlKey,
    client: reqwest::Client,
}

async fn forward(State(p): State<Arc<Proxy>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let sent = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let path = parts.uri.path().to_string();
    let url = format!(
        "{}{}",
        p.upstream,
        parts
            .uri
            .path_and_query()
            .map(|q| q.as_str())
            .unwrap_or("/")
    );
    let mut outgoing = p.client.request(parts.method.clone(), url);
    for (name, value) in &parts.headers {
        if name != "host" && name != "content-length" {
            outgoing = outgoing.header(name, value);
        }
    }
    let answer = outgoing.body(sent.to_vec()).send().await.unwrap();
    let status = answer.status();
    let mut headers = answer.headers().clone();
    let mut body = answer.bytes().await.unwrap().to_vec();
    // The mode when the answer comes back: a long poll may have started before a switch.
    let mode = *p.mode.lock().unwrap();
    headers.remove("content-length");
    headers.remove("transfer-encoding");
    let is_job = path == "/api/v1/agents/jobs/next" && status == 200;
    match mode {
        Mode::Pass => {}
        Mode::Unsigned => {
            for h in [
                HEADER_CONTROL_SIGNATURE,
                HEADER_CONTROL_TIMESTAMP,
                HEADER_CONTROL_KEY_MOVE,
            ] {
                headers.remove(h);
            }
            if path == "/api/v1/agents/enroll" {
                let mut answer: Value = serde_json::from_slice(&body).unwrap();
                answer.as_object_mut().unwrap().remove("control_key");
                body = serde_json::to_vec(&answer).unwrap();
            }
        }
        Mode::Resigned => {
            let request: Value = serde_json::from_slice(&sent).unwrap_or_default();
            let agent = parts
                .headers
                .get("x-knot-agent")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            let scope = AnswerScope {
                path: &path,
                agent_id: agent,
                nonce: request["nonce"].as_str().unwrap_or_default(),
            };
            let ts = chrono::Utc::now().timestamp().to_string();
            headers.insert(
                HEADER_CONTROL_SIGNATURE,
                p.impostor.sign_answer(&scope, &ts, &body).parse().unwrap(),
            );
            headers.insert(HEADER_CONTROL_TIMESTAMP, ts.parse().unwrap());
        }
        Mode::Tampered if is_job => {
            let text = String::from_utf8(body).unwrap();
            body = text.replace("sidecar-web", "sidecar-api").into_bytes();
        }
        Mode::Tampered => {}
    }
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

impl Proxy {
    async fn start(upstream: &str) -> (Arc<Proxy>, String) {
        let proxy = Arc::new(Proxy {
            upstream: upstream.to_string(),
            mode: Mutex::new(Mode::Pass),
            impostor: ControlKey::from_seed([0x66; 32]),
            client: reqwest::Client::new(),
        });
        let app = axum::Router::new()
            .fallback(forward)
            .with_state(proxy.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (proxy, format!("http://{addr}"))
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }
}

/// The Agent binary through `base`, with the stand-in docker (one managed
/// sidecar, `sidecar-web`, to restart) and its log in `<standin>/agent.log`.
fn start_agent(base: &str, data: &Path, standin: &Path, token: Option<&str>) -> Running {
    std::fs::create_dir_all(standin.join("containers")).unwrap();
    std::fs::write(standin.join("containers/sidecar-web"), "").unwrap();
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(standin.join("agent.log"))
        .unwrap();
    let mut command = agent(base, data, token);
    with_docker_standin(&mut command, standin);
    command.env("RUST_LOG", "info");
    Running(command.stdout(log).stderr(Stdio::null()).spawn().unwrap())
}

/// How many times the stand-in docker restarted a container.
fn restarts(standin: &Path) -> usize {
    std::fs::read_to_string(standin.join("commands.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("restart "))
        .count()
}

async fn agent_view(control: &Control, id: &str) -> Value {
    control.get(&format!("/api/v1/agents/{id}")).await
}

/// Waits until the Agent's view satisfies `done`.
async fn wait_for(control: &Control, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let view = agent_view(control, id).await;
        if done(&view) {
            return view;
        }
        assert!(Instant::now() < deadline, "never {what}: {view}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Queues a restart of `sidecar-web` on Agent `id` and waits for its outcome.
async fn restart_web(control: &Control, id: &str) -> Value {
    let job = queue_job(
        control,
        id,
        "restart_component",
        json!({"component_id": "sidecar-web"}),
    )
    .await;
    finished_job(control, &job, Duration::from_secs(30)).await
}

async fn pinned_key(data: &Path) -> Option<String> {
    agent::identity::load(data)
        .unwrap()
        .and_then(|i| i.control_key)
        .map(|k| k.to_wire())
}

async fn control_key(control: &Control) -> String {
    let shown = control.get("/api/v1/settings/identity").await;
    shown["current"]["public_key"].as_str().unwrap().to_string()
}

/// A Control on `db`, the proxy in `mode` in front of it, and the Agent
/// (enrolled through the proxy, with the stand-in docker) once it reports Docker.
struct Behind {
    control: Control,
    proxy: Arc<Proxy>,
    data: tempfile::TempDir,
    standin: tempfile::TempDir,
    id: String,
    _agent: Running,
}

async fn agent_behind_proxy(db: Db, mode: Mode) -> Behind {
    let control = start_control_on(db).await;
    let (proxy, via) = Proxy::start(&control.base).await;
    proxy.set(mode);
    let data = tempfile::tempdir().unwrap();
    let standin = tempfile::tempdir().unwrap();
    let agent = start_agent(&via, data.path(), standin.path(), Some(ENROLL));
    let id = docker_agent(&control, Duration::from_secs(20)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    Behind {
        control,
        proxy,
        data,
        standin,
        id,
        _agent: agent,
    }
}

macro_rules! on_both_databases {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                ($body)(Db::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                ($body)(Db::Postgres).await
            }
        }
    };
}

on_both_databases!(
    jobs_not_signed_by_the_pinned_key_are_refused_never_run_and_reported,
    |db| async move {
        let Behind {
            control,
            proxy,
            data,
            standin,
            id,
            _agent,
        } = agent_behind_proxy(db, Mode::Pass).await;
        // Enrolled through a faithful proxy: Control's key is pinned.
        assert_eq!(
            pinned_key(data.path()).await,
            Some(control_key(&control).await)
        );

        for (mode, why) in [
            (Mode::Unsigned, "carries no Control signature"),
            (Mode::Resigned, "not by the pinned Control key"),
            (Mode::Tampered, "signature does not match"),
        ] {
            proxy.set(mode);
            let done = restart_web(&control, &id).await;
            assert_eq!(done["status"], "failed", "{mode:?}: {done}");
            let result = done["result"].as_str().unwrap();
            assert!(
                result.contains("refused, not run") && result.contains(why),
                "{mode:?}: {result}"
            );
            assert_eq!(restarts(standin.path()), 0, "{mode:?}: nothing may run");
        }

        // Once answers are Control's own again, the refusals reach it and
        // the Agent shows a server pretending to be Control.
        proxy.set(Mode::Pass);
        let view = wait_for(&control, &id, "shown as reached by an impostor", |v| {
            v["control_trust"]["refused_count"].as_u64().unwrap_or(0) >= 3
        })
        .await;
        assert_eq!(view["reason"], "impostor_control", "{view}");
        assert!(view["reason_text"]
            .as_str()
            .unwrap()
            .contains("pretending to be Control"));
        let log = std::fs::read_to_string(standin.path().join("agent.log")).unwrap();
        assert!(
            log.contains("REFUSED an answer not signed by the pinned Control key"),
            "{log}"
        );

        // And Control's own jobs run.
        let done = restart_web(&control, &id).await;
        assert_eq!(done["status"], "succeeded", "{done}");
        assert_eq!(restarts(standin.path()), 1);
    }
);

on_both_databases!(
    an_agent_without_a_pin_works_with_a_control_that_signs_nothing_and_pins_when_it_starts,
    |db| async move {
        let Behind {
            control,
            proxy,
            data,
            standin,
            id,
            _agent,
        } = agent_behind_proxy(db, Mode::Unsigned).await;
        assert_eq!(
            pinned_key(data.path()).await,
            None,
            "a first-version Control gives no key"
        );
        let done = restart_web(&control, &id).await;
        assert_eq!(done["status"], "succeeded", "jobs run as before: {done}");
        assert_eq!(restarts(standin.path()), 1);
        let log = std::fs::read_to_string(standin.path().join("agent.log")).unwrap();
        assert_eq!(
            log.matches("Control signs nothing").count(),
            1,
            "said once: {log}"
        );

        // Control starts signing (upgraded): the Agent pins its key.
        proxy.set(Mode::Pass);
        let key = control_key(&control).await;
        let deadline = Instant::now() + Duration::from_secs(20);
        while pinned_key(data.path()).await.as_deref() != Some(key.as_str()) {
            assert!(Instant::now() < deadline, "the key was never pinned");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // From then on an unsigned job is refused.
        proxy.set(Mode::Unsigned);
        let done = restart_web(&control, &id).await;
        assert_eq!(done["status"], "failed", "{done}");
        assert_eq!(restarts(standin.path()), 1);
    }
);

on_both_databases!(
    a_rotation_moves_the_online_agent_and_the_offline_one_is_re_pinned_with_a_move_token,
    |db| async move {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        use server::entities::control_key;
        let control = start_control_on(db).await;
        let old = control_key(&control).await;
        let (online_data, online_standin) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (offline_data, offline_standin) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let _online = start_agent(
            &control.base,
            online_data.path(),
            online_standin.path(),
            Some(ENROLL),
        );
        let offline = start_agent(
            &control.base,
            offline_data.path(),
            offline_standin.path(),
            Some(ENROLL),
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        let (online_id, offline_id) = loop {
            let agents = control.get("/api/v1/agents").await;
            let with_docker = agents
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["docker_available"] == true)
                .count();
            let id_of = |data: &Path| {
                agent::identity::load(data)
                    .ok()
                    .flatten()
                    .map(|i| i.agent_id.to_string())
            };
            approve_waiting(&control).await;
            if with_docker == 2 {
                break (
                    id_of(online_data.path()).unwrap(),
                    id_of(offline_data.path()).unwrap(),
                );
            }
            assert!(
                Instant::now() < deadline,
                "both Agents never came online: {agents}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        drop(offline);

        // Rotate (as `knotroute-control identity rotate` does, from its own connection).
        let db = control.database().await;
        let rotated = server::domain::access::control_identity::rotate(
            &db,
            chrono::Duration::hours(1),
            server::domain::audit::CONTROL,
        )
        .await
        .unwrap();
        let new = rotated.current.public_key.clone();
        // The online Agent moves its pin by itself.
        let deadline = Instant::now() + Duration::from_secs(40);
        while pinned_key(online_data.path()).await.as_deref() != Some(new.as_str()) {
            assert!(
                Instant::now() < deadline,
                "the online Agent never moved its pin"
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        // The transition ends with the other Agent still offline.
        control_key::Entity::update_many()
            .col_expr(
                control_key::Column::RetireAt,
                Some(chrono::Utc::now() - chrono::Duration::seconds(1)).into(),
            )
            .filter(control_key::Column::Generation.eq(1i64))
            .exec(&db)
            .await
            .unwrap();
        assert_eq!(pinned_key(offline_data.path()).await, Some(old.clone()));
        // Every replica reads the keys again within 10 s; then only the new one signs.
        tokio::time::sleep(Duration::from_secs(11)).await;
        assert_eq!(
            restart_web(&control, &online_id).await["status"],
            "succeeded"
        );

        // The Agent that slept through it refuses everything, and Control says how to recover.
        let offline = start_agent(
            &control.base,
            offline_data.path(),
            offline_standin.path(),
            None,
        );
        let view = wait_for(&control, &offline_id, "shown on a retired key", |v| {
            v["reason"] == "control_key_retired"
        })
        .await;
        assert!(
            view["reason_text"].as_str().unwrap().contains("move token"),
            "{view}"
        );
        assert_eq!(restart_web(&control, &offline_id).await["status"], "failed");
        assert_eq!(restarts(offline_standin.path()), 0);

        // The way back: a move token, a fresh identity pinned in advance to the new key.
        let r = control
            .post(&format!("/api/v1/agents/{offline_id}/move"), &json!({}))
            .await;
        assert_eq!(r.status(), 201);
        let token = r.json::<Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string();
        drop(offline);
        std::fs::remove_file(agent::identity::path(offline_data.path())).unwrap();
        let mut command = agent(&control.base, offline_data.path(), Some(&token));
        with_docker_standin(&mut command, offline_standin.path());
        command.env("KNOTROUTE_AGENT_CONTROL_KEY", &new);
        let _back = Running(command.stdout(Stdio::null()).spawn().unwrap());
        let deadline = Instant::now() + Duration::from_secs(20);
        let moved_to = loop {
            let view = agent_view(&control, &offline_id).await;
            if let Some(to) = view["moved_to"].as_str() {
                break to.to_string();
            }
            assert!(
                Instant::now() < deadline,
                "the host never took the record over: {view}"
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        };
        // The Agent writes its identity (with the pin) once Control has
        // answered the enrollment, a moment after Control records the move.
        let deadline = Instant::now() + Duration::from_secs(20);
        while pinned_key(offline_data.path()).await.as_deref() != Some(new.as_str()) {
            assert!(
                Instant::now() < deadline,
                "the new identity never pinned the new key: {:?}",
                pinned_key(offline_data.path()).await
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        wait_for(&control, &moved_to, "online", |v| v["status"] == "online").await;
        assert_eq!(
            restart_web(&control, &moved_to).await["status"],
            "succeeded"
        );
    }
);
