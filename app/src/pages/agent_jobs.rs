//! The latest jobs of one Agent, on its page: what ran there and what failed,
//! with the first line of each failure; follows live updates.

use super::badges::job_badge;
use super::infrastructure::when;
use super::loaded;
use crate::api::jobs::{list_jobs, JobListPage, JobQuery};
use crate::error::UiError;
use crate::i18n::jobs::jobs_texts;
use crate::live::use_live;
use crate::use_lang;
use leptos::prelude::*;

/// How many of the Agent's jobs its page lists.
const SHOWN: usize = 10;

/// The Agent's latest jobs, read again on live updates. Made in the body of
/// the page's island, not under the Agent's own Suspense (crate::islands).
pub fn latest_jobs(agent_id: Signal<String>) -> Resource<Result<JobListPage, UiError>> {
    let live = use_live();
    Resource::new(
        move || (agent_id.get(), live.jobs()),
        |(agent_id, _)| {
            list_jobs(JobQuery {
                agent_id: Some(agent_id),
                ..JobQuery::default()
            })
        },
    )
}

/// The jobs of [`latest_jobs`], with links to all and to the failed ones.
#[component]
pub fn AgentJobs(
    #[prop(into)] agent_id: Signal<String>,
    jobs: Resource<Result<JobListPage, UiError>>,
) -> impl IntoView {
    let lang = use_lang();
    let jt = jobs_texts(lang);
    view! {
        <section id="agent-jobs">
            <h2>{jt.agent_jobs_title}</h2>
            {loaded(
                move || async move { jobs.await },
                move |answer| {
                    let id = agent_id.get_untracked();
                    match answer {
                        page if page.items.is_empty() => {
                            view! { <p class="empty" id="agent-jobs-empty">{jt.agent_jobs_empty}</p> }.into_any()
                        }
                        page => {
                            let rows = page
                                .items
                                .into_iter()
                                .take(SHOWN)
                                .map(|j| {
                                    let failed = j.status.needs_attention();
                                    let first_line = j.result.lines().next().unwrap_or("").to_string();
                                    view! {
                                        <li class="agent-job" data-job=j.id.to_string() data-status=j.status.as_str()>
                                            <span class=job_badge(j.status)>{j.status.as_str()}</span>" "
                                            <a href=format!("/jobs/{}", j.id)>{jt.kind(&j.kind)}" "{j.component_id.clone().unwrap_or_default()}</a>
                                            " "<span class="muted">{when(&j.created_at)}</span>
                                            {failed.then(|| view! { <br /><span class="field-error job-failure">{first_line}</span> })}
                                        </li>
                                    }
                                })
                                .collect_view();
                            view! {
                                <ul class="agent-jobs">{rows}</ul>
                                <p>
                                    <a href=format!("/jobs?agent_id={id}")>{jt.agent_jobs_all}</a>" · "
                                    <a href=format!("/jobs?status=failed&agent_id={id}")>{jt.agent_jobs_failed}</a>
                                </p>
                            }
                                .into_any()
                        }
                    }
                },
            )}
        </section>
    }
}
