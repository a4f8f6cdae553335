//! Texts of the Overview lists, the live-update marker and relative times,
//! in English and Russian.

use crate::i18n::Lang;

pub struct OverviewTexts {
    pub attention_title: &'static str,
    pub attention_all_well: &'static str,
    pub attention_none_yet: &'static str,
    /// "{n} more" linking to the Agent list.
    pub attention_more: &'static str,
    pub recent_jobs_title: &'static str,
    pub recent_jobs_empty: &'static str,
    pub all_jobs: &'static str,
    pub failed_jobs: &'static str,
    pub live_on: &'static str,
    pub live_off: &'static str,
    pub live_on_hint: &'static str,
    pub live_off_hint: &'static str,
    pub just_now: &'static str,
    /// "{n} s ago", "{n} min ago", "{n} h ago", "{n} d ago".
    pub secs_ago: &'static str,
    pub mins_ago: &'static str,
    pub hours_ago: &'static str,
    pub days_ago: &'static str,
    /// "{n} Agents wait for approval", linking to them.
    pub agents_pending: &'static str,
}

const EN: OverviewTexts = OverviewTexts {
    attention_title: "Needs attention",
    attention_all_well: "All Agents are online and their components healthy.",
    attention_none_yet: "No Agent yet: add one under Infrastructure.",
    attention_more: "{n} more in the Agent list",
    recent_jobs_title: "Recent jobs",
    recent_jobs_empty: "No job yet. Deploy a Beacon or publish a service to queue one.",
    all_jobs: "All jobs",
    failed_jobs: "Failed jobs",
    live_on: "Live",
    live_off: "Not live",
    live_on_hint: "Changes appear on this screen as they happen.",
    live_off_hint: "Live updates are interrupted; reconnecting. Reload to see the latest state.",
    just_now: "just now",
    secs_ago: "{n} s ago",
    mins_ago: "{n} min ago",
    hours_ago: "{n} h ago",
    days_ago: "{n} d ago",
    agents_pending: "{n} new Agents wait for your approval: compare each one's key fingerprint, then approve or reject it.",
};

const RU: OverviewTexts = OverviewTexts {
    attention_title: "Требуют внимания",
    attention_all_well: "Все Agent в сети, их компоненты исправны.",
    attention_none_yet: "Пока нет ни одного Agent: добавьте первый в разделе «Инфраструктура».",
    attention_more: "Ещё {n} в списке Agent",
    recent_jobs_title: "Последние задачи",
    recent_jobs_empty: "Задач пока нет. Разверните Beacon или опубликуйте сервис.",
    all_jobs: "Все задачи",
    failed_jobs: "Неудачные задачи",
    live_on: "Онлайн",
    live_off: "Нет связи",
    live_on_hint: "Изменения появляются на экране сразу.",
    live_off_hint: "Обновления прерваны, идёт переподключение. Обновите страницу, чтобы увидеть текущее состояние.",
    just_now: "только что",
    secs_ago: "{n} с назад",
    mins_ago: "{n} мин назад",
    hours_ago: "{n} ч назад",
    days_ago: "{n} дн назад",
    agents_pending: "Новые Agent ждут вашего одобрения: {n}. Сравните отпечаток ключа каждого, затем одобрите или отклоните его.",
};

pub fn overview_texts(lang: Lang) -> &'static OverviewTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

/// "12 s ago", "5 min ago": how long ago something was, to the unit an
/// operator reads at a glance.
pub fn ago(lang: Lang, secs: u64) -> String {
    let t = overview_texts(lang);
    let (template, n) = match secs {
        0..=4 => return t.just_now.to_string(),
        5..=119 => (t.secs_ago, secs),
        120..=7_199 => (t.mins_ago, secs / 60),
        7_200..=172_799 => (t.hours_ago, secs / 3_600),
        _ => (t.days_ago, secs / 86_400),
    };
    template.replace("{n}", &n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_the_unit_that_fits() {
        assert_eq!(ago(Lang::En, 2), "just now");
        assert_eq!(ago(Lang::En, 42), "42 s ago");
        assert_eq!(ago(Lang::En, 125), "2 min ago");
        assert_eq!(ago(Lang::En, 3 * 3_600 + 5), "3 h ago");
        assert_eq!(ago(Lang::Ru, 3 * 86_400), "3 дн назад");
    }
}
