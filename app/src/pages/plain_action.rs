//! Row actions sent as plain HTML forms, so that a list drawn by the server
//! (a live region, crate::live_region) needs no WebAssembly for them. The
//! server function answers the form's post with a redirect back to the page
//! (server_fn's form redirects), which then shows the list as it now is.
//! When the server function refuses, that redirect names the refusal in the
//! address (`__path`, `__err`), and the page shows it ([`refusal_in_address`]).
//!
//! The post is a state-changing request like any other: the server's
//! same-origin check (CSRF) and the server function's role check apply.

use crate::error::UiError;
use leptos::prelude::*;
use leptos::server_fn::error::ServerFnUrlError;
use leptos_router::params::ParamsMap;

/// A button that sends `id` to the server function at `action`.
#[component]
pub fn RowAction(
    /// The server function's path (`CancelJob::PATH`).
    action: &'static str,
    /// The server function's argument that names what it acts on.
    #[prop(default = "id")]
    field: &'static str,
    /// What it acts on.
    id: String,
    /// Further arguments of the server function, as (name, value).
    #[prop(optional)]
    more: Vec<(&'static str, String)>,
    /// The button's class, by which tests and styles find it.
    class: &'static str,
    /// The button's id, where the page has one such button; else
    /// `{class}-{id}`. A live region drawn again keeps keyboard focus on the
    /// element of the same id (assets/live_regions.js).
    #[prop(optional, into)]
    button_id: Option<String>,
    /// The button's accessible name, where its label says too little
    /// ("Check", on every row).
    #[prop(optional, into)]
    aria_label: Option<String>,
    label: &'static str,
) -> impl IntoView {
    let button_id = button_id.unwrap_or_else(|| format!("{class}-{id}"));
    let more = more
        .into_iter()
        .map(|(name, value)| view! { <input type="hidden" name=name value=value /> })
        .collect_view();
    view! {
        <form method="post" action=action class="row-action">
            <input type="hidden" name=field value=id />
            {more}
            <button type="submit" class=class id=button_id aria-label=aria_label>{label}</button>
        </form>
    }
}

/// The address of `page` that asks the confirmation `confirm_id`
/// ([`ConfirmAtAddress`]) about `value`, named by `key` in the query.
pub fn confirm_address(page: &str, key: &str, value: &str, confirm_id: &str) -> String {
    format!("{}#{confirm_id}", with_query(page, key, value))
}

/// `address` with `key=value` added to its query, encoded (a value from
/// the address, such as a pager's cursor, adds no other key).
pub fn with_query(address: &str, key: &str, value: &str) -> String {
    let joined = if address.contains('?') { '&' } else { '?' };
    let pair = url::form_urlencoded::Serializer::new(String::new())
        .append_pair(key, value)
        .finish();
    format!("{address}{joined}{pair}")
}

/// A confirmation drawn by the server under the list it is about, at an
/// address of its own (a link such as `?allow_key=…#confirm-allow` asks for
/// it): the title, what the action means, Cancel (a link back) and the
/// button that does it, a [`RowAction`]. Keyboard focus starts on Cancel, as
/// in the screens' dialogs, and Escape follows Cancel (assets/confirm_escape.js).
/// Its title and explanation are `{id}-title` and `{id}-explain`.
#[component]
pub fn ConfirmAtAddress(
    id: &'static str,
    /// What the explanation says the action does.
    explain: &'static str,
    /// Where Cancel goes: the page without the question.
    #[prop(into)]
    cancel_href: String,
    cancel_id: &'static str,
    /// The action, as [`RowAction`] takes it.
    action: &'static str,
    #[prop(default = "id")] field: &'static str,
    value: String,
    /// Further arguments of the server function, as [`RowAction`] takes them.
    #[prop(optional)]
    more: Vec<(&'static str, String)>,
    confirm_id: &'static str,
    label: &'static str,
    /// The title's contents.
    children: Children,
) -> impl IntoView {
    let cancel = crate::i18n::texts(crate::use_lang()).cancel;
    let (title, explained) = (format!("{id}-title"), format!("{id}-explain"));
    let (labelled_by, described_by) = (title.clone(), explained.clone());
    view! {
        <div class="card confirm-inline" id=id role="alertdialog"
            aria-labelledby=labelled_by aria-describedby=described_by>
            <h3 id=title>{children()}</h3>
            <p id=explained>{explain}</p>
            <div class="actions">
                <a href=cancel_href class="button" id=cancel_id autofocus=true data-cancel="">{cancel}</a>
                <RowAction action field id=value more class="danger" button_id=confirm_id label />
            </div>
        </div>
    }
}

/// The refusal that one of the server functions at `paths` sent back in the
/// page's address. An address someone hand-wrote can only name a refusal
/// the catalogue has: the message is always one of ours.
pub fn refusal_in_address(query: &ParamsMap, paths: &[&str]) -> Option<UiError> {
    let path = query.get_str("__path")?;
    let encoded = query.get_str("__err")?;
    paths
        .contains(&path)
        .then(|| ServerFnUrlError::<UiError>::decode_err(encoded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::refusals::Refusal;
    use protocol::JobStatus;

    fn query(pairs: &[(&str, &str)]) -> ParamsMap {
        let mut map = ParamsMap::new();
        for (k, v) in pairs {
            map.insert(k.to_string(), v.to_string());
        }
        map
    }

    /// The address server_fn writes after a refused form post reads back as
    /// that refusal, but only for the server functions the page sends to.
    #[test]
    fn a_refusal_in_the_address_reads_back_for_the_pages_own_actions() {
        let refused = UiError::Refused(Refusal::JobState {
            status: JobStatus::Succeeded,
        });
        let url = ServerFnUrlError::new("/ui/cancel_job", refused)
            .to_url("http://c.example/jobs?status=pending")
            .unwrap();
        let map = ParamsMap::from_iter(
            url.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned())),
        );
        let read = refusal_in_address(&map, &["/ui/cancel_job", "/ui/retry_job"]);
        assert!(matches!(
            read,
            Some(UiError::Refused(Refusal::JobState { .. }))
        ));
        assert!(refusal_in_address(&map, &["/ui/retry_job"]).is_none());
        assert!(
            refusal_in_address(&query(&[("status", "pending")]), &["/ui/cancel_job"]).is_none()
        );
        // Garbage in the address is not a 500 and not raw text: a generic error.
        let garbage = query(&[("__path", "/ui/cancel_job"), ("__err", "<script>")]);
        assert!(matches!(
            refusal_in_address(&garbage, &["/ui/cancel_job"]),
            Some(UiError::ServerFn(_))
        ));
    }
}
