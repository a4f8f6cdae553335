//! Files only the Agent may read (its identity, the Compose stacks), written
//! so that a crash leaves either the old or the new content, never half, and
//! so that nobody else's file or symlink is ever written through.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `file` atomically (temporary file beside it, fsync,
/// rename) with mode 0600, creating its directory (0700) when missing. The
/// temporary file is always a new one (see [`create_new_private`]).
pub fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    let name = file
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.tmp"));
    let mut out = create_new_private(&temporary)?;
    out.write_all(bytes)?;
    out.sync_all()?;
    drop(out);
    std::fs::rename(&temporary, file)?;
    sync_dir(dir);
    Ok(())
}

/// Creates `path` as a new file of mode 0600, never through a symlink. A
/// file left there (a crash, or someone else's doing) is unlinked first, not
/// opened: opening it would keep its mode and owner, or write wherever a
/// symlink points. Should one appear again in between, creating fails.
pub fn create_new_private(path: &Path) -> std::io::Result<std::fs::File> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Makes a rename in `dir` durable (best effort: not every filesystem allows it).
pub fn sync_dir(dir: &Path) {
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn a_symlink_at_the_temporary_name_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "not yours").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        let file = dir.path().join("stack").join("compose.yaml");
        std::fs::create_dir(dir.path().join("stack")).unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("stack/.compose.yaml.tmp")).unwrap();
        let nowhere = dir.path().join("nowhere");
        let identity = dir.path().join("agent-identity.json");
        std::os::unix::fs::symlink(&nowhere, dir.path().join(".agent-identity.json.tmp")).unwrap();

        write_atomically(&file, b"services: {}\n").unwrap();
        write_atomically(&identity, b"{}").unwrap();

        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not yours");
        assert_eq!(mode(&victim), 0o644);
        assert!(
            !nowhere.exists(),
            "nothing is created through a dangling link"
        );
        for written in [&file, &identity] {
            assert!(std::fs::symlink_metadata(written).unwrap().is_file());
            assert_eq!(mode(written), 0o600, "{}", written.display());
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "services: {}\n");
    }

    #[test]
    fn a_readable_file_left_at_the_temporary_name_does_not_lend_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".agent-identity.json.tmp");
        std::fs::write(&stale, "left over").unwrap();
        std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o644)).unwrap();
        let identity = dir.path().join("agent-identity.json");
        write_atomically(&identity, b"{\"private_key\": \"secret\"}").unwrap();
        assert_eq!(mode(&identity), 0o600);
        assert!(!stale.exists());
    }
}
