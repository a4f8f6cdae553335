//! The Docker CLI as the Agent uses it: `docker` for the engine, and Compose
//! as whichever of `docker compose` (v2) or `docker-compose` (v1) exists.
//! Commands run with a time limit and their output captured; nothing here
//! decides what a job means (that is `workload.rs`).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

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

impl Docker {
    /// Runs `program args…`, capturing output, killed after `limit`.
    async fn exec(program: &str, args: &[&str], limit: Duration) -> Result<Output, DockerError> {
        let command = std::iter::once(program)
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        let child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .output();
        let output = match tokio::time::timeout(limit, child).await {
            Err(_) => {
                return Err(DockerError::TimedOut {
                    command,
                    secs: limit.as_secs(),
                })
            }
            Ok(Err(e)) => {
                return Err(DockerError::NotStarted {
                    program: program.to_string(),
                    why: e.to_string(),
                })
            }
            Ok(Ok(output)) => output,
        };
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let text = match (stdout.trim().is_empty(), stderr.trim().is_empty()) {
            (_, true) => stdout.clone(),
            (true, false) => stderr.clone(),
            (false, false) => format!("{}\n{}", stdout.trim_end(), stderr),
        };
        tracing::debug!(%command, status = ?output.status.code(), "docker command finished");
        Ok(Output {
            command,
            success: output.status.success(),
            text,
            stdout,
            stderr,
        })
    }

    /// `docker args…`.
    pub async fn docker(&self, args: &[&str], limit: Duration) -> Result<Output, DockerError> {
        Self::exec(&self.program, args, limit).await
    }

    /// `docker compose -f <file> -p <project> args…` (or `docker-compose …`).
    /// Without a file, Compose finds the project by its name alone.
    pub async fn compose(
        &self,
        cli: ComposeCli,
        file: Option<&Path>,
        project: &str,
        args: &[&str],
        limit: Duration,
    ) -> Result<Output, DockerError> {
        let file = file.map(|f| f.display().to_string());
        let mut full: Vec<&str> = Vec::new();
        if cli == ComposeCli::Plugin {
            full.push("compose");
        }
        if let Some(file) = &file {
            full.extend(["-f", file]);
        }
        full.extend(["-p", project]);
        full.extend_from_slice(args);
        match cli {
            ComposeCli::Plugin => Self::exec(&self.program, &full, limit).await,
            ComposeCli::Standalone => Self::exec("docker-compose", &full, limit).await,
        }
    }

    /// Which Compose exists: the v2 plugin first, then `docker-compose`.
    pub async fn detect_compose(&self) -> Option<ComposeCli> {
        let plugin = self
            .docker(&["compose", "version", "--short"], QUICK_TIMEOUT)
            .await;
        if plugin.is_ok_and(|o| o.success) {
            return Some(ComposeCli::Plugin);
        }
        let standalone = Self::exec("docker-compose", &["version", "--short"], QUICK_TIMEOUT).await;
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
