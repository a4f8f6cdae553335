// Draws again the parts of a page that the server renders and that follow
// live updates (app::live_region, islands build; inlined by app::shell): a
// change of a topic a region names fetches the page again, and the region
// takes its new contents from that HTML. No WebAssembly is needed for them.
// Changes that come while a fetch is under way are drawn by one more fetch
// after it. After an interruption of the stream, changes may have been
// missed, so its reopening draws the regions again.
(function () {
  var live = window.knotrouteLive;
  var busy = false;
  var again = false;

  function regions(topics) {
    return Array.prototype.filter.call(document.querySelectorAll("[data-live-region]"), function (region) {
      var named = region.getAttribute("data-live-region").split(" ");
      return topics.some(function (topic) {
        return named.indexOf(topic) >= 0;
      });
    });
  }

  function redraw(shown) {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } })
      .then(function (answer) {
        // Signed out meanwhile: the sign-in page, which has no regions.
        return answer.ok && !answer.redirected ? answer.text() : "";
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        shown.forEach(function (region) {
          var next = fresh.getElementById(region.id);
          if (!next || !next.hasAttribute("data-live-region")) return;
          // Keyboard focus stays on the element it was on, found by its id.
          var focused = document.activeElement;
          var focusedId = focused && region.contains(focused) ? focused.id : "";
          region.replaceChildren.apply(region, Array.prototype.slice.call(next.childNodes));
          var refocus = focusedId && document.getElementById(focusedId);
          if (refocus) refocus.focus();
        });
      })
      .catch(function () {})
      .then(function () {
        busy = false;
        if (again) {
          again = false;
          redraw(document.querySelectorAll("[data-live-region]"));
        }
      });
  }

  // An island's action the stream does not announce (a new install token,
  // an API token) draws the regions that name its topic or its own word
  // (app::live::Live::changed_here, changed_on_page).
  window.knotrouteRedrawRegions = function (topics) {
    var shown = regions(Array.prototype.slice.call(topics));
    if (shown.length) redraw(shown);
  };

  if (!live) return;
  live.source.addEventListener("change", function (e) {
    // Events told again once the page has hydrated (live_stream.js) were
    // drawn when they came.
    if (!e.isTrusted) return;
    var topics;
    try {
      topics = JSON.parse(e.data).topics;
    } catch (_) {
      return;
    }
    if (!Array.isArray(topics)) return;
    var shown = regions(topics);
    if (shown.length) redraw(shown);
  });
  var opened = false;
  live.source.addEventListener("open", function () {
    var shown = document.querySelectorAll("[data-live-region]");
    if (opened && shown.length) redraw(shown);
    opened = true;
  });
})();
