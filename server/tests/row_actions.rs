//! Row actions sent as plain HTML forms (app::pages::plain_action): what a
//! browser sends before or without WebAssembly, sent raw, and the page the
//! answer leads back to.

mod common;

use serde_json::{json, Value};

/// A restart of `sidecar-web` queued for `agent`; its view.
async fn queued_restart(c: &common::Control, agent: &common::SimAgent) -> Value {
    c.queued_job(json!({"agent_id": agent.id(), "kind": "restart_component",
        "payload": {"component_id": "sidecar-web"}}))
        .await
}

fn alert_line(html: &str) -> String {
    common::alert_line(html, "job-action-error")
}

on_both_databases!(
    the_job_lists_cancel_and_retry_forms_act_and_say_why_when_refused,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let agent = common::SimAgent::with_docker(&c, 31).await;
        let job = queued_restart(&c, &agent).await;
        let id = job["id"].as_str().unwrap().to_string();
        let cookie = common::session_cookie(&c).await;
        let list = format!("{}/jobs?status=pending", c.base);

        // The list offers Cancel as a form that needs no script, its button
        // named by the job, so that a redraw of the list keeps focus on it.
        let page = common::get_page(c.addr, &cookie, "/jobs").await;
        assert_eq!(page.status, 200);
        assert!(
            common::offers_form(&page.body, "/ui/cancel_job", &[("id", &id)])
                && page.body.contains(&format!("id=\"cancel-job-{id}\"")),
            "{}",
            page.body
        );

        // Cancel: back to the list the form was on, the job cancelled.
        let id_field = format!("id={id}");
        let done =
            common::post_form(c.addr, &c.base, &cookie, "/ui/cancel_job", &list, &id_field).await;
        assert_eq!(done.status, 302, "{}", done.head);
        assert_eq!(done.header("location"), vec![list.clone()]);
        let now: Value = c.get_json(&format!("/api/v1/jobs/{id}")).await;
        assert_eq!(now["status"], "cancelled");

        // Again: refused, and the page it leads back to says why.
        let refused =
            common::post_form(c.addr, &c.base, &cookie, "/ui/cancel_job", &list, &id_field).await;
        assert_eq!(refused.status, 302, "{}", refused.head);
        let location = refused.header("location")[0].clone();
        assert!(
            location.starts_with(&format!("{list}&__path=%2Fui%2Fcancel_job&__err=")),
            "{location}"
        );
        let target = location.strip_prefix(&c.base).unwrap();
        let page = common::get_page(c.addr, &cookie, target).await;
        assert_eq!(page.status, 200);
        assert_eq!(
            alert_line(&page.body),
            "The job is cancelled: only pending or running jobs can be cancelled, only failed or expired ones retried."
        );
        // Retry of a cancelled job is refused the same way, from the page
        // that showed the last refusal: the address then names this one only.
        let retried = common::post_form(
            c.addr,
            &c.base,
            &cookie,
            "/ui/retry_job",
            &location,
            &id_field,
        )
        .await;
        assert_eq!(retried.status, 302);
        let again = retried.header("location")[0].clone();
        assert!(again.contains("__path=%2Fui%2Fretry_job"), "{again}");
        assert_eq!(again.matches("__err=").count(), 1, "{again}");

        // Hostile IDs, sent raw: a redirect with a refusal, never a 500,
        // and the job untouched.
        for body in [
            "",
            "id=",
            "id=not-an-id",
            "id=..%2F..%2Fetc%2Fpasswd",
            "id=%00",
            "id=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
            "id=1&id=2",
            &format!("id={}", "a".repeat(5000)),
        ] {
            let r =
                common::post_form(c.addr, &c.base, &cookie, "/ui/cancel_job", &list, body).await;
            assert_eq!(r.status, 302, "{body:.40}: {}", r.head);
            assert!(r.header("location")[0].contains("__err="), "{body:.40}");
        }
        // From another site: refused by the same-origin check, not carried out.
        let other = common::SimAgent::with_docker(&c, 32).await;
        let pending = queued_restart(&c, &other).await;
        let pending_id = pending["id"].as_str().unwrap();
        let r = common::post_form(
            c.addr,
            "https://evil.example",
            &cookie,
            "/ui/cancel_job",
            "https://evil.example/",
            &format!("id={pending_id}"),
        )
        .await;
        assert_eq!(r.status, 403, "{}", r.head);
        let still: Value = c.get_json(&format!("/api/v1/jobs/{pending_id}")).await;
        assert_eq!(still["status"], "pending");

        // A hand-made address shows only a sentence of ours, never its own
        // text, and no refusal of a server function the page does not send to.
        let generic = "Something went wrong on the server";
        for (query, shown) in [
            (
                "__path=%2Fui%2Fcancel_job&__err=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
                generic,
            ),
            (
                "__path=%2Fui%2Fcancel_job&__err=IkludGVybmFsIg%3D%3D",
                generic,
            ),
            ("__path=%2Fui%2Fcancel_job&__err=eyJ4Ijp7fX0%3D", generic),
            (
                "__path=%2Fui%2Fcreate_network&__err=Ik5vdEZvdW5kIg%3D%3D",
                "",
            ),
            ("__err=Ik5vdEZvdW5kIg%3D%3D", ""),
            (
                "__path=%2Fui%2Fcancel_job&__err=Ik5vdEZvdW5kIg%3D%3D",
                "Not found.",
            ),
        ] {
            let page = common::get_page(c.addr, &cookie, &format!("/jobs?{query}")).await;
            assert_eq!(page.status, 200, "{query}");
            assert!(!page.body.contains("<script>alert"), "{query}");
            let line = alert_line(&page.body);
            assert!(
                line.starts_with(shown) && (shown.is_empty() == line.is_empty()),
                "{query}: {line}"
            );
        }
    }
);

on_both_databases!(
    infrastructures_token_revoke_and_key_allow_work_as_plain_forms,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let cookie = common::session_cookie(&c).await;
        let page_url = format!("{}/infrastructure", c.base);

        // Revoke an install token: a form in its row, back to the page.
        let r = c
            .post_json("/api/v1/install-tokens", json!({"name": "edge-r"}))
            .await;
        assert_eq!(r.status(), 201);
        let token: Value = r.json().await.unwrap();
        let token_id = token["id"].as_str().unwrap();
        let page = common::get_page(c.addr, &cookie, "/infrastructure").await;
        assert!(
            common::offers_form(&page.body, "/ui/revoke_install_token", &[("id", token_id)]),
            "{}",
            page.body
        );
        let body = format!("id={token_id}");
        let r = common::post_form(
            c.addr,
            &c.base,
            &cookie,
            "/ui/revoke_install_token",
            &page_url,
            &body,
        )
        .await;
        // server_fn's redirect leaves an empty query ("…?").
        assert_eq!(
            (r.status, r.header("location")),
            (302, vec![format!("{page_url}?")])
        );
        let tokens: Value = c.get_json("/api/v1/install-tokens").await;
        assert_eq!(tokens[0]["state"], "revoked", "{tokens}");

        // A revoked, deleted Agent's key: Allow again asks first, on a page
        // of its own address, and only its form lets the key in.
        let a = common::SimAgent::new(&c, 73);
        assert_eq!(a.enroll(common::ENROLL, "edge-k").await.status(), 201);
        let r = c
            .post_json(&format!("/api/v1/agents/{}/revoke", a.id()), json!({}))
            .await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            c.delete(&format!("/api/v1/agents/{}", a.id()))
                .await
                .status(),
            204
        );
        let page = common::get_page(c.addr, &cookie, "/infrastructure").await;
        let ask = format!("/infrastructure?allow_key={}", a.id());
        assert!(
            page.body.contains(&format!("href=\"{ask}#confirm-allow\"")),
            "{}",
            page.body
        );
        assert!(
            !page.body.contains("id=\"confirm-allow\""),
            "no confirmation until asked"
        );
        let confirm = common::get_page(c.addr, &cookie, &ask).await;
        assert_eq!(confirm.status, 200);
        assert!(
            confirm.body.contains("id=\"confirm-allow\""),
            "{}",
            confirm.body
        );
        assert!(common::offers_form(
            &confirm.body,
            "/ui/allow_revoked_key",
            &[("agent_id", &a.id())]
        ));
        let keys: Value = c.get_json("/api/v1/revoked-keys").await;
        assert_eq!(keys.as_array().unwrap().len(), 1, "asking changed nothing");
        // The address may name anything: only a listed key is asked about.
        for hostile in ["ka_nope", "%3Cscript%3E", "", "..%2F"] {
            let page = common::get_page(
                c.addr,
                &cookie,
                &format!("/infrastructure?allow_key={hostile}"),
            )
            .await;
            assert_eq!(page.status, 200, "{hostile}");
            assert!(!page.body.contains("id=\"confirm-allow\""), "{hostile}");
            assert!(!page.body.contains("<script>"), "{hostile}");
        }
        let referer = format!("{}{ask}", c.base);
        let body = format!("agent_id={}", a.id());
        let allow = || {
            common::post_form(
                c.addr,
                &c.base,
                &cookie,
                "/ui/allow_revoked_key",
                &referer,
                &body,
            )
        };
        let r = allow().await;
        assert_eq!(
            (r.status, r.header("location")),
            (302, vec![referer.clone()])
        );
        let keys: Value = c.get_json("/api/v1/revoked-keys").await;
        assert_eq!(keys, json!([]));
        // The page it comes back to no longer asks; the key is not listed.
        let back = common::get_page(c.addr, &cookie, &ask).await;
        assert!(!back.body.contains("id=\"confirm-allow\""));
        // Again: refused, and said at the top of the page.
        let r = allow().await;
        assert_eq!(r.status, 302);
        let location = r.header("location")[0].clone();
        let page = common::get_page(c.addr, &cookie, location.strip_prefix(&c.base).unwrap()).await;
        assert_eq!(
            common::alert_line(&page.body, "infra-action-error"),
            "No revoked key has this Agent ID."
        );
    }
);

on_both_databases!(
    a_jobs_own_page_cancels_and_retries_with_plain_forms,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let agent = common::SimAgent::with_docker(&c, 34).await;
        let job = queued_restart(&c, &agent).await;
        let id = job["id"].as_str().unwrap().to_string();
        let cookie = common::session_cookie(&c).await;
        let path = format!("/jobs/{id}");
        let page_url = format!("{}{path}", c.base);

        // Cancel is a form that needs no script; its answer is this page.
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert_eq!(page.status, 200);
        assert!(
            common::offers_form(&page.body, "/ui/cancel_job", &[("id", &id)])
                && page.body.contains("id=\"cancel-this-job\""),
            "{}",
            page.body
        );
        let r = common::post_form(
            c.addr,
            &c.base,
            &cookie,
            "/ui/cancel_job",
            &page_url,
            &format!("id={id}"),
        )
        .await;
        assert_eq!(r.status, 302, "{}", r.head);
        assert_eq!(r.header("location"), vec![format!("{page_url}?")]);
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert!(page.body.contains(">cancelled<"), "{}", page.body);
        assert!(!page.body.contains("id=\"cancel-this-job\""));

        // A failed job offers Retry, which leads on to the new job's page,
        // which names the one it retries.
        let job = queued_restart(&c, &agent).await;
        let id = job["id"].as_str().unwrap().to_string();
        agent.post("/api/v1/agents/jobs/next", json!({})).await;
        let r = agent
            .post(
                "/api/v1/agents/jobs/result",
                json!({"job_id": id, "status": "failed", "result": "exited with code 1"}),
            )
            .await;
        assert_eq!(r.status(), 200);
        let path = format!("/jobs/{id}");
        let page_url = format!("{}{path}", c.base);
        let page = common::get_page(c.addr, &cookie, &path).await;
        assert!(
            common::offers_form(
                &page.body,
                "/ui/retry_job",
                &[("id", &id), ("open_new", "true")]
            ) && page.body.contains("id=\"retry-this-job\""),
            "{}",
            page.body
        );
        let body = format!("id={id}&open_new=true");
        let r =
            common::post_form(c.addr, &c.base, &cookie, "/ui/retry_job", &page_url, &body).await;
        assert_eq!(r.status, 302, "{}", r.head);
        let new_path = r.header("location")[0].clone();
        assert!(
            new_path.starts_with("/jobs/") && new_path != path,
            "{new_path}"
        );
        let page = common::get_page(c.addr, &cookie, &new_path).await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains(">pending<"), "{}", page.body);
        assert!(page.body.contains(&format!("href=\"{path}\"")));

        // Retrying what is pending is refused, and the job's page says why;
        // so is an answer it cannot read, never a 500.
        let new_url = format!("{}{new_path}", c.base);
        let new_id = new_path.trim_start_matches("/jobs/");
        for body in [
            format!("id={new_id}&open_new=true"),
            format!("id={new_id}&open_new=maybe"),
            "id=%3Cscript%3Ealert(1)%3C%2Fscript%3E&open_new=true".to_string(),
        ] {
            let r =
                common::post_form(c.addr, &c.base, &cookie, "/ui/retry_job", &new_url, &body).await;
            assert_eq!(r.status, 302, "{body}: {}", r.head);
            let location = r.header("location")[0].clone();
            assert!(
                location.starts_with(&new_url) && location.contains("__err="),
                "{location}"
            );
            let page =
                common::get_page(c.addr, &cookie, location.strip_prefix(&c.base).unwrap()).await;
            assert!(!page.body.contains("<script>alert"), "{body}");
            assert!(
                !alert_line(&page.body).is_empty(),
                "{body}: no reason given"
            );
        }
    }
);
