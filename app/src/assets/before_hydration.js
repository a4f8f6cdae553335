// What a person does before the page has hydrated, kept and done again once
// it has (inlined in the <head> by app::shell). The server's HTML shows
// buttons and forms at once, but their handlers come with the WebAssembly:
// a press meanwhile did nothing, and a form without an action went to the
// page's own address by GET, its fields in the URL. Until the page is
// hydrated (body data-hydrated), presses of buttons and submissions of forms
// that will hydrate (in the islands build, those inside an island) are held;
// then what was typed or chosen is given to the page's handlers, and what
// was pressed is pressed again. Plain links are left alone: they work
// without it.
(function () {
  var PRESSABLE =
    'button, input[type="submit"], input[type="button"], input[type="checkbox"], input[type="radio"], [role="button"]';
  // Field -> its value or checked state when last changed.
  var typed = new Map();
  // Buttons pressed and forms submitted, each once, in order.
  var pressed = [];

  function hydrates(el) {
    // The islands build (its script is marked data-islands) hydrates only
    // its islands; the full build hydrates the whole page.
    return !document.querySelector("script[data-islands]") || el.closest("leptos-island") !== null;
  }

  function onTyped(e) {
    var el = e.target;
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
      if (hydrates(el)) typed.set(el, { value: el.value, checked: el.checked });
    }
  }

  function hold(e, el) {
    e.preventDefault();
    e.stopImmediatePropagation();
    if (pressed.indexOf(el) < 0) pressed.push(el);
  }

  function onClick(e) {
    var el = e.target instanceof Element ? e.target.closest(PRESSABLE) : null;
    // A copy button works without WebAssembly (copy_buttons.js), and the
    // clipboard takes a text only in the press itself.
    if (el !== null && !el.disabled && !el.hasAttribute("data-copy") && hydrates(el)) hold(e, el);
  }

  function onSubmit(e) {
    if (e.target instanceof HTMLFormElement && hydrates(e.target)) hold(e, e.target);
  }

  // Hydration may have put a fresh element in the place of the one used.
  function current(el) {
    if (el.isConnected) return el;
    return el.id ? document.getElementById(el.id) : null;
  }

  function replay() {
    document.removeEventListener("input", onTyped, true);
    document.removeEventListener("change", onTyped, true);
    document.removeEventListener("click", onClick, true);
    document.removeEventListener("submit", onSubmit, true);
    typed.forEach(function (was, el) {
      el = current(el);
      if (el === null) return;
      // A file field keeps its files and cannot be given a value.
      if (el.type === "checkbox" || el.type === "radio") el.checked = was.checked;
      else if (el.type !== "file") el.value = was.value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
    });
    pressed.forEach(function (el) {
      el = current(el);
      if (el === null) return;
      if (el instanceof HTMLFormElement) el.requestSubmit();
      else el.click();
    });
  }

  // A text box whose value the page sets (prop:value) is drawn empty: the
  // server's HTML has no value for a <textarea>, only its children, which
  // hydration would have to find exactly as drawn. Such a box carries its
  // text as data-value instead, put in here as soon as the page is parsed.
  function fillTextBoxes() {
    document.querySelectorAll("textarea[data-value]").forEach(function (box) {
      if (box.value === "") box.value = box.getAttribute("data-value");
    });
  }

  document.addEventListener("input", onTyped, true);
  document.addEventListener("change", onTyped, true);
  document.addEventListener("click", onClick, true);
  document.addEventListener("submit", onSubmit, true);
  document.addEventListener("DOMContentLoaded", fillTextBoxes);
  window.knotrouteAfterHydration(replay);
})();
