// Opens the live updates' stream (GET /api/v1/events) as soon as the page's
// <head> is read, not once the WebAssembly has arrived and hydrated (inlined
// by app::shell). Its round trip then overlaps the WebAssembly's download and
// compilation: on a phone's 150 ms round trip the live indicator was the last
// thing a page waited for. The front end listens to it (app::live). Changes
// reported before the page has hydrated are told again once it has: a part
// of the screen that hydrates later would miss them, since what it shows
// comes from the server's HTML. Pages seen signed out have no stream.
(function () {
  var path = location.pathname;
  if (path === "/login" || path.indexOf("/join/") === 0) return;
  var source = new EventSource("/api/v1/events");
  var kept = [];
  function keep(e) {
    kept.push(e.data);
  }
  source.addEventListener("change", keep);
  window.knotrouteLive = { source: source };
  window.knotrouteAfterHydration(function () {
    source.removeEventListener("change", keep);
    kept.forEach(function (data) {
      source.dispatchEvent(new MessageEvent("change", { data: data }));
    });
  });
})();
