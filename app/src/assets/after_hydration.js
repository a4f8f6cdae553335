// knotrouteAfterHydration(callback): calls `callback` once the page has
// hydrated (the front end sets data-hydrated on <body>), after hydration's own
// effects have run. The page's other early scripts wait with it (inlined
// first by app::shell).
window.knotrouteAfterHydration = function (callback) {
  new MutationObserver(function (changes, observer) {
    if (document.body && document.body.hasAttribute("data-hydrated")) {
      observer.disconnect();
      setTimeout(callback, 0);
    }
  }).observe(document.documentElement, { attributes: true, subtree: true, attributeFilter: ["data-hydrated"] });
};
