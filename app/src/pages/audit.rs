//! Audit log: who did what to which thing, and when; filtered by action,
//! person (an actor links to its person's entries) and subject, paged newest
//! first. Filters and the page live in the query string, so a view can be
//! bookmarked and the back button works.

use super::infrastructure::when;
use super::layout::Frame;
use super::loaded;
use crate::api::audit::list_audit;
use crate::i18n::audit::audit_texts;
use crate::i18n::texts;
use crate::use_lang;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::api::AuditEntry;

/// Suggestions for the action filter (the filter takes any slug).
const KNOWN_ACTIONS: [&str; 21] = [
    "network.created",
    "network.updated",
    "network.deleted",
    "network.beacon_added",
    "agent.enrolled",
    "agent.enroll_refused",
    "agent.disabled",
    "agent.enabled",
    "agent.revoked",
    "agent.moving",
    "agent.deleted",
    "install_token.created",
    "install_token.revoked",
    "invite.created",
    "invite.revoked",
    "job.created",
    "job.finished",
    "job.cancelled",
    "job.expired",
    "component.redeployed",
    "settings.alert_webhook",
];

/// Where a subject ID leads: the page of the thing it names, when there is one.
fn subject_link(subject: &str) -> Option<String> {
    if subject.starts_with("ka_") {
        Some(format!("/infrastructure/agents/{subject}"))
    } else if subject.starts_with("kn_") {
        Some(format!("/networks/{subject}"))
    } else {
        None
    }
}

#[component]
pub fn AuditPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let at = audit_texts(lang);
    let query = use_query_map();
    let param = move |name: &str| query.read().get(name).filter(|v| !v.trim().is_empty());
    let action = move || param("action");
    let person = move || param("person");
    let subject = move || param("subject");
    let before = move || param("before").and_then(|b| b.parse::<i64>().ok());
    let entries = Resource::new(
        move || (action(), person(), subject(), before()),
        |(action, person, subject, before)| list_audit(action, person, subject, before),
    );
    view! {
        <Title text=format!("{} · {}", at.title, t.product) />
        <Frame>
            <h1>{at.title}</h1>
            <p class="muted">{at.intro}</p>
            <form method="get" action="/audit" class="filters" id="audit-filters">
                <label for="audit-action">{at.filter_action}</label>
                <input id="audit-action" name="action" list="audit-actions" placeholder=at.any
                    prop:value=move || action().unwrap_or_default() />
                <datalist id="audit-actions">
                    {KNOWN_ACTIONS.iter().map(|a| view! { <option value=*a></option> }).collect_view()}
                </datalist>
                <label for="audit-person">{at.filter_person}</label>
                <input id="audit-person" name="person" placeholder=at.any autocapitalize="none"
                    prop:value=move || person().unwrap_or_default() />
                <label for="audit-subject">{at.filter_subject}</label>
                <input id="audit-subject" name="subject" placeholder="kn_… / ka_… / job_…"
                    prop:value=move || subject().unwrap_or_default() />
                <button type="submit">{at.apply}</button>
            </form>
            {loaded(
                move || async move { entries.await },
                move |answer| {
                    let filtered = action().is_some() || person().is_some() || subject().is_some();
                    match answer {
                        page if page.items.is_empty() && before().is_none() => {
                            let text = if filtered { at.empty_filtered } else { at.empty };
                            view! { <p class="empty" id="audit-empty">{text}</p> }.into_any()
                        }
                        page => {
                            let mut filter = String::new();
                            for (name, value) in [("action", action()), ("person", person()), ("subject", subject())] {
                                if let Some(value) = value {
                                    filter.push_str(&format!("{name}={}&", urlencode(&value)));
                                }
                            }
                            let rows = page.items.into_iter().map(|e| view! { <AuditRow entry=e /> }).collect_view();
                            view! {
                                <table class="list" id="audit-table">
                                    <thead><tr>
                                        <th scope="col">{at.col_when}</th>
                                        <th scope="col">{at.col_who}</th>
                                        <th scope="col">{at.col_what}</th>
                                        <th scope="col">{at.col_subject}</th>
                                        <th scope="col">{at.col_detail}</th>
                                    </tr></thead>
                                    <tbody>{rows}</tbody>
                                </table>
                                <nav class="pager" aria-label="Pages">
                                    {before().map(|_| view! { <a href=format!("/audit?{filter}")>{at.newest}</a> })}
                                    {page.next.map(|id| view! { <a href=format!("/audit?{filter}before={id}") rel="next" id="audit-older">{at.older}</a> })}
                                </nav>
                            }
                                .into_any()
                        }
                    }
                },
            )}
        </Frame>
    }
}

#[component]
fn AuditRow(entry: AuditEntry) -> impl IntoView {
    let at = audit_texts(use_lang());
    let subject = match subject_link(&entry.subject) {
        Some(href) => {
            view! { <a href=href><code class="id">{entry.subject.clone()}</code></a> }.into_any()
        }
        None => view! { <code class="id">{entry.subject.clone()}</code> }.into_any(),
    };
    view! {
        <tr class="audit-row">
            <td data-label=at.col_when>{when(&entry.at)}</td>
            <td data-label=at.col_who>
                <a href=format!("/audit?person={}", urlencode(protocol::users::audit_person(&entry.actor)))>
                    <code>{entry.actor.clone()}</code>
                </a>
            </td>
            <td data-label=at.col_what class="audit-action">{entry.action}</td>
            <td data-label=at.col_subject>{subject}</td>
            <td data-label=at.col_detail>{entry.detail}</td>
        </tr>
    }
}

/// Percent-encodes a query value (the filters are free text).
fn urlencode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_link_to_their_pages_and_filters_are_encoded() {
        assert_eq!(
            subject_link("ka_abc").as_deref(),
            Some("/infrastructure/agents/ka_abc")
        );
        assert_eq!(subject_link("kn_x").as_deref(), Some("/networks/kn_x"));
        assert_eq!(subject_link("job_1"), None);
        assert_eq!(urlencode("job.created"), "job.created");
        assert_eq!(urlencode("a b&c=д"), "a+b%26c%3D%D0%B4");
    }
}
