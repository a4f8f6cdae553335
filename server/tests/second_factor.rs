//! Two-step sign-in: a person adds Control to an
//! authenticator app from a QR code, confirms it with a first code, and gets
//! ten recovery codes; from then on a password sign-in asks for a code,
//! which works once; the owner can require it of everyone (who then sets it
//! up while signing in) and reset a person's. On SQLite and PostgreSQL, over
//! real HTTP, with codes computed as an app computes them from the QR code.

mod common;

use common::people::{invite, join, welcome, PERSON_PASSWORD};
use common::qr::decode_qr;
use common::{browser_like_client, Control};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use test_kit::authenticator::{code_now, next_code};

/// A server function called as the page calls it (form encoded).
async fn ui(
    browser: &reqwest::Client,
    c: &Control,
    endpoint: &str,
    form: &[(&str, &str)],
) -> (u16, Value) {
    let r = browser
        .post(c.url(&format!("/ui/{endpoint}")))
        .form(form)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// A two-step setup link the owner makes for person `id`.
async fn setup_link(c: &Control, id: &str) -> String {
    let r = c
        .post_json(
            &format!("/api/v1/users/{id}/second-factor/setup-link"),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    created["link"].as_str().unwrap().to_string()
}

/// Opens a setup link in `browser`, which keeps its token for the next
/// sign-in, and is sent on to the sign-in screen.
async fn open_link(browser: &reqwest::Client, c: &Control, link: &str) {
    let path = &link[link.find("/two-step-setup/").unwrap()..];
    let r = browser.get(c.url(path)).send().await.unwrap();
    assert_eq!(r.status(), 303, "{path}");
    assert_eq!(r.headers()["location"], "/login?two_step=setup");
}

/// A password sign-in over the JSON API, as a script does it.
async fn sign_in(c: &Control, name: &str, code: Option<&str>) -> (u16, Value) {
    sign_in_from(c, name, code, None).await
}

async fn sign_in_from(
    c: &Control,
    name: &str,
    code: Option<&str>,
    client_ip: Option<&str>,
) -> (u16, Value) {
    let mut body = json!({ "name": name, "password": PERSON_PASSWORD });
    if let Some(code) = code {
        body["code"] = json!(code);
    }
    let mut request = browser_like_client(&c.base)
        .post(c.url("/api/v1/session"))
        .json(&body);
    if let Some(ip) = client_ip {
        request = request.header("x-forwarded-for", ip);
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// A code of the same length that the app does not show now.
fn wrong(code: &str) -> String {
    let first = code.as_bytes()[0] - b'0';
    format!("{}{}", (first + 5) % 10, &code[1..])
}

async fn user_id(c: &Control, name: &str) -> String {
    let people: Vec<Value> = c.get_json("/api/v1/users").await;
    people.iter().find(|p| p["name"] == name).expect("listed")["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Turns on `browser`'s person's second factor; its otpauth URI and the
/// recovery codes.
async fn turn_on(c: &Control, browser: &reqwest::Client) -> (String, Vec<String>) {
    let (status, enrollment) = ui(browser, c, "begin_two_step", &[]).await;
    assert_eq!(status, 200, "{enrollment}");
    let uri = enrollment["otpauth_uri"].as_str().unwrap().to_string();
    let (status, codes) = ui(browser, c, "confirm_two_step", &[("code", &code_now(&uri))]).await;
    assert_eq!(status, 200, "{codes}");
    let codes = codes["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    (uri, codes)
}

on_both_databases!(
    a_person_turns_on_two_step_sign_in_and_every_code_works_once,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let anna = join(&c, "operator", "anna").await;

        let (status, enrollment) = ui(&anna, &c, "begin_two_step", &[]).await;
        assert_eq!(status, 200, "{enrollment}");
        let uri = enrollment["otpauth_uri"].as_str().unwrap().to_string();
        // What the phone's camera reads is what the link opens.
        assert_eq!(decode_qr(enrollment["qr_svg"].as_str().unwrap()), uri);
        let parsed = url::Url::parse(&uri).unwrap();
        assert_eq!(
            (parsed.scheme(), parsed.host_str()),
            ("otpauth", Some("totp"))
        );
        assert!(parsed.path().ends_with(":anna"), "{uri}");
        let query: std::collections::HashMap<_, _> = parsed.query_pairs().into_owned().collect();
        assert!(query["issuer"].starts_with("KnotRoute Control"), "{uri}");
        // The key to type by hand is the same secret, in groups of four.
        let typed = enrollment["secret"].as_str().unwrap();
        assert_eq!(typed.replace(' ', ""), query["secret"]);

        // Not on until a first code proves the app has the secret.
        assert_eq!(sign_in(&c, "anna", None).await.0, 200);
        let now = code_now(&uri);
        let (status, refused) = ui(&anna, &c, "confirm_two_step", &[("code", &wrong(&now))]).await;
        assert_eq!(status, 400);
        assert_eq!(refused["Invalid"][0]["field"], "code");
        assert_eq!(refused["Invalid"][0]["problem"], "wrong_code");
        let (status, refused) = ui(&anna, &c, "confirm_two_step", &[("code", "12ab")]).await;
        assert_eq!(
            (status, refused["Invalid"][0]["problem"].as_str()),
            (400, Some("code_format"))
        );
        let (status, codes) = ui(&anna, &c, "confirm_two_step", &[("code", &now)]).await;
        assert_eq!(status, 200, "{codes}");
        let codes: Vec<String> = codes["codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        assert_eq!(codes.len(), 10);
        assert_eq!(
            codes.iter().collect::<std::collections::HashSet<_>>().len(),
            10
        );
        assert!(
            codes
                .iter()
                .all(|c| c.len() == 11 && c.as_bytes()[5] == b'-'),
            "{codes:?}"
        );
        let (status, again) = ui(&anna, &c, "begin_two_step", &[]).await;
        assert_eq!(
            (status, again["Refused"].as_str()),
            (409, Some("second_factor_already_on"))
        );

        // The owner sees it on the Users list.
        let people: Vec<Value> = c.get_json("/api/v1/users").await;
        assert_eq!(
            people.iter().find(|p| p["name"] == "anna").unwrap()["second_factor"],
            true
        );

        // The password alone is no longer enough, and says what is missing.
        let (status, body) = sign_in(&c, "anna", None).await;
        assert_eq!(
            (status, body["code"].as_str(), body["field"].as_str()),
            (401, Some("second_factor_needed"), Some("code"))
        );
        let (status, body) = sign_in(&c, "anna", Some(&wrong(&next_code(&uri)))).await;
        assert_eq!(
            (status, body["code"].as_str(), body["field"].as_str()),
            (401, Some("wrong_code"), Some("code"))
        );
        // The code that confirmed the app was used: it does not work again.
        assert_eq!(
            sign_in(&c, "anna", Some(&now)).await.1["code"],
            "wrong_code"
        );
        let next = next_code(&uri);
        let (status, body) = sign_in(&c, "anna", Some(&next)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["authenticated"], true);
        assert_eq!(
            sign_in(&c, "anna", Some(&next)).await.1["code"],
            "wrong_code",
            "a code works once"
        );

        // A recovery code, typed as people type (upper case, no dash), works once.
        let typed = codes[0].replace('-', "").to_uppercase();
        assert_eq!(sign_in(&c, "anna", Some(&typed)).await.0, 200);
        assert_eq!(
            sign_in(&c, "anna", Some(&codes[0])).await.1["code"],
            "wrong_code"
        );
        let audit: Vec<Value> = c
            .get_json("/api/v1/audit?action=user.recovery_code_used")
            .await;
        assert_eq!(audit.len(), 1, "{audit:?}");
        assert_eq!(audit[0]["actor"], "user:anna");

        // Only hashes are kept: no stored value contains a code.
        let rows = c
            .state
            .db
            .query_all(Statement::from_string(
                c.state.db.get_database_backend(),
                "SELECT code_hash, used_at FROM user_recovery_codes",
            ))
            .await
            .unwrap();
        assert_eq!(rows.len(), 10);
        for row in &rows {
            let hash: String = row.try_get("", "code_hash").unwrap();
            assert!(codes
                .iter()
                .all(|code| !hash.contains(&code.replace('-', ""))));
        }

        // Settings shows what is left; new codes and turning off need a code.
        let (_, screen) = ui(&anna, &c, "settings_screen", &[]).await;
        assert_eq!(
            screen["second_factor"],
            json!({"applies": true, "enabled": true, "required": false, "recovery_codes_left": 9})
        );
        let (status, _) = ui(&anna, &c, "renew_recovery_codes", &[("code", "")]).await;
        assert_eq!(status, 400);
        let (status, renewed) = ui(&anna, &c, "renew_recovery_codes", &[("code", &codes[1])]).await;
        assert_eq!(status, 200, "{renewed}");
        assert_eq!(
            sign_in(&c, "anna", Some(&codes[2])).await.1["code"],
            "wrong_code",
            "old codes end with renewal"
        );
        let fresh = renewed["codes"][0].as_str().unwrap();
        let (status, _) = ui(&anna, &c, "turn_off_two_step", &[("code", fresh)]).await;
        assert_eq!(status, 200);
        assert_eq!(
            sign_in(&c, "anna", None).await.0,
            200,
            "off: the password is enough again"
        );
        let audit: Vec<Value> = c.get_json("/api/v1/audit?subject=anna").await;
        let actions: Vec<&str> = audit
            .iter()
            .map(|e| e["action"].as_str().unwrap())
            .collect();
        for expected in [
            "user.second_factor_on",
            "user.recovery_codes_renewed",
            "user.second_factor_off",
        ] {
            assert!(actions.contains(&expected), "{actions:?}");
        }
    }
);

on_both_databases!(
    the_owner_requires_it_and_people_set_it_up_while_signing_in,
    |backend| async move {
        let c = common::signed_in(backend).await;
        let anna = join(&c, "admin", "anna").await;
        let (uri, _) = turn_on(&c, &anna).await;
        let bob = join(&c, "operator", "bob").await;
        let olga = join(&c, "owner", "olga").await;
        turn_on(&c, &olga).await;

        // Only the owner decides; an admin is refused.
        let r = anna
            .put(c.url("/api/v1/users/second-factor"))
            .json(&json!({ "required": true }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        let r = c
            .client
            .put(c.url("/api/v1/users/second-factor"))
            .json(&json!({ "required": true }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let policy: Value = c.get_json("/api/v1/users/second-factor").await;
        assert_eq!(policy["required"], true);

        // Required: it cannot be turned off, and the code is not used up by trying.
        let (status, refused) =
            ui(&anna, &c, "turn_off_two_step", &[("code", &code_now(&uri))]).await;
        assert_eq!(
            (status, refused["Refused"].as_str()),
            (409, Some("second_factor_required"))
        );

        // Bob has none, and his password alone sets none up: whoever stole it
        // would set up their own phone. He is refused, and told what he needs.
        let (status, body) = sign_in(&c, "bob", None).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("second_factor_setup_link_needed"))
        );
        let browser = browser_like_client(&c.base);
        let (status, refused) = ui(
            &browser,
            &c,
            "sign_in",
            &[("name", "bob"), ("password", PERSON_PASSWORD)],
        )
        .await;
        assert_eq!(
            (status, refused["Refused"].as_str()),
            (403, Some("second_factor_setup_link_needed")),
            "{refused}"
        );
        // A link from someone else's account is no key either.
        let bob_id = user_id(&c, "bob").await;
        let _dora = join(&c, "viewer", "dora").await;
        let doras_link = setup_link(&c, &user_id(&c, "dora").await).await;
        let stranger = browser_like_client(&c.base);
        open_link(&stranger, &c, &doras_link).await;
        let (status, _) = ui(
            &stranger,
            &c,
            "sign_in",
            &[("name", "bob"), ("password", PERSON_PASSWORD)],
        )
        .await;
        assert_eq!(status, 403, "Dora's link does not set Bob's up");
        // The owner makes Bob a setup link; Bob opens it in his browser,
        // which keeps it for the sign-in that sets the second factor up.
        let bobs_link = setup_link(&c, &bob_id).await;
        open_link(&browser, &c, &bobs_link).await;
        let (status, asked) = ui(
            &browser,
            &c,
            "sign_in",
            &[("name", "bob"), ("password", PERSON_PASSWORD)],
        )
        .await;
        assert_eq!(status, 401, "{asked}");
        let setup = &asked["SetUpSecondFactor"];
        let bob_uri = setup["otpauth_uri"]
            .as_str()
            .expect("an enrollment")
            .to_string();
        assert_eq!(decode_qr(setup["qr_svg"].as_str().unwrap()), bob_uri);
        let token = &bobs_link[bobs_link.find("/two-step-setup/").unwrap() + 16..];
        let cookie = format!("kr_two_step_setup={token}");
        the_secret_stays_out_of_a_plain_forms_address(&c, &bob_uri, &cookie).await;
        // Asking again (another tab, a script) shows the same secret, so the
        // QR code just scanned keeps working; a wrong code is refused.
        let (status, body) = sign_in(&c, "bob", None).await;
        assert_eq!(status, 403, "{body}");
        let (_, asked) = ui(
            &browser,
            &c,
            "sign_in",
            &[("name", "bob"), ("password", PERSON_PASSWORD)],
        )
        .await;
        assert_eq!(asked["SetUpSecondFactor"]["otpauth_uri"], bob_uri.as_str());
        let (status, refused) = ui(
            &browser,
            &c,
            "sign_in",
            &[
                ("name", "bob"),
                ("password", PERSON_PASSWORD),
                ("code", &wrong(&code_now(&bob_uri))),
            ],
        )
        .await;
        assert_eq!(
            (status, refused["Invalid"][0]["problem"].as_str()),
            (400, Some("wrong_code"))
        );
        let (status, codes) = ui(
            &browser,
            &c,
            "sign_in",
            &[
                ("name", "bob"),
                ("password", PERSON_PASSWORD),
                ("code", &code_now(&bob_uri)),
            ],
        )
        .await;
        assert_eq!(status, 200, "{codes}");
        assert_eq!(
            codes.as_array().unwrap().len(),
            10,
            "recovery codes, shown once: {codes}"
        );
        let (_, screen) = ui(&browser, &c, "settings_screen", &[]).await;
        assert_eq!(
            screen["second_factor"]["enabled"], true,
            "signed in, with it on"
        );
        // The link is used up: it opens nothing now, and a link is only for
        // someone who has none yet.
        let used = reqwest::get(c.url(&bobs_link[bobs_link.find("/two-step-setup/").unwrap()..]))
            .await
            .unwrap();
        assert_eq!(used.status(), 410);
        let r = c
            .post_json(
                &format!("/api/v1/users/{bob_id}/second-factor/setup-link"),
                json!({}),
            )
            .await;
        assert_eq!(r.status(), 409);
        drop(bob);

        // A person invited while it is required signs in to set it up: the
        // invitation was the something beyond the password.
        let path = invite(&c, "viewer").await;
        let carol = browser_like_client(&c.base);
        let r = welcome(&carol, &c, &path, "carol", PERSON_PASSWORD, PERSON_PASSWORD).await;
        assert_eq!(r.status(), 303);
        assert_eq!(r.headers()["location"], "/login?two_step=setup");
        let cookies: Vec<&str> = r
            .headers()
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert!(
            !cookies.iter().any(|c| c.contains("kr_session=")),
            "{cookies:?}"
        );
        assert!(
            cookies.iter().any(|c| c.starts_with("kr_two_step_setup=")),
            "{cookies:?}"
        );
        let (status, asked) = ui(
            &carol,
            &c,
            "sign_in",
            &[("name", "carol"), ("password", PERSON_PASSWORD)],
        )
        .await;
        assert_eq!(status, 401, "{asked}");
        assert!(
            asked["SetUpSecondFactor"]["otpauth_uri"].is_string(),
            "{asked}"
        );

        // The break-glass password is not asked for codes, and has none to set up.
        c.sign_in().await;
        let (status, refused) = ui(&c.client, &c, "begin_two_step", &[]).await;
        assert_eq!(
            (status, refused["Refused"].as_str()),
            (409, Some("second_factor_not_applicable"))
        );

        // An owner's own is not reset without a code (that would get round it).
        let olga_id = user_id(&c, "olga").await;
        let r = olga
            .delete(c.url(&format!("/api/v1/users/{olga_id}/second-factor")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 409);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "second_factor_reset_own");

        // A lost phone: the owner resets it, and a setup link sets up a new one.
        let anna_id = user_id(&c, "anna").await;
        assert_eq!(
            c.delete(&format!("/api/v1/users/{anna_id}/second-factor"))
                .await
                .status(),
            204
        );
        let (status, body) = sign_in(&c, "anna", Some(&next_code(&uri))).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("second_factor_setup_link_needed")),
            "the old app's codes end"
        );
        let audit: Vec<Value> = c
            .get_json("/api/v1/audit?action=user.second_factor_reset")
            .await;
        assert_eq!(
            (audit.len(), audit[0]["actor"].as_str()),
            (1, Some("owner (break-glass)"))
        );
    }
);

on_both_databases!(
    wrong_codes_are_counted_per_person_whatever_address_they_come_from,
    |backend| async move {
        let c = common::behind_proxy(backend).await;
        c.sign_in().await;
        let anna = join(&c, "viewer", "anna").await;
        let (uri, _) = turn_on(&c, &anna).await;
        for i in 0..8 {
            let ip = format!("198.51.100.{}", 10 + i);
            let (status, body) =
                sign_in_from(&c, "anna", Some(&wrong(&next_code(&uri))), Some(&ip)).await;
            assert_eq!((status, body["code"].as_str()), (401, Some("wrong_code")));
        }
        // The password is right and the address new; the code is not tried.
        let (status, body) =
            sign_in_from(&c, "anna", Some(&next_code(&uri)), Some("203.0.113.9")).await;
        assert_eq!((status, body["code"].as_str()), (429, Some("throttled")));
        // Someone else is not held back.
        let bob = join(&c, "viewer", "bob").await;
        drop(bob);
        assert_eq!(
            sign_in_from(&c, "bob", None, Some("203.0.113.9")).await.0,
            200
        );
    }
);

/// A sign-in sent as a plain HTML form (before or without WebAssembly) is
/// answered by a redirect back to the sign-in page with the refusal in the
/// address, which the page then says. The address ends up in the browser's
/// history and in proxies' logs: it names the set-up that is needed, never
/// the secret (`uri`) to add to an app.
/// `cookie`: the browser's setup link (a sign-in without one sets nothing
/// up, so there would be no secret to keep out).
async fn the_secret_stays_out_of_a_plain_forms_address(c: &Control, uri: &str, cookie: &str) {
    let secret = uri
        .split("secret=")
        .nth(1)
        .and_then(|rest| rest.split('&').next())
        .unwrap();
    let login = format!("{}/login?next=/jobs", c.base);
    let cases = [
        (
            format!("name=bob&password={PERSON_PASSWORD}"),
            "requires two-step sign-in",
        ),
        (
            "name=bob&password=not-it".to_string(),
            "Wrong name or password.",
        ),
    ];
    for (form, says) in cases {
        let answer = common::post_form(c.addr, &c.base, cookie, "/ui/sign_in", &login, &form).await;
        assert_eq!(answer.status, 302, "{}", answer.head);
        let location = answer.header("location").concat();
        assert!(
            location.starts_with(&login) && location.contains("__err="),
            "{location}"
        );
        assert!(
            !answer.head.contains(secret) && !answer.body.contains(secret),
            "the secret went into the redirect: {}",
            answer.head
        );
        let refusal: Value = url::Url::parse(&location)
            .unwrap()
            .query_pairs()
            .find(|(key, _)| key == "__err")
            .map(|(_, value)| {
                // server_fn writes the refusal's JSON in base64.
                let json = data_encoding::BASE64.decode(value.as_bytes()).unwrap();
                serde_json::from_slice(&json).unwrap()
            })
            .unwrap();
        if let Some(set_up) = refusal.get("SetUpSecondFactor") {
            assert_eq!(
                set_up,
                &json!({"secret": "", "otpauth_uri": "", "qr_svg": ""}),
                "the set-up's secret, its URI and its QR code stay out of the address"
            );
        }
        let page = common::get_page(c.addr, "", &location[c.base.len()..]).await;
        assert_eq!(page.status, 200, "{}", page.head);
        let start = page
            .body
            .find("id=\"login-error\"")
            .expect("the error line");
        let line = &page.body[start..start + page.body[start..].find("</p>").unwrap()];
        assert!(line.contains(says), "{form}: {line}");
        assert!(!page.body.contains(secret));
    }
}
