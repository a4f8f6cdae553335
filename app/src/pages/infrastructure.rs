//! Infrastructure, Agents tab: the Agents with their status, Add agent
//! (one-time install tokens with copy-ready snippets), the tokens, the
//! revoked keys (`revoked_keys`) and the enrollment log. The Beacons tab is
//! `beacons::BeaconsPage`.

use super::badges::agent_badge;
use super::form_errors::FormErrors;
use super::layout::{Frame, TabLinks};
use super::on_demand::OnDemand;
use super::plain_action::{refusal_in_address, RowAction};
use super::revoked_keys::RevokedKeys;
use super::{loaded, LastSeen};
use crate::api::infra::{agents_tab, AllowRevokedKey, CreateInstallToken, RevokeInstallToken};
use crate::i18n::infra::infra_texts;
use crate::i18n::texts;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use protocol::actions::ActionKind;
use protocol::api::{CreatedInstallToken, NewInstallToken, INSTALL_TOKEN_DEFAULT_HOURS};
use protocol::live::LiveTopic;

/// "2026-11-30T04:21:41Z" → "2026-11-30 04:21:41 UTC": readable without JavaScript.
pub fn when(rfc3339: &str) -> String {
    rfc3339.replacen('T', " ", 1).replace('Z', " UTC")
}

/// The tabs of Infrastructure. Each is its own URL and its own WebAssembly
/// chunk, so neither carries the other's forms on first load.
#[component]
pub fn InfraTabs(current: &'static str) -> impl IntoView {
    let it = infra_texts(use_lang());
    view! {
        <TabLinks
            label=it.infra_title
            current
            tabs=vec![("/infrastructure", it.agents_title), ("/infrastructure/beacons", it.beacons_tab)]
        />
    }
}

#[component]
pub fn InfrastructurePage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let it = infra_texts(lang);
    let query = leptos_router::hooks::use_query_map();
    let after = Memo::new(move |_| query.read().get("agents_after").filter(|s| !s.is_empty()));
    // The Agent whose revoked key the admin is asked to confirm letting back in.
    let allow = Memo::new(move |_| query.read().get("allow_key").filter(|s| !s.is_empty()));
    let refusal = move || {
        refusal_in_address(
            &query.read(),
            &[RevokeInstallToken::PATH, AllowRevokedKey::PATH],
        )
        .map(|e| e.message(lang))
    };
    view! {
        <Title text=format!("{} · {}", it.infra_title, t.product) />
        <Frame>
            <h1>{it.infra_title}</h1>
            <p class="muted">{it.infra_intro}</p>
            <InfraTabs current="/infrastructure" />
            <p class="field-error" role="alert" id="infra-action-error">{refusal}</p>
            // Drawn again when the full build's client router changes the
            // query in place (the pager's links).
            {move || view! { <AgentsTab after=after.get() allow=allow.get() /> }}
        </Frame>
    }
}

/// The Agents, Add agent, the install tokens, the revoked keys and the
/// enrollment log. Only Add agent is an island: the lists are live regions
/// (crate::live_region), drawn again from the server's HTML when an Agent
/// changes, and their actions plain forms (`plain_action`), after which the
/// page comes back as it now is.
#[component]
fn AgentsTab(after: Option<String>, allow: Option<String>) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let it = infra_texts(lang);
    let live = crate::live::use_live();
    let after = StoredValue::new(after);
    let after = move || after.get_value();
    // The whole tab in one call, read again when an Agent changes (the full
    // build; the islands build draws the regions again).
    let tab = Resource::new(
        move || (after(), live.agents()),
        |(after, ..)| agents_tab(after),
    );
    view! {
        <LiveRegion id="agents-live" topics=&[LiveTopic::Agents]>
        <h2 id="agents">{it.agents_title}</h2>
        {loaded(
            move || async move { tab.await.map(|tab| tab.agents) },
            move |answer| {
                match answer {
                    page if page.items.is_empty() && after().is_none() => {
                        view! { <p class="empty" id="agents-empty">{it.agents_empty}</p> }.into_any()
                    }
                    page => {
                        let next = page.next.clone();
                        let rows = page
                            .items
                            .into_iter()
                            .map(|a| {
                                let href = format!("/infrastructure/agents/{}", a.id);
                                // Components with an error or a warning: what the operator looks at first.
                                let problems = a
                                    .components
                                    .iter()
                                    .filter(|c| !c.last_error.is_empty() || !c.warnings.is_empty())
                                    .count();
                                view! {
                                    <tr class="agent-row" data-agent=a.id.to_string() data-status=a.status.as_str()>
                                        <td data-label=t.col_name><a href=href class="agent-name">{a.name.clone()}</a></td>
                                        <td data-label=it.col_status>
                                            <span class=agent_badge(a.status)>{a.status.as_str()}</span>
                                            " "<span class="muted reason">{a.reason_text.clone()}</span>
                                        </td>
                                        <td data-label=it.col_last_heartbeat><LastSeen at=a.last_heartbeat_at.clone() secs=a.last_seen_secs /></td>
                                        <td data-label=it.hostname>{a.hostname}</td>
                                        <td data-label=it.col_version>{a.version}</td>
                                        <td data-label=it.docker class="agent-docker">
                                            {if a.docker_available {
                                                view! { <span>{a.docker_version}</span> }.into_any()
                                            } else {
                                                view! { <span class="muted">{it.docker_missing}</span> }.into_any()
                                            }}
                                        </td>
                                        <td data-label=it.tags>{a.tags.join(", ")}</td>
                                        <td data-label=it.col_components>
                                            {a.components.len()}
                                            {(problems > 0).then(|| view! { " " <span class="badge bad agent-problems">{format!("{problems} ⚠")}</span> })}
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        view! {
                            <table class="list" id="agents-table">
                                <thead><tr>
                                    <th scope="col">{t.col_name}</th>
                                    <th scope="col">{it.col_status}</th>
                                    <th scope="col">{it.col_last_heartbeat}</th>
                                    <th scope="col">{it.hostname}</th>
                                    <th scope="col">{it.col_version}</th>
                                    <th scope="col">{it.docker}</th>
                                    <th scope="col">{it.tags}</th>
                                    <th scope="col">{it.col_components}</th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                            <nav class="pager" aria-label="Pages">
                                {after().map(|_| view! { <a href="/infrastructure#agents">{t.first_page}</a> })}
                                {next.map(|c| view! {
                                    <a href=format!("/infrastructure?agents_after={c}#agents") rel="next">{t.next_page}</a>
                                })}
                            </nav>
                        }
                            .into_any()
                    }
                }
            },
        )}

        </LiveRegion>

        {may(ActionKind::ManageInstallTokens).then(|| view! { <AddAgent /> })}

        <LiveRegion id="agent-tokens-live" topics=&[LiveTopic::Agents]>
        <h2 id="install-tokens">{it.tokens_title}</h2>
        {loaded(
            move || async move { tab.await.map(|tab| tab.install_tokens) },
            move |answer| {
                match answer {
                    list if list.is_empty() => view! { <p class="empty">{it.tokens_empty}</p> }.into_any(),
                    list => {
                        let rows = list
                            .into_iter()
                            .map(|tok| {
                                let id = tok.id.clone();
                                // Revoking a used token ends its repeat grace for the key that used it.
                                let revocable = tok.state.can_revoke() && may(ActionKind::ManageInstallTokens);
                                let label = match &tok.replaces_agent {
                                    Some(agent) => format!("{} ({} {agent})", tok.name, it.moves_agent),
                                    None => tok.name.clone(),
                                };
                                view! {
                                    <tr class="token-row">
                                        <td data-label=it.col_token><code>{tok.id.to_string()}</code></td>
                                        <td data-label=t.col_name>{label}</td>
                                        <td data-label=it.col_status class="token-state">{it.token_state(tok.state)}</td>
                                        <td data-label=it.col_expires>{when(&tok.expires_at)}</td>
                                        <td data-label=it.col_used_by>{tok.used_by.unwrap_or_default()}</td>
                                        <td>
                                            {revocable.then(|| view! {
                                                <RowAction action=RevokeInstallToken::PATH id=id.to_string() class="revoke-token" label=it.revoke />
                                            })}
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        view! {
                            <table class="list" id="tokens-table">
                                <thead><tr>
                                    <th scope="col">{it.col_token}</th>
                                    <th scope="col">{t.col_name}</th>
                                    <th scope="col">{it.col_status}</th>
                                    <th scope="col">{it.col_expires}</th>
                                    <th scope="col">{it.col_used_by}</th>
                                    <th scope="col"></th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                            <p class="muted">{it.shows_latest}</p>
                        }
                            .into_any()
                    }
                }
            },
        )}

        <RevokedKeys tab allow />

        <h2 id="enrollment-log">{it.log_title}</h2>
        <p class="muted">{it.log_intro}</p>
        {loaded(
            move || async move { tab.await.map(|tab| tab.enrollment_log) },
            move |answer| {
                match answer {
                    list if list.is_empty() => view! { <p class="empty">{it.log_empty}</p> }.into_any(),
                    list => {
                        let rows = list
                            .into_iter()
                            .map(|e| {
                                let class = if e.accepted { "badge ok" } else { "badge bad" };
                                // Repeated refusals are one row: how many, and between when.
                                let time = if e.attempts > 1 {
                                    format!(
                                        "×{}, {} {} {} {}",
                                        e.attempts,
                                        it.log_first,
                                        when(&e.first_at),
                                        it.log_last,
                                        when(&e.at)
                                    )
                                } else {
                                    when(&e.at)
                                };
                                // Whatever the host sent: text (escaped by Leptos), marked as its claim.
                                let given = (!e.name.is_empty()).then(|| view! {
                                    <span class="given-name"><span class="muted">{it.name_given}": "</span><q>{e.name.clone()}</q></span>" "
                                });
                                view! {
                                    <tr class="log-row" data-attempts=e.attempts.to_string()>
                                        <td data-label=it.col_time class="log-time">{time}</td>
                                        <td data-label=it.col_client>{e.client}</td>
                                        <td data-label=it.col_agent>{given}<code class="id">{e.agent_id.unwrap_or_default()}</code></td>
                                        <td data-label=it.col_result>
                                            <span class=class>{e.reason}</span>" "{e.reason_text}
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        view! {
                            <table class="list" id="enrollment-table">
                                <thead><tr>
                                    <th scope="col">{it.col_time}</th>
                                    <th scope="col">{it.col_client}</th>
                                    <th scope="col">{it.col_agent}</th>
                                    <th scope="col">{it.col_result}</th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                            <p class="muted">{it.shows_latest}</p>
                        }
                            .into_any()
                    }
                }
            },
        )}
        </LiveRegion>
    }
}

/// Add agent behind its button. An island (crate::islands), lazy and
/// preloaded; the form, with its server-function client, is its own chunk,
/// fetched on the first press (`add_agent_form`). The new token's row comes
/// with the live regions drawn again.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn AddAgent() -> impl IntoView {
    crate::islands::preload_island("add_agent_loader");
    let it = infra_texts(use_lang());
    let form_open = RwSignal::new(false);
    view! {
        <section class="card" id="add-agent">
            <h2>{it.add_agent}</h2>
            <p class="muted">{it.add_agent_intro}</p>
            <OnDemand id="open-add-agent" label=it.add_agent open=form_open load=add_agent_form />
        </section>
    }
}

/// The Add agent form as its own WebAssembly chunk.
#[lazy]
async fn add_agent_form() -> AnyView {
    view! { <AddAgentForm /> }.into_any()
}

/// Creates an install token and shows its snippets once.
#[component]
fn AddAgentForm() -> impl IntoView {
    let lang = use_lang();
    let create = ServerAction::<CreateInstallToken>::new();
    // The new token's row: the stream does not announce tokens.
    let live = crate::live::use_live();
    Effect::new(move |_| {
        if let Some(Ok(_)) = create.value().get() {
            live.changed_here(LiveTopic::Agents);
        }
    });
    let it = infra_texts(lang);
    let name = RwSignal::new(String::new());
    let tags = RwSignal::new(String::new());
    let hours = RwSignal::new(INSTALL_TOKEN_DEFAULT_HOURS.to_string());
    let needs_approval = RwSignal::new(false);
    let errors = FormErrors::of(create, lang);
    let input = move || NewInstallToken {
        name: name.get_untracked(),
        tags: tags
            .get_untracked()
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(String::from)
            .collect(),
        // An unparsable number is refused by the same rule as an out-of-range one.
        expires_in_hours: Some(hours.get_untracked().trim().parse().unwrap_or(0)),
        needs_approval: needs_approval.get_untracked(),
    };
    let message_for = move |field: &'static str| errors.for_field(field);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let input = input();
        if errors.check(input.validate()).is_some() {
            create.dispatch(CreateInstallToken { input });
        }
    };
    view! {
        <form on:submit=on_submit novalidate>
            <label for="token-name">{it.field_agent_name}</label>
            <input id="token-name" name="name" maxlength="80"
                prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            <p class="field-error" id="token-name-error">{move || message_for("name")}</p>
            <label for="token-tags">{it.field_tags}</label>
            <input id="token-tags" name="tags"
                prop:value=move || tags.get() on:input=move |ev| tags.set(event_target_value(&ev)) />
            <p class="field-error" id="token-tags-error">{move || message_for("tags")}</p>
            <label for="token-hours">{it.field_hours}</label>
            <input id="token-hours" name="expires_in_hours" inputmode="numeric"
                prop:value=move || hours.get() on:input=move |ev| hours.set(event_target_value(&ev)) />
            <p class="field-error" id="token-hours-error">{move || message_for("expires_in_hours")}</p>
            <label class="check">
                <input type="checkbox" id="token-needs-approval" name="needs_approval"
                    prop:checked=move || needs_approval.get()
                    on:change=move |ev| needs_approval.set(event_target_checked(&ev)) />
                " "{it.field_needs_approval}
            </label>
            <button type="submit" class="primary" id="create-token" disabled=move || create.pending().get()>
                {it.create_token}
            </button>
        </form>
        {move || create.value().get().and_then(|r| r.ok()).map(|created| view! { <TokenSnippets created /> })}
    }
}

/// The one-time display of a new token: the warning, then both snippets.
#[component]
pub fn TokenSnippets(created: CreatedInstallToken) -> impl IntoView {
    let it = infra_texts(use_lang());
    view! {
        <div class="snippets" id="token-snippets">
            {created.warning.map(|w| view! { <p class="alert warn" role="status">{w}</p> })}
            <p><strong>{it.token_once}</strong></p>
            <h3>{it.docker_run}</h3>
            <pre class="snippet" id="snippet-docker-run">{created.docker_run}</pre>
            <h3>{it.compose}</h3>
            <pre class="snippet" id="snippet-compose">{created.compose}</pre>
        </div>
    }
}
