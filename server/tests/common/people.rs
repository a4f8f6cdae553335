//! People with accounts of their own, as tests make them: the signed-in
//! owner invites, the person takes up the link in a browser of their own.

use super::{browser_like_client, Control};
use serde_json::{json, Value};

/// The password every test person chooses.
pub const PERSON_PASSWORD: &str = "a person's long passphrase";

/// Creates an invitation in `role` as the signed-in owner; its link's path.
pub async fn invite(c: &Control, role: &str) -> String {
    invite_to(c, role, &[]).await
}

/// Like [`invite`], for a person who will see only `networks` (none: all).
pub async fn invite_to(c: &Control, role: &str, networks: &[String]) -> String {
    let r = c
        .post_json(
            "/api/v1/users/invites",
            json!({ "role": role, "networks": networks }),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    assert_eq!(created["role"], role);
    assert_eq!(created["networks"], json!(networks));
    let link = created["link"].as_str().unwrap();
    link[link.find("/welcome/").expect("a welcome link")..].to_string()
}

/// Posts the welcome form as a browser would (same origin, form encoded).
pub async fn welcome(
    browser: &reqwest::Client,
    c: &Control,
    path: &str,
    name: &str,
    password: &str,
    again: &str,
) -> reqwest::Response {
    browser
        .post(c.url(path))
        .form(&[
            ("name", name),
            ("password", password),
            ("password_again", again),
        ])
        .send()
        .await
        .unwrap()
}

/// A person who took up an invitation in `role`: their signed-in browser.
pub async fn join(c: &Control, role: &str, name: &str) -> reqwest::Client {
    join_limited(c, role, name, &[]).await
}

/// Like [`join`], for a person who sees only `networks` (none: all).
pub async fn join_limited(
    c: &Control,
    role: &str,
    name: &str,
    networks: &[String],
) -> reqwest::Client {
    let path = invite_to(c, role, networks).await;
    let browser = browser_like_client(&c.base);
    let r = welcome(&browser, c, &path, name, PERSON_PASSWORD, PERSON_PASSWORD).await;
    assert_eq!(r.status(), 303, "joined and signed in");
    browser
}

/// The page at `path` as `person`'s browser asks for it, which must be found.
pub async fn page_as(person: &reqwest::Client, c: &Control, path: &str) -> String {
    let page = person
        .get(c.url(path))
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200, "{path}");
    page.text().await.unwrap()
}
