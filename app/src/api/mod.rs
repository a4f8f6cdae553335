//! Server functions: the browser's calls into Control, one module per area
//! of the UI (this one: sign-in and network profiles). Each calls the domain
//! services (`with_services`), where the rules live, and shapes the answer
//! for its screen.

pub mod audit;
pub mod beacons;
pub mod infra;
pub mod jobs;
pub mod onboarding;
pub mod overview;
pub mod probes;
pub mod services;
pub mod settings;
pub mod setup;
pub mod two_step;
pub mod users;

#[cfg(feature = "ssr")]
use crate::backend::granted;
#[cfg(feature = "ssr")]
use crate::error::ui_error;
use crate::error::UiError;
#[cfg(feature = "ssr")]
use domain::access::roles::{CheckBeacons, EditNetworks};
use leptos::prelude::*;
use protocol::api::{NetworkInput, NetworkProfile, OverviewCounts};
#[cfg(feature = "ssr")]
use protocol::NetworkId;
use serde::{Deserialize, Serialize};

/// Prefix of every server function, kept apart from the JSON API under /api/v1.
/// The auth middleware lets only `sign_in` through without a session.
pub const SERVER_FN_PREFIX: &str = "/ui";
pub const SIGN_IN_PATH: &str = "/ui/sign_in";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkListPage {
    pub items: Vec<NetworkProfile>,
    /// Cursor for the next page, when there is one.
    pub next: Option<String>,
}

/// Rows per page in the UI's lists.
#[cfg(feature = "ssr")]
pub(crate) const UI_PAGE_SIZE: u64 = 50;

/// The body of every server function a signed-in admin calls: `call` runs
/// on the domain services, and a refusal gets the HTTP status that fits it.
/// Refused with 401 before `call` runs when the request carries no session.
#[cfg(feature = "ssr")]
pub(crate) async fn with_services<T, Answer>(
    call: impl FnOnce(domain::services::Services) -> Answer,
) -> Result<T, UiError>
where
    Answer: std::future::Future<Output = Result<T, UiError>>,
{
    let answer = match crate::backend::services() {
        Ok(services) => call(services).await,
        Err(refused) => Err(refused),
    };
    with_status(answer)
}

/// Like [`with_services`], for a read: `call` also gets who asks, whose
/// networks decide what the answer holds.
#[cfg(feature = "ssr")]
pub(crate) async fn with_reader<T, Answer>(
    call: impl FnOnce(domain::services::Services, domain::access::principal::Principal) -> Answer,
) -> Result<T, UiError>
where
    Answer: std::future::Future<Output = Result<T, UiError>>,
{
    let answer = match crate::backend::services_and_reader() {
        Ok((services, reader)) => call(services, reader).await,
        Err(refused) => Err(refused),
    };
    with_status(answer)
}

/// Gives a refused call the HTTP status that fits it, so logs and monitoring
/// tell a validation refusal (400/404/409) from a server fault (500). A
/// plain form's post keeps server_fn's redirect instead, and its refusal,
/// which goes into the address, no secret ([`UiError::for_address`]).
#[cfg(feature = "ssr")]
fn with_status<T>(result: Result<T, UiError>) -> Result<T, UiError> {
    use http::StatusCode;
    use protocol::refusals::RefusalKind;
    let plain_form = is_plain_form_post();
    if let Err(e) = &result {
        let status = match e {
            UiError::Invalid(errors)
                if errors
                    .iter()
                    .any(|f| f.problem == protocol::Problem::NetworkIdTaken) =>
            {
                StatusCode::CONFLICT
            }
            UiError::Invalid(_) => StatusCode::BAD_REQUEST,
            UiError::NotFound => StatusCode::NOT_FOUND,
            UiError::Refused(refusal) => match refusal.kind() {
                RefusalKind::Invalid => StatusCode::BAD_REQUEST,
                RefusalKind::NotFound => StatusCode::NOT_FOUND,
                RefusalKind::Conflict => StatusCode::CONFLICT,
                RefusalKind::Forbidden => StatusCode::FORBIDDEN,
            },
            UiError::Unauthenticated
            | UiError::WrongPassword
            | UiError::CodeNeeded
            | UiError::SetUpSecondFactor(_) => StatusCode::UNAUTHORIZED,
            UiError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
            UiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            UiError::Internal | UiError::ServerFn(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            // A plain form's post is answered by a redirect back to its page
            // with the refusal in the address (pages::plain_action); a status
            // set here would replace that redirect, and the browser would
            // show the refusal's JSON instead of the page.
            if !plain_form {
                response.set_status(status);
            }
            if let UiError::Unavailable { retry_after_secs } = e {
                response.insert_header(http::header::RETRY_AFTER, (*retry_after_secs).into());
            }
        }
    }
    if plain_form {
        result.map_err(UiError::for_address)
    } else {
        result
    }
}

/// Whether the request is a plain HTML form's post, which server_fn and
/// leptos_axum answer with a redirect: by the same test they use, an
/// `Accept` that takes HTML, on a POST. A page being rendered (a GET, which
/// takes HTML too) keeps its refusal's status (403 for a screen not one's role's).
#[cfg(feature = "ssr")]
pub(crate) fn is_plain_form_post() -> bool {
    use_context::<http::request::Parts>().is_some_and(|request| {
        request.method == http::Method::POST
            && request
                .headers
                .get(http::header::ACCEPT)
                .and_then(|accept| accept.to_str().ok())
                .is_some_and(|accept| accept.contains("text/html"))
    })
}

/// Sends a plain form's post, done, on to `address` (server_fn would answer
/// it with the page it came from, question and all). A call from
/// WebAssembly gets the server function's answer as usual.
#[cfg(feature = "ssr")]
pub(crate) fn plain_form_done_at(address: &str) {
    if is_plain_form_post() {
        leptos_axum::redirect(address);
    }
}

/// `done` as the server function's answer; when it succeeded, a plain
/// form's post is sent on to `address` ([`plain_form_done_at`]), and a
/// refusal goes back to where the form was, with it in the address
/// ([`with_status`]).
#[cfg(feature = "ssr")]
pub(crate) fn answer_plain_form<T>(done: Result<T, UiError>, address: &str) -> Result<T, UiError> {
    if done.is_ok() {
        plain_form_done_at(address);
    }
    done
}

#[cfg(feature = "ssr")]
pub(crate) fn parse_id(id: &str) -> Result<NetworkId, UiError> {
    // A malformed ID in a URL cannot name any profile.
    NetworkId::parse(id).map_err(|_| UiError::NotFound)
}

#[server(prefix = "/ui", endpoint = "overview")]
pub async fn load_overview() -> Result<OverviewCounts, UiError> {
    with_reader(|s, who| async move { s.overview.counts(who.networks()).await.map_err(ui_error) })
        .await
}

/// One page of profiles by name; with `search`, only those whose name
/// contains it (the forms' profile choices, `pages::choice_search`).
#[server(prefix = "/ui", endpoint = "list_networks")]
pub async fn list_networks(
    after: Option<String>,
    search: Option<String>,
) -> Result<NetworkListPage, UiError> {
    with_reader(|s, who| async move {
        let page = s
            .networks
            .list(
                who.networks(),
                after.as_deref(),
                search.as_deref(),
                UI_PAGE_SIZE,
            )
            .await
            .map_err(ui_error)?;
        Ok(NetworkListPage {
            items: page.items,
            next: page.next,
        })
    })
    .await
}

/// The layered diagnosis of a profile (Beacons, Agents, services), in the
/// page's language.
#[server(prefix = "/ui", endpoint = "diagnose_network")]
pub async fn diagnose_network(id: String) -> Result<protocol::diagnostics::Diagnosis, UiError> {
    let lang = use_context::<crate::i18n::Lang>().unwrap_or_default();
    with_services(|s| async move {
        let id = parse_id(&id)?;
        let by = granted::<CheckBeacons>()?;
        s.diagnostics
            .diagnose(&by, &id, lang)
            .await
            .map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "get_network")]
pub async fn get_network(id: String) -> Result<NetworkProfile, UiError> {
    with_reader(|s, who| async move {
        let id = parse_id(&id)?;
        s.networks.get(who.networks(), &id).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "create_network", input = leptos::server_fn::codec::Json)]
pub async fn create_network(input: NetworkInput) -> Result<NetworkProfile, UiError> {
    with_services(|s| async move {
        let by = granted::<EditNetworks>()?;
        s.networks.create(&by, input).await.map_err(ui_error)
    })
    .await
}

#[server(prefix = "/ui", endpoint = "update_network", input = leptos::server_fn::codec::Json)]
pub async fn update_network(id: String, input: NetworkInput) -> Result<NetworkProfile, UiError> {
    with_services(|s| async move {
        let by = granted::<EditNetworks>()?;
        let id = parse_id(&id)?;
        s.networks.update(&by, &id, input).await.map_err(ui_error)
    })
    .await
}

/// Deletes a profile (the network page's plain form, after its
/// confirmation); done, on to the list.
#[server(prefix = "/ui", endpoint = "delete_network")]
pub async fn delete_network(id: String) -> Result<(), UiError> {
    let deleted = with_services(|s| async move {
        let by = granted::<EditNetworks>()?;
        let id = parse_id(&id)?;
        s.networks.delete(&by, &id).await.map_err(ui_error)
    })
    .await;
    answer_plain_form(deleted, "/networks")
}

/// `name` is empty (or left out, as by a script or a page from before
/// people had names) for the break-glass owner account. `code` is sent
/// once the answer asked for it ([`UiError::CodeNeeded`],
/// [`UiError::SetUpSecondFactor`]). The answer holds recovery codes when
/// this sign-in set up the second factor (shown once), else nothing.
#[server(prefix = "/ui", endpoint = "sign_in")]
pub async fn sign_in(
    #[server(default)] name: String,
    password: String,
    #[server(default)] code: Option<String>,
) -> Result<Vec<String>, UiError> {
    let parts: http::request::Parts = use_context().ok_or(UiError::Internal)?;
    let response = expect_context::<leptos_axum::ResponseOptions>();
    match crate::backend::sessions()?
        .sign_in(name, password, code, &parts)
        .await
    {
        Ok(signed_in) => {
            for cookie in signed_in.cookies {
                if let Ok(value) = http::HeaderValue::from_str(&cookie) {
                    response.append_header(http::header::SET_COOKIE, value);
                }
            }
            Ok(signed_in.recovery_codes)
        }
        Err(e) => with_status(Err(e)),
    }
}

/// Sent by the frame's plain sign-out form (pages::layout): the answer is a
/// redirect to the sign-in page, also when the session had already ended, so
/// that the person is never left on an error or the page they left.
#[server(prefix = "/ui", endpoint = "sign_out")]
pub async fn sign_out() -> Result<(), UiError> {
    leptos_axum::redirect("/login");
    let parts: http::request::Parts = use_context().ok_or(UiError::Internal)?;
    let cookie = crate::backend::sessions()?.sign_out(&parts).await?;
    if let Ok(value) = http::HeaderValue::from_str(&cookie) {
        expect_context::<leptos_axum::ResponseOptions>()
            .append_header(http::header::SET_COOKIE, value);
    }
    Ok(())
}
