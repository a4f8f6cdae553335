//! Settings → People without WebAssembly for its list (app::pages::users):
//! a role, the networks a person sees, the two-step requirement and Enable
//! are plain forms; Disable, Sign out everywhere, Reset two-step and Delete
//! ask first at an address of their own. Sent raw, as a browser sends them,
//! with hostile fields and from another origin.

mod common;

use common::Control;
use serde_json::{json, Value};

/// The one person listed by the API, as it describes them.
async fn the_person(c: &Control) -> Value {
    let people: Value = c.get_json("/api/v1/users").await;
    people[0].clone()
}

on_both_databases!(
    the_people_tab_is_plain_forms_and_the_destructive_ones_ask_first,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let alpha = c.created_network(json!({"name": "Alpha"})).await;
        let bravo = c.created_network(json!({"name": "Bravo"})).await;
        let anna = common::people::join(&c, "operator", "anna").await;
        let id = the_person(&c).await["id"].as_str().unwrap().to_string();
        let cookie = common::session_cookie(&c).await;
        let people = "/settings/people";

        // Drawn whole by the server: the role and the networks are forms,
        // the destructive actions links that ask first, the invitation a
        // button; nothing is asked yet.
        let page = common::page_body(&c, &cookie, people).await;
        assert!(
            page.contains("action=\"/ui/change_user\"")
                && page.contains(&format!("id=\"role-{id}\""))
                && page.contains("action=\"/ui/set_user_networks\"")
                && page.contains("action=\"/ui/require_two_step\"")
                && page.contains("id=\"open-invite\""),
            "{page}"
        );
        for what in ["disable", "end_sessions", "delete"] {
            assert!(
                page.contains(&format!(
                    "href=\"{people}?ask={what}&amp;person={id}#user-question\""
                )),
                "{what}: {page}"
            );
        }
        assert!(
            !page.contains("ask=reset_two_step"),
            "she has no second factor"
        );
        assert!(!page.contains("id=\"user-question\""));

        // Each question is a confirmation drawn by the server.
        for (what, action, confirm) in [
            ("disable", "/ui/change_user", "confirm-disable-user"),
            (
                "end_sessions",
                "/ui/end_user_sessions",
                "confirm-end-sessions",
            ),
            ("delete", "/ui/delete_user", "confirm-delete-user"),
        ] {
            let asked =
                common::page_body(&c, &cookie, &format!("{people}?ask={what}&person={id}")).await;
            assert!(
                common::offers_form(&asked, action, &[("id", &id)])
                    && asked.contains(&format!("id=\"{confirm}\"")),
                "{what}: {asked}"
            );
        }
        // A question the address makes up, or that does not fit, asks
        // nothing, and is not echoed.
        let made_up = [
            format!("ask=explode&person={id}"),
            "ask=delete&person=nope".to_string(),
            format!("ask=reset_two_step&person={id}"),
            "ask=delete&person=%3Cscript%3Ealert(1)%3C%2Fscript%3E".to_string(),
            format!("ask=disable&person={}", "a".repeat(5000)),
        ];
        common::asks_nothing(&c, &cookie, people, &made_up, &["user-question"]).await;

        // Hostile bodies, sent raw: the page says why, in a sentence of
        // Control's own, and she is untouched.
        let from = format!("{}{people}", c.base);
        let mut hostile = common::hostile_ids();
        hostile.extend([
            format!("id={id}&role=emperor"),
            format!("id={id}&role=%3Cscript%3E"),
            format!("id={id}&disabled=maybe"),
        ]);
        common::each_refused(
            &c,
            &cookie,
            ("/ui/change_user", &from),
            &hostile,
            "user-change-error",
        )
        .await;
        let networks = "/ui/set_user_networks";
        let hostile = [
            format!("id={id}"),
            format!("id={id}&all_networks=maybe"),
            "id=nope&all_networks=true".to_string(),
        ];
        common::each_refused(
            &c,
            &cookie,
            (networks, &from),
            &hostile,
            "user-change-error",
        )
        .await;
        let to_viewer = format!("id={id}&role=viewer");
        assert_eq!(
            common::from_another_site(&c, &cookie, "/ui/change_user", &to_viewer).await,
            403
        );
        assert_eq!(
            common::from_another_site(&c, &cookie, "/ui/require_two_step", "required=true").await,
            403
        );
        assert_eq!(the_person(&c).await["role"], "operator");

        // A new role: back to the list, which shows it.
        let r = common::post_from_page(&c, &cookie, "/ui/change_user", &from, &to_viewer).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec![format!("{people}#users")]);
        let page = common::page_body(&c, &cookie, &r.header("location")[0]).await;
        assert!(page.contains("<option value=\"viewer\" selected"), "{page}");
        assert_eq!(the_person(&c).await["role"], "viewer");

        // Her networks, as the checkboxes send them; "All networks" wins.
        let both = format!("id={id}&networks%5B%5D={alpha}&networks%5B%5D={bravo}");
        let r = common::post_from_page(&c, &cookie, networks, &from, &both).await;
        assert_eq!(r.status, 302, "{}", r.head);
        let mut seen: Vec<String> =
            serde_json::from_value(the_person(&c).await["networks"].clone()).unwrap();
        seen.sort();
        let mut expected = vec![alpha.clone(), bravo.clone()];
        expected.sort();
        assert_eq!(seen, expected);
        let page = common::page_body(&c, &cookie, people).await;
        assert!(page.contains(&format!(
            "id=\"networks-of-{id}-{alpha}\" name=\"networks[]\""
        )));
        let all = format!("id={id}&all_networks=true&networks%5B%5D={alpha}");
        let r = common::post_from_page(&c, &cookie, networks, &from, &all).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(the_person(&c).await["networks"], json!([]));

        // Two-step sign-in required of everyone, then no longer (an
        // unchecked box sends nothing).
        for (body, required) in [("required=true", true), ("", false)] {
            let r = common::post_from_page(&c, &cookie, "/ui/require_two_step", &from, body).await;
            assert_eq!(r.status, 302, "{body}: {}", r.head);
            let policy: Value = c.get_json("/api/v1/users/second-factor").await;
            assert_eq!(policy["required"], required, "{body}");
        }

        // Disabled after the confirmation: signed out at once, and the list
        // offers Enable.
        let asked = format!("{}{people}?ask=disable&person={id}", c.base);
        let r = common::post_from_page(
            &c,
            &cookie,
            "/ui/change_user",
            &asked,
            &format!("id={id}&disabled=true"),
        )
        .await;
        assert_eq!(r.status, 302, "{}", r.head);
        let page = common::page_body(&c, &cookie, &r.header("location")[0]).await;
        assert!(
            common::offers_form(
                &page,
                "/ui/change_user",
                &[("id", &id), ("disabled", "false")]
            ),
            "{page}"
        );
        assert!(!page.contains("id=\"user-question\""));
        let hers = anna.get(c.url("/api/v1/networks")).send().await.unwrap();
        assert_eq!(hers.status(), 401, "her session ended");

        // Deleted: gone from the list.
        let asked = format!("{}{people}?ask=delete&person={id}", c.base);
        let r = common::post_from_page(&c, &cookie, "/ui/delete_user", &asked, &format!("id={id}"))
            .await;
        assert_eq!(r.status, 302, "{}", r.head);
        let page = common::page_body(&c, &cookie, &r.header("location")[0]).await;
        assert!(page.contains("id=\"users-empty\""), "{page}");
    }
);
