// Copy buttons (app::pages::copy::CopyButton), with no WebAssembly: they
// work as soon as the server's HTML is shown (inlined in the <head> by
// app::shell). A press copies the button's data-copy text and says so for
// a moment (data-done); where the browser offers no clipboard (a page over
// plain HTTP) or refuses, it says to select the text instead (data-select).
document.addEventListener("click", function (e) {
  var button = e.target instanceof Element ? e.target.closest("button[data-copy]") : null;
  if (button === null) return;
  if (!button.hasAttribute("data-label")) button.setAttribute("data-label", button.textContent);
  function say(what) {
    button.textContent = button.getAttribute(what);
    clearTimeout(button.knotrouteCopied);
    button.knotrouteCopied = setTimeout(function () {
      button.textContent = button.getAttribute("data-label");
    }, 2000);
  }
  if (!window.isSecureContext || !navigator.clipboard) {
    say("data-select");
    return;
  }
  say("data-done");
  navigator.clipboard.writeText(button.getAttribute("data-copy")).catch(function () {
    say("data-select");
  });
});
