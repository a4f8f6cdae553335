//! Revoked keys, on the Infrastructure screen: the keys refused at enrollment
//! even after their Agent is deleted, each with "Allow again" behind a
//! confirmation that says what it lets back in.

use super::confirm::ConfirmDialog;
use super::infrastructure::when;
use super::loaded;
use crate::api::infra::{AgentsTab, AllowRevokedKey};
use crate::error::UiError;
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use protocol::actions::ActionKind;

#[component]
pub fn RevokedKeys(
    /// The Agents tab's data, read again after `allow`.
    tab: Resource<Result<AgentsTab, UiError>>,
    allow: ServerAction<AllowRevokedKey>,
) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let it = infra_texts(lang);
    // The key the open dialog is about.
    let chosen = RwSignal::new(None::<protocol::AgentId>);
    let open = RwSignal::new(false);
    let error = Signal::derive(move || {
        allow
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = allow.value().get() {
            open.set(false);
        }
    });
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
                        let rows = list
                            .into_iter()
                            .map(|k| {
                                let id = k.agent_id.clone();
                                let action = if !may(ActionKind::ManageAgents) {
                                    ().into_any()
                                } else if k.record_exists {
                                    // Its record still refuses the key: deleting it comes first.
                                    let href = format!("/infrastructure/agents/{}", k.agent_id);
                                    view! { <a href=href class="delete-first">{it.delete_first}</a> }.into_any()
                                } else {
                                    view! {
                                        <button type="button" class="allow-key" data-agent=id.to_string()
                                            on:click=move |_| {
                                                chosen.set(Some(id.clone()));
                                                open.set(true);
                                            }>
                                            {it.allow_again}
                                        </button>
                                    }
                                        .into_any()
                                };
                                view! {
                                    <tr class="revoked-row" data-agent=k.agent_id.to_string()>
                                        <td data-label=it.col_agent><code class="id">{k.agent_id.to_string()}</code></td>
                                        <td data-label=t.col_name>{k.name}</td>
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
                        }
                            .into_any()
                    }
                }
            },
        )}
        <ConfirmDialog open title={it.allow_again} explain={it.allow_again_explain}
            confirm_label={it.allow_again} confirm_id="confirm-allow-key"
            error pending=allow.pending()
            on_confirm=move || {
                if let Some(agent_id) = chosen.get_untracked() {
                    allow.dispatch(AllowRevokedKey { agent_id });
                }
            } />
    }
}
