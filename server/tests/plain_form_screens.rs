//! Screens without WebAssembly. A network's setup screen: Skip is a plain
//! form, the end-to-end probe's form is a plain form whose refusal shows at
//! its field, and Stop probing asks first at an address of its own
//! (app::pages::setup, app::pages::probe). Onboarding: the guide's copy
//! buttons need no island, and an invite's Revoke asks first at an address
//! of its own and is a plain form (app::pages::onboarding). Settings: the
//! webhook's Save, Turn alerts off (asked first) and Send test alert are
//! plain forms, and no answer puts the webhook's secret in an address
//! (app::pages::settings). A network's Diagnose is a GET form, and its
//! Delete asks first at an address of its own and is a plain form
//! (app::pages::networks, app::pages::diagnose). Sent raw, as a
//! browser sends them, with hostile fields and from another origin.

mod common;

use common::Control;
use serde_json::{json, Value};

const ADDRESS: &str = "umuxz2vrqhhpnmzqk5ycspnwjcgwjjljnngqghfxbar6lw5ar626lwyb.knot";

/// A network with a published service on one Agent and another Agent to
/// probe it from; the network's ID and the prober's.
async fn network_with_a_service(c: &Control) -> (String, String) {
    let id = c
        .created_network(json!({"name": "Home", "beacons": ["https://b.example"]}))
        .await;
    let components = json!([{"id": "sidecar-web", "kind": "sidecar", "name": "web",
        "status": "running", "service": ADDRESS,
        "labels": {"io.knotroute.managed": "true", "io.knotroute.network-id": id}}]);
    common::on_host_deployed(c, 81, "shop-host", components).await;
    let prober = common::on_host_deployed(c, 82, "probe-host", json!([])).await;
    (id, prober.id())
}

/// The `data-state` of the element the page draws with `anchor` (an
/// attribute, `id="step-monitoring"`): a step's or an invite's state.
fn state_at(html: &str, anchor: &str) -> String {
    let at = html.find(anchor).unwrap_or_else(|| panic!("no {anchor}"));
    let state = at + html[at..].find("data-state=\"").unwrap() + "data-state=\"".len();
    html[state..state + html[state..].find('"').unwrap()].to_string()
}

fn step_state(html: &str, slug: &str) -> String {
    state_at(html, &format!("id=\"step-{slug}\""))
}

on_both_databases!(
    the_setup_pages_skip_and_probe_are_plain_forms_that_say_why_when_refused,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let (id, prober) = network_with_a_service(&c).await;
        let cookie = common::session_cookie(&c).await;
        let path = format!("/networks/{id}/setup");
        let page_url = format!("{}{path}", c.base);

        // Skip is a form that needs no script, and so is the probe's form.
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert_eq!(page.status, 200);
        assert!(
            common::offers_form(
                &page.body,
                "/ui/skip_setup_step",
                &[("id", &id), ("step", "monitoring"), ("skipped", "true")]
            ) && page.body.contains("id=\"skip-monitoring\""),
            "{}",
            page.body
        );
        assert!(common::offers_form(
            &page.body,
            "/ui/save_probe",
            &[("id", &id)]
        ));
        assert_eq!(step_state(&page.body, "monitoring"), "not_yet");

        // Skipped: back to the page, which shows it skipped; taken back.
        let skip = "/ui/skip_setup_step";
        for (skipped, state) in [("true", "skipped"), ("false", "not_yet")] {
            let body = format!("id={id}&step=monitoring&skipped={skipped}");
            let r = common::post_from_page(&c, &cookie, skip, &page_url, &body).await;
            assert_eq!(r.status, 302, "{}", r.head);
            // server_fn's redirect leaves an empty query ("…?").
            assert_eq!(r.header("location"), vec![format!("{page_url}?")]);
            let page = common::get_page(c.addr, &cookie, &path).await;
            assert_eq!(step_state(&page.body, "monitoring"), state);
        }
        // A step that cannot be skipped, or none, or garbage: the page says
        // why on its alert line (only ever a sentence of ours), and nothing
        // is skipped.
        for body in [
            format!("id={id}&step=network_id&skipped=true"),
            format!("id={id}&step=..%2F..&skipped=true"),
            format!("id={id}&step=monitoring&skipped=maybe"),
            format!("id={id}&step=monitoring"),
            "step=monitoring&skipped=true".to_string(),
            "id=%3Cscript%3Ealert(1)%3C%2Fscript%3E&step=monitoring&skipped=true".to_string(),
        ] {
            let said =
                common::refusal_said(&c, &cookie, (skip, &page_url), &body, "skip-error").await;
            assert!(!said.is_empty() && !said.contains('<'), "{body}: {said}");
        }
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert_eq!(step_state(&page.body, "monitoring"), "not_yet");

        // The probe's interval, whatever is typed, is refused at its field,
        // and no probe is chosen.
        let save = ("/ui/save_probe", page_url.as_str());
        for every in [
            "0",
            "1441",
            "-5",
            "",
            "5%3B%20drop",
            "abc",
            "99999999999999999999",
        ] {
            let body = format!("id={id}&service=web&agent_id={prober}&every_minutes={every}");
            let said =
                common::refusal_said(&c, &cookie, save, &body, "probe-every_minutes-error").await;
            assert!(said.contains("1440"), "{every}: {said}");
        }
        // A service the network does not publish: said at the service.
        let body = format!("id={id}&service=shop&agent_id={prober}&every_minutes=5");
        let said = common::refusal_said(&c, &cookie, save, &body, "probe-service-error").await;
        assert!(!said.is_empty());
        let view: Value = c.get_json(&format!("/api/v1/networks/{id}/probe")).await;
        assert!(view["settings"].is_null(), "{view}");

        // From another site: refused by the same-origin check.
        let body = format!("id={id}&service=web&agent_id={prober}&every_minutes=5");
        assert_eq!(
            common::from_another_site(&c, &cookie, save.0, &body).await,
            403
        );

        // Saved: the page says so, and draws what is probed.
        let r = common::post_from_page(&c, &cookie, save.0, &page_url, &body).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(
            r.header("location"),
            vec![format!("{path}?probe_saved=1#probe")]
        );
        let page = common::get_page(c.addr, &cookie, &format!("{path}?probe_saved=1")).await;
        assert!(page.body.contains("id=\"probe-saved\""));
        assert!(common::alert_line(&page.body, "probe-current").contains("every 5 min"));
        assert!(page.body.contains("id=\"probe-remove\""));
        // Stop probing asks first, at an address of its own.
        assert!(!page.body.contains("id=\"confirm-probe-remove\""));
        let asked = common::get_page(c.addr, &cookie, &format!("{path}?stop_probe=1")).await;
        assert!(
            common::offers_form(&asked.body, "/ui/remove_probe", &[("id", &id)])
                && asked.body.contains("id=\"confirm-probe-remove\""),
            "{}",
            asked.body
        );
        let (remove, id_field) = ("/ui/remove_probe", format!("id={id}"));
        assert_eq!(
            common::from_another_site(&c, &cookie, remove, &id_field).await,
            403
        );
        let from = format!("{page_url}?stop_probe=1");
        let r = common::post_from_page(&c, &cookie, remove, &from, &id_field).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec![format!("{path}#probe")]);
        let view: Value = c.get_json(&format!("/api/v1/networks/{id}/probe")).await;
        assert!(view["settings"].is_null(), "{view}");
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert!(!page.body.contains("id=\"probe-remove\""));
    }
);

fn invite_state(html: &str, id: &str) -> String {
    state_at(html, &format!("data-invite=\"{id}\""))
}

on_both_databases!(
    onboardings_copy_buttons_need_no_island_and_revoke_asks_first_then_is_a_plain_form,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let network = c
            .created_network(json!({"name": "Home", "beacons": ["https://b.example"]}))
            .await;
        let r = c
            .post_json(
                "/api/v1/invites",
                json!({"network_id": network, "name": "Petrovs"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        let invite: Value = r.json().await.unwrap();
        let id = invite["id"].as_str().unwrap().to_string();
        let cookie = common::session_cookie(&c).await;
        let guide = format!("/onboarding?network={network}&platform=windows&lang=en");

        // The guide's copy buttons carry what they copy; no island does it.
        let page = common::get_page(c.addr, &cookie, &guide).await;
        assert_eq!(page.status, 200);
        let button = page
            .body
            .find("id=\"copy-instructions\"")
            .expect("the copy-all button");
        let tag = &page.body[page.body[..button].rfind('<').unwrap()..];
        let tag = &tag[..tag.find('>').unwrap()];
        assert!(
            tag.contains("data-copy=\"") && tag.contains("data-done=\"Copied\""),
            "{tag}"
        );
        assert_eq!(invite_state(&page.body, &id), "active");

        // Revoke is a link that keeps the guide and asks first.
        let asked = format!("{guide}&revoke_invite={id}");
        assert!(
            page.body.contains(&format!(
                "href=\"{}#revoke-invite\"",
                asked.replace('&', "&amp;")
            )),
            "{}",
            page.body
        );
        assert!(!page.body.contains("id=\"confirm-revoke-invite\""));
        let confirm = common::get_page(c.addr, &cookie, &asked).await;
        assert!(
            common::offers_form(&confirm.body, "/ui/revoke_invite", &[("id", &id)])
                && confirm.body.contains("id=\"confirm-revoke-invite\"")
                && confirm.body.contains("id=\"guide-title\""),
            "{}",
            confirm.body
        );
        let from = format!("{}{asked}", c.base);

        // Hostile IDs, sent raw: a redirect that says why, and the invite
        // untouched; from another site, refused by the same-origin check.
        let revoke = "/ui/revoke_invite";
        let hostile = common::hostile_ids();
        common::each_refused(
            &c,
            &cookie,
            (revoke, &from),
            &hostile,
            "invites-action-error",
        )
        .await;
        let id_field = format!("id={id}");
        assert_eq!(
            common::from_another_site(&c, &cookie, revoke, &id_field).await,
            403
        );
        let page = common::get_page(c.addr, &cookie, &guide).await;
        assert_eq!(invite_state(&page.body, &id), "active");

        // Revoked: back to the guide, the invite revoked and no question left.
        let r = common::post_from_page(&c, &cookie, revoke, &from, &id_field).await;
        assert_eq!(r.status, 302, "{}", r.head);
        let location = r.header("location")[0].clone();
        let page = common::get_page(c.addr, &cookie, location.strip_prefix(&c.base).unwrap()).await;
        assert_eq!(invite_state(&page.body, &id), "revoked");
        assert!(!page.body.contains("id=\"confirm-revoke-invite\""));
        assert!(page.body.contains("id=\"guide-title\""));
    }
);

on_both_databases!(
    settings_alert_forms_are_plain_forms_that_keep_the_webhook_secret_out_of_addresses,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let cookie = common::session_cookie(&c).await;
        let page_url = format!("{}/settings", c.base);
        let (hook, received) = test_kit::webhook_receiver().await;
        let secret_hook = format!("{hook}?token=secret-token");

        let page = common::page_body(&c, &cookie, "/settings").await;
        assert!(common::offers_form(&page, "/ui/save_alert_webhook", &[]));
        assert!(common::offers_form(&page, "/ui/send_test_alert", &[]));
        assert!(
            !page.contains("id=\"turn-alerts-off\""),
            "nothing to turn off yet"
        );

        // Save refuses an empty field and what is no webhook address, at
        // the field; never turns alerts off, never a 500.
        let save = ("/ui/save_alert_webhook", page_url.as_str());
        for body in [
            "webhook_url=".to_string(),
            "webhook_url=%20%20".to_string(),
            "".to_string(),
            "webhook_url=hooks.example.net%2Fknotroute".to_string(),
            "webhook_url=javascript%3Aalert(1)".to_string(),
            "webhook_url=ftp%3A%2F%2Fhooks.example.net%2F".to_string(),
            format!("webhook_url=https%3A%2F%2F{}.example", "a".repeat(5000)),
        ] {
            let said = common::refusal_said(&c, &cookie, save, &body, "webhook-url-error").await;
            assert!(
                !said.is_empty() && !said.contains('<'),
                "{body:.60}: {said}"
            );
        }
        let body = format!(
            "webhook_url={}",
            url::form_urlencoded::byte_serialize(secret_hook.as_bytes()).collect::<String>()
        );
        assert_eq!(
            common::from_another_site(&c, &cookie, save.0, &body).await,
            403
        );
        let settings: Value = c.get_json("/api/v1/settings/alerts").await;
        assert!(settings["webhook"].is_null(), "{settings}");

        // Saved: the page says so and shows the webhook without its secret.
        let r = common::post_from_page(&c, &cookie, save.0, &page_url, &body).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(
            r.header("location"),
            vec!["/settings?saved=1#alerts".to_string()]
        );
        let page = common::page_body(&c, &cookie, "/settings?saved=1").await;
        assert!(common::alert_line(&page, "webhook-current").contains("127.0.0.1"));
        assert!(!page.contains("secret-token"));
        assert_eq!(common::alert_line(&page, "webhook-saved"), "Saved.");

        // A test alert: delivered, said from the address, which holds no
        // detail of the receiver's answer.
        let test = "/ui/send_test_alert";
        assert_eq!(common::from_another_site(&c, &cookie, test, "").await, 403);
        let r = common::post_from_page(&c, &cookie, test, &page_url, "").await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(
            r.header("location"),
            vec!["/settings?tested=delivered#alerts".to_string()]
        );
        assert_eq!(received.lock().unwrap().len(), 1);
        let page = common::page_body(&c, &cookie, "/settings?tested=delivered").await;
        assert!(common::alert_line(&page, "test-alert-outcome").starts_with("Delivered"));

        // Turning alerts off asks first, at an address of its own.
        assert!(page.contains("id=\"turn-alerts-off\""));
        let asked = common::page_body(&c, &cookie, "/settings?alerts_off=1").await;
        assert!(
            common::offers_form(&asked, "/ui/save_alert_webhook", &[("turn_off", "true")])
                && asked.contains("id=\"confirm-alerts-off\""),
            "{asked}"
        );
        let from = format!("{page_url}?alerts_off=1");
        let r = common::post_from_page(&c, &cookie, save.0, &from, "turn_off=true").await;
        assert_eq!(r.status, 302, "{}", r.head);
        let settings: Value = c.get_json("/api/v1/settings/alerts").await;
        assert!(settings["webhook"].is_null(), "{settings}");
        let page = common::page_body(&c, &cookie, "/settings").await;
        assert!(!page.contains("id=\"turn-alerts-off\""));

        // A test alert with no webhook: not delivered, and the page says
        // why (no line under Recent alerts would).
        let r = common::post_from_page(&c, &cookie, test, &page_url, "").await;
        assert_eq!(
            r.header("location"),
            vec!["/settings?tested=failed#alerts".to_string()]
        );
        let page = common::page_body(&c, &cookie, "/settings?tested=failed").await;
        let said = common::alert_line(&page, "test-alert-outcome");
        assert!(
            said.starts_with("Not delivered") && said.contains("No webhook"),
            "{said}"
        );
    }
);

on_both_databases!(
    a_networks_diagnose_and_delete_are_plain_forms_and_delete_asks_first,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let id = c.created_network(json!({"name": "Doomed"})).await;
        let cookie = common::session_cookie(&c).await;
        let path = format!("/networks/{id}");

        let page = common::get_page(c.addr, &cookie, &path).await;
        assert!(
            page.body
                .contains(&format!("href=\"{path}?ask=delete#network-question\"")),
            "{}",
            page.body
        );
        assert!(!page.body.contains("id=\"confirm-delete\""));
        // Diagnose is a plain GET form too; its page holds the diagnosis
        // (a profile with no Beacon says so).
        assert!(page
            .body
            .contains(&format!("<form method=\"get\" action=\"{path}#diagnose\">")));
        assert!(!page.body.contains("id=\"diagnosis\""));
        let diagnosed = common::get_page(c.addr, &cookie, &format!("{path}?diagnose=1")).await;
        assert!(
            diagnosed
                .body
                .contains("id=\"diagnosis\" data-worst=\"error\""),
            "{}",
            diagnosed.body
        );
        let asked = format!("{path}?ask=delete");
        let confirm = common::get_page(c.addr, &cookie, &asked).await;
        assert!(
            common::offers_form(&confirm.body, "/ui/delete_network", &[("id", &id)])
                && confirm.body.contains("id=\"confirm-delete\""),
            "{}",
            confirm.body
        );

        // Hostile IDs, sent raw: said on the page, and the profile stays.
        let (delete, from) = ("/ui/delete_network", format!("{}{asked}", c.base));
        let mut hostile = common::hostile_ids();
        hostile.push("id=kn_nosuchnetwork".to_string());
        common::each_refused(
            &c,
            &cookie,
            (delete, &from),
            &hostile,
            "network-action-error",
        )
        .await;
        let id_field = format!("id={id}");
        assert_eq!(
            common::from_another_site(&c, &cookie, delete, &id_field).await,
            403
        );
        assert_eq!(c.get(&format!("/api/v1/networks/{id}")).await.status(), 200);

        // Deleted: on to the list, where it is gone.
        let r = common::post_from_page(&c, &cookie, delete, &from, &id_field).await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec!["/networks".to_string()]);
        assert_eq!(c.get(&format!("/api/v1/networks/{id}")).await.status(), 404);
        let list = common::get_page(c.addr, &cookie, "/networks").await;
        assert!(!list.body.contains(&id));
    }
);
