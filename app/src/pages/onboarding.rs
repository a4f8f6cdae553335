//! Onboarding: for a chosen profile and platform, the ready-to-share steps
//! (each block copyable), the deep link and its QR code; and the invites
//! (create, shown once; list with opens; revoke with confirmation). The
//! choice lives in the query string (`?network=&platform=&lang=`), so a guide
//! can be bookmarked and the back button works.

use super::confirm::ConfirmDialog;
use super::form_errors::FormErrors;
use super::infrastructure::when;
use super::layout::Frame;
use super::{loaded, LoadError};
use crate::api::list_networks;
use crate::api::onboarding::{
    list_invites, load_onboarding_guide, CreateInvite, InviteListPage, RevokeInvite,
};
use crate::error::UiError;
use crate::i18n::onboarding::{invite_state, onboarding_texts, platform_label};
use crate::i18n::{texts, Lang};
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::api::NetworkProfile;
use protocol::onboarding::{CreatedInvite, InviteView, NewInvite, OnboardingGuide, Platform};

/// The screen's address for a choice of profile, platform and text language.
fn guide_href(network: &str, platform: Platform, text_lang: Lang) -> String {
    format!(
        "/onboarding?network={network}&platform={}&lang={}",
        platform.slug(),
        text_lang.code()
    )
}

#[component]
pub fn OnboardingPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let params = use_query_map();
    let choice = Memo::new(move |_| {
        let params = params.read();
        let param = |name: &str| params.get(name).filter(|s| !s.is_empty());
        (
            param("network").unwrap_or_default(),
            param("platform"),
            param("lang"),
            param("invites_after"),
        )
    });
    view! {
        <Title text=format!("{} · {}", ot.title, t.product) />
        <Frame>
            <h1>{ot.title}</h1>
            <p class="muted">{ot.intro}</p>
            // Drawn again when the full build's client router changes the
            // query in place (the picker's links, the invites' pager).
            {move || {
                let (network, platform, text_lang, invites_after) = choice.get();
                view! { <OnboardingBody network platform text_lang invites_after /> }
            }}
        </Frame>
    }
}

/// The guide for the chosen profile, platform and text language (as the
/// query string has them, unchecked), and the invites. An island
/// (crate::islands), lazy and preloaded.
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn OnboardingBody(
    network: String,
    platform: Option<String>,
    text_lang: Option<String>,
    invites_after: Option<String>,
) -> impl IntoView {
    crate::islands::preload_island("onboarding_body_loader");
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let network = crate::islands::prop_reader(network);
    let platform = platform
        .and_then(|p| Platform::parse(&p))
        .unwrap_or(Platform::Android);
    let platform = move || platform;
    let text_lang = text_lang.and_then(|l| Lang::from_code(&l)).unwrap_or(lang);
    let text_lang = move || text_lang;
    let invites = Invites::new(invites_after);
    // The first profiles by name; one named in the address (each network
    // page links here with its own) is offered even beyond them.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let guide = Resource::new(
        move || (network(), platform(), text_lang()),
        |(network, platform, text_lang)| async move {
            if network.is_empty() {
                return None;
            }
            Some(load_onboarding_guide(network, platform, text_lang).await)
        },
    );
    view! {
        {loaded(
            move || async move { networks.await },
            move |answer| {
                match answer {
                    page if page.items.is_empty() => view! {
                        <p class="empty" id="onboarding-no-networks">
                            {ot.no_networks}" "<a href="/networks/new">{t.new_network}</a>
                        </p>
                    }
                        .into_any(),
                    page => view! {
                        <GuidePicker profiles=page.items network=network() text_lang=text_lang() platform=platform() />
                    }
                        .into_any(),
                }
            },
        )}
        <Transition fallback=move || view! { <p class="muted">{t.loading}</p> }>
            {move || Suspend::new(async move {
                match guide.await {
                    None => view! { <p class="empty" id="guide-empty">{ot.pick_network}</p> }.into_any(),
                    Some(Err(e)) => view! { <LoadError error=e /> }.into_any(),
                    Some(Ok(guide)) => view! { <GuideView guide text_lang=text_lang() /> }.into_any(),
                }
            })}
        </Transition>
        // The same profile list, read once, feeds the invite form.
        <Transition fallback=move || view! { <p class="muted">{t.loading}</p> }>
            {move || Suspend::new(async move {
                match networks.await {
                    Ok(page) if !page.items.is_empty() => {
                        view! { <InvitesSection profiles=page.items network=network() invites /> }.into_any()
                    }
                    _ => ().into_any(),
                }
            })}
        </Transition>
    }
}

/// One `<option>` per profile, the chosen one selected (and added, by its
/// ID, when it is not among those listed).
fn profile_options(profiles: Vec<NetworkProfile>, chosen: &str) -> impl IntoView {
    let unlisted = (!chosen.is_empty() && !profiles.iter().any(|n| n.id.as_str() == chosen)).then(
        || view! { <option value=chosen.to_string() selected=true>{chosen.to_string()}</option> },
    );
    let listed = profiles
        .into_iter()
        .map(|n| {
            let id = n.id.to_string();
            let selected = id == chosen;
            view! { <option value=id selected=selected>{n.name}</option> }
        })
        .collect_view();
    view! { {unlisted}{listed} }
}

/// Profile and language as a GET form (works before hydration too), then the
/// platforms as links.
#[component]
fn GuidePicker(
    profiles: Vec<NetworkProfile>,
    network: String,
    text_lang: Lang,
    platform: Platform,
) -> impl IntoView {
    let lang = use_lang();
    let ot = onboarding_texts(lang);
    let options = profile_options(profiles, &network);
    let tabs = (!network.is_empty()).then(|| {
        let links = Platform::ALL
            .into_iter()
            .map(|p| {
                let current = (p == platform).then_some("page");
                view! {
                    <a class="tab" href=guide_href(&network, p, text_lang) aria-current=current
                        data-platform=p.slug()>{platform_label(p)}</a>
                }
            })
            .collect_view();
        view! { <nav class="tabs" id="platform-tabs" aria-label=ot.platforms>{links}</nav> }
    });
    view! {
        <form method="get" action="/onboarding" class="card inline-form" id="guide-picker">
            <input type="hidden" name="platform" value=platform.slug() />
            <label for="onboarding-network">{ot.field_network}</label>
            <select id="onboarding-network" name="network">
                <option value="">{ot.choose_network}</option>
                {options}
            </select>
            <label for="onboarding-lang">{ot.field_text_lang}</label>
            <select id="onboarding-lang" name="lang">
                <option value="en" selected=text_lang == Lang::En>"English"</option>
                <option value="ru" selected=text_lang == Lang::Ru>"Русский"</option>
            </select>
            <button type="submit" id="show-guide">{ot.show}</button>
        </form>
        {tabs}
    }
}

/// Copies `text` to the clipboard and says so for a moment. Browsers offer
/// the clipboard only over HTTPS (or on localhost); elsewhere the button says
/// to select the text instead.
#[component]
pub fn CopyButton(
    text: String,
    label: &'static str,
    #[prop(optional)] id: Option<&'static str>,
) -> impl IntoView {
    let ot = onboarding_texts(use_lang());
    let shown = RwSignal::new(label);
    let copy = move |_| {
        let Some(window) = web_sys::window() else {
            return;
        };
        if window.is_secure_context() {
            let _ = window.navigator().clipboard().write_text(&text);
            shown.set(ot.copied);
        } else {
            shown.set(ot.select_to_copy);
        }
        set_timeout(
            move || shown.set(label),
            std::time::Duration::from_millis(2000),
        );
    };
    view! {
        <button type="button" class="copy" id=id on:click=copy aria-live="polite">
            {move || shown.get()}
        </button>
    }
}

#[component]
fn GuideView(guide: OnboardingGuide, text_lang: Lang) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let steps = guide
        .steps
        .into_iter()
        .map(|step| {
            let code = step.code.map(|code| {
                view! {
                    <pre class="snippet">{code.clone()}</pre>
                    <CopyButton text=code label=t.copy />
                }
            });
            view! { <li>{step.text}{code}</li> }
        })
        .collect_view();
    view! {
        <section class="card" id="guide" data-platform=guide.platform.slug() lang=text_lang.code()>
            <h2 id="guide-title">{guide.title}</h2>
            {guide.warning.map(|w| view! { <p class="alert warn" role="status" id="guide-warning">{w}</p> })}
            <ol id="guide-steps">{steps}</ol>
            <CopyButton text=guide.instructions label=ot.copy_all id="copy-instructions" />
            <h3>{ot.deep_link}</h3>
            <pre class="snippet" id="deep-link">{guide.uri.clone()}</pre>
            <CopyButton text=guide.uri label=t.copy />
            <h3>{ot.qr_title}</h3>
            <div class="qr" id="guide-qr" inner_html=guide.qr_svg></div>
        </section>
    }
}

/// The invites from `after` (the last invite of the previous page), read
/// again after each create or revoke. Made in the body of the page's island,
/// not under the profiles' Suspense (crate::islands).
#[derive(Clone, Copy)]
struct Invites {
    after: StoredValue<Option<String>>,
    create: ServerAction<CreateInvite>,
    revoke: ServerAction<RevokeInvite>,
    list: Resource<Result<InviteListPage, UiError>>,
}

impl Invites {
    fn new(after: Option<String>) -> Self {
        let after = StoredValue::new(after);
        let create = ServerAction::<CreateInvite>::new();
        let revoke = ServerAction::<RevokeInvite>::new();
        let list = Resource::new(
            move || {
                (
                    after.get_value(),
                    create.version().get(),
                    revoke.version().get(),
                )
            },
            |(after, _, _)| list_invites(after),
        );
        Self {
            after,
            create,
            revoke,
            list,
        }
    }
}

/// The invites: the form, and the list.
#[component]
fn InvitesSection(
    profiles: Vec<NetworkProfile>,
    network: String,
    invites: Invites,
) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let Invites {
        after,
        create,
        revoke,
        list: invites,
    } = invites;
    let after = move || after.get_value();
    view! {
        <section class="card" id="invites">
            <h2>{ot.invites_title}</h2>
            <p class="muted">{ot.invites_intro}</p>
            {may(ActionKind::ManageInvites).then(|| view! { <InviteForm profiles network create /> })}
            {loaded(
                move || async move { invites.await },
                move |answer| {
                    match answer {
                        page if page.items.is_empty() && after().is_none() => {
                            view! { <p class="empty" id="invites-empty">{ot.invites_empty}</p> }.into_any()
                        }
                        page => {
                            let rows = page
                                .items
                                .into_iter()
                                .map(|invite| view! { <InviteRow invite revoke /> })
                                .collect_view();
                            view! {
                                <table class="list" id="invites-table">
                                    <thead><tr>
                                        <th scope="col">{t.col_name}</th>
                                        <th scope="col">{ot.col_network}</th>
                                        <th scope="col">{ot.col_state}</th>
                                        <th scope="col">{ot.col_opens}</th>
                                        <th scope="col">{ot.col_expires}</th>
                                        <th scope="col"></th>
                                    </tr></thead>
                                    <tbody>{rows}</tbody>
                                </table>
                                <nav class="pager" aria-label="Pages">
                                    {after().map(|_| view! { <a href="/onboarding#invites">{t.first_page}</a> })}
                                    {page.next.map(|c| view! {
                                        <a href=format!("/onboarding?invites_after={c}#invites") rel="next">{t.next_page}</a>
                                    })}
                                </nav>
                            }
                                .into_any()
                        }
                    }
                },
            )}
        </section>
    }
}

#[component]
fn InviteRow(invite: InviteView, revoke: ServerAction<RevokeInvite>) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let confirming = RwSignal::new(false);
    let id = invite.id.clone();
    let opens = match invite.max_opens {
        Some(max) => format!("{} / {max}", invite.opens),
        None => invite.opens.to_string(),
    };
    let active = invite.state.is_active() && may(ActionKind::ManageInvites);
    let error = Signal::derive(move || {
        revoke
            .value()
            .get()
            .and_then(|r| r.err())
            .map(|e| e.message(lang))
    });
    view! {
        <tr class="invite-row" data-invite=invite.id.to_string() data-state=invite.state.as_str()>
            <td data-label=t.col_name>{invite.name}</td>
            <td data-label=ot.col_network>
                <a href=format!("/onboarding?network={}", invite.network_id)>{invite.network_name}</a>
            </td>
            <td data-label=ot.col_state class="invite-state">{invite_state(invite.state, lang)}</td>
            <td data-label=ot.col_opens class="invite-opens">{opens}</td>
            <td data-label=ot.col_expires>{invite.expires_at.as_deref().map(when).unwrap_or_else(|| ot.never.to_string())}</td>
            <td>
                {active.then(|| view! {
                    <button type="button" class="revoke-invite" on:click=move |_| confirming.set(true)>{ot.revoke}</button>
                })}
                <ConfirmDialog open=confirming title=ot.revoke_title explain=ot.revoke_explain confirm_label=ot.revoke
                    confirm_id="confirm-revoke-invite" error pending=revoke.pending()
                    on_confirm=move || {
                        revoke.dispatch(RevokeInvite { id: id.clone() });
                        confirming.set(false);
                    } />
            </td>
        </tr>
    }
}

#[component]
fn InviteForm(
    profiles: Vec<NetworkProfile>,
    network: String,
    create: ServerAction<CreateInvite>,
) -> impl IntoView {
    let lang = use_lang();
    let ot = onboarding_texts(lang);
    let chosen = RwSignal::new(network.clone());
    let name = RwSignal::new(String::new());
    let hours = RwSignal::new(String::new());
    let max_opens = RwSignal::new(String::new());
    let errors = FormErrors::of(create, lang);
    let message_for = move |field: &'static str| errors.for_field(field);
    // Empty means "no limit"; anything unparsable is refused like an out-of-range 0.
    let number = |s: String| -> Option<u32> {
        let s = s.trim().to_string();
        (!s.is_empty()).then(|| s.parse().unwrap_or(0))
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let input = NewInvite {
            network_id: chosen.get_untracked(),
            name: name.get_untracked(),
            expires_in_hours: number(hours.get_untracked()),
            max_opens: number(max_opens.get_untracked()),
        };
        if errors.check(input.validate()).is_some() {
            create.dispatch(CreateInvite { input });
        }
    };
    let options = profile_options(profiles, &network);
    view! {
        <form on:submit=on_submit novalidate id="invite-form">
            <label for="invite-network">{ot.field_network}</label>
            <select id="invite-network" name="network_id" on:change=move |ev| chosen.set(event_target_value(&ev))>
                <option value="">{ot.choose_network}</option>
                {options}
            </select>
            <p class="field-error" id="invite-network-error">{move || message_for("network_id")}</p>
            <label for="invite-name">{ot.field_invite_name}</label>
            <input id="invite-name" name="name" maxlength="80"
                prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            <p class="field-error" id="invite-name-error">{move || message_for("name")}</p>
            <label for="invite-hours">{ot.field_expires}</label>
            <input id="invite-hours" name="expires_in_hours" inputmode="numeric"
                prop:value=move || hours.get() on:input=move |ev| hours.set(event_target_value(&ev)) />
            <p class="field-error" id="invite-hours-error">{move || message_for("expires_in_hours")}</p>
            <label for="invite-max-opens">{ot.field_max_opens}</label>
            <input id="invite-max-opens" name="max_opens" inputmode="numeric"
                prop:value=move || max_opens.get() on:input=move |ev| max_opens.set(event_target_value(&ev)) />
            <p class="field-error" id="invite-max-opens-error">{move || message_for("max_opens")}</p>
            <p class="muted">{ot.limits_hint}</p>
            <p class="field-error" role="alert">{move || errors.general()}</p>
            <button type="submit" class="primary" id="create-invite" disabled=move || create.pending().get()>
                {ot.create_invite}
            </button>
        </form>
        {move || create.value().get().and_then(|r| r.ok()).map(|created| view! { <CreatedInviteLink created /> })}
    }
}

/// The one-time display of a new invite's link.
#[component]
fn CreatedInviteLink(created: CreatedInvite) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    view! {
        <div class="snippets" id="invite-created">
            {created.warning.map(|w| view! { <p class="alert warn" role="status">{w}</p> })}
            <p><strong>{ot.invite_once}</strong></p>
            <pre class="snippet" id="invite-url">{created.url.clone()}</pre>
            <CopyButton text=created.url label=t.copy id="copy-invite-url" />
        </div>
    }
}
