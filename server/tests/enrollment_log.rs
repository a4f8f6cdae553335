//! The enrollment log under a flood: repeated refusals from one address fold
//! into one line per reason (and one audit line), the name a host gave is
//! shown as its untrusted claim, and both logs are pruned past their
//! retention by every running Control.

mod common;

use chrono::{Duration, Utc};
use sea_orm::{ActiveModelTrait, EntityTrait, PaginatorTrait, Set};
use serde_json::Value;
use server::entities::{audit_entry, enrollment_log};

const HOSTILE_NAME: &str = "<img src=x onerror=alert(1)>\"evil\"";

on_both_databases!(
    a_thousand_refusals_from_one_address_for_one_reason_are_one_line,
    |backend| async move {
        let c = common::start(backend).await;
        let audit_before = audit_entry::Entity::find()
            .count(&c.state.db)
            .await
            .unwrap();
        let a = common::SimAgent::new(&c, 91);
        let long_name = format!("{HOSTILE_NAME}{}", "n".repeat(500));
        // 20 refusals for the token, then the address is throttled: 1,000 more.
        let mut statuses = std::collections::BTreeMap::new();
        for _ in 0..1020 {
            let r = a.enroll("wrong-token-wrong-token", &long_name).await;
            *statuses.entry(r.status().as_u16()).or_insert(0) += 1;
        }
        assert_eq!(statuses, [(401, 20), (429, 1000)].into_iter().collect());

        let lines = enrollment_log::Entity::find()
            .all(&c.state.db)
            .await
            .unwrap();
        let folded: Vec<(&str, i64)> = lines
            .iter()
            .map(|l| (l.reason.as_str(), l.attempts))
            .collect();
        assert_eq!(folded, [("bad_token", 20), ("throttled", 1000)]);
        assert!(lines
            .iter()
            .all(|l| l.first_at < l.at && l.client == "127.0.0.1"));
        assert_eq!(lines[0].name.chars().count(), 80, "the name is bounded");
        let audit_after = audit_entry::Entity::find()
            .count(&c.state.db)
            .await
            .unwrap();
        assert_eq!(audit_after - audit_before, 2, "one audit line per log line");

        c.sign_in().await;
        let log: Value = c.get_json("/api/v1/enrollments").await;
        assert_eq!(log[0]["reason"], "throttled");
        assert_eq!(log[0]["attempts"], 1000);
        assert!(log[0]["first_at"].as_str().unwrap() <= log[0]["at"].as_str().unwrap());
        assert_eq!(log[1]["attempts"], 20);

        // The screen says how many and between when, and marks the name as
        // the host's claim, escaped.
        let html = c.page_in("/infrastructure", "en").await;
        assert!(html.contains("×1000, first "), "folded line shown");
        assert!(html.contains("name given by the host"));
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(!html.contains("<img src=x"), "never rendered as markup");
    }
);

async fn insert_log_lines(c: &common::Control, age: Duration, audit: usize) {
    let at = Utc::now() - age;
    enrollment_log::ActiveModel {
        at: Set(at),
        first_at: Set(at - Duration::days(30)),
        attempts: Set(3),
        client: Set("192.0.2.7".into()),
        agent_id: Set(None),
        name: Set(format!("aged {}", age.num_days())),
        accepted: Set(false),
        reason: Set("bad_token".into()),
        ..Default::default()
    }
    .insert(&c.state.db)
    .await
    .unwrap();
    let rows: Vec<audit_entry::ActiveModel> = (0..audit)
        .map(|i| audit_entry::ActiveModel {
            at: Set(at),
            actor: Set("admin".into()),
            action: Set("test.aged".into()),
            subject: Set(format!("{}-{i}", age.num_days())),
            detail: Set(String::new()),
            ..Default::default()
        })
        .collect();
    for chunk in rows.chunks(500) {
        audit_entry::Entity::insert_many(chunk.to_vec())
            .exec(&c.state.db)
            .await
            .unwrap();
    }
}

async fn remaining(c: &common::Control) -> (Vec<String>, u64) {
    let names = enrollment_log::Entity::find()
        .all(&c.state.db)
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect();
    let audit = audit_entry::Entity::find()
        .count(&c.state.db)
        .await
        .unwrap();
    (names, audit)
}

on_both_databases!(
    lines_older_than_the_retention_are_pruned_and_newer_ones_kept,
    |backend| async move {
        let c = common::start(backend).await;
        // More old audit lines than one delete batch holds.
        insert_log_lines(&c, Duration::days(91), 5_003).await;
        // Its first attempt is past the retention, its last is not: kept.
        insert_log_lines(&c, Duration::days(89), 2).await;
        let deleted =
            server::domain::log_retention::prune(&c.state.db, Utc::now(), Duration::days(90))
                .await
                .unwrap();
        assert_eq!(deleted, 1 + 5_003);
        assert_eq!(remaining(&c).await, (vec!["aged 89".to_string()], 2));
    }
);

on_both_databases!(
    every_running_control_prunes_by_the_configured_retention,
    |backend| async move {
        let c = common::start(backend).await;
        insert_log_lines(&c, Duration::days(8), 3).await;
        insert_log_lines(&c, Duration::days(6), 1).await;
        // Two replicas on the same database, each with its pruning timer.
        let data = c.data_dir().display().to_string();
        let mut settings = vec![("KNOTROUTE_CONTROL_LOG_RETENTION_DAYS", "7")];
        let url = match &c.database_url {
            Some(url) => url.clone(),
            None => {
                settings.push(("KNOTROUTE_CONTROL_DATA", data.as_str()));
                String::new()
            }
        };
        let _first = common::spawn_control_with(&url, &settings).await;
        let _second = common::spawn_control_with(&url, &settings).await;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while remaining(&c).await != (vec!["aged 6".to_string()], 1) {
            assert!(
                std::time::Instant::now() < deadline,
                "not pruned: {:?}",
                remaining(&c).await
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
);

#[test]
fn the_retention_defaults_to_90_days_and_refuses_zero() {
    use clap::Parser;
    let parse = |extra: &[&str]| {
        let mut args = vec![
            "knotroute-control",
            "--admin-password",
            common::PASSWORD,
            "--enroll-token",
            common::ENROLL,
        ];
        args.extend_from_slice(extra);
        server::config::Cli::try_parse_from(args)
    };
    let config = parse(&[]).unwrap().settings.validate().unwrap();
    assert_eq!(config.log_retention, Duration::days(90));
    let config = parse(&["--log-retention-days", "30"])
        .unwrap()
        .settings
        .validate()
        .unwrap();
    assert_eq!(config.log_retention, Duration::days(30));
    assert!(parse(&["--log-retention-days", "0"]).is_err());
}
