//! The real OpenID provider of the tests: panva's certified `oidc-provider`
//! (npm), run with the machine's Node.js from `end2end/oidc-provider/`
//! (scripts/install-tools.sh installs it). Not a fake: discovery, keys,
//! PKCE, codes and ID tokens are the library's own.

use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The provider's client for Control, as `provider.mjs` registers it.
pub const CLIENT_ID: &str = "knotroute";
pub const CLIENT_SECRET: &str = "knotroute-test-client-secret";

/// A running provider; stopped when dropped.
pub struct TestProvider {
    pub issuer: String,
    admin_token: String,
    child: Child,
    _users: tempfile_path::TempFile,
}

mod tempfile_path {
    /// A file removed when dropped (no tempfile dependency for one file).
    pub struct TempFile(pub std::path::PathBuf);
    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Where the provider puts a person's claims in the code flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimsIn {
    /// In the ID token too (`conformIdTokenClaims: false`).
    IdToken,
    /// Only in userinfo; the ID token names the subject alone. The
    /// provider's default, and many providers' way.
    UserinfoOnly,
}

impl TestProvider {
    /// Starts the provider for a Control whose callback is `redirect_uri`,
    /// with `users` (`{"alice": {"password", "name", "email", "groups"}}`).
    pub async fn start(redirect_uri: &str, users: &Value) -> Self {
        Self::start_with(redirect_uri, users, ClaimsIn::IdToken).await
    }

    /// As [`Self::start`], with the people's claims (groups, name, email)
    /// where `claims` says.
    pub async fn start_with(redirect_uri: &str, users: &Value, claims: ClaimsIn) -> Self {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../end2end/oidc-provider");
        assert!(
            std::path::Path::new(&format!("{dir}/node_modules/oidc-provider")).exists(),
            "the test OpenID provider is not installed: run scripts/install-tools.sh"
        );
        let port = free_port();
        let users_file = std::env::temp_dir().join(format!(
            "knotroute-oidc-users-{}-{port}.json",
            std::process::id()
        ));
        std::fs::write(&users_file, users.to_string()).expect("write the users file");
        let admin_token = format!("admin-{:016x}", rand::random::<u64>());
        let child = Command::new("node")
            .arg(format!("{dir}/provider.mjs"))
            .env("OIDC_PORT", port.to_string())
            .env("OIDC_CLIENT_ID", CLIENT_ID)
            .env("OIDC_CLIENT_SECRET", CLIENT_SECRET)
            .env("OIDC_REDIRECT_URI", redirect_uri)
            .env("OIDC_USERS_FILE", &users_file)
            .env("OIDC_ADMIN_TOKEN", &admin_token)
            .env(
                "OIDC_CLAIMS_IN_USERINFO",
                if claims == ClaimsIn::UserinfoOnly {
                    "1"
                } else {
                    "0"
                },
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start node (the test OpenID provider)");
        let provider = Self {
            issuer: format!("http://127.0.0.1:{port}"),
            admin_token,
            child,
            _users: tempfile_path::TempFile(users_file),
        };
        let discovery = format!("{}/.well-known/openid-configuration", provider.issuer);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(r) = reqwest::get(&discovery).await {
                if r.status().is_success() {
                    break;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the test OpenID provider did not start"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        provider
    }

    /// Replaces the provider's users: a test takes someone out of a group.
    pub async fn set_users(&self, users: &Value) {
        let r = reqwest::Client::new()
            .put(format!("{}/admin/users", self.issuer))
            .bearer_auth(&self.admin_token)
            .body(users.to_string())
            .send()
            .await
            .expect("PUT /admin/users");
        assert_eq!(r.status(), 204, "the provider took the new users");
    }

    /// Signs `login` in at the provider, as a browser would, starting from
    /// the authorization URL Control redirected to; returns where the
    /// provider sends the browser back (Control's callback with code and
    /// state), or the provider's error text when it refused.
    pub async fn sign_in(
        &self,
        authorization_url: &str,
        login: &str,
        password: &str,
    ) -> Result<String, String> {
        let browser = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let page = browser
            .get(authorization_url)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let page = match self.follow(&browser, page).await? {
            Followed::Left(to) => return Ok(to),
            Followed::Page(page) => page,
        };
        let url = page.url().clone();
        let html = page.text().await.map_err(|e| e.to_string())?;
        let action = html
            .split("<form method=\"post\" action=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .ok_or_else(|| format!("no sign-in form at the provider: {html}"))?;
        let action = url.join(action).map_err(|e| e.to_string())?;
        let page = browser
            .post(action)
            .form(&[("login", login), ("password", password)])
            .send()
            .await
            .map_err(|e| e.to_string())?;
        match self.follow(&browser, page).await? {
            Followed::Left(to) => Ok(to),
            // Still at the provider: it refused, and its page says why.
            Followed::Page(page) => Err(page.text().await.unwrap_or_default()),
        }
    }

    /// Follows the provider's own redirects, up to one that leaves it.
    async fn follow(
        &self,
        browser: &reqwest::Client,
        mut page: reqwest::Response,
    ) -> Result<Followed, String> {
        loop {
            match redirect_of(&page) {
                Some(next) if !next.starts_with(&self.issuer) => return Ok(Followed::Left(next)),
                Some(next) => {
                    page = browser.get(&next).send().await.map_err(|e| e.to_string())?;
                }
                None => return Ok(Followed::Page(page)),
            }
        }
    }
}

/// Where following the provider's redirects ended.
enum Followed {
    /// Sent away from the provider (to Control's callback), to this URL.
    Left(String),
    /// A page of the provider's own.
    Page(reqwest::Response),
}

/// An absolute redirect target, if `page` is a redirect.
fn redirect_of(page: &reqwest::Response) -> Option<String> {
    if !page.status().is_redirection() {
        return None;
    }
    let location = page.headers().get("location")?.to_str().ok()?;
    page.url().join(location).ok().map(|u| u.to_string())
}

impl Drop for TestProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
