//! The compiled front end as a browser gets it: content-hashed files kept for
//! a year without revalidation, pages never stored, precompressed variants
//! sent as they are, and the pages naming the hashed files.

mod common;

/// A site as `scripts/build-release.sh` leaves it: hashed names, their
/// brotli and gzip variants, and the list of hashes.
fn hashed_site() -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let pkg = site.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    for (name, body) in [
        (
            "knotroute.Zm9vYmFyYmF6cXV4MTIzNA.js",
            "export default function() {}",
        ),
        ("knotroute.QmFyYmF6cXV4MTIzNDU2Nw.wasm", "\0asm"),
        ("knotroute.Q3NzY3NzY3NzY3NzY3NzY3.css", "body{}"),
        ("chunk_3.Y2h1bmtjaHVua2NodW5rMT.wasm", "\0asm-chunk"),
        // A file without a hash in its name (an unhashed build's).
        ("plain.js", "export {};"),
    ] {
        std::fs::write(pkg.join(name), body).unwrap();
        std::fs::write(pkg.join(format!("{name}.br")), format!("br:{body}")).unwrap();
        std::fs::write(pkg.join(format!("{name}.gz")), format!("gz:{body}")).unwrap();
    }
    // The split loader and manifest: the Networks screen needs chunk_3 and its own module.
    std::fs::write(
        pkg.join("__wasm_split.TG9hZGVyTG9hZGVyTG9hZG.js"),
        "export {};",
    )
    .unwrap();
    std::fs::write(
        pkg.join(format!("split_networks_screen.{OWN}.wasm")),
        "\0asm-own",
    )
    .unwrap();
    std::fs::write(
        pkg.join("__wasm_split_manifest.TWFuaWZlc3RNYW5pZmVzdE.json"),
        format!(r#"{{"networks_screen": ["chunk_3.{CHUNK}", "split_networks_screen.{OWN}"]}}"#),
    )
    .unwrap();
    std::fs::write(
        site.path().join("hash.txt"),
        "js: Zm9vYmFyYmF6cXV4MTIzNA\nwasm: QmFyYmF6cXV4MTIzNDU2Nw\ncss: Q3NzY3NzY3NzY3NzY3NzY3\n\
         manifest: TWFuaWZlc3RNYW5pZmVzdE\nsplit: TG9hZGVyTG9hZGVyTG9hZG\n",
    )
    .unwrap();
    site
}

const CHUNK: &str = "Y2h1bmtjaHVua2NodW5rMT";
const OWN: &str = "b3duT3duT3duT3duT3duT3";

/// The files of a batch body: each a little-endian u32 length and its bytes.
fn unbatch(mut body: &[u8]) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    while !body.is_empty() {
        let len = u32::from_le_bytes(body[..4].try_into().unwrap()) as usize;
        files.push(body[4..4 + len].to_vec());
        body = &body[4 + len..];
    }
    files
}

async fn get(c: &common::Control, path: &str, encoding: &str) -> reqwest::Response {
    c.client
        .get(c.url(path))
        .header("accept-encoding", encoding)
        .send()
        .await
        .unwrap()
}

on_both_databases!(
    hashed_files_are_kept_for_good_and_pages_never,
    |backend| async move {
        let site = hashed_site();
        let options = common::Options {
            site_root: Some(site.path().to_path_buf()),
            ..Default::default()
        };
        let c = common::start_with(backend, options).await;

        // The page names the hashed files and is never stored.
        let page = get(&c, "/login", "identity").await;
        assert_eq!(page.headers()["cache-control"], "no-store");
        let html = page.text().await.unwrap();
        for name in [
            "/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzNA.js",
            "/pkg/knotroute.QmFyYmF6cXV4MTIzNDU2Nw.wasm",
            "/pkg/knotroute.Q3NzY3NzY3NzY3NzY3NzY3.css",
        ] {
            assert!(html.contains(name), "the page names {name}: {html}");
        }

        // (path, Accept-Encoding, status, Cache-Control, Content-Encoding, body)
        let table = [
            (
                "/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzNA.js",
                "br, gzip",
                200,
                "public, max-age=31536000, immutable",
                Some("br"),
                "br:export default function() {}",
            ),
            (
                "/pkg/chunk_3.Y2h1bmtjaHVua2NodW5rMT.wasm",
                "gzip",
                200,
                "public, max-age=31536000, immutable",
                Some("gzip"),
                "gz:\0asm-chunk",
            ),
            (
                "/pkg/chunk_3.Y2h1bmtjaHVua2NodW5rMT.wasm",
                "identity",
                200,
                "public, max-age=31536000, immutable",
                None,
                "\0asm-chunk",
            ),
            // Not named after its content: kept, but asked about again.
            (
                "/pkg/plain.js",
                "br",
                200,
                "no-cache",
                Some("br"),
                "br:export {};",
            ),
            // A hashed name that is not there is nothing to keep.
            (
                "/pkg/knotroute.AAAAAAAAAAAAAAAAAAAAAA.js",
                "br",
                404,
                "no-store",
                None,
                "",
            ),
        ];
        for (path, encoding, status, cache, content_encoding, body) in table {
            let r = get(&c, path, encoding).await;
            assert_eq!(r.status().as_u16(), status, "{path}");
            assert_eq!(r.headers()["cache-control"], cache, "{path}");
            assert_eq!(
                r.headers()
                    .get("content-encoding")
                    .map(|v| v.to_str().unwrap()),
                content_encoding,
                "{path} with Accept-Encoding: {encoding}"
            );
            if status == 200 {
                assert_eq!(r.text().await.unwrap(), body, "{path}");
            }
        }
    }
);

on_both_databases!(
    a_hash_list_from_another_build_is_not_followed,
    |backend| async move {
        let site = hashed_site();
        // The list names a main module the site does not have.
        std::fs::write(
            site.path().join("hash.txt"),
            "js: T3RoZXJCdWlsZE90aGVyQn\nwasm: T3RoZXJCdWlsZE90aGVyQn\ncss: T3RoZXJCdWlsZE90aGVyQn\n",
        )
        .unwrap();
        let options = common::Options {
            site_root: Some(site.path().to_path_buf()),
            ..Default::default()
        };
        let c = common::start_with(backend, options).await;
        let html = get(&c, "/login", "identity").await.text().await.unwrap();
        assert!(!html.contains("T3RoZXJCdWlsZE90aGVyQn"), "{html}");
        assert!(
            html.contains("/pkg/knotroute.js"),
            "plain names instead: {html}"
        );
    }
);

on_both_databases!(
    a_screens_chunks_come_in_one_cached_answer,
    |backend| async move {
        let site = hashed_site();
        let options = common::Options {
            site_root: Some(site.path().to_path_buf()),
            ..Default::default()
        };
        let c = common::start_with(backend, options).await;
        // Keys, the first 11 characters of each content hash. CHUNK sorts
        // before OWN (byte order: "Y" < "b"), as the browser sorts them.
        let (chunk, own) = (&CHUNK[..11], &OWN[..11]);
        let batch = format!("/pkg/batch/{chunk}.{own}");

        // A screen's page preloads its batch and the split loader.
        c.sign_in().await;
        let html = get(&c, "/networks", "identity").await.text().await.unwrap();
        let preloads: Vec<&str> = html
            .split("<link")
            .skip(1)
            .filter_map(|tag| tag.split('>').next())
            .filter(|tag| tag.contains("rel=\"preload\"") && tag.contains("as=\"fetch\""))
            .collect();
        assert!(
            preloads
                .iter()
                .any(|tag| tag.contains(&format!("href=\"{batch}\""))),
            "the batch is preloaded: {preloads:?}"
        );
        assert!(html.contains("/pkg/__wasm_split.TG9hZGVyTG9hZGVyTG9hZG.js"));

        let plain = get(&c, &batch, "identity").await;
        assert_eq!(plain.status(), 200);
        assert_eq!(
            plain.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        let files = unbatch(&plain.bytes().await.unwrap());
        assert_eq!(files, vec![b"\0asm-chunk".to_vec(), b"\0asm-own".to_vec()]);

        let br = get(&c, &batch, "gzip, br").await;
        assert_eq!(br.headers()["content-encoding"], "br");
        let mut body = Vec::new();
        brotli::BrotliDecompress(&mut &br.bytes().await.unwrap()[..], &mut body).unwrap();
        assert_eq!(unbatch(&body).len(), 2);

        // Hostile or malformed lists, sent as they are: a bare refusal, never kept.
        let too_many: Vec<String> = (0..513).map(|n| format!("{n:0>11}")).collect();
        let table = [
            (format!("/pkg/batch/{own}.{chunk}"), 400), // not in ascending order
            (format!("/pkg/batch/{chunk}.{chunk}"), 400), // twice
            (format!("/pkg/batch/{chunk}."), 400),      // an empty name
            ("/pkg/batch/short".to_string(), 400),
            (format!("/pkg/batch/{CHUNK}.{OWN}"), 400), // whole hashes, not keys
            (format!("/pkg/batch/{}%2F", &CHUNK[..10]), 400), // an encoded slash
            (format!("/pkg/batch/{}", too_many.join(".")), 400), // more than a batch holds
            ("/pkg/batch/QUFBQUFBQUF".to_string(), 404), // not a file of this build
            // No list: the trailing-slash redirect every path gets, to a 404.
            ("/pkg/batch/".to_string(), 308),
        ];
        for (path, status) in table {
            let r = get(&c, &path, "br").await;
            assert_eq!(r.status().as_u16(), status, "{path}");
            assert_eq!(r.headers()["cache-control"], "no-store", "{path}");
        }
    }
);

on_both_databases!(
    a_batch_the_build_compressed_is_sent_as_it_is,
    |backend| async move {
        let site = hashed_site();
        // What scripts/build-release.sh runs after the build.
        assert_eq!(
            server::http::chunk_batch::precompress_site(site.path()),
            std::process::ExitCode::SUCCESS
        );
        let built: Vec<_> = std::fs::read_dir(site.path().join("pkg/batch-br"))
            .unwrap()
            .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
            .collect();
        assert_eq!(built.len(), 1, "one split module, one batch");
        // What the server would make on demand differs, so the check below
        // tells the build's answer from it.
        let mut on_demand = Vec::new();
        let mut batch = Vec::new();
        for file in [&b"\0asm-chunk"[..], b"\0asm-own"] {
            batch.extend_from_slice(&(file.len() as u32).to_le_bytes());
            batch.extend_from_slice(file);
        }
        let params = brotli::enc::BrotliEncoderParams {
            quality: 9,
            lgwin: 22,
            ..Default::default()
        };
        brotli::BrotliCompress(&mut &batch[..], &mut on_demand, &params).unwrap();
        assert_ne!(on_demand, built[0]);
        let options = common::Options {
            site_root: Some(site.path().to_path_buf()),
            ..Default::default()
        };
        let c = common::start_with(backend, options).await;
        let (chunk, own) = (&CHUNK[..11], &OWN[..11]);

        // The module's batch: the build's bytes, which hold the module's files.
        let br = get(&c, &format!("/pkg/batch/{chunk}.{own}"), "br").await;
        assert_eq!(br.headers()["content-encoding"], "br");
        let sent = br.bytes().await.unwrap();
        assert_eq!(sent.as_ref(), built[0].as_slice());
        let mut body = Vec::new();
        brotli::BrotliDecompress(&mut &sent[..], &mut body).unwrap();
        assert_eq!(
            unbatch(&body),
            vec![b"\0asm-chunk".to_vec(), b"\0asm-own".to_vec()]
        );

        // A list the build did not compress is compressed on demand.
        let one = get(&c, &format!("/pkg/batch/{own}"), "br").await;
        assert_eq!(one.status(), 200);
        let mut body = Vec::new();
        brotli::BrotliDecompress(&mut &one.bytes().await.unwrap()[..], &mut body).unwrap();
        assert_eq!(unbatch(&body), vec![b"\0asm-own".to_vec()]);
    }
);
