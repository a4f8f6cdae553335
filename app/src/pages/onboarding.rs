//! Onboarding: for a chosen profile and platform, the ready-to-share steps
//! (each block copyable), the deep link and its QR code; and the invites
//! (create, shown once; list with opens; revoke with confirmation). The
//! choice lives in the query string (`?network=&platform=&lang=`), so a guide
//! can be bookmarked and the back button works.
//!
//! The server draws the screen. Its copy buttons need no WebAssembly
//! (`copy`); the invites are a live region (crate::live_region), drawn again
//! once the form has made an invite; Revoke asks first at an address of its
//! own (`?revoke_invite=`) and is a plain form (`plain_action`). Only the
//! create form, behind its button, is an island: the link it makes is shown
//! once, from the answer.

use super::copy::CopyButton;
use super::form_errors::FormErrors;
use super::infrastructure::when;
use super::layout::Frame;
use super::on_demand::OnDemand;
use super::plain_action::{confirm_address, refusal_in_address, with_query, ConfirmAtAddress};
use super::{loaded, LoadError};
use crate::api::list_networks;
use crate::api::onboarding::{
    list_invites, load_onboarding_guide, CreateInvite, InviteListPage, RevokeInvite,
};
use crate::i18n::onboarding::{invite_state, onboarding_texts, platform_label};
use crate::i18n::{texts, Lang};
use crate::islands::{drawn_attribute, start_from};
use crate::live_region::LiveRegion;
use crate::{may, use_lang};
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;
use protocol::actions::ActionKind;
use protocol::api::NetworkProfile;
use protocol::onboarding::{CreatedInvite, InviteView, NewInvite, OnboardingGuide, Platform};

/// The word by which the form asks for the invites to be drawn again
/// (`Live::changed_on_page`): the live stream does not announce invites.
const INVITES_CHANGED: &str = "invites";

/// The address's key that asks to confirm revoking an invite.
const REVOKE_ASKED: &str = "revoke_invite";

/// The screen's address for a choice of profile, platform and text language.
fn guide_href(network: &str, platform: Platform, text_lang: Lang) -> String {
    format!(
        "/onboarding?network={network}&platform={}&lang={}",
        platform.slug(),
        text_lang.code()
    )
}

/// What the address asks for: the guide's profile, platform and text
/// language (unchecked), the invites' page and the invite to confirm revoking.
#[derive(Clone, PartialEq)]
struct Asked {
    network: String,
    platform: Option<String>,
    text_lang: Option<String>,
    invites_after: Option<String>,
    revoking: Option<String>,
}

#[component]
pub fn OnboardingPage() -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let params = use_query_map();
    let asked = Memo::new(move |_| {
        let params = params.read();
        let param = |name: &str| params.get(name).filter(|s| !s.is_empty());
        Asked {
            network: param("network").unwrap_or_default(),
            platform: param("platform"),
            text_lang: param("lang"),
            invites_after: param("invites_after"),
            revoking: param(REVOKE_ASKED),
        }
    });
    if may(ActionKind::ManageInvites) {
        // Its island renders under the profiles' Suspense: its code is named here.
        crate::islands::preload_island("new_invite_button_loader");
    }
    let refusal =
        move || refusal_in_address(&params.read(), &[RevokeInvite::PATH]).map(|e| e.message(lang));
    view! {
        <Title text=format!("{} · {}", ot.title, t.product) />
        <Frame>
            <h1>{ot.title}</h1>
            <p class="muted">{ot.intro}</p>
            // Drawn again when the full build's client router changes the
            // query in place (the picker's links, the invites' pager).
            {move || view! { <OnboardingBody asked=asked.get() refusal=Signal::derive(refusal) /> }}
        </Frame>
    }
}

/// The guide for the chosen profile, platform and text language, and the
/// invites.
#[component]
fn OnboardingBody(asked: Asked, refusal: Signal<Option<String>>) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let live = crate::live::use_live();
    let platform = asked
        .platform
        .as_deref()
        .and_then(Platform::parse)
        .unwrap_or(Platform::Android);
    let text_lang = asked
        .text_lang
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or(lang);
    let asked = StoredValue::new(asked);
    let network = move || asked.with_value(|a| a.network.clone());
    // The first profiles by name; one named in the address (each network
    // page links here with its own) is offered even beyond them.
    let networks = Resource::new(|| (), |_| list_networks(None, None));
    let guide = Resource::new(network, move |network| async move {
        if network.is_empty() {
            return None;
        }
        Some(load_onboarding_guide(network, platform, text_lang).await)
    });
    // Read again once the form has made an invite (the full build; the
    // islands build draws the region again).
    let invites = Resource::new(
        move || {
            (
                asked.with_value(|a| a.invites_after.clone()),
                live.on_page(),
            )
        },
        |(after, _)| list_invites(after),
    );
    // Where the guide is, with what the address adds to it (the pager's
    // and the confirmation's links keep the guide in view).
    let here = move || {
        let network = network();
        if network.is_empty() {
            "/onboarding".to_string()
        } else {
            guide_href(&network, platform, text_lang)
        }
    };
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
                        <GuidePicker profiles=page.items network=network() text_lang platform />
                        <Transition fallback=move || view! { <p class="muted">{t.loading}</p> }>
                            {move || Suspend::new(async move {
                                match guide.await {
                                    None => view! { <p class="empty" id="guide-empty">{ot.pick_network}</p> }.into_any(),
                                    Some(Err(e)) => view! { <LoadError error=e /> }.into_any(),
                                    Some(Ok(guide)) => view! { <GuideView guide text_lang /> }.into_any(),
                                }
                            })}
                        </Transition>
                        <section class="card" id="invites">
                            <h2>{ot.invites_title}</h2>
                            <p class="muted">{ot.invites_intro}</p>
                            {may(ActionKind::ManageInvites).then(|| {
                                provide_context(InviteNetwork(network()));
                                view! { <NewInviteButton /> }
                            })}
                            <p class="field-error" role="alert" id="invites-action-error">{move || refusal.get()}</p>
                            <LiveRegion id="invites-live" local=&[INVITES_CHANGED]>
                                {loaded(
                                    move || async move { invites.await },
                                    move |page| {
                                        let (after, revoking) =
                                            asked.with_value(|a| (a.invites_after.clone(), a.revoking.clone()));
                                        view! { <InviteList page after revoking here=here() /> }
                                    },
                                )}
                            </LiveRegion>
                        </section>
                    }
                        .into_any(),
                }
            },
        )}
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

/// The invites of one page, the pager, and under them the confirmation the
/// address asks for, if it names one still active. `here` is the screen's
/// address with the guide the person is looking at.
#[component]
fn InviteList(
    page: InviteListPage,
    after: Option<String>,
    revoking: Option<String>,
    here: String,
) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    if page.items.is_empty() && after.is_none() {
        return view! { <p class="empty" id="invites-empty">{ot.invites_empty}</p> }.into_any();
    }
    // This page of the invites, where a confirmation asked about one of
    // them finds it.
    let this_page = match &after {
        Some(after) => with_query(&here, "invites_after", after),
        None => here.clone(),
    };
    let asked = revoking.and_then(|id| {
        page.items
            .iter()
            .find(|i| i.id.as_str() == id && i.state.is_active())
            .cloned()
    });
    let rows = page
        .items
        .into_iter()
        .map(|invite| {
            let revoke_href = confirm_address(
                &this_page,
                REVOKE_ASKED,
                invite.id.as_str(),
                "revoke-invite",
            );
            view! { <InviteRow invite revoke_href /> }
        })
        .collect_view();
    let first = after.map(|_| view! { <a href=format!("{here}#invites")>{t.first_page}</a> });
    let next = page.next.map(|c| {
        view! { <a href=format!("{}#invites", with_query(&here, "invites_after", &c)) rel="next">{t.next_page}</a> }
    });
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
        <nav class="pager" aria-label="Pages">{first}{next}</nav>
        {asked.map(|invite| view! {
            <ConfirmAtAddress id="revoke-invite" explain=ot.revoke_explain
                cancel_href=format!("{this_page}#invites") cancel_id="cancel-revoke-invite"
                action=RevokeInvite::PATH value=invite.id.to_string()
                confirm_id="confirm-revoke-invite" label=ot.revoke>
                {ot.revoke_title}" "<q>{invite.name}</q>
            </ConfirmAtAddress>
        })}
    }
    .into_any()
}

#[component]
fn InviteRow(invite: InviteView, revoke_href: String) -> impl IntoView {
    let lang = use_lang();
    let t = texts(lang);
    let ot = onboarding_texts(lang);
    let opens = match invite.max_opens {
        Some(max) => format!("{} / {max}", invite.opens),
        None => invite.opens.to_string(),
    };
    let active = invite.state.is_active() && may(ActionKind::ManageInvites);
    let id = invite.id.to_string();
    view! {
        <tr class="invite-row" data-invite=id.clone() data-state=invite.state.as_str()>
            <td data-label=t.col_name>{invite.name}</td>
            <td data-label=ot.col_network>
                <a href=format!("/onboarding?network={}", invite.network_id)>{invite.network_name}</a>
            </td>
            <td data-label=ot.col_state class="invite-state">{invite_state(invite.state, lang)}</td>
            <td data-label=ot.col_opens class="invite-opens">{opens}</td>
            <td data-label=ot.col_expires>{invite.expires_at.as_deref().map(when).unwrap_or_else(|| ot.never.to_string())}</td>
            <td>
                {active.then(|| view! {
                    <a href=revoke_href class="button revoke-invite" id=format!("revoke-{id}")>{ot.revoke}</a>
                })}
            </td>
        </tr>
    }
}

/// Create invite, the form behind its button. An island (crate::islands),
/// lazy; [`OnboardingPage`] names its code among the preloads. The form,
/// with its server-function client, is its own chunk, fetched on the first
/// press (`new_invite_form`). It takes no props, so that its first load
/// carries no JSON decoder: it starts from [`InviteNetwork`].
#[cfg_attr(hydrate_whole_page, component)]
#[cfg_attr(not(hydrate_whole_page), island(lazy))]
fn NewInviteButton() -> impl IntoView {
    let ot = onboarding_texts(use_lang());
    let open = RwSignal::new(false);
    let InviteNetwork(network) = start_from(|| {
        InviteNetwork(drawn_attribute(NEW_INVITE_START_ID, "data-network").unwrap_or_default())
    });
    let drawn = network.clone();
    let network = StoredValue::new(network);
    view! {
        <div class="island-start" id=NEW_INVITE_START_ID data-network=drawn>
            <OnDemand id="open-new-invite" label=ot.create_invite open
                load=move || new_invite_form(network.get_value()) />
        </div>
    }
}

/// The profile a new invite starts with (the guide's, if one is picked):
/// [`NewInviteButton`]'s start, as context ([`crate::islands::start_from`]),
/// drawn around it for the islands build's browser.
#[derive(Clone)]
struct InviteNetwork(String);

const NEW_INVITE_START_ID: &str = "new-invite-start";

/// The create form, with the profiles to choose from, as its own
/// WebAssembly chunk.
#[lazy]
async fn new_invite_form(network: String) -> AnyView {
    let profiles = Resource::new(|| (), |_| list_networks(None, None));
    let network = StoredValue::new(network);
    loaded(
        move || async move { profiles.await },
        move |page| view! { <InviteForm profiles=page.items network=network.get_value() /> },
    )
    .into_any()
}

/// Makes an invite and shows its link once; the list then shows it too.
#[component]
fn InviteForm(profiles: Vec<NetworkProfile>, network: String) -> impl IntoView {
    let create = ServerAction::<CreateInvite>::new();
    let live = crate::live::use_live();
    Effect::new(move |_| {
        if let Some(Ok(_)) = create.value().get() {
            live.changed_on_page(INVITES_CHANGED);
        }
    });
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
