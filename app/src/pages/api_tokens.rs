//! Settings' API tokens tab: create a token (shown once), list them by name
//! and prefix, revoke one after a confirmation.
//!
//! Only the form is an island: the token it creates is shown once, from the
//! answer. The list is a region the server draws (crate::live_region), drawn
//! again once the form has created a token. Revoke is a link to the same
//! page with the token named in the address (`revoke`), which the server
//! renders with the confirmation under the list; its button is a plain form
//! (`plain_action`).

use super::form_errors::FormErrors;
use super::infrastructure::when;
use super::loaded;
use super::on_demand::OnDemand;
use super::plain_action::{confirm_address, refusal_in_address, ConfirmAtAddress};
use super::settings::SettingsFrame;
use crate::api::settings::{list_api_tokens, CreateApiToken, RevokeApiToken};
use crate::i18n::settings::token_texts;
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::tokens::{TokenInput, TokenView};

/// The word by which the form asks for the list to be drawn again
/// (`Live::changed_on_page`): the live stream does not announce tokens.
const TOKENS_CHANGED: &str = "api-tokens";

#[component]
pub fn TokensPage() -> impl IntoView {
    view! {
        <SettingsFrame current="/settings/tokens">
            <ApiTokensSection />
        </SettingsFrame>
    }
}

/// The form and the list; for a role that may have no tokens (a viewer),
/// only why not.
#[component]
fn ApiTokensSection() -> impl IntoView {
    let lang = use_lang();
    let tt = token_texts(lang);
    let query = use_query_map();
    // The token the address asks to confirm revoking.
    let revoking = Memo::new(move |_| query.read().get("revoke").filter(|s| !s.is_empty()));
    let refusal =
        move || refusal_in_address(&query.read(), &[RevokeApiToken::PATH]).map(|e| e.message(lang));
    let live = crate::live::use_live();
    // Read again when the form created a token (the full build; the islands
    // build draws the region again).
    let tokens = Resource::new(move || live.on_page(), |_| list_api_tokens());
    let list = move || {
        loaded(
            move || {
                // Read here, where it is tracked: the full build's router
                // changes the address in place.
                let revoking = revoking.get();
                async move { tokens.await.map(|list| list.map(|list| (list, revoking))) }
            },
            move |answer| match answer {
                None => view! { <p class="muted">{tt.not_for_role}</p> }.into_any(),
                Some((list, _)) if list.is_empty() => {
                    view! { <p class="empty" id="tokens-empty">{tt.empty}</p> }.into_any()
                }
                Some((list, revoking)) => view! { <TokenTable list revoking /> }.into_any(),
            },
        )
    };
    view! {
        <section class="card" id="api-tokens">
            <h2>{tt.title}</h2>
            <p class="muted">{tt.intro}</p>
            {if may(ActionKind::ManageOwnApiTokens) {
                view! {
                    <NewApiToken />
                    <p class="field-error" role="alert" id="tokens-action-error">{refusal}</p>
                    <LiveRegion id="api-tokens-live" local=&[TOKENS_CHANGED]>{list}</LiveRegion>
                }
                    .into_any()
            } else {
                view! { <p class="muted" id="tokens-not-for-role">{tt.not_for_role}</p> }.into_any()
            }}
        </section>
    }
}

/// The create form behind its button. An island (crate::islands), lazy and
/// preloaded; the form, with its server-function client, is its own chunk,
/// fetched on the first press (`new_token_form`).
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn NewApiToken() -> impl IntoView {
    crate::islands::preload_island("new_api_token_loader");
    let tt = token_texts(use_lang());
    let open = RwSignal::new(false);
    view! { <OnDemand id="open-new-token" label=tt.create open load=new_token_form /> }
}

/// The create form as its own WebAssembly chunk.
#[lazy]
async fn new_token_form() -> AnyView {
    view! { <NewTokenForm /> }.into_any()
}

/// Creates a token and shows it once; the list then shows it too.
#[component]
fn NewTokenForm() -> impl IntoView {
    let lang = use_lang();
    let tt = token_texts(lang);
    let create = ServerAction::<CreateApiToken>::new();
    let live = crate::live::use_live();
    let name = RwSignal::new(String::new());
    let scope = RwSignal::new("read".to_string());
    let errors = FormErrors::of(create, lang);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let input = TokenInput {
            name: name.get_untracked(),
            scope: scope.get_untracked(),
        };
        if errors.check(input.validate()).is_some() {
            create.dispatch(CreateApiToken {
                name: input.name,
                scope: input.scope,
            });
        }
    };
    Effect::new(move |_| {
        if let Some(Ok(_)) = create.value().get() {
            name.set(String::new());
            live.changed_on_page(TOKENS_CHANGED);
        }
    });
    let created = move || {
        create.value().get().and_then(|r| r.ok()).map(|c| {
            view! {
                <div class="alert" role="status" id="new-token">
                    <p><strong>{tt.shown_once}</strong></p>
                    <p><code id="new-token-value" class="secret">{c.token.clone()}</code></p>
                    <p class="muted">{tt.usage}" "<code>"Authorization: Bearer "{c.token}</code></p>
                </div>
            }
        })
    };
    view! {
        <form on:submit=on_submit novalidate id="token-form">
            <label for="token-name">{tt.name_field}</label>
            <input id="token-name" name="name" autocomplete="off" placeholder=tt.name_placeholder
                prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            <p class="field-error" id="token-name-error">{move || errors.for_field("name")}</p>
            <label for="token-scope">{tt.scope_field}</label>
            <select id="token-scope" name="scope" prop:value=move || scope.get()
                on:change=move |ev| scope.set(event_target_value(&ev))>
                <option value="read">{tt.scope_read}</option>
                <option value="write">{tt.scope_write}</option>
            </select>
            <p class="field-error" id="token-scope-error">{move || errors.for_field("scope")}</p>
            <p class="field-error" role="alert">{move || errors.general()}</p>
            <div class="actions">
                <button type="submit" class="primary" id="create-token" disabled=move || create.pending().get()>
                    {tt.create}
                </button>
            </div>
        </form>
        {created}
    }
}

/// The tokens, and under them the confirmation the address asks for, if it
/// names one of them that still works.
#[component]
fn TokenTable(list: Vec<TokenView>, revoking: Option<String>) -> impl IntoView {
    let tt = token_texts(use_lang());
    let asked = revoking.and_then(|id| {
        list.iter()
            .find(|t| t.id.as_str() == id && t.revoked_at.is_none())
            .cloned()
    });
    let rows = list
        .into_iter()
        .map(|token| {
            let id = token.id.to_string();
            let action = if token.revoked_at.is_some() {
                view! { <span class="badge bad">{tt.revoked}</span> }.into_any()
            } else {
                view! {
                    <a href=confirm_address("/settings/tokens", "revoke", &id, "confirm-revoke") class="button danger revoke-token" id=format!("revoke-{id}")>
                        {tt.revoke}
                    </a>
                }
                .into_any()
            };
            let scope = token.scope.as_str();
            view! {
                <tr class="token-row">
                    <td data-label=tt.col_name>{token.name.clone()}</td>
                    <td data-label=tt.col_token><code>{format!("{}…", token.prefix)}</code></td>
                    <td data-label=tt.col_scope><span class="badge">{scope}</span></td>
                    <td data-label=tt.col_created>{when(&token.created_at)}</td>
                    <td data-label=tt.col_last_used>
                        {token.last_used_at.as_deref().map(when).unwrap_or_else(|| tt.never.to_string())}
                    </td>
                    <td>{action}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="list" id="tokens-table">
            <thead><tr>
                <th scope="col">{tt.col_name}</th>
                <th scope="col">{tt.col_token}</th>
                <th scope="col">{tt.col_scope}</th>
                <th scope="col">{tt.col_created}</th>
                <th scope="col">{tt.col_last_used}</th>
                <th scope="col"></th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
        {asked.map(|token| view! {
            <ConfirmAtAddress id="confirm-revoke" explain=tt.revoke_explain
                cancel_href="/settings/tokens" cancel_id="cancel-revoke-token"
                action=RevokeApiToken::PATH value=token.id.to_string()
                confirm_id="confirm-revoke-token" label=tt.revoke>
                {tt.revoke}" "<q>{token.name}</q>
            </ConfirmAtAddress>
        })}
    }
}
