//! `knotroute-control backup` and `restore`, run as an operator would: the
//! binary against the data of a Control that is serving Agents meanwhile.

mod common;

use common::{ok, refused, SimAgent, Store};
use serde_json::{json, Value};
use server::ops::backup::{BackupReader, Line};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The manifest's counts and every row, in file order.
fn contents(path: &Path) -> (BTreeMap<String, u64>, Vec<(String, Value)>) {
    let mut reader = BackupReader::open(path).expect("open backup");
    let mut tables = BTreeMap::new();
    let mut rows = Vec::new();
    while let Some(line) = reader.next_line().expect("readable backup") {
        match line {
            Line::Manifest(m) => tables = m.tables,
            Line::Row { table, row } => rows.push((table, row)),
            Line::End { .. } => {}
        }
    }
    (tables, rows)
}

async fn backup(store: &Store, file: &Path) -> String {
    let (store, file) = (store.clone(), file.to_path_buf());
    let out = tokio::task::spawn_blocking(move || {
        store.run(&["backup", "--out", file.to_str().unwrap()])
    })
    .await
    .unwrap();
    ok(&out)
}

fn heartbeat(n: usize) -> Value {
    json!({"name": "edge", "docker_available": true, "components": [
        {"id": "sidecar-web", "kind": "sidecar", "name": "web",
         "status": if n.is_multiple_of(2) { "running" } else { "restarting" },
         "service": "qhalxpjsxejnci2ukwujuhfmuf42fygcdaz3uvccigfuu5jugem2kwzt.knot", "restart_count": n}]})
}

on_both_databases!(
    backup_while_agents_work_restores_every_table,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .create_network(json!({"name": "Office", "beacons": ["https://beacon.example.net"]}))
            .await;
        assert_eq!(r.status(), 201);
        let network: Value = r.json().await.unwrap();
        let agents: Vec<SimAgent> = (0..3).map(|i| SimAgent::new(&c, 80 + i)).collect();
        for a in &agents {
            a.enroll_with_docker().await;
        }
        // A revoked and deleted host: its key must stay refused after a restore.
        let revoked = SimAgent::new(&c, 83);
        revoked.enroll_with_docker().await;
        let r = c
            .post_json(
                &format!("/api/v1/agents/{}/revoke", revoked.id()),
                json!({}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let r = c.delete(&format!("/api/v1/agents/{}", revoked.id())).await;
        assert_eq!(r.status(), 204);
        let job = json!({"agent_id": agents[0].id(), "kind": "deploy_sidecar", "payload": {
            "name": "web", "network_id": network["id"], "target": "app:8080",
            "docker_network": "apps", "beacons": ["https://beacon.example.net"]}});
        let r = c.post_json("/api/v1/jobs", job.clone()).await;
        assert_eq!(r.status(), 201);
        let queued: Value = r.json().await.unwrap();

        // Heartbeats and new jobs keep coming while the backup is taken.
        let stop = Arc::new(AtomicBool::new(false));
        let beats = Arc::new(AtomicUsize::new(0));
        let traffic = {
            let (stop, beats) = (stop.clone(), beats.clone());
            let base = c.base.clone();
            let client = c.client.clone();
            let job = job.clone();
            tokio::spawn(async move {
                let agents: Vec<SimAgent> = (0..3).map(|i| SimAgent::at(&base, 80 + i)).collect();
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) || n < 3 {
                    for a in &agents {
                        let r = a.post("/api/v1/agents/heartbeat", heartbeat(n)).await;
                        assert_eq!(r.status(), 200, "heartbeat during backup");
                        beats.fetch_add(1, Ordering::Relaxed);
                    }
                    let mut j = job.clone();
                    j["agent_id"] = json!(agents[2].id());
                    j["payload"]["name"] = json!(format!("web{n}"));
                    let r = client
                        .post(format!("{base}/api/v1/jobs"))
                        .json(&j)
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(r.status(), 201, "job queued during backup");
                    n += 1;
                }
            })
        };
        let files = tempfile::tempdir().unwrap();
        let source = Store::of(&c);
        let during = files.path().join("during.backup");
        while beats.load(Ordering::Relaxed) == 0 {
            tokio::task::yield_now().await;
        }
        let before = beats.load(Ordering::Relaxed);
        let said = backup(&source, &during).await;
        assert!(said.contains("wrote"), "{said}");
        let after = beats.load(Ordering::Relaxed);
        stop.store(true, Ordering::Relaxed);
        traffic.await.unwrap();
        assert!(
            after > before,
            "Agents were heartbeating while the backup ran"
        );

        // The snapshot taken under load is whole: it restores (foreign keys
        // hold) and holds exactly what its manifest counts.
        let (counts, rows) = contents(&during);
        assert_eq!(counts.values().sum::<u64>(), rows.len() as u64);
        let first = Store::empty(backend, &files, "first").await;
        let said = ok(&first.run(&["restore", during.to_str().unwrap()]));
        assert!(
            said.contains(&format!("restored {}", during.display())),
            "{said}"
        );

        // Quiet now: a backup restored into an empty data directory holds
        // every table exactly as the source does.
        let quiet = files.path().join("quiet.backup");
        backup(&source, &quiet).await;
        let target = Store::empty(backend, &files, "restored").await;
        let said = ok(&target.run(&["restore", quiet.to_str().unwrap()]));
        assert!(said.contains("agents: 3"), "counts reported: {said}");
        let again = files.path().join("again.backup");
        backup(&target, &again).await;
        let (source_counts, source_rows) = contents(&quiet);
        let (restored_counts, restored_rows) = contents(&again);
        assert_eq!(source_counts, restored_counts);
        assert_eq!(
            source_rows, restored_rows,
            "every row of every table comes back"
        );
        for table in [
            "networks",
            "agents",
            "components",
            "jobs",
            "audit_log",
            "enrollment_log",
            "revoked_keys",
        ] {
            assert!(
                source_counts[table] > 0,
                "{table} is part of the comparison"
            );
        }

        // Agents keep working against the restored Control: same keys, same jobs.
        let (url, settings) = target.serve_settings();
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let restored = common::spawn_control_with(&url, &settings).await;
        let agent = SimAgent::at(&restored.base, 80);
        let r = agent.post("/api/v1/agents/heartbeat", heartbeat(0)).await;
        assert_eq!(
            r.status(),
            200,
            "a signed heartbeat is accepted after restore"
        );
        let claimed = agent.claim().await.expect("the queued job survived");
        let r = SimAgent::at(&restored.base, 83)
            .enroll(common::ENROLL, "back")
            .await;
        assert_eq!(r.status(), 403, "the revoked key is still refused");
        assert_eq!(claimed["id"], queued["id"]);
        // New rows get new ids (sequences moved past the restored ones).
        restored.sign_in().await;
        let r = restored.post_json("/api/v1/jobs", job).await;
        assert_eq!(r.status(), 201);
    }
);

on_both_databases!(
    restore_checks_the_file_and_refuses_to_overwrite,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let agent = SimAgent::new(&c, 90);
        agent.enroll_with_docker().await;
        let files = tempfile::tempdir().unwrap();
        let source = Store::of(&c);
        let file = files.path().join("a.backup");
        backup(&source, &file).await;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "only its owner reads a backup");
        }

        // Not over data that is there, unless asked.
        let said = refused(&source.run(&["restore", file.to_str().unwrap()]));
        assert!(
            said.contains("not empty") && said.contains("--force"),
            "{said}"
        );
        assert_eq!(said.trim().lines().count(), 1, "one line: {said}");

        // A file cut short, or something else entirely, is refused before
        // anything is written.
        let bytes = std::fs::read(&file).unwrap();
        let cut = files.path().join("cut.backup");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let empty = Store::empty(backend, &files, "empty").await;
        let said = refused(&empty.run(&["restore", cut.to_str().unwrap()]));
        assert!(
            said.contains("line") || said.contains("incomplete"),
            "{said}"
        );
        let other = files.path().join("notes.txt");
        std::fs::write(&other, "not a backup\n").unwrap();
        let said = refused(&empty.run(&["restore", other.to_str().unwrap()]));
        assert!(said.contains("not a KnotRoute Control backup"), "{said}");
        let said = refused(&empty.run(&["restore", "/nonexistent/file"]));
        assert!(said.contains("cannot open /nonexistent/file"), "{said}");
        // Nothing was written by the refusals: a plain restore still finds it empty.
        ok(&empty.run(&["restore", file.to_str().unwrap()]));

        // --force replaces what is there with what the file holds.
        c.create_network(json!({"name": "Made after the backup"}))
            .await;
        let said = ok(&source.run(&["restore", "--force", file.to_str().unwrap()]));
        assert!(said.contains("replacing"), "{said}");
        let networks: Value = c.get_json("/api/v1/networks").await;
        assert!(
            !networks.to_string().contains("Made after the backup"),
            "the network created after the backup is gone: {networks}"
        );
        let r = agent
            .post("/api/v1/agents/heartbeat", json!({"name": "docker-host"}))
            .await;
        assert_eq!(r.status(), 200);
    }
);

#[cfg(unix)]
on_both_databases!(
    a_backup_never_writes_through_a_file_or_symlink_left_at_its_partial_name,
    |backend| async move {
        use std::os::unix::fs::PermissionsExt;
        let c = common::signed_in(backend).await;
        let r = c.create_network(json!({"name": "Kept"})).await;
        assert_eq!(r.status(), 201);
        let store = Store::of(&c);
        let files = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;

        // Someone else's file, and a symlink to it where the backup writes first.
        let victim = files.path().join("victim.txt");
        std::fs::write(&victim, "not yours").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        let out = files.path().join("linked.backup");
        std::os::unix::fs::symlink(&victim, files.path().join("linked.backup.partial")).unwrap();
        backup(&store, &out).await;
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not yours");
        assert_eq!(mode(&victim), 0o644);
        assert!(std::fs::symlink_metadata(&out)
            .unwrap()
            .file_type()
            .is_file());
        assert_eq!(mode(&out), 0o600);
        assert!(!contents(&out).1.is_empty(), "a whole backup");

        // A symlink to where nothing is yet: nothing is created there.
        let nowhere = files.path().join("created-by-nobody");
        let out = files.path().join("dangling.backup");
        std::os::unix::fs::symlink(&nowhere, files.path().join("dangling.backup.partial")).unwrap();
        backup(&store, &out).await;
        assert!(!nowhere.exists());
        assert_eq!(mode(&out), 0o600);

        // A readable file left by an earlier run: the backup is a new 0600 file.
        let out = files.path().join("stale.backup");
        let stale = files.path().join("stale.backup.partial");
        std::fs::write(&stale, "left over").unwrap();
        std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o644)).unwrap();
        backup(&store, &out).await;
        assert_eq!(mode(&out), 0o600);
        assert!(!stale.exists());
        assert!(!contents(&out).1.is_empty(), "a whole backup");
    }
);
