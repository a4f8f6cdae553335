//! Server-rendered pages and server functions: what a browser receives before
//! any WebAssembly runs.

mod common;

use serde_json::{json, Value};

on_both_databases!(
    pages_redirect_to_sign_in_without_a_session,
    |backend| async move {
        let c = common::start(backend).await;
        let r = c.get("/networks").await;
        assert!(r.status().is_redirection());
        assert_eq!(r.headers()["location"], "/login?next=%2Fnetworks");
        let r = c.get("/login").await;
        assert_eq!(r.status(), 200);
        // Server functions other than sign-in answer 401 in their own error format.
        let r = c
            .client
            .post(c.url("/ui/overview"))
            .form(&[("x", "")])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        assert_eq!(r.text().await.unwrap(), "\"Unauthenticated\"");
    }
);

on_both_databases!(
    every_page_carries_a_nonce_csp_that_matches_its_inline_script,
    |backend| async move {
        let site = tempfile::tempdir().unwrap();
        std::fs::create_dir(site.path().join("pkg")).unwrap();
        std::fs::write(site.path().join("pkg/knotroute.js"), "export {};").unwrap();
        let options = common::Options {
            site_root: Some(site.path().to_path_buf()),
            ..Default::default()
        };
        let c = common::start_with(backend, options).await;
        let r = c.get("/login").await;
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(r.headers()["x-content-type-options"], "nosniff");
        assert_eq!(r.headers()["x-frame-options"], "DENY");
        let nonce = csp
            .split("'nonce-")
            .nth(1)
            .and_then(|s| s.split('\'').next())
            .expect("nonce in CSP")
            .to_string();
        assert_eq!(
            r.headers()["cache-control"],
            "no-store",
            "pages are never cached"
        );
        let html = r.text().await.unwrap();
        assert!(
            html.contains(&format!("nonce=\"{nonce}\"")),
            "the hydration script carries the response's nonce"
        );
        assert!(!csp.contains("unsafe-inline"));
        // An unhashed build's file may be kept but is revalidated (tests/assets.rs: hashed ones).
        let asset = c.get("/pkg/knotroute.js").await;
        assert_eq!(asset.status(), 200);
        assert_eq!(asset.headers()["cache-control"], "no-cache");
        // A file that is not there is no asset: nothing of it may be kept.
        let missing = c.get("/pkg/missing.js").await;
        assert_eq!(missing.status(), 404);
        assert_eq!(missing.headers()["cache-control"], "no-store");
        // A new response gets a new nonce.
        let again = c.get("/login").await;
        assert!(!again.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains(&nonce));
    }
);

on_both_databases!(
    the_language_follows_the_browser_until_the_admin_picks_one,
    |backend| async move {
        let c = common::start(backend).await;
        let html = c.page_in("/login", "ru-RU,ru;q=0.9,en;q=0.5").await;
        assert!(
            html.contains("<html lang=\"ru\""),
            "Russian for a browser that prefers it"
        );
        assert!(html.contains("Войти"));
        let r = c.get("/lang/en?next=/login").await;
        assert_eq!(r.headers()["location"], "/login");
        assert!(r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .starts_with("kr_lang=en"));
        let html = c.page_in("/login", "ru").await;
        assert!(
            html.contains("<html lang=\"en\""),
            "the remembered choice wins"
        );
        assert!(html.contains("Sign in"));
        // An off-site `next` is not followed.
        let r = c.get("/lang/ru?next=//evil.example").await;
        assert_eq!(r.headers()["location"], "/");
    }
);

on_both_databases!(
    the_overview_counts_what_is_in_the_database,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let counts = |c: &common::Control| {
            let req = c.client.post(c.url("/ui/overview")).form(&[("", "")]);
            async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
        };
        let zero = counts(&c).await;
        assert_eq!(zero["networks"], 0);
        assert_eq!(zero["agents_total"], 0);
        c.create_network(json!({"name": "A", "beacons": ["https://a.example"]}))
            .await;
        c.create_network(json!({"name": "B"})).await;
        let two = counts(&c).await;
        assert_eq!(two["networks"], 2);
        assert_eq!(two["networks_without_beacon"], 1);
    }
);

on_both_databases!(
    the_networks_page_is_rendered_on_the_server_with_the_profiles,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let created: Value = c
            .create_network(json!({"name": "Rendered-Profile"}))
            .await
            .json()
            .await
            .unwrap();
        let r = c
            .client
            .get(c.url("/networks"))
            .header("accept-language", "en")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let html = r.text().await.unwrap();
        assert!(html.contains("Rendered-Profile"));
        assert!(html.contains(created["id"].as_str().unwrap()));
        assert!(
            html.contains("no Beacon"),
            "a profile without Beacon is flagged"
        );
        let r = c.get("/networks/kn_unknown").await;
        assert_eq!(
            r.status(),
            404,
            "an unknown profile is a 404 page that says so"
        );
        assert!(r.text().await.unwrap().contains("Not found"));
    }
);

on_both_databases!(
    a_networks_form_starts_from_what_the_server_drew_on_it_escaped,
    |backend| async move {
        // The form's island reads its start back from the form's `data-`
        // attributes and its text boxes' `data-value` (no JSON props; the
        // early script also fills the boxes from it before hydration): what
        // an admin wrote is there whole, and escaped, so that it neither
        // breaks out of the attribute nor loses a line.
        let c = common::signed_in(backend).await;
        let hostile = "\"><script>alert(1)</script> & 'co'";
        let created: Value = c
            .create_network(json!({
                "name": "Drawn",
                "description": hostile,
                "beacons": ["https://a.example.net", "https://b.example.net"],
            }))
            .await
            .json()
            .await
            .unwrap();
        let id = created["id"].as_str().unwrap();
        let html = c.page_in(&format!("/networks/{id}"), "en").await;
        // The form's opening tag (up to its first field).
        let form_tag = |html: &str| {
            html.split("<form")
                .find(|f| f.contains("id=\"network-form\""))
                .and_then(|f| f.split("<fieldset").next())
                .expect("the network form")
                .to_string()
        };
        let form = form_tag(&html);
        assert!(!html.contains("<script>alert(1)"), "{form}");
        assert!(form.contains(&format!("data-id=\"{id}\"")), "{form}");
        assert!(form.contains("data-name=\"Drawn\""), "{form}");
        assert_eq!(
            start_drawn(&html, "network-beacons", "data-value").as_deref(),
            Some("https://a.example.net\nhttps://b.example.net"),
            "one Beacon per line, on its box"
        );
        assert!(
            form.contains(&format!("data-version=\"{}\"", created["version"])),
            "{form}"
        );
        assert_eq!(
            start_drawn(&html, "network-description", "data-value").as_deref(),
            Some(hostile),
            "the description whole, on its box"
        );
        let new_form = form_tag(&c.page_in("/networks/new", "en").await);
        assert!(
            !new_form.contains("data-version"),
            "a new network's form has no version: {new_form}"
        );
    }
);

on_both_databases!(
    islands_start_from_what_the_server_drew_around_them_escaped,
    |backend| async move {
        // Islands without props read their start back from attributes the
        // server drew (app/src/islands.rs): a profile's name in People's
        // network choices (JSON), the profile a new invite starts with, the
        // Agent Move moves, no service to change, the policy template. Each
        // is there whole and escaped, hostile text included, and reads back
        // as what was saved.
        let c = common::signed_in(backend).await;
        let hostile = "\"><script>alert(1)</script> & 'co' </div>";
        let created = c
            .created_network(json!({"name": hostile, "beacons": ["https://a.example.net"]}))
            .await;
        let id = created.as_str();
        let people = c.page_in("/settings/people", "en").await;
        assert!(!people.contains("<script>alert(1)"), "{people}");
        let drawn = start_drawn(&people, "invite-person-start", "data-start")
            .expect("People draws its network choices around Invite a person");
        let choices: Vec<(String, String)> = serde_json::from_str(&drawn).unwrap();
        assert_eq!(choices, vec![(id.to_string(), hostile.to_string())]);

        let onboarding = c.page_in(&format!("/onboarding?network={id}"), "en").await;
        assert_eq!(
            start_drawn(&onboarding, "new-invite-start", "data-network").as_deref(),
            Some(id),
            "a new invite starts with the guide's profile"
        );
        let raw = c
            .page_in(
                "/onboarding?network=%22%3E%3Cscript%3Ealert(1)%3C/script%3E",
                "en",
            )
            .await;
        assert!(!raw.contains("<script>alert(1)"), "{raw}");

        let agent = common::SimAgent::on_host(&c, 72, "edge-host", json!([])).await;
        let agent_page = c
            .page_in(&format!("/infrastructure/agents/{}", agent.id()), "en")
            .await;
        assert_eq!(
            start_drawn(&agent_page, "move-agent-start", "data-agent"),
            Some(agent.id()),
            "Move starts from the Agent it moves"
        );
        let services = c.page_in("/services", "en").await;
        assert!(services.contains(" id=\"publish-start\""), "{services}");
        assert_eq!(
            start_drawn(&services, "publish-start", "data-start"),
            None,
            "without ?edit=, the publish form starts empty"
        );

        let policy = c.page_in("/policy", "en").await;
        for (part, quoted) in [
            ("data-relays", "https://"),
            ("data-revocation", "\"Agent lifecycle\""),
        ] {
            let template = start_drawn(&policy, "policy-template", part).unwrap_or_default();
            assert!(
                template.lines().count() == 5 && template.contains(quoted),
                "the template's {part} is drawn whole: {template:?}"
            );
        }
    }
);

/// The attribute `name` of the element whose ID is `id`, as a browser reads
/// it. The server escapes `"` and `<` in attribute values, so the value ends
/// at the next `"` and the tag before the next `<`.
fn start_drawn(html: &str, id: &str, name: &str) -> Option<String> {
    let at = html.find(&format!(" id=\"{id}\""))?;
    let tag = &html[html[..at].rfind('<')?..];
    let tag = &tag[..tag[1..].find('<')? + 1];
    let value = tag
        .split(&format!(" {name}=\""))
        .nth(1)?
        .split('"')
        .next()?;
    Some(
        value
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#39;", "'")
            .replace("&#x27;", "'")
            .replace("&amp;", "&"),
    )
}

on_both_databases!(
    pages_answer_while_another_server_in_the_process_is_built,
    |backend| async move {
        // Tests build a server per test, on parallel threads of one process.
        // Generating the app's routes once stopped every resource first read
        // meanwhile from ever loading (leptos#4773): a page built then never
        // answered. The routes are generated once per process now.
        let c = common::signed_in(backend).await;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let building = {
            let (state, stop) = (c.state.clone(), stop.clone());
            tokio::task::spawn_blocking(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    drop(server::http::router(state.clone()));
                }
            })
        };
        for n in 0..200 {
            let page = async {
                let r = c.get("/networks").await;
                assert_eq!(r.status(), 200);
                r.text().await.unwrap()
            };
            let html = tokio::time::timeout(std::time::Duration::from_secs(10), page)
                .await
                .unwrap_or_else(|_| panic!("page {n} never answered"));
            // The list was read: the empty list's words, not the placeholder.
            assert!(html.contains("id=\"networks-empty\""), "page {n}");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        building.await.unwrap();
    }
);

on_both_databases!(
    server_function_refusals_name_the_field,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let r = c
            .post_json(
                "/ui/create_network",
                json!({"input": {"name": "Lab", "beacons": ["http://beacon.example.net:7447"]}}),
            )
            .await;
        assert_eq!(r.status(), 400, "a refusal, not a server fault");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["Invalid"][0]["field"], "beacons");
        assert_eq!(body["Invalid"][0]["problem"], "beacon_relay_port");
    }
);

on_both_databases!(
    a_sign_in_posted_before_hydration_still_signs_in_without_leaking_the_password,
    |backend| async move {
        let c = common::start(backend).await;
        let r = c
            .client
            .post(c.url("/ui/sign_in"))
            .header("accept", "text/html")
            .header("referer", c.url("/login"))
            .form(&[("password", common::PASSWORD)])
            .send()
            .await
            .unwrap();
        assert!(r.status().is_redirection(), "{}", r.status());
        assert!(r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .starts_with("kr_session="));
        let status: Value = c.get_json("/api/v1/session").await;
        assert_eq!(status["authenticated"], true);
        // The sign-in page itself posts there rather than submitting a GET with the password.
        let html = reqwest::get(c.url("/login"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(html.contains(r#"method="post""#) && html.contains(r#"action="/ui/sign_in""#));
    }
);

on_both_databases!(
    screens_with_live_regions_are_rendered_whole_before_they_are_sent,
    |backend| async move {
        // The page's early script draws a live region again from the page's
        // HTML as fetched (app::live_region): a page streamed in parts would
        // hold only the region's "Loading…" placeholder there, and the
        // region would be drawn as that. So these routes render whole.
        let c = common::signed_in(backend).await;
        let network: Value = c
            .create_network(json!({"name": "Regions"}))
            .await
            .json()
            .await
            .unwrap();
        let setup = format!("/networks/{}/setup", network["id"].as_str().unwrap());
        let agent = common::SimAgent::with_docker(&c, 61).await;
        let job = c
            .queued_job(json!({"agent_id": agent.id(), "kind": "restart_component",
                "payload": {"component_id": "sidecar-web"}}))
            .await;
        let job = format!("/jobs/{}", job["id"].as_str().unwrap());
        let agent_page = format!("/infrastructure/agents/{}", agent.id());
        for (path, region) in [
            ("/", "overview-live"),
            ("/jobs", "jobs-live"),
            ("/infrastructure", "agents-live"),
            ("/infrastructure", "agent-tokens-live"),
            ("/settings/tokens", "api-tokens-live"),
            ("/infrastructure/beacons", "beacons-live"),
            (setup.as_str(), "setup-live"),
            (setup.as_str(), "probe-live"),
            (job.as_str(), "job-live"),
            (agent_page.as_str(), "agent-live"),
            ("/services", "services-live"),
            ("/onboarding", "invites-live"),
        ] {
            let html = c.page_in(path, "en").await;
            let start = html
                .find(&format!("id=\"{region}\""))
                .unwrap_or_else(|| panic!("{path}: no {region}"));
            assert!(
                !html[start..].contains("Loading…"),
                "{path}: {region} holds a placeholder"
            );
        }
    }
);
