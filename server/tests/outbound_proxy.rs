//! Beacon checks, Diagnose and alert webhooks never go through a proxy named
//! in the environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY): a proxy does its
//! own name lookup and connects wherever it likes, past Control's address
//! policy. Its own file: environment variables are shared by every test in
//! a binary.
//!
//! Everything is driven in-process (no HTTP client of the tests runs here,
//! as it would honour the proxy too).

mod common;

use protocol::api::NetworkInput;
use protocol::beacons::{BeaconRef, CheckClass};
use protocol::diagnostics::{Severity, Step};
use protocol::Lang;
use server::domain::access::principal::Principal;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Connections the proxy accepted, over every test of this binary.
static PROXIED: AtomicUsize = AtomicUsize::new(0);

/// Starts a proxy on loopback once (on its own thread, so it outlives each
/// test's runtime) and names it in the environment before any client exists.
/// It answers every request itself with 200, so only the count tells it was used.
fn proxy_in_environment() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                PROXIED.fetch_add(1, Ordering::SeqCst);
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nproxied",
                );
            }
        });
        for name in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ] {
            std::env::set_var(name, &url);
        }
        std::env::remove_var("NO_PROXY");
        std::env::remove_var("no_proxy");
    });
}

on_both_databases!(
    beacon_checks_diagnose_and_webhooks_ignore_proxies_from_the_environment,
    |backend| async move {
        proxy_in_environment();
        let (hook, received) = test_kit::webhook_receiver().await;
        let c = common::start_with(
            backend,
            common::Options {
                alert_webhook: Some(hook),
                ..Default::default()
            },
        )
        .await;
        let beacon = test_kit::http_beacon(200, "ok").await;
        let owner = Principal::owner();
        let profile = c
            .state
            .networks
            .create(
                &owner.may().unwrap(),
                NetworkInput {
                    id: None,
                    name: "Proxied".into(),
                    description: None,
                    beacons: vec![beacon.clone()],
                    version: None,
                },
            )
            .await
            .unwrap();

        let check = c
            .state
            .beacons
            .check(
                &owner.may().unwrap(),
                &BeaconRef {
                    network_id: profile.id.to_string(),
                    url: profile.beacons[0].clone(),
                },
            )
            .await
            .unwrap();
        assert_eq!(check.class, CheckClass::Ok, "{check:?}");

        let diagnosis = c
            .state
            .diagnostics
            .diagnose(&owner.may().unwrap(), &profile.id, Lang::En)
            .await
            .unwrap();
        let healthz = diagnosis
            .lines
            .iter()
            .find(|l| l.step == Step::Healthz)
            .unwrap_or_else(|| panic!("{diagnosis:?}"));
        assert_eq!(healthz.severity, Severity::Ok, "{diagnosis:?}");

        let outcome = c
            .state
            .alerts
            .send_test(&owner.may().unwrap())
            .await
            .unwrap();
        assert!(outcome.delivered, "{outcome:?}");
        assert_eq!(received.lock().unwrap().len(), 1, "the receiver got it");

        assert_eq!(
            PROXIED.load(Ordering::SeqCst),
            0,
            "a request went through the environment's proxy"
        );
    }
);
