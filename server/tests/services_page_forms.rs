//! The Services screen without WebAssembly for its rows (app::pages::services):
//! Restart, Remove and Back up ask first at an address of their own, and
//! they and Verify are plain forms that queue a job for the service's Agent;
//! the row shows a backup job while it runs and links to it if it failed.
//! Sent raw, as a browser sends them, with hostile fields and from another
//! origin.

mod common;

use common::Control;
use serde_json::json;

/// A signed-in Control whose Agent runs the sidecar `web` with its address.
async fn published(backend: common::Backend, seed: u8) -> (Control, common::SimAgent) {
    let c = common::signed_in(backend).await;
    let (_, agent) = common::published_web(&c, seed).await;
    (c, agent)
}

/// The page a form's answer leads to.
async fn followed(c: &Control, cookie: &str, answer: &common::RawAnswer) -> String {
    common::page_body(c, cookie, &answer.header("location")[0]).await
}

on_both_databases!(
    a_services_actions_are_plain_forms_and_ask_first,
    |backend| async move {
        let (c, agent) = published(backend, 81).await;
        let id = agent.id();
        let cookie = common::session_cookie(&c).await;
        let key = format!("{id}%2Fsidecar-web");

        // Drawn whole by the server: the row's actions are links that ask
        // first, and nothing is asked yet. No backup yet: nothing to verify.
        let page = common::get_page(c.addr, &cookie, "/services").await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("id=\"services-live\""));
        for what in ["restart", "remove", "backup"] {
            assert!(
                page.body
                    .contains(&format!("href=\"/services?{what}={key}#service-question\"")),
                "{what}: {}",
                page.body
            );
        }
        // Control deployed it: Change opens its form, filled from its spec.
        assert!(page.body.contains(&format!("?edit={key}")), "{}", page.body);
        assert!(!page.body.contains("id=\"service-question\""));
        assert!(!page.body.contains("/ui/service_action"), "no Verify yet");
        assert!(
            page.body.contains("id=\"open-publish\""),
            "the publish form's button"
        );

        // Each question is a confirmation drawn by the server, whose button
        // is a plain form; a backup asks how many to keep and how often.
        for (what, confirm) in [
            ("restart", "confirm-restart-service"),
            ("remove", "confirm-remove-service"),
        ] {
            let asked = common::page_body(&c, &cookie, &format!("/services?{what}={key}")).await;
            assert!(
                common::offers_form(
                    &asked,
                    "/ui/service_action",
                    &[
                        ("agent_id", &id),
                        ("component_id", "sidecar-web"),
                        ("action", what)
                    ]
                ) && asked.contains(&format!("id=\"{confirm}\"")),
                "{what}: {asked}"
            );
        }
        let asked = common::page_body(&c, &cookie, &format!("/services?backup={key}")).await;
        assert!(
            common::offers_form(
                &asked,
                "/ui/back_up_service",
                &[("agent_id", &id), ("component_id", "sidecar-web")]
            ) && asked.contains("id=\"backup-keep\"")
                && asked.contains("value=\"7\"")
                && asked.contains("id=\"confirm-backup\""),
            "{asked}"
        );
        // A question the address makes up asks nothing, and is not echoed.
        let made_up = [
            "restart=nope%2Fsidecar-web".to_string(),
            format!("remove={id}%2Fsidecar-none"),
            "backup=%3Cscript%3Ealert(1)%3C%2Fscript%3E".to_string(),
            "remove=".to_string(),
            format!("edit={}", "a".repeat(5000)),
        ];
        common::asks_nothing(&c, &cookie, "/services", &made_up, &["service-question"]).await;

        // Hostile bodies, sent raw: the page says why (only ever a sentence
        // of ours), and nothing is queued.
        let act = "/ui/service_action";
        let from = format!("{}/services?restart={key}", c.base);
        let hostile = [
            String::new(),
            format!("agent_id={id}&component_id=sidecar-web"),
            format!("agent_id={id}&component_id=sidecar-web&action=explode"),
            format!("agent_id={id}&component_id=%3Cscript%3E&action=restart"),
            "agent_id=nope&component_id=sidecar-web&action=restart".to_string(),
            format!("agent_id={id}&component_id=..%2F..%2Fetc&action=remove"),
            format!(
                "agent_id={}&component_id=sidecar-web&action=restart",
                "a".repeat(5000)
            ),
        ];
        common::each_refused(&c, &cookie, (act, &from), &hostile, "services-error").await;
        let backup = "/ui/back_up_service";
        let from_backup = format!("{}/services?backup={key}", c.base);
        let hostile = [
            format!("agent_id={id}&component_id=sidecar-web&keep=0&every=day"),
            format!("agent_id={id}&component_id=sidecar-web&keep=101&every=day"),
            format!("agent_id={id}&component_id=sidecar-web&keep=%3Cscript%3E&every=day"),
            format!("agent_id={id}&component_id=sidecar-web&keep=3&every=hourly"),
            format!("agent_id={id}&component_id=beacon-edge&keep=3&every=day"),
            format!("agent_id={id}&component_id=sidecar-web"),
        ];
        common::each_refused(
            &c,
            &cookie,
            (backup, &from_backup),
            &hostile,
            "services-error",
        )
        .await;
        let restart = format!("agent_id={id}&component_id=sidecar-web&action=restart");
        assert_eq!(
            common::from_another_site(&c, &cookie, act, &restart).await,
            403
        );
        assert!(agent.claim().await.is_none(), "nothing was queued");

        // A backup: back to the list, where the row says it is queued; the
        // Agent gets the plan asked for.
        let r = common::post_from_page(
            &c,
            &cookie,
            backup,
            &from_backup,
            &format!("agent_id={id}&component_id=sidecar-web&keep=3&every=week"),
        )
        .await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(
            r.header("location"),
            vec!["/services#services-live".to_string()]
        );
        let page = followed(&c, &cookie, &r).await;
        assert!(page.contains("class=\"muted backup-queued\""), "{page}");
        assert!(!page.contains("id=\"service-question\""));
        let job = agent.next_job().await;
        assert_eq!(job["kind"], "backup_volume");
        assert_eq!(
            job["payload"],
            json!({"component_id": "sidecar-web", "keep": 3, "every": "week"})
        );
        // It failed: the row links to the job instead.
        let job_id = job["id"].as_str().unwrap();
        agent
            .finish(job_id, "failed", "docker: no space left on device")
            .await;
        let page = common::page_body(&c, &cookie, "/services").await;
        assert!(
            page.contains("backup-job-failed")
                && page.contains(&format!("href=\"/jobs/{job_id}\"")),
            "{page}"
        );
        assert!(!page.contains("class=\"muted backup-queued\""));

        // Restart, after its confirmation.
        let r = common::post_from_page(&c, &cookie, act, &from, &restart).await;
        assert_eq!(r.status, 302, "{}", r.head);
        let job = agent.next_job().await;
        assert_eq!(job["kind"], "restart_component");
        assert_eq!(job["payload"]["component_id"], "sidecar-web");
    }
);

on_both_databases!(
    a_viewer_sees_the_services_without_their_actions,
    |backend| async move {
        let (c, agent) = published(backend, 82).await;
        let key = format!("{}%2Fsidecar-web", agent.id());
        let viewer = common::people::join(&c, "viewer", "vera").await;
        for query in [
            String::new(),
            format!("?remove={key}"),
            format!("?edit={key}"),
        ] {
            let html = common::people::page_as(&viewer, &c, &format!("/services{query}")).await;
            assert!(html.contains("class=\"service-row\""), "{html}");
            assert!(
                !html.contains("id=\"service-question\"")
                    && !html.contains("/ui/service_action")
                    && !html.contains("?restart=")
                    && !html.contains("id=\"open-publish\""),
                "{query}: {html}"
            );
        }
    }
);
