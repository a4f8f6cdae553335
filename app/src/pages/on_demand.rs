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
    move || {
        if open.get() {
            view! {
                <Suspense fallback=move || view! { <p class="muted">{t.loading}</p> }>
                    {move || Suspend::new(load())}
                </Suspense>
            }
            .into_any()
        } else {
            view! {
                <button type="button" class="primary" id=id on:click=move |_| open.set(true)>
                    {label}
                </button>
            }
            .into_any()
        }
    }
}
