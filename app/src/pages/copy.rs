//! A button that copies a text, with no WebAssembly: the page's early
//! script does it (assets/copy_buttons.js), so it works as soon as the
//! server's HTML is shown, in the islands build outside any island too.

use crate::i18n::onboarding::onboarding_texts;
use crate::use_lang;
use leptos::prelude::*;

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
    view! {
        <button type="button" class="copy" id=id data-copy=text data-done=ot.copied
            data-select=ot.select_to_copy aria-live="polite">
            {label}
        </button>
    }
}

#[cfg(test)]
mod tests {
    /// The script handles the buttons the component draws, with the
    /// attributes it writes.
    #[test]
    fn the_early_script_copies_what_the_button_names() {
        let script = include_str!("../assets/copy_buttons.js");
        for attribute in [
            "button[data-copy]",
            "\"data-copy\"",
            "\"data-done\"",
            "\"data-select\"",
        ] {
            assert!(script.contains(attribute), "{attribute}");
        }
        let hold = include_str!("../assets/before_hydration.js");
        assert!(
            hold.contains("data-copy"),
            "a copy press is not held for hydration"
        );
    }
}
