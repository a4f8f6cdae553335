//! A confirmation dialog for destructive actions: says what will happen,
//! focuses Cancel, and Escape backs out. With fields (`children`) it asks
//! for them first, and its confirm button is not styled as a danger.

use crate::i18n::texts;
use crate::use_lang;
use leptos::html;
use leptos::prelude::*;

#[component]
pub fn ConfirmDialog(
    /// Shown while set; cleared by Cancel or Escape.
    open: RwSignal<bool>,
    title: &'static str,
    explain: &'static str,
    confirm_label: &'static str,
    /// The confirm button's id (for tests and links); `confirm-action` by default.
    #[prop(optional)]
    confirm_id: Option<&'static str>,
    /// The refusal to show, if the action failed.
    #[prop(into)]
    error: Signal<Option<String>>,
    #[prop(into)] pending: Signal<bool>,
    on_confirm: impl Fn() + Send + Sync + 'static,
    /// Fields asked for before confirming (the dialog is then no warning).
    #[prop(optional)]
    children: Option<ChildrenFn>,
) -> impl IntoView {
    let confirm_class = if children.is_some() {
        "primary"
    } else {
        "danger"
    };
    let t = texts(use_lang());
    let cancel_ref = NodeRef::<html::Button>::new();
    // Live updates wait while the dialog is open, so the screen under it is
    // not redrawn (which would close it); released when it closes or goes away.
    let live = crate::live::use_live();
    let holding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    Effect::new({
        let holding = holding.clone();
        move |_| {
            let now = open.get();
            if now != holding.swap(now, std::sync::atomic::Ordering::SeqCst) {
                if now {
                    live.hold();
                } else {
                    live.release();
                }
            }
        }
    });
    on_cleanup(move || {
        if holding.swap(false, std::sync::atomic::Ordering::SeqCst) {
            live.release();
        }
    });
    Effect::new(move |_| {
        if open.get() {
            if let Some(button) = cancel_ref.get() {
                let _ = button.focus();
            }
        }
    });
    let on_confirm = std::sync::Arc::new(on_confirm);
    view! {
        <Show when=move || open.get()>
            <div class="modal-backdrop">
                <div
                    class="modal card"
                    role="alertdialog"
                    aria-modal="true"
                    aria-labelledby="confirm-title"
                    aria-describedby="confirm-explain"
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        if ev.key() == "Escape" {
                            open.set(false);
                        }
                    }
                >
                    <h2 id="confirm-title">{title}</h2>
                    <p id="confirm-explain">{explain}</p>
                    {children.clone().map(|fields| fields())}
                    <p class="field-error" role="alert">{move || error.get()}</p>
                    <div class="actions">
                        <button type="button" node_ref=cancel_ref on:click=move |_| open.set(false)>
                            {t.cancel}
                        </button>
                        <button
                            type="button"
                            class=confirm_class
                            id=confirm_id.unwrap_or("confirm-action")
                            disabled=move || pending.get()
                            on:click={
                                let on_confirm = on_confirm.clone();
                                move |_| on_confirm()
                            }
                        >
                            {confirm_label}
                        </button>
                    </div>
                </div>
            </div>
        </Show>
    }
}
