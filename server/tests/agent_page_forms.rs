//! An Agent's page without WebAssembly for its lifecycle actions
//! (app::pages::agent): Disable, Revoke, Delete and removing an unmanaged
//! leftover ask first at an address of their own, and they and Enable are
//! plain forms; a refusal is said on the page, never as raw text. Sent raw,
//! as a browser sends them, with hostile fields and from another origin.

mod common;

use common::{Control, RawAnswer};
use serde_json::json;

/// The text of the Agent's status badge.
fn status_of(html: &str) -> String {
    let at = html.find("id=\"agent-status\"").expect("the status badge");
    let open = at + html[at..].find('>').unwrap() + 1;
    html[open..open + html[open..].find('<').unwrap()].to_string()
}

/// The page a form's answer leads to.
async fn followed(c: &Control, cookie: &str, answer: &RawAnswer) -> String {
    common::page_body(c, cookie, &answer.header("location")[0]).await
}

on_both_databases!(
    an_agents_actions_are_plain_forms_and_the_destructive_ones_ask_first,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let agent = common::SimAgent::on_host(
            &c,
            71,
            "edge-host",
            json!([{"id": "sidecar-old", "kind": "sidecar", "name": "old", "status": "running"}]),
        )
        .await;
        let id = agent.id();
        let cookie = common::session_cookie(&c).await;
        let path = format!("/infrastructure/agents/{id}");

        // Drawn whole by the server: Disable, Revoke and Delete are links
        // that ask first, and nothing is asked yet.
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert_eq!(page.status, 200);
        assert_eq!(status_of(&page.body), "online");
        for what in ["disable", "revoke", "delete"] {
            assert!(
                page.body
                    .contains(&format!("href=\"{path}?ask={what}#agent-question\"")),
                "{what}: {}",
                page.body
            );
        }
        assert!(page.body.contains(&format!(
            "href=\"{path}?remove_leftover=sidecar-old#remove-leftover-question\""
        )));
        assert!(!page.body.contains("id=\"agent-question\""));
        assert!(page.body.contains("id=\"move-agent\""), "Move, the island");

        // Each question is a confirmation drawn by the server, whose button
        // is a plain form.
        for (what, confirm) in [
            ("disable", "confirm-disable-agent"),
            ("revoke", "confirm-revoke-agent"),
            ("delete", "confirm-delete-agent"),
        ] {
            let asked = common::get_page(c.addr, &cookie, &format!("{path}?ask={what}")).await;
            assert!(
                common::offers_form(
                    &asked.body,
                    "/ui/agent_action",
                    &[("id", &id), ("action", what)]
                ) && asked.body.contains(&format!("id=\"{confirm}\"")),
                "{what}: {}",
                asked.body
            );
        }
        // A question the address makes up asks nothing, and is not echoed.
        let made_up = [
            "ask=explode",
            "ask=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
            "remove_leftover=sidecar-none",
            "remove_leftover=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        ];
        let questions = ["agent-question", "remove-leftover-question"];
        common::asks_nothing(&c, &cookie, &path, &made_up, &questions).await;

        // Hostile bodies, sent raw: the page says why (only ever a sentence
        // of ours), and the Agent is untouched.
        let from = format!("{}{path}?ask=disable", c.base);
        let act = "/ui/agent_action";
        let hostile = [
            String::new(),
            "id=".to_string(),
            format!("id={id}"),
            format!("id={id}&action=explode"),
            format!("id={id}&action=%3Cscript%3E"),
            "id=%3Cscript%3Ealert(1)%3C%2Fscript%3E&action=disable".to_string(),
            "id=..%2F..%2Fetc%2Fpasswd&action=delete".to_string(),
            format!("id={}&action=disable", "a".repeat(5000)),
        ];
        common::each_refused(&c, &cookie, (act, &from), &hostile, "agent-action-error").await;
        let disable = format!("id={id}&action=disable");
        assert_eq!(
            common::from_another_site(&c, &cookie, act, &disable).await,
            403
        );
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert_eq!(status_of(&page.body), "online");

        // Disabled: back to the page, without the question; Enable is a
        // plain form there, and takes it back.
        let r = common::post_from_page(&c, &cookie, act, &from, &disable).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec![format!("{path}#agent-actions")]);
        let page = followed(&c, &cookie, &r).await;
        assert_eq!(status_of(&page), "disabled");
        assert!(common::offers_form(
            &page,
            act,
            &[("id", &id), ("action", "enable")]
        ));
        let asked = common::get_page(c.addr, &cookie, &format!("{path}?ask=disable")).await;
        assert!(
            !asked.body.contains("id=\"confirm-disable-agent\""),
            "a disabled Agent is not asked to be disabled"
        );
        let r = common::post_from_page(
            &c,
            &cookie,
            act,
            &format!("{}{path}", c.base),
            &format!("id={id}&action=enable"),
        )
        .await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_ne!(status_of(&followed(&c, &cookie, &r).await), "disabled");

        // The leftover: asked about, refused with garbage, then removed by
        // a job the page lists.
        let asked = format!("{path}?remove_leftover=sidecar-old");
        let confirm = common::get_page(c.addr, &cookie, &asked).await;
        assert!(
            common::offers_form(
                &confirm.body,
                "/ui/remove_leftover",
                &[("component_id", "sidecar-old"), ("agent_id", &id)]
            ) && confirm.body.contains("id=\"confirm-remove-leftover\""),
            "{}",
            confirm.body
        );
        let from = format!("{}{asked}", c.base);
        let remove = "/ui/remove_leftover";
        let hostile = [
            String::new(),
            format!("agent_id={id}&component_id="),
            "agent_id=nope&component_id=sidecar-old".to_string(),
            format!("agent_id={id}&component_id=%3Cscript%3E"),
        ];
        common::each_refused(&c, &cookie, (remove, &from), &hostile, "agent-action-error").await;
        let r = common::post_from_page(
            &c,
            &cookie,
            remove,
            &from,
            &format!("agent_id={id}&component_id=sidecar-old"),
        )
        .await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec![format!("{path}#agent-jobs")]);
        let page = followed(&c, &cookie, &r).await;
        assert!(page.contains("class=\"agent-job\""), "{page}");
        assert!(!page.contains("id=\"remove-leftover-question\""));
        let job = agent.next_job().await;
        assert_eq!(job["kind"], "remove_component");
        assert_eq!(job["payload"]["component_id"], "sidecar-old");

        // Revoked: nothing left to disable, revoke or move.
        let from = format!("{}{path}?ask=revoke", c.base);
        let r = common::post_from_page(&c, &cookie, act, &from, &format!("id={id}&action=revoke"))
            .await;
        assert_eq!(r.status, 302, "{}", r.head);
        let page = followed(&c, &cookie, &r).await;
        assert_eq!(status_of(&page), "revoked");
        assert!(!page.contains("id=\"disable-agent\"") && !page.contains("id=\"revoke-agent\""));

        // Deleted: on to the list, where it is gone.
        let from = format!("{}{path}?ask=delete", c.base);
        let r = common::post_from_page(&c, &cookie, act, &from, &format!("id={id}&action=delete"))
            .await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec!["/infrastructure".to_string()]);
        // (Its key stays listed among the revoked ones.)
        let list = followed(&c, &cookie, &r).await;
        assert!(
            list.contains("id=\"agents-live\"") && !list.contains(&format!("href=\"{path}\"")),
            "the deleted Agent is still listed"
        );
        assert_eq!(common::get_page(c.addr, &cookie, &path).await.status, 404);
    }
);

on_both_databases!(
    a_viewer_sees_an_agent_without_its_actions,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let agent = common::SimAgent::with_docker(&c, 72).await;
        let path = format!("/infrastructure/agents/{}", agent.id());
        let viewer = common::people::join(&c, "viewer", "vera").await;
        for query in ["", "?ask=delete", "?remove_leftover=sidecar-old"] {
            let html = common::people::page_as(&viewer, &c, &format!("{path}{query}")).await;
            assert!(html.contains("id=\"agent-status\""));
            assert!(
                !html.contains("id=\"agent-actions\"")
                    && !html.contains("/ui/agent_action")
                    && !html.contains("id=\"move-agent\""),
                "{query}: {html}"
            );
        }
    }
);
