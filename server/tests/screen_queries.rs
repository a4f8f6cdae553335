//! The queries behind the admin screens, on both databases: the Agent list
//! pages by name; the Overview lists the Agents that need attention, most
//! urgent first; jobs filter by network, including restarts of a component;
//! the forms' Agent and profile choices, with their search.

mod common;

use serde_json::json;
use server::domain::access::scope::NetworkScope;

on_both_databases!(
    the_agent_list_pages_by_name_without_gaps_or_repeats,
    |backend| async move {
        let c = common::start(backend).await;
        for seed in 1..=7u8 {
            let a = common::SimAgent::new(&c, seed);
            // Two share a name, so the ID breaks the tie.
            let name = if seed <= 2 {
                "same".to_string()
            } else {
                format!("host-{seed}")
            };
            assert_eq!(a.enroll(common::ENROLL, &name).await.status(), 201);
            a.approve().await;
        }
        let mut seen = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let (page, next) = c
                .state
                .inventory
                .list_page(&NetworkScope::all(), after.as_deref(), 3)
                .await
                .unwrap();
            assert!(page.len() <= 3);
            seen.extend(page.into_iter().map(|a| (a.name, a.id)));
            match next {
                Some(cursor) => after = Some(cursor),
                None => break,
            }
        }
        assert_eq!(seen.len(), 7, "every Agent once: {seen:?}");
        let mut sorted = seen.clone();
        sorted.sort();
        assert_eq!(seen, sorted, "by name, then ID");
    }
);

on_both_databases!(
    the_overview_lists_troubled_agents_most_urgent_first,
    |backend| async move {
        let c = common::start(backend).await;
        // A healthy Agent, which the list must leave out.
        common::SimAgent::with_docker(&c, 21).await;
        let broken = common::SimAgent::new(&c, 22);
        assert_eq!(
            broken.enroll(common::ENROLL, "zz-broken").await.status(),
            201
        );
        broken.approve().await;
        let r = broken
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "zz-broken", "docker_available": true, "components": [
                    {"id": "beacon-edge", "kind": "beacon", "name": "edge", "status": "exited",
                     "labels": {"io.knotroute.managed": "true"}}]}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let warned = common::SimAgent::new(&c, 23);
        assert_eq!(
            warned.enroll(common::ENROLL, "aa-warned").await.status(),
            201
        );
        warned.approve().await;
        let r = warned
            .post(
                "/api/v1/agents/heartbeat",
                json!({"name": "aa-warned", "docker_available": true, "components": [
                    {"id": "sidecar-web", "kind": "sidecar", "name": "web", "status": "running",
                     "warnings": ["restarted 4 times in 10 minutes"],
                     "labels": {"io.knotroute.managed": "true"}}]}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let never_seen = common::SimAgent::new(&c, 24);
        assert_eq!(
            never_seen.enroll(common::ENROLL, "mm-new").await.status(),
            201
        );
        never_seen.approve().await;

        let (list, total) = c
            .state
            .inventory
            .needing_attention(&NetworkScope::all(), 10)
            .await
            .unwrap();
        let names: Vec<&str> = list.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(total, 3, "the healthy Agent is not listed: {names:?}");
        // Errors (offline, a component in error) before warnings, each group by name.
        assert_eq!(names, ["mm-new", "zz-broken", "aa-warned"]);
        let (first, total) = c
            .state
            .inventory
            .needing_attention(&NetworkScope::all(), 1)
            .await
            .unwrap();
        assert_eq!(
            (first.len(), total),
            (1, 3),
            "the total counts past the limit"
        );
    }
);

on_both_databases!(
    jobs_filter_by_network_including_restarts_of_a_component,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let agent = common::SimAgent::with_docker(&c, 31).await;
        let beacons = json!(["https://beacon.example.net"]);
        let office = c
            .created_network(json!({"name": "Office", "beacons": beacons}))
            .await;
        let lab = c
            .created_network(json!({"name": "Lab", "beacons": beacons}))
            .await;
        for (name, network) in [("web", &office), ("db", &lab)] {
            c.queued_job(
                json!({"agent_id": agent.id(), "kind": "deploy_sidecar", "payload": {
                        "name": name, "network_id": network, "target": "app:8080",
                        "docker_network": "apps", "beacons": ["https://beacon.example.net"]}}),
            )
            .await;
        }
        // A restart names only the component; it belongs to the component's network.
        c.queued_job(json!({"agent_id": agent.id(), "kind": "restart_component",
                    "payload": {"component_id": "sidecar-web"}}))
            .await;

        let page: serde_json::Value = c
            .get_json(&format!("/api/v1/jobs?network_id={office}"))
            .await;
        let items = page.as_array().expect("an array of jobs");
        let mut kinds: Vec<&str> = items.iter().map(|j| j["kind"].as_str().unwrap()).collect();
        kinds.sort();
        assert_eq!(kinds, ["deploy_sidecar", "restart_component"], "{page}");
        assert!(items.iter().all(|j| j["network_id"] == office.as_str()));
        let page: serde_json::Value = c.get_json(&format!("/api/v1/jobs?network_id={lab}")).await;
        assert_eq!(page.as_array().unwrap().len(), 1);
    }
);

on_both_databases!(
    forms_offer_agents_that_take_jobs_deployable_ones_first_and_a_search_past_the_limit,
    |backend| async move {
        let c = common::signed_in(backend).await;
        // Named so that the Agents that cannot deploy sort first.
        let enroll = |seed: u8, name: &'static str, docker: bool| {
            let c = &c;
            async move {
                let a = common::SimAgent::new(c, seed);
                assert_eq!(a.enroll(common::ENROLL, name).await.status(), 201);
                a.approve().await;
                if docker {
                    let r = a
                        .post(
                            "/api/v1/agents/heartbeat",
                            json!({"name": name, "docker_available": true}),
                        )
                        .await;
                    assert_eq!(r.status(), 200);
                }
                a
            }
        };
        let silent = enroll(41, "a-silent", false).await;
        let disabled = enroll(42, "b-disabled", true).await;
        let r = c
            .post_json(
                &format!("/api/v1/agents/{}/disable", disabled.id()),
                json!({}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let gone = enroll(43, "c-revoked", true).await;
        let r = c
            .post_json(&format!("/api/v1/agents/{}/revoke", gone.id()), json!({}))
            .await;
        assert_eq!(r.status(), 200);
        let ready = enroll(44, "d-Edge-Ready_1", true).await;
        let percent = enroll(45, "e-edge 100% ready", true).await;
        let inventory = &c.state.inventory;
        let ids = |list: &[protocol::api::AgentChoice]| {
            list.iter().map(|a| a.id.to_string()).collect::<Vec<_>>()
        };

        // Everything that takes jobs (not the revoked one), by name.
        let (all, more) = inventory
            .choices(&NetworkScope::all(), None, false, 200)
            .await
            .unwrap();
        assert_eq!(
            ids(&all),
            [silent.id(), disabled.id(), ready.id(), percent.id()],
            "{all:?}"
        );
        assert!(!more);
        // Where a Beacon or sidecar can go now: online with Docker and enabled,
        // even when the others fill the first places.
        let (deployable, more) = inventory
            .choices(&NetworkScope::all(), None, true, 2)
            .await
            .unwrap();
        assert_eq!(ids(&deployable), [ready.id(), percent.id()]);
        assert!(deployable.iter().all(|a| a.can_deploy_now()));
        assert!(!more);
        // Past the limit the answer says more match.
        let (first, more) = inventory
            .choices(&NetworkScope::all(), None, false, 2)
            .await
            .unwrap();
        assert_eq!((first.len(), more), (2, true));
        // A search ignores case, and its % and _ are literal.
        let (found, _) = inventory
            .choices(&NetworkScope::all(), Some("EDGE-"), true, 200)
            .await
            .unwrap();
        assert_eq!(ids(&found), [ready.id()]);
        let (found, _) = inventory
            .choices(&NetworkScope::all(), Some("100%"), false, 200)
            .await
            .unwrap();
        assert_eq!(ids(&found), [percent.id()]);
        let (found, _) = inventory
            .choices(&NetworkScope::all(), Some("_"), false, 200)
            .await
            .unwrap();
        assert_eq!(ids(&found), [ready.id()]);
        let (found, more) = inventory
            .choices(&NetworkScope::all(), Some("nothing"), false, 200)
            .await
            .unwrap();
        assert!(found.is_empty() && !more);
    }
);

on_both_databases!(
    profiles_list_by_name_and_narrow_by_a_search,
    |backend| async move {
        let c = common::signed_in(backend).await;
        for name in ["Office", "Lab", "office-2", "Home"] {
            assert_eq!(c.create_network(json!({"name": name})).await.status(), 201);
        }
        let networks = &c.state.networks;
        let names = |list: Vec<protocol::api::NetworkProfile>| {
            list.into_iter().map(|n| n.name).collect::<Vec<_>>()
        };
        let first = networks
            .list(&NetworkScope::all(), None, None, 3)
            .await
            .unwrap();
        assert_eq!(
            (names(first.items), first.next.is_some()),
            (
                vec!["Home".to_string(), "Lab".into(), "Office".into()],
                true
            )
        );
        let found = networks
            .list(&NetworkScope::all(), None, Some("OFFICE"), 3)
            .await
            .unwrap();
        assert_eq!(
            (names(found.items), found.next.is_some()),
            (vec!["Office".to_string(), "office-2".into()], false)
        );
        // A Cyrillic name is found as typed on both databases.
        assert_eq!(
            c.create_network(json!({"name": "Москва"})).await.status(),
            201
        );
        let found = networks
            .list(&NetworkScope::all(), None, Some("Моск"), 3)
            .await
            .unwrap();
        assert_eq!(names(found.items), ["Москва"]);
        // The JSON API narrows the same way.
        let r = c.get("/api/v1/networks?search=office").await;
        assert_eq!(r.status(), 200);
        let listed: Vec<serde_json::Value> = r.json().await.unwrap();
        assert_eq!(listed.len(), 2);
    }
);

on_both_databases!(
    the_services_list_pages_through_sidecars_by_name_with_their_agents,
    |backend| async move {
        let c = common::start(backend).await;
        // Three Agents, five sidecars (two named alike) and a Beacon that is not a service.
        for (seed, host, sidecars) in [
            (31u8, "host-a", vec!["web", "api"]),
            (32, "host-b", vec!["web", "mail"]),
            (33, "host-c", vec!["zeta"]),
        ] {
            let a = common::SimAgent::new(&c, seed);
            assert_eq!(a.enroll(common::ENROLL, host).await.status(), 201);
            a.approve().await;
            let mut components: Vec<serde_json::Value> = sidecars
                .iter()
                .map(|name| {
                    json!({"id": format!("sidecar-{name}"), "kind": "sidecar", "name": name,
                           "status": "running", "service": knot(name, seed),
                           "labels": {"io.knotroute.managed": "true"}})
                })
                .collect();
            components.push(
                json!({"id": "beacon-edge", "kind": "beacon", "name": "edge",
                "status": "running", "labels": {"io.knotroute.managed": "true"}}),
            );
            let r = a
                .post(
                    "/api/v1/agents/heartbeat",
                    json!({"name": host, "docker_available": true, "components": components}),
                )
                .await;
            assert_eq!(r.status(), 200);
        }
        let mut seen = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let (page, next) = c
                .state
                .inventory
                .sidecars_page(&NetworkScope::all(), after.as_deref(), 2)
                .await
                .unwrap();
            assert!(page.len() <= 2);
            for s in page {
                assert_eq!(
                    s.agent.status.as_str(),
                    "online",
                    "judged like the Agent list"
                );
                assert!(s.agent.components.is_empty());
                seen.push((s.sidecar.name, s.agent.name, s.sidecar.service));
            }
            match next {
                Some(cursor) => after = Some(cursor),
                None => break,
            }
        }
        let names: Vec<&str> = seen.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(names, ["api", "mail", "web", "web", "zeta"], "{seen:?}");
        assert!(seen.contains(&("web".into(), "host-b".into(), knot("web", 32))));
        assert!(c
            .state
            .inventory
            .sidecars_page(&NetworkScope::all(), Some("no-such-row"), 2)
            .await
            .is_err());
    }
);

/// A 56-character base32 `.knot` address, distinct per sidecar name and Agent seed.
fn knot(name: &str, seed: u8) -> String {
    format!(
        "{:q<56}.knot",
        format!("{name}{}", char::from(b'a' + seed % 26))
    )
}
