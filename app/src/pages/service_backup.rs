//! A service's identity backup on the Services screen: its state (none,
//! taken but not proved, verified, verification failed) with the archive and
//! plan, "Back up" (asks how many archives to keep and how often Control
//! should repeat it) and "Verify". Both are jobs for the sidecar's Agent; the
//! archive stays on its host.

use super::confirm::ConfirmDialog;
use super::service_form::Draft;
use super::services::job;
use crate::api::jobs::{get_job, CreateJob};
use crate::i18n::services::{service_texts, ServiceTexts};
use crate::use_lang;
use leptos::prelude::*;
use protocol::api::JobView;
use protocol::backups::{BackupEvery, BackupVolume, JOB_KINDS, KEEP_DEFAULT, KEEP_MAX};
use protocol::services::PublishedService;
use protocol::JobId;
use serde_json::json;

fn every_label(every: BackupEvery, st: &ServiceTexts) -> &'static str {
    match every {
        BackupEvery::Day => st.every_day,
        BackupEvery::Week => st.every_week,
        BackupEvery::Never => st.every_never,
    }
}

/// The sidecar's identity backup: none, taken but unproved, failed or verified.
pub(super) fn backup_cell(service: &PublishedService, st: &'static ServiceTexts) -> AnyView {
    let Some(b) = service.backup.clone() else {
        return view! { <span class="badge warn">{st.no_backup}</span> }.into_any();
    };
    let (class, label) = if !b.verify_error.is_empty() {
        ("badge bad", st.verify_failed)
    } else if b.is_verified() {
        ("badge ok", st.verified)
    } else {
        ("badge warn", st.not_verified)
    };
    let title = format!("{} {}", st.backup_kept, b.directory);
    // A verified badge names the archive that was verified, and when.
    let (archive, when) = match (&b.verified_archive, &b.verified_at) {
        (Some(archive), Some(at)) if b.verify_error.is_empty() => (archive.clone(), at.clone()),
        _ => (b.newest_archive.clone(), b.newest_taken_at.clone()),
    };
    let plan = format!("{}, {} {}", every_label(b.every, st), st.keeps, b.keep);
    view! {
        <span class=class>{label}</span>" "
        <span class="muted backup-detail" title=title>{archive}" · "<time>{when}</time></span>
        <div class="muted backup-plan">{plan}</div>
        {(!b.verify_error.is_empty()).then(|| view! { <div class="field-error backup-error">{b.verify_error.clone()}</div> })}
    }
    .into_any()
}

/// Follows the backups and verifications this page queues until they end:
/// each created job is kept in `jobs`, and re-read whenever a job changes,
/// so a row can say it is queued, and link to it if it failed.
pub(super) fn follow_backup_jobs(create: ServerAction<CreateJob>, jobs: RwSignal<Vec<JobView>>) {
    let live = crate::live::use_live();
    Effect::new(move |_| {
        if let Some(Ok(job)) = create.value().get() {
            if JOB_KINDS.contains(&job.kind.as_str()) {
                jobs.update(|list| {
                    if !list.iter().any(|j| j.id == job.id) {
                        list.push(job);
                    }
                });
            }
        }
    });
    Effect::new(move |_| {
        live.jobs();
        let active: Vec<JobId> = jobs.with_untracked(|list| {
            list.iter()
                .filter(|j| j.status.is_active())
                .map(|j| j.id.clone())
                .collect()
        });
        for id in active {
            leptos::task::spawn_local(async move {
                if let Ok(now) = get_job(id).await {
                    jobs.update(|list| {
                        // Answers may arrive out of order: one read while
                        // the job ran never undoes one that saw it end.
                        if let Some(j) = list
                            .iter_mut()
                            .find(|j| j.id == now.id && j.status.is_active())
                        {
                            *j = now;
                        }
                    });
                }
            });
        }
    });
}

/// "Back up" (with its plan) and, once there is an archive, "Verify".
#[component]
pub(super) fn BackupActions(
    service: PublishedService,
    create: ServerAction<CreateJob>,
    draft: Draft,
) -> impl IntoView {
    let lang = use_lang();
    let st = service_texts(lang);
    let open = RwSignal::new(false);
    let refused = RwSignal::new(None::<String>);
    let current = service.backup.clone();
    let keep = RwSignal::new(
        current
            .as_ref()
            .map_or(KEEP_DEFAULT, |b| b.keep.max(1))
            .to_string(),
    );
    let every = RwSignal::new(
        current
            .as_ref()
            .map_or(BackupEvery::default(), |b| b.every)
            .slug()
            .to_string(),
    );
    let agent_id = service.agent.id.to_string();
    let component_id = service.sidecar.id.clone();
    let (agent2, component2) = (agent_id.clone(), component_id.clone());
    let field = format!("backup-keep-{}", service.sidecar.name);
    let every_field = format!("backup-every-{}", service.sidecar.name);
    // This sidecar's latest backup job from this page: queued or running, or
    // ended without doing its work (then a link to it).
    let latest = {
        let (agent, component) = (service.agent.id.clone(), component_id.clone());
        move || {
            draft.backup_jobs.with(|jobs| {
                jobs.iter()
                    .rev()
                    .find(|j| j.agent_id == agent && j.component_id.as_deref() == Some(&*component))
                    .map(|j| (j.id.clone(), j.status))
            })
        }
    };
    let queue = move |kind: &str, payload: serde_json::Value, agent: &str| {
        draft.submitted.set(false);
        create.dispatch(job(agent, kind, payload));
    };
    view! {
        <button type="button" class="backup-service" on:click=move |_| open.set(true)>{st.back_up}</button>
        {current.is_some().then(|| view! {
            <button type="button" class="verify-backup" on:click=move |_| {
                queue("verify_backup", json!({"component_id": component2}), &agent2)
            }>{st.verify}</button>
        })}
        {move || match latest() {
            Some((_, status)) if status.is_active() => {
                view! { <span class="muted backup-queued" role="status">{st.backup_queued}</span> }.into_any()
            }
            Some((id, status)) if status.needs_attention() => view! {
                <span class="field-error backup-job-failed" role="status">
                    {st.backup_job_failed}" "<a href=format!("/jobs/{id}")>{st.see_jobs}</a>
                </span>
            }
            .into_any(),
            _ => ().into_any(),
        }}
        <ConfirmDialog open title=st.back_up explain=st.backup_explain confirm_label=st.back_up
            confirm_id="confirm-backup" error=refused pending=create.pending()
            on_confirm=move || {
                // The rule the server applies, checked here first.
                let typed = keep.get_untracked();
                let keep: serde_json::Value = typed
                    .trim()
                    .parse::<u64>()
                    .map_or_else(|_| json!(typed), |n| json!(n));
                let payload = json!({"component_id": component_id, "keep": keep, "every": every.get_untracked()});
                match BackupVolume::parse(&payload) {
                    Err(e) => refused.set(Some(e.problem.message(lang))),
                    Ok(_) => {
                        refused.set(None);
                        queue("backup_volume", payload, &agent_id);
                        open.set(false);
                    }
                }
            }>
            <label for=field.clone()>{st.field_keep}</label>
            <input id=field.clone() class="backup-keep" type="number" min="1" max=KEEP_MAX.to_string()
                inputmode="numeric" prop:value=move || keep.get()
                on:input=move |ev| {
                    keep.set(event_target_value(&ev));
                    // A refusal stands for what was confirmed, not for what is typed now.
                    refused.set(None);
                } />
            <label for=every_field.clone()>{st.field_every}</label>
            <select id=every_field.clone() class="backup-every"
                on:change=move |ev| every.set(event_target_value(&ev))>
                {BackupEvery::ALL.into_iter().map(|e| view! {
                    <option value=e.slug() selected=move || every.get() == e.slug()>{every_label(e, st)}</option>
                }).collect_view()}
            </select>
        </ConfirmDialog>
    }
}
