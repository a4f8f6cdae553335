//! Which networks a person sees, as the Users section chooses it: "All
//! networks", or a checklist of them. Used by the invite form and by each
//! person's row. What it sends is decided by `protocol::users::networks_chosen`,
//! the rule the server applies too.

use crate::i18n::users::user_texts;
use crate::use_lang;
use leptos::prelude::*;

/// The choice being made: all networks, or the IDs checked.
#[derive(Clone, Copy)]
pub struct NetworkPick {
    pub all: RwSignal<bool>,
    pub chosen: RwSignal<Vec<String>>,
}

impl NetworkPick {
    /// Starting from a person's networks (empty: all).
    pub fn of(current: &[String]) -> Self {
        Self {
            all: RwSignal::new(current.is_empty()),
            chosen: RwSignal::new(current.to_vec()),
        }
    }

    /// Empties `message` whenever the choice changes: a refusal of the
    /// previous choice would otherwise stay under the new one.
    pub fn clears(self, message: RwSignal<Option<String>>) {
        Effect::new(move |_| {
            self.all.track();
            self.chosen.track();
            message.set(None);
        });
    }

    /// What to send: nothing for all networks, else the IDs checked; a
    /// refusal (none checked) is the field's message.
    pub fn to_send(self, lang: protocol::Lang) -> Result<Vec<String>, String> {
        protocol::users::networks_chosen(self.all.get_untracked(), self.chosen.get_untracked())
            .map_err(|e| e.message(lang))
    }
}

/// How a person's networks read in the list: "All networks" or their names.
pub fn described(ids: &[String], networks: &[(String, String)], all: &str) -> String {
    if ids.is_empty() {
        return all.to_string();
    }
    ids.iter()
        .map(|id| {
            networks
                .iter()
                .find(|(known, _)| known == id)
                .map_or(id.as_str(), |(_, name)| name.as_str())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// "All networks" and, unchecked, one box per network. `prefix` keeps the
/// element IDs apart when several choices are on the page.
#[component]
pub fn NetworkChoice(
    prefix: String,
    pick: NetworkPick,
    networks: Vec<(String, String)>,
) -> impl IntoView {
    let ut = user_texts(use_lang());
    let all_id = format!("{prefix}-all");
    let all_for = all_id.clone();
    let boxes = networks
        .into_iter()
        .map(|(id, name)| {
            let box_id = format!("{prefix}-{id}");
            let label_for = box_id.clone();
            let (checked_id, toggled_id) = (id.clone(), id.clone());
            view! {
                <label class="check" for=label_for>
                    <input type="checkbox" id=box_id data-network=id
                        prop:checked=move || pick.chosen.with(|c| c.contains(&checked_id))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            let id = toggled_id.clone();
                            pick.chosen.update(|c| {
                                c.retain(|x| *x != id);
                                if on {
                                    c.push(id);
                                }
                            });
                        } />
                    " "{name}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="network-choice" id=prefix.clone()>
            <legend>{ut.networks}</legend>
            <label class="check" for=all_for>
                <input type="checkbox" id=all_id prop:checked=move || pick.all.get()
                    on:change=move |ev| pick.all.set(event_target_checked(&ev)) />
                " "{ut.all_networks}
            </label>
            <div class="network-boxes" hidden=move || pick.all.get()>{boxes}</div>
        </fieldset>
    }
}
