//! A service's identity backup on the Services screen: its state (none,
//! taken but not proved, verified, verification failed) with the archive and
//! plan, the latest backup job while it runs or if it failed, and "Back up"
//! (asks how many archives to keep and how often Control should repeat it).
//! Backing up and verifying are jobs for the sidecar's Agent; the archive
//! stays on its host.

use crate::api::services::BackUpServiceCall;
use crate::i18n::services::{service_texts, ServiceTexts};
use crate::i18n::texts;
use crate::use_lang;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use protocol::backups::{BackupEvery, KEEP_DEFAULT, KEEP_MAX};
use protocol::services::PublishedService;

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

/// The row's latest backup or verification job (`PublishedService::backup_job`):
/// queued or running, or ended without doing its work (then a link to it).
pub(super) fn backup_job_state(
    service: &PublishedService,
    st: &'static ServiceTexts,
) -> Option<AnyView> {
    let job = service.backup_job.as_ref()?;
    if job.status.is_active() {
        Some(
            view! { <span class="muted backup-queued" role="status">{st.backup_queued}</span> }
                .into_any(),
        )
    } else if job.status.needs_attention() {
        Some(
            view! {
                <span class="field-error backup-job-failed" role="status">
                    {st.backup_job_failed}" "<a href=format!("/jobs/{}", job.id)>{st.see_jobs}</a>
                </span>
            }
            .into_any(),
        )
    } else {
        None
    }
}

/// "Back up", asked at the page's address (`?backup=`): how many archives to
/// keep and how often Control should repeat it, as a plain form whose
/// fields start at the service's current plan. The server applies the rule
/// (`protocol::backups::BackupVolume`); a refusal comes back in the address.
#[component]
pub(super) fn BackupQuestion(
    service: PublishedService,
    /// Where Cancel goes: the page without the question.
    cancel_href: String,
) -> impl IntoView {
    let lang = use_lang();
    let (t, st) = (texts(lang), service_texts(lang));
    let current = service.backup.clone();
    let keep = current.as_ref().map_or(KEEP_DEFAULT, |b| b.keep.max(1));
    let every = current.as_ref().map_or(BackupEvery::default(), |b| b.every);
    view! {
        <form class="card confirm-inline" id="service-question" method="post" action=BackUpServiceCall::PATH novalidate
            role="group" aria-labelledby="service-question-title" aria-describedby="service-question-explain">
            <h3 id="service-question-title">{st.back_up}" "<code>{service.sidecar.display_name().to_string()}</code></h3>
            <p id="service-question-explain">{st.backup_explain}</p>
            <input type="hidden" name="agent_id" value=service.agent.id.to_string() />
            <input type="hidden" name="component_id" value=service.sidecar.id.clone() />
            <label for="backup-keep">{st.field_keep}</label>
            <input id="backup-keep" name="keep" class="backup-keep" type="number" min="1" max=KEEP_MAX.to_string()
                inputmode="numeric" value=keep.to_string() />
            <label for="backup-every">{st.field_every}</label>
            <select id="backup-every" name="every" class="backup-every">
                {BackupEvery::ALL.into_iter().map(|e| view! {
                    <option value=e.slug() selected=e == every>{every_label(e, st)}</option>
                }).collect_view()}
            </select>
            <div class="actions">
                <a href=cancel_href class="button" id="cancel-service-question" autofocus=true data-cancel="">{t.cancel}</a>
                <button type="submit" class="primary" id="confirm-backup">{st.back_up}</button>
            </div>
        </form>
    }
}
