//! Infrastructure, Beacons tab (`/infrastructure/beacons`): every Beacon URL
//! of every profile, managed or external, with its latest check and a Check
//! button; the form that adds an existing Beacon to a profile; and the
//! Deploy-new-Beacon wizard.

use super::choice_search::{as_search, more_profiles, ChoiceSearch};
use super::form_errors::FormErrors;
use super::infrastructure::{when, InfraTabs};
use super::layout::Frame;
use super::loaded;
use super::on_demand::OnDemand;
use super::sparkline::{escape, sparkline_svg};
use crate::api::beacons::{list_beacons, AddExistingBeacon, CheckBeacon};
use crate::api::list_networks;
use crate::i18n::beacons::{beacon_texts, check_outcome};
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
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

/// The Beacons with their checks, Add a Beacon and Deploy a Beacon. An
/// island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn BeaconsSection() -> impl IntoView {
    crate::islands::preload_island("beacons_section_loader");
    let lang = use_lang();
    let bt = beacon_texts(lang);
    let add = ServerAction::<AddExistingBeacon>::new();
    let adding = RwSignal::new(false);
    let beacons = Resource::new(move || add.version().get(), |_| list_beacons());
    view! {
        <h2 id="beacons">{bt.title}</h2>
        <p class="muted">{bt.intro}</p>
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
        {may(ActionKind::EditNetworks).then(|| view! {
            <section class="card" id="add-beacon">
                <h2>{bt.add_title}</h2>
                <p class="muted">{bt.add_intro}" "<a href="#deploy-beacon">{bt.deploy_hint}</a></p>
                <OnDemand id="open-add-beacon" label=bt.add_title open=adding load=move || add_beacon_form(add) />
            </section>
        })}
        {may(ActionKind::RunJobs).then(|| view! { <super::deploy_beacon::DeployBeaconCard /> })}
    }
}

#[component]
fn BeaconRow(beacon: BeaconView) -> impl IntoView {
    let lang = use_lang();
    let bt = beacon_texts(lang);
    let check = ServerAction::<CheckBeacon>::new();
    let last = beacon.last_check.clone();
    // The newest result: this page's check, else the stored one.
    let shown = move || {
        check
            .value()
            .get()
            .and_then(|r| r.ok())
            .or_else(|| last.clone())
    };
    let error = move || {
        check
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    };
    let target = BeaconRef {
        network_id: beacon.network_id.clone(),
        url: beacon.url.clone(),
    };
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
    view! {
        <tr class="beacon-row" data-url=beacon.url.clone()>
            <td data-label=bt.col_url><code class="beacon-url">{beacon.url.clone()}</code></td>
            <td data-label=bt.col_network>
                <a href=format!("/networks/{}", beacon.network_id)>{beacon.network_name.clone()}</a>
            </td>
            <td data-label=bt.col_kind>{kind}</td>
            <td data-label=bt.col_check class="beacon-check" aria-live="polite">
                {move || match shown() {
                    None => view! { <span class="muted">{bt.never_checked}</span> }.into_any(),
                    Some(result) => view! { <CheckResult result /> }.into_any(),
                }}
                <p class="field-error" role="alert">{error}</p>
            </td>
            <td data-label=bt.col_day class="beacon-day">{day}</td>
            <td>
                {may(ActionKind::CheckBeacons).then(|| view! {
                    <button type="button" class="check-beacon"
                        aria-label=format!("{} {}", bt.check, beacon.url)
                        disabled=move || check.pending().get()
                        on:click=move |_| { check.dispatch(CheckBeacon { beacon: target.clone() }); }>
                        {move || if check.pending().get() { bt.checking } else { bt.check }}
                    </button>
                })}
            </td>
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

/// The form as its own WebAssembly chunk: the Beacons tab loads without it.
#[lazy]
async fn add_beacon_form(add: ServerAction<AddExistingBeacon>) -> AnyView {
    view! { <AddBeaconForm add /> }.into_any()
}

/// Adds an existing Beacon's URL to a profile.
#[component]
fn AddBeaconForm(add: ServerAction<AddExistingBeacon>) -> impl IntoView {
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
