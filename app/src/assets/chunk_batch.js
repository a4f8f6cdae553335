// A screen's WebAssembly chunks in one request. The split build gives a
// screen 60-200 small chunk files, and the loader (__wasm_split.js) fetches
// each; on a phone every one costs a round trip. This runs before the loader
// and gathers the chunk fetches made in the same moment into one GET of
// /pkg/batch/<key>.<key>... (server/src/http/chunk_batch.rs): the files'
// keys (the first characters of their content hashes), sorted, so the URL
// means the same bytes for good and the page can preload it. If the batch
// fails, each file is fetched on its own.
// A chunk that a batch the page preloads holds is taken from that batch: with
// several lazy islands on a page, the second one's chunks are not the first
// one's batch again, nor a batch of their own that nothing preloaded.
(function () {
  var plainFetch = window.fetch.bind(window);
  var CHUNK = /\/pkg\/(?:chunk|split)_[^\/]*\.([A-Za-z0-9_-]{22})\.wasm$/;
  var BATCH = "/pkg/batch/";
  // = app::screen_split::CHUNK_BATCH_FILES and BATCH_KEY_CHARS: the server
  // preloads the same groups.
  var MAX_FILES = 400;
  var KEY_CHARS = 11;
  var waiting = null;
  // Key -> the path of a batch the page preloads that holds it (read once).
  var inPreloaded = null;
  // Batch path -> a promise of its files by key.
  var read = {};

  function preloadedBatchOf(hash) {
    if (inPreloaded === null) {
      inPreloaded = {};
      document.querySelectorAll('link[rel="preload"][href*="' + BATCH + '"]').forEach(function (link) {
        var path = new URL(link.href, location.href).pathname;
        path.slice(BATCH.length).split(".").forEach(function (h) {
          if (inPreloaded[h] === undefined) inPreloaded[h] = path;
        });
      });
    }
    return inPreloaded[hash];
  }

  // A batch's files by key: the body is each file's length (u32, little
  // endian) and bytes, in the order of the keys in its path.
  function readBatch(path) {
    if (read[path] === undefined) {
      read[path] = plainFetch(path)
        .then(function (r) {
          if (!r.ok) throw new Error("batch answered " + r.status);
          return r.arrayBuffer();
        })
        .then(function (body) {
          var view = new DataView(body);
          var files = {};
          var at = 0;
          path.slice(BATCH.length).split(".").forEach(function (hash) {
            var length = view.getUint32(at, true);
            at += 4;
            files[hash] = body.slice(at, at + length);
            at += length;
          });
          return files;
        });
      // A failed batch may be asked for again.
      read[path].catch(function () { delete read[path]; });
    }
    return read[path];
  }

  function answer(entry, bytes) {
    // Chunks with the same bytes share a hash; each fetch gets a Response of its own.
    entry.waiters.forEach(function (w) {
      w.resolve(new Response(bytes.slice(0), { headers: { "Content-Type": "application/wasm" } }));
    });
  }

  function fetchEach(entries) {
    entries.forEach(function (e) {
      e.waiters.forEach(function (w) { plainFetch(w.url).then(w.resolve, w.reject); });
    });
  }

  function fetchBatch(hashes, entries) {
    readBatch(BATCH + hashes.join("."))
      .then(function (files) {
        hashes.forEach(function (hash) { answer(entries[hash], files[hash]); });
      })
      .catch(function () {
        fetchEach(hashes.map(function (h) { return entries[h]; }));
      });
  }

  function flush() {
    var entries = waiting;
    waiting = null;
    var rest = [];
    Object.keys(entries).sort().forEach(function (hash) {
      var path = preloadedBatchOf(hash);
      if (path === undefined) {
        rest.push(hash);
        return;
      }
      readBatch(path)
        .then(function (files) { answer(entries[hash], files[hash]); })
        .catch(function () { fetchEach([entries[hash]]); });
    });
    for (var i = 0; i < rest.length; i += MAX_FILES) {
      fetchBatch(rest.slice(i, i + MAX_FILES), entries);
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
    var hash = match[1].slice(0, KEY_CHARS);
    if (waiting[hash] === undefined) waiting[hash] = { waiters: [] };
    return new Promise(function (resolve, reject) {
      waiting[hash].waiters.push({ url: url, resolve: resolve, reject: reject });
    });
  };
})();
