//! A brotli and a gzip copy beside every file of the site, which the server
//! sends as they are to a browser that accepts them (server/src/http/assets.rs).

use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn precompress_dir(site: &Path) -> Result<()> {
    let mut files = Vec::new();
    collect(site, &mut files)?;
    match crate::parallel::for_each(files, |file| compress_file(file))
        .into_iter()
        .next()
    {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn collect(folder: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        // The build's own notes (scripts/build-release.sh's fingerprints) are not served.
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        if path.is_dir() {
            collect(&path, files)?;
        } else if !path.extension().is_some_and(|x| x == "br" || x == "gz") {
            files.push(path);
        }
    }
    Ok(())
}

fn compress_file(path: &Path) -> Result<()> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&data)?;
    std::fs::write(with_suffix(path, "gz"), gzip.finish()?)?;

    // Brotli's best quality: compressed once, sent many times.
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        ..Default::default()
    };
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut data.as_slice(), &mut out, &params)?;
    std::fs::write(with_suffix(path, "br"), out)?;
    Ok(())
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}
