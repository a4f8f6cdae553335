//! The API tokens tab, the Beacons tab and the operations policy without
//! WebAssembly: an API token's Revoke asks first on a page of its own
//! address and is a plain form; a Beacon's Check is a plain form whose
//! answer is the page with the result; the policy's form is a plain form
//! (app::pages::plain_action). Sent raw, as a browser sends them, with
//! hostile fields and from another origin.

mod common;

use serde_json::{json, Value};

on_both_databases!(
    api_tokens_revoke_asks_first_and_works_as_a_plain_form,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let cookie = common::session_cookie(&c).await;
        let created: Value = c
            .post_json(
                "/api/v1/tokens",
                json!({"name": "nightly", "scope": "read"}),
            )
            .await
            .json()
            .await
            .unwrap();
        let secret = created["token"].as_str().unwrap().to_string();
        let list: Value = c.get_json("/api/v1/tokens").await;
        let id = list[0]["id"].as_str().unwrap().to_string();
        let use_it = || {
            reqwest::Client::new()
                .get(c.url("/api/v1/networks"))
                .bearer_auth(&secret)
                .send()
        };
        assert_eq!(use_it().await.unwrap().status(), 200);

        // Revoke is a link to the question, drawn by the server; the form
        // that creates a token is behind its button.
        let page = common::get_page(c.addr, &cookie, "/settings/tokens").await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("id=\"open-new-token\""));
        let ask = format!("/settings/tokens?revoke={id}");
        assert!(
            page.body
                .contains(&format!("href=\"{ask}#confirm-revoke\""))
                && !page.body.contains("id=\"confirm-revoke\""),
            "{}",
            page.body
        );
        let confirm = common::get_page(c.addr, &cookie, &ask).await;
        assert!(
            confirm.body.contains("id=\"confirm-revoke\"")
                && common::offers_form(&confirm.body, "/ui/revoke_api_token", &[("id", &id)]),
            "{}",
            confirm.body
        );
        assert_eq!(
            use_it().await.unwrap().status(),
            200,
            "asking revokes nothing"
        );
        // The address may name anything: only a listed token is asked about.
        let long = "x".repeat(5000);
        for hostile in [
            "tok_AAAAAAAAAAAAAAAA",
            "%3Cscript%3E",
            "",
            "..%2F",
            long.as_str(),
        ] {
            let page = common::get_page(
                c.addr,
                &cookie,
                &format!("/settings/tokens?revoke={hostile}"),
            )
            .await;
            assert_eq!(page.status, 200, "{hostile:.20}");
            assert!(
                !page.body.contains("id=\"confirm-revoke\""),
                "{hostile:.20}"
            );
            assert!(!page.body.contains("<script>"), "{hostile:.20}");
        }

        // Hostile IDs posted: a refusal back on the page, never a 500.
        let referer = format!("{}{ask}", c.base);
        let revoke = ("/ui/revoke_api_token", referer.as_str());
        for body in [
            "",
            "id=",
            "id=%00",
            "id=tok_nope",
            "id=%3Cscript%3E",
            "id=a&id=b",
        ] {
            let said = common::refusal_said(&c, &cookie, revoke, body, "tokens-action-error").await;
            assert!(!said.is_empty(), "{body}");
        }
        assert_eq!(use_it().await.unwrap().status(), 200);

        // From another site: refused, not carried out.
        let status = common::from_another_site(&c, &cookie, revoke.0, &format!("id={id}")).await;
        assert_eq!(status, 403);
        assert_eq!(use_it().await.unwrap().status(), 200);

        // The question's form: back to the tab, without the question.
        let r = common::post_form(
            c.addr,
            &c.base,
            &cookie,
            "/ui/revoke_api_token",
            &referer,
            &format!("id={id}"),
        )
        .await;
        assert_eq!(
            (r.status, r.header("location")),
            (302, vec!["/settings/tokens#api-tokens".to_string()])
        );
        assert_eq!(use_it().await.unwrap().status(), 401);
        let back = common::get_page(c.addr, &cookie, &ask).await;
        assert!(
            !back.body.contains("id=\"confirm-revoke\"") && back.body.contains("badge bad"),
            "{}",
            back.body
        );
        // A token that is not hers: refused, and said above the list.
        let not_hers = "id=tok_AAAAAAAAAAAAAAAA";
        assert_eq!(
            common::refusal_said(&c, &cookie, revoke, not_hers, "tokens-action-error").await,
            "No API token has this ID."
        );

        // A viewer has no tokens: the tab says so, with no form to fill in.
        let viewer = common::people::join(&c, "viewer", "vera").await;
        let html = viewer
            .get(c.url("/settings/tokens"))
            .header("accept", "text/html")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            html.contains("id=\"tokens-not-for-role\"") && !html.contains("id=\"open-new-token\""),
            "{html}"
        );
    }
);

on_both_databases!(
    a_beacons_check_is_a_plain_form_whose_answer_shows_the_result,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let healthy = test_kit::http_beacon(200, "ok").await;
        let r = c
            .create_network(json!({"name": "Office", "beacons": [healthy.clone()]}))
            .await;
        assert_eq!(r.status(), 201);
        let network: Value = r.json().await.unwrap();
        let network_id = network["id"].as_str().unwrap().to_string();
        let cookie = common::session_cookie(&c).await;
        let page_url = format!("{}/infrastructure/beacons", c.base);

        // Each row's Check is a form that names the profile and the URL.
        let page = common::get_page(c.addr, &cookie, "/infrastructure/beacons").await;
        assert_eq!(page.status, 200);
        assert!(
            common::offers_form(
                &page.body,
                "/ui/check_beacon",
                &[("network_id", &network_id), ("url", &healthy)]
            ),
            "{}",
            page.body
        );
        assert!(page.body.contains("not checked yet"), "{}", page.body);

        // Sent: back to the page, which shows the stored result.
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("network_id", &network_id)
            .append_pair("url", &healthy)
            .finish();
        let r = common::post_form(
            c.addr,
            &c.base,
            &cookie,
            "/ui/check_beacon",
            &page_url,
            &body,
        )
        .await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert!(!r.header("location")[0].contains("__err"), "{}", r.head);
        let page = common::get_page(c.addr, &cookie, "/infrastructure/beacons").await;
        assert!(
            page.body.contains("data-class=\"ok\"") && !page.body.contains("not checked yet"),
            "{}",
            page.body
        );

        // Hostile fields: a refusal back on the page, never a 500, nothing checked.
        let checks_before: Value = c.get_json("/api/v1/beacons").await;
        let hostile = [
            String::new(),
            "network_id=".into(),
            "url=http%3A%2F%2F127.0.0.1%3A9".into(),
            format!("network_id={network_id}&url="),
            format!("network_id={network_id}&url=%00"),
            format!("network_id={network_id}&url=http%3A%2F%2Fnot-listed.example"),
            "network_id=%3Cscript%3E&url=http%3A%2F%2F127.0.0.1%3A9".into(),
            format!("network_id={}&url=x", "n".repeat(5000)),
        ];
        for body in &hostile {
            let check = ("/ui/check_beacon", page_url.as_str());
            let said = common::refusal_said(&c, &cookie, check, body, "beacons-action-error").await;
            assert!(
                !said.is_empty(),
                "{body:.60}: the refusal is said on the page"
            );
        }
        let checks_after: Value = c.get_json("/api/v1/beacons").await;
        assert_eq!(
            checks_before[0]["last_check"]["checked_at"],
            checks_after[0]["last_check"]["checked_at"]
        );

        // From another site: refused by the same-origin check.
        let status = common::from_another_site(&c, &cookie, "/ui/check_beacon", &body).await;
        assert_eq!(status, 403);
    }
);

on_both_databases!(
    the_policy_is_saved_by_a_plain_form_and_refusals_are_said_at_their_field,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let cookie = common::session_cookie(&c).await;
        let page_url = format!("{}/policy", c.base);
        let page = common::get_page(c.addr, &cookie, "/policy").await;
        assert_eq!(page.status, 200);
        assert!(
            page.body.contains("action=\"/ui/save_policy\""),
            "{}",
            page.body
        );

        // "Start from the template" asked by the address fills the empty parts.
        let template = common::get_page(c.addr, &cookie, "/policy?template=1").await;
        assert!(template.body.contains("7447"), "{}", template.body);

        // Saved: back to the page, which says so and shows the text.
        // Leptos writes a textarea's text unescaped: the page escapes it.
        let body = "relays=Two+relays%2C+%3C%2Ftextarea%3E%3Cb%3Eeast%3C%2Fb%3E&revocation=";
        let r =
            common::post_form(c.addr, &c.base, &cookie, "/ui/save_policy", &page_url, body).await;
        assert_eq!(r.status, 302, "{}", r.head);
        let location = r.header("location")[0].clone();
        assert_eq!(location, "/policy?saved=1#policy-form");
        let page = common::get_page(c.addr, &cookie, "/policy?saved=1").await;
        assert!(
            page.body.contains("Saved.")
                && page
                    .body
                    .contains("Two relays, &lt;/textarea&gt;&lt;b&gt;east&lt;/b&gt;")
                && !page.body.contains("<b>east"),
            "{}",
            page.body
        );
        let policy: Value = c.get_json("/api/v1/policy?lang=en").await;
        assert_eq!(
            policy["written"]["relays"],
            "Two relays, </textarea><b>east</b>"
        );

        // Refused at its field: too long (past the textarea's limit, sent
        // raw), control characters; a missing field is refused as a whole.
        let save = ("/ui/save_policy", page_url.as_str());
        let long = format!("relays={}&revocation=", "a".repeat(4001));
        let said = common::refusal_said(&c, &cookie, save, &long, "policy-relays-error").await;
        assert!(said.contains("4000"), "{said}");
        let control = "relays=&revocation=a%07b";
        let said =
            common::refusal_said(&c, &cookie, save, control, "policy-revocation-error").await;
        assert!(!said.is_empty());
        for body in ["", "relays=x", "revocation=%00"] {
            let r = common::post_form(c.addr, &c.base, &cookie, "/ui/save_policy", &page_url, body)
                .await;
            assert_eq!(r.status, 302, "{body}: {}", r.head);
            assert!(r.header("location")[0].contains("__err="), "{body}");
        }
        let policy: Value = c.get_json("/api/v1/policy?lang=en").await;
        assert_eq!(
            policy["written"]["relays"], "Two relays, </textarea><b>east</b>",
            "unchanged"
        );

        // From another site: refused by the same-origin check.
        let status =
            common::from_another_site(&c, &cookie, "/ui/save_policy", "relays=x&revocation=y")
                .await;
        assert_eq!(status, 403);
    }
);
