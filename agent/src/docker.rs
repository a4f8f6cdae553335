//! The Docker CLI as the Agent uses it: `docker` for the engine, and Compose
//! as whichever of `docker compose` (v2) or `docker-compose` (v1) exists.
//! Commands run with a time limit and their output captured; nothing here
//! decides what a job means (that is `workload.rs`).

use crate::progress::Journal;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How Compose is invoked on this host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComposeCli {
    /// `docker compose …` (the v2 plugin).
    Plugin,
    /// `docker-compose …` (v1, or v2's standalone binary).
    Standalone,
}

/// Captured result of one command.
#[derive(Clone, Debug)]
pub struct Output {
    /// The command line as run, for results and logs.
    pub command: String,
    pub success: bool,
    /// The exit code, when the command exited (not killed by a signal).
    pub code: Option<i32>,
    /// stdout then stderr, as Docker mixes progress and errors between them.
    pub text: String,
    pub stdout: String,
    /// stderr alone: for `docker logs`, what the container wrote there.
    pub stderr: String,
}

#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    #[error("{program} could not be started: {why}")]
    NotStarted { program: String, why: String },
    #[error("`{command}` did not finish within {secs} s")]
    TimedOut { command: String, secs: u64 },
    /// The job was cancelled while the command ran; it was stopped.
    #[error("`{command}` was stopped: {}", crate::progress::CANCELLED)]
    Cancelled { command: String },
}

/// Which end of [`Docker::docker_with_file`]'s command a file is.
pub enum FileSide {
    Input(std::fs::File),
    Output(std::fs::File),
}

/// Pulls can be slow; everything else answers in seconds.
pub const PULL_TIMEOUT: Duration = Duration::from_secs(300);
pub const UP_TIMEOUT: Duration = Duration::from_secs(180);
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Clone, Debug)]
pub struct Docker {
    /// The `docker` program (found on PATH unless a path is given).
    program: String,
}

impl Default for Docker {
    fn default() -> Self {
        Self {
            program: "docker".into(),
        }
    }
}

/// Where a live command's lines go: the lines `shown` keeps go to the job's
/// journal as printed; every line is still in the command's [`Output`].
#[derive(Clone, Copy)]
pub struct Live<'a> {
    journal: &'a Journal,
    shown: fn(&str) -> bool,
}

impl<'a> Live<'a> {
    /// Every line into the journal.
    pub fn every_line(journal: &'a Journal) -> Self {
        Self {
            journal,
            shown: |_| true,
        }
    }

    /// Only the lines `shown` keeps (a pull's progress bars would bury what
    /// matters in the journal).
    pub fn showing(journal: &'a Journal, shown: fn(&str) -> bool) -> Self {
        Self { journal, shown }
    }
}

/// The Compose project a command addresses: `-f <file> -p <name>`, run with
/// whichever Compose this host has. Without a file, Compose finds the project
/// by its name alone.
#[derive(Clone, Copy, Debug)]
pub struct Project<'a> {
    pub cli: ComposeCli,
    pub file: Option<&'a Path>,
    pub name: &'a str,
}

/// Reads a pipe to its end, line by line, handing each line to the journal
/// as it comes (invalid UTF-8 is replaced, not fatal).
async fn read_lines(pipe: impl AsyncRead + Unpin, live: Option<Live<'_>>) -> String {
    let mut reader = BufReader::new(pipe);
    let mut all = String::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return all,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let text_line = text.trim_end_matches('\n');
                if let Some(live) = live.filter(|live| (live.shown)(text_line)) {
                    live.journal.line(text_line);
                }
                all.push_str(&text);
            }
        }
    }
}

impl Docker {
    /// Runs `program args…`, capturing output, killed after `limit`. With a
    /// journal, each line goes to it as printed, and a cancelled job kills
    /// the command.
    async fn exec(
        program: &str,
        args: &[&str],
        limit: Duration,
        live: Option<Live<'_>>,
    ) -> Result<Output, DockerError> {
        let journal = live.map(|live| live.journal);
        let command = std::iter::once(program)
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| DockerError::NotStarted {
                program: program.to_string(),
                why: e.to_string(),
            })?;
        if let Some(journal) = journal {
            journal.command(&command);
        }
        let (out_pipe, err_pipe) = (child.stdout.take(), child.stderr.take());
        let run = async {
            let (stdout, stderr, status) = tokio::join!(
                async {
                    match out_pipe {
                        Some(pipe) => read_lines(pipe, live).await,
                        None => String::new(),
                    }
                },
                async {
                    match err_pipe {
                        Some(pipe) => read_lines(pipe, live).await,
                        None => String::new(),
                    }
                },
                child.wait()
            );
            (stdout, stderr, status)
        };
        let cancelled = async {
            match journal {
                Some(journal) => journal.cancelled().await,
                None => std::future::pending().await,
            }
        };
        // Leaving `run` unfinished drops the child, which kills it.
        let (stdout, stderr, status) = tokio::select! {
            finished = tokio::time::timeout(limit, run) => match finished {
                Ok(done) => done,
                Err(_) => return Err(DockerError::TimedOut {
                    command,
                    secs: limit.as_secs(),
                }),
            },
            _ = cancelled => return Err(DockerError::Cancelled { command }),
        };
        let status = status.map_err(|e| DockerError::NotStarted {
            program: program.to_string(),
            why: e.to_string(),
        })?;
        let text = match (stdout.trim().is_empty(), stderr.trim().is_empty()) {
            (_, true) => stdout.clone(),
            (true, false) => stderr.clone(),
            (false, false) => format!("{}\n{}", stdout.trim_end(), stderr),
        };
        tracing::debug!(%command, status = ?status.code(), "docker command finished");
        if let Some(journal) = journal {
            journal.exit_code(status.code());
        }
        Ok(Output {
            command,
            success: status.success(),
            code: status.code(),
            text,
            stdout,
            stderr,
        })
    }

    /// `docker args…`.
    pub async fn docker(&self, args: &[&str], limit: Duration) -> Result<Output, DockerError> {
        Self::exec(&self.program, args, limit, None).await
    }

    /// `docker args…` with a file as its standard input or output: an
    /// archive for `docker cp`, binary and never shown. Only stderr is
    /// captured (`text`); a job's journal gets just the command line.
    pub async fn docker_with_file(
        &self,
        args: &[&str],
        file: FileSide,
        limit: Duration,
        journal: &Journal,
    ) -> Result<Output, DockerError> {
        let command = std::iter::once(self.program.as_str())
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        let (stdin, stdout) = match file {
            FileSide::Input(f) => (Stdio::from(f), Stdio::null()),
            FileSide::Output(f) => (Stdio::null(), Stdio::from(f)),
        };
        let child = tokio::process::Command::new(&self.program)
            .args(args)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| DockerError::NotStarted {
                program: self.program.clone(),
                why: e.to_string(),
            })?;
        journal.command(&command);
        let finished = tokio::select! {
            done = tokio::time::timeout(limit, child.wait_with_output()) => match done {
                Ok(done) => done,
                Err(_) => return Err(DockerError::TimedOut { command, secs: limit.as_secs() }),
            },
            _ = journal.cancelled() => return Err(DockerError::Cancelled { command }),
        };
        let out = finished.map_err(|e| DockerError::NotStarted {
            program: self.program.clone(),
            why: e.to_string(),
        })?;
        journal.exit_code(out.status.code());
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        Ok(Output {
            command,
            success: out.status.success(),
            code: out.status.code(),
            text: stderr.clone(),
            stdout: String::new(),
            stderr,
        })
    }

    /// `docker args…` as a job's stage: its lines go to `journal` as printed.
    pub async fn docker_live(
        &self,
        args: &[&str],
        limit: Duration,
        journal: &Journal,
    ) -> Result<Output, DockerError> {
        Self::exec(&self.program, args, limit, Some(Live::every_line(journal))).await
    }

    /// `docker compose -f <file> -p <project> args…` (or `docker-compose …`)
    /// as a job's stage, its lines going to the journal as `live` says.
    pub async fn compose_live(
        &self,
        project: Project<'_>,
        args: &[&str],
        limit: Duration,
        live: Live<'_>,
    ) -> Result<Output, DockerError> {
        let file = project.file.map(|f| f.display().to_string());
        let mut full: Vec<&str> = Vec::new();
        if project.cli == ComposeCli::Plugin {
            full.push("compose");
        }
        if let Some(file) = &file {
            full.extend(["-f", file]);
        }
        full.extend(["-p", project.name]);
        full.extend_from_slice(args);
        let program = match project.cli {
            ComposeCli::Plugin => self.program.as_str(),
            ComposeCli::Standalone => "docker-compose",
        };
        Self::exec(program, &full, limit, Some(live)).await
    }

    /// Which Compose exists: the v2 plugin first, then `docker-compose`.
    pub async fn detect_compose(&self) -> Option<ComposeCli> {
        let plugin = self
            .docker(&["compose", "version", "--short"], QUICK_TIMEOUT)
            .await;
        if plugin.is_ok_and(|o| o.success) {
            return Some(ComposeCli::Plugin);
        }
        let standalone = Self::exec(
            "docker-compose",
            &["version", "--short"],
            QUICK_TIMEOUT,
            None,
        )
        .await;
        standalone
            .is_ok_and(|o| o.success)
            .then_some(ComposeCli::Standalone)
    }

    /// The client and server versions, or why the engine cannot be used.
    pub async fn engine_version(&self) -> Result<String, String> {
        let output = self
            .docker(
                &[
                    "version",
                    "--format",
                    "{{.Client.Version}}/{{.Server.Version}}",
                ],
                QUICK_TIMEOUT,
            )
            .await
            .map_err(|e| e.to_string())?;
        let version = output.stdout.trim();
        if output.success && !version.is_empty() && !version.ends_with('/') {
            Ok(version.to_string())
        } else {
            Err(format!(
                "the Docker engine does not answer: {}",
                output.text.trim()
            ))
        }
    }
}
