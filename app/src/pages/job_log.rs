//! A job's stages and output, live: each stage with its time, its command
//! and what it printed, as the Agent reports it. The output follows along
//! unless the reader scrolled up; a failed job opens at the stage that
//! failed, with the reason; Copy log copies all of it.
//!
//! Drawn in the browser only (from signals the job page fills after
//! hydration), so the server's page and the hydrated one always agree and
//! the growing output keeps its place and scroll position as lines arrive.

use crate::i18n::jobs::jobs_texts;
use crate::use_lang;
use leptos::prelude::*;
use protocol::progress::{LogLine, StageStatus, StageView};
use protocol::JobStatus;

/// What the stages view shows; the job page keeps it current.
#[derive(Clone, Copy)]
pub struct JobLive {
    pub stages: RwSignal<Vec<StageView>>,
    pub lines: RwSignal<Vec<LogLine>>,
    /// The job's status, result and whether its Agent reports progress;
    /// `None` until the job is read in the browser.
    pub job: RwSignal<Option<(JobStatus, String, bool)>>,
    log: NodeRef<leptos::html::Div>,
    /// Whether the log keeps its newest line in view: true until the reader
    /// scrolls up, true again once they are back at the end. Kept from
    /// scroll events rather than measured when lines arrive, because the
    /// box also grows when a stage appears, after its lines were read.
    following: StoredValue<bool>,
    /// The log's scroll position at the last scroll event: a smaller one
    /// next is the reader scrolling up (growth never moves it).
    last_top: StoredValue<i32>,
}

impl JobLive {
    pub fn new() -> Self {
        Self {
            stages: RwSignal::new(Vec::new()),
            lines: RwSignal::new(Vec::new()),
            job: RwSignal::new(None),
            log: NodeRef::new(),
            following: StoredValue::new(true),
            last_top: StoredValue::new(0),
        }
    }

    /// Shows what a reading of the job found: its state, its stages and its
    /// output's next lines. Whether there is more output to read now.
    pub fn show(&self, page: protocol::progress::JobOutputPage) -> bool {
        self.stages.set(page.stages);
        self.job
            .set(Some((page.status, page.result, page.reports_progress)));
        let more = page.lines.next.is_some();
        self.append(page.lines.lines);
        more
    }

    /// Adds lines after the last one held (a page read twice adds nothing).
    fn append(&self, page: Vec<LogLine>) {
        self.lines.update(|lines| {
            let last = lines.last().map_or(0, |l| l.line);
            lines.extend(page.into_iter().filter(|l| l.line > last));
        });
    }

    /// Notes a scroll of the log: up stops following, reaching the end
    /// follows again.
    fn scrolled(&self) {
        let Some(el) = self.log.get_untracked() else {
            return;
        };
        let top = el.scroll_top();
        if top < self.last_top.get_value() {
            self.following.set_value(false);
        }
        if shows_end(&el) {
            self.following.set_value(true);
        }
        self.last_top.set_value(top);
    }

    /// After the next render, shows the log's end if it is being followed.
    fn keep_end_in_view(&self) {
        let (log, following, last_top) = (self.log, self.following, self.last_top);
        request_animation_frame(move || {
            let Some(el) = log.get_untracked() else {
                return;
            };
            // A scroll up whose event has not been delivered yet still
            // counts (the browser may run this frame callback first). A box
            // that shrank, a stage closing, pulls the position up too, but
            // leaves it at the end.
            if el.scroll_top() < last_top.get_value() && !shows_end(&el) {
                following.set_value(false);
            }
            if following.get_value() {
                el.set_scroll_top(el.scroll_height());
                // Our own scroll is the position to compare with from now
                // on: its scroll event comes a frame later, and a reader who
                // scrolls up before then must still read as scrolling up
                // (CI saw the log jump back down when this was left to the
                // event).
                last_top.set_value(el.scroll_top());
            }
        });
    }

    /// The whole output as text, stage by stage.
    fn text(&self) -> String {
        let stages = self.stages.get_untracked();
        self.lines.with_untracked(|lines| {
            let mut out = String::new();
            for stage in &stages {
                out.push_str(&format!(
                    "== {} ({}) ==\n",
                    stage.name,
                    stage.status.as_str()
                ));
                if let Some(command) = &stage.command {
                    out.push_str(&format!("$ {command}\n"));
                }
                for line in lines.iter().filter(|l| l.stage == stage.index) {
                    out.push_str(&line.text);
                    out.push('\n');
                }
            }
            out
        })
    }
}

/// Whether the log shows its last line (within a line's height).
fn shows_end(el: &web_sys::HtmlDivElement) -> bool {
    el.scroll_top() + el.client_height() >= el.scroll_height() - 24
}

impl Default for JobLive {
    fn default() -> Self {
        Self::new()
    }
}

#[component]
pub fn JobStages(live: JobLive) -> impl IntoView {
    let jt = jobs_texts(use_lang());
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let Some(window) = web_sys::window() else {
            return;
        };
        if window.is_secure_context() {
            let _ = window.navigator().clipboard().write_text(&live.text());
            copied.set(true);
            set_timeout(
                move || copied.set(false),
                std::time::Duration::from_millis(2000),
            );
        }
    };
    let reason = move || {
        live.job.with(|job| match job {
            Some((JobStatus::Failed | JobStatus::Expired, result, _)) => result
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(str::to_string),
            _ => None,
        })
    };
    // A failed job opens at the stage that failed: once, when it is first shown.
    let failure_shown = StoredValue::new(false);
    Effect::new(move |_| {
        let failed = live
            .stages
            .with(|stages| stages.iter().any(|s| s.status == StageStatus::Failed));
        if failed && !failure_shown.get_value() {
            failure_shown.set_value(true);
            // The failed stage, not the log's end, is what the reader wants.
            live.following.set_value(false);
            request_animation_frame(|| {
                let stage = document()
                    .query_selector("#job-log .stage[data-status='failed']")
                    .ok()
                    .flatten();
                if let Some(stage) = stage {
                    stage.scroll_into_view();
                }
            });
        }
    });
    // New lines or a new stage grow the box: keep its end in view.
    Effect::new(move |_| {
        live.lines.track();
        live.stages.track();
        live.keep_end_in_view();
    });
    let note = move || {
        let reports = live
            .job
            .with(|j| j.as_ref().map(|(_, _, reports)| *reports));
        match reports {
            Some(false) => Some(jt.stages_unreported),
            Some(true) if live.stages.with(Vec::is_empty) => Some(jt.stages_waiting),
            _ => None,
        }
    };
    view! {
        <section class="job-stages" id="job-stages">
            <div class="stages-head">
                <h2>{jt.stages}</h2>
                // Hidden, rather than left out, until there is output: one
                // less generic view in the island's code.
                <button type="button" class="copy" id="copy-job-log" on:click=copy aria-live="polite"
                    hidden=move || live.lines.with(Vec::is_empty)>
                    {move || if copied.get() { jt.log_copied } else { jt.copy_log }}
                </button>
            </div>
            {move || note().map(|text| view! { <p class="muted" id="stages-note">{text}</p> })}
            <div class="job-log" id="job-log" node_ref=live.log on:scroll=move |_| live.scrolled()>
                <For
                    each=move || live.stages.get()
                    key=|s| (s.index, s.status, s.ended_at.clone(), s.elapsed_secs)
                    let:stage
                >
                    <StageBlock stage live reason />
                </For>
            </div>
        </section>
    }
}

#[component]
fn StageBlock(
    stage: StageView,
    live: JobLive,
    reason: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let jt = jobs_texts(use_lang());
    let index = stage.index;
    let output = move || {
        live.lines.with(|lines| {
            lines
                .iter()
                .filter(|l| l.stage == index)
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
    };
    let failed = stage.status == StageStatus::Failed;
    let badge = super::badges::stage_badge(stage.status);
    view! {
        <details class="stage" data-stage=stage.name.clone() data-status=stage.status.as_str()
            open=stage.status != StageStatus::Succeeded>
            <summary>
                <span class="stage-name">{stage.name.clone()}</span>" "
                <span class=badge>{stage.status.as_str()}</span>" "
                <span class="muted">{jt.elapsed(stage.elapsed_secs)}</span>
                {stage.exit_code.filter(|c| *c != 0).map(|c| view! { " "<code>{format!("exit {c}")}</code> })}
            </summary>
            {stage.command.clone().map(|c| view! { <code class="stage-command">{format!("$ {c}")}</code> })}
            <pre class="stage-output">{output}</pre>
            {failed.then(|| view! {
                {move || reason().map(|why| view! {
                    <p class="field-error stage-why" role="alert">{jt.stage_failed_why}" "{why}</p>
                })}
            })}
        </details>
    }
}
