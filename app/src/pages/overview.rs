//! Overview: the counts an operator checks first, each linking to its list.

use super::layout::Frame;
use super::LoadError;
use crate::api::load_overview;
use crate::i18n::texts;
use crate::use_lang;
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
fn Card(
    href: &'static str,
    label: &'static str,
    value: String,
    #[prop(into)] note: Option<String>,
    id: &'static str,
) -> impl IntoView {
    view! {
        <a class="card stat" href=href id=id>
            <span class="stat-label">{label}</span>
            <span class="stat-value">{value}</span>
            {note.map(|n| view! { <span class="stat-note">{n}</span> })}
        </a>
    }
}

#[component]
pub fn OverviewPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let counts = Resource::new(|| (), |_| load_overview());
    view! {
        <Title text=format!("{} · {}", t.overview_title, t.product) />
        <Frame>
            <h1>{t.overview_title}</h1>
            <Suspense fallback=move || view! { <p class="muted">{t.loading}</p> }>
                {move || Suspend::new(async move {
                    match counts.await {
                        Err(e) => view! { <LoadError error=e /> }.into_any(),
                        Ok(c) => {
                            let networks_note = if c.networks == 0 {
                                Some(t.zero_networks.to_string())
                            } else if c.networks_without_beacon > 0 {
                                Some(t.some_networks_without_beacon.replace("{n}", &c.networks_without_beacon.to_string()))
                            } else {
                                None
                            };
                            let agents_note = if c.agents_total == 0 {
                                t.zero_agents.to_string()
                            } else {
                                t.online_of.replace("{n}", &c.agents_total.to_string())
                            };
                            view! {
                                <div class="stats">
                                    <Card id="count-networks" href="/networks" label=t.card_networks value=c.networks.to_string() note=networks_note />
                                    <Card id="count-agents" href="/infrastructure" label=t.card_agents value=c.agents_online.to_string() note=Some(agents_note) />
                                    <Card
                                        id="count-components"
                                        href="/infrastructure"
                                        label=t.card_components
                                        value=c.managed_components.to_string()
                                        note=(c.managed_components == 0).then(|| t.zero_components.to_string())
                                    />
                                    <Card
                                        id="count-services"
                                        href="/services"
                                        label=t.card_services
                                        value=c.services.to_string()
                                        note=(c.services == 0).then(|| t.zero_services.to_string())
                                    />
                                </div>
                            }
                                .into_any()
                        }
                    }
                })}
            </Suspense>
        </Frame>
    }
}
