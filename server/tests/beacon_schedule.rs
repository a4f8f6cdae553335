//! Scheduled Beacon checks, on both databases: a round checks every Beacon
//! URL of every profile against local stand-ins and keeps each result; of
//! two replicas only one takes a round, and the next round is about one
//! interval later; history older than 30 days is pruned.

mod common;

use chrono::{Duration, Utc};
use sea_orm::{EntityTrait, PaginatorTrait};
use serde_json::{json, Value};
use server::domain::beacons::history;
use server::domain::beacons::schedule::{BeaconSchedule, RoundReport};
use server::entities::{beacon_check, beacon_check_hour, beacon_status};
use test_kit::{closed_port_url, http_beacon};

fn schedule(c: &common::Control, interval_secs: i64) -> BeaconSchedule {
    BeaconSchedule::new(
        c.state.db.clone(),
        c.state.beacons.clone(),
        c.state.networks.clone(),
        Duration::seconds(interval_secs),
    )
}

on_both_databases!(
    a_round_checks_every_beacon_of_every_profile,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let healthy = http_beacon(200, "ok").await;
        let failing = http_beacon(500, "database is down").await;
        let closed = closed_port_url();
        for (name, beacons) in [
            ("Office", vec![healthy.clone(), failing.clone()]),
            ("Lab", vec![closed.clone()]),
            ("Empty", vec![]),
        ] {
            let r = c
                .create_network(json!({"name": name, "beacons": beacons}))
                .await;
            assert_eq!(r.status(), 201);
        }
        let report = schedule(&c, 60).run_round().await.unwrap();
        assert_eq!(
            report,
            RoundReport {
                checked: 3,
                failed: 2
            }
        );
        let listed: Vec<Value> = c.get_json("/api/v1/beacons").await;
        let class_of = |url: &str| {
            listed.iter().find(|b| b["url"] == url).unwrap()["last_check"]["class"].clone()
        };
        assert_eq!(class_of(&healthy), "ok");
        assert_eq!(class_of(&failing), "http_status");
        assert_eq!(class_of(&closed), "connect");
        // Each round adds to the history instead of replacing it.
        schedule(&c, 60).run_round().await.unwrap();
        assert_eq!(
            beacon_check::Entity::find()
                .count(&c.state.db)
                .await
                .unwrap(),
            6
        );
        // The list shows each URL's day (both rounds, in the last hour or two
        // should an hour have begun between them), and a failing Beacon's
        // last failure with its class.
        let listed: Vec<Value> = c.get_json("/api/v1/beacons").await;
        let day_of = |url: &str| listed.iter().find(|b| b["url"] == url).unwrap().clone();
        let sum = |day: &Value, field: &str| -> u64 {
            day["last_24h"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h[field].as_u64().unwrap())
                .sum()
        };
        let healthy_day = day_of(&healthy);
        let hours = healthy_day["last_24h"].as_array().unwrap();
        assert_eq!(hours.len(), 24);
        assert_eq!(sum(&healthy_day, "checks"), 2, "{healthy_day}");
        assert!(hours[23]["mean_ms"].is_u64(), "{healthy_day}");
        assert!(healthy_day["last_failure"].is_null());
        let failing_day = day_of(&failing);
        assert_eq!(sum(&failing_day, "failures"), 2);
        assert_eq!(failing_day["last_failure"]["class"], "http_status");
        assert!(failing_day["last_failure"]["detail"]
            .as_str()
            .unwrap()
            .contains("database is down"));
    }
);

on_both_databases!(
    one_replica_takes_each_round_and_the_next_is_an_interval_later,
    |backend| async move {
        let c = common::start(backend).await;
        let (first, second) = (schedule(&c, 60), schedule(&c, 60));
        let start = Utc::now();
        // A fresh start waits one interval before its first round.
        assert!(!first.claim_round(start).await.unwrap());
        assert!(!second.claim_round(start).await.unwrap());
        let due = start + Duration::seconds(60);
        assert!(first.claim_round(due).await.unwrap(), "due: one takes it");
        assert!(
            !second.claim_round(due).await.unwrap(),
            "the other replica does not"
        );
        // While it runs, nobody else starts one, however long it takes.
        assert!(!second
            .claim_round(due + Duration::seconds(300))
            .await
            .unwrap());
        first
            .finish_round(due, due + Duration::seconds(2))
            .await
            .unwrap();
        // The next round: 60 s after the last one began, give or take 10 %.
        assert!(!second
            .claim_round(due + Duration::seconds(53))
            .await
            .unwrap());
        assert!(second
            .claim_round(due + Duration::seconds(67))
            .await
            .unwrap());
    }
);

on_both_databases!(history_older_than_30_days_is_pruned, |backend| async move {
    let c = common::start(backend).await;
    let now = Utc::now();
    for days in [31, 29, 0] {
        let check = history::CheckRecord {
            network_id: "kn_x".into(),
            url: "https://b.example.net".into(),
            at: now - Duration::days(days),
            latency_ms: Some(12),
            class: protocol::beacons::CheckClass::Ok,
            detail: String::new(),
        };
        history::record(&c.state.db, check).await.unwrap();
    }
    // One raw check, and the two hourly roll-ups older than two days.
    assert_eq!(schedule(&c, 60).prune(now).await.unwrap(), 3);
    let db = &c.state.db;
    assert_eq!(beacon_check::Entity::find().count(db).await.unwrap(), 2);
    assert_eq!(
        beacon_check_hour::Entity::find().count(db).await.unwrap(),
        1
    );
    assert_eq!(
        beacon_status::Entity::find().count(db).await.unwrap(),
        1,
        "checked today"
    );
});

/// The binary runs the schedule by itself; two replicas on one database
/// check a Beacon once per round between them, not once each.
#[tokio::test]
async fn two_running_replicas_check_each_beacon_once_a_round() {
    let database = common::fresh_postgres_database().await;
    let settings = [("KNOTROUTE_CONTROL_BEACON_CHECK_INTERVAL", "10")];
    let (one, _two) = tokio::join!(
        common::spawn_control_with(&database, &settings),
        common::spawn_control_with(&database, &settings)
    );
    one.sign_in().await;
    let healthy = http_beacon(200, "ok").await;
    let r = one
        .post_json(
            "/api/v1/networks",
            json!({"name": "Office", "beacons": [healthy]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let checks = || async {
        let listed: Vec<Value> = one.get_json("/api/v1/beacons").await;
        listed[0]["last_check"].clone()
    };
    // The first round is due one interval (10 s ± 1 s) after start.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(25);
    while checks().await.is_null() {
        assert!(
            std::time::Instant::now() < deadline,
            "no scheduled check within 25 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert_eq!(checks().await["class"], "ok");
    // Well before the next round: still one check, though two replicas run.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let db = sea_orm::Database::connect(database.as_str()).await.unwrap();
    assert_eq!(beacon_check::Entity::find().count(&db).await.unwrap(), 1);
}
