// A screen's WebAssembly chunks in one request. The split build gives a
// screen 60-200 small chunk files, and the loader (__wasm_split.js) fetches
// each; on a phone every one costs a round trip. This runs before the loader
// and gathers the chunk fetches made in the same moment into one GET of
// /pkg/batch/<hash>.<hash>... (server/src/http/chunk_batch.rs): the files'
// content hashes, sorted, so the URL means the same bytes for good and the
// page can preload it. If the batch fails, each file is fetched on its own.
(function () {
  var plainFetch = window.fetch.bind(window);
  var CHUNK = /\/pkg\/(?:chunk|split)_[^\/]*\.([A-Za-z0-9_-]{22})\.wasm$/;
  // = app::screen_split::CHUNK_BATCH_FILES: the server preloads the same groups.
  var MAX_FILES = 160;
  var waiting = null;

  function fetchEach(entries) {
    entries.forEach(function (e) {
      e.waiters.forEach(function (w) { plainFetch(w.url).then(w.resolve, w.reject); });
    });
  }

  function fetchBatch(hashes, entries) {
    plainFetch("/pkg/batch/" + hashes.join("."))
      .then(function (r) {
        if (!r.ok) throw new Error("batch answered " + r.status);
        return r.arrayBuffer();
      })
      .then(function (body) {
        var view = new DataView(body);
        var at = 0;
        hashes.forEach(function (hash) {
          var length = view.getUint32(at, true);
          at += 4;
          var bytes = body.slice(at, at + length);
          at += length;
          // Chunks with the same bytes share a hash; each fetch gets a Response of its own.
          entries[hash].waiters.forEach(function (w) {
            w.resolve(new Response(bytes.slice(0), { headers: { "Content-Type": "application/wasm" } }));
          });
        });
      })
      .catch(function () {
        fetchEach(hashes.map(function (h) { return entries[h]; }));
      });
  }

  function flush() {
    var entries = waiting;
    waiting = null;
    var hashes = Object.keys(entries).sort();
    for (var i = 0; i < hashes.length; i += MAX_FILES) {
      fetchBatch(hashes.slice(i, i + MAX_FILES), entries);
    }
  }

  window.fetch = function (input, init) {
    var url = typeof input === "string" ? input : input instanceof URL ? input.href : null;
    var match = url !== null && init === undefined ? new URL(url, location.href).pathname.match(CHUNK) : null;
    if (match === null) return plainFetch(input, init);
    if (waiting === null) {
      waiting = {};
      queueMicrotask(flush);
    }
    var hash = match[1];
    if (waiting[hash] === undefined) waiting[hash] = { waiters: [] };
    return new Promise(function (resolve, reject) {
      waiting[hash].waiters.push({ url: url, resolve: resolve, reject: reject });
    });
  };
})();
