//! A service's identity backup on the Services screen: its state (none,
//! taken but not proved, verified, verification failed) with the archive and
//! plan, "Back up" (asks how many archives to keep and how often Control
//! should repeat it) and "Verify". Both are jobs for the sidecar's Agent; the
//! archive stays on its host.

use super::confirm::ConfirmDialog;
use super::service_form::Draft;
use super::services::job;
use crate::api::jobs::CreateJob;
use crate::i18n::services::{service_texts, ServiceTexts};
use crate::use_lang;
use leptos::prelude::*;
use protocol::backups::{BackupEvery, BackupVolume, KEEP_DEFAULT, KEEP_MAX};
use protocol::services::PublishedService;
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
    let snapshot = StoredValue::new((component_id.clone(), current.clone()));
    // "Queued" once the server took the job, until the row shows its result
    // (the backup it had changes).
    let queued = move || {
        let mine = draft
            .backup_queued
            .with(|q| snapshot.with_value(|s| q.as_ref() == Some(s)));
        let taken = create.value().with(|v| matches!(v, Some(Ok(_))));
        mine && taken && !create.pending().get()
    };
    let queue = move |kind: &str, payload: serde_json::Value, agent: &str| {
        draft.submitted.set(false);
        draft.backup_queued.set(Some(snapshot.get_value()));
        create.dispatch(job(agent, kind, payload));
    };
    view! {
        <button type="button" class="backup-service" on:click=move |_| open.set(true)>{st.back_up}</button>
        {current.is_some().then(|| view! {
            <button type="button" class="verify-backup" on:click=move |_| {
                queue("verify_backup", json!({"component_id": component2}), &agent2)
            }>{st.verify}</button>
        })}
        <Show when=queued>
            <span class="muted backup-queued" role="status">{st.backup_queued}</span>
        </Show>
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
