//! Infrastructure, Beacons tab (`/infrastructure/beacons`): every Beacon URL
//! of every profile, managed or external, with its latest check and a Check
//! button; the form that adds an existing Beacon to a profile; and the
//! Deploy-new-Beacon wizard.
//!
//! The list needs no WebAssembly: the server draws it, and Check is a plain
//! form whose answer is the page with the new result. Only the two forms'
//! buttons are an island; each form comes with its first press.

use super::choice_search::{as_search, more_profiles, ChoiceSearch};
use super::form_errors::FormErrors;
use super::infrastructure::{when, InfraTabs};
use super::layout::Frame;
use super::loaded;
use super::on_demand::OnDemand;
use super::plain_action::{refusal_in_address, RowAction};
use super::sparkline::{escape, sparkline_svg};
use crate::api::beacons::{list_beacons, AddExistingBeacon, CheckBeacon};
use crate::api::list_networks;
use crate::i18n::beacons::{beacon_texts, check_outcome};
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::beacons::{BeaconCheckView, BeaconRef, BeaconView};

#[component]
pub fn BeaconsPage() -> impl IntoView {
    let lang = use_lang();
    let it = infra_texts(lang);
    view! {
        <Title text=format!("{} · {} · {}", it.beacons_tab, it.infra_title, texts(lang).product) />
        <Frame>
            <h1>{it.infra_title}</h1>
            <InfraTabs current="/infrastructure/beacons" />
            <BeaconsSection />
        </Frame>
    }
}

/// The word by which Add a Beacon asks for the list to be drawn again
/// (`Live::changed_on_page`): the live stream does not announce Beacons.
const BEACONS_CHANGED: &str = "beacons";

/// The Beacons with their checks, then Add a Beacon and Deploy a Beacon.
/// The list is a region the server draws (crate::live_region), and each
/// row's Check a plain form (`plain_action`) whose answer is the page with
/// the new result; only the forms' buttons are an island.
#[component]
fn BeaconsSection() -> impl IntoView {
    let lang = use_lang();
    let bt = beacon_texts(lang);
    let query = use_query_map();
    let refusal =
        move || refusal_in_address(&query.read(), &[CheckBeacon::PATH]).map(|e| e.message(lang));
    let live = crate::live::use_live();
    // Read again when a Beacon was added (the full build; the islands build
    // draws the region again).
    let beacons = Resource::new(move || live.on_page(), |_| list_beacons());
    view! {
        <h2 id="beacons">{bt.title}</h2>
        <p class="muted">{bt.intro}</p>
        <p class="field-error" role="alert" id="beacons-action-error">{refusal}</p>
        <LiveRegion id="beacons-live" local=&[BEACONS_CHANGED]>
        {loaded(
            move || async move { beacons.await },
            move |answer| {
                match answer {
                    list if list.is_empty() => {
                        view! { <p class="empty" id="beacons-empty">{bt.empty}</p> }.into_any()
                    }
                    list => {
                        let rows = list
                            .into_iter()
                            .map(|beacon| view! { <BeaconRow beacon /> })
                            .collect_view();
                        view! {
                            <table class="list" id="beacons-table">
                                <thead><tr>
                                    <th scope="col">{bt.col_url}</th>
                                    <th scope="col">{bt.col_network}</th>
                                    <th scope="col">{bt.col_kind}</th>
                                    <th scope="col">{bt.col_check}</th>
                                    <th scope="col">{bt.col_day}</th>
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
        </LiveRegion>
        {(may(ActionKind::EditNetworks) || may(ActionKind::RunJobs)).then(|| view! { <BeaconForms /> })}
    }
}

/// Add a Beacon and Deploy a Beacon, each behind its button. An island
/// (crate::islands), lazy and preloaded; each form is a chunk of its own,
/// fetched on the first press.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn BeaconForms() -> impl IntoView {
    crate::islands::preload_island("beacon_forms_loader");
    let bt = beacon_texts(use_lang());
    let adding = RwSignal::new(false);
    view! {
        {may(ActionKind::EditNetworks).then(|| view! {
            <section class="card" id="add-beacon">
                <h2>{bt.add_title}</h2>
                <p class="muted">{bt.add_intro}" "<a href="#deploy-beacon">{bt.deploy_hint}</a></p>
                <OnDemand id="open-add-beacon" label=bt.add_title open=adding load=add_beacon_form />
            </section>
        })}
        {may(ActionKind::RunJobs).then(|| view! { <super::deploy_beacon::DeployBeaconCard /> })}
    }
}

#[component]
fn BeaconRow(beacon: BeaconView) -> impl IntoView {
    let lang = use_lang();
    let bt = beacon_texts(lang);
    let kind = match &beacon.managed_by {
        Some(managed) => view! {
            <span class="badge ok">{bt.managed}</span>
            " "
            <a href=format!("/infrastructure/agents/{}", managed.agent_id)>
                <code>{managed.component_id.clone()}</code>
            </a>
        }
        .into_any(),
        None => view! { <span class="badge">{bt.external}</span> }.into_any(),
    };
    let day = beacon_day(&beacon, lang);
    let check = may(ActionKind::CheckBeacons).then(|| {
        view! {
            <RowAction action=CheckBeacon::PATH field="network_id" id=beacon.network_id.clone()
                more=vec![("url", beacon.url.clone())] class="check-beacon"
                button_id=format!("check-{}-{}", beacon.network_id, beacon.url)
                aria_label=format!("{} {}", bt.check, beacon.url) label=bt.check />
        }
    });
    view! {
        <tr class="beacon-row" data-url=beacon.url.clone()>
            <td data-label=bt.col_url><code class="beacon-url">{beacon.url.clone()}</code></td>
            <td data-label=bt.col_network>
                <a href=format!("/networks/{}", beacon.network_id)>{beacon.network_name.clone()}</a>
            </td>
            <td data-label=bt.col_kind>{kind}</td>
            <td data-label=bt.col_check class="beacon-check">
                {match beacon.last_check {
                    None => view! { <span class="muted">{bt.never_checked}</span> }.into_any(),
                    Some(result) => view! { <CheckResult result /> }.into_any(),
                }}
            </td>
            <td data-label=bt.col_day class="beacon-day">{day}</td>
            <td>{check}</td>
        </tr>
    }
}

/// The last 24 hours' sparkline and the last failure, with its class.
fn beacon_day(beacon: &BeaconView, lang: crate::i18n::Lang) -> impl IntoView {
    let bt = beacon_texts(lang);
    let checks: u32 = beacon.last_24h.iter().map(|h| h.checks).sum();
    let failures: u32 = beacon.last_24h.iter().map(|h| h.failures).sum();
    let means = beacon.last_24h.iter().filter_map(|h| h.mean_ms);
    let (low, high) = means.fold((u32::MAX, 0), |(lo, hi), ms| (lo.min(ms), hi.max(ms)));
    // Markup as text either way (see `sparkline_svg`): one view type, not two.
    let day = if checks > 0 {
        let range = if high > 0 {
            format!("{low}–{high} ms")
        } else {
            "—".into()
        };
        let label = format!("{} {range}; {failures} {}", bt.day_label, bt.failed_checks);
        sparkline_svg(&beacon.last_24h, &label)
    } else {
        format!(
            r#"<span class="muted">{}</span>"#,
            escape(bt.no_checks_today)
        )
    };
    // The last failure looks like a failed check, because it is one.
    let failure = beacon.last_failure.clone().map(|result| {
        view! {
            <div class="last-failure">
                <span class="muted">{bt.last_failure}": "</span>
                <CheckResult result />
            </div>
        }
    });
    view! {
        <span class="sparkline-box" inner_html=day></span>
        {failure}
    }
}

#[component]
fn CheckResult(result: BeaconCheckView) -> impl IntoView {
    let lang = use_lang();
    let bt = beacon_texts(lang);
    let checked = format!("{} {}", bt.checked_at, when(&result.checked_at));
    let class = result.class.as_str();
    if result.ok {
        let latency = result.latency_ms.unwrap_or_default();
        view! {
            <span class="check-result" data-class=class>
                <span class="badge ok">{check_outcome(result.class, lang)}</span>
                " " {format!("{latency} ms")}
                <br /><span class="muted">{checked}</span>
            </span>
        }
        .into_any()
    } else {
        view! {
            <span class="check-result" data-class=class>
                <span class="badge bad">{class}</span>
                " " {check_outcome(result.class, lang)}
                <br /><code class="check-detail">{result.detail}</code>
                <br /><span class="muted">{checked}</span>
            </span>
        }
        .into_any()
    }
}

/// The form as its own WebAssembly chunk, with its server-function client:
/// the Beacons tab loads without it.
#[lazy]
async fn add_beacon_form() -> AnyView {
    view! { <AddBeaconForm /> }.into_any()
}

/// Adds an existing Beacon's URL to a profile; the list then shows it.
#[component]
fn AddBeaconForm() -> impl IntoView {
    let add = ServerAction::<AddExistingBeacon>::new();
    let live = crate::live::use_live();
    Effect::new(move |_| {
        if let Some(Ok(_)) = add.value().get() {
            live.changed_on_page(BEACONS_CHANGED);
        }
    });
    let lang = use_lang();
    let t = texts(lang);
    let bt = beacon_texts(lang);
    let search = RwSignal::new(String::new());
    let networks = Resource::new(
        move || search.get(),
        |search| list_networks(None, as_search(search)),
    );
    let more = more_profiles(networks);
    let network = RwSignal::new(String::new());
    let url = RwSignal::new(String::new());
    let errors = FormErrors::of(add, lang);
    let message_for = move |field: &'static str| errors.for_field(field);
    let added = move || {
        add.value()
            .get()
            .is_some_and(|r| r.is_ok())
            .then_some(bt.added)
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let beacon = BeaconRef {
            network_id: network.get_untracked(),
            url: url.get_untracked(),
        };
        if errors.check(beacon.validate()).is_some() {
            add.dispatch(AddExistingBeacon { beacon });
        }
    };
    view! {
            <ChoiceSearch id="beacon-network-search" label=t.find_network search more />
            {loaded(
                move || async move { networks.await },
                move |answer| {
                    match answer {
                        page if page.items.is_empty() && search.get_untracked().is_empty() => view! {
                            <p class="empty">{bt.no_networks}" "<a href="/networks/new">{t.new_network}</a></p>
                        }
                            .into_any(),
                        page => {
                            // A search that hides the chosen profile unchooses it.
                            if !page.items.iter().any(|n| n.id.as_str() == network.get_untracked()) {
                                network.set(String::new());
                            }
                            let nothing_found = page.items.is_empty();
                            let options = page
                                .items
                                .into_iter()
                                .map(|n| {
                                    let id = n.id.to_string();
                                    view! { <option value=n.id.to_string() selected=move || network.get() == id>{n.name}</option> }
                                })
                                .collect_view();
                            view! {
                                {nothing_found.then(|| view! { <p class="muted">{t.no_match}</p> })}
                                <form on:submit=on_submit novalidate>
                                    <label for="beacon-network">{bt.field_network}</label>
                                    <select id="beacon-network" name="network_id"
                                        on:change=move |ev| network.set(event_target_value(&ev))>
                                        <option value="">{bt.choose_network}</option>
                                        {options}
                                    </select>
                                    <p class="field-error" id="beacon-network-error">{move || message_for("network_id")}</p>
                                    <label for="beacon-url">{bt.field_url}</label>
                                    <input id="beacon-url" name="url" inputmode="url" placeholder="https://beacon.example.net"
                                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev)) />
                                    <p class="field-error" id="beacon-url-error">{move || message_for("url")}</p>
                                    <p class="field-error" role="alert">{move || errors.general()}</p>
                                    <button type="submit" class="primary" id="add-beacon-submit" disabled=move || add.pending().get()>
                                        {bt.add}
                                    </button>
                                    <p class="muted" role="status" id="add-beacon-done">{added}</p>
                                </form>
                            }
                                .into_any()
                        }
                    }
                },
            )}
    }
}
