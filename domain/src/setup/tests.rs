//! Every state of every step, from facts made by hand (the integration
//! tests in server/tests/setup_checklist.rs reach them through the database).

use super::facts::*;
use super::steps::assess;
use super::RequestTransport;
use protocol::beacons::CheckClass;
use protocol::setup::{Criterion, Knowledge, SetupStep, StepState};
use protocol::Lang;
use std::collections::HashMap;

fn fresh() -> Facts {
    Facts {
        network_id: "kn_test".into(),
        network_name: "Home".into(),
        beacons: Vec::new(),
        managed_relays: Vec::new(),
        sidecar_relays: Vec::new(),
        control: ControlFacts {
            public_url: None,
            transport: RequestTransport::default(),
        },
        agents: AgentFacts::default(),
        services: Vec::new(),
        invites: InviteFacts::default(),
        policy_filled_in: false,
        skips: HashMap::new(),
        probe: None,
    }
}

fn beacon(
    url: &str,
    class: Option<CheckClass>,
    diagnosis: Option<(&[&str], Relay)>,
) -> BeaconFacts {
    BeaconFacts {
        url: url.into(),
        https: url.starts_with("https://"),
        managed: false,
        check: class.map(|class| LastCheck {
            class,
            detail: "detail".into(),
            latency_ms: Some(12),
        }),
        diagnosis: diagnosis.map(|(addresses, relay)| Diagnosed {
            addresses: addresses.iter().map(|a| a.to_string()).collect(),
            relay,
        }),
    }
}

fn state(facts: &Facts, step: SetupStep) -> (StepState, String, Option<String>) {
    let s = assess(facts, Lang::En)
        .into_iter()
        .find(|s| s.step == step)
        .unwrap();
    (s.state, s.detail, s.warning)
}

const OK: Option<CheckClass> = Some(CheckClass::Ok);

#[test]
fn a_fresh_network_has_its_profile_and_little_else() {
    let facts = fresh();
    let steps = assess(&facts, Lang::En);
    assert_eq!(steps.len(), 10);
    let states: Vec<StepState> = steps.iter().map(|s| s.state).collect();
    use StepState::*;
    assert_eq!(
        states,
        [Done, NotYet, NotYet, NotYet, NotYet, NotYet, NotYet, NotYet, NotYet, NotYet]
    );
    assert!(steps[0].detail.contains("kn_test"));
    assert!(steps
        .iter()
        .all(|s| !s.why.is_empty() && s.fix_href.starts_with('/')));
}

#[test]
fn the_first_beacon_needs_a_check_https_and_an_open_relay() {
    let mut f = fresh();
    f.beacons = vec![beacon("https://b.example", None, None)];
    assert_eq!(state(&f, SetupStep::FirstBeacon).0, StepState::CantTell);
    f.beacons = vec![beacon("https://b.example", Some(CheckClass::Tls), None)];
    let (s, detail, _) = state(&f, SetupStep::FirstBeacon);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("tls"), "{detail}");
    f.beacons = vec![beacon("http://b.example:8080", OK, None)];
    let (s, detail, _) = state(&f, SetupStep::FirstBeacon);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("plain HTTP"), "{detail}");
    f.beacons = vec![beacon("https://b.example", OK, None)];
    let (s, detail, _) = state(&f, SetupStep::FirstBeacon);
    assert_eq!(s, StepState::CantTell);
    assert!(detail.contains("Diagnose"), "{detail}");
    f.beacons = vec![beacon(
        "https://b.example",
        OK,
        Some((&["192.0.2.1"], Relay::Closed("refused".into()))),
    )];
    let (s, detail, _) = state(&f, SetupStep::FirstBeacon);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("7447"), "{detail}");
    f.beacons = vec![beacon(
        "https://b.example",
        OK,
        Some((&["192.0.2.1"], Relay::Open("192.0.2.1:7447".into()))),
    )];
    let (s, detail, _) = state(&f, SetupStep::FirstBeacon);
    assert_eq!(s, StepState::Done);
    assert!(detail.contains("192.0.2.1:7447"), "{detail}");
}

#[test]
fn a_second_beacon_counts_only_on_another_host() {
    let open = || Relay::Open("x:7447".into());
    let mut f = fresh();
    f.beacons = vec![beacon("https://a.example", OK, None)];
    assert_eq!(state(&f, SetupStep::SecondBeacon).0, StepState::NotYet);
    f.beacons
        .push(beacon("https://b.example", Some(CheckClass::Dns), None));
    let (s, detail, _) = state(&f, SetupStep::SecondBeacon);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("Of 2 Beacons, 1 answered"), "{detail}");
    f.beacons[1] = beacon("https://b.example", OK, None);
    assert_eq!(state(&f, SetupStep::SecondBeacon).0, StepState::CantTell);
    // One host: not yet, with the single-point-of-failure advice.
    f.beacons = vec![
        beacon("https://a.example", OK, Some((&["192.0.2.1"], open()))),
        beacon("https://b.example:8443", OK, Some((&["192.0.2.1"], open()))),
    ];
    let (s, _, warning) = state(&f, SetupStep::SecondBeacon);
    assert_eq!(s, StepState::NotYet);
    assert!(warning.unwrap().contains("single point of failure"));
    f.beacons[1] = beacon("https://b.example", OK, Some((&["198.51.100.7"], open())));
    let (s, _, warning) = state(&f, SetupStep::SecondBeacon);
    assert_eq!((s, warning), (StepState::Done, None));
    // Two compared on one host and a third never compared: cannot tell yet.
    f.beacons[1] = beacon("https://b.example:8443", OK, Some((&["192.0.2.1"], open())));
    f.beacons.push(beacon("https://c.example", OK, None));
    let (s, _, warning) = state(&f, SetupStep::SecondBeacon);
    assert_eq!((s, warning), (StepState::CantTell, None));
}

#[test]
fn relays_are_counted_from_managed_beacons_open_relays_and_advertised_sidecars() {
    let mut f = fresh();
    let (s, _, warning) = state(&f, SetupStep::Relays);
    assert_eq!(s, StepState::NotYet);
    assert!(warning.unwrap().contains("route diversity"));
    f.managed_relays = vec![("edge".into(), "https://edge.example".into())];
    f.beacons = vec![beacon("https://a.example", OK, None)];
    assert_eq!(state(&f, SetupStep::Relays).0, StepState::CantTell);
    // A managed Beacon whose relay the last diagnosis found closed does not count.
    let mut managed = beacon(
        "https://edge.example",
        OK,
        Some((&["192.0.2.9"], Relay::Closed("refused".into()))),
    );
    managed.managed = true;
    f.beacons = vec![managed];
    f.sidecar_relays = vec!["web".into()];
    let (s, detail, _) = state(&f, SetupStep::Relays);
    assert_eq!(s, StepState::NotYet, "{detail}");
    f.sidecar_relays.clear();
    f.beacons = vec![beacon(
        "https://a.example",
        OK,
        Some((&["192.0.2.1"], Relay::Closed("refused".into()))),
    )];
    let (s, detail, _) = state(&f, SetupStep::Relays);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("Only one"), "{detail}");
    f.sidecar_relays = vec!["web".into()];
    let (s, detail, warning) = state(&f, SetupStep::Relays);
    assert_eq!((s, warning), (StepState::Done, None));
    assert!(detail.contains("edge, web"), "{detail}");
}

#[test]
fn control_is_behind_https_when_its_address_and_the_request_say_so() {
    let mut f = fresh();
    assert_eq!(state(&f, SetupStep::ControlHttps).0, StepState::NotYet);
    f.control.public_url = Some("http://control.example".into());
    assert_eq!(state(&f, SetupStep::ControlHttps).0, StepState::NotYet);
    f.control.public_url = Some("https://control.example".into());
    assert_eq!(state(&f, SetupStep::ControlHttps).0, StepState::CantTell);
    f.control.transport.proxy_said_https = true;
    assert_eq!(state(&f, SetupStep::ControlHttps).0, StepState::Done);
}

#[test]
fn agents_must_be_online_with_docker_and_serve_this_network() {
    let mut f = fresh();
    f.agents.without_docker_here = vec!["laptop".into()];
    let (s, detail, _) = state(&f, SetupStep::Agents);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("KNOTROUTE_AGENT_DOCKER"), "{detail}");
    f.agents.docker_elsewhere = vec!["spare".into()];
    let (s, detail, _) = state(&f, SetupStep::Agents);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("spare"), "{detail}");
    f.agents.docker_here = vec!["edge".into()];
    let (s, detail, _) = state(&f, SetupStep::Agents);
    assert_eq!(s, StepState::Done);
    assert!(
        detail.contains("edge") && detail.contains("laptop"),
        "{detail}"
    );
}

#[test]
fn the_first_service_is_done_once_a_backup_of_it_was_verified() {
    let mut f = fresh();
    f.services = vec![ServiceFacts {
        name: "web".into(),
        address: String::new(),
        pending: Some(protocol::services::AddressPending::NotStarted),
        backup: None,
        restart: None,
    }];
    let (s, detail, _) = state(&f, SetupStep::FirstService);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("not started"), "{detail}");
    f.services[0].address = "web-abc.knot".into();
    let (s, detail, _) = state(&f, SetupStep::FirstService);
    assert_eq!(s, StepState::NotYet);
    assert!(
        detail.contains("web-abc.knot") && detail.contains("not backed up"),
        "{detail}"
    );
    let mut backup = protocol::backups::BackupState {
        archives: 2,
        directory: "/data/backups/sidecar-web".into(),
        newest_archive: "20261204T120000Z.tar".into(),
        newest_taken_at: "2026-12-04T12:00:00Z".into(),
        verify_error: "20261204T120000Z.tar is damaged".into(),
        ..Default::default()
    };
    f.services[0].backup = Some(backup.clone());
    let (s, detail, _) = state(&f, SetupStep::FirstService);
    assert_eq!(
        s,
        StepState::NotYet,
        "a backup nobody restored is not enough"
    );
    assert!(detail.contains("is damaged"), "{detail}");
    let criterion = |f: &super::facts::Facts| {
        super::bootstrap::criteria(f, Lang::En)
            .into_iter()
            .find(|c| c.criterion == protocol::setup::Criterion::BackupVerified)
            .unwrap()
    };
    assert_eq!(criterion(&f).knowledge, protocol::setup::Knowledge::NotYet);
    backup.verified_archive = Some("20261203T120000Z.tar".into());
    backup.verified_at = Some("2026-12-04T12:05:00Z".into());
    backup.verified_address = Some("old-identity.knot".into());
    f.services[0].backup = Some(backup.clone());
    let (s, detail, _) = state(&f, SetupStep::FirstService);
    assert_eq!(
        s,
        StepState::NotYet,
        "a copy of another identity proves nothing"
    );
    assert!(detail.contains("old-identity.knot"), "{detail}");
    backup.verified_address = Some("web-abc.knot".into());
    f.services[0].backup = Some(backup);
    let (s, detail, _) = state(&f, SetupStep::FirstService);
    assert_eq!(s, StepState::Done);
    assert!(
        detail.contains("20261203T120000Z.tar") && detail.contains("/data/backups/sidecar-web"),
        "{detail}"
    );
    let proven = criterion(&f);
    assert_eq!(proven.knowledge, protocol::setup::Knowledge::Proven);
    assert!(proven.detail.contains("web-abc.knot"), "{}", proven.detail);
}

#[test]
fn onboarding_is_done_once_an_invite_was_opened() {
    let mut f = fresh();
    f.invites = InviteFacts {
        usable: 1,
        opened: 0,
        opens: 0,
        platforms: Vec::new(),
    };
    let (s, detail, _) = state(&f, SetupStep::Onboarding);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("none opened"), "{detail}");
    f.invites.opened = 1;
    f.invites.opens = 3;
    let (_, detail, _) = state(&f, SetupStep::Onboarding);
    assert!(detail.contains("platforms not recognised"), "{detail}");
    f.invites.platforms = vec!["android".into(), "windows".into()];
    let (s, detail, _) = state(&f, SetupStep::Onboarding);
    assert_eq!(s, StepState::Done);
    assert!(detail.contains("on: Android, Windows"), "{detail}");
    assert!(detail.contains("Not opened on Linux"), "{detail}");
}

#[test]
fn a_skipped_step_stays_skipped_until_it_is_done() {
    let mut f = fresh();
    let at = chrono::Utc::now();
    for step in [
        SetupStep::NetworkId,
        SetupStep::Monitoring,
        SetupStep::Policy,
    ] {
        f.skips.insert(step, ("admin".into(), at));
    }
    let steps = assess(&f, Lang::En);
    assert_eq!(steps[8].state, StepState::Skipped);
    assert_eq!(steps[8].skipped_by.as_deref(), Some("admin"));
    assert!(
        steps[8].detail.contains("end-to-end probe"),
        "says what it would otherwise"
    );
    f.policy_filled_in = true;
    let steps = assess(&f, Lang::En);
    assert_eq!(steps[9].state, StepState::Done);
    assert_eq!(steps[9].skipped_by, None);
}

#[test]
fn the_fixed_words_and_a_fresh_network_s_sentences_exist_in_russian_too() {
    let mut f = fresh();
    f.beacons = vec![beacon("https://a.example", OK, None)];
    for (en, ru) in assess(&f, Lang::En).iter().zip(assess(&f, Lang::Ru).iter()) {
        for text in [&ru.title, &ru.why, &ru.detail, &ru.fix_label] {
            assert!(
                text.chars().any(|c| ('а'..='я').contains(&c)),
                "{:?}: {text}",
                ru.step
            );
        }
        assert_ne!(en.why, ru.why);
    }
}

fn probed(ok: bool, minutes_ago: i64, same_host: bool) -> super::facts::ProbeFacts {
    super::facts::ProbeFacts {
        service: "web".into(),
        same_host,
        every_minutes: 5,
        last: Some(super::facts::LastProbe {
            ok,
            age: chrono::Duration::minutes(minutes_ago),
            agent_name: "watch".into(),
            address: "x.knot".into(),
            stage: if ok { String::new() } else { "overlay".into() },
            detail: if ok { String::new() } else { "HTTP 502".into() },
            latency_ms: 40,
        }),
    }
}

#[test]
fn the_monitoring_step_follows_the_latest_probe() {
    let mut f = fresh();
    let (s, detail, _) = state(&f, SetupStep::Monitoring);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("No end-to-end probe"), "{detail}");

    f.probe = Some(super::facts::ProbeFacts {
        last: None,
        ..probed(true, 0, false)
    });
    let (s, detail, _) = state(&f, SetupStep::Monitoring);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("not reported yet"), "{detail}");

    f.probe = Some(probed(true, 2, false));
    let (s, detail, warning) = state(&f, SetupStep::Monitoring);
    assert_eq!(s, StepState::Done);
    assert!(
        detail.contains("watch") && detail.contains("40 ms"),
        "{detail}"
    );
    assert_eq!(warning, None);
    let proven = |f: &Facts, criterion: Criterion| {
        super::bootstrap::criteria(f, Lang::En)
            .into_iter()
            .find(|c| c.criterion == criterion)
            .unwrap()
            .knowledge
    };
    assert_eq!(proven(&f, Criterion::HttpOverOverlay), Knowledge::Proven);
    assert_eq!(proven(&f, Criterion::ServiceResolves), Knowledge::Proven);

    // Three intervals (15 minutes) later a pass no longer counts.
    f.probe = Some(probed(true, 16, false));
    let (s, detail, _) = state(&f, SetupStep::Monitoring);
    assert_eq!(s, StepState::NotYet);
    assert!(detail.contains("16 min old"), "{detail}");
    assert_ne!(proven(&f, Criterion::HttpOverOverlay), Knowledge::Proven);

    f.probe = Some(probed(false, 1, false));
    let (s, detail, _) = state(&f, SetupStep::Monitoring);
    assert_eq!(s, StepState::NotYet);
    assert!(
        detail.contains("overlay") && detail.contains("HTTP 502"),
        "{detail}"
    );

    // From the service's own host: done, with a warning.
    f.probe = Some(probed(true, 1, true));
    let (s, _, warning) = state(&f, SetupStep::Monitoring);
    assert_eq!(s, StepState::Done);
    assert!(warning.unwrap().contains("own host"));
}

#[test]
fn an_identity_kept_across_a_restart_is_proven_and_a_changed_one_is_not() {
    let mut f = fresh();
    let knowledge = |f: &Facts| {
        let c = super::bootstrap::criteria(f, Lang::En)
            .into_iter()
            .find(|c| c.criterion == Criterion::IdentitySurvivesRestart)
            .unwrap();
        (c.knowledge, c.detail)
    };
    let (k, detail) = knowledge(&f);
    assert_eq!(k, Knowledge::Unknown);
    assert!(detail.contains("restart one"), "{detail}");
    let service = |name: &str, restart: Option<(&str, &str)>| ServiceFacts {
        name: name.into(),
        address: "b.knot".into(),
        pending: None,
        backup: None,
        restart: restart.map(|(x, y)| (x.to_string(), y.to_string())),
    };
    f.services = vec![service("web", Some(("a.knot", "b.knot")))];
    let (k, detail) = knowledge(&f);
    assert_eq!(k, Knowledge::NotYet);
    assert!(
        detail.contains("a.knot") && detail.contains("b.knot"),
        "{detail}"
    );
    f.services.push(service("api", Some(("c.knot", "c.knot"))));
    let (k, detail) = knowledge(&f);
    assert_eq!(k, Knowledge::Proven);
    assert!(detail.contains("api announced c.knot"), "{detail}");
}
