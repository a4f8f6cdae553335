//! Services: every published sidecar with its `.knot` address (or why there
//! is none yet), restart and remove behind confirmations, its identity
//! backup, and the form that publishes a service or changes one (which
//! redeploys it, keeping its address).
//!
//! Drawn by the server: the list is a live region (crate::live_region),
//! drawn again when an Agent or a job changes, so a row shows its queued
//! backup or verification until it ends. Restart, Remove and Back up are
//! links to this page with the question in the address (`?restart=`,
//! `?remove=`, `?backup=`, naming `<Agent ID>/<component ID>`), whose
//! confirmation the server draws under the list; Verify is a plain form
//! (`plain_action`). Change is a link (`?edit=`) that opens the publish form
//! filled in. Only the publish form is an island (`service_form`).

use super::badges::{agent_badge, component_badge};
use super::layout::Frame;
use super::loaded;
use super::plain_action::{
    confirm_address, refusal_in_address, with_query, ConfirmAtAddress, RowAction,
};
use super::service_backup::{backup_cell, backup_job_state, BackupQuestion};
use super::service_form::{PublishService, ServiceDraft, ServiceToChange};
use crate::api::list_networks;
use crate::api::services::{
    list_services_page, BackUpServiceCall, ServiceActionCall, ServiceListPage,
};
use crate::error::UiError;
use crate::i18n::services::service_texts;
use crate::i18n::texts;
use crate::islands::DrawnJson;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use leptos_router::params::ParamsMap;
use protocol::actions::ActionKind;
use protocol::api::NetworkProfile;
use protocol::live::LiveTopic;
use protocol::services::{address_pending, PublishedService};

#[component]
pub fn ServicesPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let st = service_texts(lang);
    let query = use_query_map();
    let after = Memo::new(move |_| query.read().get("after").filter(|s| !s.is_empty()));
    view! {
        <Title text=format!("{} · {}", st.title, t.product) />
        <Frame>
            <h1>{st.title}</h1>
            <p class="muted">{st.intro}</p>
            // Drawn again when the full build's client router changes the
            // query in place (the pager's links).
            {move || view! { <ServicesBody after=after.get() /> }}
        </Frame>
    }
}

/// What the address asks of one service: to confirm a restart, a removal
/// or a backup, or to change it in the publish form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Ask {
    Restart,
    Remove,
    BackUp,
    Edit,
}

impl Ask {
    /// Its key in the address.
    fn key(self) -> &'static str {
        match self {
            Ask::Restart => "restart",
            Ask::Remove => "remove",
            Ask::BackUp => "backup",
            Ask::Edit => "edit",
        }
    }

    /// Where the page goes to show it.
    fn anchor(self) -> &'static str {
        match self {
            Ask::Edit => "publish-service",
            _ => "service-question",
        }
    }

    /// The question the address asks (`?restart=<agent>/<component>`), if any:
    /// which one, and of which service.
    fn in_address(query: &ParamsMap) -> Option<(Ask, String)> {
        [Ask::Restart, Ask::Remove, Ask::BackUp]
            .into_iter()
            .find_map(|ask| Some((ask, query.get(ask.key()).filter(|s| !s.is_empty())?)))
    }

    /// This page's address (`page`, with its cursor) asking it about `service`.
    fn address(self, page: &str, service: &PublishedService) -> String {
        confirm_address(page, self.key(), &service_key(service), self.anchor())
    }
}

/// How the address names a service: its Agent and component.
fn service_key(service: &PublishedService) -> String {
    format!("{}/{}", service.agent.id, service.sidecar.id)
}

/// The Services screen at the page the cursor names.
fn services_address(after: Option<&str>) -> String {
    match after {
        Some(after) => with_query("/services", "after", after),
        None => "/services".to_string(),
    }
}

/// What the signed-in admin may do to a service now.
struct Offers {
    /// Change, restart, remove: any service of an Agent still in service.
    change: bool,
    usable: bool,
    /// Back up and verify: a sidecar with an address, on an Agent that takes
    /// Docker jobs.
    backs_up: bool,
}

impl Offers {
    fn of(service: &PublishedService) -> Self {
        // Every change to a service is a job for its Agent.
        let usable = !service.agent.status.is_retired() && may(ActionKind::RunJobs);
        let backs_up = usable
            && address_pending(&service.agent, &service.sidecar).is_none()
            && service.agent.docker_available
            && service.agent.status != protocol::AgentStatus::Disabled;
        Offers {
            change: usable && service.spec.is_some(),
            usable,
            backs_up,
        }
    }

    fn allow(&self, ask: Ask) -> bool {
        match ask {
            Ask::Restart | Ask::Remove => self.usable,
            Ask::BackUp => self.backs_up,
            Ask::Edit => self.change,
        }
    }
}

/// The service of the page at `after` that `key` names, if it is still
/// listed there; none when nothing is asked.
async fn asked_service(
    after: Option<String>,
    key: Option<String>,
) -> Result<Option<PublishedService>, UiError> {
    let Some(key) = key else {
        return Ok(None);
    };
    let page = list_services_page(after).await?;
    Ok(page.items.into_iter().find(|s| service_key(s) == key))
}

/// The list, the question the address asks, and the publish form. The
/// question and the form read the service they are about on their own, so
/// that a live update (which draws the list again) never redraws what is
/// being typed.
#[component]
fn ServicesBody(after: Option<String>) -> impl IntoView {
    let lang = use_lang();
    let live = crate::live::use_live();
    let query = use_query_map();
    let runs_jobs = may(ActionKind::RunJobs);
    if runs_jobs {
        // Drawn under a Suspense: its code is named up front.
        crate::islands::preload_island("publish_service_loader");
    }
    let after = StoredValue::new(after);
    // Read again on live updates (the full build; the islands build draws
    // the region again).
    let services = Resource::new(
        move || (after.get_value(), live.agents(), live.jobs()),
        |(after, ..)| list_services_page(after),
    );
    // The table names each service's network.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let question = Memo::new(move |_| Ask::in_address(&query.read()));
    let editing = Memo::new(move |_| query.read().get("edit").filter(|s| !s.is_empty()));
    let asked = Resource::new(
        move || (after.get_value(), question.get()),
        |(after, question)| async move {
            let (ask, key) = question.unzip();
            Ok::<_, UiError>(asked_service(after, key).await?.zip(ask))
        },
    );
    let edited = Resource::new(
        move || (after.get_value(), editing.get()),
        |(after, key)| asked_service(after, key),
    );
    let refusal = move || {
        refusal_in_address(
            &query.read(),
            &[ServiceActionCall::PATH, BackUpServiceCall::PATH],
        )
        .map(|e| e.message(lang))
    };
    view! {
        <p class="field-error" role="alert" id="services-error">{refusal}</p>
        <LiveRegion id="services-live" topics=&[LiveTopic::Agents, LiveTopic::Jobs]>
            {loaded(
                move || async move { Ok::<_, UiError>((services.await?, networks.await?)) },
                move |(page, networks)| services_table(page, &networks, after.get_value()),
            )}
        </LiveRegion>
        {runs_jobs.then(|| loaded(
            move || async move { asked.await },
            move |asked| {
                let page = services_address(after.get_value().as_deref());
                asked
                    .filter(|(service, ask)| Offers::of(service).allow(*ask))
                    .map(|(service, ask)| service_question(service, ask, page))
            },
        ))}
        {runs_jobs.then(|| view! {
            <section class="card" id="publish-service">
                {loaded(
                    move || async move { edited.await },
                    move |service| {
                        let st = service_texts(lang);
                        let editing = service
                            .filter(|s| Offers::of(s).allow(Ask::Edit))
                            .as_ref()
                            .and_then(ServiceDraft::of);
                        let title = if editing.is_some() { st.edit_title } else { st.publish_title };
                        view! {
                            <h2>{title}</h2>
                            <p class="muted">{st.publish_intro}</p>
                            <p class="muted">{st.keeps_address}</p>
                            {
                                provide_context(ServiceToChange(editing.as_ref().map(DrawnJson::of)));
                                view! { <PublishService /> }
                            }
                        }
                    },
                )}
            </section>
        })}
    }
}

/// The table of services with its pager, or why it is empty.
fn services_table(
    page: ServiceListPage,
    networks: &crate::api::NetworkListPage,
    after: Option<String>,
) -> AnyView {
    let lang = use_lang();
    let (t, st) = (texts(lang), service_texts(lang));
    if page.items.is_empty() && after.is_none() {
        return view! { <p class="empty" id="services-empty">{st.empty}</p> }.into_any();
    }
    let here = services_address(after.as_deref());
    let rows = page
        .items
        .into_iter()
        .map(|service| {
            let network_name = service
                .network_id()
                .and_then(|id| networks.items.iter().find(|n| n.id.as_str() == id))
                .map(|n: &NetworkProfile| n.name.clone());
            let here = here.clone();
            view! { <ServiceRow service network_name here /> }
        })
        .collect_view();
    view! {
        <table class="list" id="services-table">
            <thead><tr>
                <th scope="col">{st.col_service}</th>
                <th scope="col">{st.col_address}</th>
                <th scope="col">{st.col_status}</th>
                <th scope="col">{st.col_agent}</th>
                <th scope="col">{st.col_network}</th>
                <th scope="col">{st.col_target}</th>
                <th scope="col">{st.col_backup}</th>
                <th scope="col"></th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
        <nav class="pager" aria-label="Pages">
            {after.map(|_| view! { <a href="/services">{t.first_page}</a> })}
            {page.next.map(|c| view! {
                <a href=services_address(Some(&c)) rel="next">{t.next_page}</a>
            })}
        </nav>
    }
    .into_any()
}

/// One service's row; its actions are links that ask first at this page's
/// address `here`, and Verify, which needs no confirmation.
#[component]
fn ServiceRow(
    service: PublishedService,
    network_name: Option<String>,
    here: String,
) -> impl IntoView {
    let lang = use_lang();
    let st = service_texts(lang);
    let address = match address_pending(&service.agent, &service.sidecar) {
        None => {
            view! { <code class="knot-address">{service.sidecar.service.clone()}</code> }.into_any()
        }
        Some(reason) => view! {
            <span class="badge warn">{st.not_yet}</span>
            " "<span class="muted pending-reason">{reason.explained(lang)}</span>
        }
        .into_any(),
    };
    let status = if service.sidecar.status.is_reported() {
        let state = service.sidecar.status;
        view! { <span class=component_badge(state)>{state.as_str()}</span> }.into_any()
    } else {
        view! { <span class="muted">{st.not_reported}</span> }.into_any()
    };
    let network = match (service.network_id(), network_name) {
        (Some(id), Some(name)) => view! { <a href=format!("/networks/{id}")>{name}</a> }.into_any(),
        (Some(id), None) => view! { <code class="id">{id.clone()}</code> }.into_any(),
        (None, _) => view! { <span class="muted">"—"</span> }.into_any(),
    };
    let target = service
        .spec
        .as_ref()
        .map(|s| s.target.clone())
        .unwrap_or_default();
    let offers = Offers::of(&service);
    let backup = backup_cell(&service, st);
    let job_state = offers
        .backs_up
        .then(|| backup_job_state(&service, st))
        .flatten();
    let link = |ask: Ask, class: &'static str, label: &'static str| {
        offers.allow(ask).then(|| {
            view! { <a class=format!("button {class}") href=ask.address(&here, &service)>{label}</a> }
        })
    };
    let verify = (offers.backs_up && service.backup.is_some()).then(|| {
        view! {
            <RowAction action=ServiceActionCall::PATH field="agent_id" id=service.agent.id.to_string()
                more=vec![("component_id", service.sidecar.id.clone()), ("action", "verify".to_string())]
                class="verify-backup" button_id=format!("verify-backup-{}", service.sidecar.name)
                label=st.verify />
        }
    });
    // The catalog title when there is one, with the name it is deployed under.
    let titled = service.sidecar.catalog.title.is_some();
    view! {
        <tr class="service-row" data-service=service.sidecar.name.clone()>
            <td data-label=st.col_service>
                <strong class="service-title">{service.sidecar.display_name().to_string()}</strong>
                {titled.then(|| view! { " "<code class="muted service-name">{service.sidecar.name.clone()}</code> })}
            </td>
            <td data-label=st.col_address class="service-address">{address}</td>
            <td data-label=st.col_status>{status}</td>
            <td data-label=st.col_agent>
                <a href=format!("/infrastructure/agents/{}", service.agent.id)>{service.agent.name.clone()}</a>
                " "<span class=agent_badge(service.agent.status)>{service.agent.status.as_str()}</span>
            </td>
            <td data-label=st.col_network>{network}</td>
            <td data-label=st.col_target><code>{target}</code></td>
            <td data-label=st.col_backup class="service-backup">{backup}</td>
            <td class="actions">
                {link(Ask::Edit, "change-service", st.edit)}
                {link(Ask::BackUp, "backup-service", st.back_up)}
                {verify}
                {job_state}
                {link(Ask::Restart, "restart-service", st.restart)}
                {link(Ask::Remove, "danger remove-service", st.remove)}
            </td>
        </tr>
    }
}

/// The confirmation the address asks for, under the list: Cancel goes back
/// to `page`.
fn service_question(service: PublishedService, ask: Ask, page: String) -> AnyView {
    let st = service_texts(use_lang());
    let (agent_id, component_id) = (service.agent.id.to_string(), service.sidecar.id.clone());
    let name = service.sidecar.display_name().to_string();
    let (action, explain, confirm_id, label) = match ask {
        Ask::Restart => (
            "restart",
            st.restart_explain,
            "confirm-restart-service",
            st.restart,
        ),
        Ask::Remove => (
            "remove",
            st.remove_explain,
            "confirm-remove-service",
            st.remove,
        ),
        Ask::BackUp => return view! { <BackupQuestion service cancel_href=page /> }.into_any(),
        Ask::Edit => return ().into_any(),
    };
    view! {
        <ConfirmAtAddress id="service-question" explain cancel_href=page cancel_id="cancel-service-question"
            action=ServiceActionCall::PATH field="agent_id" value=agent_id
            more=vec![("component_id", component_id), ("action", action.to_string())]
            confirm_id label>
            {label}" "<code>{name}</code>
        </ConfirmAtAddress>
    }
    .into_any()
}
