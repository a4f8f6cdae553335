//! Revoked keys, on the Infrastructure screen: the keys refused at enrollment
//! even after their Agent is deleted, each with "Allow again" behind a
//! confirmation that says what it lets back in.
//!
//! Without WebAssembly: "Allow again" is a link to the same page with the
//! key named in the address (`allow_key`), which the server renders with the
//! confirmation under the list; its button is a plain form
//! (`plain_action`), its Cancel a link back.

use super::infrastructure::when;
use super::loaded;
use super::plain_action::{confirm_address, ConfirmAtAddress};
use crate::api::infra::{AgentsTab, AllowRevokedKey};
use crate::error::UiError;
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use protocol::actions::ActionKind;
use protocol::api::RevokedKeyView;

#[component]
pub fn RevokedKeys(
    /// The Agents tab's data.
    tab: Resource<Result<AgentsTab, UiError>>,
    /// The key the address asks to confirm letting in again.
    allow: Option<String>,
) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let it = infra_texts(lang);
    let allow = StoredValue::new(allow);
    view! {
        <h2 id="revoked-keys">{it.revoked_title}</h2>
        <p class="muted">{it.revoked_intro}</p>
        {loaded(
            move || async move { tab.await.map(|tab| tab.revoked_keys) },
            move |answer| {
                match answer {
                    list if list.is_empty() => {
                        view! { <p class="empty" id="revoked-empty">{it.revoked_empty}</p> }.into_any()
                    }
                    list => {
                        let may_allow = may(ActionKind::ManageAgents);
                        // Only a key still listed, and one that may be let in, is asked about.
                        let asked = allow
                            .get_value()
                            .filter(|_| may_allow)
                            .and_then(|id| list.iter().find(|k| k.agent_id.as_str() == id && !k.record_exists).cloned());
                        let rows = list
                            .into_iter()
                            .map(|k| {
                                let action = if !may_allow {
                                    ().into_any()
                                } else if k.record_exists {
                                    // Its record still refuses the key: deleting it comes first.
                                    let href = format!("/infrastructure/agents/{}", k.agent_id);
                                    view! { <a href=href class="delete-first">{it.delete_first}</a> }.into_any()
                                } else {
                                    view! {
                                        <a href=confirm_address("/infrastructure", "allow_key", k.agent_id.as_str(), "confirm-allow") class="allow-key button"
                                            data-agent=k.agent_id.to_string()>
                                            {it.allow_again}
                                        </a>
                                    }
                                        .into_any()
                                };
                                view! {
                                    <tr class="revoked-row" data-agent=k.agent_id.to_string()>
                                        <td data-label=it.col_agent><code class="id">{k.agent_id.to_string()}</code></td>
                                        <td data-label=t.col_name>{k.name}
                                            {k.rejected.then(|| view! { " "<span class="badge warn">{it.rejected}</span> })}
                                        </td>
                                        <td data-label=it.col_revoked_at>{when(&k.revoked_at)}</td>
                                        <td>{action}</td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        view! {
                            <table class="list" id="revoked-table">
                                <thead><tr>
                                    <th scope="col">{it.col_agent}</th>
                                    <th scope="col">{t.col_name}</th>
                                    <th scope="col">{it.col_revoked_at}</th>
                                    <th scope="col"></th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                            {asked.map(|key| view! { <ConfirmAllow key /> })}
                        }
                            .into_any()
                    }
                }
            },
        )}
    }
}

/// The confirmation under the list: what letting the key in again means.
#[component]
fn ConfirmAllow(key: RevokedKeyView) -> impl IntoView {
    let it = infra_texts(use_lang());
    view! {
        <ConfirmAtAddress id="confirm-allow" explain=it.allow_again_explain
            cancel_href="/infrastructure#revoked-keys" cancel_id="cancel-allow-key"
            action=AllowRevokedKey::PATH field="agent_id" value=key.agent_id.to_string()
            confirm_id="confirm-allow-key" label=it.allow_again>
            {it.allow_again}" "<code class="id">{key.agent_id.to_string()}</code>
        </ConfirmAtAddress>
    }
}
