//! Concurrent changes to one network profile: parallel Beacon additions and
//! deployed Beacons joining all land; a save based on a version someone else
//! has changed since is refused with 409 `stale_profile` and changes nothing,
//! through the JSON API (body `version` or `If-Match`) and the UI's server
//! function alike; hostile versions are refused without a change.

mod common;

use futures_util::future::join_all;
use serde_json::{json, Value};
use std::collections::BTreeSet;

async fn new_profile(c: &common::Control, body: Value) -> (String, Value) {
    let r = c.create_network(body).await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    (created["id"].as_str().unwrap().to_string(), created)
}

fn urls(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect()
}

on_both_databases!(
    parallel_beacon_additions_all_land_up_to_the_limit,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let (id, _) = new_profile(&c, json!({"name": "Busy"})).await;
        // More than a profile may hold (16), all at once.
        let wanted: Vec<String> = (0..20)
            .map(|i| format!("https://b{i:02}.example.net"))
            .collect();
        let answers = join_all(wanted.iter().map(|url| {
            let (c, id) = (&c, &id);
            async move {
                let r = c
                    .post_json("/api/v1/beacons", json!({"network_id": id, "url": url}))
                    .await;
                let status = r.status().as_u16();
                (url.clone(), status, r.json::<Value>().await.unwrap())
            }
        }))
        .await;
        let mut added = BTreeSet::new();
        for (url, status, body) in &answers {
            match status {
                201 => {
                    added.insert(url.clone());
                }
                400 => {
                    assert_eq!(body["code"], "too_many", "{body}");
                    assert_eq!(body["field"], "url", "{body}");
                }
                other => panic!("adding {url} answered {other}: {body}"),
            }
        }
        let profile: Value = c.get_json(&format!("/api/v1/networks/{id}")).await;
        assert_eq!(
            urls(&profile["beacons"]),
            added,
            "the list holds exactly the additions that were accepted"
        );
        assert_eq!(added.len(), 16, "every addition landed until the limit");
        assert_eq!(profile["version"], 17, "one version per addition");
    }
);

on_both_databases!(
    a_save_based_on_a_stale_version_is_refused_and_changes_nothing,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let (id, opened) = new_profile(
            &c,
            json!({"name": "Office", "beacons": ["https://b1.example.net"]}),
        )
        .await;
        assert_eq!(opened["version"], 1);
        let path = format!("/api/v1/networks/{id}");
        let put = |body: Value, if_match: Option<&'static str>| {
            let mut request = c.client.put(c.url(&path)).json(&body);
            if let Some(tag) = if_match {
                request = request.header("if-match", tag);
            }
            async move { request.send().await.unwrap() }
        };

        // The form was opened at version 1; meanwhile someone adds a Beacon.
        let r = c
            .post_json(
                "/api/v1/beacons",
                json!({"network_id": id, "url": "https://b2.example.net"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let both = json!(["https://b1.example.net", "https://b2.example.net"]);

        // Saving the form as it was opened would drop b2: refused, in the
        // body's `version`, in If-Match and through the UI's server function.
        let stale = json!({"name": "Renamed", "beacons": ["https://b1.example.net"], "version": 1});
        let r = put(stale.clone(), None).await;
        assert_eq!(r.status(), 409);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "stale_profile", "{body}");
        assert_eq!(body["field"], "version", "{body}");
        assert!(body["hint"].as_str().is_some_and(|h| !h.is_empty()));
        let r = put(
            json!({"name": "Renamed", "beacons": ["https://b1.example.net"]}),
            Some("\"1\""),
        )
        .await;
        assert_eq!(r.status(), 409);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "stale_profile");
        let r = c
            .post_json("/ui/update_network", json!({"id": id, "input": stale}))
            .await;
        assert_eq!(r.status(), 409);
        // The form is told why by the catalogue's entry, which it says in the reader's language.
        assert_eq!(
            r.json::<Value>().await.unwrap(),
            json!({"Refused": "stale_profile"})
        );
        let now: Value = c.get_json(&path).await;
        assert_eq!(now["beacons"], both, "nothing was lost");
        assert_eq!(now["name"], "Office");
        assert_eq!(now["version"], 2);

        // Based on the current version, the save goes through and says the new one.
        let r = put(
            json!({"name": "Renamed", "beacons": both, "version": 2}),
            None,
        )
        .await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["etag"], "\"3\"");
        assert_eq!(r.json::<Value>().await.unwrap()["version"], 3);
        let r = c.get(&path).await;
        assert_eq!(r.headers()["etag"], "\"3\"");
        let r = put(
            json!({"name": "Renamed again", "beacons": both}),
            Some("\"3\""),
        )
        .await;
        assert_eq!(r.status(), 200);
        let r = c.post_json("/ui/update_network", json!({"id": id, "input": {"name": "From the form", "beacons": both, "version": 4}})).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["version"], 5);

        // Without a version (scripts for the first Control), or with If-Match
        // `*`, the profile is replaced as before.
        let r = put(json!({"name": "Script", "beacons": []}), None).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["version"], 6);
        let r = put(json!({"name": "Script", "beacons": both}), Some("*")).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().await.unwrap()["version"], 7);
        // A stale version on a profile that is gone is still a 404.
        let r = c
            .client
            .put(c.url("/api/v1/networks/kn_0000000000000000000000000000000000000000000000000000"))
            .json(&json!({"name": "Gone", "version": 1}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404);
    }
);

/// A PUT written byte for byte (an HTTP client would refuse or tidy some of
/// these headers); returns the status and the JSON body.
async fn raw_put(
    c: &common::Control,
    cookie: &str,
    path: &str,
    extra: &[u8],
    body: &str,
) -> (u16, Value) {
    let mut request = format!(
        "PUT {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: {base}\r\nCookie: {cookie}\r\n\
         Content-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n",
        addr = c.addr,
        base = c.base,
        len = body.len()
    )
    .into_bytes();
    request.extend_from_slice(extra);
    request.extend_from_slice(b"\r\n");
    request.extend_from_slice(body.as_bytes());
    let answer = common::raw_http(c.addr, &request).await;
    let json = serde_json::from_str(&answer.body)
        .unwrap_or_else(|_| panic!("no JSON body in: {} {}", answer.head, answer.body));
    (answer.status, json)
}

on_both_databases!(
    hostile_versions_are_refused_and_change_nothing,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let (id, _) = new_profile(&c, json!({"name": "Target"})).await;
        let path = format!("/api/v1/networks/{id}");
        let cookie = common::session_cookie(&c).await;
        let body = r#"{"name":"Changed"}"#;
        // If-Match lines that name no single strong version (the profile is at 1).
        let if_match: &[&[u8]] = &[
            b"If-Match: W/\"1\"\r\n",
            b"If-Match: \"1\", \"2\"\r\n",
            b"If-Match: \"1\"\r\nIf-Match: \"1\"\r\n",
            b"If-Match: 1\r\n",
            b"If-Match: \"\"\r\n",
            b"If-Match: \"one\"\r\n",
            b"If-Match: \"-1\"\r\n",
            b"If-Match: \"+1\"\r\n",
            b"If-Match: \"1\r\n",
            b"If-Match: \"99999999999999999999\"\r\n",
            b"If-Match: \"\xef\xbc\x91\"\r\n",
            b"If-Match: \"\xff\"\r\n",
            b"If-Match:\r\n",
        ];
        for extra in if_match {
            let (status, answer) = raw_put(&c, &cookie, &path, extra, body).await;
            let shown = String::from_utf8_lossy(extra);
            assert_eq!(status, 400, "{shown}: {answer}");
            assert_eq!(answer["code"], "invalid_if_match", "{shown}: {answer}");
            assert_eq!(answer["field"], "If-Match", "{shown}");
        }
        // Versions in the body that are not a whole number in range.
        for version in ["\"1\"", "1.5", "1e0", "9223372036854775808", "[1]", "true"] {
            let body = format!(r#"{{"name":"Changed","version":{version}}}"#);
            let (status, answer) = raw_put(&c, &cookie, &path, b"", &body).await;
            assert_eq!(status, 400, "{version}: {answer}");
            assert_eq!(answer["code"], "malformed_json", "{version}: {answer}");
        }
        // Whole numbers the profile never had are simply stale.
        for version in [
            "0",
            "-1",
            "-9223372036854775808",
            "9223372036854775807",
            "2",
        ] {
            let body = format!(r#"{{"name":"Changed","version":{version}}}"#);
            let (status, answer) = raw_put(&c, &cookie, &path, b"", &body).await;
            assert_eq!(status, 409, "{version}: {answer}");
            assert_eq!(answer["code"], "stale_profile", "{version}: {answer}");
        }
        // If-Match and the body must not disagree.
        let (status, answer) = raw_put(
            &c,
            &cookie,
            &path,
            b"If-Match: \"1\"\r\n",
            r#"{"name":"Changed","version":2}"#,
        )
        .await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (400, Some("version_mismatch"))
        );
        let now: Value = c.get_json(&path).await;
        assert_eq!(now["name"], "Target", "no refused request changed anything");
        assert_eq!(now["version"], 1);
        // The same request with the right tag goes through.
        let (status, answer) = raw_put(&c, &cookie, &path, b"If-Match: \"1\"\r\n", body).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["version"], 2);
    }
);

on_both_databases!(
    deployed_beacons_joining_while_beacons_are_added_lose_nothing,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let (id, _) = new_profile(&c, json!({"name": "Edge"})).await;
        // Four Agents each hold a running deployment of a Beacon of the profile.
        let mut held = Vec::new();
        for i in 0..4u8 {
            let a = common::SimAgent::new(&c, 60 + i);
            a.enroll_with_docker().await;
            let job = json!({"agent_id": a.id(), "kind": "deploy_beacon", "payload": {
                "name": format!("edge-{i}"), "network_id": id,
                "beacon_url": format!("https://edge{i}.example.net"),
                "advertise": format!("edge{i}.example.net:7447"), "http_port": 18080}});
            assert_eq!(c.post_json("/api/v1/jobs", job).await.status(), 201);
            let claimed = a.claim().await.unwrap();
            held.push((a, claimed["id"].as_str().unwrap().to_string()));
        }
        // They all succeed while the admin adds eight Beacons by hand.
        let joins = join_all(
            held.iter()
                .map(|(a, job)| a.finish(job, "succeeded", "deployed")),
        );
        let adds = join_all((0..8).map(|i| {
            let (c, id) = (&c, &id);
            async move {
                let r = c
                    .post_json(
                        "/api/v1/beacons",
                        json!({"network_id": id, "url": format!("https://manual{i}.example.net")}),
                    )
                    .await;
                assert_eq!(r.status(), 201);
            }
        }));
        tokio::join!(joins, adds);
        let profile: Value = c.get_json(&format!("/api/v1/networks/{id}")).await;
        let expected: BTreeSet<String> = (0..4)
            .map(|i| format!("https://edge{i}.example.net"))
            .chain((0..8).map(|i| format!("https://manual{i}.example.net")))
            .collect();
        assert_eq!(urls(&profile["beacons"]), expected);
        assert_eq!(profile["version"], 13);
    }
);
