//! A PostgreSQL server of one test's own, on a free loopback port, for tests
//! that stop and start the database (the shared server on 5432 must never be
//! restarted: other tests use it). Made like scripts/postgres.sh makes its
//! private instance: `initdb` and `pg_ctl` of Debian's packages, run as the
//! `postgres` user.

use std::path::PathBuf;
use std::process::Command;

pub struct PrivatePostgres {
    bin: PathBuf,
    dir: tempfile::TempDir,
    pub port: u16,
}

/// The newest `/usr/lib/postgresql/<version>/bin` holding `initdb`.
fn binaries() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin).unwrap_or_else(|| {
        panic!(
            "this test needs PostgreSQL's server binaries (initdb, pg_ctl) under \
             /usr/lib/postgresql/*/bin: install Debian's `postgresql` package \
             (scripts/postgres.sh does so)"
        )
    })
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl PrivatePostgres {
    /// initdb into a temporary directory and start the server.
    pub fn start() -> Self {
        let bin = binaries();
        let dir = tempfile::Builder::new()
            .prefix("kr-private-pg-")
            .tempdir()
            .expect("temp dir");
        run(
            Command::new("chown").arg("postgres").arg(dir.path()),
            "giving the data directory to the postgres user (the tests run as root)",
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let pg = Self { bin, dir, port };
        run(
            pg.as_postgres("initdb")
                .arg("-D")
                .arg(pg.data())
                .args(["-A", "trust", "-U", "postgres"]),
            "initdb",
        );
        pg.start_server();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn as_postgres(&self, program: &str) -> Command {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"])
            .arg(self.bin.join(program));
        cmd
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server and waits until it accepts connections.
    pub fn start_server(&self) {
        let options = format!(
            "-h 127.0.0.1 -p {} -k {} -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        run(
            self.as_postgres("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .arg("-l")
                .arg(self.dir.path().join("log"))
                .args(["-w", "-o", &options, "start"]),
            "pg_ctl start",
        );
    }

    /// `pg_ctl stop -m fast`: open connections are cut, as in a restart.
    pub fn stop_server(&self) {
        run(
            self.as_postgres("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .args(["-m", "fast", "-w", "stop"]),
            "pg_ctl stop",
        );
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let _ = self
            .as_postgres("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .output();
    }
}
