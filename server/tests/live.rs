//! The admin screens' live updates over real HTTP: `GET /api/v1/events` needs
//! a session, opens with its reconnect delay, and names what changed when an
//! Agent enrolls or reports and when a job is queued, claimed or ends.

mod common;

use serde_json::json;
use std::time::Duration;

/// Reads the stream until an event whose data names `topic`, or fails after `within`.
async fn wait_for_topic(response: &mut reqwest::Response, topic: &str, within: Duration) -> String {
    let deadline = tokio::time::Instant::now() + within;
    let mut seen = String::new();
    loop {
        let chunk = tokio::time::timeout_at(deadline, response.chunk())
            .await
            .unwrap_or_else(|_| {
                panic!("no `{topic}` change within {within:?}; stream so far: {seen:?}")
            })
            .expect("stream readable")
            .expect("stream still open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
        // Events end with a blank line; look at complete ones only.
        if let Some(event) = seen
            .split("\n\n")
            .find(|e| e.contains("event: change") && e.contains(&format!("\"{topic}\"")))
        {
            return event.to_string();
        }
    }
}

on_both_databases!(the_event_stream_names_what_changed, |backend| async move {
    let c = common::start(backend).await;
    let anonymous = reqwest::get(c.url("/api/v1/events")).await.unwrap();
    assert_eq!(anonymous.status(), 401, "events are for signed-in admins");

    c.sign_in().await;
    let mut stream = c.get("/api/v1/events").await;
    assert_eq!(stream.status(), 200);
    assert_eq!(
        stream.headers()["content-type"],
        "text/event-stream",
        "a server-sent event stream"
    );
    let first = tokio::time::timeout(Duration::from_secs(5), stream.chunk())
        .await
        .expect("the stream opens at once")
        .unwrap()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&first).contains("retry: 1000"),
        "the stream tells the browser to reconnect after 1 s"
    );

    let agent = common::SimAgent::with_docker(&c, 61).await;
    let event = wait_for_topic(&mut stream, "agents", Duration::from_secs(5)).await;
    assert!(event.contains(r#"data: {"topics":["agents"]}"#), "{event}");

    c.queued_job(json!({"agent_id": agent.id(), "kind": "restart_component",
                    "payload": {"component_id": "sidecar-web"}}))
        .await;
    wait_for_topic(&mut stream, "jobs", Duration::from_secs(5)).await;

    let job = agent.claim().await.expect("the job is waiting");
    wait_for_topic(&mut stream, "jobs", Duration::from_secs(5)).await;
    agent
        .finish(job["id"].as_str().unwrap(), "failed", "no such container")
        .await;
    wait_for_topic(&mut stream, "jobs", Duration::from_secs(5)).await;

    // A heartbeat reporting a new .knot address is an Agent change.
    let r = agent
        .post(
            "/api/v1/agents/heartbeat",
            json!({"name": "docker-host", "docker_available": true, "components": [
                    {"id": "sidecar-web", "kind": "sidecar", "name": "web", "status": "running",
                     "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot", "labels": {"io.knotroute.managed": "true"}}]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    wait_for_topic(&mut stream, "agents", Duration::from_secs(5)).await;
});
