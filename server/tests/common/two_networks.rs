//! Two networks, Alpha and Bravo, as the network-scope tests set them up:
//! each with an Agent running a Beacon of it, a job and an invite, and
//! Alpha's Agent also running a Beacon of Bravo (a shared host); and the
//! calls those tests make as a limited person.

use serde_json::{json, Value};

/// Two networks, each with an Agent running a Beacon of it, a job and an
/// invite; Alpha's Agent also runs a Beacon of Bravo.
pub struct TwoNetworks {
    pub alpha: String,
    pub bravo: String,
    pub agent_a: super::SimAgent,
    pub agent_b: super::SimAgent,
    pub job_a: String,
    pub job_b: String,
    pub invite_a: String,
    pub invite_b: String,
}

pub async fn beacon_job(c: &super::Control, agent: &str, network: &str, name: &str) -> String {
    let job = c
        .queued_job(
            json!({"agent_id": agent, "kind": "deploy_beacon", "payload": {
            "name": name, "network_id": network,
            "beacon_url": format!("https://{name}.example.net"),
            "advertise": "203.0.113.7:7000", "http_port": 18080}}),
        )
        .await;
    job["id"].as_str().unwrap().to_string()
}

pub async fn invite_to(c: &super::Control, network: &str) -> String {
    let r = c
        .post_json("/api/v1/invites", json!({"network_id": network}))
        .await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    created["id"].as_str().unwrap().to_string()
}

pub async fn two_networks(c: &super::Control) -> TwoNetworks {
    let alpha = c
        .created_network(json!({"name": "Alpha", "beacons": ["https://edge-a.example.net"]}))
        .await;
    let bravo = c
        .created_network(json!({"name": "Bravo", "beacons": ["https://edge-b.example.net"]}))
        .await;
    let agent_a = super::SimAgent::with_docker(c, 81).await;
    let agent_b = super::SimAgent::with_docker(c, 82).await;
    let job_a = beacon_job(c, &agent_a.id(), &alpha, "edge-a").await;
    let job_b = beacon_job(c, &agent_b.id(), &bravo, "edge-b").await;
    beacon_job(c, &agent_a.id(), &bravo, "edge-shared").await;
    TwoNetworks {
        invite_a: invite_to(c, &alpha).await,
        invite_b: invite_to(c, &bravo).await,
        alpha,
        bravo,
        agent_a,
        agent_b,
        job_a,
        job_b,
    }
}

pub async fn get(person: &reqwest::Client, c: &super::Control, path: &str) -> (u16, String) {
    let r = person.get(c.url(path)).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

pub async fn send(
    person: &reqwest::Client,
    c: &super::Control,
    method: &str,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let r = person
        .request(method, c.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}
