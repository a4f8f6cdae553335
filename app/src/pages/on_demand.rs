//! A form behind a button. The form is a `#[lazy]` function, so its code is
//! its own WebAssembly chunk, fetched when the button is first pressed: the
//! screen's first load carries only the button.

use crate::i18n::texts;
use crate::use_lang;
use leptos::prelude::*;
use std::future::Future;

#[component]
pub fn OnDemand<F, Fut>(
    /// The button's ID.
    id: &'static str,
    label: &'static str,
    /// The button's class; a primary button unless said otherwise.
    #[prop(default = "primary")]
    class: &'static str,
    /// Whether the form is shown; set it to open the form from elsewhere.
    open: RwSignal<bool>,
    /// The `#[lazy]` function that renders the form.
    load: F,
) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = AnyView> + Send + 'static,
{
    let t = texts(use_lang());
    // The pressed button goes away: keyboard focus moves to the form's region
    // instead of falling back to the top of the page; Tab goes on to its fields.
    let region = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        if open.get() {
            if let Some(region) = region.get() {
                let _ = region.focus();
            }
        }
    });
    move || {
        if open.get() {
            view! {
                <div class="on-demand" tabindex="-1" node_ref=region>
                    <Suspense fallback=move || view! { <p class="muted">{t.loading}</p> }>
                        {move || Suspend::new(load())}
                    </Suspense>
                </div>
            }
            .into_any()
        } else {
            view! {
                <button type="button" class=class id=id on:click=move |_| open.set(true)>
                    {label}
                </button>
            }
            .into_any()
        }
    }
}
