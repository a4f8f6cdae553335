// Escape backs out of an inline confirmation (`.confirm-inline`), as it does
// in the screens' dialogs: it presses its Cancel (`[data-cancel]`). For one
// drawn at its own address (app::pages::plain_action::ConfirmAtAddress) that
// is a link to the page without the question. No WebAssembly needed.
document.addEventListener("keydown", function (e) {
  if (e.key !== "Escape" || e.defaultPrevented) return;
  // The confirmation focus is in, or the one inside what has focus (the
  // page's body, a form's region); never from a field typed in elsewhere,
  // whose text the Cancel link would lose.
  var t = e.target instanceof Element ? e.target : null;
  var asked = t === null ? null : t.closest(".confirm-inline") || t.querySelector(".confirm-inline");
  var cancel = asked === null ? null : asked.querySelector("[data-cancel]");
  if (cancel === null) return;
  e.preventDefault();
  cancel.click();
});
