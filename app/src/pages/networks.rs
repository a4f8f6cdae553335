//! Networks: the list of profiles, the new-profile screen and a profile's own page.

use super::layout::Frame;
use super::loaded;
use super::network_form::{FormStart, NetworkForm};
use super::plain_action::{confirm_address, refusal_in_address, ConfirmAtAddress};
use crate::api::{get_network, list_networks, DeleteNetwork};
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};
use protocol::actions::ActionKind;

#[component]
pub fn NetworksPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let query = use_query_map();
    let after = move || query.read().get("after");
    let page = Resource::new(after, |after| list_networks(after, None));
    view! {
        <Title text=format!("{} · {}", t.networks_title, t.product) />
        <Frame>
            <div class="page-head">
                <h1>{t.networks_title}</h1>
                {may(ActionKind::EditNetworks).then(|| view! {
                    <a class="button primary" href="/networks/new" id="new-network">{t.new_network}</a>
                })}
            </div>
            <p class="muted">{t.networks_intro}</p>
            {loaded(
                move || async move { page.await },
                move |answer| {
                    match answer {
                        p if p.items.is_empty() && after().is_none() => {
                            view! { <p class="empty" id="networks-empty">{t.networks_empty}</p> }.into_any()
                        }
                        p => {
                            let rows = p
                                .items
                                .into_iter()
                                .map(|n| {
                                    let href = format!("/networks/{}", n.id);
                                    let beacons = if n.beacons.is_empty() {
                                        view! { <span class="badge warn">{t.no_beacon}</span> }.into_any()
                                    } else {
                                        n.beacons.join(", ").into_any()
                                    };
                                    view! {
                                        <tr>
                                            <td data-label=t.col_name>
                                                <a href=href class="network-name">{n.name}</a>
                                            </td>
                                            <td data-label=t.col_network_id>
                                                <code class="id">{n.id.to_string()}</code>
                                            </td>
                                            <td data-label=t.col_beacons class="beacons">{beacons}</td>
                                        </tr>
                                    }
                                })
                                .collect_view();
                            view! {
                                <table class="list" id="networks-table">
                                    <thead>
                                        <tr>
                                            <th scope="col">{t.col_name}</th>
                                            <th scope="col">{t.col_network_id}</th>
                                            <th scope="col">{t.col_beacons}</th>
                                        </tr>
                                    </thead>
                                    <tbody>{rows}</tbody>
                                </table>
                                <nav class="pager" aria-label="Pages">
                                    {after().map(|_| view! { <a href="/networks">{t.first_page}</a> })}
                                    {p.next.map(|c| view! { <a href=format!("/networks?after={c}") rel="next">{t.next_page}</a> })}
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
pub fn NewNetworkPage() -> impl IntoView {
    let t = texts(use_lang());
    view! {
        <Title text=format!("{} · {}", t.new_network, t.product) />
        <Frame>
            <p><a href="/networks">{"← "}{t.back_to_networks}</a></p>
            <h1>{t.new_network}</h1>
            {if may(ActionKind::EditNetworks) {
                provide_context(FormStart::default());
                view! { <NetworkForm /> }.into_any()
            } else {
                view! { <p class="alert" id="not-for-role">{t.not_for_role}</p> }.into_any()
            }}
        </Frame>
    }
}

#[component]
pub fn NetworkPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let network = Resource::new(id, get_network);
    // Its island (the form) renders under the profile's Suspense, after the
    // page's <head> has gone out: its code is named there now.
    crate::islands::preload_island("network_form_loader");
    view! {
        <Title text=format!("{} · {}", t.edit_network, t.product) />
        <Frame>
            <p><a href="/networks">{"← "}{t.back_to_networks}</a></p>
            {loaded(
                move || async move { network.await },
                move |n| {
                    let id = n.id.to_string();
                    provide_context(FormStart::of(&n));
                    view! {
                        <h1>{n.name.clone()}</h1>
                        <p>
                            <a id="setup-checklist" href=format!("/networks/{id}/setup")>
                                {crate::i18n::setup::setup_texts(lang).link}
                            </a>
                            " · "
                            <a id="onboard-users" href=format!("/onboarding?network={id}")>
                                {crate::i18n::onboarding::onboarding_texts(lang).onboard_users}
                            </a>
                        </p>
                        {may(ActionKind::CheckBeacons).then(|| view! { <super::diagnose::DiagnoseSection id=id.clone() /> })}
                        <NetworkForm />
                        {may(ActionKind::EditNetworks).then(|| view! { <DeleteSection id /> })}
                    }
                },
            )}
        </Frame>
    }
}

/// Delete, behind a confirmation that says what deleting does: a link to
/// this page with the question in the address (`ask=delete`), which the
/// server draws, and a plain form (`plain_action`); Cancel or Escape backs
/// out.
#[component]
fn DeleteSection(id: String) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let query = use_query_map();
    let page = format!("/networks/{id}");
    let asked = move || query.read().get_str("ask") == Some("delete");
    let refusal =
        move || refusal_in_address(&query.read(), &[DeleteNetwork::PATH]).map(|e| e.message(lang));
    let confirm = {
        let (page, id) = (page.clone(), id.clone());
        move || {
            asked().then(|| {
                view! {
                    <ConfirmAtAddress id="network-question" explain=t.delete_explain
                        cancel_href=page.clone() cancel_id="cancel-delete"
                        action=DeleteNetwork::PATH value=id.clone()
                        confirm_id="confirm-delete" label=t.delete>
                        {t.delete_title}
                    </ConfirmAtAddress>
                }
            })
        }
    };
    view! {
        <section class="danger-zone" id="network-actions">
            <a class="button danger" id="delete-network"
                href=confirm_address(&page, "ask", "delete", "network-question")>{t.delete}</a>
            <p class="field-error" role="alert" id="network-action-error">{refusal}</p>
            {confirm}
        </section>
    }
}
