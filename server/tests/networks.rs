//! Network profiles through the JSON API: the rules a script or the UI meets.

mod common;

use serde_json::{json, Value};

on_both_databases!(
    a_profile_is_created_with_a_generated_id_read_edited_and_deleted,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .create_network(
                json!({"name": "  Office  ", "beacons": ["https://Beacon.Example.net/"]}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let created: Value = r.json().await.unwrap();
        let id = created["id"].as_str().unwrap().to_string();
        assert!(id.starts_with("kn_") && id.len() == 55, "{id}");
        assert_eq!(created["name"], "Office");
        assert_eq!(created["beacons"], json!(["https://beacon.example.net"]));

        let got: Value = c.get_json(&format!("/api/v1/networks/{id}")).await;
        assert_eq!(got, created);

        let r = c
            .client
            .put(c.url(&format!("/api/v1/networks/{id}")))
            .json(&json!({"name": "Head office", "description": "HQ", "beacons": []}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let updated: Value = r.json().await.unwrap();
        assert_eq!(updated["name"], "Head office");
        assert_eq!(updated["beacons"], json!([]));
        assert_eq!(updated["id"], id.as_str());

        let list: Value = c.get_json("/api/v1/networks").await;
        assert_eq!(list.as_array().unwrap().len(), 1);
        assert_eq!(list[0]["name"], "Head office");

        assert_eq!(
            c.delete(&format!("/api/v1/networks/{id}")).await.status(),
            204
        );
        let gone = c.get(&format!("/api/v1/networks/{id}")).await;
        assert_eq!(gone.status(), 404);
        assert_eq!(gone.json::<Value>().await.unwrap()["code"], "not_found");
        assert_eq!(
            c.delete(&format!("/api/v1/networks/{id}")).await.status(),
            404
        );
    }
);

on_both_databases!(
    a_beacon_on_the_relay_port_is_refused_naming_the_field_and_why,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .create_network(json!({"name": "Lab", "beacons": ["http://beacon.example.net:7447"]}))
            .await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["field"], "beacons");
        assert_eq!(body["code"], "beacon_relay_port");
        assert!(
            body["error"].as_str().unwrap().contains("relay transport"),
            "{body}"
        );
        assert!(body["hint"].as_str().unwrap().contains("7447"), "{body}");
        // Nothing was stored.
        let list: Value = c.get_json("/api/v1/networks").await;
        assert_eq!(list, json!([]));
    }
);

on_both_databases!(
    a_pasted_network_id_is_normalised_unique_and_immutable,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = protocol::NetworkId::from_random_bytes([42; 32]).to_string();
        let r = c
            .create_network(json!({"id": format!(" {} ", id.to_uppercase()), "name": "Existing"}))
            .await;
        assert_eq!(r.status(), 201);
        assert_eq!(r.json::<Value>().await.unwrap()["id"], id.as_str());

        let dup = c.create_network(json!({"id": id, "name": "Again"})).await;
        assert_eq!(dup.status(), 409);
        let body: Value = dup.json().await.unwrap();
        assert_eq!(
            (body["field"].as_str(), body["code"].as_str()),
            (Some("id"), Some("network_id_taken"))
        );

        let bad = c
            .create_network(json!({"id": "kn_short", "name": "Bad"}))
            .await;
        assert_eq!(bad.status(), 400);
        assert_eq!(bad.json::<Value>().await.unwrap()["field"], "id");

        let other = protocol::NetworkId::from_random_bytes([7; 32]).to_string();
        let r = c
            .client
            .put(c.url(&format!("/api/v1/networks/{id}")))
            .json(&json!({"id": other, "name": "Moved"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        assert_eq!(
            r.json::<Value>().await.unwrap()["code"],
            "network_id_immutable"
        );
    }
);

on_both_databases!(names_are_required_and_bounded, |backend| async move {
    let c = common::signed_in(backend).await;
    let r = c.create_network(json!({"name": "   "})).await;
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        (body["field"].as_str(), body["code"].as_str()),
        (Some("name"), Some("required"))
    );
    let r = c.create_network(json!({"name": "я".repeat(81)})).await;
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "too_long");
});

on_both_databases!(
    the_list_pages_in_name_order_without_gaps_or_repeats,
    |backend| async move {
        let c = common::signed_in(backend).await;
        for i in 0..23 {
            // Names are unique (without regard to case), so the order is
            // the names'; the ID only keeps the cursor exact.
            assert_eq!(
                c.create_network(json!({"name": format!("net-{i:02}")}))
                    .await
                    .status(),
                201
            );
        }
        let mut seen = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let mut url = c.url("/api/v1/networks?limit=5");
            if let Some(a) = &after {
                url.push_str(&format!("&after={a}"));
            }
            let r = c.client.get(url).send().await.unwrap();
            let next = r
                .headers()
                .get("x-next-cursor")
                .map(|v| v.to_str().unwrap().to_string());
            let page: Vec<Value> = r.json().await.unwrap();
            assert!(page.len() <= 5);
            seen.extend(page.into_iter().map(|n| {
                (
                    n["name"].as_str().unwrap().to_string(),
                    n["id"].as_str().unwrap().to_string(),
                )
            }));
            match next {
                Some(n) => after = Some(n),
                None => break,
            }
        }
        assert_eq!(seen.len(), 23);
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            seen, sorted,
            "pages are in (name, id) order with no repeats"
        );
    }
);

on_both_databases!(
    malformed_requests_get_the_json_error_shape_too,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c.get("/api/v1/networks?limit=abc").await;
        assert_eq!(r.status(), 400);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "invalid_query");
        let r = c.get("/api/v1/networks?after=kn_gone").await;
        assert_eq!(r.status(), 400);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            (body["code"].as_str(), body["field"].as_str()),
            (Some("invalid_cursor"), Some("after"))
        );
        let r = c
            .client
            .patch(c.url("/api/v1/networks"))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 405);
        assert_eq!(
            r.json::<Value>().await.unwrap()["code"],
            "method_not_allowed"
        );
        let r = c.get("/api/v1/nothing-here").await;
        assert_eq!(r.status(), 404);
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "not_found");
    }
);
