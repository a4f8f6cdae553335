// Keeps the current screen's link in view in the main navigation, which on
// a phone is one row that scrolls sideways (inlined in the <head> by
// app::shell, after before_hydration.js). It runs once the server's HTML is
// parsed, so the row is right before the WebAssembly arrives.
document.addEventListener("DOMContentLoaded", function () {
  var nav = document.querySelector("nav.mainnav");
  var link = nav && nav.querySelector('a[aria-current="page"]');
  if (!link) return;
  var left = link.offsetLeft - nav.offsetLeft;
  var right = left + link.offsetWidth;
  if (left < nav.scrollLeft || right > nav.scrollLeft + nav.clientWidth) {
    nav.scrollLeft = Math.max(left - 16, 0);
  }
});
