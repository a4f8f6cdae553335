//! Settings' API tokens tab: create a token (shown once), list them by name
//! and prefix, revoke one after a confirmation.

use super::confirm::ConfirmDialog;
use super::form_errors::FormErrors;
use super::infrastructure::when;
use super::loaded;
use super::settings::SettingsFrame;
use crate::api::settings::{list_api_tokens, CreateApiToken, RevokeApiToken};
use crate::i18n::settings::token_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::tokens::{TokenInput, TokenView};
use protocol::ApiTokenId;

#[component]
pub fn TokensPage() -> impl IntoView {
    view! {
        <SettingsFrame current="/settings/tokens">
            <ApiTokensSection />
        </SettingsFrame>
    }
}

/// An island (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn ApiTokensSection() -> impl IntoView {
    crate::islands::preload_island("api_tokens_section_loader");
    let lang = use_lang();
    let tt = token_texts(lang);
    let create = ServerAction::<CreateApiToken>::new();
    let revoke = ServerAction::<RevokeApiToken>::new();
    let tokens = Resource::new(
        move || (create.version().get(), revoke.version().get()),
        |_| list_api_tokens(),
    );
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
    // Which token the confirmation is about.
    let revoking = RwSignal::new(None::<ApiTokenId>);
    let confirm_open = RwSignal::new(false);
    let revoke_error = Signal::derive(move || {
        revoke
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = revoke.value().get() {
            confirm_open.set(false);
        }
    });
    let ask_revoke = Callback::new(move |id: ApiTokenId| {
        revoking.set(Some(id));
        confirm_open.set(true);
    });
    view! {
        <section class="card" id="api-tokens">
            <h2>{tt.title}</h2>
            <p class="muted">{tt.intro}</p>
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
            {loaded(
                move || async move { tokens.await },
                move |answer| {
                    match answer {
                        None => {
                            view! { <p class="muted" id="tokens-not-for-role">{tt.not_for_role}</p> }.into_any()
                        }
                        Some(list) if list.is_empty() => {
                            view! { <p class="empty" id="tokens-empty">{tt.empty}</p> }.into_any()
                        }
                        Some(list) => view! { <TokenTable list ask_revoke /> }.into_any(),
                    }
                },
            )}
            <ConfirmDialog open=confirm_open title=tt.revoke explain=tt.revoke_explain
                confirm_label=tt.revoke confirm_id="confirm-revoke-token"
                error=revoke_error pending=revoke.pending()
                on_confirm=move || {
                    if let Some(id) = revoking.get_untracked() {
                        revoke.dispatch(RevokeApiToken { id });
                    }
                } />
        </section>
    }
}

#[component]
fn TokenTable(list: Vec<TokenView>, ask_revoke: Callback<ApiTokenId>) -> impl IntoView {
    let tt = token_texts(use_lang());
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
            <tbody>
                {list.into_iter().map(|token| {
                    let id = token.id.clone();
                    let action = if token.revoked_at.is_some() {
                        view! { <span class="badge bad">{tt.revoked}</span> }.into_any()
                    } else {
                        view! {
                            <button type="button" class="danger" id=format!("revoke-{id}")
                                on:click=move |_| ask_revoke.run(id.clone())>{tt.revoke}</button>
                        }.into_any()
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
                }).collect_view()}
            </tbody>
        </table>
    }
}
